// A terminal progress bar for long work (table builds, large runs).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>

#include <unistd.h>

namespace fastmu {

// Thread-safe; draws on stderr only when both stdout and stderr are terminals
// (or when forced), at most ten times a second, so it costs nothing in hot
// loops. Shows the fraction done, the rate (items per second) and the time left.
class ProgressBar {
 public:
  ProgressBar(std::string label, std::size_t total, bool enabled = isatty(1) != 0 && isatty(2) != 0)
      : label_(std::move(label)),
        total_(total ? total : 1),
        enabled_(enabled),
        start_(std::chrono::steady_clock::now()) {}
  ~ProgressBar() { finish(); }

  void add(std::size_t n) {
    const std::size_t done = done_.fetch_add(n) + n;
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
    if (!lock.owns_lock()) return;
    if (now - last_draw_ < std::chrono::milliseconds(100) && done < total_) return;
    last_draw_ = now;
    draw(done);
  }

  void finish() {
    if (!enabled_ || finished_) return;
    finished_ = true;
    std::lock_guard<std::mutex> lock(mutex_);
    draw(done_.load());
    std::fputc('\n', stderr);
  }

 private:
  void draw(std::size_t done) const {
    const double frac = done >= total_ ? 1.0 : static_cast<double>(done) / total_;
    const int width = 30;
    const int fill = static_cast<int>(frac * width);
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const double eta = frac > 0 ? elapsed * (1 - frac) / frac : 0;
    const double rate = elapsed > 0 ? static_cast<double>(done) / elapsed : 0;
    std::fprintf(stderr, "\r%s [%.*s%*s] %5.1f%%  %.3g/s  %.0fs elapsed, %.0fs left ",
                 label_.c_str(), fill, "##############################", width - fill, "",
                 100 * frac, rate, elapsed, eta);
    std::fflush(stderr);
  }

  std::string label_;
  std::size_t total_;
  bool enabled_;
  bool finished_ = false;
  std::atomic<std::size_t> done_{0};
  std::mutex mutex_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace fastmu
