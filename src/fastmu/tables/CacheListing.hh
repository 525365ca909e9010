// What the table cache folder holds, ladder by ladder, and its clean-up:
// `fastmu tables list` and `fastmu tables prune`.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace fastmu {

// Whether this fastmu reads a cached table file.
enum class CacheEntryState {
  current,       // this format, this engine version, a key without the top momentum
  other_engine,  // made by another engine version (its key never matches now)
  other_format,  // another file format version, or a key that named the top momentum
  unreadable,    // not a table file this fastmu can open
};
const char* to_string(CacheEntryState s);

// One ladder of the cache: the files of one material made together (their
// keys agree but for the step), or one unreadable file.
struct CacheEntry {
  std::string material;
  std::vector<double> steps_m;  // ascending
  double p_min = 0, p_max = 0;  // GeV/c: the range of its full-range steps
  std::uint64_t bytes = 0;      // on disk
  std::string created_utc;      // the latest of its files
  std::string engine;           // e.g. "fastmu 0.9.0" (from the generator)
  CacheEntryState state = CacheEntryState::current;
  std::vector<std::filesystem::path> files;
};

// The cache's table files in `dir` (named as TableCache::file_name makes
// them), grouped into ladders, by material then top momentum. An absent
// folder lists nothing.
std::vector<CacheEntry> list_cache(const std::filesystem::path& dir);

// Removes the files of every entry this fastmu does not read and the stale
// temporary files (io::stale_temp_files) (with `dry_run`, only says which); returns them and their
// bytes.
struct PruneResult {
  std::vector<std::filesystem::path> removed;
  std::uint64_t bytes = 0;
};
PruneResult prune_cache(const std::filesystem::path& dir, bool dry_run = false);

}  // namespace fastmu
