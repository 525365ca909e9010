// Momentum-bin edges for the histogram tables: logarithmic (the paper's
// choice), uniform, and adaptive by bounded variation (the paper's appendix
// "Optimal Momentum Binning").
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "fastmu/tables/TableView.hh"

namespace fastmu {

// "log" | "uniform" | "adaptive"; throws fastmu::Error naming `what` otherwise.
MomentumBinning parse_momentum_binning(const std::string& name,
                                       const std::string& what = "--binning");
const char* to_string(MomentumBinning b);

// n + 1 edges from p_min to p_max, equal steps in ln p / in p.
std::vector<double> log_momentum_edges(double p_min, double p_max, int n);
std::vector<double> uniform_momentum_edges(double p_min, double p_max, int n);

// Bounded-variation binning. `probes` is an ascending grid of momenta from
// p_min to p_max (both included) and `phi` the pilot estimator at each probe,
// Phi(p) = <ln(-dPz/P)>. From edge p_i, the next edge is the largest probe p
// with sup_{p_i <= p' <= p} |Phi(p') - Phi(p_i)| <= epsilon, found by binary
// search (the running maximum of the deviation grows with p, so the condition
// holds on a prefix). A bin is never narrower than one probe step, so the
// result is finite even where Phi jumps by more than epsilon between probes.
std::vector<double> adaptive_momentum_edges(const std::vector<double>& probes,
                                            const std::vector<double>& phi, double epsilon);

// The default probe grid of the adaptive binning: n log-spaced momenta.
std::vector<double> adaptive_probe_grid(double p_min, double p_max, int n);

}  // namespace fastmu
