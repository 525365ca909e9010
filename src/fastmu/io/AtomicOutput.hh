// Output files appear whole or not at all: writers write to a temporary
// sibling and rename it into place on commit(), so a failure leaves no
// partial file behind, and an interrupt (SIGINT, SIGTERM, SIGHUP) removes
// the temporary file too (TempFiles.hh). An output is never a file the
// command reads (InputFiles.hh) nor a device, pipe or socket.
#pragma once

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>

#include "fastmu/core/Error.hh"

#include "fastmu/io/TempFiles.hh"

namespace fastmu::io {

class AtomicOutput {
 public:
  // Checks that `path` can be written (its folder exists and is writable,
  // it is not a folder, a device, a pipe or a socket, and not one of the
  // command's inputs); throws fastmu::Error naming the path otherwise. A
  // symbolic link is written through: its target is replaced, the link kept.
  explicit AtomicOutput(std::filesystem::path path);
  ~AtomicOutput();  // removes the temporary file unless committed
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;

  const std::filesystem::path& temp_path() const { return temp_; }
  const std::filesystem::path& final_path() const { return final_; }
  void commit();  // renames the temporary file onto the final path
  // Runs `body` on the temporary path, then commits. An Error from `body`
  // (a failed write) is rethrown naming the final path; nothing is left.
  void write(const std::function<void(const std::filesystem::path& temp)>& body);

 private:
  std::filesystem::path final_;
  std::filesystem::path temp_;
  std::optional<InterruptCleanup> cleanup_;
  bool committed_ = false;
};

// A failed write as one line: "cannot write 'PATH': WHAT: REASON", the
// reason from errno `err` (a full disk, a file size limit or quota says so).
Error write_error(const std::filesystem::path& path, const std::string& what, int err = errno);

// Flush and close, checked: a write that failed at any point (the stream's
// state, the flush, the close) throws write_error naming `path`.
void close_checked(std::FILE* f, const std::filesystem::path& path);
void close_checked(std::ofstream& f, const std::filesystem::path& path);

}  // namespace fastmu::io
