#include "fastmu/transport/gradient/Objective.hh"

#include <fmt/format.h>

#include "fastmu/core/Error.hh"
#include "fastmu/core/Timing.hh"
#include "fastmu/transport/cuda/CudaSession.hh"
#include "fastmu/transport/cuda/CudaTransport.hh"

namespace fastmu {

namespace {

void check(const TransportParams& params, const FieldParameters& fp,
           const WindowObjectiveOptions& options) {
  const std::size_t nv = params.geometry().volumes().size();
  if (fp.n_params < 0 || fp.n_params > kMaxFieldParameters) {
    throw Error(fmt::format("objective: {} field parameters (at most {})", fp.n_params,
                            kMaxFieldParameters));
  }
  const std::size_t table = nv * static_cast<std::size_t>(fp.n_params);
  if ((!fp.dfield.empty() && fp.dfield.size() != table) ||
      (!fp.dshape.empty() && fp.dshape.size() != table)) {
    throw Error(
        fmt::format("objective: parameter tables of {} and {} entries for {} volumes and "
                    "{} parameters (expected {} each)",
                    fp.dfield.size(), fp.dshape.size(), nv, fp.n_params, table));
  }
  if (fp.dfield.empty() && (fp.volume_param.size() != nv || fp.volume_dfield.size() != nv)) {
    throw Error(fmt::format("objective: field parameters given for {} volumes, the geometry has {}",
                            fp.volume_param.size(), nv));
  }
  if (!fp.volume_field.empty() && fp.volume_field.size() != nv) {
    throw Error(fmt::format("objective: fields given for {} volumes, the geometry has {}",
                            fp.volume_field.size(), nv));
  }
  for (std::size_t v = 0; v < fp.volume_param.size() && fp.dfield.empty(); ++v) {
    if (fp.volume_param[v] < -1 || fp.volume_param[v] >= fp.n_params) {
      throw Error(fmt::format("objective: volume {} depends on parameter {} of {}", v,
                              fp.volume_param[v], fp.n_params));
    }
  }
  const auto n_planes = static_cast<std::int32_t>(params.geometry().sensitive_planes().size());
  if (options.plane < 0 || options.plane >= n_planes) {
    throw Error(fmt::format("objective: plane {} of a geometry with {} sensitive planes",
                            options.plane, n_planes));
  }
  if (!(fp.cosine_softening >= 0) || !std::isfinite(fp.cosine_softening)) {
    throw Error(fmt::format("objective: boundary softening {} is not a non-negative number",
                            fp.cosine_softening));
  }
  if (!(options.smoothing >= 0) || !std::isfinite(options.smoothing)) {
    throw Error(
        fmt::format("objective: smoothing {} m is not a non-negative length", options.smoothing));
  }
}

}  // namespace

namespace {

// The records of the geometry's volumes with the fields of `fp` (a design with
// new field values on the same shapes), or none when `fp` keeps the geometry's.
std::vector<VolumeRecord> records_with_fields(const GeometryView& g, const FieldParameters& fp) {
  std::vector<VolumeRecord> records;
  if (fp.volume_field.empty()) return records;
  records.assign(g.volumes, g.volumes + g.num_volumes);
  for (std::size_t v = 0; v < records.size(); ++v) records[v].field = fp.volume_field[v];
  return records;
}

// The table dB_v/dtheta_k of `fp` (FieldParameterView::dfield).
std::vector<Vec3f> dense_dfield(const FieldParameters& fp, std::size_t nv) {
  if (!fp.dfield.empty()) return fp.dfield;
  const auto np = static_cast<std::size_t>(fp.n_params);
  std::vector<Vec3f> d(nv * np);
  for (std::size_t v = 0; v < nv; ++v) {
    if (fp.volume_param[v] >= 0)
      d[v * np + static_cast<std::size_t>(fp.volume_param[v])] = fp.volume_dfield[v];
  }
  return d;
}

// The view of `fp` with its field table `dfield` over the geometry `g`.
FieldParameterView parameter_view(const FieldParameters& fp, const std::vector<Vec3f>& dfield,
                                  const GeometryView& g) {
  FieldParameterView view;
  view.n_params = fp.n_params;
  view.n_volumes = static_cast<std::int32_t>(g.num_volumes);
  view.dfield = dfield.data();
  view.dshape = fp.dshape.empty() ? nullptr : fp.dshape.data();
  view.volumes = g.volumes;
  view.arb8s = g.arb8s;
  view.cosine_softening = fp.cosine_softening;
  return view;
}

// One pass on the current GPU: the params' resident views (uploaded once per
// params, CudaSession.hh), this design's fields and field parameters copied
// over (a few kB), the muons into the GPU's kept buffers.
WindowObjectiveResult objective_on_gpu(const TransportParams& params, const FieldParameters& fp,
                                       const cuda::ObjectiveMuonsIn& in,
                                       const WindowObjectiveOptions& options) {
  const ResidentGpus resident(params, {cuda::current_device()});
  const cuda::GpuTarget& gpu = resident.targets()[0];
  TransportView dv = *gpu.view;
  cuda::DeviceArena arena;
  const std::vector<VolumeRecord> records = records_with_fields(params.geometry().host_view(), fp);
  if (!records.empty()) dv.geometry.volumes = arena.copy(records.data(), records.size());
  const std::vector<Vec3f> dfield = dense_dfield(fp, params.geometry().volumes().size());
  FieldParameterView dfp = parameter_view(fp, dfield, dv.geometry);
  if (!dfield.empty()) dfp.dfield = arena.copy(dfield.data(), dfield.size());
  if (!fp.dshape.empty()) dfp.dshape = arena.copy(fp.dshape.data(), fp.dshape.size());
  return cuda::window_objective(dv, dfp, in, options, *gpu.streams);
}

}  // namespace

WindowObjectiveResult window_objective(const TransportParams& params, const MuonBatch& in,
                                       const FieldParameters& fp,
                                       const WindowObjectiveOptions& options, Backend backend) {
  check(params, fp, options);
  backend = resolve_backend(backend);
  const auto t0 = SteadyClock::now();
  WindowObjectiveResult r;
  if (backend == Backend::cuda) {
    cuda::ObjectiveMuonsIn muons;
    muons.host = &in;
    r = objective_on_gpu(params, fp, muons, options);
  } else {
    HostTransportView host(params);
    const std::vector<VolumeRecord> records = records_with_fields(host.view.geometry, fp);
    if (!records.empty()) host.view.geometry.volumes = records.data();
    const std::vector<Vec3f> dfield = dense_dfield(fp, params.geometry().volumes().size());
    r = window_objective_cpu(host.view, parameter_view(fp, dfield, host.view.geometry), in,
                             options);
  }
  r.seconds = seconds_since(t0);
  return r;
}

WindowObjectiveResult window_objective_on_device(const TransportParams& params, const float* rows,
                                                 std::size_t n, int ncol, const FieldParameters& fp,
                                                 const WindowObjectiveOptions& options,
                                                 void* stream) {
  check(params, fp, options);
  resolve_backend(Backend::cuda);  // a clear error without CUDA or a GPU
  const auto t0 = SteadyClock::now();
  cuda::ObjectiveMuonsIn muons;
  muons.rows = rows, muons.n = n, muons.ncol = ncol, muons.stream = stream;
  WindowObjectiveResult r = objective_on_gpu(params, fp, muons, options);
  r.seconds = seconds_since(t0);
  return r;
}

}  // namespace fastmu
