// Whole positioned reads and writes: pread and pwrite may move fewer bytes
// than asked, so both are repeated until every byte has moved. Threads may
// share a file descriptor (no file position is used). Each returns false on
// an error or, reading, at the end of the file; the caller names the file.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>

namespace fastmu::io {

inline bool pread_all(int fd, void* data, std::size_t bytes, std::uint64_t at) {
  auto* p = static_cast<char*>(data);
  while (bytes > 0) {
    const ssize_t got = ::pread(fd, p, bytes, static_cast<off_t>(at));
    if (got <= 0) return false;
    p += got, at += static_cast<std::uint64_t>(got), bytes -= static_cast<std::size_t>(got);
  }
  return true;
}

inline bool pwrite_all(int fd, const void* data, std::size_t bytes, std::uint64_t at) {
  const auto* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t put = ::pwrite(fd, p, bytes, static_cast<off_t>(at));
    if (put <= 0) return false;
    p += put, at += static_cast<std::uint64_t>(put), bytes -= static_cast<std::size_t>(put);
  }
  return true;
}

}  // namespace fastmu::io
