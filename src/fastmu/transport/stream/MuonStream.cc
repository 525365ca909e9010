#include "fastmu/transport/stream/MuonStream.hh"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <new>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "fastmu/core/Error.hh"
#include "fastmu/core/Timing.hh"
#include "fastmu/core/Trace.hh"
#include "fastmu/transport/cuda/ResultColumns.hh"

namespace fastmu {
namespace {

// A queue of at most one item between two pipeline stages; close() ends it
// for both sides (normal end or an error elsewhere).
template <class T>
class Handoff {
 public:
  bool push(T&& item) {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [&] { return !item_ || closed_; });
    if (closed_) return false;
    item_.emplace(std::move(item));
    cv_.notify_all();
    return true;
  }
  std::optional<T> pop() {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [&] { return item_ || closed_; });
    std::optional<T> out;
    if (item_) {
      out.emplace(std::move(*item_));
      item_.reset();
      cv_.notify_all();
    }
    return out;
  }
  // No more pushes; a pending item is still popped.
  void close() {
    std::lock_guard<std::mutex> lock(m_);
    closed_ = true;
    cv_.notify_all();
  }
  // Drops a pending item too (abort).
  void abort() {
    std::lock_guard<std::mutex> lock(m_);
    closed_ = true;
    item_.reset();
    cv_.notify_all();
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  std::optional<T> item_;
  bool closed_ = false;
};

// Buffers a stage has finished with, handed back so that the next chunk
// reuses their memory (no allocation or page faults after the first chunks):
// results the writer has written, input chunks the transport has read.
template <class T>
class Pool {
 public:
  void give(T&& r) {
    std::lock_guard<std::mutex> lock(m_);
    spare_.push_back(std::move(r));
  }
  T take() {
    std::lock_guard<std::mutex> lock(m_);
    if (spare_.empty()) return T{};
    T r = std::move(spare_.back());
    spare_.pop_back();
    return r;
  }
  std::vector<T> take_all() {
    std::lock_guard<std::mutex> lock(m_);
    return std::exchange(spare_, {});
  }

 private:
  std::mutex m_;
  std::vector<T> spare_;
};

// Frees buffers no stage needs any more on threads of their own: giving a
// gigabyte back to the system takes tens of ms (4e7 iron-block muons on the
// GPU machine: 40 ms between the last row written and the commit), which the
// writer, still busy after the last chunk is transported, need not wait for.
class Releaser {
 public:
  template <class T>
  void release(T item) {
    std::lock_guard<std::mutex> lock(m_);
    threads_.emplace_back([gone = std::move(item)]() mutable {
      const T freed = std::move(gone);  // freed here, on this thread
    });
  }
  ~Releaser() {
    for (auto& t : threads_) t.join();
  }

 private:
  std::mutex m_;
  std::vector<std::thread> threads_;
};

struct Chunk {
  MuonBatch muons;
  std::uint64_t first_id = 0;
};

// A chunk's result (only its kept rows when compacted) and how many muons it had.
struct Transported {
  TransportResult result;
  std::size_t muons_in = 0;
};

constexpr std::size_t kMinChunkRows = 4096;

}  // namespace

StreamTotals transport_stream(const TransportParams& params, MuonReader& reader, MuonWriter& writer,
                              const StreamOptions& options) {
  const std::size_t chunk = std::max<std::size_t>(options.chunk_rows, 1);
  Handoff<Chunk> inputs;
  Handoff<Transported> outputs;
  Pool<TransportResult> spare;
  Pool<MuonBatch> spare_inputs;
  Releaser releaser;                     // outlives the stages' threads
  std::atomic<bool> transported{false};  // every chunk: spare buffers go
  std::exception_ptr error;
  std::mutex error_mutex;
  auto fail = [&] {
    {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
    }
    inputs.abort();
    outputs.abort();
  };

  const auto t_stream = SteadyClock::now();
  double read_seconds = 0, write_seconds = 0;  // each written by its own thread only
  std::thread read_thread([&] {
    try {
      const auto t_seek = SteadyClock::now();
      reader.seek(options.begin);
      read_seconds += seconds_since(t_seek);
      for (;;) {
        const std::uint64_t row = reader.position();
        if (row >= options.end) break;
        Chunk c;
        c.muons = spare_inputs.take();  // no fresh pages after the first chunks
        c.first_id = row;
        const auto want =
            static_cast<std::size_t>(std::min<std::uint64_t>(chunk, options.end - row));
        const auto t_read = SteadyClock::now();
        const bool more = reader.read(want, c.muons);
        read_seconds += seconds_since(t_read);
        if (!more) break;
        if (trace_enabled()) trace(fmt::format("stream: rows {} read", row + c.muons.size()));
        if (!inputs.push(std::move(c))) return;
      }
      inputs.close();
    } catch (...) {
      fail();
    }
  });

  std::thread write_thread([&] {
    try {
      while (auto r = outputs.pop()) {
        // Progress counts muons transported, whether or not their rows are kept.
        const std::size_t n = r->muons_in;
        const auto t_write = SteadyClock::now();
        writer.append(r->result);
        write_seconds += seconds_since(t_write);
        if (trace_enabled()) trace(fmt::format("stream: {} rows written", writer.rows()));
        if (transported) {
          releaser.release(std::move(r->result));
        } else {
          spare.give(std::move(r->result));
        }
        if (options.on_rows) options.on_rows(n);
      }
    } catch (...) {
      fail();
    }
  });

  StreamTotals totals;
  try {
    // GPU contexts, resident params and pinned buffers are set up while the
    // reader fills the first chunk.
    const auto t_prepare = SteadyClock::now();
    // Buffers for the first chunk's size: a small file does not pin a
    // whole chunk's worth of host memory.
    const std::uint64_t first_chunk =
        options.end > options.begin ? std::min<std::uint64_t>(chunk, options.end - options.begin)
                                    : chunk;
    // Meanwhile the result arrays the GPUs unpack into are sized for the first
    // two chunks (one for a file of one chunk; stream_bytes_per_row counts
    // three results). The CPU backend makes its own.
    std::thread presize([&] {
      const int results = options.backend != Backend::cuda            ? 0
                          : options.end - options.begin > first_chunk ? 2
                                                                      : 1;
      try {
        for (int i = 0; i < results; ++i) {
          TransportResult r;  // pages touched now, not while the first chunk waits
          size_result_columns(r, static_cast<std::size_t>(first_chunk), nullptr);
          spare.give(std::move(r));
        }
      } catch (const std::bad_alloc&) {
        // the transport allocates its own
      }
    });
    try {
      prepare_transport(params, options.backend, static_cast<std::size_t>(first_chunk),
                        options.gpus);
    } catch (...) {
      presize.join();
      throw;
    }
    presize.join();
    totals.prepare_seconds = seconds_since(t_prepare);
    trace("stream: GPU set-up done");
    while (auto c = inputs.pop()) {
      TransportStats stats;
      Transported t{spare.take(), c->muons.size()};
      transport_into(t.result, params, c->muons, options.backend, options.threads, c->first_id,
                     &stats, options.gpus, options.rows);
      spare_inputs.give(std::move(c->muons));  // not needed while the result waits
      c.reset();
      totals.rows += stats.muons;
      totals.steps += stats.steps;
      totals.transport_seconds += stats.seconds;
      totals.kernel_seconds += stats.kernel_seconds;
      totals.backend = stats.backend;
      totals.gpus = stats.gpus;
      for (int k = 0; k < kMuonStatusCount; ++k) totals.by_status[k] += stats.by_status[k];
      if (trace_enabled()) trace(fmt::format("stream: {} muons transported", totals.rows));
      if (!outputs.push(std::move(t))) break;
    }
    outputs.close();
    transported = true;
    releaser.release(spare.take_all());
    releaser.release(spare_inputs.take_all());
    if (options.on_transported) options.on_transported();
  } catch (...) {
    fail();
  }
  read_thread.join();
  write_thread.join();
  if (error) std::rethrow_exception(error);
  totals.written = writer.rows();
  totals.read_seconds = read_seconds;
  totals.write_seconds = write_seconds;
  totals.wall_seconds = seconds_since(t_stream);
  return totals;
}

std::size_t stream_bytes_per_row(const MuonReader& reader) {
  // Two input chunks (one read ahead), the result being transported and one
  // waiting for the writer, the encoded rows (<= 256 B of CSV text), and the
  // reader's own buffer; results carry the muons (36 B) plus status, plane and
  // steps (12 B).
  const std::size_t batch = 6 * sizeof(float) + sizeof(std::int32_t) + sizeof(double);
  const std::size_t result = batch + 3 * sizeof(std::int32_t);
  return reader.buffer_bytes_per_row() + 2 * batch + 3 * result + 200;
}

std::size_t chunk_rows_for_memory(std::uint64_t max_memory, std::uint64_t resident,
                                  std::size_t bytes_per_row) {
  // A quarter kept back for allocator slack and the transport's own buffers.
  const std::uint64_t room = max_memory > resident ? (max_memory - resident) / 4 * 3 : 0;
  const std::uint64_t rows = room / std::max<std::size_t>(bytes_per_row, 1);
  if (rows < kMinChunkRows) {
    throw Error(
        fmt::format("--max-memory: {:.0f} MB leaves no room for muons: tables and geometry already "
                    "take {:.0f} MB",
                    max_memory / 1e6, resident / 1e6));
  }
  return static_cast<std::size_t>(std::min<std::uint64_t>(rows, std::uint64_t(1) << 30));
}

}  // namespace fastmu
