// GDML writer: builds the document with pugixml (which escapes names) in
// Geant4's default units (mm, g/cm3, g/mole), shortest exact decimals so that
// reading back reproduces the doubles within rounding of the m <-> mm scaling.
#include "fastmu/geometry/GdmlWriter.hh"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <pugixml.hpp>

#include "fastmu/core/Error.hh"
#include "fastmu/io/AtomicOutput.hh"
#include "fastmu/materials/Material.hh"

namespace fastmu {

namespace {

std::string num(double v) { return fmt::format("{}", v); }  // shortest exact round trip
std::string mm(double metres) { return num(metres * 1000.0); }

void add_material(pugi::xml_node& mats, std::set<int>& elements_done, const Material& m) {
  for (const auto& c : m.components) {
    if (!elements_done.insert(c.z).second) continue;
    const Element& e = element_by_z(c.z);
    pugi::xml_node el = mats.append_child("element");
    el.append_attribute("name") = fmt::format("fastmu_el_{}", e.symbol).c_str();
    el.append_attribute("formula") = e.symbol;
    el.append_attribute("Z") = c.z;
    pugi::xml_node atom = el.append_child("atom");
    atom.append_attribute("unit") = "g/mole";
    atom.append_attribute("value") = num(e.a_g_per_mol).c_str();
  }
  pugi::xml_node mat = mats.append_child("material");
  mat.append_attribute("name") = m.name.c_str();
  pugi::xml_node d = mat.append_child("D");
  d.append_attribute("unit") = "g/cm3";
  d.append_attribute("value") = num(m.density_g_cm3).c_str();
  for (const auto& c : m.components) {
    pugi::xml_node f = mat.append_child("fraction");
    f.append_attribute("n") = num(c.mass_fraction).c_str();
    f.append_attribute("ref") = fmt::format("fastmu_el_{}", element_by_z(c.z).symbol).c_str();
  }
}

void add_box(pugi::xml_node& solids, const std::string& name, const std::array<double, 3>& lo,
             const std::array<double, 3>& hi) {
  pugi::xml_node b = solids.append_child("box");
  b.append_attribute("name") = name.c_str();
  b.append_attribute("lunit") = "mm";
  b.append_attribute("x") = mm(hi[0] - lo[0]).c_str();
  b.append_attribute("y") = mm(hi[1] - lo[1]).c_str();
  b.append_attribute("z") = mm(hi[2] - lo[2]).c_str();
}

void add_volume(pugi::xml_node& structure, const std::string& name, const std::string& solid,
                const std::string& material, const std::array<double, 3>* field) {
  pugi::xml_node v = structure.append_child("volume");
  v.append_attribute("name") = name.c_str();
  v.append_child("materialref").append_attribute("ref") = material.c_str();
  v.append_child("solidref").append_attribute("ref") = solid.c_str();
  if (field) {
    pugi::xml_node aux = v.append_child("auxiliary");
    aux.append_attribute("auxtype") = "fastmu_field";
    aux.append_attribute("auxvalue") =
        fmt::format("{} {} {}", num((*field)[0]), num((*field)[1]), num((*field)[2])).c_str();
  }
}

}  // namespace

std::string geometry_to_gdml(const GeometryParams& g, const MaterialLibrary& materials) {
  // GDML has no height-map solid (a tessellated surface would lose the
  // bilinear patches): refuse rather than write something else.
  for (const VolumeDesc& v : g.volumes()) {
    if (v.shape == VolumeShape::terrain) {
      throw Error(fmt::format("{}: terrain '{}' cannot be written as GDML", g.source(), v.name));
    }
  }
  pugi::xml_document doc;
  pugi::xml_node decl = doc.append_child(pugi::node_declaration);
  decl.append_attribute("version") = "1.0";
  decl.append_attribute("encoding") = "UTF-8";
  pugi::xml_node root = doc.append_child("gdml");
  root.append_attribute("xmlns:xsi") = "http://www.w3.org/2001/XMLSchema-instance";
  root.append_attribute("xsi:noNamespaceSchemaLocation") =
      "http://service-spi.web.cern.ch/service-spi/app/releases/GDML/schema/gdml.xsd";
  root.append_child("define");

  // Built-in materials are referenced by name (Geant4 builds G4_* from its
  // NIST database when the file does not define them); custom ones are defined.
  pugi::xml_node mats = root.append_child("materials");
  std::set<int> elements_done;
  const MaterialLibrary& builtin = builtin_materials();
  for (const std::string& name : g.material_names()) {
    const Material& m = materials.find(name);
    if (builtin.contains(name)) continue;
    add_material(mats, elements_done, m);
  }

  pugi::xml_node solids = root.append_child("solids");
  pugi::xml_node structure = root.append_child("structure");
  const auto& vols = g.volumes();
  for (std::size_t i = 0; i < vols.size(); ++i) {
    const VolumeDesc& v = vols[i];
    const std::string solid = fmt::format("solid_{}", i);
    if (v.shape == VolumeShape::box) {
      add_box(solids, solid, v.lo, v.hi);
    } else {
      // Clockwise in each face (G4GenericTrap's documented order); fastmu
      // stores them counter-clockwise, so reverse while keeping i -> i + 4.
      pugi::xml_node a = solids.append_child("arb8");
      a.append_attribute("name") = solid.c_str();
      a.append_attribute("lunit") = "mm";
      a.append_attribute("dz") = mm(v.dz).c_str();
      constexpr int order[8] = {0, 3, 2, 1, 4, 7, 6, 5};
      for (int k = 0; k < 8; ++k) {
        const auto& p = v.vertices[static_cast<std::size_t>(order[k])];
        a.append_attribute(fmt::format("v{}x", k + 1).c_str()) = mm(p[0]).c_str();
        a.append_attribute(fmt::format("v{}y", k + 1).c_str()) = mm(p[1]).c_str();
      }
    }
    const bool has_field = v.field[0] != 0 || v.field[1] != 0 || v.field[2] != 0;
    add_volume(structure, fmt::format("lv_{}", i), solid, v.material,
               has_field ? &v.field : nullptr);
  }
  // GDML's world box is centred on the origin; fastmu's need not be. Write the
  // smallest centred box holding it and keep fastmu's bounds in an auxiliary
  // tag (mm), which the reader restores.
  std::array<double, 3> half{}, neg{};
  bool centred = true;
  for (int a = 0; a < 3; ++a) {
    half[a] = std::max(std::abs(g.world_lo()[a]), std::abs(g.world_hi()[a]));
    neg[a] = -half[a];
    centred = centred && g.world_lo()[a] == -half[a] && g.world_hi()[a] == half[a];
  }
  add_box(solids, "solid_world", neg, half);
  add_volume(structure, "World", "solid_world", g.material_names()[0], nullptr);
  if (!centred) {
    pugi::xml_node aux = structure.last_child().append_child("auxiliary");
    aux.append_attribute("auxtype") = "fastmu_world_bounds";
    aux.append_attribute("auxvalue") =
        fmt::format("{} {} {} {} {} {}", mm(g.world_lo()[0]), mm(g.world_lo()[1]),
                    mm(g.world_lo()[2]), mm(g.world_hi()[0]), mm(g.world_hi()[1]),
                    mm(g.world_hi()[2]))
            .c_str();
  }
  pugi::xml_node world = structure.last_child();
  for (std::size_t i = 0; i < vols.size(); ++i) {
    const VolumeDesc& v = vols[i];
    pugi::xml_node pv = world.append_child("physvol");
    pv.append_attribute("name") = v.name.c_str();
    pv.append_child("volumeref").append_attribute("ref") = fmt::format("lv_{}", i).c_str();
    pugi::xml_node pos = pv.append_child("position");
    pos.append_attribute("name") = fmt::format("pos_{}", i).c_str();
    pos.append_attribute("unit") = "mm";
    if (v.shape == VolumeShape::box) {
      pos.append_attribute("x") = mm(0.5 * (v.lo[0] + v.hi[0])).c_str();
      pos.append_attribute("y") = mm(0.5 * (v.lo[1] + v.hi[1])).c_str();
      pos.append_attribute("z") = mm(0.5 * (v.lo[2] + v.hi[2])).c_str();
    } else {
      pos.append_attribute("x") = "0";
      pos.append_attribute("y") = "0";
      pos.append_attribute("z") = mm(v.z_center).c_str();
    }
  }
  pugi::xml_node setup = root.append_child("setup");
  setup.append_attribute("name") = "Default";
  setup.append_attribute("version") = "1.0";
  setup.append_child("world").append_attribute("ref") = "World";

  std::ostringstream out;
  doc.save(out, "  ");
  return out.str();
}

std::optional<nlohmann::json> geometry_gdml_sidecar(const GeometryParams& g,
                                                    const std::filesystem::path& sidecar_dir) {
  nlohmann::json j = nlohmann::json::object();
  if (!g.sensitive_planes().empty()) {
    nlohmann::json planes = nlohmann::json::array();
    for (const SensitivePlane& p : g.sensitive_planes()) {
      planes.push_back({{"z", p.z}, {"x", {p.x_min, p.x_max}}, {"y", {p.y_min, p.y_max}}});
    }
    j["sensitive_planes"] = planes;
  }
  if (const auto& fm = g.field_map()) {
    j["field_map"] = {
        {"file", std::filesystem::absolute(fm->file)
                     .lexically_relative(std::filesystem::absolute(sidecar_dir))
                     .string()},
        {"interpolation", fm->interpolation == FieldInterpolation::nearest ? "nearest" : "linear"},
        {"symmetry", fm->symmetry == FieldSymmetry::quadrant ? "quadrant" : "none"}};
  }
  if (j.empty()) return std::nullopt;
  return j;
}

void write_gdml(const GeometryParams& g, const MaterialLibrary& materials,
                const std::filesystem::path& out) {
  // Readers pick GDML by the extension, and the sidecar is `out` + ".json": an
  // output "shield" would write (or, with no planes, delete) "shield.json",
  // which may be the user's JSON geometry.
  std::string ext = out.extension().string();
  for (char& ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (ext != ".gdml")
    throw Error(fmt::format("{}: a GDML output file name must end in .gdml", out.string()));
  const std::string text = geometry_to_gdml(g, materials);
  const auto sidecar =
      geometry_gdml_sidecar(g, out.parent_path().empty() ? "." : out.parent_path());
  std::filesystem::path side_path = out;
  side_path += ".json";
  io::AtomicOutput gdml_out(out);
  {
    std::ofstream f(gdml_out.temp_path());
    f << text;
    io::close_checked(f, out);
  }
  if (sidecar) {
    io::AtomicOutput side_out(side_path);
    {
      std::ofstream f(side_out.temp_path());
      f << sidecar->dump(2) << "\n";
      io::close_checked(f, side_path);
    }
    side_out.commit();
  } else {
    std::filesystem::remove(side_path);
  }
  gdml_out.commit();
}

}  // namespace fastmu
