#include "fastmu/transport/stream/MuonWriter.hh"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "fastmu/core/Error.hh"
#include "fastmu/core/Parallel.hh"
#include "fastmu/io/AtomicOutput.hh"
#include "fastmu/io/ColumnTable.hh"
#include "fastmu/io/Hdf5Deflate.hh"
#include "fastmu/io/Hdf5Lock.hh"
#include "fastmu/io/PositionedIo.hh"
#include "fastmu/io/TempFiles.hh"

namespace fastmu {
namespace {

constexpr std::size_t kEncodeChunk = 1 << 15;

// Threads that encode and place HDF5 rows. Buffered writes into one file do
// not scale with writers (3.0-3.4 GB/s for 1-16 on the GPU machine's ext4,
// bench/bench_storage.cc); a 4e7-row iron-block output took 0.80-0.95 s of
// writing with two or four threads, 0.94-0.98 s with eight or sixteen, and
// one writer fed by all the encoding threads was no faster (BENCHMARKS.md).
constexpr int kPlacingThreads = 4;

std::vector<std::string> column_names(OutputLayout l) {
  std::vector<std::string> c = {"id", "px", "py", "pz", "x", "y", "z", "pdg", "weight", "status"};
  if (l.with_plane) c.push_back("plane");
  return c;
}

std::string header_line(OutputLayout l) {
  std::string s;
  for (const auto& c : column_names(l)) {
    if (!s.empty()) s.push_back(',');
    s.append(c);
  }
  return s;
}

template <class T>
char* put(char* p, T v) {
  if constexpr (std::is_floating_point_v<T>) {
    // fmt's Dragonbox: the shortest round-trip form, several times faster
    // than libstdc++'s std::to_chars for floats.
    return fmt::format_to(p, FMT_COMPILE("{}"), v);
  } else {
    return std::to_chars(p, p + 32, v).ptr;
  }
}

// One CSV line: floats in their shortest round-trip form.
char* format_row(char* p, const TransportResult& r, std::size_t i, bool with_plane) {
  const auto& m = r.muons;
  p = put(p, r.id_of(i));
  for (float v : {m.px[i], m.py[i], m.pz[i], m.x[i], m.y[i], m.z[i]}) {
    *p++ = ',';
    p = put(p, v);
  }
  *p++ = ',';
  p = put(p, m.pdg[i]);
  *p++ = ',';
  p = put(p, m.weight[i]);
  *p++ = ',';
  p = put(p, r.status[i]);
  if (with_plane) {
    *p++ = ',';
    p = put(p, r.plane[i]);
  }
  *p++ = '\n';
  return p;
}

std::size_t fill_row(double* d, const TransportResult& r, std::size_t i, bool with_plane) {
  const auto& m = r.muons;
  d[0] = static_cast<double>(r.id_of(i));
  d[1] = m.px[i], d[2] = m.py[i], d[3] = m.pz[i];
  d[4] = m.x[i], d[5] = m.y[i], d[6] = m.z[i];
  d[7] = m.pdg[i], d[8] = m.weight[i], d[9] = r.status[i];
  if (with_plane) d[10] = r.plane[i];
  return with_plane ? 11 : 10;
}

void write_all(std::FILE* f, const void* data, std::size_t bytes, const std::string& name) {
  if (bytes && std::fwrite(data, 1, bytes, f) != bytes) throw io::write_error(name, "");
}

// n encoded rows of `ncol` doubles from dataset row `row` on, into the chunks
// of kRowsPerChunk rows at `chunk_offset` (split at chunk boundaries).
void pwrite_chunk_rows(int fd, const std::vector<std::uint64_t>& chunk_offset, std::size_t ncol,
                       std::uint64_t row, const double* d, std::size_t n, const std::string& name) {
  constexpr std::uint64_t kChunkRows = MuonWriter::kRowsPerChunk;
  const std::size_t row_bytes = ncol * sizeof(double);
  while (n > 0) {
    const std::uint64_t c = row / kChunkRows, within = row % kChunkRows;
    if (c >= chunk_offset.size()) throw Error(name + ": rows beyond the dataset 'muons'");
    const std::size_t take =
        static_cast<std::size_t>(std::min<std::uint64_t>(n, kChunkRows - within));
    if (!io::pwrite_all(fd, d, take * row_bytes, chunk_offset[c] + within * row_bytes)) {
      throw io::write_error(name, "dataset 'muons'");
    }
    row += take, d += take * ncol, n -= take;
  }
}

}  // namespace

struct MuonWriter::Impl {
  std::filesystem::path path;
  std::string name;
  OutputLayout layout;
  io::h5::Compression compression;
  int threads = 0;
  Mode mode = Mode::file;
  bool hdf5 = false;
  std::size_t ncol = 0;
  std::uint64_t rows = 0;
  bool committed = false;

  std::optional<io::AtomicOutput> atomic;
  std::optional<io::InterruptCleanup> part_cleanup;  // Mode::part: the part goes on an interrupt
  std::FILE* f = nullptr;                            // CSV output or part file

  io::h5::Handle file, dataset;
  std::vector<double> pending;  // HDF5: fewer than kRowsPerChunk rows
  std::uint64_t dataset_rows = 0;

  // Uncompressed HDF5 ("placed" rows): HDF5 allocates each chunk when the
  // dataset grows over it (early allocation, no fill) and the rows go into
  // the chunks by positioned writes from all threads, not through H5Dwrite
  // on one thread (1.4-1.5 GB/s there; kPlacingThreads). The dataset grows
  // one chunk at a time and takes its exact size at commit, so the file's
  // bytes still do not depend on how the rows were cut into append() calls.
  bool placed = false;
  int raw_fd = -1;                          // the temporary file, for pwrite
  bool preallocate = false;                 // on ext4 or XFS: chunks' blocks allocated ahead
  std::vector<std::uint64_t> chunk_offset;  // file offset of each allocated chunk

  // Encoded rows, one buffer per share of kEncodeChunk muons; left
  // uninitialised (only the bytes written are touched).
  struct Buffer {
    std::unique_ptr<char[]> data;
    std::size_t size = 0, capacity = 0;
    char* reserve(std::size_t n) {
      if (n > capacity) data.reset(new char[n]), capacity = n;
      return data.get();
    }
  };
  std::vector<Buffer> pieces;

  // Compressed HDF5: rows wait in `pending` until they fill whole chunks;
  // gzip chunks are then filtered on all threads (io/Hdf5Deflate) and
  // stored in order by H5Dwrite_chunk, the bytes H5Dwrite would store.
  std::vector<io::h5::DeflatedChunk> deflated;

  ~Impl() {
    if (f) std::fclose(f);
    if (raw_fd >= 0) ::close(raw_fd);
    if (mode == Mode::part && !committed) {
      std::error_code ec;
      std::filesystem::remove(path, ec);
    }
  }

  // Rows of `r` the layout keeps, encoded in parallel a few shares of
  // kEncodeChunk muons at a time (one per thread) and written in order: the
  // buffers stay small and warm in memory.
  void encode_and_write(const TransportResult& r) {
    if (placed) return place(r);
    const std::size_t n = r.size();
    const std::size_t nshare = (n + kEncodeChunk - 1) / kEncodeChunk;
    const std::size_t group = static_cast<std::size_t>(resolve_thread_count(threads));
    pieces.resize(std::min(group, nshare));
    const bool staged = hdf5 && mode == Mode::file;
    for (std::size_t g = 0; g < nshare; g += group) {
      const std::size_t count = std::min(group, nshare - g);
      encode(r, g, count);
      for (std::size_t k = 0; k < count; ++k) {
        // Compressed HDF5: the group's rows gathered, then their whole
        // chunks compressed together on all threads.
        if (staged) {
          stage_rows(reinterpret_cast<const double*>(pieces[k].data.get()),
                     pieces[k].size / (ncol * sizeof(double)));
        } else {
          write_encoded(pieces[k].data.get(), pieces[k].size);
        }
        rows += rows_in(pieces[k].data.get(), pieces[k].size);
      }
      if (staged) write_whole_chunks();
    }
  }

  void encode(const TransportResult& r, std::size_t first_share, std::size_t count) {
    const std::size_t n = r.size();
    parallel_for_chunks(count, threads, 1, [&](std::size_t b, std::size_t e) {
      for (std::size_t k = b; k < e; ++k) {
        const std::size_t s = first_share + k;
        const std::size_t i0 = s * kEncodeChunk, i1 = std::min(n, i0 + kEncodeChunk);
        Buffer& out = pieces[k];
        if (hdf5) {
          double* d = reinterpret_cast<double*>(out.reserve((i1 - i0) * ncol * sizeof(double)));
          out.size = fill_rows(d, r, i0, i1) * sizeof(double);
        } else {
          char* const begin = out.reserve((i1 - i0) * 256);
          char* p = begin;
          for (std::size_t i = i0; i < i1; ++i) {
            if (keeps(r, i)) p = format_row(p, r, i, layout.with_plane);
          }
          out.size = static_cast<std::size_t>(p - begin);
        }
      }
    });
  }

  bool keeps(const TransportResult& r, std::size_t i) const {
    return layout.all || r.status[i] == 0;
  }

  // The kept rows of muons [i0, i1) of `r` as HDF5 rows at d; returns the
  // doubles written.
  std::size_t fill_rows(double* d, const TransportResult& r, std::size_t i0, std::size_t i1) const {
    std::size_t k = 0;
    for (std::size_t i = i0; i < i1; ++i) {
      if (keeps(r, i)) k += fill_row(d + k, r, i, layout.with_plane);
    }
    return k;
  }

  // The kept rows of `r`: counted per share of kEncodeChunk muons, so that
  // each share knows where its rows go, then encoded and written by the
  // threads share by share straight into their chunks.
  void place(const TransportResult& r) {
    const std::size_t n = r.size();
    const std::size_t nshare = (n + kEncodeChunk - 1) / kEncodeChunk;
    std::vector<std::uint64_t> first(nshare + 1, 0);
    parallel_for_chunks(nshare, threads, 1, [&](std::size_t b, std::size_t e) {
      for (std::size_t s = b; s < e; ++s) {
        std::uint64_t k = 0;
        for (std::size_t i = s * kEncodeChunk; i < std::min(n, (s + 1) * kEncodeChunk); ++i) {
          k += keeps(r, i);
        }
        first[s + 1] = k;
      }
    });
    for (std::size_t s = 0; s < nshare; ++s) first[s + 1] += first[s];
    const std::uint64_t kept = first[nshare];
    if (kept == 0) return;
    if (!dataset.valid() && pending.size() / ncol + kept < kRowsPerChunk) {
      // Still under one chunk: kept in memory (a small file is contiguous).
      const std::size_t at = pending.size();
      pending.resize(at + kept * ncol);
      fill_rows(pending.data() + at, r, 0, n);
      rows += kept;
      return;
    }
    place_pending();
    const std::uint64_t base = dataset_rows;
    reserve_rows(base + kept);
    parallel_for_chunks(nshare, std::min(resolve_thread_count(threads), kPlacingThreads), 1,
                        [&](std::size_t b, std::size_t e) {
                          thread_local std::vector<double> buf;
                          for (std::size_t s = b; s < e; ++s) {
                            buf.resize(static_cast<std::size_t>(first[s + 1] - first[s]) * ncol);
                            fill_rows(buf.data(), r, s * kEncodeChunk,
                                      std::min(n, (s + 1) * kEncodeChunk));
                            pwrite_rows(base + first[s], buf.data(), buf.size() / ncol);
                          }
                        });
    dataset_rows += kept;
    rows += kept;
  }

  // Already encoded rows (a part file's), in order.
  void place_rows(const double* d, std::size_t n) {
    if (n == 0) return;
    if (!dataset.valid() && pending.size() / ncol + n < kRowsPerChunk) {
      pending.insert(pending.end(), d, d + n * ncol);
      return;
    }
    place_pending();
    reserve_rows(dataset_rows + n);
    pwrite_rows(dataset_rows, d, n);
    dataset_rows += n;
  }

  // The rows held back while the output was under one chunk, at row 0 of a
  // new chunked dataset.
  void place_pending() {
    if (dataset.valid()) return;
    create_dataset(true, 0);
    const std::size_t k = pending.size() / ncol;
    reserve_rows(k);
    pwrite_rows(0, pending.data(), k);
    dataset_rows = k;
    pending.clear();
    pending.shrink_to_fit();
  }

  // Chunks allocated for rows [0, total): the dataset grown a chunk at a
  // time (early allocation gives each its place in the file).
  void reserve_rows(std::uint64_t total) {
    const io::h5::LibraryLock lock(io::h5::library_mutex());
    const std::uint64_t need = (total + kRowsPerChunk - 1) / kRowsPerChunk;
    const std::size_t first_new = chunk_offset.size();
    while (chunk_offset.size() < need) {
      const std::uint64_t c = chunk_offset.size();
      const hsize_t dims[2] = {(c + 1) * kRowsPerChunk, ncol};
      if (H5Dset_extent(dataset.get(), dims) < 0) {
        throw Error(name + ": cannot extend dataset 'muons'");
      }
      const hsize_t origin[2] = {c * kRowsPerChunk, 0};
      unsigned mask = 0;
      haddr_t addr = HADDR_UNDEF;
      hsize_t size = 0;
      if (H5Dget_chunk_info_by_coord(dataset.get(), origin, &mask, &addr, &size) < 0 ||
          addr == HADDR_UNDEF || size != kRowsPerChunk * ncol * sizeof(double)) {
        throw Error(name + ": HDF5 did not allocate chunk " + std::to_string(c) +
                    " of dataset 'muons'");
      }
      chunk_offset.push_back(addr);  // no user block: addresses are file offsets
    }
    if (preallocate && chunk_offset.size() > first_new) {
      // The new chunks' blocks allocated in one call before their rows are
      // written: buffered writes into allocated blocks are 11-34 % faster on
      // the GPU machines' ext4 (bench_storage.cc, way 4 against way 0). The
      // file's bytes and size do not change; a refusal changes nothing.
      const auto [lo, hi] =
          std::minmax_element(chunk_offset.begin() + first_new, chunk_offset.end());
      const std::uint64_t end = *hi + kRowsPerChunk * ncol * sizeof(double);
      ::fallocate(raw_fd, FALLOC_FL_KEEP_SIZE, static_cast<off_t>(*lo),
                  static_cast<off_t>(end - *lo));
    }
  }

  void pwrite_rows(std::uint64_t row, const double* d, std::size_t n) const {
    pwrite_chunk_rows(raw_fd, chunk_offset, ncol, row, d, n, name);
  }

  void create_dataset(bool chunked, std::uint64_t initial_rows) {
    const io::h5::LibraryLock lock(io::h5::library_mutex());
    const hsize_t dims[2] = {initial_rows, ncol};
    const hsize_t maxdims[2] = {chunked ? H5S_UNLIMITED : initial_rows, ncol};
    io::h5::Handle space(H5Screate_simple(2, dims, maxdims));
    io::h5::Handle dcpl(H5Pcreate(H5P_DATASET_CREATE));
    // No object timestamps: equal rows give equal bytes.
    H5Pset_obj_track_times(dcpl.get(), false);
    if (chunked) {
      const hsize_t chunk[2] = {kRowsPerChunk, ncol};
      H5Pset_chunk(dcpl.get(), 2, chunk);
      io::h5::apply_compression(dcpl.get(), compression, sizeof(double));
      if (placed) {
        H5Pset_alloc_time(dcpl.get(), H5D_ALLOC_TIME_EARLY);
        H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_NEVER);
      }
    }
    dataset = io::h5::Handle(H5Dcreate2(file.get(), "muons", H5T_IEEE_F64LE, space.get(),
                                        H5P_DEFAULT, dcpl.get(), H5P_DEFAULT));
    if (!dataset.valid()) throw Error(name + ": cannot create HDF5 dataset 'muons'");
    io::h5::write_attribute(dataset.get(), "columns", header_line(layout));
  }

  void write_block(const double* d, std::size_t k) {
    const io::h5::LibraryLock lock(io::h5::library_mutex());
    if (!dataset.valid()) create_dataset(true, 0);
    const hsize_t new_dims[2] = {dataset_rows + k, ncol};
    if (H5Dset_extent(dataset.get(), new_dims) < 0)
      throw Error(name + ": cannot extend dataset 'muons'");
    io::h5::Handle fspace(H5Dget_space(dataset.get()));
    const hsize_t start[2] = {dataset_rows, 0}, count[2] = {k, ncol};
    H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, start, nullptr, count, nullptr);
    io::h5::Handle mspace(H5Screate_simple(2, count, nullptr));
    if (H5Dwrite(dataset.get(), H5T_NATIVE_DOUBLE, mspace.get(), fspace.get(), H5P_DEFAULT, d) <
        0) {
      throw io::write_error(name, "dataset 'muons'");
    }
    dataset_rows += k;
  }

  void stage_rows(const double* d, std::size_t n) {
    pending.insert(pending.end(), d, d + n * ncol);
  }

  // The whole chunks of `pending`, in order; the rest stays.
  void write_whole_chunks() {
    const std::size_t block = kRowsPerChunk * ncol;
    const std::size_t full = pending.size() / block;
    if (full == 0) return;
    if (!dataset.valid()) create_dataset(true, 0);
    const bool gzip = compression.kind == io::h5::Compression::Kind::gzip;
    if (gzip) {
      // apply_compression: shuffle then deflate, for 8-byte elements.
      io::h5::deflate_chunks(reinterpret_cast<const unsigned char*>(pending.data()), full,
                             block * sizeof(double), sizeof(double), true, compression.level,
                             threads, deflated);
    }
    for (std::size_t i = 0; i < full; ++i) {
      if (gzip && deflated[i].ok) {
        write_deflated_block(deflated[i].bytes);
      } else {
        write_block(pending.data() + i * block, kRowsPerChunk);
      }
    }
    pending.erase(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(full * block));
  }

  // One chunk of kRowsPerChunk rows filtered already, stored as it is.
  void write_deflated_block(const std::vector<unsigned char>& bytes) {
    const io::h5::LibraryLock lock(io::h5::library_mutex());
    const hsize_t new_dims[2] = {dataset_rows + kRowsPerChunk, ncol};
    if (H5Dset_extent(dataset.get(), new_dims) < 0)
      throw Error(name + ": cannot extend dataset 'muons'");
    const hsize_t offset[2] = {dataset_rows, 0};
    if (H5Dwrite_chunk(dataset.get(), H5P_DEFAULT, 0, offset, bytes.size(), bytes.data()) < 0) {
      throw io::write_error(name, "dataset 'muons'");
    }
    dataset_rows += kRowsPerChunk;
  }

  void write_encoded(const char* data, std::size_t bytes) {
    if (placed) {
      place_rows(reinterpret_cast<const double*>(data), bytes / (ncol * sizeof(double)));
    } else if (hdf5 && mode == Mode::file) {
      stage_rows(reinterpret_cast<const double*>(data), bytes / (ncol * sizeof(double)));
      write_whole_chunks();
    } else {
      write_all(f, data, bytes, name);
    }
  }

  std::size_t rows_in(const char* data, std::size_t bytes) const {
    if (hdf5) return bytes / (ncol * sizeof(double));
    std::size_t n = 0;
    for (const char* p = data;
         (p = static_cast<const char*>(std::memchr(p, '\n', data + bytes - p))); ++p) {
      ++n;
    }
    return n;
  }
};

MuonWriter::MuonWriter(const std::filesystem::path& path, OutputLayout layout,
                       io::h5::Compression compression, int threads, Mode mode,
                       const std::filesystem::path& format_path)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.path = path;
  m.name = path.string();
  m.layout = layout;
  m.compression = compression;
  m.threads = threads;
  m.mode = mode;
  const auto fmt_of = format_path.empty() ? path : format_path;
  if (io::format_from_path(fmt_of) == io::TableFormat::raw_f32) {
    throw Error(fmt_of.string() + ": transport output is CSV or HDF5 (.h5), not .f32");
  }
  m.hdf5 = io::format_from_path(fmt_of) == io::TableFormat::hdf5;
  m.ncol = column_names(layout).size();
  if (mode == Mode::part) {
    m.part_cleanup.emplace(path);
    m.f = std::fopen(path.c_str(), "wb");
    if (!m.f) throw Error("cannot write '" + m.name + "'");
    return;
  }
  m.atomic.emplace(path);
  if (m.hdf5) {
    m.file = io::h5::create_file(m.atomic->temp_path().string());
    if (compression.kind == io::h5::Compression::Kind::none) {
      m.raw_fd = ::open(m.atomic->temp_path().c_str(), O_WRONLY | O_CLOEXEC);
      m.placed = m.raw_fd >= 0;
      // Only where fallocate reserves blocks without writing them (on tmpfs
      // it would zero the pages that the rows then overwrite).
      struct statfs fs {};
      constexpr decltype(fs.f_type) kExt4 = 0xEF53, kXfs = 0x58465342;
      m.preallocate =
          m.placed && ::fstatfs(m.raw_fd, &fs) == 0 && (fs.f_type == kExt4 || fs.f_type == kXfs);
    }
    return;
  }
  m.f = std::fopen(m.atomic->temp_path().c_str(), "wb");
  if (!m.f) throw Error("cannot write '" + m.name + "'");
  const std::string header = header_line(layout) + "\n";
  write_all(m.f, header.data(), header.size(), m.name);
}

MuonWriter::~MuonWriter() = default;

void MuonWriter::append(const TransportResult& result) { impl_->encode_and_write(result); }

void MuonWriter::append_part(const std::filesystem::path& part) {
  Impl& m = *impl_;
  std::FILE* in = std::fopen(part.c_str(), "rb");
  if (!in) throw Error("cannot read '" + part.string() + "'");
  const std::size_t row_bytes = m.ncol * sizeof(double);
  // Blocks of 8 MiB (a multiple of both row sizes), left uninitialised.
  const std::size_t capacity = std::size_t(1) << 23;
  std::unique_ptr<char[]> block(new char[capacity]);
  char* const buf_data = block.get();
  std::size_t have = 0;
  for (;;) {
    const std::size_t got = std::fread(buf_data + have, 1, capacity - have, in);
    have += got;
    const bool eof = got == 0;
    // Whole rows only (HDF5: fixed size; CSV: any split is fine).
    const std::size_t use = m.hdf5 ? have / row_bytes * row_bytes : have;
    m.write_encoded(buf_data, use);
    m.rows += m.rows_in(buf_data, use);
    std::memmove(buf_data, buf_data + use, have - use);
    have -= use;
    if (eof) break;
  }
  const bool bad = std::ferror(in) != 0 || have != 0;
  std::fclose(in);
  if (bad) throw Error("cannot read '" + part.string() + "' (truncated part)");
}

std::vector<unsigned char> MuonWriter::PartLayout::to_bytes() const {
  std::vector<unsigned char> b;
  auto put = [&b](const void* p, std::size_t n) {
    if (n == 0) return;  // an empty vector's data() may be null
    const std::size_t at = b.size();
    b.resize(at + n);
    std::memcpy(b.data() + at, p, n);
  };
  const std::uint8_t h = hdf5;
  const std::uint64_t chunks = chunk_offset.size(), name = file.size();
  put(&h, 1), put(&columns, 4), put(&base, 8), put(&chunks, 8), put(&name, 8);
  put(chunk_offset.data(), chunks * 8);
  put(file.data(), name);
  return b;
}

MuonWriter::PartLayout MuonWriter::PartLayout::from_bytes(const std::vector<unsigned char>& b) {
  PartLayout l;
  std::size_t at = 0;
  auto get = [&](void* p, std::size_t n) {
    if (at + n > b.size()) throw Error("internal error: a truncated part layout");
    if (n == 0) return;  // an empty vector's data() may be null
    std::memcpy(p, b.data() + at, n);
    at += n;
  };
  std::uint8_t h = 0;
  std::uint64_t chunks = 0, name = 0;
  get(&h, 1), get(&l.columns, 4), get(&l.base, 8), get(&chunks, 8), get(&name, 8);
  l.hdf5 = h != 0;
  if (chunks > b.size() / 8) throw Error("internal error: a truncated part layout");
  l.chunk_offset.resize(chunks);
  get(l.chunk_offset.data(), chunks * 8);
  l.file.resize(name);
  get(l.file.data(), name);
  return l;
}

bool MuonWriter::lay_out_parts(std::uint64_t rows, PartLayout& layout) {
  Impl& m = *impl_;
  if (m.mode != Mode::file || m.rows != 0 || !m.pending.empty()) {
    throw Error(m.name + ": internal error: parts laid out in a used writer");
  }
  if (m.hdf5 && (!m.placed || rows < kRowsPerChunk)) return false;
  layout = PartLayout{};
  layout.file = m.atomic->temp_path().string();
  layout.hdf5 = m.hdf5;
  layout.columns = static_cast<std::uint32_t>(m.ncol);
  if (m.hdf5) {
    // The calls a single writer makes for these rows, so the same bytes.
    m.create_dataset(true, 0);
    m.reserve_rows(rows);
    m.dataset_rows = rows;
    layout.chunk_offset = m.chunk_offset;
  } else {
    if (std::fflush(m.f) != 0) throw io::write_error(m.name, "");
    const long header = std::ftell(m.f);
    if (header < 0) throw io::write_error(m.name, "");
    layout.base = static_cast<std::uint64_t>(header);
  }
  m.rows = rows;
  return true;
}

void MuonWriter::place_part(const PartLayout& layout, const std::filesystem::path& part,
                            std::uint64_t rows_before, std::uint64_t bytes_before, int threads) {
  struct Fd {
    int fd;
    ~Fd() {
      if (fd >= 0) ::close(fd);
    }
  };
  const Fd in{::open(part.c_str(), O_RDONLY | O_CLOEXEC)};
  if (in.fd < 0) throw Error("cannot read '" + part.string() + "'");
  Fd out{::open(layout.file.c_str(), O_WRONLY | O_CLOEXEC)};
  if (out.fd < 0) throw Error("cannot write '" + layout.file + "'");
  std::error_code ec;
  const std::uint64_t size = std::filesystem::file_size(part, ec);
  if (ec) throw Error("cannot read '" + part.string() + "'");
  const std::size_t row_bytes = layout.columns * sizeof(double);
  if (layout.hdf5 && (row_bytes == 0 || size % row_bytes != 0)) {
    throw Error("cannot read '" + part.string() + "' (truncated part)");
  }
  // Blocks of whole rows, about 8 MiB, read and written by a few threads:
  // one file's buffered writes do not scale further (bench_storage.cc).
  const std::size_t block =
      layout.hdf5 ? std::max<std::size_t>(1, (std::size_t(1) << 23) / row_bytes) * row_bytes
                  : std::size_t(1) << 23;
  const std::size_t blocks = static_cast<std::size_t>((size + block - 1) / block);
  parallel_for_chunks(
      blocks, std::min(resolve_thread_count(threads), 4), 1, [&](std::size_t b, std::size_t e) {
        std::vector<double> buf(block / sizeof(double) + 1);
        char* p = reinterpret_cast<char*>(buf.data());
        for (std::size_t k = b; k < e; ++k) {
          const std::uint64_t at = std::uint64_t(k) * block;
          const auto len = static_cast<std::size_t>(std::min<std::uint64_t>(block, size - at));
          if (!io::pread_all(in.fd, p, len, at)) throw Error("cannot read '" + part.string() + "'");
          if (layout.hdf5) {
            pwrite_chunk_rows(out.fd, layout.chunk_offset, layout.columns,
                              rows_before + at / row_bytes, buf.data(), len / row_bytes,
                              layout.file);
          } else if (!io::pwrite_all(out.fd, p, len, layout.base + bytes_before + at)) {
            throw io::write_error(layout.file, "");
          }
        }
      });
  if (::close(std::exchange(out.fd, -1)) != 0) throw io::write_error(layout.file, "");
}

void MuonWriter::commit() {
  Impl& m = *impl_;
  if (m.hdf5 && m.mode == Mode::file) {
    const io::h5::LibraryLock lock(io::h5::library_mutex());
    const std::size_t left = m.pending.size() / m.ncol;
    if (!m.dataset.valid()) {
      // Smaller than one block: a contiguous dataset of exactly these rows.
      m.create_dataset(false, left);
      if (left && H5Dwrite(m.dataset.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                           m.pending.data()) < 0) {
        throw io::write_error(m.name, "dataset 'muons'");
      }
    } else if (m.placed) {
      const hsize_t dims[2] = {m.dataset_rows, m.ncol};
      if (H5Dset_extent(m.dataset.get(), dims) < 0) {
        throw Error(m.name + ": cannot extend dataset 'muons'");
      }
    } else if (left) {
      m.write_block(m.pending.data(), left);
    }
    m.pending.clear();
    m.dataset.reset();
    if (H5Fflush(m.file.get(), H5F_SCOPE_GLOBAL) < 0) throw io::write_error(m.name, "");
    // Checked: a close that fails (a full disk) must not leave a file behind.
    if (H5Fclose(m.file.release()) < 0) throw io::write_error(m.name, "");
    if (m.raw_fd >= 0 && ::close(std::exchange(m.raw_fd, -1)) != 0) {
      throw io::write_error(m.name, "");
    }
  } else {
    io::close_checked(std::exchange(m.f, nullptr), m.name);
  }
  if (m.atomic) m.atomic->commit();
  m.committed = true;
}

std::uint64_t MuonWriter::rows() const { return impl_->rows; }

}  // namespace fastmu
