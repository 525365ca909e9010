// sample(..., lateral = false), used by the stepper on a step that ends on the
// boundary: the deflection is the one the full sampler gives from the same
// random state (the lateral variates are drawn last), the displacement is 0.
#include <gtest/gtest.h>

#include "fastmu/core/Random.hh"
#include "fastmu/materials/Material.hh"
#include "fastmu/physics/MultipleScattering.hh"

namespace fastmu {
namespace {

TEST(MultipleScattering, WithoutLateralSameDeflection) {
  const MultipleScattering msc(builtin_materials().find("G4_Fe"));
  int kinked_or_deflected = 0;
  for (double p : {0.3, 3.0, 50.0}) {
    for (double step : {1e-4, 0.02, 1.0}) {
      for (std::uint64_t id = 0; id < 300; ++id) {
        CounterRng a(7, id, RngStream::detailed_physics);
        CounterRng b(7, id, RngStream::detailed_physics);
        const auto full = msc.sample(p, step, -1, a);
        const auto dir_only = msc.sample(p, step, -1, b, false);
        ASSERT_EQ(full.cos_theta, dir_only.cos_theta) << p << " " << step << " " << id;
        ASSERT_EQ(full.phi, dir_only.phi);
        ASSERT_EQ(full.cos_phi, dir_only.cos_phi);
        ASSERT_EQ(full.sin_phi, dir_only.sin_phi);
        ASSERT_EQ(dir_only.lateral_x_m, 0.0);
        ASSERT_EQ(dir_only.lateral_y_m, 0.0);
        kinked_or_deflected += full.cos_theta < 1.0;
      }
    }
  }
  EXPECT_GT(kinked_or_deflected, 2000);
}

}  // namespace
}  // namespace fastmu
