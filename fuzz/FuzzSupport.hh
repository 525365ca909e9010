// Shared pieces of the libFuzzer targets: a private scratch file per process
// and the rule every target checks — a reader either returns or throws
// fastmu::Error; any other exception, a crash or a sanitizer report is a finding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

namespace fastmu::fuzz {

// <tmp>/fastmu-fuzz-<pid>/<name>: one folder per fuzzing process (-fork/-jobs safe).
inline std::filesystem::path scratch(const std::string& name) {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("fastmu-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir / name;
}

inline std::filesystem::path write_bytes(const std::string& name, const std::uint8_t* data,
                                         std::size_t size) {
  const auto path = scratch(name);
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path;
}

}  // namespace fastmu::fuzz
