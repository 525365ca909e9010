// Fuzzes the muon HDF5 reader (read_muons on .h5): edits (Hdf5Mutator.hh) of a
// file in the spec's layout (dataset `muons`, no attributes) or in fastmu's
// own (with a `columns` attribute) -> muons or fastmu::Error.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "FuzzSupport.hh"
#include "Hdf5Mutator.hh"
#include "fastmu/core/Error.hh"
#include "fastmu/io/ColumnTable.hh"
#include "fastmu/io/Hdf5.hh"
#include "fastmu/transport/stream/MuonIO.hh"

namespace {

const std::vector<double> kRows = {0.1, 0.2, 50, 1, 2, 3, 13, 0.5, 0, 0, 20, -1, -2, -3, -13, 2};

std::filesystem::path spec_template() {
  static const auto path = [] {
    const auto p = fastmu::fuzz::scratch("spec_template.h5");
    fastmu::io::h5::Handle f = fastmu::io::h5::create_file(p.string());
    fastmu::io::h5::write_dataset<double>(f.get(), "muons", {2, 8}, kRows.data());
    return p;
  }();
  return path;
}

std::filesystem::path named_template() {
  static const auto path = [] {
    const auto p = fastmu::fuzz::scratch("named_template.h5");
    fastmu::io::ColumnTable t;
    t.columns = {"px", "py", "pz", "x", "y", "z", "pdg", "weight"};
    t.values = kRows;
    fastmu::io::write_table(p, t, "muons");
    return p;
  }();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const auto path = fastmu::fuzz::scratch("muons.h5");
  fastmu::fuzz::mutate_hdf5(in.ConsumeBool() ? spec_template() : named_template(), path, in,
                            {"muons", "columns"});
  try {
    fastmu::read_muons(path);
  } catch (const fastmu::Error&) {
  }
  fastmu::fuzz::require_no_open_hdf5_objects("read_muons");
  return 0;
}
