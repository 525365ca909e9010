// A synthetic single-step model for testing the tables without the detailed
// engine: a narrow log-normal core of the momentum loss around f(p), a
// power-law-like radiative tail (some muons stop), a few zero-loss muons, and
// a Rayleigh-distributed transverse kick with a single-scattering tail.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "fastmu/core/Random.hh"
#include "fastmu/tables/TableBuilder.hh"

namespace fastmu::test {

// Mean-ish loss fraction at p: steep 1/p at low momentum (ionisation),
// slow rise at high momentum (radiative losses).
inline double synthetic_loss_scale(double p) {
  return 0.025 / p * (1 + 0.1 / (p * p)) + 2e-5 * std::log(1 + p);
}

struct SyntheticSample {
  double p0, px, py, pz;
};

// Muon `id` of stream `seed` at momentum p0.
inline SyntheticSample synthetic_sample(double p0, std::uint64_t seed, std::uint64_t id) {
  const Philox4 r1 = philox_block(seed, id, 0, RngStream::table_build);
  const Philox4 r2 = philox_block(seed, id, 1, RngStream::table_build);
  const double u1 = to_unit_open(r1.v[0]), u2 = to_unit_open(r1.v[1]);
  const double gauss = std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
  const double sel = to_unit_open(r1.v[2]);
  double loss = synthetic_loss_scale(p0) * std::exp(0.12 * gauss);
  if (sel < 0.005) {
    loss = 0;  // zero loss: the floor bin
  } else if (sel < 0.08) {
    loss *= std::exp(2.5 * -std::log(to_unit_open(r1.v[3])));  // radiative tail
  }
  double kick = 0.0136 / p0 * std::sqrt(-2 * std::log(to_unit_open(r2.v[0])));
  if (to_unit_open(r2.v[1]) < 0.01) kick *= 1 + 20 * to_unit_open(r2.v[2]);  // single scattering
  const double phi = 2 * M_PI * to_unit_open(r2.v[3]);
  // No stopped muons here: their point mass at loss 1 is smeared over the top
  // log bin by design (see docs/stepping-and-tables.md) and would blur the quantile tests.
  if (loss >= 1) loss = to_unit_open(philox_block(seed, id, 3, RngStream::table_build).v[0]);
  const double pt = kick * p0;
  return {p0, pt * std::cos(phi), pt * std::sin(phi), p0 * (1 - loss)};
}

// Momentum of muon i of bin [p_lo, p_hi): uniform in the bin.
inline double synthetic_momentum(double p_lo, double p_hi, std::uint64_t seed, std::uint64_t id) {
  const Philox4 r = philox_block(seed, id, 2, RngStream::table_build);
  return p_lo + (p_hi - p_lo) * to_unit_open(r.v[0]);
}

class SyntheticSource final : public SampleSource {
 public:
  explicit SyntheticSource(std::uint64_t seed = 7) : seed_(seed) {}

  static std::uint64_t id(int bin, std::size_t i) { return (std::uint64_t(bin) << 32) + i; }

  // The samples fill_bin gives for this bin (to compare the table against).
  std::vector<SyntheticSample> bin_samples(int bin, double p_lo, double p_hi, std::size_t n) const {
    std::vector<SyntheticSample> out(n);
    for (std::size_t i = 0; i < n; ++i) {
      out[i] =
          synthetic_sample(synthetic_momentum(p_lo, p_hi, seed_, id(bin, i)), seed_, id(bin, i));
    }
    return out;
  }

  void fill_bin(int bin, double p_lo, double p_hi, std::size_t n, BinHistogrammer& hist,
                ProgressBar*) override {
    for (const auto& s : bin_samples(bin, p_lo, p_hi, n)) hist.add(s.p0, s.px, s.py, s.pz);
  }

  std::vector<double> pilot_phi(const std::vector<double>& probes, std::size_t k,
                                ProgressBar*) override {
    std::vector<double> phi(probes.size());
    for (std::size_t j = 0; j < probes.size(); ++j) {
      double sum = 0;
      std::size_t used = 0;
      for (std::size_t i = 0; i < k; ++i) {
        const auto s = synthetic_sample(probes[j], seed_ + 1, (std::uint64_t(j) << 32) + i);
        const double loss = (s.p0 - s.pz) / s.p0;
        if (loss > 0) {
          sum += std::log(loss);
          ++used;
        }
      }
      phi[j] = sum / used;
    }
    return phi;
  }

  bool parallel_bins() const override { return true; }

 private:
  std::uint64_t seed_;
};

inline TableMetadata synthetic_metadata() {
  TableMetadata m;
  m.material = "G4_Fe";
  m.material_definition = "synthetic test model";
  m.density_g_cm3 = 7.874;
  m.generator = "synthetic";
  return m;
}

}  // namespace fastmu::test
