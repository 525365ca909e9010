// The highest momentum of a muon file, remembered by the file's identity, so
// that `--p-max auto` reads a large input once, not on every run: a shield
// optimisation sends the same muon file through thousands of geometries,
// and the pass over 5e8 muons (16 GB) costs seconds each time.
//
// A memo holds the top the pass found and that every row passed the row
// checks of the given limit. It is keyed by the file's canonical path,
// device, inode, size and its modification and status-change times to the
// nanosecond: any write to the file changes its ctime (which no user call
// can set back), so a changed file is read again. Memos live in the table
// cache folder (`inputs/`); a missing, unreadable or foreign memo is simply
// a miss, and a memo that cannot be written costs nothing but the next pass.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace fastmu {

// Inputs smaller than this are read again: their pass takes milliseconds.
inline constexpr std::uintmax_t kTopMemoMinBytes = std::uintmax_t{64} << 20;

// The memo's key of `muons` read under the row limit `p_limit` [GeV/c], or
// empty when the file cannot be identified (not a regular file, too small).
std::string top_momentum_key(const std::filesystem::path& muons, double p_limit);

// The remembered top for `key` in the memo folder `dir`, if any.
std::optional<double> recall_top_momentum(const std::filesystem::path& dir, const std::string& key);

// Remembers `top` for `key` (atomically; a failure is ignored).
void remember_top_momentum(const std::filesystem::path& dir, const std::string& key, double top);

}  // namespace fastmu
