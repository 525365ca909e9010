// An exclusive lock on a file between processes (flock): held from
// construction to destruction, waited for while another process holds it.
#pragma once

#include <filesystem>

namespace fastmu::io {

class FileLock {
 public:
  // Creates `path` if missing and waits for the lock; throws fastmu::Error
  // naming the path if it cannot be opened or locked.
  explicit FileLock(const std::filesystem::path& path);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace fastmu::io
