// MPI for the command line (Debian's OpenMPI, optional at build time:
// FASTMU_ENABLE_MPI). `mpirun -np N fastmu ...` gives N ranks that split the
// work by rows; a plain `fastmu ...` is one rank and never touches MPI.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace fastmu::cli::mpi {

// Starts MPI when this process was launched by mpirun (OpenMPI/PMIx
// environment); throws fastmu::Error when it was but the binary has no MPI.
void init(int* argc, char*** argv);
void finalize();
int rank();
int size();
bool active();  // more than one rank
// Whether rank 0 draws progress bars (progress_wanted() there; the same
// answer on every rank).
bool progress_shown();
// Whether threads other than the main one may call MPI (MPI_THREAD_MULTIPLE
// provided): the progress bars' threads do.
bool threads_may_call_mpi();
// Ranks of this job on this host (OMPI_COMM_WORLD_LOCAL_SIZE; 1 without mpirun).
int local_size();
// Worker threads per rank for `requested` (0: all cores): under mpirun the
// host's cores are shared out between its ranks instead of each rank taking all.
int threads_per_rank(int requested);

// Runs `work` on every rank (a collective step: every rank must call it).
// If any rank throws, every rank throws fastmu::Error with the message of the
// lowest failing rank, so that one line is printed (by rank 0) and no rank
// waits forever for another.
void collective(const std::function<void()>& work);

// Throws fastmu::Error "WHAT: not split over MPI ranks; INSTEAD" under
// mpirun (a command whose ranks would each do the whole job and race on its
// outputs).
void require_one_process(const std::string& what, const std::string& instead);

void barrier();
// Element-wise sums over all ranks, in place (every rank gets the result).
void sum(std::uint64_t* values, int n);
void sum(double* values, int n);
double max(double value);

// Replaces every rank's bytes with rank 0's (collective).
void broadcast_bytes(std::vector<unsigned char>& bytes);

// Concatenates every rank's rows on rank 0, in rank order (collective; the
// other ranks' vectors are emptied). T is trivially copyable, `row_bytes` its size.
void gather_bytes(std::vector<unsigned char>& bytes);
template <class T>
void gather_rows(std::vector<T>& rows, std::size_t row_bytes) {
  if (!active()) return;
  std::vector<unsigned char> bytes(rows.size() * row_bytes);
  if (!bytes.empty()) std::memcpy(bytes.data(), rows.data(), bytes.size());
  gather_bytes(bytes);
  rows.resize(bytes.size() / row_bytes);
  if (!rows.empty()) std::memcpy(static_cast<void*>(rows.data()), bytes.data(), bytes.size());
}

// First row of `rank`'s share of n rows (share r is [split(n, r), split(n, r + 1))).
inline std::uint64_t split(std::uint64_t n, int r) {
  return static_cast<std::uint64_t>((static_cast<unsigned __int128>(n) * static_cast<unsigned>(r)) /
                                    static_cast<unsigned>(size()));
}

}  // namespace fastmu::cli::mpi
