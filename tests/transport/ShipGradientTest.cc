// The window objective over the SHiP-like shield (window_objective over a
// TransportParams, ship_field_parameters): new fields on the same shapes,
// the hard limit, and the CUDA kernel against the CPU (skipped without a GPU).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "TestTables.hh"
#include "fastmu/geometry/ShipShield.hh"
#include "fastmu/transport/Examples.hh"
#include "fastmu/transport/Objective.hh"

namespace fastmu {
namespace {

struct Ship {
  std::vector<ShipMagnetParameters> magnets = ship_parameter_set("warm");
  MaterialLibrary materials;
  StepOptions opt;
  Ship() { opt.seed = 5; }
  TransportParams params(const std::vector<ShipMagnetParameters>& m) {
    return make_transport_params(make_ship_shield_json(m), "ship", materials, {},
                                 &test::test_table_cache(), opt);
  }
  static FieldParameters fields(const std::vector<ShipMagnetParameters>& m) {
    const ShipFieldParameters f = ship_field_parameters(m);
    FieldParameters fp;
    fp.n_params = static_cast<std::int32_t>(m.size());
    fp.volume_param = f.volume_magnet;
    for (std::size_t v = 0; v < f.field.size(); ++v) {
      auto to_f = [](const std::array<double, 3>& a) {
        return Vec3f{static_cast<float>(a[0]), static_cast<float>(a[1]), static_cast<float>(a[2])};
      };
      fp.volume_field.push_back(to_f(f.field[v]));
      fp.volume_dfield.push_back(to_f(f.dfield[v]));
    }
    return fp;
  }
};

TEST(ShipGradient, NewFieldsOnTheSameShapesAreTheNewGeometry) {
  Ship s;
  const TransportParams base = s.params(s.magnets);
  auto changed = s.magnets;
  changed[1][14] = 1.4;
  changed[5][14] = -1.6;
  const TransportParams rebuilt = s.params(changed);
  const MuonBatch muons = ship_muons(600, 3);
  WindowObjectiveOptions o;
  o.smoothing = 0.05;
  const WindowObjectiveResult a =
      window_objective(base, muons, Ship::fields(changed), o, Backend::cpu);
  const WindowObjectiveResult b =
      window_objective(rebuilt, muons, Ship::fields(changed), o, Backend::cpu);
  EXPECT_EQ(a.value, b.value);
  EXPECT_EQ(a.gradient, b.gradient);
  ASSERT_EQ(a.gradient.size(), changed.size());
  // The fields of ship_field_parameters are those of the document.
  FieldParameters own = Ship::fields(changed);
  own.volume_field.clear();
  const WindowObjectiveResult c = window_objective(rebuilt, muons, own, o, Backend::cpu);
  EXPECT_EQ(c.value, b.value);
  // Hard limit: the per-muon schedule's count of status 0.
  o.smoothing = 0;
  const WindowObjectiveResult h = window_objective(rebuilt, muons, own, o, Backend::cpu);
  EXPECT_EQ(h.value, h.hard);
  double at_plane = 0;
  for (auto st : h.status) at_plane += st == 0;
  EXPECT_EQ(h.value, at_plane);
}

TEST(ShipGradient, RejectsBadParameters) {
  Ship s;
  const TransportParams params = s.params(s.magnets);
  const MuonBatch muons = ship_muons(10, 1);
  FieldParameters fp = Ship::fields(s.magnets);
  WindowObjectiveOptions o;
  fp.volume_param.pop_back();
  EXPECT_THROW(window_objective(params, muons, fp, o, Backend::cpu), Error);
  fp = Ship::fields(s.magnets);
  fp.n_params = kMaxFieldParameters + 1;
  EXPECT_THROW(window_objective(params, muons, fp, o, Backend::cpu), Error);
  fp = Ship::fields(s.magnets);
  o.plane = 1;
  EXPECT_THROW(window_objective(params, muons, fp, o, Backend::cpu), Error);
  o.plane = 0;
  o.smoothing = -1;
  EXPECT_THROW(window_objective(params, muons, fp, o, Backend::cpu), Error);
}

TEST(ShipGradient, CudaAgreesWithCpu) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device (or built without CUDA)";
  Ship s;
  const TransportParams params = s.params(s.magnets);
  const MuonBatch muons = ship_muons(4000, 1);
  WindowObjectiveOptions o;
  o.smoothing = 0.2;
  const FieldParameters fp = Ship::fields(s.magnets);
  const WindowObjectiveResult cpu = window_objective(params, muons, fp, o, Backend::cpu);
  const WindowObjectiveResult gpu = window_objective(params, muons, fp, o, Backend::cuda);
  ASSERT_EQ(gpu.gradient.size(), cpu.gradient.size());
  std::printf("value CPU %.3f GPU %.3f, hard %.0f / %.0f\n", cpu.value, gpu.value, cpu.hard,
              gpu.hard);
  EXPECT_NEAR(gpu.value, cpu.value, 0.03 * cpu.value);
  // Float maths differ (device intrinsics, FMA), so a few histories part;
  // those that keep their status and step count have close gradients.
  std::size_t same = 0, close = 0;
  const std::size_t np = cpu.gradient.size();
  for (std::size_t i = 0; i < muons.size(); ++i) {
    if (cpu.status[i] != gpu.status[i] || cpu.muon_steps[i] != gpu.muon_steps[i]) continue;
    ++same;
    bool ok = true;
    for (std::size_t k = 0; k < np; ++k) {
      const double a = cpu.muon_grad[i * np + k], b = gpu.muon_grad[i * np + k];
      ok = ok && std::fabs(a - b) <= 1e-2 * std::fabs(a) + 1e-4;
    }
    close += ok;
  }
  for (std::size_t k = 0; k < np; ++k) {
    std::printf("magnet %zu: CPU %.3f GPU %.3f\n", k, cpu.gradient[k], gpu.gradient[k]);
  }
  EXPECT_GE(same, muons.size() * 95 / 100);
  EXPECT_GE(close, same * 95 / 100);
}

}  // namespace
}  // namespace fastmu
