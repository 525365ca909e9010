// A terminal progress bar for long work (table builds, large runs).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include <unistd.h>

namespace fastmu {

// Whether progress bars draw: FASTMU_PROGRESS=1 forces them on and 0 off;
// unset, only when both stdout and stderr are terminals.
inline bool progress_wanted() {
  if (const char* e = std::getenv("FASTMU_PROGRESS"); e && *e) return std::strcmp(e, "0") != 0;
  return isatty(1) != 0 && isatty(2) != 0;
}

// Sums the counts of the processes that share one bar (the MPI ranks of one
// command: the command line fills this in; the library never calls MPI).
class ProgressShare {
 public:
  virtual ~ProgressShare() = default;
  // Reports this process's count and returns the latest known count of all
  // processes. Must never wait for another process (they finish at different
  // times). Called from the bar's own thread, a few times a second.
  virtual std::size_t exchange(std::size_t mine) = 0;
};

// Shows the fraction done, the count, the rate (items per second) and the
// time left on stderr. add() is one relaxed atomic add, so it costs nothing in
// hot loops; drawing (and the exchange with a ProgressShare) happens on the
// bar's own thread, kTick apart, which runs only while the bar draws or shares.
class ProgressBar {
 public:
  static constexpr std::chrono::milliseconds kTick{250};

  ProgressBar(std::string label, std::size_t total, bool enabled = progress_wanted(),
              std::unique_ptr<ProgressShare> share = nullptr, std::FILE* out = stderr)
      : label_(std::move(label)),
        total_(total ? total : 1),
        enabled_(enabled),
        share_(std::move(share)),
        out_(out),
        start_(std::chrono::steady_clock::now()) {
    if (enabled_ || share_) ticker_ = std::thread([this] { tick_loop(); });
  }
  ~ProgressBar() { finish(); }
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  void add(std::size_t n) { done_.fetch_add(n, std::memory_order_relaxed); }

  // Stops the bar and draws its last line: with the latest known count, or
  // with `all_done` when the caller knows the exact count of all processes
  // (e.g. an MPI sum after the work).
  void finish() { stop(nullptr); }
  void finish(std::size_t all_done) { stop(&all_done); }

  // The count last drawn or exchanged (all processes').
  std::size_t shown() const { return shown_.load(); }

 private:
  void tick_loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stop_) {
      if (wake_.wait_for(lock, kTick, [this] { return stop_; })) break;
      lock.unlock();
      update(nullptr);
      lock.lock();
    }
  }

  void stop(const std::size_t* all_done) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (finished_) return;
      finished_ = stop_ = true;
    }
    wake_.notify_all();
    if (ticker_.joinable()) ticker_.join();
    if (enabled_ || share_ || all_done) update(all_done);
    if (enabled_) {
      std::fputc('\n', out_);
      std::fflush(out_);
    }
  }

  // Exchanges with the share (if any) and draws; only one thread at a time
  // (the ticker, or stop() after it has joined).
  void update(const std::size_t* all_done) {
    const std::size_t mine = done_.load(std::memory_order_relaxed);
    std::size_t all = share_ ? share_->exchange(mine) : mine;
    if (all_done) all = *all_done;
    shown_.store(all);
    if (enabled_) draw(all);
  }

  void draw(std::size_t done) const {
    const double frac = done >= total_ ? 1.0 : static_cast<double>(done) / total_;
    const int width = 30;
    const int fill = static_cast<int>(frac * width);
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const double eta = frac > 0 ? elapsed * (1 - frac) / frac : 0;
    const double rate = elapsed > 0 ? static_cast<double>(done) / elapsed : 0;
    std::fprintf(out_, "\r%s [%.*s%*s] %5.1f%%  %zu/%zu  %.3g/s  %.0fs elapsed, %.0fs left ",
                 label_.c_str(), fill, "##############################", width - fill, "",
                 100 * frac, done, total_, rate, elapsed, eta);
    std::fflush(out_);
  }

  std::string label_;
  std::size_t total_;
  bool enabled_;
  std::unique_ptr<ProgressShare> share_;
  std::FILE* out_;
  std::chrono::steady_clock::time_point start_;
  std::atomic<std::size_t> done_{0};
  std::atomic<std::size_t> shown_{0};
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  bool finished_ = false;
  std::thread ticker_;
};

}  // namespace fastmu
