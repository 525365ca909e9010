#include "fastmu/cli/MpiTableBuilds.hh"

#include "fastmu/cli/MpiProgress.hh"
#include "fastmu/cli/MpiSession.hh"

namespace fastmu::cli::mpi {

BinShare bin_share() {
  BinShare share;
  share.rank = rank();
  share.size = size();
  share.collective = [](const std::function<void()>& work) { collective(work); };
  share.gather = [](std::vector<unsigned char>& bytes) { gather_bytes(bytes); };
  share.broadcast = [](std::vector<unsigned char>& bytes) { broadcast_bytes(bytes); };
  share.progress = [] { return progress_share(); };
  return share;
}

}  // namespace fastmu::cli::mpi
