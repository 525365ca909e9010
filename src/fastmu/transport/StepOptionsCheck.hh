// The one check of the step options, used by `fastmu run`, `fastmu validate`,
// the Python bindings and TransportParams, so that they accept
// the same values and name a bad one with the same words.
#pragma once

#include <cstdint>
#include <string>

#include "fastmu/core/InputLimits.hh"
#include "fastmu/transport/step/StepPhysics.hh"

namespace fastmu {

// The options as a user gives them (wide types: the ranges are checked
// before they are narrowed to StepOptions' float and int32).
struct StepSettings {
  double step = 0.02;    // table step [m]
  double p_kill = 0.18;  // GeV/c
  std::int64_t max_steps = 100000;
  std::uint64_t seed = 1;
  std::int64_t long_steps = kDefaultLongSteps;
  bool decay = StepOptions{}.decay;  // decay in flight (--decay on|off)
};

// Largest table step a user may ask for [m].
inline constexpr double kMaxTableStep = limits::kMaxStep;
inline constexpr std::int64_t kMaxLongSteps = 10;

// StepOptions from `s`, or fastmu::Error naming the option ("--max-steps: ...").
StepOptions checked_step_options(const StepSettings& s);

// Throws fastmu::Error when `o` is out of range (as checked_step_options).
void check_step_options(const StepOptions& o);

// "on" -> true, "off" -> false (--decay, Python decay=), else fastmu::Error.
bool parse_decay(const std::string& text);

}  // namespace fastmu
