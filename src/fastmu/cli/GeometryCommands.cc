// `fastmu geometry export --gdml OUT [--geometry G | --example ship|iron-block]`:
// writes a geometry (JSON or GDML input, or a built-in example) as GDML for
// Geant4, plus OUT.json for what GDML cannot hold (docs/geometry-and-materials.md "GDML").
#include <memory>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "fastmu/cli/Commands.hh"
#include "fastmu/core/Error.hh"
#include "fastmu/geometry/GdmlReader.hh"
#include "fastmu/geometry/GdmlWriter.hh"
#include "fastmu/geometry/ShipShield.hh"
#include "fastmu/materials/Material.hh"
#include "fastmu/transport/examples/Examples.hh"

namespace fastmu::cli {

namespace {

struct ExportArgs {
  std::string gdml, geometry, example, ship_set = "warm";
};

void run_export(const ExportArgs& a) {
  MaterialLibrary materials;
  if (a.geometry.empty() == a.example.empty()) {
    throw Error("geometry export: give exactly one of --geometry and --example");
  }
  const GeometryParams g = [&] {
    if (!a.geometry.empty()) return load_geometry_file(a.geometry, materials);
    if (a.example == "ship") {
      return GeometryParams::from_json(make_ship_shield_json(a.ship_set),
                                       fmt::format("ship({})", a.ship_set), materials);
    }
    if (a.example == "iron-block")
      return GeometryParams::from_json(iron_block_geometry_json(), "iron-block", materials);
    throw Error(fmt::format("geometry export: unknown example '{}' (expected ship or iron-block)",
                            a.example));
  }();
  write_gdml(g, materials, a.gdml);
  fmt::print("wrote {} ({} volumes, {} materials)\n", a.gdml, g.volumes().size(),
             g.material_names().size());
}

}  // namespace

void register_geometry_commands(CLI::App& app) {
  auto* geo = app.add_subcommand("geometry", "Geometry conversion");
  geo->require_subcommand(1);
  auto a = std::make_shared<ExportArgs>();
  auto* ex = geo->add_subcommand(
      "export", "Write a geometry as GDML (Geant4) plus OUT.json for planes/field map");
  ex->add_option("--gdml", a->gdml, "output GDML file")->required();
  ex->add_option("--geometry", a->geometry, "input geometry: JSON, or GDML by its .gdml extension")
      ->check(CLI::ExistingFile);
  ex->add_option("--example", a->example, "built-in geometry instead: ship | iron-block");
  ex->add_option("--ship-set", a->ship_set, "ship: parameter set (default warm)");
  ex->callback([a] { run_export(*a); });
}

}  // namespace fastmu::cli
