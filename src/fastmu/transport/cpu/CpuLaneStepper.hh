// The CPU's schedule of the step of StepPhysics.hh: kLanes muons advance
// together, as a structure of arrays, so that the step's arithmetic runs in
// SIMD registers (one muon per lane) while the table reads stay scalar.
//
// Each step of a lane takes one of two paths, decided by that muon's own
// state only (so the result never depends on which muons share the lanes,
// hence not on batch size or thread count):
//  - the common step: alive, in the world, inside matter, a whole table step
//    (no boundary within the safety or along the straight line, and a
//    sagitta below kBoundaryTolerance in a field), no field map, no sensitive
//    plane within reach. It is split into phases over all lanes:
//    A (SIMD) |p|, ln |p|, the stop and plane checks; B (scalar) location,
//    momentum bin, prefetch of the alias cell; C (scalar) alias draw and the
//    bin's axes; D (SIMD) move (straight or the helix in the volume's field),
//    jittered loss and kick, rotation into the muon's frame. Every formula is
//    the one plan_step / finish_step use (choose_bin_ln, sample_cell,
//    split_cell, cell_value, kicked_momentum, helix_step, straight_step),
//    evaluated lane-wise;
//  - every other step (stop, vacuum or free flight, a boundary or a plane
//    within reach, field maps): plan_step + finish_step on
//    that lane alone.
// Which path a step takes is decided by plan_step's own functions
// (stop_status, cut_at_boundary), so both paths take the same steps; a
// trapped track's escape step (kMaxTinySteps) always takes the second.
// Finished lanes take the chunk's next muon, so the lanes stay full.
//
// On the iron block this takes 200 instead of 465 instructions per step
// (callgrind) and runs 1.8-2.3x faster than one muon per lane with
// plan / finish (BENCHMARKS.md).
#pragma once

#include <cstddef>
#include <cstdint>

#include "fastmu/core/FastMath.hh"
#include "fastmu/core/Macros.hh"
#include "fastmu/core/Random.hh"
#include "fastmu/transport/MuonBatch.hh"
#include "fastmu/transport/cpu/CpuLaneRandom.hh"
#include "fastmu/transport/step/StepPhysics.hh"

// The lane loops to vectorise: `ivdep` tells the compiler that their
// iterations are independent. (`omp simd` is not used: GCC 12 then keeps the
// inlined functions' locals in per-lane memory and gives up on the loop.)
// Elsewhere they are plain loops with the same results.
#if defined(__GNUC__) || defined(__clang__)
#define FASTMU_SIMD_LOOP _Pragma("GCC ivdep")
#else
#define FASTMU_SIMD_LOOP
#endif

namespace fastmu::detail {

constexpr std::int32_t kAlive = static_cast<std::int32_t>(MuonStatus::alive);

// The lanes' muons (MuonTrack as structure of arrays).
struct LaneState {
  alignas(32) float x[kLanes], y[kLanes], z[kLanes];
  alignas(32) float px[kLanes], py[kLanes], pz[kLanes];
  alignas(32) float charge[kLanes], safety[kLanes], plane_gap[kLanes];
  alignas(32) float bx[kLanes], by[kLanes], bz[kLanes];  // volume field at the last lookup
  alignas(32) std::int32_t material[kLanes], volume[kLanes], status[kLanes], steps[kLanes],
      plane[kLanes];
  alignas(32) std::int32_t in_field[kLanes];    // volume field non-zero
  alignas(32) std::int32_t tiny_steps[kLanes];  // MuonTrack::tiny_steps
  alignas(32) float decay_left[kLanes];         // MuonTrack::decay_left
  const MaterialTableView* table[kLanes];       // of `material`; null: vacuum
  std::int64_t row[kLanes];                     // batch row of the lane's muon; -1: empty lane

  FASTMU_FORCEINLINE MuonTrack track(int l) const {
    MuonTrack t;
    t.r = {x[l], y[l], z[l]};
    t.p = {px[l], py[l], pz[l]};
    t.charge = charge[l];
    t.status = status[l];
    t.steps = steps[l];
    t.plane = plane[l];
    t.loc = {material[l], {bx[l], by[l], bz[l]}, volume[l]};
    t.safety = safety[l];
    t.plane_gap = plane_gap[l];
    t.tiny_steps = tiny_steps[l];
    t.decay_left = decay_left[l];
    return t;
  }
  // The lane's state from `t`; the table and field flag follow its location.
  template <class Env>
  FASTMU_FORCEINLINE void store(const Env& env, int l, const MuonTrack& t) {
    x[l] = t.r.x, y[l] = t.r.y, z[l] = t.r.z;
    px[l] = t.p.x, py[l] = t.p.y, pz[l] = t.p.z;
    charge[l] = t.charge;
    status[l] = t.status, steps[l] = t.steps, plane[l] = t.plane;
    material[l] = t.loc.material;
    volume[l] = t.loc.volume;
    bx[l] = t.loc.field.x, by[l] = t.loc.field.y, bz[l] = t.loc.field.z;
    safety[l] = t.safety, plane_gap[l] = t.plane_gap;
    tiny_steps[l] = t.tiny_steps;
    decay_left[l] = t.decay_left;
    in_field[l] = !is_zero(t.loc.field);
    table[l] = env.table(t.loc.material);
  }
  template <class Env>
  FASTMU_FORCEINLINE void load(const Env& env, int l, const MuonBatch& in, std::size_t i,
                               std::uint64_t first_id) {
    // safety 0: located at its first step
    store(env, l, make_track(in, i, env.options, first_id));
    row[l] = static_cast<std::int64_t>(i);
  }
  FASTMU_FORCEINLINE void write(int l, TransportResult& out) const {
    const std::size_t i = static_cast<std::size_t>(row[l]);
    MuonBatch& o = out.muons;
    o.x[i] = x[l], o.y[i] = y[l], o.z[i] = z[l];
    o.px[i] = px[l], o.py[i] = py[l], o.pz[i] = pz[l];
    out.status[i] = status[l];
    out.plane[i] = plane[l];
    out.steps[i] = steps[l];
  }
};

// The chosen bins' histogram axes (HistAxes as structure of arrays).
struct LaneAxes {
  alignas(32) float x_lo[kLanes], x_width[kLanes], y_lo[kLanes], y_width[kLanes];
};

// Phase D of the common step for all lanes; the result is kept where
// `common` is set. kField: some lane has a volume field (the helix where non-zero);
// `decay`: the decay budget is spent (StepOptions::decay).
template <bool kField>
FASTMU_FORCEINLINE void finish_common_steps(LaneState& s, const std::int32_t* common,
                                            const float* pm, const float* pm_bend,
                                            const std::int32_t* ix, const std::int32_t* iy,
                                            const LaneAxes& axes, const LaneWords& rn,
                                            const float* hl, const float* end_safety, bool decay) {
  FASTMU_SIMD_LOOP
  for (int l = 0; l < kLanes; ++l) {
    const float h = hl[l];
    const Vec3f p{s.px[l], s.py[l], s.pz[l]};
    const RayState start{{s.x[l], s.y[l], s.z[l]}, (1.0f / pm[l]) * p};
    RayState end = straight_step(start, h);
    if constexpr (kField) {
      const Vec3f b{s.bx[l], s.by[l], s.bz[l]};
      const bool in_field = !is_zero(b);
      const float kappa = in_field ? curvature_per_tesla(s.charge[l], pm_bend[l]) : 0.0f;
      const float b_abs = sqrtf(dot(b, b));
      const RayState curved = helix_step(start, kappa, field_direction(b, b_abs), b_abs, h);
      end.r.x = in_field ? curved.r.x : end.r.x;
      end.r.y = in_field ? curved.r.y : end.r.y;
      end.r.z = in_field ? curved.r.z : end.r.z;
      end.u.x = in_field ? curved.u.x : end.u.x;
      end.u.y = in_field ? curved.u.y : end.u.y;
      end.u.z = in_field ? curved.u.z : end.u.z;
    }
    const std::uint32_t r_jitter = rn.w[1][l];
    const HistAxes a{axes.x_lo[l], axes.x_width[l], axes.y_lo[l], axes.y_width[l]};
    const SampledLoss loss =
        cell_value(a, ix[l], iy[l], unit_from_16(r_jitter >> 16), unit_from_16(r_jitter & 0xffffu));
    const Vec3f p_new = kicked_momentum(loss, pm[l], end.u, rn.w[2][l]);
    const Vec3f shift = mid_step_kick_shift(h, end.u, p_new);  // as finish_step
    const float shifted = sqrtf(dot(shift, shift));
    const float moved = h + shifted;
    const bool keep = common[l] != 0;
    s.x[l] = keep ? end.r.x + shift.x : s.x[l];
    s.y[l] = keep ? end.r.y + shift.y : s.y[l];
    s.z[l] = keep ? end.r.z + shift.z : s.z[l];
    s.px[l] = keep ? p_new.x : s.px[l];
    s.py[l] = keep ? p_new.y : s.py[l];
    s.pz[l] = keep ? p_new.z : s.pz[l];
    // As finish_step: the path stayed inside, its end keeps the tested depth.
    s.safety[l] = keep ? fmax_inline(s.safety[l] - h, end_safety[l]) - shifted : s.safety[l];
    s.plane_gap[l] = keep ? s.plane_gap[l] - moved : s.plane_gap[l];
    s.steps[l] = keep ? s.steps[l] + 1 : s.steps[l];
    const bool spend = keep && decay;  // as finish_step (no decay: the budget is never read)
    s.decay_left[l] = spend ? s.decay_left[l] - step_proper_length(h, pm[l]) : s.decay_left[l];
    s.tiny_steps[l] = keep ? 0 : s.tiny_steps[l];  // a whole step ends no crossing
  }
}

// The lanes' random blocks of this step, keyed by (seed, muon id, step).
template <class LaneRandom>
FASTMU_FORCEINLINE void draw_lane_random(const LaneState& s, std::uint64_t seed,
                                         std::uint64_t first_id, LaneWords& rn) {
  std::uint64_t id[kLanes];
  std::uint32_t counter[kLanes];
  for (int l = 0; l < kLanes; ++l) {
    id[l] = first_id + static_cast<std::uint64_t>(s.row[l]);
    counter[l] = static_cast<std::uint32_t>(s.steps[l]);
  }
  LaneRandom::draw(seed, id, counter, rn);
}

// What phase B decides for the lanes that take a common step.
struct CommonSteps {
  alignas(32) float pm[kLanes], lp[kLanes];  // |p| and ln |p|
  alignas(32) std::int32_t common[kLanes];   // the lane takes the common step
  alignas(32) float h[kLanes];               // its length (the table step)
  alignas(32) float pm_bend[kLanes];         // |p| its move bends with (bending_momentum)
  alignas(32) float end_safety[kLanes];      // a safety where it ends (BoundaryCut)
  std::int32_t bin[kLanes];                  // momentum bin
  const MaterialTableView* table[kLanes];    // of the muon's momentum (long steps)
};

// Phase A (SIMD): |p| and ln |p|, and whether the step can be a common one:
// alive after plan_step's stop checks (stop_status), no trapped track's
// escape step (kMaxTinySteps: plan_step's alone), no field map.
template <class Env>
FASTMU_FORCEINLINE void find_common_candidates(const Env& env, const LaneState& s, bool field_map,
                                               CommonSteps& c) {
  FASTMU_SIMD_LOOP
  for (int l = 0; l < kLanes; ++l) {
    const Vec3f p{s.px[l], s.py[l], s.pz[l]};
    c.pm[l] = sqrtf(dot(p, p));
    c.lp[l] = log_fast(c.pm[l]);
    c.pm_bend[l] = c.pm[l];
    c.end_safety[l] = 0.0f;
    c.common[l] = (s.status[l] == kAlive) &
                  (stop_status(env, Vec3f{s.x[l], s.y[l], s.z[l]}, c.pm[l], s.steps[l]) == kAlive) &
                  (s.tiny_steps[l] < kMaxTinySteps) & !field_map;
  }
}

// Phase B for lane l, a candidate: its location (while outside the last
// safety), then whether its step is a whole table step with no boundary nor
// plane in reach, one RK4 step, no end check of a curved path (plan_step's
// boundary decision, cut_at_boundary, without a cut) and no decay within it
// (plan_step's cut_at_decay, without a cut). If so,
// its momentum bin is chosen and the alias cell prefetched; true.
template <class Env>
FASTMU_FORCEINLINE bool plan_common_step(const Env& env, LaneState& s, int l, const LaneWords& rn,
                                         CommonSteps& c) {
  const bool located = !(s.safety[l] > 0.0f);
  if (located) {
    const Location loc = env.locate(Vec3f{s.x[l], s.y[l], s.z[l]}, s.safety[l]);
    s.material[l] = loc.material;
    s.volume[l] = loc.volume;
    s.bx[l] = loc.field.x, s.by[l] = loc.field.y, s.bz[l] = loc.field.z;
    s.in_field[l] = !is_zero(loc.field);
    s.table[l] = env.table(loc.material);
  }
  const float pm = c.pm[l];
  const MaterialTableView* m =
      s.table[l] != nullptr ? env.step_table(s.table[l], pm, s.in_field[l] != 0) : nullptr;
  c.table[l] = m;
  // No plane within reach, nor within reach of the mid-step kick's shift
  // (finish_step's rule, in its arithmetic: the gap left after the move > h).
  if (m == nullptr || !(s.plane_gap[l] - m->step > m->step) ||
      (env.options.decay && step_proper_length(m->step, pm) > s.decay_left[l])) {
    return false;
  }
  c.bin[l] = choose_bin_ln(*m, pm, c.lp[l], to_unit_open_f(rn.w[3][l]));
  // In a field: the helix at the bending momentum, and no end check
  // (finish_step takes one where the bend exceeds the plan's bound). Decided
  // before the boundary test, whose safety refresh would otherwise change
  // where the lane's own step (take_lane_step) locates the muon.
  c.pm_bend[l] = pm;
  if (s.in_field[l] != 0) {
    c.pm_bend[l] = bending_momentum(*m, c.bin[l], pm, m->step);
    if (c.pm_bend[l] * kBendAllowance < pm) return false;
  }
  const Vec3f r{s.x[l], s.y[l], s.z[l]};
  const Vec3f u = (1.0f / pm) * Vec3f{s.px[l], s.py[l], s.pz[l]};
  const Vec3f b0{s.bx[l], s.by[l], s.bz[l]};
  const BoundaryCut cut = cut_at_boundary<true>(env, r, u, pm, b0, s.in_field[l] != 0, s.volume[l],
                                                m->step, located, s.safety[l]);
  if (cut.crossing) return false;
  c.h[l] = m->step;
  c.end_safety[l] = cut.end_safety;  // 0 unless the path stays inside
  __builtin_prefetch(alias_cell_address(m->t, c.bin[l], rn.w[0][l]));
  return true;
}

// Lane l's whole step by plan_step + finish_step (stop, vacuum or free
// flight, a boundary or plane within reach, field map, sub-steps, escape).
// Returns whether the muon is done.
template <class Env>
FASTMU_FORCEINLINE bool take_lane_step(const Env& env, LaneState& s, int l, const LaneWords& rn) {
  MuonTrack t = s.track(l);
  StepPlan plan;
  const Philox4 block{{rn.w[0][l], rn.w[1][l], rn.w[2][l], rn.w[3][l]}};
  if (plan_step(
          env, t, [&] { return block; }, plan))
    finish_step(env, t, plan);
  s.store(env, l, t);
  return t.status != kAlive;
}

// Phase C (scalar): the alias draw and the chosen bin's axes.
FASTMU_FORCEINLINE void draw_common_cells(const CommonSteps& c, const LaneWords& rn,
                                          std::int32_t* ix, std::int32_t* iy, LaneAxes& axes,
                                          float* h) {
  for (int l = 0; l < kLanes; ++l) {
    if (!c.common[l]) {
      ix[l] = iy[l] = 0;
      h[l] = 0.0f;
      axes.x_lo[l] = axes.x_width[l] = axes.y_lo[l] = axes.y_width[l] = 0.0f;
      continue;
    }
    const MaterialTableView& m = *c.table[l];
    split_cell(m, sample_cell(m.t, c.bin[l], rn.w[0][l]), ix[l], iy[l]);
    const HistAxes& a = m.t.axes[c.bin[l]];
    axes.x_lo[l] = a.x_lo, axes.x_width[l] = a.x_width;
    axes.y_lo[l] = a.y_lo, axes.y_width[l] = a.y_width;
    h[l] = c.h[l];
  }
}

// Muons [begin, end) of `in` transported to their end, written into `out`.
// LaneRandom::draw gives the lanes' random blocks (bitwise philox_blocks).
template <class LaneRandom, class Env>
FASTMU_FORCEINLINE void transport_lanes(const Env& env, const MuonBatch& in, TransportResult& out,
                                        std::uint64_t first_id, std::size_t begin,
                                        std::size_t end) {
  const bool field_map = env.has_field_map();  // RK4 through a map: the per-lane path
  LaneState s;
  std::size_t next = begin;
  int live = 0;
  for (int l = 0; l < kLanes; ++l) {
    if (next < end) {
      s.load(env, l, in, next++, first_id);
      ++live;
    } else {
      s.store(env, l, MuonTrack{});
      s.row[l] = -1;
      s.status[l] = static_cast<std::int32_t>(MuonStatus::stopped);  // never stepped
    }
  }

  while (live > 0) {
    LaneWords rn;
    draw_lane_random<LaneRandom>(s, env.options.seed, first_id, rn);
    CommonSteps c;
    find_common_candidates(env, s, field_map, c);

    // B: the common steps planned; other live lanes take their whole step here.
    bool any_done = false;
    for (int l = 0; l < kLanes; ++l) {
      if (c.common[l]) {
        if (plan_common_step(env, s, l, rn, c)) continue;
        c.common[l] = 0;
      } else if (s.status[l] != kAlive) {
        continue;
      }
      any_done = take_lane_step(env, s, l, rn) || any_done;
    }

    alignas(32) std::int32_t ix[kLanes], iy[kLanes];
    alignas(32) float h[kLanes];
    LaneAxes axes;
    draw_common_cells(c, rn, ix, iy, axes, h);
    std::int32_t any_field = 0;
    for (int l = 0; l < kLanes; ++l) any_field |= c.common[l] & s.in_field[l];

    // D: move and interaction.
    const bool decay = env.options.decay;
    if (any_field) {
      finish_common_steps<true>(s, c.common, c.pm, c.pm_bend, ix, iy, axes, rn, h, c.end_safety,
                                decay);
    } else {
      finish_common_steps<false>(s, c.common, c.pm, c.pm_bend, ix, iy, axes, rn, h, c.end_safety,
                                 decay);
    }

    // Finished muons out, the next ones in (only the per-lane steps finish
    // muons: a common step never does).
    if (!any_done) continue;
    for (int l = 0; l < kLanes; ++l) {
      if (s.row[l] < 0 || s.status[l] == kAlive) continue;
      s.write(l, out);
      s.row[l] = -1;
      --live;
      if (next < end) {
        s.load(env, l, in, next++, first_id);
        ++live;
      }
    }
  }
}

}  // namespace fastmu::detail
