#include "fastmu/io/Hdf5Deflate.hh"

#include <zlib.h>

#include <cstring>

#include "fastmu/core/Parallel.hh"

namespace fastmu::io::h5 {
namespace {

// HDF5's shuffle: byte j of every element together, the bytes of a last
// partial element left at the end. The common sizes get a fixed inner loop.
// Tiles of 64 elements: each of the S output runs gets whole cache lines.
template <std::size_t S>
void shuffle_fixed(const unsigned char* in, unsigned char* out, std::size_t n) {
  constexpr std::size_t kTile = 64;
  std::size_t i0 = 0;
  for (; i0 + kTile <= n; i0 += kTile) {
    for (std::size_t j = 0; j < S; ++j) {
      unsigned char* o = out + j * n + i0;
      const unsigned char* p = in + i0 * S + j;
      for (std::size_t i = 0; i < kTile; ++i) o[i] = p[i * S];
    }
  }
  for (std::size_t i = i0; i < n; ++i) {
    for (std::size_t j = 0; j < S; ++j) out[j * n + i] = in[i * S + j];
  }
}

void shuffle(const unsigned char* in, unsigned char* out, std::size_t bytes, std::size_t size) {
  const std::size_t n = bytes / size;
  if (size == 4) {
    shuffle_fixed<4>(in, out, n);
  } else if (size == 8) {
    shuffle_fixed<8>(in, out, n);
  } else {
    for (std::size_t j = 0; j < size; ++j) {
      for (std::size_t i = 0; i < n; ++i) out[j * n + i] = in[i * size + j];
    }
  }
  std::memcpy(out + n * size, in + n * size, bytes - n * size);
}

}  // namespace

bool deflate_chunk(const unsigned char* plain, std::size_t bytes, std::size_t element_size,
                   bool shuffled, int level, std::vector<unsigned char>& out,
                   std::vector<unsigned char>& scratch) {
  const unsigned char* src = plain;
  if (shuffled && element_size > 1) {
    scratch.resize(bytes);
    shuffle(plain, scratch.data(), bytes, element_size);
    src = scratch.data();
  }
  uLongf got = compressBound(static_cast<uLong>(bytes));
  out.resize(got);
  if (compress2(out.data(), &got, src, static_cast<uLong>(bytes), level) != Z_OK || got >= bytes) {
    return false;
  }
  out.resize(got);
  return true;
}

void deflate_chunks(const unsigned char* plain, std::size_t n, std::size_t chunk_bytes,
                    std::size_t element_size, bool shuffled, int level, int threads,
                    std::vector<DeflatedChunk>& out) {
  if (out.size() < n) out.resize(n);
  parallel_for_chunks(n, threads, 1, [&](std::size_t lo, std::size_t hi) {
    std::vector<unsigned char> scratch;
    for (std::size_t i = lo; i < hi; ++i) {
      out[i].ok = deflate_chunk(plain + i * chunk_bytes, chunk_bytes, element_size, shuffled, level,
                                out[i].bytes, scratch);
    }
  });
}

}  // namespace fastmu::io::h5
