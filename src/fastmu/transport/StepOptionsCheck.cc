#include "fastmu/transport/StepOptionsCheck.hh"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "fastmu/core/Error.hh"

namespace fastmu {
namespace {

void check_values(double step, double p_kill, std::int64_t max_steps, std::int64_t long_steps) {
  if (!(step > 0.0 && step <= kMaxTableStep)) {
    throw Error(fmt::format("--step: {} m is not a length in (0, {}] m", step, kMaxTableStep));
  }
  // p_kill = 0 would let a muon reach p = 0, where its direction is undefined.
  if (!(p_kill > 0.0 && p_kill <= 1e30)) {
    throw Error(fmt::format("--p-kill: {} GeV/c is not a positive momentum", p_kill));
  }
  if (max_steps < 1 || max_steps > std::numeric_limits<std::int32_t>::max()) {
    throw Error(fmt::format("--max-steps: {} is not in [1, {}]", max_steps,
                            std::numeric_limits<std::int32_t>::max()));
  }
  if (long_steps < 0 || long_steps > kMaxLongSteps) {
    throw Error(fmt::format("--long-steps: {} is not in [0, {}]", long_steps, kMaxLongSteps));
  }
}

}  // namespace

StepOptions checked_step_options(const StepSettings& s) {
  check_values(s.step, s.p_kill, s.max_steps, s.long_steps);
  StepOptions o;
  o.step = static_cast<float>(s.step);
  o.p_kill = static_cast<float>(s.p_kill);
  o.max_steps = static_cast<std::int32_t>(s.max_steps);
  o.seed = s.seed;
  o.long_steps = static_cast<std::int32_t>(s.long_steps);
  o.decay = s.decay;
  return o;
}

void check_step_options(const StepOptions& o) {
  check_values(o.step, o.p_kill, o.max_steps, o.long_steps);
}

bool parse_decay(const std::string& text) {
  if (text == "on") return true;
  if (text == "off") return false;
  throw Error(fmt::format("--decay: '{}' is not on or off", text));
}

}  // namespace fastmu
