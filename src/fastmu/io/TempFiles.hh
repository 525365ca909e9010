// Temporary files that go when the process is interrupted: SIGINT, SIGTERM
// and SIGHUP remove every registered file, then end the process as the
// signal would have. A process killed outright (SIGKILL, a crash) leaves its
// files behind; remove_stale_temp_files() sweeps those from a folder later.
#pragma once

#include <chrono>
#include <filesystem>
#include <vector>

namespace fastmu::io {

// Registers `path` for removal on an interrupt while the guard lives (the
// guard does not remove it itself). The handlers are installed on first use,
// only for signals whose action is still the default (a Python session
// keeps its own SIGINT handler).
class InterruptCleanup {
 public:
  explicit InterruptCleanup(const std::filesystem::path& path);
  ~InterruptCleanup();
  InterruptCleanup(const InterruptCleanup&) = delete;
  InterruptCleanup& operator=(const InterruptCleanup&) = delete;

 private:
  int slot_ = -1;  // -1: more files than slots, not registered
};

// The temporary name of `final` for this process: ".NAME.part<pid>" beside it.
std::filesystem::path temp_sibling(const std::filesystem::path& final);

// The temporary files (".NAME.part<pid>") in `dir` that no process will
// finish, sorted: those whose process is gone and that were not written for
// 10 minutes (a process id names a process of this host only: on a folder
// shared between hosts a file written elsewhere is recent), and those older
// than `max_age` (a process id can be reused). The one rule for the cache's
// sweep at start and `fastmu tables prune`.
std::vector<std::filesystem::path> stale_temp_files(
    const std::filesystem::path& dir, std::chrono::hours max_age = std::chrono::hours(24));

// Removes stale_temp_files(dir, max_age); returns how many went. Errors (a
// file another process removed) are ignored.
int remove_stale_temp_files(const std::filesystem::path& dir,
                            std::chrono::hours max_age = std::chrono::hours(24));

}  // namespace fastmu::io
