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
#include <functional>
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

// What a chunk holds of the rows wanted: `count` rows from row `first`, at
// `plain` (row-major, valid during the call only).
using ChunkRows =
    std::function<void(std::uint64_t first, std::uint64_t count, const unsigned char* plain)>;

// As read_deflated_chunks, but each chunk's rows go to `use`, called on
// `threads` threads (each chunk once, in any order) while the chunk is
// still in cache, instead of into one array: a caller that turns rows into
// something else (a histogram into its alias table) needs no array of them.
// False, with `use` never called, where read_deflated_chunks declines.
bool for_each_deflated_chunk(hid_t dataset, hid_t native_type, std::size_t element_size,
                             const char* source, int threads, std::uint64_t rows,
                             const ChunkRows& use);

}  // namespace fastmu::io::h5
