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
  const bool tangents = options.gradient && options.method == GradientMethod::tangent;
  const std::int32_t most = tangents ? kMaxFieldParameters : kMaxAdjointParameters;
  if (fp.n_params < 0 || fp.n_params > most) {
    throw Error(fmt::format("objective: {} field parameters (at most {}{})", fp.n_params, most,
                            tangents ? " with forward tangents; the adjoint takes more" : ""));
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

// The host tables behind a FieldParameterView: the dense dB_v/dtheta_k,
// the volumes' dependence classes and the sparse rows (FieldParameterView).
struct ParameterTables {
  std::vector<Vec3f> dfield;
  std::vector<std::int32_t> dependence;
  std::vector<std::int32_t> entry_begin;
  std::vector<ParameterEntry> entries;
};

bool is_zero_tangent(const Arb8Tangent& t) {
  for (int i = 0; i < 4; ++i) {
    if (t.x_lo[i] != 0 || t.y_lo[i] != 0 || t.x_hi[i] != 0 || t.y_hi[i] != 0) return false;
  }
  return t.z_lo == 0 && t.z_hi == 0;
}

ParameterTables parameter_tables(const FieldParameters& fp, std::size_t nv) {
  ParameterTables t;
  const auto np = static_cast<std::size_t>(fp.n_params);
  if (!fp.dfield.empty()) {
    t.dfield = fp.dfield;
  } else {
    t.dfield.assign(nv * np, Vec3f{});
    for (std::size_t v = 0; v < nv; ++v) {
      if (fp.volume_param[v] >= 0)
        t.dfield[v * np + static_cast<std::size_t>(fp.volume_param[v])] = fp.volume_dfield[v];
    }
  }
  // Classes of equal field rows (0: the zero row, as the world region's).
  auto row_equal = [&](std::size_t a, const Vec3f* b) {
    for (std::size_t k = 0; k < np; ++k) {
      const Vec3f x = t.dfield[a * np + k], y = b ? b[k] : Vec3f{};
      if (x.x != y.x || x.y != y.y || x.z != y.z) return false;
    }
    return true;
  };
  t.dependence.assign(nv, 0);
  std::vector<std::size_t> first;  // a volume of each class from 1
  for (std::size_t v = 0; v < nv; ++v) {
    if (row_equal(v, nullptr)) continue;
    std::size_t c = 0;
    while (c < first.size() && !row_equal(v, t.dfield.data() + first[c] * np)) ++c;
    if (c == first.size()) first.push_back(v);
    t.dependence[v] = static_cast<std::int32_t>(c + 1);
  }
  t.entry_begin.assign(nv + 1, 0);
  for (std::size_t v = 0; v < nv; ++v) {
    for (std::size_t k = 0; k < np; ++k) {
      const Vec3f d = t.dfield[v * np + k];
      const Arb8Tangent s = fp.dshape.empty() ? Arb8Tangent{} : fp.dshape[v * np + k];
      if (!is_zero(d) || !is_zero_tangent(s)) {
        t.entries.push_back({static_cast<std::int32_t>(k), d, s});
      }
    }
    t.entry_begin[v + 1] = static_cast<std::int32_t>(t.entries.size());
  }
  return t;
}

// The view of `fp` with its tables `t` over the geometry `g`.
FieldParameterView parameter_view(const FieldParameters& fp, const ParameterTables& t,
                                  const GeometryView& g) {
  FieldParameterView view;
  view.n_params = fp.n_params;
  view.n_volumes = static_cast<std::int32_t>(g.num_volumes);
  view.dfield = t.dfield.data();
  view.dshape = fp.dshape.empty() ? nullptr : fp.dshape.data();
  view.volumes = g.volumes;
  view.arb8s = g.arb8s;
  view.dependence = t.dependence.data();
  view.entry_begin = t.entry_begin.data();
  view.entries = t.entries.data();
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
  const ParameterTables t = parameter_tables(fp, params.geometry().volumes().size());
  FieldParameterView dfp = parameter_view(fp, t, dv.geometry);
  if (!t.dfield.empty()) dfp.dfield = arena.copy(t.dfield.data(), t.dfield.size());
  if (!fp.dshape.empty()) dfp.dshape = arena.copy(fp.dshape.data(), fp.dshape.size());
  dfp.dependence = arena.copy(t.dependence.data(), t.dependence.size());
  dfp.entry_begin = arena.copy(t.entry_begin.data(), t.entry_begin.size());
  dfp.entries = arena.copy(t.entries.data(), t.entries.size());
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
    const ParameterTables t = parameter_tables(fp, params.geometry().volumes().size());
    const FieldParameterView fpv = parameter_view(fp, t, host.view.geometry);
    r = with_field_step_features(host.view.features, [&](auto features) {
      constexpr unsigned kF = decltype(features)::value;
      return window_objective_cpu(TransportViewFor<kF>(host.view), fpv, in, options);
    });
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
