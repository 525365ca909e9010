// Standard normal and unit exponential deviates by the ziggurat method
// (G. Marsaglia, W.W. Tsang, J. Stat. Softw. 5 (2000) issue 8; in double
// precision with separate random bits for the layer and the abscissa as in
// J.A. Doornik, "An improved ziggurat method to generate normal random
// samples", 2005). An exact rejection method: the density is covered by N
// layers of equal area V (the base layer holds the tail beyond R); a point
// uniform in a random layer is returned at once when inside the layer's core
// rectangle (98.8 % normal, 98.9 % exponential), else tested against the
// density (wedges) or drawn from the tail exactly (Marsaglia 1964 for the
// normal tail, memorylessness for the exponential one).
//
// Why: the detailed engine's step draws ~5 such variates; Box-Muller or the
// polar method cost a log, a sqrt and a sincos or a division each pair, -ln u
// a log each (~60-140 instructions); the ziggurat's fast path is one 64-bit
// word, a table look-up, a multiply and a compare (~15).
// The layer edges are computed once (double precision, on first use); the
// constants R, V are Marsaglia & Tsang's for 128 (normal) and 256
// (exponential) layers. The last layer's top edge is set to the mode exactly;
// its area then differs from V by ~1e-9 relative (the others agree to
// rounding; tests/physics/ZigguratTest.cc): a bias of that order in the
// probability of the top layer, far below any statistical resolution.
// Host only (function-local static tables); device code draws its normal
// and exponential variates by inversion (RandomDistributions.hh).
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "fastmu/core/Macros.hh"

namespace fastmu::random {

namespace zig_detail {

// Whether Rng has next_u64() (C++17 detection: this header is also read by nvcc).
template <class Rng, class = void>
struct has_next_u64 : std::false_type {};
template <class Rng>
struct has_next_u64<Rng, std::void_t<decltype(std::declval<Rng&>().next_u64())>> : std::true_type {
};

// 64 random bits from any generator with next_u32(), or next_u64() when it has one.
template <class Rng>
FASTMU_FORCEINLINE std::uint64_t draw_u64(Rng& rng) {
  if constexpr (has_next_u64<Rng>::value) {
    return rng.next_u64();
  } else {
    const std::uint64_t hi = rng.next_u32();
    return (hi << 32) | rng.next_u32();
  }
}

// x[i]: right edge of layer i (x[0] = V / f(R), the base layer's equivalent
// width; x[1] = R; x[n] = 0); f[i] = f(x[i]); ratio[i] = x[i+1] / x[i].
template <int N>
struct Layers {
  double x[N + 1];
  double f[N + 1];
  double ratio[N];
};

inline constexpr int kNormalLayers = 128;
inline constexpr double kNormalR = 3.442619855899;
inline constexpr double kNormalV = 9.91256303526217e-3;
inline constexpr int kExpLayers = 256;
inline constexpr double kExpR = 7.69711747013104972;
inline constexpr double kExpV = 3.949659822581572e-3;

inline const Layers<kNormalLayers>& normal_layers() {
  static const Layers<kNormalLayers> t = [] {
    Layers<kNormalLayers> l{};
    const auto f = [](double x) { return std::exp(-0.5 * x * x); };
    l.x[0] = kNormalV / f(kNormalR);
    l.x[1] = kNormalR;
    for (int i = 1; i < kNormalLayers - 1; ++i) {
      l.x[i + 1] = std::sqrt(-2.0 * std::log(kNormalV / l.x[i] + f(l.x[i])));
    }
    l.x[kNormalLayers] = 0.0;
    for (int i = 0; i <= kNormalLayers; ++i) l.f[i] = f(l.x[i]);
    for (int i = 0; i < kNormalLayers; ++i) l.ratio[i] = l.x[i + 1] / l.x[i];
    return l;
  }();
  return t;
}

inline const Layers<kExpLayers>& exponential_layers() {
  static const Layers<kExpLayers> t = [] {
    Layers<kExpLayers> l{};
    l.x[0] = kExpV / std::exp(-kExpR);
    l.x[1] = kExpR;
    for (int i = 1; i < kExpLayers - 1; ++i)
      l.x[i + 1] = -std::log(kExpV / l.x[i] + std::exp(-l.x[i]));
    l.x[kExpLayers] = 0.0;
    for (int i = 0; i <= kExpLayers; ++i) l.f[i] = std::exp(-l.x[i]);
    for (int i = 0; i < kExpLayers; ++i) l.ratio[i] = l.x[i + 1] / l.x[i];
    return l;
  }();
  return t;
}

// Uniform in (0, 1) from the upper 53 bits of a word.
FASTMU_FORCEINLINE double unit53(std::uint64_t w) {
  return (static_cast<double>(w >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

}  // namespace zig_detail

// Standard normal deviate. Layer from bits 3-9 of the word, signed abscissa
// from its upper 53 bits (disjoint bits; the lowest bits are left unused).
template <class Rng>
inline double ziggurat_normal(Rng& rng) {
  using namespace zig_detail;
  const Layers<kNormalLayers>& l = normal_layers();
  for (;;) {
    const std::uint64_t w = draw_u64(rng);
    const int i = static_cast<int>((w >> 3) & (kNormalLayers - 1));
    const double u = 2.0 * unit53(w) - 1.0;  // (-1, 1)
    if (std::abs(u) < l.ratio[i]) return u * l.x[i];
    if (i == 0) {
      // Tail beyond R (Marsaglia 1964): x = -ln(u1) / R, accepted when -2 ln(u2) > x^2.
      double x, y;
      do {
        x = -std::log(unit53(draw_u64(rng))) * (1.0 / kNormalR);
        y = -std::log(unit53(draw_u64(rng)));
      } while (2.0 * y < x * x);
      return u > 0 ? kNormalR + x : -(kNormalR + x);
    }
    // Wedge between x[i+1] and x[i]: accept under the density.
    const double x = u * l.x[i];
    const double y = l.f[i] + unit53(draw_u64(rng)) * (l.f[i + 1] - l.f[i]);
    if (y < std::exp(-0.5 * x * x)) return x;
  }
}

// Exponential deviate of mean 1. Layer from bits 3-10, abscissa from the upper 53 bits.
template <class Rng>
inline double ziggurat_exponential(Rng& rng) {
  using namespace zig_detail;
  const Layers<kExpLayers>& l = exponential_layers();
  for (;;) {
    const std::uint64_t w = draw_u64(rng);
    const int i = static_cast<int>((w >> 3) & (kExpLayers - 1));
    const double u = unit53(w);
    if (u < l.ratio[i]) return u * l.x[i];
    if (i == 0) return kExpR - std::log(unit53(draw_u64(rng)));  // tail: R + Exp(1)
    const double x = u * l.x[i];
    const double y = l.f[i] + unit53(draw_u64(rng)) * (l.f[i + 1] - l.f[i]);
    if (y < std::exp(-x)) return x;
  }
}

}  // namespace fastmu::random
