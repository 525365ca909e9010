#include "fastmu/io/AtomicOutput.hh"

#include <unistd.h>
#include <fstream>
#include <system_error>

#include "fastmu/core/Error.hh"
#include "fastmu/io/InputFiles.hh"

namespace fastmu::io {

AtomicOutput::AtomicOutput(std::filesystem::path path) : final_(std::move(path)) {
  if (final_.empty()) throw Error("output path is empty");
  std::error_code ec;
  if (std::filesystem::is_symlink(final_, ec) && std::filesystem::exists(final_, ec)) {
    const std::string given = final_.string();
    final_ = std::filesystem::canonical(final_, ec);
    if (ec) throw Error("cannot write '" + given + "': " + ec.message());
  }
  const auto dir = final_.has_parent_path() ? final_.parent_path() : std::filesystem::path(".");
  if (!std::filesystem::is_directory(dir, ec)) {
    throw Error("cannot write '" + final_.string() + "': folder '" + dir.string() +
                "' does not exist");
  }
  if (::access(dir.c_str(), W_OK) != 0) {
    throw Error("cannot write '" + final_.string() + "': folder '" + dir.string() +
                "' is not writable");
  }
  if (std::filesystem::is_directory(final_, ec)) {
    throw Error("cannot write '" + final_.string() + "': it is a folder");
  }
  const auto status = std::filesystem::status(final_, ec);
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    // Replacing it would destroy it (a device node, a named pipe); writing
    // into it as a stream would lose the whole-or-nothing promise.
    throw Error("cannot write '" + final_.string() +
                "': it is not a regular file (a device, pipe or socket); name a file");
  }
  refuse_input_as_output(final_, "output");
  temp_ = temp_sibling(final_);
  cleanup_.emplace(temp_);
}

AtomicOutput::~AtomicOutput() {
  if (!committed_) {
    std::error_code ec;
    std::filesystem::remove(temp_, ec);
  }
}

void AtomicOutput::commit() {
  refuse_input_as_output(final_, "output");  // an input named after the check (a field map)
  std::error_code ec;
  std::filesystem::rename(temp_, final_, ec);
  if (ec) throw Error("cannot write '" + final_.string() + "': " + ec.message());
  committed_ = true;
}

}  // namespace fastmu::io
