// Filtering chunks as HDF5's shuffle and deflate filters do, on any thread,
// so that a compressed dataset is written on all cores: HDF5 filters the
// chunks of an H5Dwrite one after the other on its calling thread (~100
// MB/s of gzip level 1), and H5Dwrite_chunk stores bytes filtered here as
// they are, the same file as H5Dwrite would write.
#pragma once

#include <cstddef>
#include <vector>

namespace fastmu::io::h5 {

// The stored bytes of one whole chunk of `bytes` plain bytes into `out`:
// byte-shuffled by `element_size` when `shuffled` (as H5Z's shuffle), then
// compressed by zlib's compress2 at `level` (what H5Z's deflate filter calls).
// False when zlib fails or the result is not smaller than the chunk: HDF5
// versions differ there (a skipped optional filter or a larger chunk), so
// such a chunk is left to H5Dwrite. `scratch` is reused between calls.
bool deflate_chunk(const unsigned char* plain, std::size_t bytes, std::size_t element_size,
                   bool shuffled, int level, std::vector<unsigned char>& out,
                   std::vector<unsigned char>& scratch);

// A chunk's stored bytes, and whether deflate_chunk made them (else it is
// left to H5Dwrite).
struct DeflatedChunk {
  std::vector<unsigned char> bytes;
  bool ok = false;
};

// The `n` consecutive chunks of `chunk_bytes` plain bytes at `plain`, each
// through deflate_chunk, on `threads` threads (0: all cores), into out[0,
// n) (out grows to n; its buffers are reused from call to call).
void deflate_chunks(const unsigned char* plain, std::size_t n, std::size_t chunk_bytes,
                    std::size_t element_size, bool shuffled, int level, int threads,
                    std::vector<DeflatedChunk>& out);

}  // namespace fastmu::io::h5
