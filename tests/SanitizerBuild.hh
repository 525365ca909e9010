// Whether a test binary is built with AddressSanitizer (CI's second build):
// its shadow memory inflates resident sizes, and its slowdown makes the
// statistics checks that build tables for minutes unaffordable there (the
// code they run is checked there by the smaller tests).
#pragma once

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FASTMU_TEST_UNDER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(FASTMU_TEST_UNDER_ASAN)
#define FASTMU_TEST_UNDER_ASAN 1
#endif

namespace fastmu::test {

#ifdef FASTMU_TEST_UNDER_ASAN
inline constexpr bool kUnderAsan = true;
#else
inline constexpr bool kUnderAsan = false;
#endif

}  // namespace fastmu::test
