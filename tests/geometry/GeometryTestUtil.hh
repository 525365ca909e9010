// Helpers shared by the geometry tests.
#pragma once

#include <functional>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "fastmu/core/Error.hh"
#include "fastmu/geometry/GeometryParams.hh"
#include "fastmu/materials/Material.hh"

namespace fastmu::test {

inline nlohmann::json world_doc(const std::string& material = "G4_AIR") {
  return {{"world", {{"min", {-10, -10, -10}}, {"max", {10, 10, 10}}, {"material", material}}},
          {"volumes", nlohmann::json::array()}};
}

inline nlohmann::json box_json(const std::string& name, std::array<double, 3> lo,
                               std::array<double, 3> hi, const std::string& material = "G4_Fe") {
  return {{"name", name}, {"shape", "box"}, {"min", lo}, {"max", hi}, {"material", material}};
}

inline nlohmann::json arb8_json(const std::string& name, double zc, double dz,
                                const std::vector<std::array<double, 2>>& v,
                                const std::string& material = "G4_Fe") {
  nlohmann::json verts = nlohmann::json::array();
  for (const auto& p : v) verts.push_back({p[0], p[1]});
  return {{"name", name}, {"shape", "arb8"},   {"z_center", zc},
          {"dz", dz},     {"vertices", verts}, {"material", material}};
}

inline GeometryParams load(const nlohmann::json& doc) {
  MaterialLibrary lib;
  return GeometryParams::from_json(doc, "geom.json", lib);
}

// The message of the fastmu::Error that `f` throws ("" if none).
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

inline std::string load_error(const nlohmann::json& doc) {
  return error_of([&] { load(doc); });
}

}  // namespace fastmu::test
