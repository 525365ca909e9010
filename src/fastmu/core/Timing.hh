// Wall-clock seconds for the timings fastmu reports (steady clock).
#pragma once

#include <chrono>

namespace fastmu {

using SteadyClock = std::chrono::steady_clock;

// Seconds elapsed since t0.
inline double seconds_since(SteadyClock::time_point t0) {
  return std::chrono::duration<double>(SteadyClock::now() - t0).count();
}

}  // namespace fastmu
