#include "fastmu/io/Hdf5DeflatedRows.hh"

#include <algorithm>
#include <cstring>

#include "fastmu/io/Hdf5.hh"
#include "fastmu/io/Hdf5Inflate.hh"

namespace fastmu::io::h5 {
namespace {

// `rows` runs of W bytes, from `src` every `in_stride` bytes to `out` every
// `out_stride`: a fixed size, so the copy is inlined, not a library call per
// element (a chunk of one column is one element a row).
template <std::size_t W>
void copy_runs_fixed(const unsigned char* src, std::size_t in_stride, unsigned char* out,
                     std::size_t out_stride, std::uint64_t rows) {
  for (std::uint64_t r = 0; r < rows; ++r, src += in_stride, out += out_stride) {
    std::memcpy(out, src, W);
  }
}

void copy_runs(const unsigned char* src, std::size_t in_stride, unsigned char* out,
               std::size_t out_stride, std::uint64_t rows, std::size_t bytes) {
  switch (bytes) {
    case 4:
      return copy_runs_fixed<4>(src, in_stride, out, out_stride, rows);
    case 8:
      return copy_runs_fixed<8>(src, in_stride, out, out_stride, rows);
    case 16:
      return copy_runs_fixed<16>(src, in_stride, out, out_stride, rows);
    default:
      for (std::uint64_t r = 0; r < rows; ++r, src += in_stride, out += out_stride) {
        std::memcpy(out, src, bytes);
      }
  }
}

}  // namespace

std::optional<DeflatedGrid> deflated_grid(hid_t dataset, hid_t native_type) {
  Handle dcpl(H5Dget_create_plist(dataset));
  if (!dcpl.valid() || H5Pget_layout(dcpl.get()) != H5D_CHUNKED) return std::nullopt;
  DeflatedGrid g;
  if (!deflate_pipeline(dcpl.get(), g.shuffled)) return std::nullopt;
  Handle ftype(H5Dget_type(dataset));
  if (!ftype.valid() || H5Tequal(ftype.get(), native_type) <= 0) return std::nullopt;
  g.element_size = H5Tget_size(ftype.get());
  Handle space(H5Dget_space(dataset));
  if (!space.valid() || H5Sget_simple_extent_ndims(space.get()) != 2) return std::nullopt;
  hsize_t dims[2] = {}, chunk[2] = {};
  H5Sget_simple_extent_dims(space.get(), dims, nullptr);
  if (H5Pget_chunk(dcpl.get(), 2, chunk) != 2 || chunk[0] == 0 || chunk[1] == 0) {
    return std::nullopt;
  }
  g.rows = dims[0], g.cols = dims[1];
  g.chunk_rows = chunk[0], g.chunk_cols = chunk[1];
  if (g.rows == 0 || g.cols == 0) return std::nullopt;
  // Every chunk written: an unwritten one reads as the fill value, which
  // HDF5 makes up and there are no stored bytes to inflate.
  hsize_t count = 0;
  if (H5Dget_num_chunks(dataset, space.get(), &count) < 0 ||
      count != g.row_chunks() * g.col_chunks()) {
    return std::nullopt;
  }
  return g;
}

bool fetch_chunks(hid_t dataset, const DeflatedGrid& g, std::uint64_t first, std::uint64_t last,
                  StoredChunks& out) {
  const std::uint64_t per_row = g.col_chunks();
  const std::size_t n = static_cast<std::size_t>((last - first) * per_row);
  out.first = first, out.last = last;
  if (out.bytes.size() < n) out.bytes.resize(n);
  out.mask.assign(n, 0);
  for (std::uint64_t k = first; k < last; ++k) {
    for (std::uint64_t j = 0; j < per_row; ++j) {
      const std::size_t at = static_cast<std::size_t>((k - first) * per_row + j);
      const hsize_t offset[2] = {k * g.chunk_rows, j * g.chunk_cols};
      hsize_t stored = 0;
      if (H5Dget_chunk_storage_size(dataset, offset, &stored) < 0 || stored == 0) return false;
      out.bytes[at].resize(stored);
      std::uint32_t mask = 0;
      if (H5Dread_chunk(dataset, H5P_DEFAULT, offset, &mask, out.bytes[at].data()) < 0) {
        return false;
      }
      out.mask[at] = mask;
    }
  }
  return true;
}

bool place_chunk(const DeflatedGrid& g, const StoredChunks& s, std::uint64_t k, std::uint64_t j,
                 std::uint64_t row_begin, std::uint64_t row_end, unsigned char* dst,
                 std::vector<unsigned char>& plain, std::vector<unsigned char>& scratch) {
  const std::size_t at = static_cast<std::size_t>((k - s.first) * g.col_chunks() + j);
  plain.resize(g.chunk_bytes());
  if (!unfilter_chunk(s.bytes[at].data(), s.bytes[at].size(), s.mask[at], g.shuffled,
                      g.element_size, g.chunk_bytes(), plain.data(), scratch)) {
    return false;
  }
  // Chunk rows are chunk_cols elements wide; the dataset's cols.
  const std::uint64_t col0 = j * g.chunk_cols;
  const std::size_t width = static_cast<std::size_t>(std::min(g.chunk_cols, g.cols - col0));
  const std::size_t in_stride = static_cast<std::size_t>(g.chunk_cols) * g.element_size;
  const std::size_t out_stride = static_cast<std::size_t>(g.cols) * g.element_size;
  const unsigned char* src =
      plain.data() + static_cast<std::size_t>(row_begin - k * g.chunk_rows) * in_stride;
  unsigned char* out = dst + static_cast<std::size_t>(col0) * g.element_size;
  const std::size_t bytes = width * g.element_size;
  if (g.chunk_cols == g.cols) {  // whole rows: one copy
    std::memcpy(out, src, static_cast<std::size_t>(row_end - row_begin) * out_stride);
  } else {
    copy_runs(src, in_stride, out, out_stride, row_end - row_begin, bytes);
  }
  return true;
}

}  // namespace fastmu::io::h5
