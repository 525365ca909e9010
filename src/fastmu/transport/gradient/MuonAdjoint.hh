// Reverse-mode (adjoint) derivatives of one muon's window term with respect
// to every parameter at once, host and device.
//
// Forward mode (FieldTangents.hh) carries one tangent per parameter through
// every step: its cost grows with the parameters (a SHiP shield has 105). The
// muon's term depends on its end point through one number, the distance to
// the window's nearest edge, so the adjoint runs backwards instead: with
// lambda_N the derivative of that distance with respect to the end state
// (r, p), each step s from the last back to the first gives
//     dd/dtheta_k += lambda_s . S_{s,k},   lambda_{s-1} = J_s^T lambda_s,
// J_s and S_s the step's Jacobian and sources (StepJacobian.hh), recomputed
// from the state the forward pass recorded before the step (the step is a
// deterministic function of that state and (seed, id, step index)). One
// backward pass costs about a forward pass with eleven tangents, for any
// number of parameters, and only muons whose term has a slope need it.
// The result is forward mode's, the same derivative taken in the other order.
#pragma once

#include <cstdint>

#include "fastmu/core/Macros.hh"
#include "fastmu/transport/gradient/StepJacobian.hh"
#include "fastmu/transport/step/StepPhysics.hh"

namespace fastmu {

// The most parameters the adjoint differentiates with respect to at once
// (a 16-magnet shield's 15 columns each).
inline constexpr std::int32_t kMaxAdjointParameters = 256;

// Transports `m` to its end, passing its state before each step to
// keep(step index, state); returns the number of steps taken.
template <class Env, class Keep>
FASTMU_HD std::int32_t record_muon(const Env& env, MuonTrack& m, std::uint64_t id, Keep&& keep) {
  std::int32_t n = 0;
  while (m.status == static_cast<std::int32_t>(MuonStatus::alive)) {
    keep(n++, m);
    transport_step(env, m, id);
  }
  return n;
}

// The backward pass over the n recorded steps of muon `id`: adds
// d(lambda_end . r_end)/dtheta_k to g[k] (fp.n_params entries), lambda_end
// a direction of the end position (the window edge's normal).
template <class Env>
FASTMU_HD void muon_adjoint(const Env& env, const FieldParameterView& fp, const MuonTrack* rec,
                            std::int32_t n, std::uint64_t id, Vec3f lambda_end, double* g) {
  Vec3f lr = lambda_end, lp{};
  StepJacobian jac;
  for (std::int32_t s = n - 1; s >= 0; --s) {
    MuonTrack m = rec[s];
    jac.reset(fp);
    transport_step(env, m, id, jac);
    float mu[kStepColumns];
    for (std::int32_t c = 0; c < kStepColumns; ++c) mu[c] = dot(lr, jac.dr[c]) + dot(lp, jac.dp[c]);
    add_step_sources(fp, jac.columns, mu + kFieldColumn, g);
    lr = {mu[0], mu[1], mu[2]};
    lp = {mu[3], mu[4], mu[5]};
    if (is_zero(lr) && is_zero(lp)) break;  // nothing earlier reaches the end
  }
}

}  // namespace fastmu
