#include "fastmu/io/AtomicOutput.hh"

#include <unistd.h>
#include <fstream>
#include <system_error>

#include "fastmu/core/Error.hh"

namespace fastmu::io {

AtomicOutput::AtomicOutput(std::filesystem::path path) : final_(std::move(path)) {
  if (final_.empty()) throw Error("output path is empty");
  const auto dir = final_.has_parent_path() ? final_.parent_path() : std::filesystem::path(".");
  std::error_code ec;
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
  temp_ = dir / ("." + final_.filename().string() + ".part" + std::to_string(::getpid()));
}

AtomicOutput::~AtomicOutput() {
  if (!committed_) {
    std::error_code ec;
    std::filesystem::remove(temp_, ec);
  }
}

void AtomicOutput::commit() {
  std::error_code ec;
  std::filesystem::rename(temp_, final_, ec);
  if (ec) throw Error("cannot write '" + final_.string() + "': " + ec.message());
  committed_ = true;
}

}  // namespace fastmu::io
