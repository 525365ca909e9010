// Fuzzes the table file reader (load_table): edits (Hdf5Mutator.hh) of a small
// valid table file -> a table or fastmu::Error.
#include <cstddef>
#include <cstdint>

#include "FuzzSupport.hh"
#include "Hdf5Mutator.hh"
#include "fastmu/core/Error.hh"
#include "fastmu/materials/Material.hh"
#include "fastmu/tables/EngineSampleSource.hh"
#include "fastmu/tables/TableFile.hh"

namespace {

std::filesystem::path table_template() {
  static const auto path = [] {
    fastmu::TableBuildOptions o;
    o.p_min = 1;
    o.p_max = 10;
    o.p_bins = 3;
    o.samples_per_bin = 200;
    o.hist_bins = 5;
    o.threads = 1;
    const auto p = fastmu::fuzz::scratch("table_template.h5");
    fastmu::write_table_file(
        p, fastmu::build_table_with_engine(fastmu::builtin_materials().find("G4_Fe"), o));
    return p;
  }();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const auto path = fastmu::fuzz::scratch("table.h5");
  fastmu::fuzz::mutate_hdf5(table_template(), path, in);
  try {
    fastmu::load_table(path, in.ConsumeBool() ? 0.02 : 0.0);
  } catch (const fastmu::Error&) {
  }
  fastmu::fuzz::require_no_open_hdf5_objects("load_table");
  return 0;
}
