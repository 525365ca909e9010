// Non-uniform random variates: templates on the generator type, any type with
// next_u32() (CounterRng, FastCounterRng, or HistoryRng, the detailed engine's
// per-history generator). Host and device.
// Algorithms: on the host the ziggurat (normal, exponential; Ziggurat.hh),
// on the device inversion of 53-bit uniforms (the ziggurat's layer tables
// live in host memory; a GPU pays little for the log and the inverse normal
// CDF in double precision): the same distributions, other draws, so GPU
// histories are statistically, not bitwise, those of the CPU. Inversion by
// sequential search and the Gaussian limit above mean 16 as in CLHEP/Geant4
// G4Poisson (Poisson), Marsaglia-Tsang 2000 (gamma).
#pragma once

#include <cmath>

#include "fastmu/core/Constants.hh"
#include "fastmu/core/Macros.hh"
#include "fastmu/core/Random.hh"
#include "fastmu/physics/Ziggurat.hh"

namespace fastmu::random {

// Uniform in (0, 1) from one 32-bit word: half the generator cost of
// CounterRng::uniform(); 2^-32 resolution is ample for every use in the
// physics models (the smallest -ln u is ~22, far beyond any relevant tail).
template <class Rng>
FASTMU_HD inline double uniform(Rng& rng) {
  return to_unit_open(rng.next_u32());
}

// Uniform in (0, 1) with 53 random bits from two words (the inversions'
// input: their tails then reach 8.3 sigma and an exponential of 36.7).
template <class Rng>
FASTMU_HD inline double uniform53(Rng& rng) {
  const std::uint32_t hi = rng.next_u32();
  return to_unit_open53(hi, rng.next_u32());
}

// One standard normal deviate (host: ziggurat, exact, ~15 instructions on its fast path).
template <class Rng>
FASTMU_HD inline double normal(Rng& rng) {
#if defined(__CUDA_ARCH__)
  return normcdfinv(uniform53(rng));
#else
  return ziggurat_normal(rng);
#endif
}

// A uniformly distributed direction in the plane: (cos phi, sin phi) without
// trigonometry (rejection from the unit disc).
template <class Rng>
FASTMU_HD inline void unit_circle(Rng& rng, double& c, double& s) {
  double u, v, r2;
  do {
    u = 2.0 * uniform(rng) - 1.0;
    v = 2.0 * uniform(rng) - 1.0;
    r2 = u * u + v * v;
  } while (r2 >= 1.0 || r2 < 1e-30);
  const double inv = 1.0 / std::sqrt(r2);
  c = u * inv;
  s = v * inv;
}

// Exponential deviate with mean 1 (host: ziggurat, exact, no logarithm on its fast path).
template <class Rng>
FASTMU_HD inline double exponential(Rng& rng) {
#if defined(__CUDA_ARCH__)
  return -std::log(uniform53(rng));
#else
  return ziggurat_exponential(rng);
#endif
}

namespace detail {
// 1/n for the Poisson search: a multiply instead of a division per term.
struct Reciprocals {
  double v[201];
  constexpr Reciprocals() : v{} {
    for (int i = 1; i <= 200; ++i) v[i] = 1.0 / i;
  }
};
inline constexpr Reciprocals kReciprocals{};
}  // namespace detail

// Poisson deviate; above mean 16 the Gaussian approximation G4Poisson uses.
template <class Rng>
FASTMU_HD inline long poisson(double mean, Rng& rng) {
  if (mean <= 0) return 0;
  if (mean <= 16.0) {
    const double u = uniform(rng);
    double term = std::exp(-mean);
    double sum = term;
    long n = 0;
    while (sum <= u && n < 200) {
      ++n;
#if defined(__CUDA_ARCH__)
      term *= mean / static_cast<double>(n);  // the host's table is not in device memory
#else
      term *= mean * detail::kReciprocals.v[n];
#endif
      sum += term;
    }
    return n;
  }
  const double v = mean + std::sqrt(mean) * normal(rng) + 0.5;
  return v <= 0 ? 0 : static_cast<long>(v);
}

// Gamma(k, 1) deviate, Marsaglia & Tsang, ACM TOMS 26 (2000) 363.
template <class Rng>
FASTMU_HD inline double gamma(double k, Rng& rng) {
  if (k < 1.0) {
    // Boost: G(k) = G(k+1) * U^(1/k).
    const double u = uniform(rng);
    return gamma(k + 1.0, rng) * std::pow(u, 1.0 / k);
  }
  const double d = k - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x, v;
    do {
      x = normal(rng);
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = uniform(rng);
    if (u < 1.0 - 0.0331 * x * x * x * x) return d * v;
    if (std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v))) return d * v;
  }
}

}  // namespace fastmu::random
