// Table builds shared by the MPI ranks of one job: the one place where the
// command line hands MPI to the table builder (`fastmu tables build`) and to
// the table cache (`fastmu run`), which never call MPI themselves.
#pragma once

#include "fastmu/tables/TableBuilder.hh"

namespace fastmu::cli::mpi {

// This job's ranks as a BinShare: momentum bins round robin over the ranks,
// every rank ending with the whole table, progress summed over the ranks
// (one process: size 1, no sharing).
BinShare bin_share();

}  // namespace fastmu::cli::mpi
