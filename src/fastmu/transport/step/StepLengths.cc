#include "fastmu/transport/step/StepLengths.hh"

#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "fastmu/core/Error.hh"
#include "fastmu/core/InputLimits.hh"
#include "fastmu/materials/Material.hh"

namespace fastmu {

namespace {
// Rounded to 1 um so that the cache's file names (in mm, %g) are stable.
double round_um(double d) { return std::round(d * 1e6) * 1e-6; }
}  // namespace

double material_step(const Material& material, double reference_step,
                     const MaterialSteps& overrides) {
  if (const auto it = overrides.find(material.name); it != overrides.end()) {
    if (!(it->second > 0) || !std::isfinite(it->second)) {
      throw Error(fmt::format("step of material '{}': {} m is not a positive length", material.name,
                              it->second));
    }
    return it->second;
  }
  if (!(reference_step > 0) || !std::isfinite(reference_step)) {
    throw Error(fmt::format("--step: {} m is not a positive length", reference_step));
  }
  const double d = reference_step * kIronDensity / material.density_g_cm3;
  return round_um(std::fmin(std::fmax(d, kMinMaterialStep), kMaxMaterialStep));
}

std::vector<double> ladder_steps(double d, double density_g_cm3) {
  std::vector<double> out;
  double s = d;
  while (static_cast<int>(out.size()) + 1 < kMaxLadder) {
    s *= 0.5;
    if (s < kMinLadderStep || s * 100.0 * density_g_cm3 < kMinLadderMassThickness) break;
    out.push_back(round_um(s));
  }
  return out;
}

std::vector<LongStep> long_steps(double d, int long_steps, double p_max) {
  if (long_steps < 0) {
    throw Error(fmt::format("--long-steps: {} is not a non-negative number", long_steps));
  }
  std::vector<LongStep> out;
  double s = d, p = kLongStepMomentum;
  for (int k = 1; k <= long_steps; ++k) {
    s *= 2.0, p *= 2.0;
    if (!(p < p_max)) break;
    out.push_back({round_um(s), p});
  }
  return out;
}

std::pair<std::string, double> parse_material_step(const std::string& text,
                                                   const std::string& what) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw Error(fmt::format("{}: '{}' is not NAME=LENGTH", what, text));
  }
  const std::string value = text.substr(eq + 1);
  char* end = nullptr;
  const double v = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0' || !(v > 0 && v <= limits::kMaxStep)) {
    throw Error(fmt::format("{}: '{}': the length is not a number of metres in (0, {:g}]", what,
                            text, limits::kMaxStep));
  }
  return {text.substr(0, eq), v};
}

}  // namespace fastmu
