// Boundary-limited, adaptive stepping (StepPhysics.hh, StepLengths.hh): the
// step lengths per material, no step across a boundary (straight and curved
// paths), the ladder's shorter tables for the cut steps.
#include <gtest/gtest.h>

#include <cmath>

#include "ToyEnvironment.hh"
#include "fastmu/core/Error.hh"
#include "fastmu/materials/Material.hh"
#include "fastmu/transport/step/StepLengths.hh"

namespace fastmu {
namespace {

using test::ToyEnv;
using test::ToyTable;

TEST(StepLengths, EqualMassThicknessClampedAndOverridden) {
  const MaterialLibrary& lib = builtin_materials();
  EXPECT_NEAR(material_step(lib.find("G4_Fe"), 0.02), 0.02, 1e-9);  // the paper's step unchanged
  // 2 cm of iron = 15.75 g/cm^2: 8.16 mm of tungsten, 6.85 cm of concrete.
  EXPECT_NEAR(material_step(lib.find("G4_W"), 0.02), 0.02 * 7.874 / 19.3, 2e-6);
  EXPECT_NEAR(material_step(lib.find("G4_CONCRETE"), 0.02), 0.02 * 7.874 / 2.3, 2e-6);
  EXPECT_EQ(material_step(lib.find("G4_AIR"), 0.02), kMaxMaterialStep);
  EXPECT_EQ(material_step(lib.find("G4_W"), 0.02, {{"G4_W", 0.003}}), 0.003);
  EXPECT_THROW(material_step(lib.find("G4_W"), 0.02, {{"G4_W", -1.0}}), Error);

  // Halving down to 0.7 mm and 0.1 g/cm^2: iron 20 -> 10, 5, 2.5, 1.25 mm; air none.
  const auto fe = ladder_steps(0.02, 7.874);
  ASSERT_EQ(fe.size(), 4u);
  EXPECT_DOUBLE_EQ(fe[0], 0.01);
  EXPECT_DOUBLE_EQ(fe[3], 0.00125);
  EXPECT_TRUE(ladder_steps(1.0, 0.0012).empty());

  EXPECT_EQ(parse_material_step("G4_W=0.004", "--material-step").second, 0.004);
  EXPECT_THROW(parse_material_step("G4_W", "--material-step"), Error);
  EXPECT_THROW(parse_material_step("G4_W=-2", "--material-step"), Error);
  EXPECT_THROW(parse_material_step("G4_W=2cm", "--material-step"), Error);
}

// Runs m to its end and returns the path charged to the slab, summed from the
// z advance of the steps that start inside it (straight muons along +z).
float slab_path(const ToyEnv& env, MuonTrack& m, std::uint64_t id) {
  float path = 0;
  while (m.status == static_cast<std::int32_t>(MuonStatus::alive)) {
    const float z0 = m.r.z;
    const bool in_slab = z0 >= env.slab_z0 && z0 < env.slab_z1;
    transport_step(env, m, id);
    if (in_slab) {
      // The step ends at most kBoundaryPush beyond the slab's far face.
      EXPECT_LE(m.r.z, env.slab_z1 + kBoundaryPush + 1e-6f);
      path += m.r.z - z0;
    }
  }
  return path;
}

TEST(BoundaryStep, ThinSheetIsChargedItsThicknessFromAnyStart) {
  ToyTable table;
  ToyEnv env;
  env.slab_z0 = 0.0f;
  env.slab_z1 = 0.005f;  // a quarter of the 2 cm table step
  env.slab_table = &table.view;
  const SensitivePlane plane{0.006f, -5.f, 5.f, -5.f, 5.f};
  env.planes = &plane;
  env.n_planes = 1;
  for (const float z_start : {-0.013f, -0.5f, 0.0f}) {
    MuonTrack m;
    m.r = {0, 0, z_start};
    m.p = {0, 0, 10};
    m.charge = -1;
    const float path = slab_path(env, m, 7);
    EXPECT_EQ(m.status, static_cast<int>(MuonStatus::at_plane));
    // Entered by a free flight, one cut step through it: the push beyond the
    // entry face is made up by the push beyond the exit face. A muon that
    // starts on the face is charged one push (20 um) more.
    const float expected = z_start < 0 ? 0.005f : 0.005f + kBoundaryPush;
    EXPECT_NEAR(path, expected, 1e-6f) << "start z " << z_start;
    EXPECT_LE(m.steps, 3);
  }
  // The fixed-step scheme charged a whole table step (2 cm) to this sheet.
}

TEST(BoundaryStep, CutStepSamplesTheLadderEntryAtOrAboveItsLength) {
  ToyTable table, shorter;
  // The shorter (1 cm) table's losses are 100x the 2 cm table's: which table
  // a step used shows in its loss.
  for (auto& a : shorter.axes) a.x_lo = std::log(1e-2f);
  shorter.view.step = 0.01f;
  shorter.view.inv_step = 100.0f;
  table.view.shorter = 0;
  ToyEnv env;
  env.ladder = {&shorter.view};
  env.slab_z0 = 0.0f;
  env.slab_z1 = 0.007f;  // one step of 7 mm: nearer the 1 cm entry, scaled by 0.7
  env.slab_table = &table.view;
  int big = 0;
  for (std::uint64_t id = 0; id < 200; ++id) {
    MuonTrack m;
    m.r = {0, 0, 0};
    m.p = {0, 0, 10};
    m.charge = -1;
    transport_step(env, m, id);
    const float loss = 1.0f - m.p.z / 10.0f;
    EXPECT_NEAR(m.r.z, 0.007f + kBoundaryPush, 1e-6f);
    // Non-zero losses of the 1 cm table, scaled: >= 0.7e-2 (the floor bin: 0).
    if (loss > 1e-3f) {
      ++big;
      EXPECT_GE(loss, 0.7e-2f * 0.999f);
      EXPECT_LE(loss, 0.7e-2f * std::exp(4.0f) * 1.001f);
    } else {
      EXPECT_LT(loss, 1e-6f);
    }
  }
  EXPECT_GT(big, 100);  // 20 of the 25 cells have a non-zero loss
}

TEST(BoundaryStep, CurvedPathIsCutWhereItLeavesTheVolume) {
  ToyTable table;
  ToyEnv env;
  env.slab_z0 = -1.0f;
  env.slab_z1 = 1.0f;
  env.slab_table = &table.view;
  env.field = {0, 5, 0};  // bends a mu+ moving along +x towards +z
  MuonTrack m;
  m.r = {0, 0, 0.9998f};  // 0.2 mm below the face, moving parallel to it
  m.p = {0.5f, 0, 0};
  m.charge = 1;
  const float kappa = curvature_per_tesla(1.0f, 0.5f) * 5.0f;  // 1 / radius
  // The chord (along x) never meets the face; the arc reaches it after
  // s = sqrt(2 R dz) = 11.5 mm, before the 2 cm step ends.
  const float s_exit = std::sqrt(2.0f * 0.0002f / kappa);
  transport_step(env, m, 3);
  EXPECT_GE(m.r.z, 1.0f);  // beyond the face: the next step is in vacuum
  EXPECT_LE(m.r.z, 1.0f + 1e-5f);
  EXPECT_NEAR(m.r.x, s_exit, 2e-5f);
}

}  // namespace
}  // namespace fastmu
