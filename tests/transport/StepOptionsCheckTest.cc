// The one check of the step options (StepOptionsCheck.hh) that `fastmu run`,
// `fastmu validate`, Python and TransportParams share: the same values are
// accepted everywhere and a bad one is named with the same words.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "fastmu/core/Error.hh"
#include "fastmu/transport/StepOptionsCheck.hh"

namespace fastmu {
namespace {

std::string message_of(const StepSettings& s) {
  try {
    checked_step_options(s);
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

TEST(StepOptionsCheck, AcceptsTheRangesAndNarrowsExactly) {
  StepSettings s;
  s.max_steps = std::numeric_limits<std::int32_t>::max();
  s.long_steps = kMaxLongSteps;
  s.seed = ~0ull;
  const StepOptions o = checked_step_options(s);
  EXPECT_EQ(o.max_steps, std::numeric_limits<std::int32_t>::max());
  EXPECT_EQ(o.long_steps, kMaxLongSteps);
  EXPECT_EQ(o.seed, ~0ull);
  EXPECT_EQ(o.step, 0.02f);
  EXPECT_EQ(o.p_kill, 0.18f);
  EXPECT_NO_THROW(check_step_options(o));
}

TEST(StepOptionsCheck, NamesTheOptionOutOfRange) {
  const double nan = std::nan("");
  struct Case {
    StepSettings s;
    const char* starts;
  };
  const Case cases[] = {
      {{0.0, 0.18, 100000, 1, 3}, "--step: 0 m"},
      {{nan, 0.18, 100000, 1, 3}, "--step: nan m"},
      {{2000.0, 0.18, 100000, 1, 3}, "--step: 2000 m"},
      {{0.02, 0.0, 100000, 1, 3}, "--p-kill: 0 GeV/c is not a positive momentum"},
      {{0.02, -1.0, 100000, 1, 3}, "--p-kill: -1 GeV/c"},
      {{0.02, nan, 100000, 1, 3}, "--p-kill: nan GeV/c"},
      {{0.02, 0.18, 0, 1, 3}, "--max-steps: 0 is not in [1, 2147483647]"},
      {{0.02, 0.18, 2147483648LL, 1, 3}, "--max-steps: 2147483648"},
      {{0.02, 0.18, 100000, 1, -1}, "--long-steps: -1 is not in [0, 10]"},
      {{0.02, 0.18, 100000, 1, 11}, "--long-steps: 11"},
  };
  for (const Case& c : cases) {
    const std::string m = message_of(c.s);
    EXPECT_EQ(m.rfind(c.starts, 0), 0u)
        << "got '" << m << "', expected it to start with '" << c.starts << "'";
  }
}

}  // namespace
}  // namespace fastmu
