// A JSON value with its path, for the geometry readers' one-line messages
// such as "geom.json: volumes[2].dz: must be > 0, got -1".
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <initializer_list>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "fastmu/core/Error.hh"

namespace fastmu::json_check {

using nlohmann::json;

struct Node {
  const json& j;
  std::string source;
  std::string path;

  [[noreturn]] void fail(const std::string& what) const {
    throw Error(fmt::format("{}: {}: {}", source, path.empty() ? "(top level)" : path, what));
  }
  Node key(const std::string& k) const {
    return {j.at(k), source, path.empty() ? k : path + "." + k};
  }
  Node index(std::size_t i) const { return {j.at(i), source, fmt::format("{}[{}]", path, i)}; }
  bool has(const std::string& k) const { return j.contains(k); }
  Node require(const std::string& k) const {
    if (!j.contains(k)) {
      throw Error(
          fmt::format("{}: {}: missing key '{}'", source, path.empty() ? "(top level)" : path, k));
    }
    return key(k);
  }

  static std::string type_name(const json& v) { return v.type_name(); }

  void expect_object() const {
    if (!j.is_object()) fail(fmt::format("expected an object, got {}", type_name(j)));
  }
  void expect_array() const {
    if (!j.is_array()) fail(fmt::format("expected an array, got {}", type_name(j)));
  }
  // Unknown keys are errors (a misspelt "feild" must not silently mean zero
  // field); keys starting with '_' and "comment"/"description" are notes.
  void allow_keys(std::initializer_list<const char*> keys) const {
    expect_object();
    for (const auto& [k, v] : j.items()) {
      if (k.rfind('_', 0) == 0 || k == "comment" || k == "description") continue;
      // (A copy: clang 14 cannot capture a structured binding.)
      if (std::none_of(keys.begin(), keys.end(), [&key = k](const char* a) { return key == a; })) {
        std::string known;
        for (const char* a : keys) known += (known.empty() ? "" : ", ") + std::string(a);
        fail(fmt::format("unknown key '{}' (expected: {})", k, known));
      }
    }
  }
  double number() const {
    if (!j.is_number()) fail(fmt::format("expected a number, got {}", type_name(j)));
    const double v = j.get<double>();
    if (!std::isfinite(v)) fail("expected a finite number");
    return v;
  }
  std::string string() const {
    if (!j.is_string()) fail(fmt::format("expected a string, got {}", type_name(j)));
    return j.get<std::string>();
  }
  // A fixed-length array of numbers.
  template <std::size_t N>
  std::array<double, N> numbers(const char* what) const {
    if (!j.is_array() || j.size() != N) {
      fail(fmt::format("expected {}, got {}", what,
                       j.is_array() ? fmt::format("{} values", j.size()) : type_name(j)));
    }
    std::array<double, N> r{};
    for (std::size_t i = 0; i < N; ++i) r[i] = index(i).number();
    return r;
  }
  // numbers<N>, each within [-bound, bound] (limits::kMaxCoordinate for
  // positions, limits::kMaxField for fields).
  template <std::size_t N>
  std::array<double, N> bounded(const char* what, double bound, const char* unit) const {
    const std::array<double, N> r = numbers<N>(what);
    for (std::size_t i = 0; i < N; ++i) {
      if (!(std::abs(r[i]) <= bound)) {
        index(i).fail(
            fmt::format("{:g} {} is not in [-{:g}, {:g}] {}", r[i], unit, bound, bound, unit));
      }
    }
    return r;
  }
};

}  // namespace fastmu::json_check
