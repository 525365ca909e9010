// Where the rows of an unfiltered HDF5 dataset lie in its file, so that they
// can be read with positioned reads on all cores. HDF5 reads a dataset on the
// calling thread (~1.3 GB/s on the GPU machine's Xeon, BENCHMARKS.md): most
// of the time a 4e7-muon run spends reading its 1.28 GB input.
// Datasets that are compressed, need a type conversion, or are not fully
// allocated give no extents and are read through H5Dread.
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <vector>

namespace fastmu::io::h5 {

// Rows [first_row, first_row + rows) of a dataset stored as one run of bytes
// at `offset` in the file (row-major, whole rows).
struct RawRowExtent {
  std::uint64_t first_row = 0;
  std::uint64_t rows = 0;
  std::uint64_t offset = 0;
};

// The extents of every row, in row order, when the 2-D dataset is stored as
// `native_type` (no conversion) without filters, contiguous or chunked in
// whole rows, and all of its storage is allocated; empty otherwise. Offsets
// are from the start of the file (a user block included).
std::vector<RawRowExtent> raw_row_extents(hid_t file, hid_t dataset, hid_t native_type);

}  // namespace fastmu::io::h5
