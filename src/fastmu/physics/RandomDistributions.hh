// Non-uniform random variates drawn from a counter-based generator (host and
// device): templates on the generator type, any type with next_u32() giving
// the stream of CounterRng (CounterRng itself, or FastCounterRng in the
// detailed engine's loop).
// Algorithms: Box-Muller (normal), inversion by sequential search and the
// Gaussian limit above mean 16 as in CLHEP/Geant4 G4Poisson (Poisson),
// Marsaglia-Tsang 2000 (gamma).
#pragma once

#include <cmath>

#include "fastmu/core/Constants.hh"
#include "fastmu/core/Macros.hh"
#include "fastmu/core/Random.hh"

namespace fastmu::random {

// Uniform in (0, 1) from one 32-bit word: half the generator cost of
// CounterRng::uniform(); 2^-32 resolution is ample for every use in the
// physics models (the smallest -ln u is ~22, far beyond any relevant tail).
template <class Rng>
FASTMU_HD inline double uniform(Rng& rng) { return to_unit_open(rng.next_u32()); }

// One standard normal deviate (the sine branch is dropped: draws stay a pure
// function of the counter, with no hidden cache).
template <class Rng>
FASTMU_HD inline double normal(Rng& rng) {
  const double r = std::sqrt(-2.0 * std::log(uniform(rng)));
  return r * std::cos(constants::two_pi * uniform(rng));
}

// Standard normal deviates two at a time (Marsaglia polar method: no
// trigonometry; both outputs are used). Local to one sampling call, so draws
// stay a pure function of the counter.
struct NormalPair {
  double spare = 0;
  bool has_spare = false;
  template <class Rng>
  FASTMU_HD double next(Rng& rng) {
    if (has_spare) {
      has_spare = false;
      return spare;
    }
    double u, v, r2;
    do {
      u = 2.0 * uniform(rng) - 1.0;
      v = 2.0 * uniform(rng) - 1.0;
      r2 = u * u + v * v;
    } while (r2 >= 1.0 || r2 == 0.0);
    const double f = std::sqrt(-2.0 * std::log(r2) / r2);
    spare = v * f;
    has_spare = true;
    return u * f;
  }
};

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

// Exponential deviate with mean 1 (single precision logarithm: the tail is cut at
// 16.6 mean free paths, a probability of 6e-8).
template <class Rng>
FASTMU_HD inline double exponential(Rng& rng) {
  return -static_cast<double>(std::log(to_unit_open_f(rng.next_u32())));
}

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
      term *= mean / double(n);
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
