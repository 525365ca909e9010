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
//    plane within reach, at most kMaxTurn of turn in the volume's field (one
//    RK4 step). It is split into phases over all lanes:
//    A (SIMD) |p|, ln |p|, the stop and plane checks; B (scalar) location,
//    momentum bin, prefetch of the alias cell; C (scalar) alias draw and the
//    bin's axes; D (SIMD) move (straight or RK4 in the volume's field),
//    jittered loss and kick, rotation into the muon's frame. Every formula is
//    the one plan_step / finish_step use (choose_bin_ln, sample_cell,
//    split_cell, cell_value, kicked_momentum, rk4_step, straight_step),
//    evaluated lane-wise;
//  - every other step (stop, vacuum or free flight, a boundary or a plane
//    within reach, field maps, sub-stepped RK4): plan_step + finish_step on
//    that lane alone.
// Finished lanes take the chunk's next muon, so the lanes stay full.
//
// On the iron block this takes 200 instead of 465 instructions per step
// (callgrind) and runs 1.8-2.3x faster than one muon per lane with
// plan / finish (BENCHMARKS.md, session 2).
#pragma once

#include <cstddef>
#include <cstdint>

#include "fastmu/core/Macros.hh"
#include "fastmu/core/Random.hh"
#include "fastmu/transport/CpuLaneRandom.hh"
#include "fastmu/transport/MuonBatch.hh"
#include "fastmu/transport/StepPhysics.hh"

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
    in_field[l] = !is_zero(t.loc.field);
    table[l] = env.table(t.loc.material);
  }
  template <class Env>
  FASTMU_FORCEINLINE void load(const Env& env, int l, const MuonBatch& in, std::size_t i) {
    MuonTrack t;
    t.r = {in.x[i], in.y[i], in.z[i]};
    t.p = {in.px[i], in.py[i], in.pz[i]};
    t.charge = charge_from_pdg(in.pdg[i]);
    store(env, l, t);  // safety 0: located at its first step
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

// The field of a volume, the same at every RK4 stage point.
struct UniformField {
  Vec3f b;
  FASTMU_HD FASTMU_FORCEINLINE Vec3f operator()(Vec3f) const { return b; }
};

// Phase D of the common step for all lanes; the result is kept where
// `common` is set. kField: some lane has a volume field (RK4 where non-zero).
template <bool kField>
FASTMU_FORCEINLINE void finish_common_steps(LaneState& s, const std::int32_t* common,
                                            const float* pm, const std::int32_t* ix,
                                            const std::int32_t* iy, const LaneAxes& axes,
                                            const LaneWords& rn, const float* hl) {
  FASTMU_SIMD_LOOP
  for (int l = 0; l < kLanes; ++l) {
    const float h = hl[l];
    const Vec3f p{s.px[l], s.py[l], s.pz[l]};
    const RayState start{{s.x[l], s.y[l], s.z[l]}, (1.0f / pm[l]) * p};
    RayState end = straight_step(start, h);
    if constexpr (kField) {
      const Vec3f b{s.bx[l], s.by[l], s.bz[l]};
      const bool in_field = !is_zero(b);
      const float kappa = in_field ? curvature_per_tesla(s.charge[l], pm[l]) : 0.0f;
      const RayState curved = rk4_step(start, kappa, h, UniformField{b});
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
    const float moved = h + sqrtf(dot(shift, shift));
    const bool keep = common[l] != 0;
    s.x[l] = keep ? end.r.x + shift.x : s.x[l];
    s.y[l] = keep ? end.r.y + shift.y : s.y[l];
    s.z[l] = keep ? end.r.z + shift.z : s.z[l];
    s.px[l] = keep ? p_new.x : s.px[l];
    s.py[l] = keep ? p_new.y : s.py[l];
    s.pz[l] = keep ? p_new.z : s.pz[l];
    s.safety[l] = keep ? s.safety[l] - moved : s.safety[l];
    s.plane_gap[l] = keep ? s.plane_gap[l] - moved : s.plane_gap[l];
    s.steps[l] = keep ? s.steps[l] + 1 : s.steps[l];
    s.tiny_steps[l] = keep ? 0 : s.tiny_steps[l];  // a whole step ends no crossing
  }
}

// Muons [begin, end) of `in` transported to their end, written into `out`.
// LaneRandom::draw gives the lanes' random blocks (bitwise philox_blocks).
template <class LaneRandom, class Env>
FASTMU_FORCEINLINE void transport_lanes(const Env& env, const MuonBatch& in, TransportResult& out,
                                        std::uint64_t first_id, std::size_t begin,
                                        std::size_t end) {
  const StepOptions& opt = env.options;
  const bool field_map = env.has_field_map();  // RK4 through a map: the per-lane path
  LaneState s;
  std::size_t next = begin;
  int live = 0;
  for (int l = 0; l < kLanes; ++l) {
    if (next < end) {
      s.load(env, l, in, next++);
      ++live;
    } else {
      s.store(env, l, MuonTrack{});
      s.row[l] = -1;
      s.status[l] = static_cast<std::int32_t>(MuonStatus::stopped);  // never stepped
    }
  }

  while (live > 0) {
    LaneWords rn;
    {
      std::uint64_t id[kLanes];
      std::uint32_t counter[kLanes];
      for (int l = 0; l < kLanes; ++l) {
        id[l] = first_id + static_cast<std::uint64_t>(s.row[l]);
        counter[l] = static_cast<std::uint32_t>(s.steps[l]);
      }
      LaneRandom::draw(opt.seed, id, counter, rn);
    }

    // A: |p| and ln |p|; whether the step can be a common one.
    alignas(32) float pm[kLanes], lp[kLanes];
    alignas(32) std::int32_t common[kLanes];
    FASTMU_SIMD_LOOP
    for (int l = 0; l < kLanes; ++l) {
      const Vec3f p{s.px[l], s.py[l], s.pz[l]};
      pm[l] = sqrtf(dot(p, p));
      lp[l] = log_fast(pm[l]);
      common[l] = (s.status[l] == kAlive) & (pm[l] >= opt.p_kill) &
                  env.in_world(Vec3f{s.x[l], s.y[l], s.z[l]}) & (s.steps[l] < opt.max_steps) &
                  !field_map;
    }

    // B: location (while outside the last safety), momentum bin; the alias
    // cell is prefetched. Other live lanes take their whole step here.
    std::int32_t bin[kLanes];
    const MaterialTableView* step_table[kLanes];  // of the muon's momentum (long steps)
    alignas(32) float hl[kLanes];
    bool any_done = false;
    for (int l = 0; l < kLanes; ++l) {
      if (common[l]) {
        const bool located = !(s.safety[l] > 0.0f);
        if (located) {
          const Location loc = env.locate(Vec3f{s.x[l], s.y[l], s.z[l]}, s.safety[l]);
          s.material[l] = loc.material;
          s.volume[l] = loc.volume;
          s.bx[l] = loc.field.x, s.by[l] = loc.field.y, s.bz[l] = loc.field.z;
          s.in_field[l] = !is_zero(loc.field);
          s.table[l] = env.table(loc.material);
        }
        const MaterialTableView* m =
            s.table[l] != nullptr ? env.step_table(s.table[l], pm[l]) : nullptr;
        step_table[l] = m;
        // A whole table step, no boundary nor plane in reach, one RK4 step:
        // the boundary is out of reach within the safety, or else (as
        // plan_step decides) when the straight distance to it is at least the
        // step and a curved path needs no end check (finish_step).
        const float b2 = s.bx[l] * s.bx[l] + s.by[l] * s.by[l] + s.bz[l] * s.bz[l];
        bool whole = m != nullptr && s.plane_gap[l] > m->step &&
                     !(fabsf(curvature_per_tesla(1.0f, pm[l])) * sqrtf(b2) * m->step > kMaxTurn);
        if (kRefreshSafety && whole && !(s.safety[l] >= m->step) && !located) {
          s.safety[l] = env.safety(Vec3f{s.x[l], s.y[l], s.z[l]}, s.volume[l]);  // as plan_step
        }
        if (whole && !(s.safety[l] >= m->step)) {
          const float h = m->step;
          const float kappa = s.in_field[l] ? curvature_per_tesla(s.charge[l], pm[l]) : 0.0f;
          const Vec3f r{s.x[l], s.y[l], s.z[l]};
          const Vec3f u = (1.0f / pm[l]) * Vec3f{s.px[l], s.py[l], s.pz[l]};
          // As plan_step: the path stays inside (path_stays_inside), or else
          // the straight distance to the boundary is at least the step and
          // a curved path needs no end check (finish_step).
          const float bend = 0.5f * fabsf(kappa) * sqrtf(b2) * h * h;
          whole = path_stays_inside(env, s.volume[l], r, u, h, bend, s.safety[l]) ||
                  (!(bend > kBoundaryTolerance) &&
                   !(env.distance_to_boundary(r, u, s.volume[l], h) < h));
        }
        if (whole) {
          hl[l] = m->step;
          bin[l] = choose_bin_ln(*m, pm[l], lp[l], to_unit_open_f(rn.w[3][l]));
          __builtin_prefetch(alias_cell_address(m->t, bin[l], rn.w[0][l]));
          continue;
        }
        common[l] = 0;  // vacuum, boundary or plane in reach, sub-steps
      } else if (s.status[l] != kAlive) {
        continue;
      }
      // Stop, vacuum, boundary or plane within reach, field map: the whole step here.
      MuonTrack t = s.track(l);
      StepPlan plan;
      const Philox4 block{{rn.w[0][l], rn.w[1][l], rn.w[2][l], rn.w[3][l]}};
      if (plan_step(
              env, t, [&] { return block; }, plan))
        finish_step(env, t, plan);
      s.store(env, l, t);
      any_done = any_done || t.status != kAlive;
    }

    // C: the alias draw and the chosen bin's axes.
    alignas(32) std::int32_t ix[kLanes], iy[kLanes];
    LaneAxes axes;
    for (int l = 0; l < kLanes; ++l) {
      if (!common[l]) {
        ix[l] = iy[l] = 0;
        hl[l] = 0.0f;
        axes.x_lo[l] = axes.x_width[l] = axes.y_lo[l] = axes.y_width[l] = 0.0f;
        continue;
      }
      const MaterialTableView& m = *step_table[l];
      split_cell(m, sample_cell(m.t, bin[l], rn.w[0][l]), ix[l], iy[l]);
      const HistAxes& a = m.t.axes[bin[l]];
      axes.x_lo[l] = a.x_lo, axes.x_width[l] = a.x_width;
      axes.y_lo[l] = a.y_lo, axes.y_width[l] = a.y_width;
    }
    std::int32_t any_field = 0;
    for (int l = 0; l < kLanes; ++l) any_field |= common[l] & s.in_field[l];

    // D: move and interaction.
    if (any_field) {
      finish_common_steps<true>(s, common, pm, ix, iy, axes, rn, hl);
    } else {
      finish_common_steps<false>(s, common, pm, ix, iy, axes, rn, hl);
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
        s.load(env, l, in, next++);
        ++live;
      }
    }
  }
}

}  // namespace fastmu::detail
