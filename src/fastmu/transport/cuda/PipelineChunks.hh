// How the streamed pipeline cuts a batch and puts it back together: the
// chunks its host threads take (ChunkQueue) and the output row where each
// chunk's kept rows go (ChunkOrder). Host code only.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace fastmu::cuda {

// Hands out the batch's rows in chunks of decreasing size ("guided"): each
// about the rest over twice the streams, so that GPUs end together, but the
// first ones small and doubling, so that the first kernel starts early. Chunk
// k starts where chunk k - 1 ended; the results do not depend on the cut.
class ChunkQueue {
 public:
  static constexpr std::size_t kMin = 16384, kMax = std::size_t(1) << 20;
  // fixed > 0: chunks of that size (tests).
  ChunkQueue(std::size_t n, std::size_t workers, std::size_t fixed)
      : n_(n), workers_(std::max<std::size_t>(workers, 1)), fixed_(fixed) {
    cap_ = fixed ? fixed : std::clamp<std::size_t>(n / (2 * workers_), kMin, kMax);
    cap_ = std::max<std::size_t>(1, std::min(cap_, std::max<std::size_t>(n, 1)));
  }
  std::size_t capacity() const { return cap_; }
  // Every chunk but the last has at least `least` rows.
  std::size_t max_chunks() const {
    const std::size_t least = fixed_ ? fixed_ : std::min(cap_, kMin);
    return (n_ + least - 1) / least + 1;
  }
  bool take(std::size_t& k, std::size_t& begin, std::size_t& m) {
    std::lock_guard<std::mutex> lock(mu_);
    if (next_ >= n_) return false;
    const std::size_t rest = n_ - next_;
    if (fixed_) {
      m = fixed_;
    } else {
      m = std::min(std::max(rest / (2 * workers_), kMin), cap_);
      m = std::min(m, kMin << std::min<std::size_t>(index_, 16));
    }
    m = std::min(m, rest);
    k = index_++, begin = next_;
    next_ += m;
    return true;
  }
  void stop() {
    std::lock_guard<std::mutex> lock(mu_);
    next_ = n_;
  }

 private:
  std::mutex mu_;
  std::size_t n_, workers_, fixed_, cap_ = 0, next_ = 0, index_ = 0;
};

// Chunk k's first output row is the sum of the kept counts of chunks < k, so a
// stream slot publishes its count and waits for those of the chunks before it (and
// for the output arrays to exist) before it unpacks.
class ChunkOrder {
 public:
  explicit ChunkOrder(std::size_t max_chunks) : count_(max_chunks, -1), offset_(max_chunks, 0) {}

  // Returns chunk k's first output row; throws Aborted when another slot failed.
  struct Aborted {};
  std::size_t publish_and_wait(std::size_t k, std::size_t kept) {
    std::unique_lock<std::mutex> lock(mu_);
    count_[k] = static_cast<std::int64_t>(kept);
    while (frontier_ < count_.size() && count_[frontier_] >= 0) {
      offset_[frontier_] = next_offset_;
      next_offset_ += static_cast<std::size_t>(count_[frontier_++]);
    }
    cv_.notify_all();
    cv_.wait(lock, [&] { return failed_ || (ready_ && frontier_ > k); });
    if (failed_) throw Aborted{};
    return offset_[k];
  }
  void set_ready() {
    notify([&] { ready_ = true; });
  }
  void fail() {
    notify([&] { failed_ = true; });
  }
  std::size_t total() const { return next_offset_; }

 private:
  template <class F>
  void notify(F f) {
    std::lock_guard<std::mutex> lock(mu_);
    f();
    cv_.notify_all();
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::int64_t> count_;
  std::vector<std::size_t> offset_;
  std::size_t frontier_ = 0, next_offset_ = 0;
  bool ready_ = false, failed_ = false;
};

}  // namespace fastmu::cuda
