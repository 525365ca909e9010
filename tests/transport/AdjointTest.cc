// The adjoint (MuonAdjoint.hh) against forward-mode tangents (FieldTangents.hh)
// on the SHiP-like shield: the same derivative, per muon, for field and
// shape parameters (moving faces, the gap between touching cores, the
// positions of the magnets downstream), on the CPU and, with a GPU, on CUDA.
#include <gtest/gtest.h>

#include <initializer_list>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <vector>

#include "TestTables.hh"
#include "fastmu/geometry/ShipShield.hh"
#include "fastmu/transport/examples/Examples.hh"
#include "fastmu/transport/gradient/Objective.hh"
#include "fastmu/transport/gradient/ShipParameters.hh"

namespace fastmu {
namespace {

std::vector<std::array<int, 2>> columns_of(std::initializer_list<int> magnets) {
  std::vector<std::array<int, 2>> pairs;
  for (int m : magnets) {
    for (int c = 0; c < 15; ++c) pairs.push_back({m, c});
  }
  return pairs;
}

struct Shield {
  std::vector<ShipMagnetParameters> magnets = ship_parameter_set("warm_baseline");
  MaterialLibrary materials;
  StepOptions opt;
  TransportParams params;
  Shield()
      : params([&] {
          opt.seed = 3;
          return make_transport_params(make_ship_shield_json(magnets), "ship", materials, {},
                                       &test::test_table_cache(), opt);
        }()) {}
};

// How far per-muon gradients a (adjoint) and t (tangents) of n muons and np
// parameters differ: the fraction of (muon, parameter) pairs off by more than
// 1e-3 of the larger and 1e-6 absolute.
double off_fraction(const std::vector<double>& a, const std::vector<double>& t) {
  std::size_t off = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double scale = std::max(std::fabs(a[i]), std::fabs(t[i]));
    off += std::fabs(a[i] - t[i]) > 1e-3 * scale + 1e-6;
  }
  return static_cast<double>(off) / static_cast<double>(std::max<std::size_t>(a.size(), 1));
}

WindowObjectiveResult run(const Shield& s, const MuonBatch& muons, const FieldParameters& fp,
                          GradientMethod method, Backend backend, std::size_t record_bytes = 0) {
  WindowObjectiveOptions o;
  o.method = method;
  o.record_bytes = record_bytes;
  return window_objective(s.params, muons, fp, o, backend);
}

TEST(Adjoint, EqualsForwardTangentsPerMuon) {
  Shield s;
  const MuonBatch muons = ship_muons(1500, 7);
  // Two magnets' 15 columns: a tangent pass each, one adjoint pass.
  const auto pairs = columns_of({0, 3});
  const WindowObjectiveResult adj = run(s, muons, ship_objective_parameters(s.magnets, pairs),
                                        GradientMethod::adjoint, Backend::cpu);
  std::vector<double> tan_grad(muons.size() * pairs.size());
  std::vector<double> tan_total(pairs.size());
  for (int half = 0; half < 2; ++half) {
    const std::vector<std::array<int, 2>> part(pairs.begin() + 15 * half,
                                               pairs.begin() + 15 * (half + 1));
    const WindowObjectiveResult t = run(s, muons, ship_objective_parameters(s.magnets, part),
                                        GradientMethod::tangent, Backend::cpu);
    EXPECT_EQ(t.value, adj.value);
    for (std::size_t i = 0; i < muons.size(); ++i) {
      for (std::size_t k = 0; k < 15; ++k) {
        tan_grad[i * pairs.size() + 15 * half + k] = t.muon_grad[i * 15 + k];
      }
    }
    for (std::size_t k = 0; k < 15; ++k) tan_total[15 * half + k] = t.gradient[k];
  }
  EXPECT_GT(adj.adjoint_muons, 0u);
  EXPECT_LT(adj.adjoint_muons, muons.size());
  const double off = off_fraction(adj.muon_grad, tan_grad);
  std::printf("adjoint passes %llu of %zu muons; per-muon pairs off by > 1e-3: %.2e\n",
              static_cast<unsigned long long>(adj.adjoint_muons), muons.size(), off);
  EXPECT_LT(off, 1e-3);
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    EXPECT_NEAR(adj.gradient[k], tan_total[k], 1e-3 * std::fabs(tan_total[k]) + 1e-4)
        << "magnet " << pairs[k][0] << " column " << pairs[k][1];
  }
}

TEST(Adjoint, TakesEveryColumnOfTheShieldInOnePass) {
  Shield s;
  const MuonBatch muons = ship_muons(300, 2);
  const auto pairs = ship_every_column(s.magnets.size());
  const FieldParameters fp = ship_objective_parameters(s.magnets, pairs);
  const WindowObjectiveResult adj = run(s, muons, fp, GradientMethod::adjoint, Backend::cpu);
  ASSERT_EQ(adj.gradient.size(), pairs.size());
  for (double g : adj.gradient) EXPECT_TRUE(std::isfinite(g));
  // The value is the value-only pass's.
  WindowObjectiveOptions o;
  o.gradient = false;
  EXPECT_EQ(window_objective(s.params, muons, fp, o, Backend::cpu).value, adj.value);
}

// Float rounding differs between the backends (the GPU fuses multiply-adds
// and divides and takes roots in fast math). It flips a rare muon's later
// step (a boundary met on the other side of a push, a neighbouring momentum
// bin), and it moves the derivative of a muon that crosses a face at a
// grazing angle, where the crossing point goes as 1/angle: the cores' inner
// faces (midGapIn/midGapOut) run nearly along the beam, and a few such
// muons carry most of those columns. So most rows agree and few histories
// differ, and the totals agree within fixed bounds plus half the column's
// own statistical error (the root of its rows' summed squares), the noise
// any estimate from these muons has. The CPU pass built with fused
// multiply-adds differs from the plain one by as much
// (docs/python-and-gradients.md, "CPU and GPU").
void expect_backends_agree(const WindowObjectiveResult& cpu, const WindowObjectiveResult& gpu,
                           const std::vector<std::array<int, 2>>& pairs) {
  const std::size_t np = pairs.size();
  const std::size_t n = cpu.muon_value.size();
  std::size_t flipped = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double dv = std::fabs(gpu.muon_value[i] - cpu.muon_value[i]);
    flipped +=
        gpu.status[i] != cpu.status[i] || gpu.muon_steps[i] != cpu.muon_steps[i] ||
        dv > 1e-4 * std::max(std::fabs(gpu.muon_value[i]), std::fabs(cpu.muon_value[i])) + 1e-9;
  }
  const double off = off_fraction(gpu.muon_grad, cpu.muon_grad);
  std::printf(
      "CUDA adjoint: %llu backward passes; %zu of %zu muons with another history; "
      "per-muon pairs off by > 1e-3: %.2e\n",
      static_cast<unsigned long long>(gpu.adjoint_muons), flipped, n, off);
  EXPECT_LE(flipped, n / 100);
  EXPECT_LT(off, 0.01);
  double scale = 0;
  for (double g : cpu.gradient) scale = std::max(scale, std::fabs(g));
  for (std::size_t k = 0; k < np; ++k) {
    double squares = 0;
    for (std::size_t i = 0; i < n; ++i) {
      squares += cpu.muon_grad[i * np + k] * cpu.muon_grad[i * np + k];
    }
    const double tol = 0.05 * std::fabs(cpu.gradient[k]) + 0.01 * scale + 0.5 * std::sqrt(squares);
    EXPECT_NEAR(gpu.gradient[k], cpu.gradient[k], tol)
        << "magnet " << pairs[k][0] << " column " << pairs[k][1];
  }
}

TEST(Adjoint, CudaAgreesWithCpu) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device (or built without CUDA)";
  Shield s;
  const MuonBatch muons = ship_muons(4000, 5);
  const auto pairs = ship_every_column(s.magnets.size());
  const FieldParameters fp = ship_objective_parameters(s.magnets, pairs);
  const WindowObjectiveResult cpu = run(s, muons, fp, GradientMethod::adjoint, Backend::cpu);
  const WindowObjectiveResult gpu = run(s, muons, fp, GradientMethod::adjoint, Backend::cuda);
  EXPECT_EQ(gpu.adjoint_lost, 0u);
  EXPECT_NEAR(gpu.value, cpu.value, 1e-3 * cpu.value);
  expect_backends_agree(cpu, gpu, pairs);
  // Records of 256 kB: the selected muons in many chunks, the same rows.
  const WindowObjectiveResult chunked =
      run(s, muons, fp, GradientMethod::adjoint, Backend::cuda, std::size_t{256} << 10);
  EXPECT_EQ(chunked.muon_grad, gpu.muon_grad);
  EXPECT_EQ(chunked.gradient, gpu.gradient);
}

}  // namespace
}  // namespace fastmu
