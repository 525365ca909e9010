#include "fastmu/transport/MuonRowCheck.hh"

#include <algorithm>
#include <mutex>

#include <fmt/format.h>

#include "fastmu/core/Error.hh"
#include "fastmu/core/Parallel.hh"

namespace fastmu {

std::string muon_row_problem(const double* v, const MuonRowLimits& limits) {
  static constexpr const char* kNames[8] = {"px", "py", "pz", "x", "y", "z", "pdg", "weight"};
  for (int k = 0; k < 6; ++k) {
    if (!(std::fabs(v[k]) <= kFloatColumnMax)) {
      return std::isfinite(v[k])
                 ? fmt::format("column {}: value {} is beyond the float range (|value| <= {:g})",
                               kNames[k], v[k], kFloatColumnMax)
                 : fmt::format("column {}: value {} is not a finite number", kNames[k], v[k]);
    }
  }
  if (v[6] != 13.0 && v[6] != -13.0) {
    return fmt::format("column pdg: {} is not a muon PDG code (13 = mu-, -13 = mu+)", v[6]);
  }
  if (!std::isfinite(v[7]))
    return fmt::format("column weight: value {} is not a finite number", v[7]);
  const double p = row_momentum(v[0], v[1], v[2]);
  if (!(p <= limits.p_max)) {
    return fmt::format(
        "|p| = {:g} GeV/c is above the tables' top {:g} GeV/c (momenta above it are refused; "
        "--above-tables stop ends such muons with status 5 instead)",
        p, limits.p_max);
  }
  return {};
}

double highest_momentum(const MuonBatch& b, int threads) {
  std::mutex m;
  double top = 0;
  parallel_for_chunks(b.size(), threads, std::size_t(1) << 16, [&](std::size_t i0, std::size_t i1) {
    double t = 0;
    for (std::size_t i = i0; i < i1; ++i) t = fmax(t, row_momentum(b.px[i], b.py[i], b.pz[i]));
    std::lock_guard<std::mutex> lock(m);
    top = std::max(top, t);
  });
  return top;
}

void check_muon_rows(const MuonBatch& b, const MuonRowLimits& limits, const std::string& source) {
  for (std::size_t i = 0; i < b.size(); ++i) {
    const double v[8] = {
        b.px[i],    b.py[i], b.pz[i], b.x[i], b.y[i], b.z[i], static_cast<double>(b.pdg[i]),
        b.weight[i]};
    if (!muon_row_ok(v, limits.p_max)) {
      throw Error(fmt::format("{} row {}, {}", source, i, muon_row_problem(v, limits)));
    }
  }
}

MomentumPolicy momentum_policy(const std::string& name) {
  if (name == "refuse") return MomentumPolicy::refuse;
  if (name == "stop") return MomentumPolicy::stop;
  throw Error(fmt::format("--above-tables: '{}' is not refuse or stop", name));
}

}  // namespace fastmu
