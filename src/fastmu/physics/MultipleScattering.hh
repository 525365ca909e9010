// Multiple Coulomb scattering of muons: the mixed scheme of Geant4 11's
// G4WentzelVIModel + G4eCoulombScatteringModel (soft collisions condensed,
// hard ones as explicit single scatterings on the screened Rutherford cross
// section with nuclear form factor; see MultipleScatteringSampler.hh).
// Per material, built once, immutable, thread-safe.
#pragma once

#include <memory>

#include "fastmu/core/Random.hh"
#include "fastmu/materials/Material.hh"
#include "fastmu/physics/MultipleScatteringData.hh"
#include "fastmu/physics/MultipleScatteringSampler.hh"

namespace fastmu {

class MultipleScattering {  // per material, built once, immutable, thread-safe
 public:
  // Electron targets up to the delta-ray threshold of Geant4's default range
  // cut (0.7 mm): harder electron collisions belong to ionisation, which must
  // then deflect the muon by momentum conservation (as G4MuBetheBlochModel does).
  explicit MultipleScattering(const Material& material);
  // Explicit delta-ray threshold [GeV] (kinetic energy); use infinity to let
  // this model include all collisions with electrons.
  MultipleScattering(const Material& material, double electron_cut_gev);

  // Built once per material (name and density) and shared (thread-safe cache).
  static std::shared_ptr<const MultipleScattering> get(const Material& material);

  using Deflection = MscDeflection;
  //   cos_theta, phi: the new direction in the frame where the muon moved along +z;
  //   lateral_x_m, lateral_y_m: displacement at the end of the step, same frame.

  // Deflection of the direction (and lateral displacement, in the frame where
  // the muon moved along +z) after a true path length `step_m`, for a muon of
  // momentum p_gev (mean over the step) and charge (+-1; 0 = no scattering).
  // `lateral` false: the displacement is not wanted (not sampled, returned as 0).
  template <class Rng>
  Deflection sample(double p_gev, double step_m, int charge, Rng& rng, bool lateral = true) const {
    return sample_msc(data_, p_gev, step_m, charge, rng, lateral);
  }

  // Step limit the model asks for [m]: 20 radiation lengths, Geant4 WentzelVI's
  // limit in an infinite medium (its range-based limit, 0.2 x range, is the
  // engine's continuous-loss limit). Any step is valid for sample().
  double max_step_m(double p_gev) const;

  // Transport mean free path [m] of all scatterings up to the nuclear-size
  // angle (Geant4's lambda_1 of WentzelVI): <1 - cos theta> = step / lambda_1.
  double transport_mfp_m(double p_gev) const;

  // The POD constants (host and device).
  const MultipleScatteringData& data() const { return data_; }

 private:
  MultipleScatteringData data_;
};

}  // namespace fastmu
