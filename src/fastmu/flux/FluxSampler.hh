// Muons sampled from the sea-level flux (SeaLevelFlux.hh) crossing a
// horizontal rectangle, with importance sampling and per-muon weights.
//
// Coordinates: z is up. A muon of zenith angle theta moves downwards with
// direction (sin(theta) cos(phi), sin(theta) sin(phi), -cos(theta)), phi
// uniform in [0, 2 pi); it starts at a point uniform over the rectangle
// x0..x1, y0..y1 (metres) at height z. Its energy E (total, GeV) is drawn
// from E^-gamma on [e_min, e_max] and cos(theta) from cos(theta)^cos_power
// on [cos(zenith_max), 1] (cos_power 0: uniform in cos(theta)); |p| =
// sqrt(E^2 - m_mu^2). The charge is drawn with the ratio kChargeRatio.
//
// Weights: in a sample of n muons, a muon's weight is the flux over the
// sampling density, over n:
//   w = A I(E, theta) cos(theta) / (n q(E, cos(theta), phi))   [s^-1],
// A the rectangle's area in m^2, q the density of (E, cos(theta), phi): the
// number of such muons per second through the rectangle. The sum of the
// weights of the sample estimates the rate (s^-1) of muons in the sampled
// energy and zenith range through the area, and a weighted histogram the
// rate per bin. The cos(theta) factor is the horizontal plane's projected
// area.
//
// Every draw is keyed by (seed, muon id), so a sample is the same for any
// thread count.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace fastmu {
class ProgressBar;
}

namespace fastmu::flux {

inline constexpr double kMaxEnergyGeV = 1e7;   // the highest e_max accepted
inline constexpr double kMaxZenithDeg = 85.0;  // the largest zenith_max accepted
inline constexpr int kFluxColumns = 8;         // px,py,pz,x,y,z,pdg,weight

struct FluxOptions {
  double e_min = 1.0;                                   // GeV, total energy
  double e_max = 1e5;                                   // GeV
  double zenith_max = 85.0;                             // degrees
  double gamma = 2.0;                                   // energy sampling index
  double cos_power = 0.0;                               // cos(theta) sampling power
  std::array<double, 4> area = {-0.5, 0.5, -0.5, 0.5};  // x0, x1, y0, y1 [m]
  double z = 0.0;                                       // m
  std::uint64_t seed = 1;
  int threads = 0;  // 0: all hardware threads
};

// Throws fastmu::Error (one line naming the option) unless every option is
// in its range: muon mass < e_min < e_max <= kMaxEnergyGeV, 0 < zenith_max
// <= kMaxZenithDeg, 0 <= gamma <= 5, 0 <= cos_power <= 10, x0 < x1, y0 < y1,
// all finite.
void check_flux_options(const FluxOptions& options);

// One muon: a row px,py,pz,x,y,z,pdg,weight.
using FluxRow = std::array<double, kFluxColumns>;

class FluxSampler {
 public:
  explicit FluxSampler(const FluxOptions& options);  // checks the options

  // Muon `id` of a sample of n muons (its weight is that of one muon in n).
  FluxRow sample(std::uint64_t id, std::size_t n) const;
  // Rows of muons 0..n-1, row-major n x kFluxColumns, on options.threads
  // threads; `progress` (may be null) counts the muons done.
  std::vector<double> sample_rows(std::size_t n, ProgressBar* progress = nullptr) const;
  // The rate (s^-1) that the weights estimate: the flux integrated over the
  // sampled energy and zenith range and the area (numerical quadrature).
  double expected_rate() const;

  const FluxOptions& options() const { return opt_; }
  double area_m2() const;

 private:
  double energy(double u) const;
  double energy_density(double e) const;

  FluxOptions opt_;
  double cos_min_;
  double log_ratio_;  // ln(e_max / e_min)
  double e_norm_;     // integral of (E / e_min)^-gamma over [e_min, e_max] / e_min
  double cos_norm_;   // 1 - cos_min^(cos_power + 1)
};

// Convenience: FluxSampler(options).sample_rows(n, progress).
std::vector<double> sample_flux(std::size_t n, const FluxOptions& options,
                                ProgressBar* progress = nullptr);

}  // namespace fastmu::flux
