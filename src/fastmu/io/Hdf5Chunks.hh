// Reading a chunked, shuffle+deflate-compressed HDF5 dataset on all cores.
// HDF5 inflates a dataset's chunks one after the other on the calling thread
// (~0.3 GB/s); a SHiP-like run loads ~190 MB of such tables, half a second of
// its set-up. Here the raw chunks are read through HDF5 (H5Dread_chunk, cheap:
// the compressed bytes) and inflated and unshuffled in parallel. Datasets in
// any other layout (contiguous, other filters, type conversion needed) return
// false and the caller reads them with H5Dread.
#pragma once

#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <limits>

namespace fastmu::io::h5 {

// Every row of a dataset.
inline constexpr std::uint64_t kAllRows = std::numeric_limits<std::uint64_t>::max();

// Fills `out` (the dataset's first `rows` rows along its first axis, all of
// them when it has fewer; row-major, `element_size` bytes per element,
// stored in the file as the native type `native_type`) when the dataset is
// chunked along its first axis only, filtered by exactly shuffle + deflate
// (or deflate alone) and stored as `native_type`; returns false, having
// written nothing useful, when it is not. Only the chunks holding those rows
// are read. Throws fastmu::Error naming `source` on a corrupt chunk.
bool read_deflated_chunks(hid_t dataset, hid_t native_type, std::size_t element_size, void* out,
                          const char* source, int threads = 0, std::uint64_t rows = kAllRows);

}  // namespace fastmu::io::h5
