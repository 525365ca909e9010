#include "fastmu/transport/cuda/CudaSession.hh"

#include <atomic>
#include <exception>
#include <memory>
#include <optional>
#include <thread>

namespace fastmu {
namespace {

// What decides whether resident views can be reused; holding the pointers
// keeps the objects (and so their addresses) alive.
struct InputsKey {
  std::shared_ptr<const GeometryParams> geometry;
  std::vector<std::shared_ptr<const TableParams>> tables;
  StepOptions options;

  static InputsKey of(const TransportParams& p) {
    return {p.geometry_ptr(), p.tables(), p.options()};
  }
  bool operator==(const InputsKey& o) const {
    return geometry == o.geometry && tables == o.tables && options.step == o.options.step &&
           options.p_kill == o.options.p_kill && options.max_steps == o.options.max_steps &&
           options.seed == o.options.seed && options.long_steps == o.options.long_steps;
  }
};

struct ResidentGpu {
  std::mutex mu;  // held by the call using this GPU
  std::optional<InputsKey> key;
  std::unique_ptr<cuda::DeviceArena> arena;
  std::vector<MaterialTableView> table_views;
  TransportView view;
  std::unique_ptr<cuda::GpuStreams> streams;

  void release() {
    key.reset();
    arena.reset();
    streams.reset();
  }
};

std::mutex registry_mu;
std::atomic<std::uint64_t> uploads{0};

// Never destroyed: at process exit the driver reclaims the device memory, and
// CUDA calls from static destructors may run after the runtime is gone.
std::vector<std::unique_ptr<ResidentGpu>>& registry() {
  static auto* r = new std::vector<std::unique_ptr<ResidentGpu>>();
  return *r;
}

ResidentGpu& resident(int device) {
  std::lock_guard<std::mutex> lock(registry_mu);
  auto& r = registry();
  while (static_cast<int>(r.size()) <= device) r.push_back(std::make_unique<ResidentGpu>());
  return *r[static_cast<std::size_t>(device)];
}

}  // namespace

ResidentGpus::ResidentGpus(const TransportParams& params, const std::vector<int>& devices) {
  const InputsKey key = InputsKey::of(params);
  std::vector<ResidentGpu*> gpus;
  for (int d : devices) {  // locked in device order: no two callers can deadlock
    gpus.push_back(&resident(d));
    locks_.emplace_back(gpus.back()->mu);
  }
  // Context creation and upload take a while per GPU: one host thread each.
  std::vector<std::exception_ptr> errors(devices.size());
  auto set_up = [&](std::size_t i) {
    try {
      ResidentGpu& g = *gpus[i];
      cuda::set_device(devices[i]);
      if (!g.key || !(*g.key == key)) {
        g.key.reset();
        g.arena = std::make_unique<cuda::DeviceArena>();
        g.view = params.make_view(
            [&](const auto* p, std::size_t count) { return g.arena->copy(p, count); },
            g.table_views);
        g.key = key;
        ++uploads;
      }
      if (!g.streams) g.streams = std::make_unique<cuda::GpuStreams>(devices[i]);
    } catch (...) {
      errors[i] = std::current_exception();
    }
  };
  if (devices.size() == 1) {
    set_up(0);
  } else {
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < devices.size(); ++i) threads.emplace_back(set_up, i);
    for (auto& t : threads) t.join();
  }
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  for (ResidentGpu* g : gpus) targets_.push_back({&g->view, g->streams.get()});
}

ResidentGpus::~ResidentGpus() = default;

std::vector<int> release_resident_gpus() {
  std::vector<int> released;
  std::lock_guard<std::mutex> lock(registry_mu);
  for (std::size_t d = 0; d < registry().size(); ++d) {
    ResidentGpu& g = *registry()[d];
    std::lock_guard<std::mutex> use(g.mu);
    if (g.arena || g.streams) {
      cuda::set_device(static_cast<int>(d));
      released.push_back(static_cast<int>(d));
    }
    g.release();
  }
  return released;
}

void shut_down_resident_gpus() { cuda::stop_devices(release_resident_gpus()); }

std::uint64_t resident_uploads() { return uploads.load(); }

}  // namespace fastmu
