#include "fastmu/transport/Objective.hh"

#include <chrono>

#include <fmt/format.h>

#include "fastmu/core/Error.hh"

namespace fastmu {

namespace {

void check(const TransportParams& params, const FieldParameters& fp,
           const WindowObjectiveOptions& options) {
  const std::size_t nv = params.geometry().volumes().size();
  if (fp.n_params < 0 || fp.n_params > kMaxFieldParameters) {
    throw Error(fmt::format("objective: {} field parameters (at most {})", fp.n_params,
                            kMaxFieldParameters));
  }
  if (fp.volume_param.size() != nv || fp.volume_dfield.size() != nv ||
      (!fp.volume_field.empty() && fp.volume_field.size() != nv)) {
    throw Error(fmt::format("objective: field parameters given for {} volumes, the geometry has {}",
                            fp.volume_param.size(), nv));
  }
  for (std::size_t v = 0; v < nv; ++v) {
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

WindowObjectiveResult window_objective(const TransportParams& params, const MuonBatch& in,
                                       const FieldParameters& fp,
                                       const WindowObjectiveOptions& options, Backend backend) {
  check(params, fp, options);
  backend = resolve_backend(backend);
  const auto t0 = std::chrono::steady_clock::now();
  HostTransportView host(params);
  // New field values on the same shapes: a copy of the volume records.
  std::vector<VolumeRecord> records;
  if (!fp.volume_field.empty()) {
    const GeometryView& g = host.view.geometry;
    records.assign(g.volumes, g.volumes + g.num_volumes);
    for (std::size_t v = 0; v < records.size(); ++v) records[v].field = fp.volume_field[v];
    host.view.geometry.volumes = records.data();
  }
  FieldParameterView view;
  view.n_params = fp.n_params;
  view.volume_param = fp.volume_param.data();
  view.volume_dfield = fp.volume_dfield.data();
  view.n_volumes = static_cast<std::int32_t>(fp.volume_param.size());
  view.cosine_softening = fp.cosine_softening;
  WindowObjectiveResult r;
  if (backend == Backend::cuda) {
    // One GPU (the current one): the views and the field parameters copied over.
    cuda::DeviceArena arena;
    auto copy = [&](const auto* p, std::size_t k) { return arena.copy(p, k); };
    std::vector<MaterialTableView> table_views;
    TransportView dv = params.make_view(copy, table_views);
    if (!records.empty()) dv.geometry.volumes = arena.copy(records.data(), records.size());
    FieldParameterView dfp = view;
    if (view.n_volumes > 0) {
      dfp.volume_param = arena.copy(fp.volume_param.data(), fp.volume_param.size());
      dfp.volume_dfield = arena.copy(fp.volume_dfield.data(), fp.volume_dfield.size());
    }
    r = cuda::window_objective(dv, dfp, in, options);
  } else {
    r = window_objective_cpu(host.view, view, in, options);
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace fastmu
