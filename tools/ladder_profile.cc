// Profile of a material's table ladder (as the table cache builds it for
// `fastmu run`: the material's step d, the shorter steps, the long steps)
// over a few momentum bins of the cache's grid: histories, engine time and
// what stopped each bin (FASTMU_TRACE_TABLES lines), then the totals.
//
// Build (from the repository root, after building the fastmu target in build):
//   g++ -O2 -std=c++20 -Isrc -Ibuild/src tools/ladder_profile.cc -o build/ladder_profile \
//       build/src/fastmu/libfastmu_transport.a build/src/fastmu/libfastmu_tables.a \
//       build/src/fastmu/libfastmu_physics.a build/src/fastmu/libfastmu_materials.a \
//       build/src/fastmu/libfastmu_core.a -lfmt -lhdf5_cpp -lhdf5 -lpthread
// Run: FASTMU_TRACE_TABLES=1 build/ladder_profile MATERIAL P_LO P_HI [THREADS]
//   the cache grid's bins from the one holding P_LO to the one holding P_HI [GeV/c].
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "fastmu/materials/Material.hh"
#include "fastmu/tables/LadderBuilder.hh"
#include "fastmu/tables/TableBuilder.hh"
#include "fastmu/transport/step/StepLengths.hh"

using namespace fastmu;

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: ladder_profile MATERIAL P_LO P_HI [THREADS]\n");
    return 2;
  }
  try {
    const Material& material = builtin_materials().find(argv[1]);
    TableBuildOptions all;
    all.p_max = kCacheTopMomentum;
    all.p_bins = kCacheMomentumBins;
    const std::vector<double> edges = ladder_momentum_edges(all);
    const int n = static_cast<int>(edges.size()) - 1;
    int lo = 0, hi = n;
    while (lo + 1 < n && edges[lo + 1] <= std::atof(argv[2])) ++lo;
    while (hi - 1 > lo && edges[hi - 1] >= std::atof(argv[3])) --hi;
    TableBuildOptions o = all;
    o.p_min = edges[lo];
    o.p_max = edges[hi];
    o.p_bins = hi - lo;
    o.backend = "cpu";
    o.threads = argc > 4 ? std::atoi(argv[4]) : 0;

    const double d = material_step(material, 0.02);
    std::vector<LadderRung> ladder{{d, 0.0}};
    for (double s : ladder_steps(d, material.density_g_cm3)) ladder.push_back({s, 0.0});
    for (const LongStep& s : long_steps(d, 7, kCacheTopMomentum)) {
      if (s.p_from < o.p_max) ladder.push_back({s.step, s.p_from});
    }
    const auto t0 = std::chrono::steady_clock::now();
    const auto tables = build_ladder_tables(material, ladder, o, true);
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%s: bins %d..%d of %d [%.4g, %.4g) GeV/c, %zu steps, %.1f s\n",
                material.name.c_str(), lo, hi - 1, n, o.p_min, o.p_max, ladder.size(), wall);
    for (const TableParams& t : tables) {
      double samples = 0;
      for (auto s : t.data().samples_per_bin) samples += static_cast<double>(s);
      std::printf("  step %.4g m: %zu bins, %.3g samples\n", t.metadata().step_m,
                  t.data().samples_per_bin.size(), samples);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ladder_profile: %s\n", e.what());
    return 1;
  }
  return 0;
}
