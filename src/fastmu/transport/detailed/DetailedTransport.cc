#include "fastmu/transport/detailed/DetailedTransport.hh"

#include <cmath>
#include <memory>
#include <optional>
#include <vector>

#include "fastmu/core/Error.hh"
#include "fastmu/core/Parallel.hh"
#include "fastmu/field/FieldMapParams.hh"
#include "fastmu/physics/HistoryRng.hh"
#include "fastmu/physics/MultipleScattering.hh"
#include "fastmu/physics/MuonPhysicsTables.hh"
#include "fastmu/transport/detailed/DetailedHistory.hh"
#ifdef FASTMU_HAVE_CUDA
#include "fastmu/transport/cuda/CudaDetailedTransport.hh"
#include "fastmu/transport/cuda/CudaTransport.hh"
#endif

namespace fastmu {
namespace {

bool is_vacuum(const std::string& name) { return name == "G4_Galactic" || name == "vacuum"; }

// The largest |B| a map holds (a bound for the step limits).
double max_field(const FieldMapParams& map) {
  double b2 = 0;
  const auto& v = map.values();
  for (std::size_t i = 0; i + 2 < v.size(); i += 3) {
    b2 = std::max(b2,
                  double(v[i]) * v[i] + double(v[i + 1]) * v[i + 1] + double(v[i + 2]) * v[i + 2]);
  }
  return std::sqrt(b2);
}

// The host side of a transport: the physics of each material of the geometry
// (kept alive while the views point into it), the field map and the scene.
struct HostScene {
  std::vector<std::shared_ptr<const MuonPhysicsTables>> tables;
  std::vector<std::shared_ptr<const MultipleScattering>> msc;
  std::vector<DetailedMaterialView> materials;
  std::optional<FieldMapParams> map;
  DetailedScene scene;

  HostScene(const HostScene&) = delete;
  HostScene& operator=(const HostScene&) = delete;
  HostScene(const GeometryParams& geometry, const MaterialLibrary& library,
            const DetailedTransportOptions& options) {
    const auto& names = geometry.material_names();
    tables.resize(names.size());
    msc.resize(names.size());
    materials.resize(names.size());
    for (std::size_t m = 0; m < names.size(); ++m) {
      if (is_vacuum(names[m])) continue;
      const Material& mat = library.find(names[m]);
      tables[m] = MuonPhysicsTables::get(mat, options.physics);
      msc[m] = MultipleScattering::get(mat);
      materials[m] = {&tables[m]->view(), &msc[m]->data()};
    }
    if (const auto& spec = geometry.field_map()) map = FieldMapParams::from_spec(*spec);
    scene.geometry = geometry.host_view();
    scene.materials = materials.data();
    if (map) scene.map = map->host_view();
    scene.map_b_max = map ? max_field(*map) : 0.0;
    scene.physics = options.physics;
    scene.p_kill = options.p_kill;
    scene.max_segments = options.max_segments;
  }
};

void store_end(const DetailedEnd& e, std::size_t i, TransportResult& out) {
  out.muons.px[i] = static_cast<float>(e.p.x);
  out.muons.py[i] = static_cast<float>(e.p.y);
  out.muons.pz[i] = static_cast<float>(e.p.z);
  out.muons.x[i] = static_cast<float>(e.pos.x);
  out.muons.y[i] = static_cast<float>(e.pos.y);
  out.muons.z[i] = static_cast<float>(e.pos.z);
  out.status[i] = static_cast<std::int32_t>(e.status);
  out.plane[i] = e.plane;
  out.steps[i] = e.segments;
}

void transport_on_cpu(const DetailedScene& scene, const MuonBatch& in,
                      const DetailedTransportOptions& options, TransportResult& out,
                      const ProgressCallback& progress) {
  parallel_for_chunks(in.size(), options.threads, 16, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      HistoryRng rng(options.seed, out.first_id + i, RngStream::detailed_physics);
      const DetailedEnd e = detailed_history(scene, Vec3{in.x[i], in.y[i], in.z[i]},
                                             Vec3{in.px[i], in.py[i], in.pz[i]}, in.pdg[i], rng);
      store_end(e, i, out);
    }
    if (progress) progress(end - begin);
  });
}

#ifdef FASTMU_HAVE_CUDA
// The tables' arrays copied to the GPU, in a view of device pointers.
MuonPhysicsView device_tables(const MuonPhysicsView& host, cuda::DeviceArena& arena) {
  MuonPhysicsView v = host;
  const std::size_t n = static_cast<std::size_t>(host.n);
  const std::size_t cdf = n * static_cast<std::size_t>(host.n_bins + 1);
  v.dedx = arena.copy(host.dedx, n);
  v.log_range = arena.copy(host.log_range, n);
  v.range_floor = arena.copy(host.range_floor, n);
  for (int q = 0; q < kNumDiscrete; ++q) {
    v.xs[q] = host.xs[q] ? arena.copy(host.xs[q], n) : nullptr;
    v.cdf[q] = host.cdf[q] ? arena.copy(host.cdf[q], cdf) : nullptr;
  }
  return v;
}

// The scene with every array in device memory (one copy per material).
const DetailedScene* device_scene(const HostScene& host, const GeometryParams& geometry,
                                  cuda::DeviceArena& arena) {
  const auto copy = [&](const auto* p, std::size_t n) { return arena.copy(p, n); };
  std::vector<DetailedMaterialView> materials(host.materials.size());
  for (std::size_t m = 0; m < materials.size(); ++m) {
    if (!host.tables[m]) continue;
    const MuonPhysicsView view = device_tables(host.tables[m]->view(), arena);
    materials[m] = {arena.copy(&view, 1), arena.copy(&host.msc[m]->data(), 1)};
  }
  DetailedScene scene = host.scene;
  scene.geometry = geometry.make_view(copy);
  scene.materials = arena.copy(materials.data(), materials.size());
  if (host.map) scene.map = host.map->make_view(copy);
  return arena.copy(&scene, 1);
}
#endif

void transport_on_gpu(const HostScene& host, const GeometryParams& geometry, const MuonBatch& in,
                      const DetailedTransportOptions& options, TransportResult& out,
                      const ProgressCallback& progress) {
#ifdef FASTMU_HAVE_CUDA
  cuda::DeviceArena arena;
  const DetailedScene* scene = device_scene(host, geometry, arena);
  cuda::transport_detailed_gpu(scene, options.seed, in, out, progress);
#else
  (void)host, (void)geometry, (void)in, (void)options, (void)out, (void)progress;
  throw Error("detailed transport: this fastmu was built without CUDA");
#endif
}

}  // namespace

TransportResult transport_detailed(const GeometryParams& geometry, const MaterialLibrary& materials,
                                   const MuonBatch& in, const DetailedTransportOptions& options,
                                   std::uint64_t first_id, const ProgressCallback& progress) {
  if (!(options.p_kill >= 0)) throw Error("p-kill must be >= 0");
  if (options.backend == EngineBackend::cuda && !engine_gpu_available())
    throw Error("detailed transport: cuda: no usable GPU (or built without CUDA)");
  const HostScene host(geometry, materials, options);
  const std::size_t n = in.size();
  TransportResult out;
  out.first_id = first_id;
  out.muons = in;
  out.status.assign(n, static_cast<std::int32_t>(MuonStatus::alive));
  out.plane.assign(n, -1);
  out.steps.assign(n, 0);
  if (n == 0) return out;
  if (options.backend == EngineBackend::cuda) {
    transport_on_gpu(host, geometry, in, options, out, progress);
  } else {
    transport_on_cpu(host.scene, in, options, out, progress);
  }
  return out;
}

}  // namespace fastmu
