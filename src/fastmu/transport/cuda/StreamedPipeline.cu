// The streamed pipeline, the one path from a host batch to its results on
// GPUs: the batch is cut into chunks (PipelineChunks.hh) that host threads,
// one per stream slot of a GPU (GpuStreams.cuh), take as they free up: pack
// into pinned memory, copy in, order, transport, tally, compact, copy out,
// unpack into the result.
#include "fastmu/transport/cuda/CudaTransport.hh"

#include <algorithm>
#include <cstring>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include <cub/device/device_scan.cuh>

#include "fastmu/core/CudaCheck.cuh"
#include "fastmu/core/Error.hh"
#include "fastmu/transport/cuda/GpuStreams.cuh"
#include "fastmu/transport/cuda/PipelineChunks.hh"
#include "fastmu/transport/cuda/ResultColumns.hh"
#include "fastmu/transport/cuda/StreamTrace.hh"

namespace fastmu::cuda {
namespace {

// Host threads do the packing and unpacking, one chunk in flight each: a
// slot's thread mostly waits for its GPU work, so a core per stream, up to
// 12 per GPU (iron block, 4e6 muons, one H100: 6 streams 1.70x the kernel
// time, 8 1.34-1.44x, 12 1.19-1.22x, 16 1.21-1.24x; SHiP-like, 4e6 muons,
// one H100: 2 / 4 / 12 / 16 / 24 streams 0.165 / 0.161 / 0.135 / 0.138 /
// 0.145 s, since a warp's muons, taken together from the ordered queue, step
// alike, where threads refilling from a long queue mix momenta).
int streams_for(std::size_t gpus, const StreamedOptions& options) {
  if (options.streams_per_gpu > 0) return options.streams_per_gpu;
  const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return std::clamp(hw / static_cast<int>(std::max<std::size_t>(gpus, 1)), 2, 12);
}

// Streams of a call's own (no GpuStreams kept by the caller): two, so that
// the call allocates few pinned buffers and still overlaps one stream's
// copies with the other's kernel.
constexpr int kTransientStreams = 2;

// The exclusive scan of the first m keep flags of `s` into its positions.
void scan_keep(StreamSlot& s, std::size_t m) {
  std::size_t bytes = s.scan_bytes;
  FASTMU_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(s.scan_temp, bytes, s.keep, s.pos,
                                                  static_cast<int>(m), s.stream));
}

// A kernel is loaded on its first launch (CUDA's lazy module loading), a few
// ms each: the streamed pipeline's kernels are launched here once, on two
// zeroed muons or none, while a run still reads its first chunk.
void warm_up_kernels(const GpuTarget& g, GpuStreams::Impl& impl) {
  if (impl.warmed || impl.slots.empty()) return;
  StreamSlot& s = impl.slots[0];
  const std::size_t cap = s.cap, m = std::min<std::size_t>(2, cap);
  FASTMU_CUDA_CHECK(cudaMemsetAsync(s.state, 0, kStateRows * cap * 4, s.stream));
  FASTMU_CUDA_CHECK(cudaMemsetAsync(s.keep, 0, cap * 4, s.stream));
  const DeviceMuons d = s.muons();
  const std::uint32_t* turn = nullptr;
  FASTMU_CUDA_CHECK(order_muons(d.px, d.py, d.pz, d.pdg, m, s.order, s.stream, &turn));
  FASTMU_CUDA_CHECK(cudaMemsetAsync(&s.counters->queue, 0, 8, s.stream));
  // No muon to take: the kernel loads and returns.
  launch_transport(*g.view, d, MuonQueue{&s.counters->queue, 0, nullptr}, 0, s.stream);
  launch_tally(d.status, d.steps, 0, s.keep, s.counters, s.stream);
  scan_keep(s, m);
  launch_compact(s.state, cap, s.keep, s.pos, 0, s.compact, s.counters, s.stream);
  FASTMU_CUDA_CHECK(cudaStreamSynchronize(s.stream));
  impl.warmed = true;
}

// One call of transport_streamed.
class StreamedRun {
 public:
  StreamedRun(const std::vector<GpuTarget>& gpus, const MuonBatch& in, std::uint64_t first_id,
              const StreamedOptions& options, TransportResult& out)
      : gpus_(gpus),
        in_(in),
        out_(out),
        first_id_(first_id),
        compact_(options.at_plane_only),
        per_gpu_(streams_for(gpus.size(), options)),
        workers_(gpus.size() * static_cast<std::size_t>(per_gpu_)),
        chunks_(in.size(), workers_, options.chunk),
        ordered_(
            worth_ordering(in.px.data(), in.py.data(), in.pz.data(), in.pdg.data(), in.size())),
        order_(chunks_.max_chunks()) {}

  StreamedStats run() {
    out_.first_id = first_id_;
    out_.id.clear();
    start_gpus();
    trace_.emplace(StreamTrace::enabled());
    run_slots();
    const StreamedStats st = gather_stats();
    trace_->print(in_.size(), static_cast<int>(workers_), st.kernel_s);
    if (compact_) trim_to_kept();
    return st;
  }

 private:
  // Slots with buffers for the largest chunk, their counters zeroed, and the
  // time origin of the kernel intervals recorded.
  void start_gpus() {
    for (const GpuTarget& g : gpus_) {
      set_device(g.streams->device());
      GpuStreams::Impl& impl = g.streams->impl();
      impl.ensure(per_gpu_, chunks_.capacity());
      for (int l = 0; l < per_gpu_; ++l) {
        StreamSlot& s = impl.slots[static_cast<std::size_t>(l)];
        s.events_used = 0;
        FASTMU_CUDA_CHECK(cudaMemsetAsync(s.counters, 0, sizeof(SlotCounters), s.stream));
      }
      FASTMU_CUDA_CHECK(cudaEventRecord(impl.origin, impl.slots[0].stream));
    }
  }

  // The slots' host threads, and one that sizes the result's columns
  // meanwhile; rethrows the first error.
  void run_slots() {
    std::exception_ptr setup_error;
    std::thread setup([&] {
      try {
        size_result_columns(out_, in_.size(), compact_ ? nullptr : &in_);
        order_.set_ready();
      } catch (...) {
        setup_error = std::current_exception();
        order_.fail();
      }
    });
    std::vector<std::thread> threads;
    for (const GpuTarget& g : gpus_) {
      for (int l = 0; l < per_gpu_; ++l) {
        threads.emplace_back(&StreamedRun::serve, this, std::cref(g), l);
      }
    }
    for (auto& t : threads) t.join();
    setup.join();
    if (error_) std::rethrow_exception(error_);
    if (setup_error) std::rethrow_exception(setup_error);
  }

  // The host thread of slot `slot` of GPU `g`: chunks until none is left.
  void serve(const GpuTarget& g, int slot) {
    try {
      set_device(g.streams->device());
      GpuStreams::Impl& impl = g.streams->impl();
      StreamSlot& s = impl.slots[static_cast<std::size_t>(slot)];
      std::size_t k = 0, b = 0, m = 0;
      while (chunks_.take(k, b, m)) transport_chunk(g, impl, s, k, b, m);
    } catch (const ChunkOrder::Aborted&) {
      // another slot failed and reports why
    } catch (...) {
      {
        std::lock_guard<std::mutex> lock(error_mu_);
        if (!error_) error_ = std::current_exception();
      }
      chunks_.stop();
      order_.fail();
    }
  }

  // Chunk k: rows [b, b + m) of the batch.
  void transport_chunk(const GpuTarget& g, GpuStreams::Impl& impl, StreamSlot& s, std::size_t k,
                       std::size_t b, std::size_t m) {
    StreamTrace& trace = *trace_;
    const double taken = trace.now();
    pack(s, b, m);
    double t = trace.add(StreamTrace::pack, taken);
    launch_chunk(g, impl, s, b, m);
    const std::size_t kept = fetch_chunk(s, m, t);
    const std::size_t at = order_.publish_and_wait(k, kept);
    t = trace.add(StreamTrace::order, t);
    unpack(s, b, at, kept);
    trace.chunk(taken, trace.add(StreamTrace::unpack, t));
  }

  // The chunk's input rows into pinned memory (px,py,pz,x,y,z,pdg).
  void pack(StreamSlot& s, std::size_t b, std::size_t m) const {
    const void* src[kInputRows] = {in_.px.data() + b, in_.py.data() + b, in_.pz.data() + b,
                                   in_.x.data() + b,  in_.y.data() + b,  in_.z.data() + b,
                                   in_.pdg.data() + b};
    for (int r = 0; r < kInputRows; ++r) std::memcpy(s.host_in + r * s.cap, src[r], m * 4);
  }

  // Copies the chunk in, orders, transports and tallies it on the slot's
  // stream; the kernel time includes the ordering (a sort of 14-bit keys).
  void launch_chunk(const GpuTarget& g, GpuStreams::Impl& impl, StreamSlot& s, std::size_t b,
                    std::size_t m) const {
    const std::size_t cap = s.cap, pitch = cap * 4;
    FASTMU_CUDA_CHECK(cudaMemcpy2DAsync(s.state, pitch, s.host_in, pitch, m * 4, kZ + 1,
                                        cudaMemcpyHostToDevice, s.stream));
    FASTMU_CUDA_CHECK(cudaMemcpyAsync(s.state + kPdg * cap, s.host_in + (kInputRows - 1) * cap,
                                      m * 4, cudaMemcpyHostToDevice, s.stream));
    const DeviceMuons d = s.muons();
    const auto ev = impl.next_events(s);
    FASTMU_CUDA_CHECK(cudaEventRecord(ev.first, s.stream));
    const std::uint32_t* turn = nullptr;
    if (ordered_) {
      FASTMU_CUDA_CHECK(order_muons(d.px, d.py, d.pz, d.pdg, m, s.order, s.stream, &turn));
    }
    FASTMU_CUDA_CHECK(cudaMemsetAsync(&s.counters->queue, 0, 8, s.stream));
    launch_transport(*g.view, d, MuonQueue{&s.counters->queue, m, turn}, first_id_ + b, s.stream);
    FASTMU_CUDA_CHECK(cudaEventRecord(ev.second, s.stream));
    launch_tally(d.status, d.steps, m, compact_ ? s.keep : nullptr, s.counters, s.stream);
  }

  // Compacts (at_plane_only) and copies the chunk's output rows back into
  // pinned memory; returns how many rows came back.
  std::size_t fetch_chunk(StreamSlot& s, std::size_t m, double& t) {
    StreamTrace& trace = *trace_;
    const std::size_t cap = s.cap, pitch = cap * 4;
    std::size_t kept = m;
    if (compact_) {
      scan_keep(s, m);
      launch_compact(s.state, cap, s.keep, s.pos, m, s.compact, s.counters, s.stream);
      FASTMU_CUDA_CHECK(cudaMemcpyAsync(&s.host_counters->kept, &s.counters->kept, 8,
                                        cudaMemcpyDeviceToHost, s.stream));
      FASTMU_CUDA_CHECK(cudaStreamSynchronize(s.stream));
      t = trace.add(StreamTrace::gpu, t);
      kept = static_cast<std::size_t>(s.host_counters->kept);
      if (kept > 0) {
        FASTMU_CUDA_CHECK(cudaMemcpy2DAsync(s.host_out, pitch, s.compact, pitch, kept * 4,
                                            kCompactRows, cudaMemcpyDeviceToHost, s.stream));
      }
    } else {
      FASTMU_CUDA_CHECK(cudaMemcpy2DAsync(s.host_out, pitch, s.state, pitch, m * 4, kOutputRows,
                                          cudaMemcpyDeviceToHost, s.stream));
    }
    FASTMU_CUDA_CHECK(cudaStreamSynchronize(s.stream));
    t = trace.add(compact_ ? StreamTrace::copy : StreamTrace::gpu, t);
    return kept;
  }

  // The chunk's `kept` rows (chunk rows from b) into the output rows
  // [at, at + kept).
  void unpack(const StreamSlot& s, std::size_t b, std::size_t at, std::size_t kept) const {
    const std::size_t cap = s.cap;
    MuonBatch& o = out_.muons;
    float* fdst[6] = {o.px.data(), o.py.data(), o.pz.data(), o.x.data(), o.y.data(), o.z.data()};
    std::int32_t* idst[3] = {out_.status.data(), out_.plane.data(), out_.steps.data()};
    for (int r = 0; r < 6; ++r) std::memcpy(fdst[r] + at, s.host_out + r * cap, kept * 4);
    for (int r = 0; r < 3; ++r)
      std::memcpy(idst[r] + at, s.host_out + (kStatus + r) * cap, kept * 4);
    if (!compact_) return;  // pdg and weight were copied by size_result_columns
    const std::uint32_t* idx = s.host_out + kIndexRow * cap;
    for (std::size_t j = 0; j < kept; ++j) {
      const std::size_t i = b + idx[j];
      out_.id[at + j] = static_cast<std::int64_t>(first_id_ + i);
      o.pdg[at + j] = in_.pdg[i];
      o.weight[at + j] = in_.weight[i];
    }
  }

  // Tallies and kernel time (the union of the chunks' kernel intervals per GPU).
  StreamedStats gather_stats() const {
    StreamedStats st;
    for (const GpuTarget& g : gpus_) {
      set_device(g.streams->device());
      GpuStreams::Impl& impl = g.streams->impl();
      std::vector<std::pair<float, float>> iv;
      for (int l = 0; l < per_gpu_; ++l) {
        StreamSlot& s = impl.slots[static_cast<std::size_t>(l)];
        FASTMU_CUDA_CHECK(cudaMemcpyAsync(s.host_counters, s.counters, kTallyBytes,
                                          cudaMemcpyDeviceToHost, s.stream));
        FASTMU_CUDA_CHECK(cudaStreamSynchronize(s.stream));
        st.steps += s.host_counters->steps;
        for (int k = 0; k < kStatuses; ++k) {
          st.by_status[static_cast<std::size_t>(k)] += s.host_counters->by_status[k];
        }
        for (std::size_t e = 0; e < s.events_used; ++e) {
          float a = 0, b = 0;
          FASTMU_CUDA_CHECK(cudaEventElapsedTime(&a, impl.origin, s.events[e].first));
          FASTMU_CUDA_CHECK(cudaEventElapsedTime(&b, impl.origin, s.events[e].second));
          iv.emplace_back(a, b);
        }
      }
      st.kernel_s = std::max(st.kernel_s, union_length(std::move(iv)) * 1e-3);
    }
    return st;
  }

  // The result's columns cut to the kept rows.
  void trim_to_kept() {
    const std::size_t total = order_.total();
    MuonBatch& m = out_.muons;
    m.px.resize(total), m.py.resize(total), m.pz.resize(total);
    m.x.resize(total), m.y.resize(total), m.z.resize(total);
    m.pdg.resize(total), m.weight.resize(total);
    out_.status.resize(total), out_.plane.resize(total), out_.steps.resize(total);
    out_.id.resize(total);
  }

  const std::vector<GpuTarget>& gpus_;
  const MuonBatch& in_;
  TransportResult& out_;
  const std::uint64_t first_id_;
  const bool compact_;
  const int per_gpu_;
  const std::size_t workers_;
  ChunkQueue chunks_;
  const bool ordered_;
  ChunkOrder order_;
  std::optional<StreamTrace> trace_;  // started once the GPUs are set up
  std::mutex error_mu_;
  std::exception_ptr error_;
};

}  // namespace

void prepare_streamed(const std::vector<GpuTarget>& gpus, std::size_t batch,
                      const StreamedOptions& options) {
  const int per_gpu = streams_for(gpus.size(), options);
  const ChunkQueue queue(batch, gpus.size() * static_cast<std::size_t>(per_gpu), options.chunk);
  // Pinned allocations take a while: one host thread per GPU.
  std::vector<std::exception_ptr> errors(gpus.size());
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    threads.emplace_back([&, i] {
      try {
        set_device(gpus[i].streams->device());
        gpus[i].streams->impl().ensure(per_gpu, queue.capacity());
        warm_up_kernels(gpus[i], gpus[i].streams->impl());
      } catch (...) {
        errors[i] = std::current_exception();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

void transport_streamed(const std::vector<GpuTarget>& gpus, const MuonBatch& in,
                        std::uint64_t first_id, const StreamedOptions& options,
                        TransportResult& out, StreamedStats* stats) {
  if (gpus.empty()) throw Error("transport_streamed: no GPU given");
  if (in.weight.size() != in.size() || in.pdg.size() != in.size()) {
    throw Error("transport: muon batch columns of different lengths");
  }
  StreamedRun run(gpus, in, first_id, options, out);
  const StreamedStats st = run.run();
  if (stats) *stats = st;
}

TransportResult transport(const TransportView& view, const MuonBatch& in, std::uint64_t first_id,
                          std::size_t chunk, GpuStreams* streams) {
  TransportResult out;
  out.first_id = first_id;
  if (in.size() == 0) return out;
  std::unique_ptr<GpuStreams> own;
  if (!streams) {
    own = std::make_unique<GpuStreams>(current_device());
    streams = own.get();
  }
  StreamedOptions options;
  options.chunk = chunk;
  options.streams_per_gpu = own ? kTransientStreams : 0;
  transport_streamed({GpuTarget{&view, streams}}, in, first_id, options, out);
  return out;
}

}  // namespace fastmu::cuda
