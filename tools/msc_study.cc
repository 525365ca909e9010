// Study tool for the muon Coulomb scattering model alone: muons start at the
// centre of a 2 cm sphere along +z (Geant4 reference geometry), are
// scattered by MultipleScattering over the radius at fixed mean momentum
// (energy loss ignored except a crude mean-loss shift taken from the
// reference file), and the quantiles of the transverse momentum
// pt = |p| sin(theta) are compared with the Geant4 11.4 reference samples.
//
// Build (from the repository root, after building fastmu_materials in build-msc):
//   g++ -O2 -std=c++20 -Isrc tools/msc_study.cc src/fastmu/physics/MultipleScattering.cc
//       src/fastmu/physics/ProductionCuts.cc build-msc/src/fastmu/libfastmu_materials.a
//       -o build-msc/msc_study
// Run: build-msc/msc_study [reference_dir] [--n N] [--cut GEV] [-v]
//   --deltas     also emulate delta rays above the cut (step split + momentum kick)
//   --split      two 1 cm steps instead of one 2 cm step
//   --slab STEP  50 GeV mu- through 10 m iron, crude linear loss (STEP 0: max_step_m)
//   --bench      single-core sampling speed
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "fastmu/physics/MultipleScattering.hh"

using namespace fastmu;

namespace {

Material make_fe() {
  Material m;
  m.name = "G4_Fe";
  m.density_g_cm3 = 7.874;
  m.mean_excitation_ev = 286;
  m.components = {{26, 55.845, 1.0}};
  return m;
}

Material make_concrete() {
  Material m;
  m.name = "G4_CONCRETE";
  m.density_g_cm3 = 2.3;
  m.mean_excitation_ev = 135.2;
  m.components = {{1, 1.008, 0.01},       {6, 12.011, 0.001},  {8, 15.999, 0.529107},
                  {11, 22.990, 0.016},    {12, 24.305, 0.002}, {13, 26.982, 0.033872},
                  {14, 28.085, 0.337021}, {19, 39.098, 0.013}, {20, 40.078, 0.044},
                  {26, 55.845, 0.014}};
  return m;
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double pos = q * double(v.size() - 1);
  const std::size_t i = std::size_t(pos);
  const double f = pos - double(i);
  return i + 1 < v.size() ? v[i] * (1 - f) + v[i + 1] * f : v[i];
}

struct RefStats {
  std::vector<double> pt;
  double mean_loss = 0;
};

bool read_reference(const std::string& path, RefStats& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::vector<float> buf;
  float row[7];
  double loss = 0;
  std::size_t n = 0;
  while (in.read(reinterpret_cast<char*>(row), sizeof row)) {
    out.pt.push_back(std::hypot(double(row[1]), double(row[2])));
    loss += double(row[0]) -
            std::sqrt(double(row[1]) * row[1] + double(row[2]) * row[2] + double(row[3]) * row[3]);
    ++n;
  }
  out.mean_loss = n ? loss / double(n) : 0;
  return n > 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string ref_dir = "../shared/reference/geant4";  // beside the repository
  bool split = false, deltas = false, verbose = false, bench = false, slab = false;
  double slab_step = 0.02;
  double cut = -1;
  std::size_t n = 200000;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--split")) split = true;
    else if (!std::strcmp(argv[i], "--deltas")) deltas = true;
    else if (!std::strcmp(argv[i], "-v")) verbose = true;
    else if (!std::strcmp(argv[i], "--bench")) bench = true;
    else if (!std::strcmp(argv[i], "--slab") && i + 1 < argc) {
      slab = true;
      slab_step = std::atof(argv[++i]);
    } else if (!std::strcmp(argv[i], "--cut") && i + 1 < argc) cut = std::atof(argv[++i]);
    else if (!std::strcmp(argv[i], "--n") && i + 1 < argc) n = std::strtoul(argv[++i], nullptr, 10);
    else ref_dir = argv[i];
  }
  const double radius = 0.02;
  if (slab) {
    // 50 GeV mu- through 10 m of iron with a crude continuous loss (linear in
    // depth, matched to the reference mean exit momentum); x and px at exit.
    const std::string path = ref_dir + "/slab_G4_Fe_10m_50GeV_mu-.f32";
    std::ifstream in(path, std::ios::binary);
    std::vector<double> rx, rpx;
    float row[7];
    double pmean = 0;
    while (in.read(reinterpret_cast<char*>(row), sizeof row)) {
      if (row[1] == 0 && row[2] == 0 && row[3] == 0) continue;
      rx.push_back(row[4]);
      rpx.push_back(row[1]);
      pmean +=
          std::sqrt(double(row[1]) * row[1] + double(row[2]) * row[2] + double(row[3]) * row[3]);
    }
    pmean /= double(rx.size());
    const Material fe = make_fe();
    const MultipleScattering msc(fe);
    const double length = 10, p0 = 50, dpdz = (p0 - pmean) / length;
    const std::size_t ns = std::min<std::size_t>(n, 50000);
    std::vector<double> x(ns), px(ns);
    for (std::size_t i = 0; i < ns; ++i) {
      CounterRng rng(99, i, RngStream::detailed_physics);
      Vec3 pos{0, 0, 0}, dir{0, 0, 1};
      double z = 0;
      while (pos.z < length) {
        const double p = p0 - dpdz * z;
        double step = slab_step > 0 ? slab_step : msc.max_step_m(p);
        step = std::min(step, (length - pos.z) / std::max(dir.z, 0.5) + 1e-9);
        const auto d = msc.sample(p - 0.5 * dpdz * step, step, -1, rng);
        pos += step * dir + rotate_from_z(Vec3{d.lateral_x_m, d.lateral_y_m, 0.0}, dir);
        const double st = std::sqrt(std::max(0.0, 1 - d.cos_theta * d.cos_theta));
        dir = rotate_from_z(Vec3{st * std::cos(d.phi), st * std::sin(d.phi), d.cos_theta}, dir);
        z += step;
      }
      // Back to the exit plane along the last direction.
      const double back = (pos.z - length) / dir.z;
      x[i] = pos.x - back * dir.x;
      px[i] = (p0 - dpdz * z) * dir.x;
    }
    auto rms = [](const std::vector<double>& v) {
      double s2 = 0;
      for (double e : v) s2 += e * e;
      return std::sqrt(s2 / double(v.size()));
    };
    std::printf("slab: x rms %.3f cm (G4 %.3f), mean p exit G4 %.2f\n", 100 * rms(x), 100 * rms(rx),
                pmean);
    for (double q : {0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99}) {
      std::printf("  q%-4g x %+8.3f cm (G4 %+8.3f)   px %+8.4f GeV (G4 %+8.4f)\n", q * 100,
                  100 * quantile(x, q), 100 * quantile(rx, q), quantile(px, q), quantile(rpx, q));
    }
    return 0;
  }
  if (bench) {
    // Single-core speed of sample() for 2 cm steps.
    for (const Material& mat : {make_fe(), make_concrete()}) {
      const MultipleScattering msc(mat);
      for (double p : {0.5, 10.0, 100.0}) {
        const std::size_t nb = 4000000;
        double sink = 0;
        const auto t0 = std::chrono::steady_clock::now();
        for (std::size_t i = 0; i < nb; ++i) {
          CounterRng rng(1, i, RngStream::detailed_physics);
          const auto d = msc.sample(p, radius, -1, rng);
          sink += d.cos_theta + d.lateral_x_m;
        }
        const double dt =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::printf("%s p = %g GeV: %.3g samples/s (%.0f ns each) [%g]\n", mat.name.c_str(), p,
                    double(nb) / dt, 1e9 * dt / double(nb), sink);
      }
    }
    return 0;
  }
  const double momenta[] = {0.5, 1, 3, 10, 30, 100, 300};
  const char* labels[] = {"0.5", "1", "3", "10", "30", "100", "300"};
  for (const Material& mat : {make_fe(), make_concrete()}) {
    double z_over_a = 0;
    for (const auto& c : mat.components) z_over_a += c.mass_fraction * c.z / c.a_g_per_mol;
    const MultipleScattering msc = cut < 0 ? MultipleScattering(mat) : MultipleScattering(mat, cut);
    std::printf("%s: electron cut %.3g MeV, u_max %.4g GeV^2 (p theta_max %.1f MeV)\n",
                mat.name.c_str(), msc.data().electron_cut * 1e3, msc.data().u_nuclear_limit,
                std::sqrt(2 * msc.data().u_nuclear_limit) * 1e3);
    std::printf("%6s | %8s %8s %6s | %8s %8s %6s | %8s %8s %6s | %9s %9s\n", "p", "q50", "G4",
                "dev%", "q90", "G4", "dev%", "q99", "G4", "dev%", "q99.9", "G4");
    for (int k = 0; k < 7; ++k) {
      RefStats ref;
      const std::string path =
          ref_dir + "/sphere2cm_" + mat.name + "_p" + labels[k] + "GeV_mu-.f32";
      if (!read_reference(path, ref)) {
        std::printf("missing %s\n", path.c_str());
        continue;
      }
      const double p0 = momenta[k];
      const double p_mean = p0 - 0.5 * ref.mean_loss;
      const double p_out = p0 - ref.mean_loss;
      std::vector<double> pt(n);
      for (std::size_t i = 0; i < n; ++i) {
        CounterRng rng(12345, i, RngStream::detailed_physics);
        if (!split && !deltas) {
          const auto d = msc.sample(p_mean, radius, -1, rng);
          pt[i] = p_out * std::sqrt(std::max(0.0, 1 - d.cos_theta * d.cos_theta));
        } else if (deltas) {
          // Emulate Geant4's ionisation: delta rays above the cut split the
          // step and kick the muon by momentum conservation.
          const double m = constants::muon_mass, me = constants::electron_mass;
          const double e = std::hypot(p_mean, m), b2 = p_mean * p_mean / (e * e);
          const double tau = (e - m) / m, ratio = me / m;
          const double tmax =
              2 * me * tau * (tau + 2) / (1 + 2 * ratio * (tau + 1) + ratio * ratio);
          const double tcut = msc.data().electron_cut;
          // (K/2) Z/A rho x / beta^2 [GeV], K/2 = 0.1535 MeV cm2/mol.
          const double c = 0.1535e-3 * z_over_a * mat.density_g_cm3 * radius * 100 / b2;
          const double mu = tcut < tmax ? c * 1.5 * (1 / tcut - 1 / tmax) : 0.0;
          std::vector<double> pos;
          double ssum = -std::log(rng.uniform()) / mu;
          while (mu > 0 && ssum < 1) {
            pos.push_back(ssum);
            ssum += -std::log(rng.uniform()) / mu;
          }
          Vec3 dir{0, 0, 1};
          double last = 0;
          pos.push_back(1.0);
          for (std::size_t s = 0; s < pos.size(); ++s) {
            const auto d = msc.sample(p_mean, radius * (pos[s] - last), -1, rng);
            last = pos[s];
            const double st = std::sqrt(std::max(0.0, 1 - d.cos_theta * d.cos_theta));
            dir = rotate_from_z(Vec3{st * std::cos(d.phi), st * std::sin(d.phi), d.cos_theta}, dir);
            if (s + 1 == pos.size()) break;
            // Delta ray: T from 1/T^2 with the spin-1/2 Bethe weight (envelope 1.5).
            const double t = tcut * tmax / (tmax - rng.uniform() * (tmax - tcut));
            const double w = 1 - b2 * t / tmax + t * t / (2 * e * e);
            if (rng.uniform() * 1.5 > w) continue;
            const double pe = std::sqrt(t * (t + 2 * me));
            double cte = t * (e + me) / (pe * p_mean);
            cte = std::min(1.0, cte);
            const double pt_e = pe * std::sqrt(1 - cte * cte);
            const double ph = constants::two_pi * rng.uniform();
            const double pl = p_mean - pe * cte;
            const Vec3 local{-pt_e * std::cos(ph), -pt_e * std::sin(ph), pl};
            const double nrm = norm(local);
            dir = rotate_from_z(Vec3{local.x / nrm, local.y / nrm, local.z / nrm}, dir);
          }
          pt[i] = p_out * std::hypot(dir.x, dir.y);
        } else {
          // Two half steps (Geant4 often splits the 2 cm at a delta ray).
          Vec3 dir{0, 0, 1};
          for (int s = 0; s < 2; ++s) {
            const auto d = msc.sample(p_mean, radius / 2, -1, rng);
            const double st = std::sqrt(std::max(0.0, 1 - d.cos_theta * d.cos_theta));
            dir = rotate_from_z(Vec3{st * std::cos(d.phi), st * std::sin(d.phi), d.cos_theta}, dir);
          }
          pt[i] = p_out * std::hypot(dir.x, dir.y);
        }
      }
      double q[4], g[4];
      const double qs[4] = {0.5, 0.9, 0.99, 0.999};
      for (int j = 0; j < 4; ++j) {
        q[j] = quantile(pt, qs[j]) * 1e3;
        g[j] = quantile(ref.pt, qs[j]) * 1e3;
      }
      auto frac_above = [](const std::vector<double>& v, double x) {
        return double(std::count_if(v.begin(), v.end(), [x](double e) { return e > x; })) /
               double(v.size());
      };
      if (verbose) {
        std::printf("   P(pt > G4 q99) = %.4f, P(pt > G4 q99.9) = %.5f\n",
                    frac_above(pt, g[2] * 1e-3), frac_above(pt, g[3] * 1e-3));
      }
      std::printf(
          "%6s | %8.3f %8.3f %+6.1f | %8.3f %8.3f %+6.1f | %8.3f %8.3f %+6.1f | %9.2f %9.2f\n",
          labels[k], q[0], g[0], 100 * (q[0] / g[0] - 1), q[1], g[1], 100 * (q[1] / g[1] - 1), q[2],
          g[2], 100 * (q[2] / g[2] - 1), q[3], g[3]);
    }
  }
  return 0;
}
