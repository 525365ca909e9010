// $FASTMU_TRACE=1: the milestones of a command (set-up steps, the GPUs' start,
// each chunk of a stream) printed to stderr with the seconds since the process
// started, to see which fixed cost lies on the path to the first output row
// (BENCHMARKS.md). Off, a milestone costs one branch.
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace fastmu {

namespace detail {
// The first use of the clock in the process: the static initialisation of the
// executable, before main().
inline const std::chrono::steady_clock::time_point trace_origin = std::chrono::steady_clock::now();
}  // namespace detail

inline bool trace_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("FASTMU_TRACE");
    return v && *v && std::string(v) != "0";
  }();
  return on;
}

// Prints "fastmu: trace  0.1234 s  <what>" (one write: lines from several
// threads do not interleave).
inline void trace(const char* what) {
  if (!trace_enabled()) return;
  const double t =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - detail::trace_origin).count();
  std::fprintf(stderr, "fastmu: trace %8.4f s  %s\n", t, what);
}

inline void trace(const std::string& what) { trace(what.c_str()); }

}  // namespace fastmu
