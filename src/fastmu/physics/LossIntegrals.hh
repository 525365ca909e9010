// Numerical integrals of a differential cross section d(sigma)/dk over the
// transfer k: the mean energy-loss rate (k-weighted) and the cross section.
// Gauss-Legendre quadrature in ln k, 8 points per sub-interval of at most 0.5
// in ln k: the integrands k dsigma/dk are smooth in ln k, so this is exact to
// well below 1e-4 for the muon models. Host-only (used to build tables).
#pragma once

#include <algorithm>
#include <cmath>

namespace fastmu::integrals {

inline constexpr double gl8_x[8] = {0.0198550717512320, 0.1016667612931865, 0.2372337950418355,
                                    0.4082826787521750, 0.5917173212478250, 0.7627662049581645,
                                    0.8983332387068135, 0.9801449282487680};
inline constexpr double gl8_w[8] = {0.0506142681451880, 0.1111905172266870, 0.1568533229389435,
                                    0.1813418916891810, 0.1813418916891810, 0.1568533229389435,
                                    0.1111905172266870, 0.0506142681451880};

// Integral of k^power * dxs(t, k) dk for k in [kmin, kmax] (power 1: loss rate, 0: cross section).
template <class Model>
double integrate_transfer(const Model& model, double t, double kmin, double kmax, int power) {
  if (!(kmax > kmin) || kmin <= 0) return 0;
  const double span = std::log(kmax / kmin);
  const int nsub = std::max(2, int(std::ceil(span / 0.5)));
  const double h = span / nsub;
  double sum = 0;
  for (int s = 0; s < nsub; ++s) {
    for (int i = 0; i < 8; ++i) {
      const double k = kmin * std::exp((s + gl8_x[i]) * h);
      const double kp = power == 1 ? k * k : k;  // dk = k dln k
      sum += gl8_w[i] * kp * model.dxs(t, k);
    }
  }
  return sum * h;
}

template <class Model>
double loss_rate(const Model& model, double t, double kmin, double kmax) {
  return integrate_transfer(model, t, kmin, kmax, 1);
}
template <class Model>
double cross_section(const Model& model, double t, double kmin, double kmax) {
  return integrate_transfer(model, t, kmin, kmax, 0);
}

}  // namespace fastmu::integrals
