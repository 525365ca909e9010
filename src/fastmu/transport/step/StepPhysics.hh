// One step of the fast (histogram-sampling) muon transport: the online phase
// of the method (paper, "Simulation", Algorithm 1). A single implementation,
// in float, serves the CPU and the CUDA backends.
//
// A step, for a muon still alive:
//  1. stop checks: |p| < p_kill -> stopped (p = 0); outside the world -> left
//     the world; step budget spent -> step limit;
//  2. material, volume and field at the start point (volume field + field map);
//  3. step length h (plan_step): the material's table step d (StepLengths.hh:
//     equal mass thickness, long in light matter), cut at the next boundary
//     of the muon's volume: no step crosses a material boundary. Within the
//     isotropic safety no boundary test is needed; else the straight-line
//     distance to the boundary D (GeometryView::distance_to_boundary); a step
//     cut there ends kBoundaryPush beyond it (the path charged to the
//     material is the path moved, so every layer is charged its thickness).
//     In vacuum without field: a free flight to the next volume;
//  4. move: a straight line without field, the exact helix in a volume's
//     uniform field, RK4 in sub-steps that turn the direction by at most
//     kMaxTurn each through a field map. A curved path
//     may leave the volume before the chord's boundary: when the step was not
//     inside the safety and its sagitta exceeds kBoundaryTolerance, the end
//     point is located, and a path that left the volume is cut by bisection
//     to within kBoundaryTolerance of where it leaves (so a path may cut a
//     corner of its volume by at most 10 um). A move that would cross a sensitive plane is
//     shortened to end exactly on it;
//  5. in matter: momentum loss and transverse kick sampled from the table of
//     the ladder entry d_k nearest h in ln (by stochastic interpolation of the
//     momentum bin, alias draw, jitter), isotropic azimuth, applied in the
//     muon's frame (rotate_from_z); loss scaled by h/d_k and kick by
//     sqrt(h/d_k) (mean loss and multiple-scattering variance both linear in
//     path length; h/d_k within a factor sqrt(2) of 1 down to the ladder's
//     last entry);
//  6. at a plane: the state is final (status 0 inside the window, 4 outside);
//  7. decay in flight (StepOptions::decay): each muon draws once, from its
//     own Philox block (RngStream::muon_decay, keyed by seed and muon id),
//     the proper time it lives, as a proper length c tau (-ln u) [m]; each
//     step spends h / (beta gamma) = h m / |p| of it, at the momentum of the
//     step's start (the table's momentum bin is chosen there too). A step
//     that would spend more ends where the budget runs out (plan_step cuts
//     h), and the muon is decayed there (status 6) with the momentum it has
//     after that step's loss, unless a plane or a curved exit cut the step
//     first.
//
// Random numbers: one Philox block per step, keyed by (seed, muon id, step
// index), so a muon's history does not depend on batch size, thread count or
// device: word 0 = alias cell + acceptance, word 1 = jitter x (high 16 bits)
// and y (low 16 bits), word 2 = azimuth, word 3 = bin interpolation.
//
// The environment `Env` (TransportView for real geometries, a toy in tests)
// provides: in_world(r), locate(r, safety) -> Location, field_map(r) -> Vec3f
// (with has_field_map(): false when it is zero everywhere), field_at(loc, r)
// (the field at r on a step that started at loc: loc.field + field_map(r)),
// free_flight_distance(r, u), distance_to_boundary(r, u, volume, limit),
// table(material) -> const MaterialTableView* (null for vacuum),
// shorter_table(t) (the ladder's next entry or null), planes / n_planes, and
// options. locate(r, safety) also sets `safety`, a distance within which the
// location cannot change (0 when unknown), so that most steps inside a volume
// skip the lookup and the boundary test; safety(r, volume) gives it again
// for a point still inside the located volume.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "fastmu/core/Constants.hh"
#include "fastmu/core/FastMath.hh"
#include "fastmu/core/Macros.hh"
#include "fastmu/core/Random.hh"
#include "fastmu/core/Vec3.hh"
#include "fastmu/geometry/GeometryData.hh"
#include "fastmu/tables/TableSampling.hh"
#include "fastmu/tables/TableView.hh"
#include "fastmu/transport/MuonBatch.hh"
#include "fastmu/transport/step/FieldPropagation.hh"
#include "fastmu/transport/step/MaterialTable.hh"

namespace fastmu {

// Doublings of a fast muon's step by default (StepLengths.hh: up to 128 d).
inline constexpr std::int32_t kDefaultLongSteps = 7;

// The largest momentum the float step can hold: |p|^2 stays finite below
// 1.8e19 GeV/c. A geometry without tables (vacuum) has this top.
inline constexpr float kMaxStepMomentum = 1e19f;  // GeV/c

struct StepOptions {
  float step = 0.02f;    // table step d [m]
  float p_kill = 0.18f;  // GeV/c
  std::int32_t max_steps = 100000;
  std::uint64_t seed = 12345;
  std::int32_t long_steps = kDefaultLongSteps;  // doublings of a fast muon's step
  // The tables' top momentum [GeV/c] (TransportParams sets it): a muon above
  // it ends with status above_tables instead of taking the top bin's loss.
  float p_max = kMaxStepMomentum;
  // Decay in flight (status decayed). On by default: muons decay, and below
  // a few GeV/c over kilometres of air or rock a visible fraction does
  // (stepping-and-tables.md, "Decay in flight").
  bool decay = true;
};

// The muon's mean proper decay length c tau [m] (PDG: tau = 2.1969811 us).
inline constexpr float kMuonCTau =
    static_cast<float>(constants::muon_lifetime_s * constants::c_light_m_per_s);
inline constexpr float kMuonMassF = static_cast<float>(constants::muon_mass);  // GeV/c^2
// The proper-length budget of a muon that never decays (decay off): finite,
// so that no infinity enters the float arithmetic (fast-math builds).
inline constexpr float kNoDecay = 3.0e38f;  // m

// What the geometry says about a point: material id (index into the tables;
// negative = vacuum) and the uniform field of the volume [T].
struct Location {
  std::int32_t material;
  Vec3f field;
  std::int32_t volume = -1;  // as GeometryView::locate (-1: the world region)
};

// Per-muon state while it is transported (registers on the GPU).
struct MuonTrack {
  Vec3f r;       // m
  Vec3f p;       // GeV/c
  float charge;  // e
  std::int32_t status = static_cast<std::int32_t>(MuonStatus::alive);
  std::int32_t steps = 0;
  std::int32_t plane = -1;
  Location loc{};               // material and volume field at the last lookup
  float safety = 0.0f;          // distance the muon may go before the next lookup [m]
  float plane_gap = 0.0f;       // path the muon may go before the planes are checked [m]
  std::int32_t tiny_steps = 0;  // consecutive boundary steps of at most kTinyStep
  float decay_left = kNoDecay;  // proper length c tau left until the decay [m]
};

FASTMU_HD FASTMU_FORCEINLINE float charge_from_pdg(std::int32_t pdg) {
  return pdg > 0 ? -1.0f : 1.0f;  // 13 = mu- (negative), -13 = mu+
}

// The proper length [m] a muon of id `id` lives: c tau (-ln u), u from its own
// Philox block, so that it depends on (seed, id) only; kNoDecay with decay off.
FASTMU_HD FASTMU_FORCEINLINE float decay_budget(const StepOptions& opt, std::uint64_t id) {
  if (!opt.decay) return kNoDecay;
  const Philox4 b = philox_block(opt.seed, id, 0u, RngStream::muon_decay);
  return -kMuonCTau * log_fast(to_unit_open_f(b.v[0]));
}

// The proper length a step of path h at momentum pm spends: h / (beta gamma).
// One expression for plan_step, finish_step and the CPU lanes, so that they
// agree bitwise.
FASTMU_HD FASTMU_FORCEINLINE float step_proper_length(float h, float pm) {
  return h * kMuonMassF / pm;
}

// A muon's track before its first step: position, momentum, the charge of
// its PDG code and the decay budget of muon `id`; status, counters and
// location at their initial values (the first step locates it). The one way
// every backend starts a track.
FASTMU_HD FASTMU_FORCEINLINE MuonTrack make_track(Vec3f r, Vec3f p, std::int32_t pdg,
                                                  const StepOptions& opt, std::uint64_t id) {
  MuonTrack t;
  t.r = r;
  t.p = p;
  t.charge = charge_from_pdg(pdg);
  t.decay_left = decay_budget(opt, id);
  return t;
}

// Row i of a batch as a track (host side); row 0 is muon first_id.
inline MuonTrack make_track(const MuonBatch& in, std::size_t i, const StepOptions& opt,
                            std::uint64_t first_id) {
  return make_track({in.x[i], in.y[i], in.z[i]}, {in.px[i], in.py[i], in.pz[i]}, in.pdg[i], opt,
                    first_id + i);
}

// Beyond a boundary reached by free flight: far enough for float positions
// (ulp of 100 m is 7.6 um) to land inside the next volume.
inline constexpr float kBoundaryPush = 2e-5f;  // m

// The push beyond a boundary from r: kBoundaryPush, or two float ulps of r's
// largest coordinate where that is more (beyond 84 m from the origin, e.g.
// a terrain kilometres across: the ulp of 2 km is 122 um), so that the push
// always moves the position and a step at a boundary cannot stall.
FASTMU_HD FASTMU_FORCEINLINE float boundary_push(Vec3f r) {
  const float m = fmax_inline(fmax_inline(fabsf(r.x), fabsf(r.y)), fabsf(r.z));
  return fmax_inline(kBoundaryPush, 2.4e-7f * m);
}

// A step cut by a curved path leaving its volume ends within this path
// length beyond the exit (bisection on the path length).
inline constexpr float kBoundaryTolerance = 1e-5f;  // m

// Largest turn of the direction per RK4 sub-step through a field map: the old fixed
// 2 cm steps turned by up to 0.05 rad (0.2 GeV/c in 1.7 T), so long steps keep
// at least that accuracy (RK4's error per sub-step ~ turn^5 / 120).
inline constexpr float kMaxTurn = 0.05f;  // rad

inline constexpr float kSqrt2f = 1.41421356f;

// A step in a field bends with the momentum at its middle: its start
// momentum less half the mean loss of its table bin over its path (the
// loss is applied at the step's end). Bending with the start momentum
// underbends by about half the step's fractional loss, an error that grows
// with the step (kFieldLongSteps says how far the steps in a field go). (For a loss spread evenly
// along the path the mean curvature is -ln(1 - f) / f of the start's, and 1 / (1 - f / 2) differs
// from it by < 0.1 % for f < 0.1; a sampled loss is not used, so that the
// bend is known before the interaction is drawn.)
FASTMU_HD FASTMU_FORCEINLINE float bending_momentum(const MaterialTableView& t, std::int32_t bin,
                                                    float pm, float h) {
  const float ratio = h == t.step ? 1.0f : h * t.inv_step;
  const float loss = t.mean_loss[bin] * ratio;
  return pm * (1.0f - 0.5f * (loss < 1.0f ? loss : 1.0f));
}

// The boundary decision (cut_at_boundary) bounds a curved path's bend with
// the start momentum over kBendAllowance, before the step's bin (and so its
// bending momentum) is known; a step that bends with less momentum than
// that takes the end check (finish_step). Mean losses per step stay below
// ~2 % above a few GeV/c (the step lengths keep h / p bounded): the check is
// rare, near p_kill only.
inline constexpr float kBendAllowance = 1.05f;

// Whether a step whose counted-down safety falls short of the table step
// computes a fresh safety before it tests the boundary along its direction.
// Either way the step is the same; only the work differs. On the CPU it
// saves most boundary tests (SHiP-like shield: 229 -> 130 ARB8 tests per
// muon, 1.35x -> 1.95x the fixed-step muons/s). In a GPU warp the boundary
// test runs whenever any of its 32 lanes needs it, so the refresh only adds
// work (one H200, 10^6 SHiP-like muons: 0.35 s with it, 0.30 s without).
#ifdef __CUDA_ARCH__
inline constexpr bool kRefreshSafety = false;
#else
inline constexpr bool kRefreshSafety = true;
#endif

// A track can be trapped on an interface: between a magnet's core and its
// return yoke (iron both, opposite fields) each side bends the muon back
// towards the other, and every step ends a push beyond the interface, so the
// muon crawls along it by ~20 um per step (one SHiP-like muon in 10^4 took
// 5e4 steps; on a GPU its warp holds up the whole batch). After
// kMaxTinySteps consecutive boundary-cut steps of at most kTinyStep, the next
// step is a whole table step that ignores the boundary (as the fixed-step
// method takes every step): its material and field are those of its start.
inline constexpr float kTinyStep = 2.0f * kBoundaryPush;  // m (2 boundary_push far out)
inline constexpr std::int32_t kMaxTinySteps = 4;

// Kept from the nearest sensitive plane's z when the plane checks are skipped:
// covers float rounding of z and RK4 moves slightly longer than h.
inline constexpr float kPlaneMargin = 1e-4f;  // m

// Uniform in (0, 1) from 16 bits (jitter inside a histogram bin).
FASTMU_HD FASTMU_FORCEINLINE float unit_from_16(std::uint32_t bits16) {
  return (static_cast<float>(bits16) + 0.5f) * (1.0f / 65536.0f);
}

FASTMU_HD FASTMU_FORCEINLINE bool is_zero(Vec3f v) {
  return v.x == 0.0f && v.y == 0.0f && v.z == 0.0f;
}

// What a step needs before the move: decided at its start point (plan_step),
// then used by finish_step; transport_step runs both back to back.
struct StepPlan {
  Location loc;
  bool inside;                     // the path certainly stays in its volume (path_stays_inside)
  const MaterialTableView* table;  // ladder entry for h; null: no interaction (vacuum)
  Vec3f b0;                        // field at the start [T]
  float pm;                        // |p| at the start
  float pm_bend;                   // |p| the move bends with (bending_momentum)
  float h;                         // planned path length [m]
  bool crossing;                   // h ends beyond a boundary of the volume
  bool escape;                     // a trapped track's whole step (kMaxTinySteps): no boundary cut
  bool decays;                     // h ends where the decay budget runs out
  float end_safety;                // `inside` and a whole step: a safety at its end [m]
  std::int32_t bin;                // momentum bin chosen (tables only)
  Philox4 rn;                      // this step's random block (tables only)
};

// The momentum after the table interaction: fractional loss s.loss_frac
// along the direction u and kick s.kick_frac across it at the isotropic
// azimuth 2 pi u(r_phi), for a muon of momentum pm. p = 0 if the loss takes
// the whole momentum.
FASTMU_HD FASTMU_FORCEINLINE Vec3f kicked_momentum(SampledLoss s, float pm, Vec3f u,
                                                   std::uint32_t r_phi) {
  // Isotropic azimuth: an inline sincos of 2 pi u (FastMath.hh), the same on
  // host and device.
  float sin_phi, cos_phi;
  sincos_two_pi(to_unit_open_f(r_phi), sin_phi, cos_phi);
  const Vec3f local{s.kick_frac * cos_phi, s.kick_frac * sin_phi, 1.0f - s.loss_frac};
  const Vec3f p = pm * rotate_from_z(local, u);
  return s.loss_frac >= 1.0f ? Vec3f{0.0f, 0.0f, 0.0f} : p;
}

// The jittered (loss, kick) of alias cell `cell` of momentum bin `bin`:
// the jitter takes word 1 of the step's random block.
FASTMU_HD FASTMU_FORCEINLINE SampledLoss table_cell_value(const MaterialTableView& m,
                                                          std::int32_t bin, std::int32_t cell,
                                                          std::uint32_t r_jitter) {
  std::int32_t ix, iy;
  split_cell(m, cell, ix, iy);
  return cell_value(m.t.axes[bin], ix, iy, unit_from_16(r_jitter >> 16),
                    unit_from_16(r_jitter & 0xffffu));
}

// Samples bin `bin` of the table and returns the new momentum vector for a
// muon of momentum `pm` moving along the unit vector `u` after a step of
// h = h_over_d * d. Returns p = 0 if the sampled loss takes the whole momentum.
// (sample_bin of TableSampling.hh, with the cell split by split_cell.)
FASTMU_HD FASTMU_FORCEINLINE Vec3f apply_table_interaction(const MaterialTableView& m,
                                                           std::int32_t bin, float pm, Vec3f u,
                                                           float h_over_d, Philox4 rn) {
  SampledLoss s = table_cell_value(m, bin, sample_cell(m.t, bin, rn.v[0]), rn.v[1]);
  if (h_over_d != 1.0f) {
    s.loss_frac *= h_over_d;
    s.kick_frac *= sqrtf(h_over_d);
  }
  return kicked_momentum(s, pm, u, rn.v[2]);
}

// Where a kick applied at the step's middle puts the muon, relative to the
// end of a step that applies it at the end: 0.5 h (u_new - u), u the
// direction at the end before the kick, p the momentum after it (zero:
// stopped, no shift). The table's kick is the deflection accumulated over
// the step, and multiple scattering displaces the muon on average by half
// of it times h (the angle-position correlation of a Gaussian random walk).
// Kicked at the ends, N steps through a layer give its lateral spread
// 1 - 3 / (4 N) of the right one (-1.2 % for 10 m of iron in 16 cm steps);
// at the middles 1 - 1 / (8 N^2).
FASTMU_HD FASTMU_FORCEINLINE Vec3f mid_step_kick_shift(float h, Vec3f u, Vec3f p) {
  const float p2 = dot(p, p);
  return p2 > 0.0f ? (0.5f * h) * ((1.0f / sqrtf(p2)) * p - u) : Vec3f{0.0f, 0.0f, 0.0f};
}

// This step's random block, keyed by (seed, muon id, step index).
FASTMU_HD FASTMU_FORCEINLINE Philox4 step_random(const StepOptions& opt, std::uint64_t id,
                                                 const MuonTrack& m) {
  return philox_block(opt.seed, id, static_cast<std::uint32_t>(m.steps), RngStream::fast_transport);
}

// The field a step's move meets: its start volume's own field b0 (a
// location's field is uniform over the volume and held for the whole
// step), plus the field map's where the geometry has one.
template <class Env>
struct StepField {
  const Env& env;
  const Location& loc;
  Vec3f b0;      // the field at the start [T]
  Vec3f n;       // its direction (field_direction)
  bool uniform;  // no field map: b0 all along the move
  FASTMU_HD FASTMU_FORCEINLINE Vec3f operator()(Vec3f r) const {
    return uniform ? b0 : env.field_at(loc, r);
  }
};

// The move of length h from `start`: a straight line without field, the
// exact helix in a uniform one, else RK4 in sub-steps of at most kMaxTurn
// of turn (|B| at the start stands for the field along the step).
template <class Field>
FASTMU_HD FASTMU_FORCEINLINE RayState move_along(RayState start, bool in_field, float kappa,
                                                 float b_abs, float h, const Field& field) {
  if (!in_field) return straight_step(start, h);
  if (field.uniform) return helix_step(start, kappa, field.n, b_abs, h);
  const float turn = fabsf(kappa) * b_abs * h;
  if (!(turn > kMaxTurn)) return rk4_step(start, kappa, h, field);
  const std::int32_t n = static_cast<std::int32_t>(turn * (1.0f / kMaxTurn)) + 1;
  const float hs = h / static_cast<float>(n);
  for (std::int32_t k = 0; k < n; ++k) start = rk4_step(start, kappa, hs, field);
  return start;
}

// Kept beyond the bend in path_stays_inside: float rounding of the distances
// that the boundary tests compute (positions ~100 m: ulp 7.6 um).
inline constexpr float kConvexTestMargin = 1e-4f;  // m

// Whether the path of a step of length h from r along u certainly stays
// inside `volume`, given that r lies in it (its location holds: located this
// step, or within the safety) and that the path leaves the tangent r + s u
// by at most 0.5 kappa |B| s^2 <= `bend` (s / h)^2. For a convex volume with
// a signed excess (box, planar ARB8: the exact depth inside, a concave
// function) the tangent's depth at s is at least (s / h) times the straight
// end's, so a straight end at least `bend` deep (past kConvexTestMargin)
// keeps the whole path inside: no boundary test along u and no end check
// are needed. False when unknown (other volumes, the world region). When
// true, `end_depth` is a safety of the path's end: the straight end's depth
// less the bend and the margin.
template <class Env>
FASTMU_HD FASTMU_FORCEINLINE bool path_stays_inside(const Env& env, std::int32_t volume, Vec3f r,
                                                    Vec3f u, float h, float bend,
                                                    float& end_depth) {
  float excess = 0.0f;
  if (!(env.boundary_excess(volume, r + h * u, excess) && excess <= -(bend + kConvexTestMargin))) {
    return false;
  }
  end_depth = fmax_inline(-(excess + bend + kConvexTestMargin), 0.0f);
  return true;
}

// +1 when r is outside volume `vol` (or the world), else -1: the location's
// answer, for volumes without a signed excess.
template <class Env>
FASTMU_HD FASTMU_FORCEINLINE float boundary_side(const Env& env, std::int32_t vol, Vec3f r) {
  float unused;
  return !env.in_world(r) || env.locate(r, unused).volume != vol ? 1.0f : -1.0f;
}

// The path length, within kBoundaryTolerance beyond it, at which the curved
// path from `start` leaves volume `vol`, given that it is inside at 0 and
// outside at `check` (where g = g_hi > 0). One move per pass. `graded`
// (boxes, planar ARB8s: g is the signed excess, nearly linear along the path
// near a face): at the secant's estimate of the crossing, moved 0.45 of the
// tolerance towards the end of the bracket that did not move last, so that
// both ends close in (typically two passes); else, and after eight passes,
// bisection on boundary_side. (Float rounding can leave a bracket a few ulp
// wider than the tolerance: 40 passes at most.)
template <class Env, class FieldFn>
FASTMU_HD FASTMU_FORCEINLINE float curved_exit_length(const Env& env, std::int32_t vol,
                                                      RayState start, bool in_field, float kappa,
                                                      float b_abs, float check, float g_hi,
                                                      bool graded, const FieldFn& field_at) {
  float lo = 0.0f, hi = check;
  float g_lo = -1.0f;
  if (graded) {
    env.boundary_excess(vol, start.r, g_lo);
    g_lo = fmin_inline(g_lo, -1e-7f);  // the start is inside (pushed past its entry)
  }
  bool last_inside = true;
  for (int it = 0; hi - lo > kBoundaryTolerance && it < 40; ++it) {
    float x = 0.5f * (lo + hi);
    if (graded && it < 8) {
      x = lo + (hi - lo) * (g_lo / (g_lo - g_hi)) +
          (last_inside ? 0.45f : -0.45f) * kBoundaryTolerance;
      x = fmin_inline(fmax_inline(x, lo), hi);
    }
    const Vec3f r = move_along(start, in_field, kappa, b_abs, x, field_at).r;
    float g = 0.0f;
    if (!(graded && env.boundary_excess(vol, r, g))) g = boundary_side(env, vol, r);
    last_inside = !(g > 0.0f);
    if (last_inside) {
      lo = x, g_lo = fmin_inline(g, -1e-7f);
    } else {
      hi = x, g_hi = g;
    }
  }
  return hi;
}

// The status a muon of momentum pm at r after `steps` steps ends with before
// its next step, or alive. |p| not finite or above the tables' top: the
// tables say nothing there (a row refused by default, MuonRowCheck.hh).
// Positions far outside the world leave it here, before any lookup.
template <class Env>
FASTMU_HD FASTMU_FORCEINLINE std::int32_t stop_status(const Env& env, Vec3f r, float pm,
                                                      std::int32_t steps) {
  // Selects, not branches: the CPU lanes evaluate it in SIMD registers. The
  // later a test, the higher its precedence.
  const StepOptions& opt = env.options;
  std::int32_t status = static_cast<std::int32_t>(MuonStatus::alive);
  status = steps >= opt.max_steps ? static_cast<std::int32_t>(MuonStatus::step_limit) : status;
  status = !env.in_world(r) ? static_cast<std::int32_t>(MuonStatus::left_world) : status;
  status = !(pm <= opt.p_max) ? static_cast<std::int32_t>(MuonStatus::above_tables) : status;
  status = !(pm >= opt.p_kill) ? static_cast<std::int32_t>(MuonStatus::stopped) : status;
  return status;
}

// How far a step of table step d may go in its volume before a boundary,
// from r along u with momentum pm in the start field b0 (plan_step's
// decision, also taken by the CPU lanes' common step).
struct BoundaryCut {
  float h;                  // the step's path length [m]: d, or to the boundary plus kBoundaryPush
  bool inside;              // the path certainly stays in its volume (path_stays_inside)
  bool crossing;            // h ends beyond a boundary of the volume
  float end_safety = 0.0f;  // inside: a safety where the path of length d ends [m]
};

// `safety` is the track's counted-down safety (refreshed here on the CPU,
// kRefreshSafety); `located`: the volume was looked up at r this step.
// kWholeOnly (the CPU lanes, which take only whole steps that need no end
// check): a curved path that would need one is reported as crossing without
// the boundary test.
template <bool kWholeOnly = false, class Env>
FASTMU_HD FASTMU_FORCEINLINE BoundaryCut cut_at_boundary(const Env& env, Vec3f r, Vec3f u, float pm,
                                                         Vec3f b0, bool in_field,
                                                         std::int32_t volume, float d, bool located,
                                                         float& safety) {
  BoundaryCut c{d, false, false, 0.0f};
  // The counted-down safety is a bound from where the muon was last
  // located; a muon moving along a face keeps its distance to it, so a
  // fresh safety here often covers the step and saves the boundary test
  // (on the CPU only: see kRefreshSafety).
  if constexpr (kRefreshSafety) {
    if (!(safety >= d) && !located) safety = env.safety(r, volume);
  }
  if (safety >= d) return c;
  // The bend of a curved path from its tangent: 0.5 kappa |B| d^2, kappa
  // that of the start momentum over kBendAllowance.
  const float bend = in_field ? (0.5f * kBendAllowance) * fabsf(curvature_per_tesla(1.0f, pm)) *
                                    sqrtf(dot(b0, b0)) * d * d
                              : 0.0f;
  c.inside = path_stays_inside(env, volume, r, u, d, bend, c.end_safety);
  if (kWholeOnly && !c.inside && bend > kBoundaryTolerance) {
    c.crossing = true;
    return c;
  }
  const float dist = c.inside ? d : env.distance_to_boundary(r, u, volume, d);
  if (dist < d) {
    c.h = (dist > 0.0f ? dist : 0.0f) + boundary_push(r);
    c.crossing = true;
  }
  return c;
}

// Whether finish_step must test where a curved step of length h ends: in a
// field, not covered by the safety or path_stays_inside, not a trapped
// track's escape step, and a sagitta above kBoundaryTolerance.
FASTMU_HD FASTMU_FORCEINLINE bool needs_end_check(bool in_field, float safety, float h, bool escape,
                                                  bool inside, float kappa, float b_abs) {
  return in_field && !(safety >= h) && !escape && !inside &&
         0.5f * fabsf(kappa) * b_abs * h * h > kBoundaryTolerance;
}

// Whether the planned step of s.h would outlive the decay budget `left`
// (decay on): if so it is cut to end where the budget runs out (no boundary
// reached then).
FASTMU_HD FASTMU_FORCEINLINE void cut_at_decay(bool decay, float left, StepPlan& s) {
  s.decays = decay && step_proper_length(s.h, s.pm) > left;
  if (s.decays) {
    s.h = fmin_inline(s.h, left * (s.pm / kMuonMassF));
    s.crossing = false;
  }
}

// First half of a step: the stop checks (which may finalise the muon: returns
// false), then material, step length, table, momentum bin and random numbers.
// `random()` returns the step's block (step_random); it is called only for a
// step in matter, so the GPU computes it only when needed, while the CPU
// passes a block drawn ahead with its lanes' (philox_blocks).
template <class Env, class RandomFn>
FASTMU_HD FASTMU_FORCEINLINE bool plan_step(const Env& env, MuonTrack& m, RandomFn&& random,
                                            StepPlan& s) {
  const StepOptions& opt = env.options;
  s.pm = sqrtf(dot(m.p, m.p));
  s.pm_bend = s.pm;
  m.status = stop_status(env, m.r, s.pm, m.steps);
  if (m.status != static_cast<std::int32_t>(MuonStatus::alive)) {
    if (m.status == static_cast<std::int32_t>(MuonStatus::stopped)) m.p = Vec3f{0.0f, 0.0f, 0.0f};
    return false;
  }
  // The location holds while the muon stays inside its volume: skip the
  // lookup while the path since the last one is shorter than the safety.
  const bool located = !(m.safety > 0.0f);
  if (located) m.loc = env.locate(m.r, m.safety);
  s.loc = m.loc;
  s.b0 = env.field_at(s.loc, m.r);
  const bool in_field = !is_zero(s.b0);
  const MaterialTableView* t = env.table(s.loc.material);
  if (t != nullptr) t = env.step_table(t, s.pm, in_field);  // long steps for fast muons
  const Vec3f u = (1.0f / s.pm) * m.p;
  s.crossing = false;
  s.escape = false;
  s.inside = false;
  s.end_safety = 0.0f;
  if (t == nullptr && !in_field) {
    s.h = env.free_flight_distance(m.r, u) + boundary_push(m.r);
    s.crossing = true;
  } else {
    const float d = t != nullptr ? t->step : opt.step;
    s.h = d;
    s.escape = m.tiny_steps >= kMaxTinySteps;
    if (!s.escape) {
      const BoundaryCut c =
          cut_at_boundary(env, m.r, u, s.pm, s.b0, in_field, s.loc.volume, d, located, m.safety);
      s.h = c.h, s.inside = c.inside, s.crossing = c.crossing, s.end_safety = c.end_safety;
    }
  }
  cut_at_decay(opt.decay, m.decay_left, s);
  if (s.decays) s.end_safety = 0.0f;  // the depth was tested at the whole step's end
  s.table = t;
  if (t != nullptr) {
    // The ladder's entry nearest h in ln: the next shorter one while h is
    // within sqrt(2) of it (StepLengths.hh). A whole step keeps its table
    // (no read of the ladder: most steps, on a GPU a dependent load saved).
    if (s.h < t->step) {
      for (const MaterialTableView* n = env.shorter_table(*t);
           n != nullptr && s.h <= kSqrt2f * n->step; n = env.shorter_table(*n)) {
        s.table = n;
      }
    }
    s.rn = random();
    s.bin = choose_bin(*s.table, s.pm, to_unit_open_f(s.rn.v[3]));
    if (in_field) s.pm_bend = bending_momentum(*s.table, s.bin, s.pm, s.h);
  }
  return true;
}

// What the forward transport carries beside the muon: nothing. finish_step
// and transport_muon take a tangent policy (FieldTangents.hh: forward-mode
// derivatives of the state with respect to field parameters); its hooks run
// under `if constexpr (Tangent::kActive)`, so the forward step compiles to
// the same code as without them.
struct NoTangent {
  static constexpr bool kActive = false;
};

// Second half: the move (field, boundary, planes, free flight) and the
// interaction. With an active `tan`, the tangents follow the step as taken:
// the move over the final path length h, the projection onto the sensitive
// plane or the boundary that ends it, and the interaction with the sampled
// loss, kick and azimuth held fixed (FieldTangents.hh).
template <class Env, class Tangent>
FASTMU_HD FASTMU_FORCEINLINE void finish_step(const Env& env, MuonTrack& m, const StepPlan& s,
                                              Tangent& tan) {
  const Vec3f b0 = s.b0;
  const bool in_field = !is_zero(b0);
  const Vec3f u = (1.0f / s.pm) * m.p;

  float h = s.h;
  bool crossing = s.crossing;
  bool decays = s.decays;  // false once a plane or a curved exit ends the step first
  const RayState start{m.r, u};
  const float kappa = in_field ? curvature_per_tesla(m.charge, s.pm_bend) : 0.0f;  // no division
  // The plan's "stays inside" holds for a bend within kBendAllowance of the
  // start momentum's.
  const bool inside = s.inside && s.pm_bend * kBendAllowance >= s.pm;
  const float b_abs = in_field ? sqrtf(dot(b0, b0)) : 0.0f;
  const StepField<Env> field_at{env, s.loc, b0, field_direction(b0, b_abs), !env.has_field_map()};
  RayState end = move_along(start, in_field, kappa, b_abs, h, field_at);

  // A curved path can leave the volume before the chord's boundary. It stays
  // within the sagitta 0.5 kappa |B| h^2 of the chord, which is inside the
  // volume (h <= D): when that is below kBoundaryTolerance, or the safety
  // covers the step, nothing to check. Else the end is tested (backed off
  // the push, if cut at a boundary) and a path that left is cut to within
  // kBoundaryTolerance beyond where it leaves: for a box or planar ARB8 by
  // the secant method on the volume's signed boundary excess g along the
  // path (g is nearly linear there: one or two moves), else by bisection on
  // the location.
  if (needs_end_check(in_field, m.safety, h, s.escape, inside, kappa, b_abs)) {
    const float back = 2.0f * boundary_push(start.r);
    const float check = crossing ? h - back : h;
    const Vec3f check_r = crossing ? end.r - back * end.u : end.r;
    float g_hi = 0.0f;
    const bool graded = env.boundary_excess(s.loc.volume, check_r, g_hi);
    if (!graded) g_hi = boundary_side(env, s.loc.volume, check_r);
    if (check > kBoundaryTolerance && g_hi > 0.0f) {
      h = curved_exit_length(env, s.loc.volume, start, in_field, kappa, b_abs, check, g_hi, graded,
                             field_at);
      crossing = true;
      decays = false;
      end = move_along(start, in_field, kappa, b_abs, h, field_at);
    }
  }

  // The nearest sensitive plane crossed by this move, as a fraction of it.
  // A move changes z by at most its length h, so the planes need checking
  // only once the path since the last check reaches the z distance to the
  // nearest plane then (counted down in plane_gap, as the safety).
  std::int32_t hit = -1;
  float frac = 2.0f;
  if (!(m.plane_gap > h)) {
    float nearest = 3e38f;
    for (std::int32_t k = 0; k < env.n_planes; ++k) {
      const float zp = env.planes[k].z;
      const bool crosses = (m.r.z < zp && end.r.z >= zp) || (m.r.z > zp && end.r.z <= zp);
      if (crosses) {
        const float f = (zp - m.r.z) / (end.r.z - m.r.z);
        if (f < frac) frac = f, hit = k;
      }
      const float dz = fabsf(zp - m.r.z);
      nearest = dz < nearest ? dz : nearest;
    }
    m.plane_gap = nearest - kPlaneMargin;
  }
  m.plane_gap -= h;
  if (hit >= 0) {
    h *= frac;
    end = move_along(start, in_field, kappa, b_abs, h, field_at);
    end.r.z = env.planes[hit].z;  // exact; the transverse error is O(h theta^2)
    decays = false;
  }
  if (env.options.decay) m.decay_left -= step_proper_length(h, s.pm);

  if constexpr (Tangent::kActive) {
    tan.move(start, s.pm, in_field, kappa, b_abs, h, s.loc.volume, field_at);
    if (hit >= 0) {
      tan.to_plane(end.u, kappa, field_at(end.r));
    } else if (!s.escape && (crossing || (in_field && !(m.safety >= h) && !inside))) {
      // A cut step, or a whole step in a field whose curved path may have
      // left its volume uncut (its sagitta below kBoundaryTolerance: the
      // end is not located here, the next step finds the new volume).
      tan.to_boundary(env, end, s.loc, kappa, field_at(end.r), h);
    }
  }

  m.r = end.r;
  // The path is at least the displacement; beyond a boundary (or after an
  // escape step, which may have crossed one): look up again.
  m.safety = (crossing || s.escape) && hit < 0 ? 0.0f : m.safety - h;
  // A path that certainly stayed inside its convex volume ends at a depth
  // the plan tested: the next step needs no lookup (SHiP-like shield: one
  // step in eleven looks its volume up instead of one in two).
  if (inside) m.safety = fmax_inline(m.safety, s.end_safety);
  m.tiny_steps = crossing && !(h > 2.0f * boundary_push(start.r)) ? m.tiny_steps + 1 : 0;
  if (s.table != nullptr) {
    const float ratio = h == s.table->step ? 1.0f : h * s.table->inv_step;
    // A step inside its volume takes its kick at the middle; one that ends
    // on a boundary or a plane keeps its end there, and so does one that
    // ends within h of a sensitive plane (the shift, at most h long, would
    // carry it across the plane unrecorded: a plane on an exit face, reached
    // by whole steps, lost 0.2 % of the muons).
    const bool mid_kick = !crossing && hit < 0 && !s.escape && m.plane_gap > h;
    if constexpr (Tangent::kActive) {
      tan.interact(*s.table, s.bin, s.pm, end.u, h, ratio, s.rn, mid_kick);
    }
    m.p = apply_table_interaction(*s.table, s.bin, s.pm, end.u, ratio, s.rn);
    if (mid_kick) {
      const Vec3f shift = mid_step_kick_shift(h, end.u, m.p);
      const float moved = sqrtf(dot(shift, shift));
      m.r = m.r + shift;
      m.safety -= moved;
      m.plane_gap -= moved;
    }
  } else {
    if constexpr (Tangent::kActive) tan.no_interaction(s.pm, end.u);
    m.p = s.pm * end.u;
  }
  ++m.steps;

  if (hit >= 0 && is_zero(m.p)) {
    m.status = static_cast<std::int32_t>(MuonStatus::stopped);  // lost all momentum on the way
  } else if (hit >= 0) {
    const SensitivePlane& sp = env.planes[hit];
    const bool inside =
        m.r.x >= sp.x_min && m.r.x <= sp.x_max && m.r.y >= sp.y_min && m.r.y <= sp.y_max;
    m.status =
        static_cast<std::int32_t>(inside ? MuonStatus::at_plane : MuonStatus::outside_window);
    m.plane = hit;
  } else if (decays && !is_zero(m.p)) {
    m.status = static_cast<std::int32_t>(MuonStatus::decayed);  // (p = 0: stopped first)
  }
}

// The forward step: no tangents.
template <class Env>
FASTMU_HD FASTMU_FORCEINLINE void finish_step(const Env& env, MuonTrack& m, const StepPlan& s) {
  NoTangent none;
  finish_step(env, m, s, none);
}

// Advances `m` by one step (or finalises it). `id` keys the random numbers.
template <class Env, class Tangent = NoTangent>
FASTMU_HD FASTMU_FORCEINLINE void transport_step(const Env& env, MuonTrack& m, std::uint64_t id,
                                                 Tangent& tan) {
  StepPlan s;
  if (plan_step(
          env, m, [&] { return step_random(env.options, id, m); }, s))
    finish_step(env, m, s, tan);
}
template <class Env>
FASTMU_HD FASTMU_FORCEINLINE void transport_step(const Env& env, MuonTrack& m, std::uint64_t id) {
  NoTangent none;
  transport_step(env, m, id, none);
}

// Transports one muon until it reaches a final status (with `tan`: carrying
// its tangents along).
template <class Env, class Tangent>
FASTMU_HD FASTMU_FORCEINLINE void transport_muon(const Env& env, MuonTrack& m, std::uint64_t id,
                                                 Tangent& tan) {
  while (m.status == static_cast<std::int32_t>(MuonStatus::alive)) transport_step(env, m, id, tan);
}
template <class Env>
FASTMU_HD FASTMU_FORCEINLINE void transport_muon(const Env& env, MuonTrack& m, std::uint64_t id) {
  NoTangent none;
  transport_muon(env, m, id, none);
}

}  // namespace fastmu
