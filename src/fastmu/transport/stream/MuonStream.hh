// Streaming transport: reader -> transport(chunk, first_id) -> writer, with
// the next chunk read and the previous one written on their own threads while
// a chunk is transported. Inputs and outputs larger than memory go through in
// chunks, and a row range [begin, end) is one MPI rank's share. Muon ids are
// rows of the whole file, so the output does not depend on the chunk size.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>

#include "fastmu/transport/Transport.hh"
#include "fastmu/transport/stream/MuonReader.hh"
#include "fastmu/transport/stream/MuonWriter.hh"

namespace fastmu {

struct StreamOptions {
  Backend backend = Backend::cpu;
  int threads = 0;  // CPU transport threads (0: all)
  int gpus = 0;     // CUDA: GPUs (0: all visible)
  std::size_t chunk_rows = std::size_t(1) << 22;
  std::uint64_t begin = 0;                                        // first row (muon id)
  std::uint64_t end = std::numeric_limits<std::uint64_t>::max();  // one past the last row
  // Rows the transport returns: at_plane (what the writer keeps unless --all)
  // is compacted on the GPU, so the other rows never cross the bus.
  ResultRows rows = ResultRows::all;
  std::function<void(std::size_t)> on_rows;  // called with each chunk's muon count once written
  // Called once every chunk is transported (the writer may still be busy):
  // the GPUs are no longer needed.
  std::function<void()> on_transported;
};

struct StreamTotals {
  std::uint64_t rows = 0;        // muons transported
  std::uint64_t written = 0;     // rows written
  std::uint64_t steps = 0;       // muon-steps
  double transport_seconds = 0;  // sum of transport() wall times
  double kernel_seconds = 0;     // sum of the transports' kernel times (CPU: = transport)
  // Where a stream's wall time goes (each stage runs on its own thread, so
  // the busy times overlap): GPU set-up, reading and writing busy time.
  double prepare_seconds = 0;  // GPU contexts, resident tables, pinned buffers
  double read_seconds = 0;     // reader busy (decoding the input included)
  double write_seconds = 0;    // writer busy (encoding the output included)
  double wall_seconds = 0;     // the whole stream, first read to last write
  std::uint64_t by_status[kMuonStatusCount] = {};
  Backend backend = Backend::cpu;
  int gpus = 0;
};

StreamTotals transport_stream(const TransportParams& params, MuonReader& reader, MuonWriter& writer,
                              const StreamOptions& options);

// Per-row bytes a stream holds in flight (input and output chunks, queues,
// encoded rows), for sizing chunks under a memory bound.
std::size_t stream_bytes_per_row(const MuonReader& reader);

// Rows per chunk for a process that may use `max_memory` bytes of resident
// memory in all, `resident` of which are already in use (tables, geometry).
// Throws fastmu::Error when the bound leaves no room for a useful chunk.
std::size_t chunk_rows_for_memory(std::uint64_t max_memory, std::uint64_t resident,
                                  std::size_t bytes_per_row);

}  // namespace fastmu
