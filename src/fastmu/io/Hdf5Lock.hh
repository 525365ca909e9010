// One lock for the HDF5 calls of threads that run at the same time: Debian's
// HDF5 is built without its thread-safe option, so no two threads may be in
// the library at once. A streaming run reads its input (chunks fetched by
// H5Dread_chunk or H5Dread) on one thread while another grows and writes its
// output; each takes this lock around its calls. Recursive, so that a locked
// step may call another.
#pragma once

#include <mutex>

namespace fastmu::io::h5 {

inline std::recursive_mutex& library_mutex() {
  static std::recursive_mutex m;
  return m;
}

using LibraryLock = std::lock_guard<std::recursive_mutex>;

}  // namespace fastmu::io::h5
