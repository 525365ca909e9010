// fastmu.materials: the material library (built-in NIST-like set plus custom
// materials defined from Python).
#include <map>
#include <string>

#include <pybind11/stl.h>

#include "Bindings.hh"
#include "fastmu/core/Error.hh"

namespace fastmu::python {

MaterialLibrary& python_materials() {
  static MaterialLibrary library;  // built-ins; add_custom() extends it
  return library;
}

namespace {

// A material as a plain dict: density in g/cm3 (as in the geometry JSON),
// I in eV, composition as mass fractions by element symbol.
py::dict material_to_dict(const Material& mat) {
  py::dict d;
  d["name"] = mat.name;
  d["density"] = mat.density_g_cm3;
  d["mean_excitation_ev"] = mat.mean_excitation_ev;
  py::dict composition;
  py::list components;
  for (const auto& c : mat.components) {
    const std::string symbol = element_by_z(c.z).symbol;
    // Effective elements (standard rock: Z = 11, A = 22) can share a symbol
    // with a real one: sum fractions by symbol, keep each component in `components`.
    const double before =
        composition.contains(symbol) ? composition[symbol.c_str()].cast<double>() : 0.0;
    composition[symbol.c_str()] = before + c.mass_fraction;
    components.append(py::dict(py::arg("z") = c.z, py::arg("a") = c.a_g_per_mol,
                               py::arg("mass_fraction") = c.mass_fraction));
  }
  d["composition"] = composition;
  d["components"] = components;
  d["radiation_length_m"] = mat.radiation_length_m();
  d["z_over_a"] = mat.z_over_a();
  d["electron_density_per_cm3"] = mat.electron_density_per_cm3();
  d["definition"] = mat.definition();
  return d;
}

}  // namespace

void bind_materials(py::module_& m) {
  auto mm =
      m.def_submodule("materials", "Material library (Geant4 NIST names; 'vacuum' = G4_Galactic)");
  mm.def(
      "names", [] { return python_materials().names(); },
      "Names of all known materials (built-in and custom).");
  mm.def(
      "contains", [](const std::string& name) { return python_materials().contains(name); },
      py::arg("name"));
  mm.def(
      "find",
      [](const std::string& name) { return material_to_dict(python_materials().find(name)); },
      py::arg("name"),
      "The material as a dict: name, density [g/cm3], mean_excitation_ev, composition "
      "{symbol: mass fraction}, components, radiation_length_m, z_over_a, definition. "
      "Raises fastmu.Error for an unknown name.");
  mm.def(
      "add_custom",
      [](const std::string& name, double density,
         const std::map<std::string, double>& composition) {
        return material_to_dict(python_materials().add_custom(name, density, composition));
      },
      py::arg("name"), py::arg("density"), py::arg("composition"),
      "Defines a material from its density [g/cm3] and mass fractions by element symbol "
      "(normalised to 1), for this process. Returns it as find() does.");
}

}  // namespace fastmu::python
