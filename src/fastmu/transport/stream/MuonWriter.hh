// Writing transport output (interfaces.md "Transport output") in chunks:
// id,px,py,pz,x,y,z,pdg,weight,status[,plane] as CSV or as one float64 HDF5
// dataset "muons" (rows, columns) with a "columns" attribute.
//
// The file's bytes depend only on the rows written, never on how they were cut
// into append() calls: the HDF5 dataset grows by whole chunks of
// kRowsPerChunk rows (no timestamps), so a streamed, chunked or MPI run
// writes the same file as a single batch. Uncompressed HDF5 rows are written
// straight into their chunks by several threads (positioned writes); gzip
// chunks are compressed by all threads and stored in order by
// H5Dwrite_chunk (the bytes HDF5's own filters give), other filters go
// through HDF5 one chunk at a time.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "fastmu/io/Hdf5.hh"
#include "fastmu/transport/MuonBatch.hh"

namespace fastmu {

struct OutputLayout {
  bool all = false;         // every muon, not only status 0
  bool with_plane = false;  // a plane column (several sensitive planes)
};

class MuonWriter {
 public:
  static constexpr std::size_t kRowsPerChunk = 1 << 15;

  enum class Mode {
    file,  // the output file itself (CSV or HDF5 by extension), atomically
    part,  // encoded rows only, to be joined into a file by append_part()
  };
  // `format_path` decides the format (default: `path`); a part file takes the
  // format of the output it will be joined into. `threads` encode (0: all).
  MuonWriter(const std::filesystem::path& path, OutputLayout layout,
             io::h5::Compression compression = {}, int threads = 0, Mode mode = Mode::file,
             const std::filesystem::path& format_path = {});
  ~MuonWriter();  // without commit(): no output file is left behind
  MuonWriter(const MuonWriter&) = delete;
  MuonWriter& operator=(const MuonWriter&) = delete;

  // Writes the rows of `result` that the layout keeps (ids from result.first_id).
  void append(const TransportResult& result);
  // Appends the rows of a part file written by a Mode::part writer of the same
  // layout and format.
  void append_part(const std::filesystem::path& part);
  // Joining parts in parallel (MPI ranks, each holding its part): the output
  // is laid out here for all the parts' rows, every part is then written at
  // its place by whichever process holds it (place_part), all at once, and
  // commit() here finishes the file, the same bytes as append_part() in
  // order would give.
  struct PartLayout {
    std::string file;  // the output's temporary file, where the parts go
    bool hdf5 = false;
    std::uint32_t columns = 0;
    std::uint64_t base = 0;                   // CSV: bytes before the first row
    std::vector<std::uint64_t> chunk_offset;  // HDF5: file offset of each chunk

    std::vector<unsigned char> to_bytes() const;
    static PartLayout from_bytes(const std::vector<unsigned char>& bytes);
  };
  // Lays the output out for parts of `rows` rows in all (nothing appended
  // yet); false, having done nothing, when the parts must be appended in
  // order instead (a compressed dataset; an output under one HDF5 chunk,
  // which is stored contiguous).
  bool lay_out_parts(std::uint64_t rows, PartLayout& layout);
  // Writes part file `part` at its place in a laid-out output: after
  // `rows_before` rows (HDF5) or `bytes_before` bytes (CSV) of the parts
  // before it; `threads` copy (0: all, at most four).
  static void place_part(const PartLayout& layout, const std::filesystem::path& part,
                         std::uint64_t rows_before, std::uint64_t bytes_before, int threads = 0);
  // Finishes the file and moves it into place.
  void commit();
  std::uint64_t rows() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace fastmu
