// Undoing the one filter pipeline fastmu reads without HDF5: deflate,
// optionally after HDF5's byte shuffle (what h5py's compression="gzip",
// shuffle=True and fastmu's own --compression gzip write). The chunk readers
// (Hdf5Chunks, Hdf5DeflatedRows) fetch stored chunks through HDF5 on one
// thread and call this on many: HDF5 itself inflates on its calling thread.
#pragma once

#include <hdf5.h>

#include <cstddef>
#include <vector>

namespace fastmu::io::h5 {

// Whether this fastmu inflates with libdeflate (built with it: about three times
// zlib's speed on a whole chunk) rather than zlib.
bool have_libdeflate();

// A zlib stream (what H5Z's deflate filter stores) inflated into exactly
// `bytes` bytes at `out`; false when it is corrupt or holds another size.
// Through libdeflate where fastmu has it, unless `use_zlib` (for tests: the
// two give the same bytes), else zlib. Any thread.
bool inflate_exact(const unsigned char* in, std::size_t in_bytes, unsigned char* out,
                   std::size_t bytes, bool use_zlib = false);

// Whether the pipeline of dataset-creation list `dcpl` is deflate, optionally
// preceded by shuffle (the order HDF5 applies them when writing), and
// nothing else; `shuffled` says whether shuffle is there.
bool deflate_pipeline(hid_t dcpl, bool& shuffled);

// One stored chunk back to its `chunk_bytes` plain bytes at `out`. `mask` is
// the chunk's filter mask (bit i: filter i of the pipeline was skipped, as
// HDF5 does for an optional filter that failed). `scratch` is reused between
// calls. False when the stored bytes do not give exactly `chunk_bytes`.
bool unfilter_chunk(const unsigned char* stored, std::size_t stored_bytes, unsigned mask,
                    bool shuffled, std::size_t element_size, std::size_t chunk_bytes,
                    unsigned char* out, std::vector<unsigned char>& scratch);

}  // namespace fastmu::io::h5
