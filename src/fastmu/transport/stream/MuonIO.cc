#include "fastmu/transport/stream/MuonIO.hh"

#include <limits>

#include "fastmu/transport/stream/MuonReader.hh"
#include "fastmu/transport/stream/MuonWriter.hh"

namespace fastmu {

MuonBatch read_muons(const std::filesystem::path& path, MuonRowLimits limits) {
  MuonReader reader(path, 0, limits);
  MuonBatch batch;
  reader.read(std::numeric_limits<std::size_t>::max(), batch);
  return batch;
}

void write_transport_result(const std::filesystem::path& path, const TransportResult& result,
                            bool all, bool with_plane) {
  MuonWriter writer(path, OutputLayout{all, with_plane});
  writer.append(result);
  writer.commit();
}

}  // namespace fastmu
