#include "fastmu/cli/MpiProgress.hh"

#include <cstdint>
#include <mutex>
#include <vector>

#include <fmt/format.h>

#ifdef FASTMU_HAVE_MPI
#include <mpi.h>
#endif

#include "fastmu/cli/MpiSession.hh"

namespace fastmu::cli::mpi {
namespace {

#ifdef FASTMU_HAVE_MPI
// A rank's counts, and its last message (drain_progress), which a bar never
// takes. Both below 32767, the least MPI_TAG_UB.
constexpr int kTag = 1, kLastTag = 2;

// One channel per process for all its bars (a bar may end with a send in flight).
struct Channel {
  std::mutex mutex;
  MPI_Comm comm = MPI_COMM_NULL;           // the bars' own: no other message is on it
  std::uint64_t bars = 0;                  // bars made so far: a message's bar number
  MPI_Request pending = MPI_REQUEST_NULL;  // ranks > 0: the send in flight
  std::uint64_t out[2] = {};               // its buffer: bar number, count
  std::uint64_t current = 0;               // rank 0: the bar being drawn
  std::vector<std::uint64_t> counts;       // rank 0: each rank's latest count for it
};

Channel& channel() {
  static Channel c;
  return c;
}

class RankShare final : public ProgressShare {
 public:
  RankShare() {
    Channel& c = channel();
    std::lock_guard<std::mutex> lock(c.mutex);
    bar_ = ++c.bars;
    if (rank() == 0) {
      c.current = bar_;
      c.counts.assign(static_cast<std::size_t>(size()), 0);
    }
  }

  std::size_t exchange(std::size_t mine) override {
    Channel& c = channel();
    std::lock_guard<std::mutex> lock(c.mutex);
    if (rank() != 0) {
      int sent = 1;
      if (c.pending != MPI_REQUEST_NULL) MPI_Test(&c.pending, &sent, MPI_STATUS_IGNORE);
      if (sent && (c.out[0] != bar_ || c.out[1] != mine)) {
        c.out[0] = bar_;
        c.out[1] = mine;
        MPI_Isend(c.out, 2, MPI_UINT64_T, 0, kTag, c.comm, &c.pending);
      }
      return mine;
    }
    for (;;) {
      int arrived = 0;
      MPI_Status st;
      MPI_Iprobe(MPI_ANY_SOURCE, kTag, c.comm, &arrived, &st);
      if (!arrived) break;
      std::uint64_t in[2];
      MPI_Recv(in, 2, MPI_UINT64_T, st.MPI_SOURCE, kTag, c.comm, MPI_STATUS_IGNORE);
      // Counts of earlier bars (or a rank already at its next one) are dropped.
      if (in[0] == bar_ && c.current == bar_)
        c.counts[static_cast<std::size_t>(st.MPI_SOURCE)] = in[1];
    }
    std::size_t all = mine;
    for (std::size_t r = 1; r < c.counts.size(); ++r) all += c.counts[r];
    return all;
  }

 private:
  std::uint64_t bar_ = 0;
};
#endif

}  // namespace

std::unique_ptr<ProgressShare> progress_share() {
#ifdef FASTMU_HAVE_MPI
  if (channel().comm != MPI_COMM_NULL) return std::make_unique<RankShare>();
#endif
  return nullptr;
}

std::unique_ptr<ProgressBar> rank_progress_bar(const std::string& label, std::size_t mine,
                                               std::size_t all) {
  if (!active()) return std::make_unique<ProgressBar>(label, all, progress_wanted());
  auto share = progress_share();
  const bool draw = rank() == 0 && progress_shown();
  if (share) return std::make_unique<ProgressBar>(label, all, draw, std::move(share));
  return std::make_unique<ProgressBar>(fmt::format("{} (rank 0 of {})", label, size()), mine, draw);
}

void start_progress() {
#ifdef FASTMU_HAVE_MPI
  if (active() && progress_shown() && threads_may_call_mpi()) {
    MPI_Comm_dup(MPI_COMM_WORLD, &channel().comm);
  }
#endif
}

void drain_progress() {
#ifdef FASTMU_HAVE_MPI
  Channel& c = channel();
  std::lock_guard<std::mutex> lock(c.mutex);
  if (c.comm == MPI_COMM_NULL) return;
  if (rank() != 0) {
    if (c.pending != MPI_REQUEST_NULL) MPI_Wait(&c.pending, MPI_STATUS_IGNORE);
    std::uint64_t last[2] = {0, 0};
    MPI_Send(last, 2, MPI_UINT64_T, 0, kLastTag, c.comm);
  } else {
    // A rank's messages arrive in the order sent: its last one after the rest.
    for (int r = 1; r < size(); ++r) {
      MPI_Status st;
      do {
        std::uint64_t in[2];
        MPI_Recv(in, 2, MPI_UINT64_T, r, MPI_ANY_TAG, c.comm, &st);
      } while (st.MPI_TAG != kLastTag);
    }
  }
  MPI_Comm_free(&c.comm);
#endif
}

}  // namespace fastmu::cli::mpi
