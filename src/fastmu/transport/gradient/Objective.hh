// The window objective of WindowObjective.hh over a TransportParams, with
// field parameters owned on the host, on the CPU or the GPU.
#pragma once

#include <cstdint>
#include <vector>

#include "fastmu/core/Vec3.hh"
#include "fastmu/transport/Transport.hh"
#include "fastmu/transport/TransportParams.hh"
#include "fastmu/transport/gradient/WindowObjective.hh"

namespace fastmu {

// The parameters of a geometry, owned on the host: per volume the parameter
// its field depends on (-1: none) and dB/dtheta, or instead the whole table
// `dfield` (n_volumes * n_params: a field may depend on several, as a SHiP
// yoke's on B and the dimensions of its dilution); optionally how each
// parameter moves each ARB8's vertices (`dshape`, n_volumes * n_params in
// Arb8Shape's vertex order: shape parameters), and the fields to transport
// with instead of the geometry's (a design with new field values on the same
// shapes: no new geometry, grid or tables).
struct FieldParameters {
  std::int32_t n_params = 0;
  std::vector<std::int32_t> volume_param;
  std::vector<Vec3f> volume_dfield;
  std::vector<Vec3f> dfield;        // non-empty: supersedes volume_param and volume_dfield
  std::vector<Arb8Tangent> dshape;  // empty: no shape parameters
  std::vector<Vec3f> volume_field;  // empty: the geometry's own fields
  float cosine_softening = 0.0f;    // FieldParameterView::cosine_softening
};

// The objective and (options.gradient) its gradient for the muons of `in`
// through `params` (CPU: all threads; CUDA: one GPU, when built and
// requested or chosen by `automatic`). Throws fastmu::Error for more than
// kMaxAdjointParameters parameters (kMaxFieldParameters with forward
// tangents), arrays that do not match the geometry's
// volumes, a bad plane index or a negative smoothing.
//
// On the GPU the geometry and tables stay resident between calls with the
// same params (CudaSession.hh), as for transport(), and so do the device
// buffers of the muons: a repeated call (an optimiser's next design) copies
// the muons in and the block partial sums out, nothing else.
WindowObjectiveResult window_objective(const TransportParams& params, const MuonBatch& in,
                                       const FieldParameters& fp,
                                       const WindowObjectiveOptions& options,
                                       Backend backend = Backend::automatic);

// The same on the current GPU for muons that live in GPU memory (row-major
// (n, ncol) float32, ncol 7 or 8: px,py,pz,x,y,z,pdg[,weight], as
// transport_on_device), on `stream` (a cudaStream_t; nullptr: the default
// stream). The muons are never copied through host memory. Throws
// fastmu::Error when this build has no CUDA or no GPU is visible.
WindowObjectiveResult window_objective_on_device(const TransportParams& params, const float* rows,
                                                 std::size_t n, int ncol, const FieldParameters& fp,
                                                 const WindowObjectiveOptions& options,
                                                 void* stream = nullptr);

}  // namespace fastmu
