// Reading muon files (interfaces.md "Muon files") in chunks of rows, straight
// into MuonBatch columns: inputs larger than memory stream through, and a row
// range [begin, end) serves one MPI rank.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>

#include "fastmu/transport/MuonBatch.hh"
#include "fastmu/transport/MuonRowCheck.hh"

namespace fastmu {

class MuonReader {
 public:
  // Opens a CSV or HDF5 (dataset "muons") file and checks its columns
  // px,py,pz,x,y,z,pdg[,weight]; `threads` parse and convert (0: all cores).
  // Rows are checked against `limits` (MuonRowCheck.hh) as they are read.
  // Throws fastmu::Error naming the file and what is wrong.
  explicit MuonReader(const std::filesystem::path& path, int threads = 0,
                      MuonRowLimits limits = {});
  ~MuonReader();
  MuonReader(const MuonReader&) = delete;
  MuonReader& operator=(const MuonReader&) = delete;

  // Number of muon rows in the file (CSV: one pass over the file on first call).
  std::uint64_t rows();
  // The number of rows when known without reading the file (HDF5; CSV once
  // rows() has scanned it).
  std::optional<std::uint64_t> known_rows() const;
  // The row the next read() starts at (its muon id).
  std::uint64_t position() const;
  // Moves to row `row` (CSV: scans from the start or the current position).
  void seek(std::uint64_t row);
  // Replaces `out` with the next rows, at most `max_rows`; false at the end of
  // the file. Each value is checked: a bad one throws fastmu::Error naming the
  // file, the line (CSV) or row (HDF5) and the column.
  bool read(std::size_t max_rows, MuonBatch& out);
  // Bytes this reader holds per row while reading (file text or raw rows), for
  // sizing chunks under a memory bound.
  std::size_t buffer_bytes_per_row() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace fastmu
