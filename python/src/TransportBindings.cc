// fastmu.transport (the C++ half; python/fastmu/transport.py is the front):
// an (N, 8) array in, a dict of NumPy arrays out, with the GIL released while
// the muons fly. One copy in (array -> MuonBatch, on all cores); out, the
// result's vectors are handed to NumPy as they are (all=True, or the rows at
// a plane that the transport kept) or filtered once (a field map's run).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>
#include <nlohmann/json.hpp>

#include "Bindings.hh"
#include "GeometryHandle.hh"
#include "TransportSupport.hh"
#include "fastmu/core/Error.hh"
#include "fastmu/core/Parallel.hh"
#include "fastmu/field/FieldMapParams.hh"
#include "fastmu/tables/TableCache.hh"
#include "fastmu/transport/MuonRowCheck.hh"
#include "fastmu/transport/StepOptionsCheck.hh"
#include "fastmu/transport/Transport.hh"
#include "fastmu/transport/cuda/CudaSession.hh"
#include "fastmu/transport/cuda/CudaTransport.hh"
#include "fastmu/transport/cuda/ResultColumns.hh"
#include "fastmu/transport/detailed/DetailedTransport.hh"
#include "fastmu/transport/examples/Examples.hh"
#include "fastmu/transport/gradient/Objective.hh"
#include "fastmu/transport/stream/MuonIO.hh"

namespace fastmu::python {

namespace {

// %g-style, without Python objects (called with the GIL released).
// (N, 7|8) rows px,py,pz,x,y,z,pdg[,weight] -> MuonBatch, each row checked
// as a file's (MuonRowCheck.hh) against `limits`.
template <class T>
MuonBatch batch_from_array(const CArray<T>& a, const MuonRowLimits& limits) {
  if (a.ndim() != 2 || (a.shape(1) != 7 && a.shape(1) != 8)) {
    std::string shape;
    for (py::ssize_t i = 0; i < a.ndim(); ++i)
      shape += (i ? ", " : "") + std::to_string(a.shape(i));
    throw Error(
        "muons: expected an (N, 8) array px,py,pz,x,y,z,pdg,weight (or (N, 7) without "
        "weight), got shape (" +
        shape + ")");
  }
  const std::size_t n = static_cast<std::size_t>(a.shape(0));
  const std::size_t ncol = static_cast<std::size_t>(a.shape(1));
  const T* d = a.data();
  py::gil_scoped_release release;  // `a` keeps the buffer alive; no Python objects below
  auto row_values = [&](std::size_t i, double v[8]) {
    const T* row = d + i * ncol;
    for (std::size_t k = 0; k < 8; ++k) v[k] = k < ncol ? static_cast<double>(row[k]) : 1.0;
  };
  // Checked and converted on all cores: a loop of calls (an optimiser) pays
  // this for every batch. The first bad row is the one reported, whatever
  // the threads.
  const std::size_t bad = first_index_where(n, 0, [&](std::size_t i) {
    double v[8];
    row_values(i, v);
    return !muon_row_ok(v, limits.p_max);
  });
  if (bad < n) {
    double v[8];
    row_values(bad, v);
    throw Error("muons: row " + std::to_string(bad) + ", " + muon_row_problem(v, limits));
  }
  MuonBatch b;
  size_batch_columns(b, n);
  parallel_for_chunks(n, 0, std::size_t(1) << 16, [&](std::size_t i0, std::size_t i1) {
    for (std::size_t i = i0; i < i1; ++i) {
      const T* row = d + i * ncol;
      b.px[i] = static_cast<float>(row[0]), b.py[i] = static_cast<float>(row[1]);
      b.pz[i] = static_cast<float>(row[2]);
      b.x[i] = static_cast<float>(row[3]), b.y[i] = static_cast<float>(row[4]);
      b.z[i] = static_cast<float>(row[5]);
      b.pdg[i] = static_cast<std::int32_t>(row[6]);
      b.weight[i] = ncol == 8 ? static_cast<double>(row[7]) : 1.0;
    }
  });
  return b;
}

MuonBatch batch_from_any(const py::array& a, const MuonRowLimits& limits) {
  if (a.dtype().is(py::dtype::of<float>())) {
    return batch_from_array<float>(a.cast<CArray<float>>(), limits);
  }
  return batch_from_array<double>(a.cast<CArray<double>>(), limits);
}

// fastmu::transport, or the same steps with the field map replaced.
// `rows`: at_plane compacts on the GPU (only those rows come back) or in
// place on the CPU; with a field map every row comes back.
TransportResult run(const TransportParams& params, const MuonBatch& in, Backend backend,
                    int threads, int gpus, const FieldMapParams* field_map, std::uint64_t first_id,
                    ResultRows rows) {
  if (field_map == nullptr) {
    return transport(params, in, backend, threads, first_id, nullptr, gpus, rows);
  }
  backend = resolve_backend(backend);
  if (backend == Backend::cuda) {
    cuda::DeviceArena arena;
    auto copy = [&](const auto* p, std::size_t n) { return arena.copy(p, n); };
    std::vector<MaterialTableView> table_views;
    const TransportView view = params.make_view(copy, table_views, field_map);
    return cuda::transport(view, in, first_id);
  }
  const HostTransportView host(params, field_map);
  return transport_cpu_view(host.view, in, threads, first_id);
}

// The step options of a Python call, checked as the command line checks them.
StepOptions step_options(double step, std::uint64_t seed, double p_kill, long long max_steps,
                         int long_steps = kDefaultLongSteps, bool decay = StepSettings{}.decay) {
  return checked_step_options({step, p_kill, max_steps, seed, long_steps, decay});
}

// cache: True (default folder), False (no cache) or a folder.
CacheChoice cache_choice(const py::object& cache) {
  CacheChoice c;
  if (py::isinstance<py::bool_>(cache)) {
    c.enabled = cache.cast<bool>();
  } else if (!cache.is_none()) {
    c.dir = cache.cast<std::filesystem::path>();
  }
  return c;
}

py::dict result_to_dict(TransportResult&& r, bool all, bool with_plane) {
  const std::size_t n = r.size();
  py::dict out;
  MuonBatch& m = r.muons;
  const auto at_plane = static_cast<std::int32_t>(MuonStatus::at_plane);
  // Rows already kept (compacted by the transport): handed over as they are.
  const bool kept_only =
      !all && std::all_of(r.status.begin(), r.status.end(), [&](auto s) { return s == at_plane; });
  if (all || kept_only) {
    const std::vector<py::ssize_t> shape{static_cast<py::ssize_t>(n)};
    if (r.id.size() == n && n > 0) {
      out["id"] = adopt_vector(std::move(r.id), shape);
    } else {
      py::array_t<std::int64_t> id(static_cast<py::ssize_t>(n));
      auto* p = id.mutable_data();
      for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<std::int64_t>(r.id_of(i));
      out["id"] = id;
    }
    out["px"] = adopt_vector(std::move(m.px), shape);
    out["py"] = adopt_vector(std::move(m.py), shape);
    out["pz"] = adopt_vector(std::move(m.pz), shape);
    out["x"] = adopt_vector(std::move(m.x), shape);
    out["y"] = adopt_vector(std::move(m.y), shape);
    out["z"] = adopt_vector(std::move(m.z), shape);
    out["pdg"] = adopt_vector(std::move(m.pdg), shape);
    out["weight"] = adopt_vector(std::move(m.weight), shape);
    out["status"] = adopt_vector(std::move(r.status), shape);
    if (with_plane) out["plane"] = adopt_vector(std::move(r.plane), shape);
    // Steps taken per muon (where the transport spends its time).
    if (all && r.steps.size() == n) out["steps"] = adopt_vector(std::move(r.steps), shape);
    return out;
  }
  const auto k = static_cast<py::ssize_t>(std::count(r.status.begin(), r.status.end(), at_plane));
  py::array_t<std::int64_t> id(k);
  py::array_t<float> px(k), py_(k), pz(k), x(k), y(k), z(k);
  py::array_t<std::int32_t> pdg(k), status(k), plane(k);
  py::array_t<double> weight(k);
  auto* o_id = id.mutable_data();
  auto *o_px = px.mutable_data(), *o_py = py_.mutable_data(), *o_pz = pz.mutable_data();
  auto *o_x = x.mutable_data(), *o_y = y.mutable_data(), *o_z = z.mutable_data();
  auto *o_pdg = pdg.mutable_data(), *o_status = status.mutable_data(),
       *o_plane = plane.mutable_data();
  auto* o_w = weight.mutable_data();
  py::ssize_t j = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (r.status[i] != at_plane) continue;
    o_id[j] = static_cast<std::int64_t>(r.id_of(i));
    o_px[j] = m.px[i], o_py[j] = m.py[i], o_pz[j] = m.pz[i];
    o_x[j] = m.x[i], o_y[j] = m.y[i], o_z[j] = m.z[i];
    o_pdg[j] = m.pdg[i], o_w[j] = m.weight[i], o_status[j] = r.status[i], o_plane[j] = r.plane[i];
    ++j;
  }
  out["id"] = id;
  out["px"] = px, out["py"] = py_, out["pz"] = pz;
  out["x"] = x, out["y"] = y, out["z"] = z;
  out["pdg"] = pdg, out["weight"] = weight, out["status"] = status;
  if (with_plane) out["plane"] = plane;
  return out;
}

// Rows in GPU memory are checked there (cuda::first_bad_row); a bad one is
// copied back to name it.
void check_device_rows(const float* rows, std::size_t n, int ncol, const MuonRowLimits& limits,
                       void* stream) {
  const std::size_t bad = cuda::first_bad_row(rows, n, ncol, limits.p_max, stream);
  if (bad >= n) return;
  float row[8] = {0, 0, 0, 0, 0, 0, 0, 1};
  cuda::copy_to_host(row, rows + bad * static_cast<std::size_t>(ncol),
                     static_cast<std::size_t>(ncol) * sizeof(float), stream);
  double v[8];
  for (int k = 0; k < 8; ++k) v[k] = row[k];
  throw Error("muons: row " + std::to_string(bad) + ", " + muon_row_problem(v, limits));
}

// fastmu.read_muons: a muon file as an (N, 8) float64 array.
auto read_muons_array(const std::filesystem::path& path) {
  MuonBatch b;
  {
    py::gil_scoped_release release;
    b = read_muons(path);
  }
  py::array_t<double> out({static_cast<py::ssize_t>(b.size()), py::ssize_t{8}});
  double* d = out.mutable_data();
  for (std::size_t i = 0; i < b.size(); ++i) {
    const double row[8] = {
        b.px[i],    b.py[i], b.pz[i], b.x[i], b.y[i], b.z[i], static_cast<double>(b.pdg[i]),
        b.weight[i]};
    std::copy(row, row + 8, d + 8 * i);
  }
  return out;
}

// What any table reaches: rows above it are refused (above_tables refuse)
// before a table is built, with the words of the check against the run's top.
MuonRowLimits reach_limits(MomentumPolicy policy) {
  MuonRowLimits limits;
  if (policy == MomentumPolicy::refuse) limits.p_max = static_cast<float>(kCacheTopMomentum);
  return limits;
}

// fastmu.transport of a host array: rows checked against what any table
// reaches, tables up to p_max (0: the rows' highest |p|), rows checked
// against the tables' top (above_tables), then the CPU or the GPU.
auto transport_host(const py::array& muons, const std::shared_ptr<GeometryHandle>& geometry,
                    const std::vector<std::shared_ptr<TableParams>>& tables,
                    const py::object& cache, const std::string& backend,
                    std::shared_ptr<FieldMapParams> field_map, double step, std::uint64_t seed,
                    double p_kill, long long max_steps, bool all, int threads, int gpus,
                    std::uint64_t first_id, int long_steps, const std::string& above_tables,
                    bool decay, double p_max) {
  if (!geometry) throw Error("transport: geometry is None");
  const Backend requested = parse_backend(backend);
  const StepOptions options = step_options(step, seed, p_kill, max_steps, long_steps, decay);
  const MomentumPolicy policy = momentum_policy(above_tables);
  const CacheChoice choice = cache_choice(cache);
  const bool with_plane = geometry->params->sensitive_planes().size() > 1;
  // With the cache, rows above what any of its tables reaches are refused
  // before a table is built; without it, against the given tables below.
  const double top =
      choice.enabled
          ? tables_top_for(p_max, highest_momentum(batch_from_any(muons, reach_limits(policy))))
          : 0.0;
  const auto resident = [&] {
    py::gil_scoped_release release;
    return resident_params(*geometry, tables, choice, options, top);
  }();
  const TransportParams& params = *resident;
  const MuonBatch in = batch_from_any(muons, params.row_limits(policy));
  TransportResult result;
  {
    py::gil_scoped_release release;
    result = run(params, in, requested, threads, gpus, field_map.get(), first_id,
                 all ? ResultRows::all : ResultRows::at_plane);
  }
  return result_to_dict(std::move(result), all, with_plane);
}

// fastmu.transport of rows already in GPU memory: checked there, results
// written into the caller's device columns.
auto transport_device_pointers(std::uintptr_t rows, std::size_t n, int ncol,
                               const py::dict& columns,
                               const std::shared_ptr<GeometryHandle>& geometry,
                               const std::vector<std::shared_ptr<TableParams>>& tables,
                               const py::object& cache, std::shared_ptr<FieldMapParams> field_map,
                               double step, std::uint64_t seed, double p_kill, long long max_steps,
                               std::uintptr_t stream, int long_steps,
                               const std::string& above_tables, bool decay, double p_max) {
  if (!geometry) throw Error("transport: geometry is None");
  const StepOptions options = step_options(step, seed, p_kill, max_steps, long_steps, decay);
  const MomentumPolicy policy = momentum_policy(above_tables);
  auto ptr = [&](const char* name) {
    if (!columns.contains(name))
      throw Error(std::string("transport: output column '") + name + "' missing");
    return columns[name].cast<std::uintptr_t>();
  };
  cuda::DeviceColumns out;
  out.id = reinterpret_cast<std::int64_t*>(ptr("id"));
  out.px = reinterpret_cast<float*>(ptr("px"));
  out.py = reinterpret_cast<float*>(ptr("py"));
  out.pz = reinterpret_cast<float*>(ptr("pz"));
  out.x = reinterpret_cast<float*>(ptr("x"));
  out.y = reinterpret_cast<float*>(ptr("y"));
  out.z = reinterpret_cast<float*>(ptr("z"));
  out.pdg = reinterpret_cast<std::int32_t*>(ptr("pdg"));
  out.weight = reinterpret_cast<float*>(ptr("weight"));
  out.status = reinterpret_cast<std::int32_t*>(ptr("status"));
  out.plane = reinterpret_cast<std::int32_t*>(ptr("plane"));
  const CacheChoice choice = cache_choice(cache);
  const bool with_plane = geometry->params->sensitive_planes().size() > 1;
  {
    py::gil_scoped_release release;
    const auto* in = reinterpret_cast<const float*>(rows);
    void* s = reinterpret_cast<void*>(stream);
    if (choice.enabled) check_device_rows(in, n, ncol, reach_limits(policy), s);  // before tables
    // p_max 0: the caller found no finite top (a bad row, named below).
    const auto resident = resident_params(*geometry, tables, choice, options,
                                          tables_top_for(p_max, kCacheTopMomentum));
    const TransportParams& params = *resident;
    check_device_rows(in, n, ncol, params.row_limits(policy), s);
    if (field_map) {
      resolve_backend(Backend::cuda);
      cuda::DeviceArena arena;
      auto copy = [&](const auto* p, std::size_t k) { return arena.copy(p, k); };
      std::vector<MaterialTableView> table_views;
      const TransportView view = params.make_view(copy, table_views, field_map.get());
      cuda::transport_device(view, in, n, ncol, out, 0, s);
    } else {
      transport_on_device(params, in, n, ncol, out, 0, s);
    }
  }
  return with_plane;
}

// The whole tables of a pass over several parameters per volume:
// dfield (n_volumes, n_params, 3) and dshape (n_volumes, n_params, 18:
// x of the 8 vertices, y of the 8, z_lo, z_hi), either may be None.
void set_parameter_tables(FieldParameters& fp, std::size_t nv, const py::object& dfield,
                          const py::object& dshape) {
  const auto np = static_cast<py::ssize_t>(fp.n_params);
  auto table = [&](const py::object& o, py::ssize_t width, const char* name) {
    const auto a = o.cast<CArray<double>>();
    if (a.ndim() != 3 || static_cast<std::size_t>(a.shape(0)) != nv || a.shape(1) != np ||
        a.shape(2) != width) {
      throw Error(fmt::format("objective: {} must have shape ({}, {}, {})", name, nv, np, width));
    }
    return a;
  };
  if (!dfield.is_none()) {
    const auto a = table(dfield, 3, "dfield");
    fp.dfield.resize(nv * static_cast<std::size_t>(np));
    for (std::size_t i = 0; i < fp.dfield.size(); ++i) {
      const double* d = a.data() + 3 * i;
      fp.dfield[i] = {static_cast<float>(d[0]), static_cast<float>(d[1]), static_cast<float>(d[2])};
    }
  }
  if (!dshape.is_none()) {
    const auto a = table(dshape, 18, "dshape");
    fp.dshape.resize(nv * static_cast<std::size_t>(np));
    for (std::size_t i = 0; i < fp.dshape.size(); ++i) {
      const double* d = a.data() + 18 * i;
      Arb8Tangent& t = fp.dshape[i];
      for (int v = 0; v < 4; ++v) {
        t.x_lo[v] = static_cast<float>(d[v]), t.x_hi[v] = static_cast<float>(d[4 + v]);
        t.y_lo[v] = static_cast<float>(d[8 + v]), t.y_hi[v] = static_cast<float>(d[12 + v]);
      }
      t.z_lo = static_cast<float>(d[16]), t.z_hi = static_cast<float>(d[17]);
    }
  }
}

// fastmu.ship.objective: the window objective and its gradient.
auto window_objective_call(const py::object& muons, const std::shared_ptr<GeometryHandle>& geometry,
                           const std::vector<std::shared_ptr<TableParams>>& tables,
                           const py::object& cache, const std::string& backend, int n_params,
                           const CArray<std::int32_t>& volume_param,
                           const CArray<double>& volume_dfield, const py::object& volume_field,
                           double step, std::uint64_t seed, double p_kill, long long max_steps,
                           double smoothing, int plane, bool gradient, int threads,
                           std::uint64_t first_id, bool per_muon, double boundary_softening,
                           double max_tangent, int long_steps, std::uintptr_t device_rows,
                           std::size_t device_n, int device_ncol, std::uintptr_t stream,
                           const py::object& dfield, const py::object& dshape,
                           const std::string& method) {
  if (!geometry) throw Error("objective: geometry is None");
  if (method != "adjoint" && method != "tangent") {
    throw Error("objective: method must be 'adjoint' or 'tangent', got '" + method + "'");
  }
  const Backend requested = parse_backend(backend);
  const StepOptions options = step_options(step, seed, p_kill, max_steps, long_steps);
  const CacheChoice choice = cache_choice(cache);
  const auto resident = [&] {
    py::gil_scoped_release release;
    return resident_params(*geometry, tables, choice, options);
  }();
  const MuonRowLimits limits = resident->row_limits(MomentumPolicy::refuse);
  // Muons in GPU memory (device_rows) stay there; a host array is read once.
  const MuonBatch in = device_rows ? MuonBatch{} : batch_from_any(muons.cast<py::array>(), limits);
  FieldParameters fp;
  fp.n_params = n_params;
  fp.cosine_softening = static_cast<float>(boundary_softening);
  const auto nv = static_cast<std::size_t>(volume_param.size());
  if (volume_dfield.ndim() != 2 || volume_dfield.shape(1) != 3 ||
      static_cast<std::size_t>(volume_dfield.shape(0)) != nv) {
    throw Error("objective: volume_dfield must have shape (n_volumes, 3)");
  }
  fp.volume_param.assign(volume_param.data(), volume_param.data() + nv);
  auto to_vec3 = [&](const CArray<double>& a) {
    std::vector<Vec3f> v(nv);
    for (std::size_t i = 0; i < nv; ++i) {
      v[i] = {static_cast<float>(a.data()[3 * i]), static_cast<float>(a.data()[3 * i + 1]),
              static_cast<float>(a.data()[3 * i + 2])};
    }
    return v;
  };
  fp.volume_dfield = to_vec3(volume_dfield);
  if (!volume_field.is_none()) {
    const auto f = volume_field.cast<CArray<double>>();
    if (f.ndim() != 2 || f.shape(1) != 3 || static_cast<std::size_t>(f.shape(0)) != nv) {
      throw Error("objective: volume_field must have shape (n_volumes, 3)");
    }
    fp.volume_field = to_vec3(f);
  }
  set_parameter_tables(fp, nv, dfield, dshape);
  WindowObjectiveOptions o;
  o.smoothing = smoothing;
  o.plane = plane;
  o.gradient = gradient;
  o.threads = threads;
  o.first_id = first_id;
  o.max_tangent = max_tangent;
  o.per_muon = per_muon;
  o.method = method == "tangent" ? GradientMethod::tangent : GradientMethod::adjoint;
  WindowObjectiveResult r;
  {
    py::gil_scoped_release release;
    if (device_rows) {
      const auto* rows = reinterpret_cast<const float*>(device_rows);
      check_device_rows(rows, device_n, device_ncol, limits, reinterpret_cast<void*>(stream));
      r = window_objective_on_device(*resident, rows, device_n, device_ncol, fp, o,
                                     reinterpret_cast<void*>(stream));
    } else {
      r = window_objective(*resident, in, fp, o, requested);
    }
  }
  py::dict out;
  out["value"] = r.value;
  out["hard"] = r.hard;
  out["gradient"] =
      py::array_t<double>(static_cast<py::ssize_t>(r.gradient.size()), r.gradient.data());
  out["steps"] = r.steps;
  out["seconds"] = r.seconds;
  out["adjoint_muons"] = r.adjoint_muons;
  out["adjoint_lost"] = r.adjoint_lost;
  if (per_muon) {
    const auto n = static_cast<py::ssize_t>(device_rows ? device_n : in.size());
    out["muon_value"] = adopt_vector(std::move(r.muon_value), {n});
    out["muon_gradient"] =
        adopt_vector(std::move(r.muon_grad), {n, static_cast<py::ssize_t>(r.n_params)});
    out["status"] = adopt_vector(std::move(r.status), {n});
    out["muon_steps"] = adopt_vector(std::move(r.muon_steps), {n});
  }
  return out;
}

// fastmu.transport(engine="detailed"): the detailed engine, on the GPU or the CPU.
auto transport_detailed_call(const py::array& muons,
                             const std::shared_ptr<GeometryHandle>& geometry, std::uint64_t seed,
                             double p_kill, long long max_steps, bool all, int threads,
                             std::uint64_t first_id, bool decay, const std::string& backend) {
  if (!geometry) throw Error("transport: geometry is None");
  const EngineBackend engine_backend = resolve_engine_backend(backend, "backend");
  const StepOptions step = step_options(0.02, seed, p_kill, max_steps);
  DetailedTransportOptions options;
  options.physics.decay = decay;
  options.seed = step.seed;
  options.p_kill = step.p_kill;
  options.max_segments = step.max_steps;
  options.threads = threads;
  options.backend = engine_backend;
  const MuonBatch in = batch_from_any(muons, detailed_row_limits());
  const bool with_plane = geometry->params->sensitive_planes().size() > 1;
  TransportResult result;
  {
    py::gil_scoped_release release;
    result = transport_detailed(*geometry->params, geometry->materials, in, options, first_id);
  }
  return result_to_dict(std::move(result), all, with_plane);
}

}  // namespace

void bind_transport(py::module_& m) {
  m.def("read_muons", &read_muons_array, py::arg("path"),
        "Reads a muon file as `fastmu run --muons` does (CSV, or HDF5 dataset `muons`) into an "
        "(N, 8) float64 array px,py,pz,x,y,z,pdg,weight.");
  m.def("_transport", &transport_host, py::arg("muons"), py::arg("geometry"), py::arg("tables"),
        py::arg("cache"), py::arg("backend"), py::arg("field_map"), py::kw_only(), py::arg("step"),
        py::arg("seed"), py::arg("p_kill"), py::arg("max_steps"), py::arg("all"),
        py::arg("threads"), py::arg("gpus") = 0, py::arg("first_id") = 0,
        py::arg("long_steps") = kDefaultLongSteps, py::arg("above_tables") = "refuse",
        py::arg("decay") = StepSettings{}.decay, py::arg("p_max") = 0.0);
  m.def("_transport_device_ptrs", &transport_device_pointers, py::arg("rows"), py::arg("n"),
        py::arg("ncol"), py::arg("columns"), py::arg("geometry"), py::arg("tables"),
        py::arg("cache"), py::arg("field_map"), py::kw_only(), py::arg("step"), py::arg("seed"),
        py::arg("p_kill"), py::arg("max_steps"), py::arg("stream"),
        py::arg("long_steps") = kDefaultLongSteps, py::arg("above_tables") = "refuse",
        py::arg("decay") = StepSettings{}.decay, py::arg("p_max") = 0.0,
        "Transports muons in GPU memory (row-major float32 (n, 7|8), device pointer `rows`) into "
        "the device columns given as pointers; returns whether a `plane` column is meaningful.");
  m.def("_window_objective", &window_objective_call, py::arg("muons"), py::arg("geometry"),
        py::arg("tables"), py::arg("cache"), py::arg("backend"), py::arg("n_params"),
        py::arg("volume_param"), py::arg("volume_dfield"), py::arg("volume_field"), py::kw_only(),
        py::arg("step"), py::arg("seed"), py::arg("p_kill"), py::arg("max_steps"),
        py::arg("smoothing"), py::arg("plane"), py::arg("gradient"), py::arg("threads"),
        py::arg("first_id") = 0, py::arg("per_muon") = false, py::arg("boundary_softening") = 0.0,
        py::arg("max_tangent") = 100.0, py::arg("long_steps") = kDefaultLongSteps,
        py::arg("device_rows") = 0, py::arg("device_n") = 0, py::arg("device_ncol") = 8,
        py::arg("stream") = 0, py::arg("dfield") = py::none(), py::arg("dshape") = py::none(),
        py::arg("method") = "adjoint",
        "The window objective and its gradient with respect to field parameters "
        "(fastmu.ship.objective); muons a host (N, 7|8) array, or None with `device_rows` the "
        "device pointer of N row-major float32 rows in GPU memory (run on `stream`).");
  m.def("_gpu_uploads", &resident_uploads,
        "How often the tables and geometry were uploaded to a GPU (CudaSession.hh) rather than "
        "reused there.");
  m.def("_transport_params_builds", &resident_params_builds,
        "How often transport() built its parameters (tables, geometry views) rather than "
        "reusing resident ones.");
  m.def(
      "_table_cache_dir",
      [](const py::object& dir) {
        return table_cache(dir.is_none() ? std::nullopt
                                         : std::optional<std::filesystem::path>(
                                               dir.cast<std::filesystem::path>()))
            .dir();
      },
      py::arg("dir") = py::none());
  m.def(
      "_iron_block_geometry_json", [] { return iron_block_geometry_json().dump(); },
      "The built-in iron-block geometry (`fastmu run --example iron-block`) as JSON text.");

  m.def("_transport_detailed", &transport_detailed_call, py::arg("muons"), py::arg("geometry"),
        py::kw_only(), py::arg("seed"), py::arg("p_kill"), py::arg("max_steps"), py::arg("all"),
        py::arg("threads"), py::arg("first_id") = 0, py::arg("decay") = StepSettings{}.decay,
        py::arg("backend") = "cpu",
        "The detailed engine through the geometry (`fastmu run --engine detailed`).");
  m.def("cuda_available", &cuda_available,
        "Whether the CUDA backend is built and a GPU is visible.");
  m.def("cuda_device_name", [] { return std::string(cuda::device_name()); });
}

}  // namespace fastmu::python
