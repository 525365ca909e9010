#include "fastmu/io/Hdf5Inflate.hh"

#ifndef FASTMU_HAVE_LIBDEFLATE
#define FASTMU_HAVE_LIBDEFLATE 0
#endif

#include <zlib.h>

#include <cstring>
#include <memory>

#if FASTMU_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif

namespace fastmu::io::h5 {
namespace {

#if FASTMU_HAVE_LIBDEFLATE
// One decompressor per thread (one may not be shared), made on first use.
libdeflate_decompressor* thread_decompressor() {
  struct Free {
    void operator()(libdeflate_decompressor* d) const { libdeflate_free_decompressor(d); }
  };
  thread_local std::unique_ptr<libdeflate_decompressor, Free> d(libdeflate_alloc_decompressor());
  return d.get();
}
#endif

// HDF5's shuffle puts byte j of every element together; undo it. The
// common element sizes get a fixed inner loop (unrolled by the compiler).
template <std::size_t S>
void unshuffle_fixed(const unsigned char* in, unsigned char* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < S; ++j) out[i * S + j] = in[j * n + i];
  }
}

void unshuffle(const unsigned char* in, unsigned char* out, std::size_t bytes, std::size_t size) {
  const std::size_t n = bytes / size;
  if (size == 4) {
    unshuffle_fixed<4>(in, out, n);
  } else if (size == 8) {
    unshuffle_fixed<8>(in, out, n);
  } else {
    for (std::size_t j = 0; j < size; ++j) {
      const unsigned char* plane = in + j * n;
      for (std::size_t i = 0; i < n; ++i) out[i * size + j] = plane[i];
    }
  }
  std::memcpy(out + n * size, in + n * size, bytes - n * size);
}

}  // namespace

bool have_libdeflate() { return FASTMU_HAVE_LIBDEFLATE; }

bool inflate_exact(const unsigned char* in, std::size_t in_bytes, unsigned char* out,
                   std::size_t bytes, bool use_zlib) {
#if FASTMU_HAVE_LIBDEFLATE
  if (!use_zlib) {
    libdeflate_decompressor* d = thread_decompressor();
    // Without a size to return, anything but exactly `bytes` is an error
    // (LIBDEFLATE_SHORT_OUTPUT, INSUFFICIENT_SPACE); as zlib, it stops at the
    // stream's end and checks its Adler-32.
    if (d) return libdeflate_zlib_decompress(d, in, in_bytes, out, bytes, nullptr) == 0;
  }
#endif
  (void)use_zlib;
  uLongf got = static_cast<uLongf>(bytes);
  return uncompress(out, &got, in, static_cast<uLong>(in_bytes)) == Z_OK && got == bytes;
}

bool deflate_pipeline(hid_t dcpl, bool& shuffled) {
  const int n = H5Pget_nfilters(dcpl);
  shuffled = false;
  if (n < 1 || n > 2) return false;
  for (int i = 0; i < n; ++i) {
    unsigned flags = 0, config = 0;
    std::size_t nvalues = 8;
    unsigned values[8];
    char name[64];
    const H5Z_filter_t f = H5Pget_filter2(dcpl, static_cast<unsigned>(i), &flags, &nvalues, values,
                                          sizeof name, name, &config);
    if (n == 2 && i == 0 && f == H5Z_FILTER_SHUFFLE) {
      shuffled = true;
    } else if (i != n - 1 || f != H5Z_FILTER_DEFLATE) {
      return false;
    }
  }
  return true;
}

bool unfilter_chunk(const unsigned char* stored, std::size_t stored_bytes, unsigned mask,
                    bool shuffled, std::size_t element_size, std::size_t chunk_bytes,
                    unsigned char* out, std::vector<unsigned char>& scratch) {
  const unsigned deflate_bit = shuffled ? 2u : 1u;
  const bool inflate = (mask & deflate_bit) == 0;
  const bool unshuffle_it = shuffled && (mask & 1u) == 0;
  const unsigned char* plain = stored;
  if (inflate) {
    // Inflated straight into `out` when nothing follows.
    unsigned char* dst = out;
    if (unshuffle_it) {
      scratch.resize(chunk_bytes);
      dst = scratch.data();
    }
    if (!inflate_exact(stored, stored_bytes, dst, chunk_bytes)) return false;
    plain = dst;
  } else if (stored_bytes != chunk_bytes) {
    return false;
  }
  if (unshuffle_it) {
    unshuffle(plain, out, chunk_bytes, element_size);
  } else if (plain != out) {
    std::memcpy(out, plain, chunk_bytes);
  }
  return true;
}

}  // namespace fastmu::io::h5
