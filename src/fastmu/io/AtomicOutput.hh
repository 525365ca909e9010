// Output files appear whole or not at all: writers write to a temporary
// sibling and rename it into place on commit(), so a failure leaves no
// partial file behind, and an interrupt (SIGINT, SIGTERM, SIGHUP) removes
// the temporary file too (TempFiles.hh). An output is never a file the
// command reads (InputFiles.hh) nor a device, pipe or socket.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

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

 private:
  std::filesystem::path final_;
  std::filesystem::path temp_;
  std::optional<InterruptCleanup> cleanup_;
  bool committed_ = false;
};

}  // namespace fastmu::io
