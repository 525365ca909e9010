// Small synthetic tables for the transport fuzzer: the detailed engine is far
// too slow to build tables per input, so each (material, step, lowest
// momentum) gets a table built once from a cheap single-step model (log-normal
// loss around ~1/p, a radiative tail, some stopped and zero-loss muons,
// Rayleigh kicks) over the real momentum range 0.18-400 GeV/c, and is reused
// for every later input that asks for it.
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "fastmu/materials/Material.hh"
#include "fastmu/tables/TableBuilder.hh"
#include "fastmu/tables/TableParams.hh"

namespace fastmu::fuzz {

inline constexpr double kTableMomentumMin = 0.18, kTableMomentumMax = 400;  // GeV/c

class ToyStepSource final : public SampleSource {
 public:
  // `scale`: the mean loss fraction at 1 GeV/c (grows with the step's g/cm^2).
  explicit ToyStepSource(double scale) : scale_(scale) {}

  void fill_bin(int bin, double p_lo, double p_hi, std::size_t n, BinHistogrammer& hist,
                ProgressBar*) override {
    std::mt19937_64 rng(0x5eed0000u + static_cast<std::uint64_t>(bin));
    std::uniform_real_distribution<double> u(1e-12, 1.0);
    for (std::size_t i = 0; i < n; ++i) {
      const double p0 = p_lo + (p_hi - p_lo) * u(rng);
      const double gauss = std::sqrt(-2 * std::log(u(rng))) * std::cos(2 * M_PI * u(rng));
      const double sel = u(rng);
      double loss = scale_ / p0 * std::exp(0.2 * gauss);
      if (sel < 0.01) loss = 0;                                   // zero loss: floor bin
      if (sel > 0.93) loss *= std::exp(2.5 * -std::log(u(rng)));  // radiative tail
      if (loss >= 1) {
        hist.add(p0, 0, 0, 0);  // stopped within the step
        continue;
      }
      const double pt = 0.0136 * std::sqrt(scale_ / 0.01) * std::sqrt(-2 * std::log(u(rng)));
      const double phi = 2 * M_PI * u(rng);
      hist.add(p0, pt * std::cos(phi), pt * std::sin(phi), p0 * (1 - loss));
    }
  }

  // Log binning never runs the pilot.
  std::vector<double> pilot_phi(const std::vector<double>& probes, std::size_t,
                                ProgressBar*) override {
    return std::vector<double>(probes.size(), std::log(scale_));
  }

 private:
  double scale_;
};

// Tables by (material, step, lowest momentum), built on first use.
class SyntheticTables {
 public:
  std::shared_ptr<const TableParams> get(const Material& material, double step_m,
                                         double p_from = 0) {
    auto& slot = tables_[{material.name, step_m, p_from}];
    if (!slot) slot = std::make_shared<const TableParams>(build(material, step_m, p_from));
    return slot;
  }

 private:
  static TableParams build(const Material& material, double step_m, double p_from) {
    TableBuildOptions o;
    o.step_m = step_m;
    o.p_min = std::fmax(kTableMomentumMin, p_from);
    o.p_max = kTableMomentumMax;
    o.p_bins = 10;
    o.samples_per_bin = 400;
    o.hist_bins = 6;
    o.threads = 1;
    TableMetadata meta;
    meta.material = material.name;
    meta.material_definition = "fuzz synthetic model";
    meta.density_g_cm3 = material.density_g_cm3;
    meta.generator = "synthetic";
    // A loss fraction of 0.01 at 1 GeV/c per 2 cm of iron's mass thickness.
    ToyStepSource source(0.01 * step_m * 100 * material.density_g_cm3 / 15.75);
    return build_table(meta, o, source);
  }

  std::map<std::tuple<std::string, double, double>, std::shared_ptr<const TableParams>> tables_;
};

}  // namespace fastmu::fuzz
