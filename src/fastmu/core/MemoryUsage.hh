// Resident memory of this process and memory sizes on the command line, for
// `--max-memory`.
#pragma once

#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <unistd.h>

#include "fastmu/core/Error.hh"

namespace fastmu {

// Resident set size now, in bytes (Linux /proc/self/statm; 0 if unreadable).
inline std::uint64_t resident_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long long size = 0, resident = 0;
  const int got = std::fscanf(f, "%llu %llu", &size, &resident);
  std::fclose(f);
  return got == 2 ? resident * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE)) : 0;
}

// "2GB", "256MB", "1.5G", "512MiB", "100000000" (bytes); K, M, G, T are
// powers of 1024. Throws fastmu::Error naming `option` otherwise.
inline std::uint64_t parse_memory_size(const std::string& text, const std::string& option) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  std::string unit(end ? end : "");
  for (auto& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  double scale = -1;
  if (unit.empty() || unit == "B") scale = 1;
  else if (unit == "K" || unit == "KB" || unit == "KIB") scale = 1024.0;
  else if (unit == "M" || unit == "MB" || unit == "MIB") scale = 1024.0 * 1024;
  else if (unit == "G" || unit == "GB" || unit == "GIB") scale = 1024.0 * 1024 * 1024;
  else if (unit == "T" || unit == "TB" || unit == "TIB") scale = 1024.0 * 1024 * 1024 * 1024;
  if (end == text.c_str() || scale < 0 || !(v > 0) || !std::isfinite(v * scale) ||
      v * scale > 1e18) {
    throw Error(option + ": '" + text + "' is not a memory size (e.g. 2GB, 256MB)");
  }
  return static_cast<std::uint64_t>(v * scale);
}

}  // namespace fastmu
