// The SHiP-like muon shield, transcribed from ship-like-muon-shield.md. The
// stdlib-only examples/make_ship_geometry.py transcribes the same page; the
// geometry tests check that both give the same document.
#include "fastmu/geometry/ShipShield.hh"

#include <array>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "fastmu/core/Error.hh"

namespace fastmu {

namespace {

using Row = ShipMagnetParameters;  // cm, except B (T)

// [zgap, dZ, dXIn, dXOut, dYIn, dYOut, gapIn, gapOut,
//  xYokeIn, xYokeOut, dYYokeIn, dYYokeOut, midGapIn, midGapOut, B]
const std::vector<Row> kWarmBaseline = {
    {0.0, 120.5, 50.0, 50.0, 119.0, 119.0, 2.0, 2.0, 50.0, 50.0, 50.0, 50.0, 0.0, 0.0, 1.9},
    {10.0, 250.0, 72.0, 51.0, 29.0, 46.0, 10.0, 7.0, 72.0, 51.0, 72.0, 51.0, 0.0, 0.0, 1.9},
    {10.0, 250.0, 54.0, 38.0, 46.0, 130.0, 14.0, 9.0, 54.0, 38.0, 54.0, 38.0, 0.0, 0.0, 1.9},
    {10.0, 250.0, 10.0, 31.0, 35.0, 31.0, 51.0, 11.0, 10.0, 31.0, 10.0, 31.0, 0.0, 0.0, 1.9},
    {10.0, 150.0, 5.0, 32.0, 54.0, 24.0, 8.0, 8.0, 5.0, 32.0, 5.0, 32.0, 0.0, 0.0, -1.9},
    {10.0, 150.0, 22.0, 32.0, 130.0, 35.0, 8.0, 13.0, 22.0, 32.0, 22.0, 32.0, 30.0, 30.0, -1.9},
    {10.0, 251.0, 33.0, 77.0, 85.0, 90.0, 9.0, 26.0, 33.0, 77.0, 33.0, 77.0, 0.0, 0.0, -1.9},
};

const std::vector<Row> kHybridBaseline = {
    {0.0, 120.5, 50.0, 50.0, 119.0, 119.0, 2.0, 2.0, 50.0, 50.0, 50.0, 50.0, 0.0, 0.0, 1.9},
    {40.0, 350.0, 45.0, 45.0, 25.0, 25.0, 35.0, 35.0, 120.15, 120.15, 120.15, 120.15, 0.0, 0.0,
     5.1},
    {145.0, 200.0, 5.263, 55.632, 39.86, 5.278, 2.0, 2.0, 5.263, 50.069, 5.263, 50.069, 0.1, 0.1,
     -1.9},
    {10.0, 200.0, 33.016, 12.833, 123.27, 78.523, 22.414, 2.001, 31.663, 12.230, 31.663, 12.233,
     30.0, 30.0, -1.9},
    {10.0, 195.0, 15.755, 77.293, 69.398, 152.828, 2.0, 35.402, 15.755, 69.564, 15.755, 69.564, 0.0,
     0.0, -1.9},
};

constexpr double kCm = 0.01;  // m

// Cavern: concrete outside a tunnel whose cross-section widens at z = 18.378 m.
constexpr double kTunnelStepZ = 18.378;
constexpr std::array<double, 4> kTunnelUpstream = {-3.57, 6.43, -1.70, 5.80};  // x0, x1, y0, y1
constexpr std::array<double, 4> kTunnelDownstream = {-4.57, 11.43, -3.36, 10.64};
// World (air): the tunnel plus at least 3.5 m of concrete around it, from
// 1 m upstream of the target to 1 m beyond the sensitive plane.
constexpr std::array<double, 3> kWorldLo = {-15.0, -15.0, -1.0};
constexpr std::array<double, 3> kWorldHi = {15.0, 15.0, 83.0};
constexpr double kPlaneZ = 82.0;
constexpr std::array<double, 4> kPlaneWindow = {-2.0, 2.0, -3.0, 3.0};

using Quad = std::array<std::array<double, 2>, 4>;

nlohmann::json arb8(const std::string& name, double zc, double dz, const Quad& in, const Quad& out,
                    double bx, double by) {
  nlohmann::json v;
  v["name"] = name;
  v["shape"] = "arb8";
  v["z_center"] = zc;
  v["dz"] = dz;
  nlohmann::json verts = nlohmann::json::array();
  for (const auto& p : in) verts.push_back({p[0], p[1]});
  for (const auto& p : out) verts.push_back({p[0], p[1]});
  v["vertices"] = verts;
  v["material"] = "G4_Fe";
  v["field"] = {bx, by, 0.0};
  return v;
}

nlohmann::json box(const std::string& name, double x0, double x1, double y0, double y1, double z0,
                   double z1) {
  return {{"name", name},
          {"shape", "box"},
          {"min", {x0, y0, z0}},
          {"max", {x1, y1, z1}},
          {"material", "G4_CONCRETE"}};
}

// The x > 0 blocks of one face (metres), from the face's a, X, Y, g, w, h.
struct Face {
  Quad core, yoke, top;
};
Face face(double a, double X, double Y, double g, double w, double h) {
  Face f;
  f.core = {{{a, -(Y + h)}, {a, Y + h}, {a + X, Y}, {a + X, -Y}}};
  f.yoke = {{{a + X + g, -Y}, {a + X + g, Y}, {a + X + g + w, Y + h}, {a + X + g + w, -(Y + h)}}};
  f.top = {{{a + X, Y}, {a, Y + h}, {a + X + g + w, Y + h}, {a + X + g, Y}}};
  return f;
}
// (x, y) -> (-x, -y): a rotation, so the corner order keeps its sense.
Quad point_reflect(const Quad& q) {
  Quad r;
  for (int i = 0; i < 4; ++i) r[i] = {-q[i][0], -q[i][1]};
  return r;
}
// (x, y) -> (-x, y): a mirror, so the corners are listed backwards to keep
// the sense of rotation.
Quad mirror_x(const Quad& q) {
  Quad r;
  for (int i = 0; i < 4; ++i) r[i] = {-q[3 - i][0], q[3 - i][1]};
  return r;
}

void add_magnet(nlohmann::json& volumes, int index, const Row& p, double zc) {
  const double dz = p[1] * kCm;
  const Face in = face(p[12] * kCm, p[2] * kCm, p[4] * kCm, p[6] * kCm, p[8] * kCm, p[10] * kCm);
  const Face out = face(p[13] * kCm, p[3] * kCm, p[5] * kCm, p[7] * kCm, p[9] * kCm, p[11] * kCm);
  const double d = (p[8] + p[9]) / (p[2] + p[3]);    // yoke dilution
  const double v = (p[10] + p[11]) / (p[2] + p[3]);  // connector dilution
  const double b = p[14] < 0 ? p[14] * d : p[14];
  const std::string m = fmt::format("magnet{}_", index);
  volumes.push_back(arb8(m + "core_r", zc, dz, in.core, out.core, 0, b));
  volumes.push_back(
      arb8(m + "core_l", zc, dz, point_reflect(in.core), point_reflect(out.core), 0, b));
  volumes.push_back(arb8(m + "yoke_r", zc, dz, in.yoke, out.yoke, 0, -b / d));
  volumes.push_back(
      arb8(m + "yoke_l", zc, dz, point_reflect(in.yoke), point_reflect(out.yoke), 0, -b / d));
  const Quad top_l_in = mirror_x(in.top), top_l_out = mirror_x(out.top);
  volumes.push_back(arb8(m + "top_r", zc, dz, in.top, out.top, b / v, 0));
  volumes.push_back(arb8(m + "top_l", zc, dz, top_l_in, top_l_out, -b / v, 0));
  volumes.push_back(
      arb8(m + "bottom_r", zc, dz, point_reflect(top_l_in), point_reflect(top_l_out), -b / v, 0));
  volumes.push_back(
      arb8(m + "bottom_l", zc, dz, point_reflect(in.top), point_reflect(out.top), b / v, 0));
}

// add_magnet's fields of the eight blocks (its order) and their derivative
// with respect to the B column.
void magnet_fields(const Row& p, std::array<std::array<double, 3>, 8>& field,
                   std::array<std::array<double, 3>, 8>& dfield) {
  const double d = (p[8] + p[9]) / (p[2] + p[3]);
  const double v = (p[10] + p[11]) / (p[2] + p[3]);
  const double b = p[14] < 0 ? p[14] * d : p[14];
  const double db = p[14] < 0 ? d : 1.0;  // d b / d B
  field = {{{0, b, 0},
            {0, b, 0},
            {0, -b / d, 0},
            {0, -b / d, 0},
            {b / v, 0, 0},
            {-b / v, 0, 0},
            {-b / v, 0, 0},
            {b / v, 0, 0}}};
  dfield = {{{0, db, 0},
             {0, db, 0},
             {0, -db / d, 0},
             {0, -db / d, 0},
             {db / v, 0, 0},
             {-db / v, 0, 0},
             {-db / v, 0, 0},
             {db / v, 0, 0}}};
}

void add_cavern(nlohmann::json& volumes) {
  const std::pair<double, double> z_ranges[2] = {{kWorldLo[2], kTunnelStepZ},
                                                 {kTunnelStepZ, kWorldHi[2]}};
  const std::array<double, 4> tunnels[2] = {kTunnelUpstream, kTunnelDownstream};
  for (int s = 0; s < 2; ++s) {
    const auto [z0, z1] = z_ranges[s];
    const auto& t = tunnels[s];
    const std::string p = fmt::format("cavern{}_", s);
    volumes.push_back(box(p + "left", kWorldLo[0], t[0], kWorldLo[1], kWorldHi[1], z0, z1));
    volumes.push_back(box(p + "right", t[1], kWorldHi[0], kWorldLo[1], kWorldHi[1], z0, z1));
    volumes.push_back(box(p + "floor", t[0], t[1], kWorldLo[1], t[2], z0, z1));
    volumes.push_back(box(p + "ceiling", t[0], t[1], t[3], kWorldHi[1], z0, z1));
  }
}

}  // namespace

std::vector<std::string> ship_parameter_sets() { return {"warm", "hybrid"}; }

const std::vector<ShipMagnetParameters>& ship_parameter_set(const std::string& parameter_set) {
  if (parameter_set == "warm" || parameter_set == "warm_baseline") return kWarmBaseline;
  if (parameter_set == "hybrid" || parameter_set == "hybrid_baseline") return kHybridBaseline;
  throw Error(
      fmt::format("unknown SHiP parameter set '{}' (expected warm or hybrid)", parameter_set));
}

nlohmann::json make_ship_shield_json(const std::string& parameter_set,
                                     const std::string& world_material) {
  const auto& rows = ship_parameter_set(parameter_set);
  return make_ship_shield_json(
      rows, world_material,
      fmt::format("SHiP-like muon shield, parameter set {}_baseline (ship-like-muon-shield.md)",
                  parameter_set.substr(0, parameter_set.find('_'))));
}

ShipFieldParameters ship_field_parameters(const std::vector<ShipMagnetParameters>& magnets) {
  ShipFieldParameters out;
  for (std::size_t i = 0; i < magnets.size(); ++i) {
    const Row& p = magnets[i];
    for (double x : p) {
      if (!std::isfinite(x))
        throw Error(fmt::format("SHiP magnet {}: parameters must be finite", i));
    }
    if (p[1] < 1.0 || p[2] < 1.0) continue;  // skipped, as make_ship_shield_json
    std::array<std::array<double, 3>, 8> field, dfield;
    magnet_fields(p, field, dfield);
    for (int k = 0; k < 8; ++k) {
      out.volume_magnet.push_back(static_cast<std::int32_t>(i));
      out.field.push_back(field[k]);
      out.dfield.push_back(dfield[k]);
    }
  }
  for (int k = 0; k < 8; ++k) {  // the cavern's boxes
    out.volume_magnet.push_back(-1);
    out.field.push_back({0, 0, 0});
    out.dfield.push_back({0, 0, 0});
  }
  return out;
}

nlohmann::json make_ship_shield_json(const std::vector<ShipMagnetParameters>& magnets,
                                     const std::string& world_material,
                                     const std::string& description) {
  nlohmann::json volumes = nlohmann::json::array();
  double z = 0;  // cm
  for (std::size_t i = 0; i < magnets.size(); ++i) {
    const Row& p = magnets[i];
    for (double x : p) {
      if (!std::isfinite(x))
        throw Error(fmt::format("SHiP magnet {}: parameters must be finite", i));
    }
    z += p[0] + p[1];
    // dZ or dXIn below 1 cm: no magnet; its zgap + dZ still advance Z (the spec's words).
    if (p[1] < 1.0 || p[2] < 1.0) continue;
    add_magnet(volumes, static_cast<int>(i), p, z * kCm);
    z += p[1];
  }
  add_cavern(volumes);
  nlohmann::json doc;
  doc["description"] = description;
  doc["world"] = {{"min", kWorldLo}, {"max", kWorldHi}, {"material", world_material}};
  doc["volumes"] = volumes;
  doc["sensitive_planes"] = nlohmann::json::array({{{"z", kPlaneZ},
                                                    {"x", {kPlaneWindow[0], kPlaneWindow[1]}},
                                                    {"y", {kPlaneWindow[2], kPlaneWindow[3]}}}});
  return doc;
}

}  // namespace fastmu
