#include "fastmu/io/AtomicOutput.hh"

#include <unistd.h>
#include <cstring>
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

void AtomicOutput::write(const std::function<void(const std::filesystem::path& temp)>& body) {
  try {
    body(temp_);
  } catch (const Error& e) {
    const std::string what = e.what();
    if (what.rfind("cannot write '", 0) == 0) throw;  // names the output already
    throw Error("cannot write '" + final_.string() + "': " + what);
  }
  commit();
}

Error write_error(const std::filesystem::path& path, const std::string& what, int err) {
  std::string reason = err ? std::strerror(err) : "the write failed";
  if (err == ENOSPC || err == EDQUOT) reason += " (the disk is full or over its quota)";
  if (err == EFBIG) reason += " (the disk is full or a file size limit is reached)";
  return Error("cannot write '" + path.string() + "': " + (what.empty() ? "" : what + ": ") +
               reason);
}

namespace {

// errno after a buffered write failed earlier: kept only when it is a
// write's own error (another call may have set errno since).
int write_errno() {
  const int e = errno;
  return e == ENOSPC || e == EFBIG || e == EDQUOT || e == EIO || e == EROFS ? e : 0;
}

}  // namespace

void close_checked(std::FILE* f, const std::filesystem::path& path) {
  const bool written = std::fflush(f) == 0 && std::ferror(f) == 0;
  const int err = write_errno();
  const bool closed = std::fclose(f) == 0;
  if (!written) throw write_error(path, "", err);
  if (!closed) throw write_error(path, "", errno);
}

void close_checked(std::ofstream& f, const std::filesystem::path& path) {
  f.flush();
  const int err = write_errno();
  const bool written = static_cast<bool>(f);
  f.close();  // a failed close sets failbit
  if (!written) throw write_error(path, "", err);
  if (!f) throw write_error(path, "", errno);
}

}  // namespace fastmu::io
