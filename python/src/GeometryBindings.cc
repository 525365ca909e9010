// fastmu.Geometry: a validated geometry (interfaces.md "Geometry (JSON)").
// Both from_json(path) and from_dict(dict) go through the C++ JSON parser,
// so Python and the command line accept and reject exactly the same input.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>
#include <nlohmann/json.hpp>

#include "Bindings.hh"
#include "GeometryHandle.hh"
#include "fastmu/core/Error.hh"
#include "fastmu/geometry/GdmlReader.hh"
#include "fastmu/geometry/GdmlWriter.hh"

namespace fastmu::python {

namespace {

const char* interpolation_name(FieldInterpolation i) {
  return i == FieldInterpolation::nearest ? "nearest" : "linear";
}

std::shared_ptr<GeometryHandle> from_file(const std::filesystem::path& path) {
  auto h = std::make_shared<GeometryHandle>();
  h->materials = python_materials();  // the geometry's own materials land in this copy
  h->params = std::make_shared<GeometryParams>(GeometryParams::from_json_file(path, h->materials));
  return h;
}

std::shared_ptr<GeometryHandle> from_gdml(const std::filesystem::path& path) {
  auto h = std::make_shared<GeometryHandle>();
  h->materials = python_materials();
  h->params = std::make_shared<GeometryParams>(geometry_from_gdml_file(path, h->materials));
  return h;
}

std::shared_ptr<GeometryHandle> from_text(const std::string& text, const std::string& source,
                                          std::optional<std::filesystem::path> base_dir) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(source + ": invalid JSON: " + e.what());
  }
  auto h = std::make_shared<GeometryHandle>();
  h->materials = python_materials();
  h->params = std::make_shared<GeometryParams>(
      GeometryParams::from_json(doc, source, h->materials, std::move(base_dir)));
  return h;
}

py::list volumes_list(const GeometryParams& g) {
  py::list out;
  for (const auto& v : g.volumes()) {
    py::dict d;
    d["name"] = v.name;
    d["shape"] = v.shape == VolumeShape::box    ? "box"
                 : v.shape == VolumeShape::arb8 ? "arb8"
                                                : "terrain";
    d["min"] = v.lo;
    d["max"] = v.hi;
    if (v.shape == VolumeShape::arb8) {
      d["z_center"] = v.z_center;
      d["dz"] = v.dz;
      py::list vertices;
      for (const auto& xy : v.vertices) vertices.append(py::make_tuple(xy[0], xy[1]));
      d["vertices"] = vertices;
    }
    d["material"] = v.material;
    d["field"] = v.field;
    out.append(d);
  }
  return out;
}

}  // namespace

void bind_geometry(py::module_& m) {
  py::class_<GeometryHandle, std::shared_ptr<GeometryHandle>>(
      m, "Geometry",
      "A validated geometry: world box, volumes (box, arb8) with materials and uniform fields, "
      "optional field map and sensitive planes. Build with Geometry.from_json(path) or "
      "Geometry.from_dict(dict).")
      .def_static("from_json", &from_file, py::arg("path"),
                  "Reads and validates a geometry JSON file (a relative field-map path is "
                  "resolved against the file's folder).")
      .def_static(
          "from_dict",
          [](const py::dict& d, std::optional<std::filesystem::path> base_dir) {
            // Through JSON text: the C++ parser is the one source of truth.
            const std::string text =
                py::module_::import("json").attr("dumps")(d).cast<std::string>();
            return from_text(text, "<dict>",
                             base_dir ? std::move(base_dir) : std::filesystem::current_path());
          },
          py::arg("geometry"), py::arg("base_dir") = py::none(),
          "Validates a geometry given as a dict with the JSON layout; a relative field-map "
          "path is resolved against base_dir (default: the current folder).")
      .def_static("from_gdml", &from_gdml, py::arg("path"),
                  "Reads a GDML geometry (box, trd, trap, arb8; rotations about z) and its sidecar "
                  "path + '.json' (sensitive_planes, field_map) if present; see "
                  "docs/geometry-and-materials.md.")
      .def(
          "to_gdml",
          [](const GeometryHandle& h, const std::filesystem::path& path) {
            write_gdml(*h.params, h.materials, path);
          },
          py::arg("path"),
          "Writes the geometry as GDML for Geant4 (plus path + '.json' for planes/field map).")
      .def_static("from_json_text", &from_text, py::arg("text"), py::arg("source") = "<json>",
                  py::arg("base_dir") = py::none(), "Validates a geometry given as JSON text.")
      .def_property_readonly("source", [](const GeometryHandle& h) { return h.params->source(); })
      .def_property_readonly("world_min",
                             [](const GeometryHandle& h) { return h.params->world_lo(); })
      .def_property_readonly("world_max",
                             [](const GeometryHandle& h) { return h.params->world_hi(); })
      .def_property_readonly(
          "material_names", [](const GeometryHandle& h) { return h.params->material_names(); },
          "Materials used, by id (id 0 is the world's).")
      .def_property_readonly("volumes",
                             [](const GeometryHandle& h) { return volumes_list(*h.params); })
      .def_property_readonly(
          "sensitive_planes",
          [](const GeometryHandle& h) {
            py::list out;
            for (const auto& p : h.params->sensitive_planes()) {
              out.append(py::dict(py::arg("z") = p.z,
                                  py::arg("x") = py::make_tuple(p.x_min, p.x_max),
                                  py::arg("y") = py::make_tuple(p.y_min, p.y_max)));
            }
            return out;
          })
      .def_property_readonly(
          "field_map",
          [](const GeometryHandle& h) -> py::object {
            const auto& f = h.params->field_map();
            if (!f) return py::none();
            return py::dict(
                py::arg("file") = f->file.string(),
                py::arg("interpolation") = interpolation_name(f->interpolation),
                py::arg("symmetry") = f->symmetry == FieldSymmetry::quadrant ? "quadrant" : "none");
          },
          "The JSON's field_map (file resolved), or None.")
      .def_property_readonly("grid_shape",
                             [](const GeometryHandle& h) { return h.params->grid_shape(); })
      .def(
          "material",
          [](const GeometryHandle& h, const std::string& name) {
            return h.materials.find(name).definition();
          },
          py::arg("name"), "Definition line of a material as this geometry sees it.")
      .def("__repr__", [](const GeometryHandle& h) {
        return "Geometry('" + h.params->source() + "', " +
               std::to_string(h.params->volumes().size()) + " volumes, " +
               std::to_string(h.params->sensitive_planes().size()) + " sensitive planes)";
      });
}

}  // namespace fastmu::python
