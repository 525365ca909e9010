// Fuzzes the muon CSV reader (read_muons, the path of `fastmu run --muons x.csv`):
// any bytes -> muons or fastmu::Error.
#include <cstddef>
#include <cstdint>

#include "FuzzSupport.hh"
#include "fastmu/core/Error.hh"
#include "fastmu/transport/stream/MuonIO.hh"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = fastmu::fuzz::write_bytes("muons.csv", data, size);
  try {
    fastmu::read_muons(path);
  } catch (const fastmu::Error&) {
  }
  return 0;
}
