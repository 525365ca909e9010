// What the transport fuzzer draws from its input bytes: a small geometry as
// JSON (a world and up to three boxes and an ARB8 in separate z slots, so that
// most geometries are valid, with uniform fields and sensitive planes), the
// step options, the momentum policy, and muon rows mixing ordinary muons with
// extreme values (signed zeros, denormals, huge magnitudes, infinities, NaN).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include <fuzzer/FuzzedDataProvider.h>
#include <nlohmann/json.hpp>

#include "fastmu/transport/MuonBatch.hh"
#include "fastmu/transport/MuonRowCheck.hh"
#include "fastmu/transport/step/StepPhysics.hh"

namespace fastmu::fuzz {

// The bounds of one run: at most kMaxRows rows of at most kMaxSteps steps.
inline constexpr int kMaxRows = 64;
inline constexpr int kMaxSteps = 2000;

struct WorldBox {
  double wx, wy, z0, z1;  // half-widths and z range [m]
};

inline const char* pick_material(FuzzedDataProvider& in) {
  return in.PickValueInArray({"G4_Fe", "G4_AIR", "G4_CONCRETE", "vacuum"});
}

inline nlohmann::json pick_field(FuzzedDataProvider& in) {
  if (!in.ConsumeBool()) return {0, 0, 0};
  auto b = [&] { return in.ConsumeFloatingPointInRange<double>(-4, 4); };
  return {b(), b(), b()};
}

// [-w a, w b] with a, b in (0, 1]: a window or an extent inside +-w.
inline nlohmann::json pick_span(FuzzedDataProvider& in, double w) {
  const double a = in.ConsumeFloatingPointInRange<double>(0.02, 1.0);
  const double b = in.ConsumeFloatingPointInRange<double>(0.02, 1.0);
  return {-w * a, w * b};
}

inline nlohmann::json pick_box(FuzzedDataProvider& in, const WorldBox& w, double z0, double z1) {
  const auto x = pick_span(in, w.wx), y = pick_span(in, w.wy);
  const double lo = z0 + (z1 - z0) * in.ConsumeFloatingPointInRange<double>(0, 0.5);
  const double hi = lo + (z1 - lo) * in.ConsumeFloatingPointInRange<double>(0.01, 1.0);
  return {{"shape", "box"},
          {"min", {x[0], y[0], lo}},
          {"max", {x[1], y[1], hi}},
          {"material", pick_material(in)},
          {"field", pick_field(in)}};
}

// A trapezoid in the slot [z0, z1], possibly sheared and twisted (vertices in
// G4GenericTrap order, as the geometry JSON expects).
inline nlohmann::json pick_arb8(FuzzedDataProvider& in, const WorldBox& w, double z0, double z1) {
  const double dz = 0.5 * (z1 - z0) * in.ConsumeFloatingPointInRange<double>(0.02, 1.0);
  nlohmann::json vertices = nlohmann::json::array();
  for (int face = 0; face < 2; ++face) {
    const double a = 0.5 * w.wx * in.ConsumeFloatingPointInRange<double>(0.02, 1.0);
    const double b = 0.5 * w.wy * in.ConsumeFloatingPointInRange<double>(0.02, 1.0);
    const double t = in.ConsumeBool() ? in.ConsumeFloatingPointInRange<double>(-0.4, 0.4) : 0;
    const std::array<std::array<double, 2>, 4> corners = {{{-a, -b}, {-a, b}, {a, b}, {a, -b}}};
    for (const auto& c : corners) vertices.push_back({c[0] - t * c[1], c[1] + t * c[0]});
  }
  return {{"shape", "arb8"},      {"z_center", 0.5 * (z0 + z1)},   {"dz", dz},
          {"vertices", vertices}, {"material", pick_material(in)}, {"field", pick_field(in)}};
}

inline nlohmann::json pick_geometry(FuzzedDataProvider& in, WorldBox& w) {
  w.wx = in.ConsumeFloatingPointInRange<double>(0.5, 30);
  w.wy = in.ConsumeFloatingPointInRange<double>(0.5, 30);
  w.z0 = -in.ConsumeFloatingPointInRange<double>(0.1, 5);
  w.z1 = in.ConsumeFloatingPointInRange<double>(0.5, 60);
  nlohmann::json g = {{"world",
                       {{"min", {-w.wx, -w.wy, w.z0}},
                        {"max", {w.wx, w.wy, w.z1}},
                        {"material", pick_material(in)}}}};
  const int boxes = in.ConsumeIntegralInRange(0, 3);
  const bool arb8 = in.ConsumeBool();
  const int slots = boxes + (arb8 ? 1 : 0);
  nlohmann::json volumes = nlohmann::json::array();
  for (int k = 0; k < slots; ++k) {
    const double z0 = w.z0 + (w.z1 - w.z0) * k / slots, z1 = w.z0 + (w.z1 - w.z0) * (k + 1) / slots;
    auto v = k < boxes ? pick_box(in, w, z0, z1) : pick_arb8(in, w, z0, z1);
    v["name"] = "v" + std::to_string(k);
    volumes.push_back(v);
  }
  g["volumes"] = volumes;
  nlohmann::json planes = nlohmann::json::array();
  for (int k = in.ConsumeIntegralInRange(0, 2); k > 0; --k) {
    planes.push_back({{"z", in.ConsumeFloatingPointInRange<double>(w.z0, w.z1)},
                      {"x", pick_span(in, w.wx)},
                      {"y", pick_span(in, w.wy)}});
  }
  g["sensitive_planes"] = planes;
  if (in.ConsumeBool()) g["steps"] = {{pick_material(in), in.PickValueInArray({0.004, 0.03})}};
  return g;
}

inline StepOptions pick_options(FuzzedDataProvider& in) {
  StepOptions o;
  o.step = in.PickValueInArray({0.02f, 0.005f, 0.05f, 0.1f});
  o.p_kill = in.PickValueInArray({0.18f, 0.05f, 0.3f, 1.0f, 5.0f});
  o.max_steps = in.ConsumeIntegralInRange(1, kMaxSteps);
  o.long_steps = in.ConsumeIntegralInRange(0, 3);
  o.seed = in.ConsumeIntegral<std::uint64_t>();
  return o;
}

// One column value: ordinary (uniform in [lo, hi]) or one of the extremes.
inline float pick_value(FuzzedDataProvider& in, float lo, float hi) {
  constexpr float inf = std::numeric_limits<float>::infinity();
  const int kind = in.ConsumeIntegralInRange(0, 31);
  if (kind < 16) return in.ConsumeFloatingPointInRange<float>(lo, hi);
  if (kind == 31) {
    const auto bits = in.ConsumeIntegral<std::uint32_t>();
    float v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  }
  static const float extremes[] = {0.0f,
                                   -0.0f,
                                   std::numeric_limits<float>::denorm_min(),
                                   -1e-40f,
                                   1e-40f,
                                   1e-30f,
                                   1e20f,
                                   1e30f,
                                   -1e30f,
                                   3e38f,
                                   std::numeric_limits<float>::max(),
                                   -std::numeric_limits<float>::max(),
                                   inf,
                                   -inf,
                                   std::numeric_limits<float>::quiet_NaN()};
  return extremes[(kind - 16) % (sizeof extremes / sizeof extremes[0])];
}

// An ordinary muon entering near the world's upstream face, then maybe one
// column replaced by an arbitrary value.
inline void push_row(FuzzedDataProvider& in, const WorldBox& w, MuonBatch& b) {
  const float p = in.ConsumeFloatingPointInRange<float>(0.01f, 450.0f);
  const float tx = in.ConsumeFloatingPointInRange<float>(-0.3f, 0.3f);
  const float ty = in.ConsumeFloatingPointInRange<float>(-0.3f, 0.3f);
  std::array<float, 6> v = {
      tx * p,
      ty * p,
      in.ConsumeBool() ? p : -p,
      static_cast<float>(w.wx * in.ConsumeFloatingPointInRange<double>(-1, 1)),
      static_cast<float>(w.wy * in.ConsumeFloatingPointInRange<double>(-1, 1)),
      static_cast<float>(in.ConsumeFloatingPointInRange<double>(w.z0, w.z1))};
  for (int k = in.ConsumeIntegralInRange(0, 3); k > 0; --k) {
    const int column = in.ConsumeIntegralInRange(0, 5);
    v[column] = column < 3 ? pick_value(in, -500, 500) : pick_value(in, -100, 100);
  }
  const std::int32_t pdg = in.ConsumeIntegralInRange(0, 15) == 0
                               ? in.ConsumeIntegral<std::int32_t>()
                               : (in.ConsumeBool() ? 13 : -13);
  const double weight =
      in.ConsumeIntegralInRange(0, 15) == 0 ? static_cast<double>(pick_value(in, -1, 1)) : 1.0;
  b.push_back(v[0], v[1], v[2], v[3], v[4], v[5], pdg, weight);
}

inline MuonBatch pick_rows(FuzzedDataProvider& in, const WorldBox& w) {
  MuonBatch b;
  for (int n = in.ConsumeIntegralInRange(1, kMaxRows); n > 0; --n) push_row(in, w, b);
  return b;
}

}  // namespace fastmu::fuzz
