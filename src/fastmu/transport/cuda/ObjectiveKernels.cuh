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

// Each muon of the queue with (pass.gradient) or without its tangents, then
// its contribution to the objective.
void launch_objective(const TransportView& view, const FieldParameterView& fp,
                      const ObjectiveMuons& m, const MuonQueue& queue, const ObjectivePass& pass,
                      cudaStream_t stream);

// The block partial sums of a pass (detail::objective_block_sum, the same
// order as on the CPU) into `partials`.
void launch_objective_sums(const detail::ObjectiveColumns& c, std::size_t blocks, double* partials,
                           cudaStream_t stream);

// n device rows (px,py,pz,x,y,z,pdg[,weight], `ncol` 7 or 8) into a pass's
// input columns (a weight of 1 for 7 columns).
void launch_unpack_rows(const float* rows, std::size_t n, int ncol, float* x, float* y, float* z,
                        float* px, float* py, float* pz, std::int32_t* pdg, double* weight,
                        cudaStream_t stream);

}  // namespace fastmu::cuda
