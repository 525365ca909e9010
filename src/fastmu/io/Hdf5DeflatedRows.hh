// Rows of a 2-D dataset stored in deflated chunks (gzip, with or without
// shuffle; any chunk shape, h5py's column-split chunks included), read on
// all cores. HDF5 inflates the chunks a read touches one after the other on
// its calling thread (a 1e7-row float32 SHiP-like input: ~1.5 s). Here the
// stored chunks of a row range are fetched through HDF5 on the calling
// thread (H5Dread_chunk: the compressed bytes, a small part of the time)
// and inflated and placed by the caller's threads.
#pragma once

#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace fastmu::io::h5 {

// The chunk grid of a 2-D deflated dataset and how its chunks are filtered.
struct DeflatedGrid {
  std::uint64_t rows = 0, cols = 0;              // the dataset
  std::uint64_t chunk_rows = 0, chunk_cols = 0;  // one chunk
  std::size_t element_size = 0;
  bool shuffled = false;

  std::uint64_t col_chunks() const { return (cols + chunk_cols - 1) / chunk_cols; }
  std::uint64_t row_chunks() const { return (rows + chunk_rows - 1) / chunk_rows; }
  // A stored chunk's plain bytes: always a whole chunk, at the edges too.
  std::size_t chunk_bytes() const { return chunk_rows * chunk_cols * element_size; }
};

// The grid of `dataset` when it is 2-D, chunked, filtered by deflate (after
// shuffle or not) and nothing else, stored as `native_type` (no conversion)
// and every chunk is written (no fill values to make up); none otherwise:
// such datasets are read through H5Dread.
std::optional<DeflatedGrid> deflated_grid(hid_t dataset, hid_t native_type);

// The stored (compressed) chunks of row chunks [first, last), fetched in
// file order on the calling thread; buffers are reused between calls.
struct StoredChunks {
  std::uint64_t first = 0, last = 0;
  std::vector<std::vector<unsigned char>> bytes;  // [(k - first) * col_chunks + j]
  std::vector<unsigned> mask;                     // each chunk's filter mask
};
// False when HDF5 cannot read one of them.
bool fetch_chunks(hid_t dataset, const DeflatedGrid& g, std::uint64_t first, std::uint64_t last,
                  StoredChunks& out);

// Chunk (k, j) of `s` inflated into `plain` (g.chunk_bytes()), its rows
// [row_begin, row_end) (dataset rows, inside the chunk) then copied into the
// row-major rows at `dst` (g.cols elements a row, dst holding row_begin),
// its columns beyond the dataset left out. False when the chunk is corrupt.
bool place_chunk(const DeflatedGrid& g, const StoredChunks& s, std::uint64_t k, std::uint64_t j,
                 std::uint64_t row_begin, std::uint64_t row_end, unsigned char* dst,
                 std::vector<unsigned char>& plain, std::vector<unsigned char>& scratch);

}  // namespace fastmu::io::h5
