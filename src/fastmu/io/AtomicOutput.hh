// Output files appear whole or not at all: writers write to a temporary
// sibling and rename it into place on commit(), so a failure leaves no
// partial file behind.
#pragma once

#include <filesystem>
#include <string>

namespace fastmu::io {

class AtomicOutput {
 public:
  // Checks that `path` can be written (its folder exists and is writable);
  // throws fastmu::Error naming the path otherwise.
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
  bool committed_ = false;
};

}  // namespace fastmu::io
