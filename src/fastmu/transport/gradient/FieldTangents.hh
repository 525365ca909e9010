// Forward-mode (pathwise) derivatives of a muon's state with respect to field
// and shape parameters, carried beside the state through the step of
// StepPhysics.hh. The hooks are written once (PathTangents) over columns
// whose sources a policy gives: one column per parameter (FieldTangents), or
// the unit columns of one step that the adjoint linearises (StepJacobian.hh).
//
// A field parameter theta_k scales the uniform field of some volumes: the
// field of volume v is B_v(theta), and FieldParameterView gives, per volume,
// the parameter it depends on (or none) and dB_v/dtheta (a SHiP magnet's
// B column: ShipShield.hh ship_field_parameters). The random numbers of every
// step are those of the forward transport (common random numbers: Philox
// keyed by seed, muon id and step index), and every random quantity of a step
// is held fixed: the momentum bin, the alias cell and its jitter (so the
// fractional loss and the kick), the azimuth, and the ladder entry. What is
// differentiated, per step (finish_step's hooks):
//  - the start: u = p / |p|, so du = (dp - u (u . dp)) / |p|, d|p| = u . dp;
//  - the move: RK4 (the same sub-steps, stage points and renormalisation as
//    rk4_step) with kappa = q c / |p| (d kappa = -kappa d|p| / |p|) and the
//    field B + dB/dtheta_k of the start volume at every stage; a straight line
//    without field (dr += h du). The spatial derivative of the field is zero
//    inside a volume of uniform field; that of a field map is not taken;
//  - a step ending on a sensitive plane: the end point stays on the plane,
//    dr -> dr - u (dr_z / u_z) and du -> du + (du/ds) ds with ds = -dr_z / u_z;
//  - a step cut at a boundary: the end point stays on the boundary face
//    (normal n, GeometryView::boundary_normal), ds = -(n . dr) / (n . u), and
//    the path length h of the interaction changes by ds (to_boundary). A whole
//    table step keeps its length d;
//  - the interaction: p' = |p| R(u) l with l = (k cos phi, k sin phi, 1 - f)
//    fixed but for its dependence on h (f ~ h, k ~ sqrt(h));
//    dp' = d|p| R(u) l + |p| (dR/du . du) l + |p| R(u) dl/dh dh, R being
//    rotate_from_z (the exact derivative of its construction: near u = +-z it
//    varies fast, as the function itself does).
// Shape parameters (Arb8Tangent: how a parameter moves an ARB8's vertices)
// enter where a step ends on a face: the face moves along its normal n by
// v (its outward normal velocity at the crossing point, arb8_face_velocity),
// so the crossing's path length changes by ds = (v - n . dr) / (n . u)
// instead of -(n . dr) / (n . u): the step before the face is longer by ds
// in its own material and field, and the steps after start later. Where two
// volumes touch and their faces move apart (a SHiP core's inner face at
// midGap = 0), the muon crosses the gap opened between them in the world
// region (no field, the material's loss neglected): its position moves on
// by the gap's path length. Fields that depend on shape parameters (a
// SHiP yoke's dilution) enter as B does, through dB/dtheta in RK4.
// Not differentiated (the pathwise estimator ignores these discontinuities):
// changes of volume, material, momentum bin, step count (which shifts the
// random numbers of the later steps) or final status under a change of the
// parameters, and for shape parameters the muons whose path starts or stops
// touching a volume (those passing within dtheta v of a moving edge: the
// boundary term of the divergence theorem, not estimated). The
// finite-difference tests measure what that leaves out.
#pragma once

#include <cstdint>

#include "fastmu/core/FastMath.hh"
#include "fastmu/core/Macros.hh"
#include "fastmu/core/Vec3.hh"
#include "fastmu/geometry/Arb8.hh"
#include "fastmu/geometry/GeometryData.hh"
#include "fastmu/transport/step/StepPhysics.hh"

namespace fastmu {

// The most field parameters one transport differentiates with respect to.
inline constexpr std::int32_t kMaxFieldParameters = 16;

// How a parameter moves an ARB8's vertices, in Arb8Shape's order: the four
// (x, y) at z_lo, the four at z_hi, and the two ends' z [m per unit of the
// parameter].
struct Arb8Tangent {
  float x_lo[4] = {}, y_lo[4] = {}, x_hi[4] = {}, y_hi[4] = {};
  float z_lo = 0, z_hi = 0;
};

// The outward normal velocity of face `face` of `s` (arb8_face_normal's
// numbering) at p, a point on it, when the vertices move by `d`: a lateral
// face is f = 0 with f the cross product of arb8_contains_xy (>= 0 inside),
// so a point that stays on the moving face has grad f . dp = -df/dtheta and
// the face's outward velocity is (df/dtheta) / |grad f| at fixed p; df/dtheta
// takes the vertices' motion and that of the height fraction t of p
// (the ends move in z).
FASTMU_HD inline float arb8_face_velocity(const Arb8Shape& s, int face, Vec3f p,
                                          const Arb8Tangent& d) {
  if (face == 4) return -d.z_lo;
  if (face == 5) return d.z_hi;
  const float t = (p.z - s.z_lo) * s.inv_h;
  const float dt = -((1.0f - t) * d.z_lo + t * d.z_hi) * s.inv_h;
  const int i = face, j = (face + 1) & 3;
  const float xi = s.x0[i] + t * s.dx[i], yi = s.y0[i] + t * s.dy[i];
  const float ex = s.x0[j] + t * s.dx[j] - xi, ey = s.y0[j] + t * s.dy[j] - yi;
  auto vx = [&](int k) { return (1.0f - t) * d.x_lo[k] + t * d.x_hi[k] + dt * s.dx[k]; };
  auto vy = [&](int k) { return (1.0f - t) * d.y_lo[k] + t * d.y_hi[k] + dt * s.dy[k]; };
  const float dxi = vx(i), dyi = vy(i), dex = vx(j) - dxi, dey = vy(j) - dyi;
  const float df = dex * (p.y - yi) - ex * dyi - dey * (p.x - xi) + ey * dxi;
  const float tex = s.dx[j] - s.dx[i], tey = s.dy[j] - s.dy[i];  // the edge's change over t
  const Vec3f grad{-ey, ex,
                   s.inv_h * (tex * (p.y - yi) - ex * s.dy[i] - tey * (p.x - xi) + ey * s.dx[i])};
  const float g = sqrtf(dot(grad, grad));
  return g > 0.0f ? df / g : 0.0f;
}

// One parameter a volume depends on (FieldParameterView's sparse rows, for
// the adjoint, which differentiates with respect to many parameters at once
// but meets only a volume's own few in a step).
struct ParameterEntry {
  std::int32_t k = 0;  // the parameter
  Vec3f dfield;        // dB_v / dtheta_k
  Arb8Tangent dshape;  // how theta_k moves the volume's vertices
};

// What each volume's field and shape depend on (host or device pointers,
// indexed by geometry volume; the world region depends on nothing).
struct FieldParameterView {
  std::int32_t n_params = 0;  // <= kMaxFieldParameters for tangents, kMaxAdjointParameters
  std::int32_t n_volumes = 0;
  // dB_v / dtheta_k [T per unit of theta] at [v * n_params + k].
  const Vec3f* dfield = nullptr;
  // How theta_k moves volume v's vertices, at [v * n_params + k] (ARB8s
  // only; a box's entry is ignored); null: no shape parameters. `volumes`
  // and `arb8s` are the geometry's (GeometryView), to find the face crossed.
  const Arb8Tangent* dshape = nullptr;
  const VolumeRecord* volumes = nullptr;
  const Arb8Shape* arb8s = nullptr;
  // Per volume, a class shared by the volumes whose dfield rows are equal
  // (0: no field dependence; null: the rows are compared).
  const std::int32_t* dependence = nullptr;
  // The same tables as sparse rows: volume v's non-zero entries are
  // entries[entry_begin[v] .. entry_begin[v + 1]) (the adjoint's; null
  // without it).
  const std::int32_t* entry_begin = nullptr;
  const ParameterEntry* entries = nullptr;
  // c of FieldTangents::to_boundary: 1 / (n . u) -> (n . u) / ((n . u)^2 + c^2).
  float cosine_softening = 0.0f;

  FASTMU_HD const Vec3f* field_row(std::int32_t v) const {
    return v >= 0 && v < n_volumes ? dfield + static_cast<std::size_t>(v) * n_params : nullptr;
  }
  // The face of ARB8 volume v nearest p, when shape parameters are given:
  // its outward normal and index (arb8_face_normal). False: none (a box,
  // no shape parameters, no face found).
  FASTMU_HD bool face_of(std::int32_t v, Vec3f p, Vec3f& normal, int& face) const {
    if (dshape == nullptr || v < 0 || v >= n_volumes || volumes[v].arb8 < 0) return false;
    return arb8_face_normal(arb8s[volumes[v].arb8], p, normal, face);
  }
  // The outward velocities of the face of volume v nearest p, per parameter
  // (0 for a box or without shape parameters); the face's outward normal in
  // `normal` (false: none found).
  FASTMU_HD bool face_velocities(std::int32_t v, Vec3f p, Vec3f& normal, float* vel) const {
    for (std::int32_t k = 0; k < n_params; ++k) vel[k] = 0.0f;
    int face;
    if (!face_of(v, p, normal, face)) return false;
    const Arb8Shape& s = arb8s[volumes[v].arb8];
    const Arb8Tangent* row = dshape + static_cast<std::size_t>(v) * n_params;
    for (std::int32_t k = 0; k < n_params; ++k) vel[k] = arb8_face_velocity(s, face, p, row[k]);
    return true;
  }
  // Calls f(k, dB_v/dtheta_k, how theta_k moves v) for the parameters
  // volume v may depend on: its sparse row when given, else every parameter.
  template <class F>
  FASTMU_HD FASTMU_FORCEINLINE void for_each_entry(std::int32_t v, F&& f) const {
    if (v < 0 || v >= n_volumes) return;
    if (entries != nullptr) {
      for (std::int32_t e = entry_begin[v]; e < entry_begin[v + 1]; ++e) {
        f(entries[e].k, entries[e].dfield, entries[e].dshape);
      }
      return;
    }
    const std::size_t row = static_cast<std::size_t>(v) * n_params;
    for (std::int32_t k = 0; k < n_params; ++k) {
      f(k, dfield[row + k], dshape != nullptr ? dshape[row + k] : Arb8Tangent{});
    }
  }
  // Whether two volumes' fields depend on the parameters alike.
  FASTMU_HD bool same_dependence(std::int32_t a, std::int32_t b) const {
    if (dependence != nullptr) {
      const std::int32_t ca = a >= 0 && a < n_volumes ? dependence[a] : 0;
      const std::int32_t cb = b >= 0 && b < n_volumes ? dependence[b] : 0;
      return ca == cb;
    }
    const Vec3f* ra = field_row(a);
    const Vec3f* rb = field_row(b);
    for (std::int32_t k = 0; k < n_params; ++k) {
      const Vec3f da = ra != nullptr ? ra[k] : Vec3f{}, db = rb != nullptr ? rb[k] : Vec3f{};
      if (da.x != db.x || da.y != db.y || da.z != db.z) return false;
    }
    return true;
  }
};

// The derivative of rotate_from_z(l, u) with respect to u along du.
FASTMU_HD FASTMU_FORCEINLINE Vec3f rotate_from_z_tangent(Vec3f l, Vec3f u, Vec3f du) {
  const float perp2 = u.x * u.x + u.y * u.y;
  if (perp2 <= 1e-20f) return l.z * du;  // the constant frame at the pole
  const float perp = sqrtf(perp2);
  const float inv = 1.0f / perp;
  const float dperp = (u.x * du.x + u.y * du.y) * inv;
  const float dinv = -dperp * inv * inv;
  const float ax = u.x * u.z * l.x - u.y * l.y;
  const float ay = u.y * u.z * l.x + u.x * l.y;
  const float dax = (du.x * u.z + u.x * du.z) * l.x - du.y * l.y;
  const float day = (du.y * u.z + u.y * du.z) * l.x + du.x * l.y;
  return {dax * inv + ax * dinv + du.x * l.z, day * inv + ay * dinv + du.y * l.z,
          -dperp * l.x + du.z * l.z};
}

// Column k of the tangents is parameter k of the view: forward mode, the
// derivatives of the state with respect to every parameter carried along.
struct ParameterColumns {
  static constexpr std::int32_t kMax = kMaxFieldParameters;
  static constexpr bool kStartsLive = false;  // zero until a source is met

  const Vec3f* row = nullptr;  // the move's dB/dtheta per parameter

  FASTMU_HD std::int32_t count(const FieldParameterView& p) const { return p.n_params; }
  FASTMU_HD void seed(Vec3f*, Vec3f*) {}
  // A move in `volume`: whether its field has sources.
  FASTMU_HD bool begin_move(const FieldParameterView& p, std::int32_t volume, bool in_field) {
    row = in_field ? p.field_row(volume) : nullptr;
    return row != nullptr;
  }
  FASTMU_HD Vec3f field_source(std::int32_t k) const { return row != nullptr ? row[k] : Vec3f{}; }
  // The face of `volume` (left, or entered from the world region) at p: its
  // outward normal n, its outward velocities `vel` and the gaps `gap` (times
  // n . u: the path length of the gap) opened towards `entered` (-1: none).
  // False: no face.
  template <class Env>
  FASTMU_HD FASTMU_FORCEINLINE bool face_sources(const FieldParameterView& p, const Env& env,
                                                 std::int32_t volume, std::int32_t entered,
                                                 Vec3f pt, Vec3f& n, float* vel, float* gap) {
    for (std::int32_t k = 0; k < p.n_params; ++k) gap[k] = 0.0f;
    if (!p.face_velocities(volume, pt, n, vel) && !env.boundary_normal(volume, pt, n)) {
      return false;
    }
    Vec3f nb;
    float vb[kMaxFieldParameters];
    if (entered >= 0 && entered != volume && p.face_velocities(entered, pt, nb, vb) &&
        dot(nb, n) < -0.999f) {
      for (std::int32_t k = 0; k < p.n_params; ++k) gap[k] = -(vel[k] + vb[k]);
    }
    return true;
  }
};

// Tangents of one muon along its path, the policy that finish_step's hooks
// call (StepPhysics.hh, Tangent::kActive). `Columns` says where each column
// gets its sources: ParameterColumns (forward mode, FieldTangents) or the
// unit columns of one step (StepJacobian.hh, the adjoint's).
template <class Columns>
struct PathTangents {
  static constexpr bool kActive = true;
  static constexpr std::int32_t kMax = Columns::kMax;

  FieldParameterView params;
  Columns columns;
  Vec3f dr[kMax];
  Vec3f dp[kMax];
  // Within a step, after the move: d|p| and du.
  float dpm[kMax];
  Vec3f du[kMax];
  float dh[kMax];  // change of the path length (boundary-limited steps)
  // Whether any tangent may be non-zero: until a step meets a field or face
  // that depends on a parameter, every hook is skipped (a pass over the
  // shape parameters of a downstream magnet does no tangent work upstream).
  bool live = Columns::kStartsLive;

  FASTMU_HD void reset(const FieldParameterView& p) {
    params = p;
    columns = Columns{};
    live = Columns::kStartsLive;
    for (std::int32_t k = 0; k < columns.count(params); ++k) {
      dr[k] = Vec3f{};
      dp[k] = Vec3f{};
      dpm[k] = 0.0f;
      du[k] = Vec3f{};
      dh[k] = 0.0f;
    }
    columns.seed(dr, dp);
  }

  // The move of length h from `start` (move_along's sub-steps) with the
  // start volume's field derivative.
  template <class FieldFn>
  FASTMU_HD FASTMU_FORCEINLINE void move(RayState start, float pm, bool in_field, float kappa,
                                         float b_abs, float h, std::int32_t volume,
                                         FieldFn&& field_at) {
    const std::int32_t n = columns.count(params);
    const bool sources = columns.begin_move(params, volume, in_field);
    if (!live && sources) {
      for (std::int32_t k = 0; k < n; ++k) live = live || !is_zero(columns.field_source(k));
    }
    if (!live) return;
    const float inv_pm = 1.0f / pm;
    for (std::int32_t k = 0; k < n; ++k) {
      dh[k] = 0.0f;
      dpm[k] = dot(start.u, dp[k]);
      du[k] = inv_pm * (dp[k] - dpm[k] * start.u);
    }
    if (!in_field) {
      for (std::int32_t k = 0; k < n; ++k) dr[k] += h * du[k];
      return;
    }
    const float turn = fabsf(kappa) * b_abs * h;
    std::int32_t steps = 1;
    float hs = h;
    if (turn > kMaxTurn) {
      steps = static_cast<std::int32_t>(turn * (1.0f / kMaxTurn)) + 1;
      hs = h / static_cast<float>(steps);
    }
    for (std::int32_t j = 0; j < steps; ++j) start = rk4(start, kappa, inv_pm, hs, field_at);
  }

  // A step cut at a boundary: its end stays on the boundary, so the path
  // length changes by ds = -(n . dr) / (n . u) (n: the normal of the face
  // crossed, of the start volume or, from the world region, of the volume
  // entered), the end point and direction move along the path by ds, and
  // the interaction's loss and kick follow the path length (dh).
  // Only where something changes across the face (material, field or its
  // parameter): between two volumes of the same material and field (the two
  // halves of a SHiP core) the crossing only shifts where later steps begin,
  // whose effect has zero mean and, at the grazing angles of muons running
  // along such a face, a huge variance; there the length is held, as on the
  // tiny steps of a track crawling along a face (h <= kTinyStep) and where
  // no face is found.
  // At grazing incidence 1 / (n . u) is unbounded, and a muon that crosses
  // faces at small angles again and again (a slow muon between a core and
  // its yoke) multiplies its tangents by it each time: the exact pathwise
  // derivative, but of unbounded variance. The factor is softened to
  // (n . u) / ((n . u)^2 + c^2) with c = params.cosine_softening: exact to
  // 1 % above 10 c, at most 1 / (2 c). The default is c = 0, the exact
  // factor: a muon of 200-400 GeV/c swept through a SHiP core crosses its
  // side (into the return yoke, whose field is reversed) at a few mrad,
  // where c = 0.01 (the former default) cut the boundary term by half or
  // more and left the field gradient of the first magnets 13-34 % too large
  // (docs/python-and-gradients.md "Gradients"; GradientTest GrazingCrossingOfAFieldFace).
  // The variance of the rare chaotic paths is bounded where the objective
  // uses the tangents (WindowObjectiveOptions::max_tangent), not here.
  // A whole step in a field whose curved path left the volume without being
  // cut (finish_step locates no end whose sagitta is below
  // kBoundaryTolerance) switches field at its end, a point that jumps by a
  // step as the parameters change: its boundary term is this one too, the
  // face crossed being the one nearest the end.
  // A face that moves (shape parameters) adds its outward velocity v to
  // n . dr: ds = (v - n . dr) / (n . u), held or not; where the volume
  // entered touches the one left and its face moves apart from it (v_B, B's
  // outward velocity, differs from -v), the muon crosses the gap opened,
  // of path length -(v + v_B) / (n . u), without field (face_gaps).
  template <class Env>
  FASTMU_HD FASTMU_FORCEINLINE void to_boundary(const Env& env, RayState end, const Location& from,
                                                float kappa, Vec3f b, float h) {
    if (!(h > kTinyStep) || !env.in_world(end.r)) return;
    if (!live && params.dshape == nullptr) return;
    // Still inside the volume by its signed excess (boxes, planar ARB8s): no
    // boundary crossed, and no location needed (most uncut whole steps).
    float g = 0.0f;
    if (from.volume >= 0 && env.boundary_excess(from.volume, end.r, g) && g <= 0.0f) return;
    float unused;
    const Location to = env.locate(end.r, unused);
    const bool held = to.material == from.material && to.field.x == from.field.x &&
                      to.field.y == from.field.y && to.field.z == from.field.z &&
                      params.same_dependence(to.volume, from.volume);
    if (held && params.dshape == nullptr) return;
    const std::int32_t volume = from.volume >= 0 ? from.volume : to.volume;
    if (volume < 0) return;  // from the world region into it: no face
    float vel[kMax], gap[kMax];
    Vec3f n;
    if (!columns.face_sources(params, env, volume, from.volume >= 0 ? to.volume : -1, end.r, n, vel,
                              gap)) {
      return;
    }
    if (!live) {
      for (std::int32_t k = 0; k < columns.count(params); ++k) {
        live = live || vel[k] != 0.0f || gap[k] != 0.0f;
      }
      if (live) wake();
    }
    if (!live) return;
    const float un = dot(n, end.u);
    const Vec3f dudsv = kappa * cross(end.u, b);
    const float c = params.cosine_softening;
    const float den = un * un + c * c;
    const float inv_un = den > 0.0f ? un / den : 0.0f;  // c = 0 and a face crossed along it
    for (std::int32_t k = 0; k < columns.count(params); ++k) {
      const float ds = ((held ? 0.0f : -dot(n, dr[k])) + vel[k]) * inv_un;
      dr[k] += (ds + gap[k] * inv_un) * end.u;
      du[k] += ds * dudsv;
      dh[k] = ds;
    }
  }

  // The end of the move put on the sensitive plane (z fixed).
  FASTMU_HD FASTMU_FORCEINLINE void to_plane(Vec3f u, float kappa, Vec3f b) {
    if (!live) return;
    const Vec3f dudsv = kappa * cross(u, b);
    const float inv_uz = 1.0f / u.z;
    for (std::int32_t k = 0; k < columns.count(params); ++k) {
      const float ds = -dr[k].z * inv_uz;
      dr[k] += ds * u;
      dr[k].z = 0.0f;
      du[k] += ds * dudsv;
    }
  }

  // The table interaction (apply_table_interaction's sample, held fixed).
  FASTMU_HD FASTMU_FORCEINLINE void interact(const MaterialTableView& m, std::int32_t bin, float pm,
                                             Vec3f u, float h, float h_over_d, Philox4 rn,
                                             bool mid_kick) {
    if (!live) return;
    SampledLoss s = table_cell_value(m, bin, sample_cell(m.t, bin, rn.v[0]), rn.v[1]);
    if (h_over_d != 1.0f) {
      s.loss_frac *= h_over_d;
      s.kick_frac *= sqrtf(h_over_d);
    }
    if (s.loss_frac >= 1.0f) {
      for (std::int32_t k = 0; k < columns.count(params); ++k) dp[k] = Vec3f{};
      return;
    }
    float sin_phi, cos_phi;
    sincos_two_pi(to_unit_open_f(rn.v[2]), sin_phi, cos_phi);
    const Vec3f local{s.kick_frac * cos_phi, s.kick_frac * sin_phi, 1.0f - s.loss_frac};
    const Vec3f dir = rotate_from_z(local, u);
    // d local / dh: the loss is linear in h, the kick goes as sqrt(h).
    const float inv_h = 1.0f / h;
    const Vec3f dlocal_dh{0.5f * local.x * inv_h, 0.5f * local.y * inv_h, -s.loss_frac * inv_h};
    const Vec3f ddir_dh = rotate_from_z(dlocal_dh, u);
    // The kick at the step's middle (mid_step_kick_shift, a whole step: h
    // fixed): r += 0.5 h (dir / |local| - u).
    const float half_h = mid_kick ? 0.5f * h : 0.0f;
    const float half_h_norm = half_h / sqrtf(dot(local, local));
    for (std::int32_t k = 0; k < columns.count(params); ++k) {
      const Vec3f ddir = rotate_from_z_tangent(local, u, du[k]);
      dp[k] = dpm[k] * dir + pm * (ddir + dh[k] * ddir_dh);
      dr[k] += half_h_norm * ddir - half_h * du[k];
    }
  }

  // No interaction (vacuum): p = |p| u.
  FASTMU_HD FASTMU_FORCEINLINE void no_interaction(float pm, Vec3f u) {
    if (!live) return;
    for (std::int32_t k = 0; k < columns.count(params); ++k) dp[k] = dpm[k] * u + pm * du[k];
  }

 private:
  FASTMU_HD static FASTMU_FORCEINLINE Vec3f dforce(float kappa, float dkappa, Vec3f u, Vec3f du,
                                                   Vec3f b, Vec3f db) {
    return dkappa * cross(u, b) + kappa * (cross(du, b) + cross(u, db));
  }

  // One RK4 step as rk4_step, with the tangents; returns the primal end.
  // The tangents turn live at a moving face: those of the step so far are
  // zero (the hooks before were skipped).
  FASTMU_HD void wake() {
    for (std::int32_t k = 0; k < columns.count(params); ++k) {
      dpm[k] = 0.0f;
      du[k] = Vec3f{};
      dh[k] = 0.0f;
    }
  }

  template <class FieldFn>
  FASTMU_HD FASTMU_FORCEINLINE RayState rk4(RayState s, float kappa, float inv_pm, float h,
                                            FieldFn&& field) {
    const float h2 = 0.5f * h;
    const Vec3f b1 = field(s.r);
    const Vec3f k1u = kappa * cross(s.u, b1);
    const Vec3f u2 = s.u + h2 * k1u;
    const Vec3f r2 = s.r + h2 * s.u;
    const Vec3f b2 = field(r2);
    const Vec3f k2u = kappa * cross(u2, b2);
    const Vec3f u3 = s.u + h2 * k2u;
    const Vec3f r3 = s.r + h2 * u2;
    const Vec3f b3 = field(r3);
    const Vec3f k3u = kappa * cross(u3, b3);
    const Vec3f u4 = s.u + h * k3u;
    const Vec3f r4 = s.r + h * u3;
    const Vec3f b4 = field(r4);
    const Vec3f k4u = kappa * cross(u4, b4);
    const float h6 = h * (1.0f / 6.0f);
    RayState out;
    out.r = s.r + h6 * (s.u + 2.0f * u2 + 2.0f * u3 + u4);
    const Vec3f uraw = s.u + h6 * (k1u + 2.0f * k2u + 2.0f * k3u + k4u);
    const double uu = static_cast<double>(uraw.x) * uraw.x + static_cast<double>(uraw.y) * uraw.y +
                      static_cast<double>(uraw.z) * uraw.z;
    const float inv = static_cast<float>(1.0 / sqrt(uu));
    out.u = inv * uraw;
    for (std::int32_t k = 0; k < columns.count(params); ++k) {
      const float dkappa = -kappa * dpm[k] * inv_pm;
      const Vec3f dbk = columns.field_source(k);
      const Vec3f d1 = du[k];
      const Vec3f dk1 = dforce(kappa, dkappa, s.u, d1, b1, dbk);
      const Vec3f d2 = d1 + h2 * dk1;
      const Vec3f dk2 = dforce(kappa, dkappa, u2, d2, b2, dbk);
      const Vec3f d3 = d1 + h2 * dk2;
      const Vec3f dk3 = dforce(kappa, dkappa, u3, d3, b3, dbk);
      const Vec3f d4 = d1 + h * dk3;
      const Vec3f dk4 = dforce(kappa, dkappa, u4, d4, b4, dbk);
      dr[k] += h6 * (d1 + 2.0f * d2 + 2.0f * d3 + d4);
      const Vec3f draw = d1 + h6 * (dk1 + 2.0f * dk2 + 2.0f * dk3 + dk4);
      du[k] = inv * (draw - dot(out.u, draw) * out.u);
    }
    return out;
  }
};

// Forward-mode tangents with respect to the view's parameters.
using FieldTangents = PathTangents<ParameterColumns>;

}  // namespace fastmu
