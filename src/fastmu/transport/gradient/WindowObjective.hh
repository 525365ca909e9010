// A smooth objective of a shield design and its gradient with respect to
// field parameters in the same pass (pathwise derivatives with common random
// numbers, FieldTangents.hh).
//
// The objective is the weighted number of muons reaching a sensitive plane's
// window: each muon that crosses the plane contributes
//     w * sigmoid(d / smoothing),
//     d = min(x - x_min, x_max - x, y - y_min, y_max - y)
// (d is the signed distance to the window's nearest edge: > 0 inside), and
// its derivative w * sigmoid' / smoothing * dd/dtheta, dd/dtheta taken from
// the nearest edge and the tangent of the crossing point. With smoothing 0
// the value is the hard count (status 0 on that plane, what the forward
// transport counts) and the gradient is zero. Muons that stop, leave the
// world or hit the step limit contribute nothing.
//
// Each muon runs the per-muon step (transport_muon: plan_step + finish_step,
// the schedule the CUDA backend runs) with its tangents, keyed by
// (seed, muon id, step) as the forward transport: the result is the same for
// any thread count or batch split. The CPU forward transport runs the same
// steps in SIMD lanes (CpuLaneStepper.hh); the two agree up to float
// rounding, which can flip a rare muon's later bin choice or step count (the
// hard count of the objective then differs from transport()'s by a few).
#pragma once

#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fastmu/core/Parallel.hh"
#include "fastmu/transport/MuonBatch.hh"
#include "fastmu/transport/gradient/FieldTangents.hh"
#include "fastmu/transport/gradient/MuonAdjoint.hh"
#include "fastmu/transport/step/StepPhysics.hh"

namespace fastmu {

// How the gradient is taken: forward-mode tangents, one per parameter
// (FieldTangents.hh, at most kMaxFieldParameters), or the adjoint, one
// backward pass per muon for all parameters (MuonAdjoint.hh, at most
// kMaxAdjointParameters). The two give the same derivative.
enum class GradientMethod { tangent, adjoint };

struct WindowObjectiveOptions {
  double smoothing = 0.05;  // m; 0: the hard count (gradient zero)
  // A muon whose crossing point moves by more than this per unit of a
  // parameter (m; a chaotic path, e.g. a slow muon scattered along faces)
  // contributes nothing to that parameter's gradient. Well-behaved SHiP
  // muons move by at most a few m/T (99.9 % below 10); a path that moves
  // its crossing by 100 m per tesla moves it by metres within a step an
  // optimiser takes, so its tangent says nothing about the objective there,
  // while its weight in a sum is huge (one muon of 10^5 at 212 m/T carried
  // a fifth of a SHiP magnet's gradient: docs/python-and-gradients.md "Gradients").
  double max_tangent = 100.0;
  std::int32_t plane = 0;  // index of the sensitive plane
  bool gradient = true;    // take the gradient
  GradientMethod method = GradientMethod::adjoint;
  // GPU memory for the adjoint's step records [bytes]; the muons that need
  // more go in later chunks (0: half the free memory, at most 8 GiB).
  std::size_t record_bytes = 0;
  bool per_muon = true;        // keep the per-muon arrays of the result (else only the sums)
  int threads = 0;             // CPU threads (0: all)
  std::uint64_t first_id = 0;  // id of row 0 (keys the random numbers)
};

// The totals and, with options.per_muon, the per-muon contributions (rows in
// id order). Totals are summed in a fixed order that does not depend on the
// backend, thread count or launch (objective_block_sum).
struct WindowObjectiveResult {
  std::int32_t n_params = 0;
  double value = 0;                      // sum of w * sigmoid
  double hard = 0;                       // sum of w over the muons inside the window
  std::vector<double> gradient;          // d value / d theta_k
  std::vector<double> muon_value;        // per muon (per_muon only)
  std::vector<double> muon_grad;         // per muon, n_params each (gradient and per_muon only)
  std::vector<std::int32_t> status;      // final status per muon (per_muon only)
  std::vector<std::int32_t> muon_steps;  // steps per muon (per_muon only)
  std::uint64_t steps = 0;
  double seconds = 0;
  // The adjoint's backward passes (muons whose term has a slope), and those
  // left at zero because a GPU replay outgrew its record (none expected:
  // the replay runs the value pass's steps).
  std::uint64_t adjoint_muons = 0;
  std::uint64_t adjoint_lost = 0;
};

namespace detail {

// A finished muon's window term: w sigmoid(d / smoothing) and, for the
// gradient, its slope w sigmoid' / smoothing and the nearest edge (0-3:
// x_min, x_max, y_min, y_max), along whose inward normal d grows.
struct WindowTerm {
  double value = 0.0, hard = 0.0, slope = 0.0;
  int edge = 0;
};

FASTMU_HD FASTMU_FORCEINLINE WindowTerm window_term(const MuonTrack& m, const SensitivePlane& w,
                                                    std::int32_t plane, double smoothing,
                                                    double weight) {
  WindowTerm t;
  const bool crossed = (m.status == static_cast<std::int32_t>(MuonStatus::at_plane) ||
                        m.status == static_cast<std::int32_t>(MuonStatus::outside_window)) &&
                       m.plane == plane;
  if (!crossed) return t;
  if (m.status == static_cast<std::int32_t>(MuonStatus::at_plane)) t.hard = weight;
  if (!(smoothing > 0.0)) {
    t.value = t.hard;
    return t;
  }
  const double x = m.r.x, y = m.r.y;
  const double e[4] = {x - w.x_min, w.x_max - x, y - w.y_min, w.y_max - y};
  for (int j = 1; j < 4; ++j) t.edge = e[j] < e[t.edge] ? j : t.edge;
  const double sig = 1.0 / (1.0 + exp(-e[t.edge] / smoothing));
  t.value = weight * sig;
  t.slope = weight * sig * (1.0 - sig) / smoothing;
  return t;
}

// The change of the distance to edge `edge` for a change dr of the end point.
FASTMU_HD FASTMU_FORCEINLINE double edge_change(int edge, Vec3f dr) {
  const double dx = dr.x, dy = dr.y;
  return edge == 0 ? dx : edge == 1 ? -dx : edge == 2 ? dy : -dy;
}

// The inward normal of edge `edge`: the adjoint's seed at the end point.
FASTMU_HD FASTMU_FORCEINLINE Vec3f edge_normal(int edge) {
  const float s = (edge & 1) ? -1.0f : 1.0f;
  return edge < 2 ? Vec3f{s, 0.0f, 0.0f} : Vec3f{0.0f, s, 0.0f};
}

// A term's gradient from dd/dtheta_k: slope * dd, 0 where |dd| exceeds
// max_tangent (a chaotic path, WindowObjectiveOptions::max_tangent).
FASTMU_HD FASTMU_FORCEINLINE double term_gradient(double slope, double dd, double max_tangent) {
  return fabs(dd) <= max_tangent ? slope * dd : 0.0;
}

// Below this sigmoid' (the muon's end over 27 smoothing lengths from the
// window's edge) a term's slope is left out of the adjoint: its gradient is
// below 1e-12 weight max_tangent / smoothing per parameter.
inline constexpr double kAdjointSlopeFloor = 1e-12;

FASTMU_HD FASTMU_FORCEINLINE bool needs_adjoint(const WindowTerm& t, double weight,
                                                double smoothing) {
  return t.slope > kAdjointSlopeFloor * fabs(weight) / smoothing;
}

// The gradient of a term from the muon's n recorded steps (record_muon),
// by the adjoint: g[k] (n_params of fp) = d term / d theta_k.
template <class Env>
FASTMU_HD void adjoint_term_gradient(const Env& env, const FieldParameterView& fp,
                                     const MuonTrack* rec, std::int32_t n, std::uint64_t id,
                                     const WindowTerm& t, double max_tangent, double* g) {
  for (std::int32_t k = 0; k < fp.n_params; ++k) g[k] = 0.0;
  muon_adjoint(env, fp, rec, n, id, edge_normal(t.edge), g);
  for (std::int32_t k = 0; k < fp.n_params; ++k) g[k] = term_gradient(t.slope, g[k], max_tangent);
}

// Contribution of one finished muon: value, hard count and d value/d theta
// from its forward tangents.
template <class Tangent>
FASTMU_HD FASTMU_FORCEINLINE double window_contribution(const MuonTrack& m, const SensitivePlane& w,
                                                        std::int32_t plane, double smoothing,
                                                        double weight, const Tangent* tan,
                                                        std::int32_t n_params, double& hard,
                                                        double* grad, double max_tangent) {
  for (std::int32_t k = 0; k < n_params; ++k) grad[k] = 0.0;
  const WindowTerm t = window_term(m, w, plane, smoothing, weight);
  hard = t.hard;
  if (tan != nullptr && t.slope > 0.0) {
    for (std::int32_t k = 0; k < n_params; ++k) {
      grad[k] = term_gradient(t.slope, edge_change(t.edge, tan->dr[k]), max_tangent);
    }
  }
  return t.value;
}

// The per-muon columns of an objective pass (host or device memory): what
// the totals are summed from.
struct ObjectiveColumns {
  const double* value = nullptr;
  const double* hard = nullptr;
  const double* grad = nullptr;  // n_params per muon
  const std::int32_t* steps = nullptr;
  std::size_t n = 0;
  std::int32_t n_params = 0;
};

// Muons per partial sum. The totals are sums over consecutive blocks of this
// many muons, each block summed in id order, then the blocks in order: the
// GPU sums its blocks in parallel on the device and the CPU the same way, so
// both give the same totals from the same per-muon values, and nothing but
// the partial sums leaves the GPU.
inline constexpr std::size_t kObjectiveSumBlock = 256;

// The quantities summed per block: value, hard count, steps, then the
// gradient's n_params components.
FASTMU_HD inline std::int32_t objective_sum_quantities(std::int32_t n_params) {
  return 3 + n_params;
}

// Quantity q (objective_sum_quantities) of block b, summed in id order.
FASTMU_HD inline double objective_block_sum(const ObjectiveColumns& c, std::size_t b,
                                            std::int32_t q) {
  const std::size_t begin = b * kObjectiveSumBlock;
  const std::size_t end = begin + kObjectiveSumBlock < c.n ? begin + kObjectiveSumBlock : c.n;
  const std::size_t np = static_cast<std::size_t>(c.n_params);
  double s = 0.0;
  for (std::size_t i = begin; i < end; ++i) {
    s += q == 0   ? c.value[i]
         : q == 1 ? c.hard[i]
         : q == 2 ? static_cast<double>(c.steps[i])
                  : c.grad[i * np + static_cast<std::size_t>(q - 3)];
  }
  return s;
}

inline std::size_t objective_sum_blocks(std::size_t n) {
  return (n + kObjectiveSumBlock - 1) / kObjectiveSumBlock;
}

// A result for n_params parameters with the gradient zeroed, and the
// per-muon arrays for n muons when `per_muon`.
inline WindowObjectiveResult objective_result(std::size_t n, std::int32_t n_params, bool per_muon) {
  WindowObjectiveResult r;
  r.n_params = n_params;
  r.gradient.assign(static_cast<std::size_t>(n_params), 0.0);
  if (per_muon) {
    r.muon_value.assign(n, 0.0);
    r.muon_grad.assign(n * static_cast<std::size_t>(n_params), 0.0);
    r.status.assign(n, 0);
    r.muon_steps.assign(n, 0);
  }
  return r;
}

// The totals from the block partial sums (`partials`: objective_sum_quantities
// per block, blocks in order), added in block order.
inline void sum_objective_partials(WindowObjectiveResult& r, const double* partials,
                                   std::size_t blocks) {
  const std::size_t nq = static_cast<std::size_t>(objective_sum_quantities(r.n_params));
  double steps = 0.0;
  for (std::size_t b = 0; b < blocks; ++b) {
    const double* p = partials + b * nq;
    r.value += p[0];
    r.hard += p[1];
    steps += p[2];
    for (std::size_t k = 0; k + 3 < nq; ++k) r.gradient[k] += p[3 + k];
  }
  r.steps = static_cast<std::uint64_t>(steps);
}

// The totals of per-muon columns on the host (the CPU backend), in the
// order the GPU sums them.
inline void sum_objective(WindowObjectiveResult& r, const ObjectiveColumns& c) {
  const std::size_t blocks = objective_sum_blocks(c.n);
  const std::int32_t nq = objective_sum_quantities(c.n_params);
  std::vector<double> partials(blocks * static_cast<std::size_t>(nq));
  for (std::size_t b = 0; b < blocks; ++b) {
    for (std::int32_t q = 0; q < nq; ++q) {
      partials[b * static_cast<std::size_t>(nq) + static_cast<std::size_t>(q)] =
          objective_block_sum(c, b, q);
    }
  }
  sum_objective_partials(r, partials.data(), blocks);
}

}  // namespace detail

// The objective over the muons of `in` in the environment `env` (a
// TransportView or a test's toy), with the tangents of `fp` when
// options.gradient.
template <class Env>
WindowObjectiveResult window_objective_cpu(const Env& env, const FieldParameterView& fp,
                                           const MuonBatch& in,
                                           const WindowObjectiveOptions& options) {
  const std::size_t n = in.size();
  const std::int32_t n_params = options.gradient ? fp.n_params : 0;
  WindowObjectiveResult r = detail::objective_result(n, n_params, true);
  const std::size_t np = static_cast<std::size_t>(n_params);
  std::vector<double> hard(n, 0.0);
  const SensitivePlane window = env.planes[options.plane];
  const bool adjoint = options.gradient && options.method == GradientMethod::adjoint;
  std::atomic<std::uint64_t> adjoint_muons{0};
  parallel_for_chunks(n, options.threads, 256, [&](std::size_t begin, std::size_t end) {
    FieldTangents tan;
    std::vector<MuonTrack> rec;
    for (std::size_t i = begin; i < end; ++i) {
      MuonTrack m = make_track(in, i, env.options, options.first_id);
      const std::uint64_t id = options.first_id + i;
      double* g = r.muon_grad.data() + i * np;
      if (adjoint) {
        rec.clear();
        record_muon(env, m, id, [&](std::int32_t, const MuonTrack& at) { rec.push_back(at); });
        const detail::WindowTerm t =
            detail::window_term(m, window, options.plane, options.smoothing, in.weight[i]);
        r.muon_value[i] = t.value;
        hard[i] = t.hard;
        if (detail::needs_adjoint(t, in.weight[i], options.smoothing)) {
          adjoint_muons.fetch_add(1, std::memory_order_relaxed);
          detail::adjoint_term_gradient(env, fp, rec.data(), static_cast<std::int32_t>(rec.size()),
                                        id, t, options.max_tangent, g);
        }
      } else {
        double grad[kMaxFieldParameters];
        if (options.gradient) {
          tan.reset(fp);
          transport_muon(env, m, id, tan);
        } else {
          transport_muon(env, m, id);
        }
        r.muon_value[i] = detail::window_contribution(
            m, window, options.plane, options.smoothing, in.weight[i],
            options.gradient ? &tan : nullptr, n_params, hard[i], grad, options.max_tangent);
        for (std::size_t k = 0; k < np; ++k) g[k] = grad[k];
      }
      r.status[i] = m.status;
      r.muon_steps[i] = m.steps;
    }
  });
  r.adjoint_muons = adjoint_muons.load();
  detail::sum_objective(
      r, {r.muon_value.data(), hard.data(), r.muon_grad.data(), r.muon_steps.data(), n, n_params});
  if (!options.per_muon) {
    r.muon_value = {}, r.muon_grad = {}, r.status = {}, r.muon_steps = {};
  }
  return r;
}

}  // namespace fastmu
