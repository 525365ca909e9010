#include "fastmu/io/Hdf5Chunks.hh"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "fastmu/core/Error.hh"
#include "fastmu/core/Parallel.hh"
#include "fastmu/io/Hdf5.hh"
#include "fastmu/io/Hdf5Inflate.hh"

namespace fastmu::io::h5 {

bool for_each_deflated_chunk(hid_t dataset, hid_t native_type, std::size_t element_size,
                             const char* source, int threads, std::uint64_t rows,
                             const ChunkRows& use) {
  Handle dcpl(H5Dget_create_plist(dataset));
  if (!dcpl.valid() || H5Pget_layout(dcpl.get()) != H5D_CHUNKED) return false;
  bool shuffled = false;
  if (!deflate_pipeline(dcpl.get(), shuffled)) return false;
  Handle ftype(H5Dget_type(dataset));
  if (!ftype.valid() || H5Tequal(ftype.get(), native_type) <= 0 ||
      H5Tget_size(ftype.get()) != element_size) {
    return false;
  }
  Handle space(H5Dget_space(dataset));
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 1 || rank > 8) return false;
  hsize_t dims[8], chunk[8];
  H5Sget_simple_extent_dims(space.get(), dims, nullptr);
  if (H5Pget_chunk(dcpl.get(), rank, chunk) != rank) return false;
  // Chunks of whole rows: chunk k holds the elements [k c, (k + 1) c).
  std::size_t row_elements = 1;
  for (int d = 1; d < rank; ++d) {
    if (chunk[d] != dims[d]) return false;
    row_elements *= dims[d];
  }
  if (chunk[0] < 1) return false;
  const hsize_t wanted = std::min<std::uint64_t>(rows, dims[0]);
  const std::size_t nchunks = (wanted + chunk[0] - 1) / chunk[0];
  const std::size_t chunk_bytes = chunk[0] * row_elements * element_size;

  // The compressed chunks, read in order (HDF5 is not called from threads).
  std::vector<std::vector<unsigned char>> raw(nchunks);
  for (std::size_t k = 0; k < nchunks; ++k) {
    hsize_t offset[8] = {};
    offset[0] = k * chunk[0];
    hsize_t stored = 0;
    if (H5Dget_chunk_storage_size(dataset, offset, &stored) < 0 || stored == 0) return false;
    raw[k].resize(stored);
    std::uint32_t mask = 0;
    if (H5Dread_chunk(dataset, H5P_DEFAULT, offset, &mask, raw[k].data()) < 0) return false;
    if (mask != 0) return false;  // a filter was skipped for this chunk
  }
  parallel_for_chunks(nchunks, threads, 1, [&](std::size_t begin, std::size_t end) {
    std::vector<unsigned char> plain(chunk_bytes), scratch;
    for (std::size_t k = begin; k < end; ++k) {
      if (!unfilter_chunk(raw[k].data(), raw[k].size(), 0, shuffled, element_size, chunk_bytes,
                          plain.data(), scratch)) {
        throw Error(std::string(source) + ": corrupt compressed chunk " + std::to_string(k));
      }
      // A chunk past the end (of the dataset or of the rows wanted) holds a
      // whole chunk's bytes; only the rows wanted are passed on.
      const std::uint64_t first = k * chunk[0];
      use(first, std::min<std::uint64_t>(chunk[0], wanted - first), plain.data());
    }
  });
  return true;
}

bool read_deflated_chunks(hid_t dataset, hid_t native_type, std::size_t element_size, void* out,
                          const char* source, int threads, std::uint64_t rows) {
  Handle space(H5Dget_space(dataset));
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 1 || rank > 8) return false;
  hsize_t dims[8];
  H5Sget_simple_extent_dims(space.get(), dims, nullptr);
  std::size_t row_bytes = element_size;
  for (int d = 1; d < rank; ++d) row_bytes *= dims[d];
  auto* dst = static_cast<unsigned char*>(out);
  return for_each_deflated_chunk(
      dataset, native_type, element_size, source, threads, rows,
      [&](std::uint64_t first, std::uint64_t count, const unsigned char* plain) {
        std::memcpy(dst + first * row_bytes, plain, count * row_bytes);
      });
}

}  // namespace fastmu::io::h5
