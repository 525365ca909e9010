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

// One ARB8 block of a magnet: centre, half-length, faces (metres) and field.
struct Block {
  std::string name;
  double zc, dz;
  Quad in, out;
  double bx, by;
};

// The eight blocks of a magnet centred at zc (metres), in the order of the
// document and of ship_field_parameters.
std::vector<Block> magnet_blocks(const Row& p, double zc) {
  const double dz = p[1] * kCm;
  const Face in = face(p[12] * kCm, p[2] * kCm, p[4] * kCm, p[6] * kCm, p[8] * kCm, p[10] * kCm);
  const Face out = face(p[13] * kCm, p[3] * kCm, p[5] * kCm, p[7] * kCm, p[9] * kCm, p[11] * kCm);
  const double d = (p[8] + p[9]) / (p[2] + p[3]);    // yoke dilution
  const double v = (p[10] + p[11]) / (p[2] + p[3]);  // connector dilution
  const double b = p[14] < 0 ? p[14] * d : p[14];
  const Quad top_l_in = mirror_x(in.top), top_l_out = mirror_x(out.top);
  return {{"core_r", zc, dz, in.core, out.core, 0, b},
          {"core_l", zc, dz, point_reflect(in.core), point_reflect(out.core), 0, b},
          {"yoke_r", zc, dz, in.yoke, out.yoke, 0, -b / d},
          {"yoke_l", zc, dz, point_reflect(in.yoke), point_reflect(out.yoke), 0, -b / d},
          {"top_r", zc, dz, in.top, out.top, b / v, 0},
          {"top_l", zc, dz, top_l_in, top_l_out, -b / v, 0},
          {"bottom_r", zc, dz, point_reflect(top_l_in), point_reflect(top_l_out), -b / v, 0},
          {"bottom_l", zc, dz, point_reflect(in.top), point_reflect(out.top), b / v, 0}};
}

void check_finite(const std::vector<Row>& magnets) {
  for (std::size_t i = 0; i < magnets.size(); ++i) {
    for (double x : magnets[i]) {
      if (!std::isfinite(x))
        throw Error(fmt::format("SHiP magnet {}: parameters must be finite", i));
    }
  }
}

// The blocks of all magnets, placed by the spec's rule (with the index of
// their magnet): start at Z = 0; per magnet Z += zgap + dZ gives its centre,
// then Z += dZ. dZ or dXIn below 1 cm: no magnet; its zgap + dZ still
// advance Z (the spec's words).
std::vector<std::pair<int, Block>> shield_blocks(const std::vector<Row>& magnets) {
  std::vector<std::pair<int, Block>> blocks;
  double z = 0;  // cm
  for (std::size_t i = 0; i < magnets.size(); ++i) {
    const Row& p = magnets[i];
    z += p[0] + p[1];
    if (p[1] < 1.0 || p[2] < 1.0) continue;
    for (Block& b : magnet_blocks(p, z * kCm)) blocks.emplace_back(static_cast<int>(i), b);
    z += p[1];
  }
  return blocks;
}

// Twice the signed area of a face (> 0 counter-clockwise).
double signed_area2(const Quad& q) {
  double a = 0;
  for (int i = 0; i < 4; ++i) {
    const int j = (i + 1) & 3;
    a += q[i][0] * q[j][1] - q[j][0] * q[i][1];
  }
  return a;
}

// d(block)/d(theta) from the blocks at theta +- h, in the geometry's vertex
// order: a clockwise block has its corners 1 and 3 swapped when loaded
// (normalise_arb8), so its derivatives are too.
ShipArb8Derivative block_derivative(const Block& base, const Block& up, const Block& dn, double h) {
  ShipArb8Derivative d;
  const bool swap = signed_area2(base.in) < 0 || signed_area2(base.out) < 0;
  for (int i = 0; i < 4; ++i) {
    const int k = swap && (i & 1) ? 4 - i : i;
    d.x[i] = (up.in[k][0] - dn.in[k][0]) / (2 * h);
    d.y[i] = (up.in[k][1] - dn.in[k][1]) / (2 * h);
    d.x[4 + i] = (up.out[k][0] - dn.out[k][0]) / (2 * h);
    d.y[4 + i] = (up.out[k][1] - dn.out[k][1]) / (2 * h);
  }
  d.z_lo = ((up.zc - up.dz) - (dn.zc - dn.dz)) / (2 * h);
  d.z_hi = ((up.zc + up.dz) - (dn.zc + dn.dz)) / (2 * h);
  return d;
}

void add_magnet(nlohmann::json& volumes, int index, const Block& b) {
  const std::string name = fmt::format("magnet{}_{}", index, b.name);
  volumes.push_back(arb8(name, b.zc, b.dz, b.in, b.out, b.bx, b.by));
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

ShipParameterTangents ship_parameter_tangents(const std::vector<ShipMagnetParameters>& magnets,
                                              const std::vector<std::array<int, 2>>& parameters) {
  check_finite(magnets);
  for (const auto& [m, c] : parameters) {
    if (m < 0 || static_cast<std::size_t>(m) >= magnets.size() || c < 0 || c >= 15) {
      throw Error(fmt::format("SHiP parameter (magnet {}, column {}) of {} magnets and 15 columns",
                              m, c, magnets.size()));
    }
  }
  const auto base = shield_blocks(magnets);
  const std::size_t nv = base.size() + 8, np = parameters.size();  // + the cavern's boxes
  ShipParameterTangents t;
  t.n_params = np;
  t.dfield.assign(nv * np, {0, 0, 0});
  t.dshape.assign(nv * np, {});
  for (std::size_t k = 0; k < np; ++k) {
    const auto [m, c] = parameters[k];
    // Vertices and positions are linear in the dimensions and fields are
    // rational: central differences of 1e-3 cm (1e-5 T) are exact to
    // rounding for the former and to ~1e-9 relative for the latter.
    const double h = c == 14 ? 1e-5 : 1e-3;
    auto up = magnets, dn = magnets;
    up[m][c] += h;
    dn[m][c] -= h;
    const auto bu = shield_blocks(up), bd = shield_blocks(dn);
    if (bu.size() != base.size() || bd.size() != base.size()) continue;  // a magnet (un)skipped
    for (std::size_t v = 0; v < base.size(); ++v) {
      const Block &b = base[v].second, &u = bu[v].second, &d = bd[v].second;
      t.dshape[v * np + k] = block_derivative(b, u, d, h);
      t.dfield[v * np + k] = {(u.bx - d.bx) / (2 * h), (u.by - d.by) / (2 * h), 0.0};
    }
  }
  return t;
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
  check_finite(magnets);
  nlohmann::json volumes = nlohmann::json::array();
  for (const auto& [index, block] : shield_blocks(magnets)) add_magnet(volumes, index, block);
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
