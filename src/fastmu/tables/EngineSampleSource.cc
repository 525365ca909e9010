#include "fastmu/tables/EngineSampleSource.hh"

#include <cmath>
#include <sstream>

#include "fastmu/core/Error.hh"
#include "fastmu/core/InputLimits.hh"
#include "fastmu/core/Progress.hh"
#include "fastmu/core/Version.hh"
#include "fastmu/tables/LadderBuilder.hh"

namespace fastmu {

namespace {
// SplitMix64 finaliser (Steele et al., OOPSLA 2014).
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
}  // namespace

std::uint64_t derived_seed(std::uint64_t seed, std::uint64_t a, std::uint64_t b) {
  return mix(mix(mix(seed) ^ a) ^ (b + 0x51ed270b0b1e5ull));
}

EngineSampleSource::EngineSampleSource(const Material& material, double step_m, int charge,
                                       std::uint64_t seed, int threads, PhysicsOptions physics)
    : material_(material),
      step_m_(step_m),
      charge_(charge),
      seed_(seed),
      threads_(threads),
      physics_(physics) {}

void EngineSampleSource::fill_bin(int bin, double p_lo, double p_hi, std::size_t n,
                                  BinHistogrammer& hist, ProgressBar* progress) {
  hist.reserve(n);
  for (std::size_t done = 0, chunk = 0; done < n; ++chunk) {
    const std::size_t m = std::min(kChunk, n - done);
    const auto samples = sample_single_step(material_, p_lo, p_hi, step_m_, m, charge_,
                                            derived_seed(seed_, bin, chunk), threads_, physics_);
    for (const MuonSample& s : samples) hist.add(s.p0, s.px, s.py, s.pz);
    done += m;
    if (progress) progress->add(m);
  }
}

std::vector<double> EngineSampleSource::pilot_phi(const std::vector<double>& probes, std::size_t k,
                                                  ProgressBar* progress) {
  std::vector<double> phi(probes.size());
  for (std::size_t j = 0; j < probes.size(); ++j) {
    // Stream 1 << 40 + j keeps the pilot muons apart from the table's own.
    const auto samples =
        sample_single_step(material_, probes[j], probes[j], step_m_, k, charge_,
                           derived_seed(seed_, (1ull << 40) + j, 0), threads_, physics_);
    double sum = 0;
    std::size_t used = 0;
    for (const MuonSample& s : samples) {
      const double loss = (s.p0 - s.pz) / s.p0;
      if (loss > 0) {
        sum += std::log(loss);
        ++used;
      }
    }
    phi[j] = used ? sum / used : 0.0;
    if (progress) progress->add(k);
  }
  return phi;
}

std::string engine_generator(const PhysicsOptions& physics) {
  std::ostringstream s;
  s << "fastmu " << FASTMU_VERSION << " detailed engine (photonuclear ";
  if (physics.photonuclear) {
    s << "on";
  } else {
    s << "from " << physics.photonuclear_from_gev << " GeV";
  }
  s << ", decay " << (physics.decay ? "on" : "off") << ", production cut "
    << physics.production_cut_m * 1e3 << " mm, tracking cut " << physics.tracking_cut_gev * 1e3
    << " MeV)";
  return s.str();
}

std::string EngineSampleSource::generator() const { return engine_generator(physics_); }

TableParams build_table_with_engine(const Material& material, const TableBuildOptions& options,
                                    bool progress, PhysicsOptions physics) {
  return build_table_with_engine(material, options, progress, BinShare{}, nullptr, physics);
}

TableParams build_table_with_engine(const Material& material, const TableBuildOptions& options,
                                    bool progress, const BinShare& share, BinShareReport* report,
                                    PhysicsOptions physics) {
  if (!(options.step_m > 0 && options.step_m <= limits::kMaxStep)) {
    throw Error("--step: " + std::to_string(options.step_m) + " m is not in (0, 1000] m");
  }
  auto tables = build_ladder_tables(material, {{options.step_m, 0.0}}, options, progress, share,
                                    report, physics);
  return std::move(tables.front());
}

}  // namespace fastmu
