// Work sharing over std::thread for the CPU paths. Work items are independent
// and their random numbers are keyed by item id, so the result does not depend
// on the thread count or on which thread took which chunk.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace fastmu {

// Number of worker threads for `requested` (<= 0: all hardware threads).
inline int resolve_thread_count(int requested) {
  if (requested > 0) return requested;
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : static_cast<int>(hw);
}

// Calls body(begin, end) on chunks of [0, n) from `threads` threads.
// The first exception thrown by a worker is rethrown on the caller's thread.
template <class Body>
void parallel_for_chunks(std::size_t n, int threads, std::size_t chunk, Body&& body) {
  threads = resolve_thread_count(threads);
  chunk = std::max<std::size_t>(chunk, 1);
  std::atomic<std::size_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto worker = [&] {
    try {
      for (;;) {
        const std::size_t begin = next.fetch_add(chunk);
        if (begin >= n) break;
        body(begin, std::min(n, begin + chunk));
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
      next.store(n);
    }
  };
  const int spawn = static_cast<int>(std::min<std::size_t>(threads, (n + chunk - 1) / chunk));
  if (spawn <= 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    pool.reserve(spawn - 1);
    for (int t = 1; t < spawn; ++t) pool.emplace_back(worker);
    worker();
    for (auto& th : pool) th.join();
  }
  if (error) std::rethrow_exception(error);
}

// The smallest i in [0, n) with bad(i), else n, checked on `threads` threads
// (validating a large array without making its first bad entry depend on them).
template <class Pred>
std::size_t first_index_where(std::size_t n, int threads, Pred&& bad) {
  std::atomic<std::size_t> first{n};
  parallel_for_chunks(n, threads, std::size_t(1) << 18, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e && i < first.load(std::memory_order_relaxed); ++i) {
      if (bad(i)) {
        std::size_t seen = first.load();
        while (i < seen && !first.compare_exchange_weak(seen, i)) {
        }
        return;
      }
    }
  });
  return first.load();
}

}  // namespace fastmu
