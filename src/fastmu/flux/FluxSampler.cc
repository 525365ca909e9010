#include "fastmu/flux/FluxSampler.hh"

#include <cmath>
#include <string>

#include <fmt/format.h>

#include "fastmu/core/Constants.hh"
#include "fastmu/core/Error.hh"
#include "fastmu/core/Parallel.hh"
#include "fastmu/core/Progress.hh"
#include "fastmu/core/Random.hh"
#include "fastmu/flux/SeaLevelFlux.hh"

namespace fastmu::flux {

namespace {

// The flux sampler's own random stream, independent of the transport's and of
// the built-in example sources for the same (seed, id).
constexpr RngStream kFluxStream = RngStream::cosmic_flux;
constexpr double kDegree = constants::pi / 180.0;

void require(bool ok, const std::string& option, double value, const char* what) {
  if (!ok) throw Error(fmt::format("flux: {} {:g}: {}", option, value, what));
}

// Composite Simpson's rule of f over [a, b] with `panels` (even) intervals.
template <class F>
double simpson(double a, double b, int panels, F&& f) {
  const double h = (b - a) / panels;
  double sum = f(a) + f(b);
  for (int i = 1; i < panels; ++i) sum += (i % 2 ? 4.0 : 2.0) * f(a + i * h);
  return sum * h / 3.0;
}

}  // namespace

void check_flux_options(const FluxOptions& o) {
  require(std::isfinite(o.e_min) && o.e_min > constants::muon_mass, "--e-min", o.e_min,
          "must be a finite energy above the muon mass (0.1057 GeV)");
  require(std::isfinite(o.e_max) && o.e_max > o.e_min && o.e_max <= kMaxEnergyGeV, "--e-max",
          o.e_max,
          fmt::format("must be above --e-min and at most {:g} GeV", kMaxEnergyGeV).c_str());
  require(o.zenith_max > 0 && o.zenith_max <= kMaxZenithDeg, "--zenith-max", o.zenith_max,
          fmt::format("must be in (0, {:g}] degrees", kMaxZenithDeg).c_str());
  require(o.gamma >= 0 && o.gamma <= 5, "--gamma", o.gamma, "must be in [0, 5]");
  require(o.cos_power >= 0 && o.cos_power <= 10, "--cos-power", o.cos_power, "must be in [0, 10]");
  // The whole rectangle in the message: one coordinate alone says little.
  const auto& a = o.area;
  const auto area = [&](bool ok, const char* what) {
    if (!ok)
      throw Error(
          fmt::format("flux: --area {:g},{:g},{:g},{:g}: {}", a[0], a[1], a[2], a[3], what));
  };
  for (const double v : a) area(std::isfinite(v), "every coordinate must be finite");
  area(a[0] < a[1], "X1 must be above X0");
  area(a[2] < a[3], "Y1 must be above Y0");
  require(std::isfinite(o.z), "--z", o.z, "must be finite");
}

FluxSampler::FluxSampler(const FluxOptions& options) : opt_(options) {
  check_flux_options(opt_);
  cos_min_ = std::cos(opt_.zenith_max * kDegree);
  log_ratio_ = std::log(opt_.e_max / opt_.e_min);
  const double s = 1.0 - opt_.gamma;
  e_norm_ = std::fabs(s) < 1e-12 ? log_ratio_ : std::expm1(s * log_ratio_) / s;
  cos_norm_ = 1.0 - std::pow(cos_min_, opt_.cos_power + 1.0);
}

double FluxSampler::area_m2() const {
  return (opt_.area[1] - opt_.area[0]) * (opt_.area[3] - opt_.area[2]);
}

// Inverse of the cumulative distribution of E^-gamma on [e_min, e_max], in the
// form that stays accurate for gamma near 1.
double FluxSampler::energy(double u) const {
  const double s = 1.0 - opt_.gamma;
  if (std::fabs(s) < 1e-12) return opt_.e_min * std::exp(u * log_ratio_);
  return opt_.e_min * std::exp(std::log1p(u * s * e_norm_) / s);
}

double FluxSampler::energy_density(double e) const {
  return std::pow(e / opt_.e_min, -opt_.gamma) / (opt_.e_min * e_norm_);
}

FluxRow FluxSampler::sample(std::uint64_t id, std::size_t n) const {
  CounterRng rng(opt_.seed, id, kFluxStream);
  const double e = std::fmin(std::fmax(energy(rng.uniform()), opt_.e_min), opt_.e_max);
  const double t = opt_.cos_power + 1.0;
  const double c_t = std::pow(cos_min_, t) + rng.uniform() * cos_norm_;
  const double c = std::fmin(std::pow(c_t, 1.0 / t), 1.0);
  const double phi = constants::two_pi * rng.uniform();
  const double x = opt_.area[0] + rng.uniform() * (opt_.area[1] - opt_.area[0]);
  const double y = opt_.area[2] + rng.uniform() * (opt_.area[3] - opt_.area[2]);
  const bool positive = rng.uniform() < kChargeRatio / (1.0 + kChargeRatio);

  const double cos_density = t * std::pow(c, opt_.cos_power) / cos_norm_;
  const double density =
      energy_density(e) * cos_density / constants::two_pi * static_cast<double>(n);
  const double weight = area_m2() * sea_level_intensity(e, c) * c / density;

  const double m = constants::muon_mass;
  const double p = std::sqrt((e - m) * (e + m));
  const double sin_theta = std::sqrt(std::fmax(0.0, (1.0 - c) * (1.0 + c)));
  return {p * sin_theta * std::cos(phi),
          p * sin_theta * std::sin(phi),
          -p * c,
          x,
          y,
          opt_.z,
          positive ? -13.0 : 13.0,
          weight};
}

std::vector<double> FluxSampler::sample_rows(std::size_t n, ProgressBar* progress) const {
  std::vector<double> rows(n * kFluxColumns);
  parallel_for_chunks(n, opt_.threads, std::size_t(1) << 14, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) {
      const FluxRow r = sample(i, n);
      for (int k = 0; k < kFluxColumns; ++k) rows[i * kFluxColumns + k] = r[k];
    }
    if (progress) progress->add(e - b);
  });
  return rows;
}

// rate = A * 2 pi * int cos(theta) d cos(theta) int I(E, theta) dE, the energy
// integral over ln E (where the integrand E I is smooth).
double FluxSampler::expected_rate() const {
  const double ln_lo = std::log(opt_.e_min), ln_hi = std::log(opt_.e_max);
  const auto at_cos = [&](double c) {
    const double cs = cos_theta_star(c);
    const double over_e = simpson(ln_lo, ln_hi, 2048, [&](double ln_e) {
      const double e = std::exp(ln_e);
      return e * intensity_at_cos_star(e, cs);
    });
    return c * over_e;
  };
  return area_m2() * constants::two_pi * simpson(cos_min_, 1.0, 256, at_cos);
}

std::vector<double> sample_flux(std::size_t n, const FluxOptions& options, ProgressBar* progress) {
  return FluxSampler(options).sample_rows(n, progress);
}

}  // namespace fastmu::flux
