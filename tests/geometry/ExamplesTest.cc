// Every geometry in examples/ loads: valid JSON, known materials, no overlaps.
#include <filesystem>

#include <gtest/gtest.h>

#include "fastmu/geometry/GeometryParams.hh"
#include "fastmu/materials/Material.hh"

namespace fastmu {
namespace {

TEST(Examples, AllGeometryFilesLoad) {
  const auto dir =
      (std::filesystem::path(FASTMU_TEST_DATA_DIR) / "../../examples").lexically_normal();
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    MaterialLibrary lib;
    EXPECT_NO_THROW(GeometryParams::from_json_file(entry.path(), lib)) << entry.path();
    ++n;
  }
  EXPECT_GE(n, 3);  // iron_block, ship_warm, ship_hybrid
}

}  // namespace
}  // namespace fastmu
