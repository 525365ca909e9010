#include "fastmu/io/Hdf5RawRows.hh"

#include <algorithm>

#include "fastmu/io/Hdf5.hh"

namespace fastmu::io::h5 {

std::vector<RawRowExtent> raw_row_extents(hid_t file, hid_t dataset, hid_t native_type) {
  std::vector<RawRowExtent> none;
  Handle ftype(H5Dget_type(dataset));
  if (!ftype.valid() || H5Tequal(ftype.get(), native_type) <= 0) return none;
  Handle space(H5Dget_space(dataset));
  if (!space.valid() || H5Sget_simple_extent_ndims(space.get()) != 2) return none;
  hsize_t dims[2] = {};
  H5Sget_simple_extent_dims(space.get(), dims, nullptr);
  if (dims[0] == 0 || dims[1] == 0) return none;
  const std::uint64_t row_bytes = dims[1] * H5Tget_size(ftype.get());
  // Chunk addresses count from the end of the user block; H5Dget_offset
  // counts from the start of the file.
  Handle fcpl(H5Fget_create_plist(file));
  hsize_t user_block = 0;
  if (!fcpl.valid() || H5Pget_userblock(fcpl.get(), &user_block) < 0) return none;
  Handle dcpl(H5Dget_create_plist(dataset));
  if (!dcpl.valid() || H5Pget_nfilters(dcpl.get()) != 0) return none;
  const H5D_layout_t layout = H5Pget_layout(dcpl.get());
  if (layout == H5D_CONTIGUOUS) {
    const haddr_t at = H5Dget_offset(dataset);
    if (at == HADDR_UNDEF) return none;  // not allocated (or external storage)
    return {RawRowExtent{0, dims[0], at}};
  }
  if (layout != H5D_CHUNKED) return none;
  hsize_t chunk[2] = {};
  if (H5Pget_chunk(dcpl.get(), 2, chunk) != 2 || chunk[1] != dims[1] || chunk[0] == 0) return none;
  hsize_t count = 0;
  if (H5Dget_num_chunks(dataset, space.get(), &count) < 0) return none;
  if (count != (dims[0] + chunk[0] - 1) / chunk[0]) return none;  // some chunks unwritten
  std::vector<RawRowExtent> extents;
  extents.reserve(count);
  for (hsize_t k = 0; k < count; ++k) {
    hsize_t coords[2] = {};
    unsigned mask = 0;
    haddr_t addr = HADDR_UNDEF;
    hsize_t size = 0;
    if (H5Dget_chunk_info(dataset, space.get(), k, coords, &mask, &addr, &size) < 0 ||
        addr == HADDR_UNDEF || mask != 0 || size != chunk[0] * row_bytes) {
      return none;
    }
    // A chunk at the end holds a whole chunk's bytes; only its rows count.
    const std::uint64_t rows = std::min<std::uint64_t>(chunk[0], dims[0] - coords[0]);
    extents.push_back(RawRowExtent{coords[0], rows, user_block + addr});
  }
  std::sort(extents.begin(), extents.end(),
            [](const RawRowExtent& a, const RawRowExtent& b) { return a.first_row < b.first_row; });
  return extents;
}

}  // namespace fastmu::io::h5
