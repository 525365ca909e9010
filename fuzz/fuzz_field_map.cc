// Fuzzes the field-map reader (FieldMapParams::from_hdf5): edits
// (Hdf5Mutator.hh) of a small valid map -> a field map or fastmu::Error.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "FuzzSupport.hh"
#include "Hdf5Mutator.hh"
#include "fastmu/core/Error.hh"
#include "fastmu/field/FieldMapParams.hh"

namespace {

std::filesystem::path map_template() {
  static const auto path = [] {
    std::vector<float> b(3 * 2 * 2 * 3);
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = 0.1f * static_cast<float>(i % 7);
    const fastmu::FieldMapParams map({3, 2, 2}, std::move(b), {-1, -1, 0}, {1, 1, 2},
                                     fastmu::FieldInterpolation::linear,
                                     fastmu::FieldSymmetry::none);
    const auto p = fastmu::fuzz::scratch("map_template.h5");
    map.write_hdf5(p);
    return p;
  }();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const auto path = fastmu::fuzz::scratch("map.h5");
  fastmu::fuzz::mutate_hdf5(map_template(), path, in, {"B", "min", "max"});
  const auto interpolation =
      in.ConsumeBool() ? fastmu::FieldInterpolation::nearest : fastmu::FieldInterpolation::linear;
  const auto symmetry =
      in.ConsumeBool() ? fastmu::FieldSymmetry::quadrant : fastmu::FieldSymmetry::none;
  try {
    const auto map = fastmu::FieldMapParams::from_hdf5(path, interpolation, symmetry);
    (void)map.shape();
  } catch (const fastmu::Error&) {
  }
  fastmu::fuzz::require_no_open_hdf5_objects("FieldMapParams::from_hdf5");
  return 0;
}
