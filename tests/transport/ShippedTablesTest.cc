// The tables shipped with fastmu (data/tables) are the ones this fastmu
// would build. Every material of data/tables/materials.txt has its whole
// ladder there under the keys the cache gives a run with the default step
// options today: a change of the engine's options, the ladder, the binning
// or the file format that forgets to rebuild them fails here. And a few
// bins rebuilt now with the engine on the CPU, from fewer histories, agree
// with the shipped ones within their statistics: a change of the physics
// that forgets to rebuild them fails here too.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../tables/TableQuantiles.hh"
#include "fastmu/geometry/GeometryParams.hh"
#include "fastmu/materials/Material.hh"
#include "fastmu/tables/LadderBuilder.hh"
#include "fastmu/tables/TableCache.hh"
#include "fastmu/transport/examples/Examples.hh"

namespace fastmu {
namespace {

namespace fs = std::filesystem;

const fs::path kShipped =
    fs::path(FASTMU_TEST_DATA_DIR).parent_path().parent_path() / "data" / "tables";

std::vector<std::string> shipped_materials() {
  std::ifstream in(kShipped / "materials.txt");
  std::vector<std::string> names;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] != '#') names.push_back(line);
  }
  return names;
}

// A cache with nothing of its own, reading the shipped folder, with the
// settings of a user's cache (whatever the tests' environment says).
struct ShippedOnly {
  fs::path empty = fs::temp_directory_path() / ("fastmu_shipped_" + std::to_string(::getpid()));
  TableCache cache{empty, kShipped};
  ShippedOnly() {
    cache.build_options().samples_per_bin = 1'000'000;
    cache.build_options().backend = "cpu";
  }
  ~ShippedOnly() { fs::remove_all(empty); }
};

// The ladder a run through `material` asks the cache for (a world of it).
std::vector<LadderRung> run_ladder(const Material& material, const TableCache& cache) {
  MaterialLibrary materials;
  const nlohmann::json world = {
      {"world", {{"min", {-1, -1, -1}}, {"max", {1, 1, 1}}, {"material", material.name}}}};
  const auto geo = GeometryParams::from_json(world, "shipped", materials);
  const auto want = cache_tables_needed(geo, materials, {}, cache, StepOptions{});
  return want.at(0).ladder;
}

TEST(ShippedTables, EveryListedMaterialHasItsWholeCurrentLadder) {
  ASSERT_TRUE(fs::is_directory(kShipped)) << kShipped;
  const auto names = shipped_materials();
  for (const auto& name : names) {
    ShippedOnly s;
    const Material& m = builtin_materials().find(name);
    EXPECT_TRUE(s.cache.holds(m, run_ladder(m, s.cache)))
        << name << ": the shipped tables are not those this fastmu builds "
        << "(rebuild them: bash tools/build-shipped-tables.sh on a GPU machine)";
    EXPECT_EQ(s.cache.builds().ladders, 0u);
  }
  // Every file in the folder belongs to a listed material.
  for (const auto& e : fs::directory_iterator(kShipped)) {
    if (e.path().extension() != ".h5") continue;
    const std::string file = e.path().filename().string();
    bool listed = false;
    for (const auto& name : names) listed |= file.rfind(name + "_step", 0) == 0;
    EXPECT_TRUE(listed) << file << " is not in materials.txt";
  }
}

// Bin b of the material's step d, rebuilt with `samples` histories.
TableParams rebuild_bin(const Material& m, double d, int b, std::size_t samples) {
  TableBuildOptions o;
  o.p_max = kCacheTopMomentum;
  o.p_bins = kCacheMomentumBins;
  o.step_m = d;
  o.samples_per_bin = samples;
  o.loss_precision = 0;
  o.from_bin = b;
  o.p_top = ladder_momentum_edges(o)[static_cast<std::size_t>(b) + 1] * (1 - 1e-9);
  o.backend = "cpu";
  o.threads = 2;
  o.seed = 99;  // other histories than the shipped ones
  return std::move(build_ladder_tables(m, {{d, 0.0}}, o, false).front());
}

TEST(ShippedTables, RebuiltBinsAgreeWithTheShippedOnes) {
  const auto names = shipped_materials();
  for (const auto& name : names) {
    ShippedOnly s;
    const Material& m = builtin_materials().find(name);
    const auto ladder = run_ladder(m, s.cache);
    const auto shipped = s.cache.get_ladder(m, ladder, false).front();
    ASSERT_EQ(s.cache.builds().ladders, 0u) << name;
    const auto& edges = shipped->data().p_edges;
    for (const double p : {3.0, 300.0, 3000.0}) {
      int b = 0;
      while (edges[static_cast<std::size_t>(b) + 1] <= p) ++b;
      const TableParams fresh = rebuild_bin(m, ladder[0].step_m, b, 20000);
      const auto& x = shipped->data();
      const auto& y = fresh.data();
      SCOPED_TRACE(name + " at " + std::to_string(p) + " GeV/c");
      // The mean fractional loss, within 5 standard errors of the two.
      const double nx = static_cast<double>(x.samples_per_bin[b]);
      const double ny = static_cast<double>(y.samples_per_bin[0]);
      const double err = std::hypot(x.std_loss[b] / std::sqrt(nx), y.std_loss[0] / std::sqrt(ny));
      EXPECT_NEAR(x.mean_loss[b], y.mean_loss[0], 5 * err);
      // The median and 90 % quantile of the loss, the median kick: within 10 %
      // (20000 histories and two histograms' bins).
      for (const auto& [axis, q] : {std::pair{0, 0.5}, {0, 0.9}, {1, 0.5}}) {
        const double a = test::table_quantile(*shipped, b, axis, q);
        const double c = test::table_quantile(fresh, 0, axis, q);
        EXPECT_NEAR(a / c, 1.0, 0.1) << "axis " << axis << " q " << q;
      }
    }
  }
}

}  // namespace
}  // namespace fastmu
