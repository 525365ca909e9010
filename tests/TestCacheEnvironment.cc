// Every test executable, and each `fastmu` command that a test starts, shares
// one reduced-statistics table cache in the build folder: tests never build
// into (or read from) the user's cache, and a table built by one test (a
// ladder entry, say) is found by the next. A user's FASTMU_CACHE /
// FASTMU_CACHE_SAMPLES, when set, are kept.
#include <cstdlib>

namespace {

const bool kTestCacheSet = [] {
  setenv("FASTMU_CACHE", FASTMU_TEST_CACHE_DIR, 0);
  setenv("FASTMU_CACHE_SAMPLES", "20000", 0);
  return true;
}();

}  // namespace
