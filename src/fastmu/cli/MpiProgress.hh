// Progress bars summed over the MPI ranks of one command: each rank's bar
// thread sends its count to rank 0 a few times a second (MPI_Isend, at most
// one in flight); rank 0's bar thread takes what has arrived (MPI_Iprobe) and
// draws the sum. Nothing waits for another rank, so ranks that finish at
// different times (or fail) never block one another.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "fastmu/core/Progress.hh"

namespace fastmu::cli::mpi {

// A share for a bar that every rank makes, in the same order as the others;
// null when there is nothing to share (one rank, rank 0 does not draw, or an
// MPI without MPI_THREAD_MULTIPLE).
std::unique_ptr<ProgressShare> progress_share();

// A bar for work split over the ranks, `mine` of `all` items here: rank 0
// draws the sum over the ranks (of `all`), or, when nothing is shared, its
// own share (labelled so). Every rank must make it.
std::unique_ptr<ProgressBar> rank_progress_bar(const std::string& label, std::size_t mine,
                                               std::size_t all);

// Part of init (collective): opens the bars' own communicator when rank 0
// draws and other threads may call MPI.
void start_progress();
// Part of finalize (collective): receives every progress message still on
// its way, then closes the communicator.
void drain_progress();

}  // namespace fastmu::cli::mpi
