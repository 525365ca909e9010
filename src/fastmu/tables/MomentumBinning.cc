#include "fastmu/tables/MomentumBinning.hh"

#include <cmath>
#include <cstdio>

#include "fastmu/core/Error.hh"
#include "fastmu/core/InputLimits.hh"

namespace fastmu {
namespace {

void check_range(double p_min, double p_max, int n) {
  if (!(p_min > 0) || !(p_max <= limits::kTopMomentum) || !(p_max > p_min)) {
    char text[160];
    std::snprintf(text, sizeof text,
                  "--p-min, --p-max: momenta [%g, %g] GeV/c are not 0 < p-min < p-max <= %g", p_min,
                  p_max, limits::kTopMomentum);
    throw Error(text);
  }
  if (n < 1 || n > limits::kMaxMomentumBins) {
    throw Error("--p-bins: " + std::to_string(n) + " is not in [1, " +
                std::to_string(limits::kMaxMomentumBins) + "]");
  }
}

}  // namespace

MomentumBinning parse_momentum_binning(const std::string& name, const std::string& what) {
  if (name == "log") return MomentumBinning::log;
  if (name == "uniform") return MomentumBinning::uniform;
  if (name == "adaptive") return MomentumBinning::adaptive;
  throw Error(what + ": unknown momentum binning '" + name +
              "' (expected log, uniform or adaptive)");
}

const char* to_string(MomentumBinning b) {
  switch (b) {
    case MomentumBinning::log:
      return "log";
    case MomentumBinning::uniform:
      return "uniform";
    case MomentumBinning::adaptive:
      return "adaptive";
  }
  return "unknown";
}

std::vector<double> log_momentum_edges(double p_min, double p_max, int n) {
  check_range(p_min, p_max, n);
  std::vector<double> e(n + 1);
  const double step = std::log(p_max / p_min) / n;
  for (int i = 0; i <= n; ++i) e[i] = p_min * std::exp(step * i);
  e[0] = p_min;
  e[n] = p_max;
  return e;
}

std::vector<double> uniform_momentum_edges(double p_min, double p_max, int n) {
  check_range(p_min, p_max, n);
  std::vector<double> e(n + 1);
  for (int i = 0; i <= n; ++i) e[i] = p_min + (p_max - p_min) * i / n;
  e[n] = p_max;
  return e;
}

std::vector<double> adaptive_probe_grid(double p_min, double p_max, int n) {
  return log_momentum_edges(p_min, p_max, n < 2 ? 1 : n - 1);
}

std::vector<double> adaptive_momentum_edges(const std::vector<double>& probes,
                                            const std::vector<double>& phi, double epsilon) {
  const std::size_t g = probes.size();
  if (g < 2 || phi.size() != g) throw Error("adaptive binning: need >= 2 probes with one Phi each");
  if (!(epsilon > 0))
    throw Error("--epsilon must be positive (got " + std::to_string(epsilon) + ")");
  for (std::size_t k = 0; k < g; ++k) {
    if (!std::isfinite(phi[k])) {
      throw Error("adaptive binning: pilot estimate at p = " + std::to_string(probes[k]) +
                  " GeV/c is not finite");
    }
    if (k > 0 && !(probes[k] > probes[k - 1]))
      throw Error("adaptive binning: probes not ascending");
  }
  std::vector<double> edges{probes[0]};
  std::size_t i = 0;
  while (i + 1 < g) {
    // Running maximum of |Phi - Phi(p_i)| from i on: non-decreasing, so the
    // admissible upper ends form a prefix and binary search finds its end.
    std::vector<double> dev(g - i);
    double m = 0;
    for (std::size_t k = i; k < g; ++k) {
      m = std::max(m, std::abs(phi[k] - phi[i]));
      dev[k - i] = m;
    }
    std::size_t lo = 1, hi = g - i;  // answer in [1, g - i - 1]: dev[lo] may fail -> one step
    while (hi - lo > 1) {
      const std::size_t mid = (lo + hi) / 2;
      if (dev[mid] <= epsilon) lo = mid;
      else hi = mid;
    }
    i += lo;
    edges.push_back(probes[i]);
  }
  return edges;
}

}  // namespace fastmu
