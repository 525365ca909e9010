// Inline float sin/cos and exp for the hot step loop, identical on host and
// device. On the host, libm's sinf/cosf/expf are out-of-line calls (with errno
// and range-reduction paths the step never needs); these are a few FMAs each,
// accurate to a few float ulps over the ranges the step uses.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "fastmu/core/Macros.hh"

namespace fastmu {

// The smaller and the larger of two floats. On the device the hardware's
// fminf and fmaxf; on the host a compare and a select (minss / maxss), which
// the compiler inlines and vectorises: without -ffinite-math-only, fminf
// and fmaxf are libm calls there, and a call in the CPU lanes' loops keeps
// them scalar (one thread, SHiP-like shield: 20 % of the run; the NaN test
// that would give fminf's answer for a NaN b costs most of that). The same
// for numbers; a NaN a gives b, as fminf, a NaN b is returned, where fminf
// gives a. The step's values are numbers (rows are checked when read).
FASTMU_HD FASTMU_FORCEINLINE float fmin_inline(float a, float b) {
#ifdef __CUDA_ARCH__
  return fminf(a, b);
#else
  return a < b ? a : b;
#endif
}
FASTMU_HD FASTMU_FORCEINLINE float fmax_inline(float a, float b) {
#ifdef __CUDA_ARCH__
  return fmaxf(a, b);
#else
  return a > b ? a : b;
#endif
}

// sin and cos of a + k pi / 2 for |a| <= pi / 4 (k any quadrant count): the
// Taylor series to a^9 (sin) and a^8 (cos), accurate to < 3e-8 there (first
// omitted terms a^11/11!, a^10/10!), then the quarter turns k mod 4.
FASTMU_HD FASTMU_FORCEINLINE void sincos_quadrant(float a, std::int32_t k, float& s, float& c) {
  const float a2 = a * a;
  const float sa =
      a *
      (1.0f + a2 * (-1.0f / 6 + a2 * (1.0f / 120 + a2 * (-1.0f / 5040 + a2 * (1.0f / 362880)))));
  const float ca =
      1.0f + a2 * (-0.5f + a2 * (1.0f / 24 + a2 * (-1.0f / 720 + a2 * (1.0f / 40320))));
  // Quarter turns: (s, c) -> (c, -s) per turn.
  const bool odd = (k & 1) != 0, neg = (k & 2) != 0;
  s = odd ? ca : sa;
  c = odd ? -sa : ca;
  if (neg) s = -s, c = -c;
}

// sin(2 pi u) and cos(2 pi u) for u in [0, 1]. The nearest quarter turn
// k = round(4u) is split off exactly (4u - k is exact in float), leaving an
// angle in [-pi/4, pi/4].
FASTMU_HD FASTMU_FORCEINLINE void sincos_two_pi(float u, float& s, float& c) {
  const float t = 4.0f * u;
  const std::int32_t k = static_cast<std::int32_t>(t + 0.5f);  // t >= 0: truncation = floor
  sincos_quadrant((t - static_cast<float>(k)) * 1.57079632679489662f, k, s, c);
}

// sin(a) and cos(a) for an angle a [rad] of any size, to a few float ulps
// (absolute, or relative for |a| < pi / 4, where no reduction is made). The
// nearest multiple k of pi / 2 is taken off in two parts (Cody-Waite: the
// first part has 8 significant bits, so its product with k is exact for
// |k| < 2^16, i.e. |a| < 1e5).
FASTMU_HD FASTMU_FORCEINLINE void sincos_fast(float a, float& s, float& c) {
  const float kf = rintf(a * 0.636619772367581343f);  // a / (pi / 2), nearest
  const float r = (a - kf * 1.5703125f) - kf * 4.83826794896619231e-4f;
  // k mod 4 from the float count (which may exceed any integer type), by
  // comparisons: a NaN angle (a SIMD lane whose result is not kept) gives
  // quadrant 0 and a NaN, never a float-to-int conversion of a NaN.
  const float k4 = kf - 4.0f * floorf(0.25f * kf);
  const std::int32_t k = (k4 >= 1.0f) + (k4 >= 2.0f) + (k4 >= 3.0f);
  sincos_quadrant(r, k, s, c);
}

// exp(x) for x in [-87, 88] (normal float results), relative error < 2e-7.
// Cody-Waite reduction x = n ln2 + r, |r| <= ln2 / 2, then the Taylor series
// of e^r to r^7 (omitted term r^8/8! < 2e-9), and 2^n put into the exponent.
FASTMU_HD FASTMU_FORCEINLINE float exp_fast(float x) {
  x = x < -87.0f ? -87.0f : (x > 88.0f ? 88.0f : x);
  const float y = x * 1.44269504088896341f;
  const std::int32_t n = static_cast<std::int32_t>(y + (y >= 0.0f ? 0.5f : -0.5f));
  const float nf = static_cast<float>(n);
  // ln 2 in two parts: nf * hi is exact for |n| < 2^9.
  const float r = (x - nf * 0.693145751953125f) - nf * 1.428606765330187e-6f;
  const float e =
      1.0f +
      r * (1.0f + r * (0.5f + r * (1.0f / 6 +
                                   r * (1.0f / 24 +
                                        r * (1.0f / 120 + r * (1.0f / 720 + r * (1.0f / 5040)))))));
  const std::uint32_t bits = static_cast<std::uint32_t>(n + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return e * scale;
}

// ln(x) for normal x > 0: error ~1e-7, relative for |ln x| > 1, absolute below.
// x = 2^e m with m in [sqrt(1/2), sqrt(2)); ln m = 2 atanh(s), s = (m-1)/(m+1),
// |s| < 0.172, by its series to s^9 (omitted term 2 s^11 / 11 < 1e-9).
FASTMU_HD FASTMU_FORCEINLINE float log_fast(float x) {
  std::uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  // Bias the mantissa by sqrt(2) - 1 so that the exponent rounds at sqrt(2).
  const std::uint32_t shifted = bits + (0x3f800000u - 0x3f3504f3u);
  const std::int32_t e = static_cast<std::int32_t>(shifted >> 23) - 127;
  const std::uint32_t mbits = (shifted & 0x007fffffu) + 0x3f3504f3u;
  float m;
  std::memcpy(&m, &mbits, sizeof m);
  const float s = (m - 1.0f) / (m + 1.0f);
  const float s2 = s * s;
  const float ln_m =
      2.0f * s * (1.0f + s2 * (1.0f / 3 + s2 * (1.0f / 5 + s2 * (1.0f / 7 + s2 * (1.0f / 9)))));
  return static_cast<float>(e) * 0.693147180559945309f + ln_m;
}

}  // namespace fastmu
