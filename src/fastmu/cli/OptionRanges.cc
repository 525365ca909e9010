#include "fastmu/cli/OptionRanges.hh"

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "fastmu/core/InputLimits.hh"

namespace fastmu::cli {
namespace {

struct IntegerRange {
  const char* option;
  long double min, max;
};

// The same ranges as docs/interfaces.md, "Accepted ranges".
constexpr long double kU64Max = static_cast<long double>(std::numeric_limits<std::uint64_t>::max());
constexpr long double kI32Max = std::numeric_limits<std::int32_t>::max();
constexpr IntegerRange kRanges[] = {
    {"--n", 1, limits::kMaxMuons},
    {"--n-detailed", 0, limits::kMaxMuons},
    {"--seed", 0, kU64Max},
    {"--threads", 0, limits::kMaxThreads},
    {"--gpus", 0, 1024},
    {"--chunk-rows", 0, limits::kMaxMuons},
    {"--max-steps", 1, kI32Max},
    {"--repeat", 1, 1000},
    {"--p-bins", 1, limits::kMaxMomentumBins},
    {"--samples-per-bin", 1, 1e10},
    {"--min-samples", 1, 1e10},
    {"--pilot-muons", 1, limits::kMaxMuons},
    {"--pilot-probes", 2, limits::kMaxMomentumBins},
};

CLI::Validator integer_in(long double min, long double max) {
  const std::string desc = fmt::format("INT in [{:.0f}, {:.0f}]", min, max);
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        errno = 0;
        char* end = nullptr;
        const long double v = std::strtold(text.c_str(), &end);
        const bool number = !text.empty() && *end == '\0' && errno == 0;
        if (number && std::isfinite(v) && v == std::floor(v) && v >= min && v <= max) return {};
        return fmt::format("'{}' is not an integer in [{:.0f}, {:.0f}]", text, min, max);
      },
      desc);
}

void add_checks(CLI::App& app) {
  for (const IntegerRange& r : kRanges) {
    if (CLI::Option* opt = app.get_option_no_throw(r.option)) opt->check(integer_in(r.min, r.max));
  }
  for (CLI::App* sub : app.get_subcommands({})) add_checks(*sub);
}

}  // namespace

void check_integer_options(CLI::App& app) { add_checks(app); }

}  // namespace fastmu::cli
