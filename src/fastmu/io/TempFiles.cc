#include "fastmu/io/TempFiles.hh"

#include <signal.h>
#include <unistd.h>
#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <string>
#include <system_error>

namespace fastmu::io {
namespace {

// A fixed table the signal handler can read without allocating: a slot is
// free (0), being written (1) or holds a path (2).
constexpr int kSlots = 256;
constexpr std::size_t kPathBytes = 4096;
struct Slot {
  std::atomic<int> state{0};
  char path[kPathBytes];
};
std::array<Slot, kSlots> slots;

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

extern "C" void remove_and_reraise(int sig) {
  for (Slot& s : slots) {
    if (s.state.load() == 2) ::unlink(s.path);
  }
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void install_handlers() {
  for (int sig : kSignals) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL) continue;
    struct sigaction act {};
    act.sa_handler = remove_and_reraise;
    sigemptyset(&act.sa_mask);
    ::sigaction(sig, &act, nullptr);
  }
}

const std::string kPart = ".part";

}  // namespace

InterruptCleanup::InterruptCleanup(const std::filesystem::path& path) {
  static std::once_flag installed;
  std::call_once(installed, install_handlers);
  const std::string p = path.string();
  if (p.size() >= kPathBytes) return;
  for (int k = 0; k < kSlots; ++k) {
    int free = 0;
    if (!slots[k].state.compare_exchange_strong(free, 1)) continue;
    std::memcpy(slots[k].path, p.c_str(), p.size() + 1);
    slots[k].state.store(2);
    slot_ = k;
    return;
  }
}

InterruptCleanup::~InterruptCleanup() {
  if (slot_ >= 0) slots[slot_].state.store(0);
}

std::filesystem::path temp_sibling(const std::filesystem::path& final) {
  const auto dir = final.has_parent_path() ? final.parent_path() : std::filesystem::path(".");
  return dir / ("." + final.filename().string() + kPart + std::to_string(::getpid()));
}

std::vector<std::filesystem::path> stale_temp_files(const std::filesystem::path& dir,
                                                    std::chrono::hours max_age) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<fs::path> out;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const auto at = name.rfind(kPart);
    if (name.empty() || name[0] != '.' || at == std::string::npos) continue;
    const std::string digits = name.substr(at + kPart.size());
    if (digits.empty() || digits.size() > 9 ||
        digits.find_first_not_of("0123456789") != std::string::npos)
      continue;
    std::error_code tec;
    if (!it->is_regular_file(tec)) continue;
    const auto age = fs::file_time_type::clock::now() - fs::last_write_time(it->path(), tec);
    if (tec) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(digits));
    const bool gone = pid != ::getpid() && ::kill(pid, 0) != 0 && errno == ESRCH &&
                      age > std::chrono::minutes(10);
    if (gone || age > max_age) out.push_back(it->path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

int remove_stale_temp_files(const std::filesystem::path& dir, std::chrono::hours max_age) {
  int removed = 0;
  for (const auto& p : stale_temp_files(dir, max_age)) {
    std::error_code ec;
    if (std::filesystem::remove(p, ec)) ++removed;
  }
  return removed;
}

}  // namespace fastmu::io
