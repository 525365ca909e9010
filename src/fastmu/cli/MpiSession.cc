#include "fastmu/cli/MpiSession.hh"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#ifdef FASTMU_HAVE_MPI
#include <mpi.h>
#endif

#include "fastmu/cli/MpiProgress.hh"
#include "fastmu/core/Error.hh"
#include "fastmu/core/Progress.hh"

namespace fastmu::cli::mpi {
namespace {

int g_rank = 0;
int g_size = 1;
bool g_started = false;
bool g_progress_shown = false;
bool g_thread_multiple = false;

// Ranks launched by OpenMPI's mpirun (or another PMI/PMIx launcher).
int launcher_size() {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE"}) {
    if (const char* v = std::getenv(var)) return std::atoi(v);
  }
  return std::getenv("PMIX_RANK") ? 2 : 1;
}

// One GPU per rank: rank-local device = local rank % visible GPUs, chosen
// through CUDA_VISIBLE_DEVICES before anything starts CUDA (the transport
// then uses its device 0). Without a GPU nothing changes.
void pick_rank_gpu() {
  const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_RANK");
  if (!local) return;
  std::vector<std::string> visible;
  if (const char* list = std::getenv("CUDA_VISIBLE_DEVICES")) {
    std::string s = list, item;
    for (char c : s + ",") {
      if (c == ',') {
        if (!item.empty()) visible.push_back(item);
        item.clear();
      } else {
        item.push_back(c);
      }
    }
  } else {
    // CUDA numbers the devices it sees 0..n-1, whatever the /dev/nvidiaK
    // numbers (a container may hold /dev/nvidia3 and /dev/nvidia5 only).
    std::size_t count = 0;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator("/dev", ec)) {
      const std::string name = entry.path().filename().string();
      if (name.size() > 6 && name.compare(0, 6, "nvidia") == 0 &&
          name.find_first_not_of("0123456789", 6) == std::string::npos)
        ++count;
    }
    for (std::size_t d = 0; d < count; ++d) visible.push_back(std::to_string(d));
  }
  if (visible.empty()) return;
  const std::size_t pick = static_cast<std::size_t>(std::atoi(local)) % visible.size();
  ::setenv("CUDA_VISIBLE_DEVICES", visible[pick].c_str(), 1);
}

}  // namespace

void init(int* argc, char*** argv) {
  const int launched = launcher_size();
#ifdef FASTMU_HAVE_MPI
  if (launched < 1 || !std::getenv("OMPI_COMM_WORLD_SIZE") && !std::getenv("PMIX_RANK") &&
                          !std::getenv("PMI_SIZE")) {
    return;
  }
  int provided = 0;
  // The main thread does the work's MPI; the progress bars' threads send and
  // receive their counts (MpiProgress), where MPI_THREAD_MULTIPLE is provided.
  MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  g_started = true;
  g_thread_multiple = provided >= MPI_THREAD_MULTIPLE;
  int shown = g_rank == 0 && progress_wanted() ? 1 : 0;
  MPI_Bcast(&shown, 1, MPI_INT, 0, MPI_COMM_WORLD);
  g_progress_shown = shown != 0;
  start_progress();
  if (g_size > 1) pick_rank_gpu();
#else
  (void)argc, (void)argv;
  if (launched > 1) {
    throw Error("started by mpirun with " + std::to_string(launched) +
                " ranks, but this fastmu was built without MPI (-DFASTMU_ENABLE_MPI=ON)");
  }
#endif
}

void finalize() {
#ifdef FASTMU_HAVE_MPI
  if (g_started) {
    drain_progress();
    MPI_Finalize();
  }
  g_started = false;
#endif
}

int rank() { return g_rank; }
int size() { return g_size; }
bool active() { return g_size > 1; }
bool progress_shown() { return active() ? g_progress_shown : progress_wanted(); }
bool threads_may_call_mpi() { return g_thread_multiple; }

int local_size() {
  if (!active()) return 1;
  const char* v = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  const int n = v ? std::atoi(v) : 0;
  return n > 0 ? std::min(n, g_size) : 1;
}

int threads_per_rank(int requested) {
  if (requested > 0) return requested;
  const unsigned hw = std::thread::hardware_concurrency();
  const int cores = hw == 0 ? 1 : static_cast<int>(hw);
  return std::max(1, cores / local_size());
}

void collective(const std::function<void()>& work) {
  if (!active()) {
    work();
    return;
  }
  std::string message;
  bool failed = false;
  try {
    work();
  } catch (const std::exception& e) {
    failed = true;
    message = e.what();
  }
#ifdef FASTMU_HAVE_MPI
  int mine = failed ? g_rank : g_size, first = g_size;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == g_size) return;
  int len = static_cast<int>(message.size());
  MPI_Bcast(&len, 1, MPI_INT, first, MPI_COMM_WORLD);
  message.resize(static_cast<std::size_t>(len));
  MPI_Bcast(message.data(), len, MPI_CHAR, first, MPI_COMM_WORLD);
  throw Error(message);
#else
  if (failed) throw Error(message);
#endif
}

void require_one_process(const std::string& what, const std::string& instead) {
  if (active()) throw Error(what + ": not split over MPI ranks; " + instead);
}

void barrier() {
#ifdef FASTMU_HAVE_MPI
  if (active()) MPI_Barrier(MPI_COMM_WORLD);
#endif
}

void sum(std::uint64_t* values, int n) {
#ifdef FASTMU_HAVE_MPI
  if (active()) MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
#else
  (void)values, (void)n;
#endif
}

void sum(double* values, int n) {
#ifdef FASTMU_HAVE_MPI
  if (active()) MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
#else
  (void)values, (void)n;
#endif
}

double max(double value) {
#ifdef FASTMU_HAVE_MPI
  if (active()) MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
#endif
  return value;
}

void gather_bytes(std::vector<unsigned char>& bytes) {
#ifdef FASTMU_HAVE_MPI
  if (!active()) return;
  // Counts first; then each rank's bytes in pieces below 2^31 (MPI's int counts).
  std::uint64_t mine = bytes.size();
  std::vector<std::uint64_t> counts(static_cast<std::size_t>(g_size));
  MPI_Gather(&mine, 1, MPI_UINT64_T, counts.data(), 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  constexpr std::uint64_t kPiece = std::uint64_t(1) << 30;
  if (g_rank == 0) {
    std::uint64_t total = 0;
    for (auto c : counts) total += c;
    std::vector<unsigned char> all(total);
    std::uint64_t at = 0;
    for (int r = 0; r < g_size; ++r) {
      const std::uint64_t c = counts[static_cast<std::size_t>(r)];
      if (r == 0) {
        if (c) std::memcpy(all.data(), bytes.data(), c);
      } else {
        for (std::uint64_t off = 0; off < c; off += kPiece) {
          const int k = static_cast<int>(std::min(kPiece, c - off));
          MPI_Recv(all.data() + at + off, k, MPI_BYTE, r, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
      }
      at += c;
    }
    bytes.swap(all);
  } else {
    for (std::uint64_t off = 0; off < mine; off += kPiece) {
      const int k = static_cast<int>(std::min(kPiece, mine - off));
      MPI_Send(bytes.data() + off, k, MPI_BYTE, 0, 7, MPI_COMM_WORLD);
    }
    bytes.clear();
  }
#else
  (void)bytes;
#endif
}

void broadcast_bytes(std::vector<unsigned char>& bytes) {
#ifdef FASTMU_HAVE_MPI
  if (!active()) return;
  std::uint64_t n = bytes.size();
  MPI_Bcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  bytes.resize(n);
  // In pieces below 2^31 (MPI's int counts).
  constexpr std::uint64_t kPiece = std::uint64_t(1) << 30;
  for (std::uint64_t off = 0; off < n; off += kPiece) {
    const int k = static_cast<int>(std::min(kPiece, n - off));
    MPI_Bcast(bytes.data() + off, k, MPI_BYTE, 0, MPI_COMM_WORLD);
  }
#else
  (void)bytes;
#endif
}

}  // namespace fastmu::cli::mpi
