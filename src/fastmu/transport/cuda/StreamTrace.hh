// Where the streamed pipeline's host threads spend their time, printed on
// request, and the kernel time of a call (the union of its kernels'
// intervals). Host code only.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace fastmu::cuda {

// Length of the union of [a, b) intervals.
double union_length(std::vector<std::pair<float, float>> iv) {
  std::sort(iv.begin(), iv.end());
  double total = 0, lo = 0, hi = 0;
  bool open = false;
  for (const auto& [a, b] : iv) {
    if (open && a <= hi) {
      hi = std::max<double>(hi, b);
      continue;
    }
    if (open) total += hi - lo;
    lo = a, hi = b, open = true;
  }
  if (open) total += hi - lo;
  return total;
}

// Whether the variable `name` is set to something other than "" or "0".
inline bool env_flag(const char* name) {
  const char* v = std::getenv(name);
  return v && *v && std::string(v) != "0";
}

// $FASTMU_TRACE_STREAMS=1 (or its older name FASTMU_TRACE_LANES): each
// streamed call prints to stderr where the host threads of its stream slots
// spent their time (packing, waiting for the GPU, for the chunks before
// theirs, unpacking), to see what keeps a call above its kernel time.
class StreamTrace {
 public:
  enum Phase { pack, gpu, copy, order, unpack, kPhases };
  static bool enabled() {
    static const bool on = env_flag("FASTMU_TRACE_STREAMS") || env_flag("FASTMU_TRACE_LANES");
    return on;
  }
  explicit StreamTrace(bool on) : on_(on), t0_(Clock::now()) {}
  double now() const { return on_ ? std::chrono::duration<double>(Clock::now() - t0_).count() : 0; }
  // Adds [since, now) to `phase`; returns now.
  double add(Phase phase, double since) {
    if (!on_) return 0;
    const double t = now();
    std::lock_guard<std::mutex> lock(mu_);
    busy_[phase] += t - since;
    return t;
  }
  void chunk(double started, double finished) {
    if (!on_) return;
    std::lock_guard<std::mutex> lock(mu_);
    ++chunks_;
    first_done_ = chunks_ == 1 ? finished : std::min(first_done_, finished);
    last_start_ = std::max(last_start_, started);
  }
  void print(std::size_t n, int streams, double kernel_s) const {
    if (!on_) return;
    std::fprintf(
        stderr,
        "fastmu: streams: %zu muons, %zu chunks on %d streams, call %.4f s, kernels %.4f s; "
        "stream-seconds packing %.4f, waiting for the GPU %.4f, for the copy back %.4f, "
        "for earlier chunks %.4f, unpacking %.4f; first chunk done %.4f s, last "
        "taken %.4f s\n",
        n, chunks_, streams, now(), kernel_s, busy_[pack], busy_[gpu], busy_[copy], busy_[order],
        busy_[unpack], first_done_, last_start_);
  }

 private:
  using Clock = std::chrono::steady_clock;
  bool on_;
  Clock::time_point t0_;
  mutable std::mutex mu_;
  double busy_[kPhases] = {};
  std::size_t chunks_ = 0;
  double first_done_ = 0, last_start_ = 0;
};

}  // namespace fastmu::cuda
