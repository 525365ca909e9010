// The window objective's kernels (WindowObjective.hh), each behind a host
// launcher: the per-muon pass with or without tangents, the block partial
// sums, and the unpacking of device rows into the pass's columns. Defined in
// ObjectiveKernels.cu.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "fastmu/transport/TransportView.hh"
#include "fastmu/transport/cuda/MuonQueue.cuh"
#include "fastmu/transport/gradient/WindowObjective.hh"

namespace fastmu::cuda {

// The per-muon columns of a pass: the muon in, its contribution out.
struct ObjectiveMuons {
  const float *x, *y, *z, *px, *py, *pz;
  const std::int32_t* pdg;
  const double* weight;
  double *value, *hard, *grad;
  std::int32_t *status, *steps;
};

// What a pass computes besides the muons: the options of window_objective.
struct ObjectivePass {
  std::uint64_t first_id;
  std::int32_t plane;
  double smoothing, max_tangent;
  bool gradient;  // carry the tangents of fp's parameters
};

// Steps of room beyond the value pass's count in a muon's replay record
// (the replay runs the same step in another kernel).
inline constexpr std::int32_t kReplayMargin = 64;

// Each muon of the queue with (pass.gradient) or without its tangents, then
// its contribution to the objective.
void launch_objective(const TransportView& view, const FieldParameterView& fp,
                      const ObjectiveMuons& m, const MuonQueue& queue, const ObjectivePass& pass,
                      cudaStream_t stream);

// The block partial sums of a pass (detail::objective_block_sum, the same
// order as on the CPU) into `partials`.
void launch_objective_sums(const detail::ObjectiveColumns& c, std::size_t blocks, double* partials,
                           cudaStream_t stream);

// The muons whose window term needs the adjoint (detail::needs_adjoint,
// from a value pass's columns): their indices into `list` and their step
// counts plus a margin into `caps`, in any order; their number in `count`.
void launch_adjoint_selection(const ObjectiveMuons& m, std::size_t n, double smoothing,
                              std::uint32_t* list, std::int32_t* caps, unsigned long long* count,
                              cudaStream_t stream);

// The adjoint of the muons list[k0 .. k1): each replays its transport,
// recording its steps at rec + offsets[k] - offsets[k0] (offsets[k + 1] -
// offsets[k] of them at most), and runs its backward pass into its row of
// m.grad (zeroed before). A muon whose replay takes more steps than its room
// is counted in `lost` and keeps a zero row. `next` is zero at launch.
void launch_adjoint(const TransportView& view, const FieldParameterView& fp,
                    const ObjectiveMuons& m, const std::uint32_t* list,
                    const std::uint64_t* offsets, std::size_t k0, std::size_t k1, MuonTrack* rec,
                    unsigned long long* next, unsigned long long* lost, const ObjectivePass& pass,
                    cudaStream_t stream);

// n device rows (px,py,pz,x,y,z,pdg[,weight], `ncol` 7 or 8) into a pass's
// input columns (a weight of 1 for 7 columns).
void launch_unpack_rows(const float* rows, std::size_t n, int ncol, float* x, float* y, float* z,
                        float* px, float* py, float* pz, std::int32_t* pdg, double* weight,
                        cudaStream_t stream);

}  // namespace fastmu::cuda
