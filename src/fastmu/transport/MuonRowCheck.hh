// The one check of a muon row px,py,pz,x,y,z,pdg,weight (interfaces.md "Muon
// files"), used by the file readers, `fastmu run`, `fastmu validate` and the
// Python bindings (host and device arrays), so that they accept and refuse the
// same rows with the same words.
//
// A row is transported when its values are finite and fit a float (the
// transport's precision), its pdg is +-13, its weight is finite, and its
// momentum is at most the limits' p_max. p_max is the tables' top under the
// default policy for momenta above the tables (MomentumPolicy::refuse); under
// MomentumPolicy::stop the row is accepted and the transport ends it with
// status above_tables. Positions are not limited: a muon outside the world
// leaves it at its first step.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "fastmu/core/Macros.hh"
#include "fastmu/transport/MuonBatch.hh"

namespace fastmu {

// What a muon above the tables' top momentum gets (interfaces.md).
enum class MomentumPolicy : std::int32_t {
  refuse,  // the row is refused with one line naming it (default)
  stop,    // the muon is not transported: status above_tables
};

struct MuonRowLimits {
  double p_max = std::numeric_limits<double>::infinity();  // GeV/c; refused above
};

// Largest magnitude a float column holds (the transport's precision).
inline constexpr double kFloatColumnMax = 3.4028234663852886e38;

// The momentum magnitude of a row, in double: px = 3e38 and the like do not
// overflow here as they would in float.
FASTMU_HD FASTMU_FORCEINLINE double row_momentum(double px, double py, double pz) {
  const double s = fmax(fabs(px), fmax(fabs(py), fabs(pz)));
  if (!(s > 0.0)) return 0.0;
  const double a = px / s, b = py / s, c = pz / s;
  return s * sqrt(a * a + b * b + c * c);
}

// The largest |p| of a batch [GeV/c] (0 for none): how far up a run's
// tables must reach (TableBuildOptions::p_top).
inline double highest_momentum(const MuonBatch& b) {
  double top = 0;
  for (std::size_t i = 0; i < b.size(); ++i)
    top = fmax(top, row_momentum(b.px[i], b.py[i], b.pz[i]));
  return top;
}

// The same on `threads` threads (0: all): a file's worth of rows (`fastmu
// run --p-max auto` scans the whole input before the tables are chosen).
double highest_momentum(const MuonBatch& b, int threads);

// Whether row v = px,py,pz,x,y,z,pdg,weight can be transported. T: float or
// double (file rows, NumPy and device arrays).
template <class T>
FASTMU_HD FASTMU_FORCEINLINE bool muon_row_ok(const T* v, double p_max) {
  // |x| <= max is false for NaN and infinity: no isfinite, the same on host
  // and device.
  bool ok = true;
  for (int k = 0; k < 6; ++k) ok &= fabs(static_cast<double>(v[k])) <= kFloatColumnMax;
  const double pdg = static_cast<double>(v[6]);
  ok &= (pdg == 13.0 || pdg == -13.0) &&
        fabs(static_cast<double>(v[7])) <= std::numeric_limits<double>::max();
  return ok && row_momentum(v[0], v[1], v[2]) <= p_max;
}

// What is wrong with row v (muon_row_ok false): "column pz: value inf is not a
// finite number", "|p| = 1e+15 GeV/c is above ...". Empty when nothing is.
std::string muon_row_problem(const double* v, const MuonRowLimits& limits);

// Checks every row of a batch (as read or built in memory); throws
// fastmu::Error "<source> row N, <problem>" for the first bad one.
void check_muon_rows(const MuonBatch& muons, const MuonRowLimits& limits,
                     const std::string& source);

// "refuse" | "stop" (--above-tables, Python above_tables=), else fastmu::Error.
MomentumPolicy momentum_policy(const std::string& name);

}  // namespace fastmu
