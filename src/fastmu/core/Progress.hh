// Progress of long work (table builds, large runs): a bar on a terminal,
// timed lines elsewhere (a notebook, a log file).
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

// How progress shows: a bar redrawn in place, a line every so often, or not.
enum class ProgressMode { off, bar, lines };

// The bar where progress_wanted(); timed lines where stderr is not a
// terminal (FASTMU_PROGRESS=0: off); off on a terminal whose stdout is not.
inline ProgressMode progress_mode() {
  if (progress_wanted()) return ProgressMode::bar;
  if (const char* e = std::getenv("FASTMU_PROGRESS"); e && std::strcmp(e, "0") == 0) {
    return ProgressMode::off;
  }
  return isatty(2) != 0 ? ProgressMode::off : ProgressMode::lines;
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
// In lines mode it writes a line every `line_every` instead (none for work
// shorter than that), and one when done if it wrote any.
//
// Items of unequal cost (the momentum bins of a table build: a fast muon's
// history costs more): with set_work_total() and add(n, work), the time left
// is elapsed x (work left / work done), not by the count.
class ProgressBar {
 public:
  static constexpr std::chrono::milliseconds kTick{250};
  static constexpr std::chrono::milliseconds kLineEvery{20000};

  ProgressBar(std::string label, std::size_t total, bool enabled = progress_wanted(),
              std::unique_ptr<ProgressShare> share = nullptr, std::FILE* out = stderr)
      : ProgressBar(std::move(label), total, enabled ? ProgressMode::bar : ProgressMode::off,
                    std::move(share), out) {}
  ProgressBar(std::string label, std::size_t total, ProgressMode mode,
              std::unique_ptr<ProgressShare> share = nullptr, std::FILE* out = stderr,
              std::chrono::milliseconds line_every = kLineEvery)
      : label_(std::move(label)),
        total_(total ? total : 1),
        enabled_(mode == ProgressMode::bar),
        lines_(mode == ProgressMode::lines),
        line_every_(line_every),
        share_(std::move(share)),
        out_(out),
        start_(std::chrono::steady_clock::now()),
        last_line_(start_) {
    if (enabled_ || lines_ || share_) ticker_ = std::thread([this] { tick_loop(); });
  }
  ~ProgressBar() { finish(); }
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  void add(std::size_t n) { done_.fetch_add(n, std::memory_order_relaxed); }

  // The cost of all items, in any unit (0: the time left follows the count).
  void set_work_total(double total) {
    std::lock_guard<std::mutex> lock(work_mutex_);
    work_total_ = total;
  }
  // `n` items done that cost `work` (takes a lock: not for hot loops).
  void add(std::size_t n, double work) {
    {
      std::lock_guard<std::mutex> lock(work_mutex_);
      work_done_ += work;
    }
    add(n);
  }
  // A second count shown in lines mode, e.g. the histories of a table build.
  void add_also(std::size_t n, const char* what) {
    also_.fetch_add(n, std::memory_order_relaxed);
    also_what_ = what;
  }

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
    if (enabled_ || lines_ || share_ || all_done) update(all_done, true);
    if (enabled_) {
      std::fputc('\n', out_);
      std::fflush(out_);
    }
    if (lines_ && lines_written_ > 0) write_line(shown_.load(), true);
  }

  // Exchanges with the share (if any) and draws; only one thread at a time
  // (the ticker, or stop() after it has joined).
  void update(const std::size_t* all_done, bool last = false) {
    const std::size_t mine = done_.load(std::memory_order_relaxed);
    std::size_t all = share_ ? share_->exchange(mine) : mine;
    if (all_done) all = *all_done;
    shown_.store(all);
    if (enabled_) draw(all);
    const auto now = std::chrono::steady_clock::now();
    if (lines_ && !last && now - last_line_ >= line_every_) {
      last_line_ = now;
      write_line(all, false);
    }
  }

  double elapsed_s() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

  // Fraction done: of the work where its total is known, else of the count.
  double fraction(std::size_t done) const {
    {
      std::lock_guard<std::mutex> lock(work_mutex_);
      if (work_total_ > 0) return work_done_ >= work_total_ ? 1.0 : work_done_ / work_total_;
    }
    return done >= total_ ? 1.0 : static_cast<double>(done) / total_;
  }

  // "label: 40/163 (24.5 %), 1.2e+06 histories, 35 s elapsed, about 120 s left"
  void write_line(std::size_t done, bool last) {
    const double elapsed = elapsed_s();
    std::string also;
    if (const char* what = also_what_.load()) {
      char b[64];
      std::snprintf(b, sizeof b, ", %.3g %s", static_cast<double>(also_.load()), what);
      also = b;
    }
    if (last) {
      std::fprintf(out_, "%s: %zu/%zu%s, done in %.0f s\n", label_.c_str(), done, total_,
                   also.c_str(), elapsed);
    } else {
      const double frac = fraction(done);
      std::fprintf(out_, "%s: %zu/%zu (%.1f %%)%s, %.0f s elapsed, ", label_.c_str(), done, total_,
                   100.0 * static_cast<double>(done) / total_, also.c_str(), elapsed);
      if (frac > 0) {
        std::fprintf(out_, "about %.0f s left\n", elapsed * (1 - frac) / frac);
      } else {
        std::fprintf(out_, "time left not known yet\n");
      }
    }
    std::fflush(out_);
    ++lines_written_;
  }

  void draw(std::size_t done) const {
    const double counted = done >= total_ ? 1.0 : static_cast<double>(done) / total_;
    const int width = 30;
    const int fill = static_cast<int>(counted * width);
    const double elapsed = elapsed_s();
    const double frac = fraction(done);
    const double eta = frac > 0 ? elapsed * (1 - frac) / frac : 0;
    const double rate = elapsed > 0 ? static_cast<double>(done) / elapsed : 0;
    std::fprintf(out_, "\r%s [%.*s%*s] %5.1f%%  %zu/%zu  %.3g/s  %.0fs elapsed, %.0fs left ",
                 label_.c_str(), fill, "##############################", width - fill, "",
                 100 * counted, done, total_, rate, elapsed, eta);
    std::fflush(out_);
  }

  std::string label_;
  std::size_t total_;
  bool enabled_;
  bool lines_;
  std::chrono::milliseconds line_every_;
  std::unique_ptr<ProgressShare> share_;
  std::FILE* out_;
  std::chrono::steady_clock::time_point start_, last_line_;
  int lines_written_ = 0;
  mutable std::mutex work_mutex_;
  double work_total_ = 0, work_done_ = 0;
  std::atomic<std::size_t> also_{0};
  std::atomic<const char*> also_what_{nullptr};
  std::atomic<std::size_t> done_{0};
  std::atomic<std::size_t> shown_{0};
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  bool finished_ = false;
  std::thread ticker_;
};

}  // namespace fastmu
