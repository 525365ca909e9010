#include "fastmu/transport/stream/MuonReader.hh"

#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "fastmu/core/Error.hh"
#include "fastmu/core/Parallel.hh"
#include "fastmu/io/ColumnTable.hh"
#include "fastmu/io/Hdf5.hh"
#include "fastmu/io/Hdf5DeflatedRows.hh"
#include "fastmu/io/Hdf5Lock.hh"
#include "fastmu/io/Hdf5RawRows.hh"
#include "fastmu/io/InputFiles.hh"
#include "fastmu/io/PositionedIo.hh"
#include "fastmu/transport/MuonRowCheck.hh"

namespace fastmu {
namespace {

constexpr const char* kNames[8] = {"px", "py", "pz", "x", "y", "z", "pdg", "weight"};
constexpr std::size_t kConvertChunk = 1 << 16;
constexpr std::size_t kReadBlock = 1 << 18;

bool is_trim_char(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '"'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_trim_char(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_trim_char(s.back())) s.remove_suffix(1);
  return s;
}

// A data line: not blank and not a '#' comment (as io::read_table).
bool is_data_line(std::string_view line) { return !trim(line).empty() && line[0] != '#'; }

// Parses one CSV field as double; std::from_chars, with strtod for the
// "inf"/"nan" spellings some writers use.
bool parse_double(std::string_view s, double& v) {
  if (s.empty()) return false;
  const char* first = s.data();
  const char* last = s.data() + s.size();
  if (*first == '+') ++first;
  const auto [ptr, ec] = std::from_chars(first, last, v);
  if (ec == std::errc() && ptr == last) return true;
  char buf[64];
  if (s.size() >= sizeof buf) return false;
  std::memcpy(buf, s.data(), s.size());
  buf[s.size()] = '\0';
  char* end = nullptr;
  v = std::strtod(buf, &end);
  return end == buf + s.size();
}

void store(MuonBatch& b, std::size_t i, const double v[8]) {
  b.px[i] = static_cast<float>(v[0]);
  b.py[i] = static_cast<float>(v[1]);
  b.pz[i] = static_cast<float>(v[2]);
  b.x[i] = static_cast<float>(v[3]);
  b.y[i] = static_cast<float>(v[4]);
  b.z[i] = static_cast<float>(v[5]);
  b.pdg[i] = static_cast<std::int32_t>(v[6]);
  b.weight[i] = v[7];
}

// Maps the needed columns (kNames order) to file columns; weight may be -1.
std::array<int, 8> map_columns(const std::vector<std::string>& columns, const std::string& source) {
  io::ColumnTable t;
  t.columns = columns;
  std::array<int, 8> col{};
  for (int i = 0; i < 7; ++i) col[i] = t.require(kNames[i], source);
  col[7] = t.find("weight");
  return col;
}

std::vector<std::string> split_header(std::string_view line) {
  std::vector<std::string> out;
  for (;;) {
    const std::size_t comma = line.find(',');
    out.emplace_back(trim(line.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    line.remove_prefix(comma + 1);
  }
  return out;
}

// One thread's share of a CSV block: whole lines [begin, end).
struct Piece {
  const char* begin = nullptr;
  const char* end = nullptr;
  std::size_t lines = 0, rows = 0;  // all lines / data lines
  std::size_t first_row = 0;        // offset of its first data row in the batch
  struct Bad {
    std::size_t line;  // in the piece, from 1
    bool syntax;       // "<file>:<line>: ..." (as io::read_table) or "<file> line <n>, ..."
    std::string message;
  };
  std::optional<Bad> error;
};

// Calls f(line) for each line of [begin, end) (the last may lack '\n').
template <class F>
void for_each_line(const char* begin, const char* end, F&& f) {
  const char* s = begin;
  while (s < end) {
    const char* nl = static_cast<const char*>(std::memchr(s, '\n', end - s));
    const char* e = nl ? nl : end;
    if (!f(std::string_view(s, e - s), nl ? nl + 1 : end)) return;
    s = nl ? nl + 1 : end;
  }
}

// `b` resized to n rows, its columns on threads of their own: a batch that
// grows (the stream's first chunks) has its new rows zeroed and its pages
// first touched, ~0.18 s per 1e7 rows on one thread, the reader's largest
// serial step on a GPU run's chunks of 2^23 rows and more.
void resize_columns(MuonBatch& b, std::size_t n, int threads) {
  if (b.size() == n) return;
  std::vector<float>* const floats[6] = {&b.px, &b.py, &b.pz, &b.x, &b.y, &b.z};
  parallel_for_chunks(8, threads, 1, [&](std::size_t c0, std::size_t c1) {
    for (std::size_t c = c0; c < c1; ++c) {
      if (c < 6) {
        floats[c]->resize(n);
      } else if (c == 6) {
        b.pdg.resize(n);
      } else {
        b.weight.resize(n, 1.0);
      }
    }
  });
}

}  // namespace

struct MuonReader::Impl {
  std::string source;
  bool csv = false;
  int threads = 0;
  MuonRowLimits limits;
  std::uint64_t row = 0;
  std::optional<std::uint64_t> total;
  std::array<int, 8> col{};
  std::vector<int> want;  // file column -> needed column (kNames order) or -1
  std::size_t ncol = 0;

  // CSV (and HDF5 read by positioned reads)
  int fd = -1;
  std::uint64_t file_size = 0;
  std::uint64_t data_start = 0, data_start_line = 0;
  std::uint64_t pos = 0, line = 0;  // byte offset and 1-based number of the next line
  double bytes_per_line = 80;
  std::unique_ptr<char[]> buf;  // file text, left uninitialised
  std::size_t buf_capacity = 0;

  // HDF5
  io::h5::Handle file, dataset;
  bool single_precision = false;
  std::vector<io::h5::RawRowExtent> extents;  // where the rows lie (fd open), or none
  std::vector<float> raw_f;
  std::vector<double> raw_d;
  // Deflated chunks, inflated on all cores (else H5Dread on one thread). A
  // chunk that reaches past a read is inflated whole and kept for the next
  // (`tail`), so each chunk is inflated once whatever the read sizes.
  std::optional<io::h5::DeflatedGrid> grid;
  io::h5::StoredChunks stored;
  std::vector<unsigned char> tail, next_tail;
  std::unique_ptr<unsigned char[]> inflated;  // the raw rows of a read
  std::size_t inflated_capacity = 0;
  std::uint64_t tail_chunk = std::numeric_limits<std::uint64_t>::max();

  ~Impl() {
    if (fd >= 0) ::close(fd);
  }

  void open_csv(const std::filesystem::path& path) {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw Error(source + ": cannot open file");
    io::note_input(path);
    struct stat st {};
    if (::fstat(fd, &st) != 0) throw Error(source + ": cannot read file");
    file_size = static_cast<std::uint64_t>(st.st_size);
    // The header is the first line that is neither blank nor a comment.
    std::string text;
    std::uint64_t off = 0, lineno = 0;
    std::optional<std::string> header;
    char tmp[65536];
    std::string pending;
    while (!header && off < file_size) {
      const ssize_t got = ::pread(fd, tmp, sizeof tmp, static_cast<off_t>(off));
      if (got <= 0) throw Error(source + ": read error");
      pending.append(tmp, static_cast<std::size_t>(got));
      off += static_cast<std::uint64_t>(got);
      std::size_t start = 0;
      for (;;) {
        const std::size_t nl = pending.find('\n', start);
        const bool last = nl == std::string::npos && off >= file_size;
        if (nl == std::string::npos && !last) break;
        const std::string_view l(pending.data() + start,
                                 (nl == std::string::npos ? pending.size() : nl) - start);
        ++lineno;
        const std::uint64_t next =
            off - pending.size() + (nl == std::string::npos ? pending.size() : nl + 1);
        if (is_data_line(l)) {
          header = std::string(l);
          data_start = next;
          break;
        }
        if (nl == std::string::npos) break;
        start = nl + 1;
      }
      if (!header) pending.erase(0, start);
    }
    if (!header) throw Error(source + ": file is empty (no header line)");
    const auto columns = split_header(*header);
    for (std::size_t c = 0; c < columns.size(); ++c) {
      double dummy;
      if (columns[c].empty())
        throw Error(fmt::format("{}:{}: empty column name in header", source, lineno));
      if (parse_double(columns[c], dummy)) {
        throw Error(fmt::format("{}:{}: header line expected (column names), found a number '{}'",
                                source, lineno, columns[c]));
      }
    }
    if (const long d = io::first_duplicate_column(columns); d >= 0) {
      throw Error(fmt::format("{}:{}: duplicate column '{}'", source, lineno,
                              columns[static_cast<std::size_t>(d)]));
    }
    col = map_columns(columns, source);
    ncol = columns.size();
    want.assign(ncol, -1);
    for (int k = 0; k < 8; ++k) {
      if (col[k] >= 0) want[static_cast<std::size_t>(col[k])] = k;
    }
    data_start_line = lineno + 1;
    pos = data_start;
    line = data_start_line;
  }

  void open_hdf5() {
    file = io::h5::open_file(source);
    const auto dims = io::h5::dataset_shape(file.get(), "muons", source);
    if (dims.size() != 2) {
      throw Error(fmt::format("{}: dataset 'muons' must be 2-D (rows, columns), has rank {}",
                              source, dims.size()));
    }
    dataset = io::h5::Handle(H5Dopen2(file.get(), "muons", H5P_DEFAULT));
    std::vector<std::string> columns;
    if (io::h5::has_attribute(dataset.get(), "columns")) {
      columns = split_header(
          io::h5::read_string_list_attribute(dataset.get(), "columns", source + ": muons"));
    } else {
      columns.assign(std::begin(kNames), std::end(kNames));
      columns.resize(std::min<std::size_t>(columns.size(), dims[1]));
    }
    if (columns.size() != dims[1]) {
      throw Error(fmt::format("{}: dataset 'muons' has {} columns, expected {}", source, dims[1],
                              columns.size()));
    }
    col = map_columns(columns, source);
    ncol = columns.size();
    total = dims[0];
    io::h5::Handle type(H5Dget_type(dataset.get()));
    const H5T_class_t cls = H5Tget_class(type.get());
    if (cls != H5T_INTEGER && cls != H5T_FLOAT)
      throw Error(source + ": dataset 'muons' is not numeric");
    // float32 files are read as they are stored; anything else through double
    // (weights keep their precision).
    single_precision = cls == H5T_FLOAT && H5Tget_size(type.get()) == 4;
    // Stored as read (native float32 or float64, unfiltered): positioned reads.
    extents = io::h5::raw_row_extents(file.get(), dataset.get(),
                                      single_precision ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE);
    if (!extents.empty()) {
      fd = ::open(source.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) extents.clear();
    }
    if (extents.empty()) {
      grid = io::h5::deflated_grid(dataset.get(),
                                   single_precision ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE);
    }
  }

  // ---- CSV ----

  // Reads whole lines from `pos` into buf, at least one line unless at the end.
  std::size_t load_block(std::size_t want) {
    for (;;) {
      want = static_cast<std::size_t>(std::min<std::uint64_t>(want, file_size - pos));
      if (want > buf_capacity) buf.reset(new char[want]), buf_capacity = want;
      if (!io::pread_all(fd, buf.get(), want, pos)) throw Error(source + ": read error");
      if (pos + want >= file_size) return want;
      const char* p = buf.get();
      for (std::size_t k = want; k > 0; --k) {
        if (p[k - 1] == '\n') return k;
      }
      want *= 2;  // a line longer than the block
    }
  }

  std::vector<Piece> split(const char* begin, const char* end, int nthreads) const {
    std::vector<Piece> pieces;
    const std::size_t len = end - begin;
    const char* s = begin;
    for (int t = 0; t < nthreads && s < end; ++t) {
      const char* e = t + 1 == nthreads ? end : begin + len * (t + 1) / nthreads;
      if (e < s) e = s;
      if (e < end) {
        const char* nl = static_cast<const char*>(std::memchr(e, '\n', end - e));
        e = nl ? nl + 1 : end;
      }
      Piece piece;
      piece.begin = s, piece.end = e;
      pieces.push_back(std::move(piece));
      s = e;
    }
    return pieces;
  }

  static void count(Piece& p) {
    p.lines = p.rows = 0;
    for_each_line(p.begin, p.end, [&](std::string_view l, const char*) {
      ++p.lines;
      p.rows += is_data_line(l);
      return true;
    });
  }

  // Ends `p` after its `rows`-th data row.
  static void truncate(Piece& p, std::size_t rows) {
    std::size_t seen = 0;
    const char* cut = p.begin;
    if (rows > 0) {
      for_each_line(p.begin, p.end, [&](std::string_view l, const char* next) {
        seen += is_data_line(l);
        cut = next;
        return seen < rows;
      });
    }
    p.end = cut;
    count(p);
  }

  // The common line, parsed in one pass: numbers read by std::from_chars
  // where they stand (no field splitting). False sends the line to the
  // general path below, which also words the errors.
  bool parse_fast(std::string_view l, double v[8]) const {
    const char* p = l.data();
    const char* const end = p + l.size();
    for (std::size_t c = 0; c < ncol; ++c) {
      while (p < end && (*p == ' ' || *p == '\t')) ++p;
      const int k = want[c];
      if (k >= 0) {
        const auto [ptr, ec] = std::from_chars(p, end, v[k]);
        if (ec != std::errc() || ptr == p) return false;
        p = ptr;
      } else {
        while (p < end && *p != ',') ++p;
      }
      while (p < end && (*p == ' ' || *p == '\t' || *p == '\r')) ++p;
      if (c + 1 < ncol) {
        if (p == end || *p != ',') return false;
        ++p;
      }
    }
    if (p != end) return false;
    if (col[7] < 0) v[7] = 1.0;
    return muon_row_ok(v, limits.p_max);
  }

  void parse(Piece& p, MuonBatch& out) const {
    std::size_t i = p.first_row, local_line = 0;
    std::string_view fields[64];
    std::vector<std::string_view> many;
    for_each_line(p.begin, p.end, [&](std::string_view l, const char*) {
      ++local_line;
      if (l.empty() || l[0] == '#') return true;
      double v[8];
      if (parse_fast(l, v)) {
        store(out, i++, v);
        return true;
      }
      if (!is_data_line(l)) return true;
      std::string_view* f = fields;
      if (ncol > 64) {
        many.resize(ncol);
        f = many.data();
      }
      std::size_t nf = 0;
      for (;;) {
        const std::size_t comma = l.find(',');
        if (nf < ncol) f[nf] = trim(l.substr(0, comma));
        ++nf;
        if (comma == std::string_view::npos) break;
        l.remove_prefix(comma + 1);
      }
      if (nf != ncol) {
        p.error =
            Piece::Bad{local_line, true, fmt::format("expected {} fields, found {}", ncol, nf)};
        return false;
      }
      for (int k = 0; k < 8; ++k) {
        if (col[k] < 0) {
          v[k] = 1.0;
          continue;
        }
        if (!parse_double(f[col[k]], v[k])) {
          p.error =
              Piece::Bad{local_line, true,
                         fmt::format("column '{}': '{}' is not a number", kNames[k], f[col[k]])};
          return false;
        }
      }
      std::string bad = muon_row_problem(v, limits);
      if (!bad.empty()) {
        p.error = Piece::Bad{local_line, false, std::move(bad)};
        return false;
      }
      store(out, i++, v);
      return true;
    });
  }

  // Reads (parse) or skips the next rows, at most max_rows; returns the count.
  std::size_t csv_next(std::size_t max_rows, MuonBatch* out) {
    const int nthreads = resolve_thread_count(threads);
    for (;;) {
      if (pos >= file_size) return 0;
      const double guess = bytes_per_line * 1.05 * static_cast<double>(max_rows) + 65536;
      const std::size_t want = static_cast<std::size_t>(std::min(guess, 1.0e12));
      const std::size_t got = load_block(want);
      std::vector<Piece> pieces = split(buf.get(), buf.get() + got, nthreads);
      parallel_for_chunks(pieces.size(), nthreads, 1, [&](std::size_t b, std::size_t e) {
        for (std::size_t k = b; k < e; ++k) count(pieces[k]);
      });
      std::size_t rows = 0;
      for (std::size_t k = 0; k < pieces.size(); ++k) {
        if (rows + pieces[k].rows >= max_rows) {
          if (rows + pieces[k].rows > max_rows) truncate(pieces[k], max_rows - rows);
          pieces.resize(k + 1);
        }
        pieces[k].first_row = rows;
        rows += pieces[k].rows;
      }
      if (out) {
        resize_columns(*out, rows, nthreads);
        parallel_for_chunks(pieces.size(), nthreads, 1, [&](std::size_t b, std::size_t e) {
          for (std::size_t k = b; k < e; ++k) parse(pieces[k], *out);
        });
        std::uint64_t before = line;
        for (const Piece& p : pieces) {
          if (p.error) {
            const std::uint64_t at = before + p.error->line - 1;
            if (p.error->syntax)
              throw Error(fmt::format("{}:{}: {}", source, at, p.error->message));
            throw Error(fmt::format("{} line {}, {}", source, at, p.error->message));
          }
          before += p.lines;
        }
      }
      std::size_t lines = 0;
      for (const Piece& p : pieces) lines += p.lines;
      const std::size_t used = pieces.empty() ? 0 : pieces.back().end - buf.get();
      pos += used;
      line += lines;
      row += rows;
      if (lines > 0) bytes_per_line = std::max(4.0, static_cast<double>(used) / lines);
      if (rows > 0 || pos >= file_size) return rows;
    }
  }

  // ---- HDF5 ----

  // The eight muon values of a file row (a missing weight is 1).
  template <class T>
  void row_values(const T* rowp, double v[8]) const {
    for (int k = 0; k < 8; ++k) v[k] = col[k] < 0 ? 1.0 : static_cast<double>(rowp[col[k]]);
  }

  // A file row into out[at]; false, storing nothing, when a value is out of
  // range.
  template <class T>
  bool convert_row(const T* rowp, MuonBatch& out, std::size_t at) const {
    double v[8];
    row_values(rowp, v);
    const bool ok = muon_row_ok(v, limits.p_max);
    if (ok) store(out, at, v);
    return ok;
  }

  template <class T>
  [[noreturn]] void bad_row(const T* rowp, std::uint64_t row_number) const {
    double v[8];
    row_values(rowp, v);
    throw Error(fmt::format("{} row {}, {}", source, row_number, muon_row_problem(v, limits)));
  }

  // The first bad row of a parallel conversion (the lowest, as a serial read
  // would report), with its values.
  template <class T>
  struct FirstBad {
    std::mutex m;
    std::optional<std::uint64_t> row;
    std::vector<T> values;
    void note(std::uint64_t r, const T* rowp, std::size_t ncol) {
      std::lock_guard<std::mutex> lock(m);
      if (row && *row <= r) return;
      row = r;
      values.assign(rowp, rowp + ncol);
    }
  };

  template <class T>
  void convert(const T* raw, std::size_t n, std::uint64_t first, MuonBatch& out,
               std::size_t offset) {
    FirstBad<T> bad;
    parallel_for_chunks(n, threads, kConvertChunk, [&](std::size_t b, std::size_t e) {
      for (std::size_t r = b; r < e; ++r) {
        if (!convert_row(raw + r * ncol, out, offset + r)) return bad.note(r, raw + r * ncol, ncol);
      }
    });
    if (bad.row) bad_row(bad.values.data(), first + *bad.row);
  }

  // File rows [b, e) into raw, by positioned reads over the dataset's extents.
  void pread_rows(std::uint64_t b, std::uint64_t e, char* raw, std::size_t row_bytes) const {
    auto it = std::upper_bound(
        extents.begin(), extents.end(), b,
        [](std::uint64_t r, const io::h5::RawRowExtent& x) { return r < x.first_row; });
    for (--it; b < e; ++it) {
      const std::uint64_t end = std::min(e, it->first_row + it->rows);
      const auto want = static_cast<std::size_t>((end - b) * row_bytes);
      if (!io::pread_all(fd, raw, want, it->offset + (b - it->first_row) * row_bytes)) {
        throw Error(fmt::format("{}: read error (dataset 'muons' row {})", source, b));
      }
      raw += want;
      b = end;
    }
  }

  // n rows from `row`, read and converted on all cores: each piece by one
  // thread from the file into its own small buffer (not through HDF5).
  template <class T>
  void read_raw(std::size_t n, MuonBatch& out) {
    FirstBad<T> bad;
    parallel_for_chunks(n, threads, kConvertChunk, [&](std::size_t b, std::size_t e) {
      thread_local std::vector<T> raw;
      raw.resize((e - b) * ncol);
      pread_rows(row + b, row + e, reinterpret_cast<char*>(raw.data()), ncol * sizeof(T));
      for (std::size_t r = b; r < e; ++r) {
        const T* rowp = raw.data() + (r - b) * ncol;
        if (!convert_row(rowp, out, r)) return bad.note(row + r, rowp, ncol);
      }
    });
    if (bad.row) bad_row(bad.values.data(), *bad.row);
    row += n;
  }

  // n rows from `row` out of deflated chunks: the stored chunks fetched
  // through HDF5 on this thread, inflated and placed into the raw rows on
  // all cores, then converted and checked on all cores.
  template <class T>
  void read_deflated(std::size_t n, MuonBatch& out) {
    const io::h5::DeflatedGrid& g = *grid;
    const std::uint64_t b = row, e = row + n, cr = g.chunk_rows;
    const std::uint64_t k0 = b / cr, k1 = (e - 1) / cr + 1;
    const bool have_first = tail_chunk == k0;
    // The last chunk holds rows a later read needs: kept whole (unless it
    // is the kept chunk already).
    const bool keep_last = e < std::min(k1 * cr, g.rows) && !(have_first && k0 + 1 == k1);
    const std::uint64_t f0 = have_first ? k0 + 1 : k0;
    if (f0 < k1) {
      const io::h5::LibraryLock lock(io::h5::library_mutex());
      if (!io::h5::fetch_chunks(dataset.get(), g, f0, k1, stored)) {
        throw Error(fmt::format("{}: cannot read dataset 'muons' rows {}..{}", source, b, e));
      }
    }
    const std::size_t row_bytes = ncol * sizeof(T);
    // Left uninitialised: every byte is placed by the threads (first touch
    // on all cores, no zeroing of a chunk's worth on this thread).
    if (n * row_bytes > inflated_capacity) {
      inflated.reset(new unsigned char[n * row_bytes]);
      inflated_capacity = n * row_bytes;
    }
    unsigned char* dst = inflated.get();
    const T* raw = reinterpret_cast<const T*>(dst);
    if (keep_last) next_tail.resize(static_cast<std::size_t>(cr) * row_bytes);
    // The lowest corrupt chunk, as a serial read would meet it first.
    std::atomic<std::uint64_t> corrupt{std::numeric_limits<std::uint64_t>::max()};
    const std::uint64_t per_row = g.col_chunks();
    parallel_for_chunks((k1 - f0) * per_row, threads, 1, [&](std::size_t ib, std::size_t ie) {
      std::vector<unsigned char> plain, scratch;
      for (std::size_t it = ib; it < ie; ++it) {
        const std::uint64_t k = f0 + it / per_row, j = it % per_row;
        const std::uint64_t first = k * cr, end = std::min(first + cr, g.rows);
        const bool ok =
            keep_last && k + 1 == k1
                ? io::h5::place_chunk(g, stored, k, j, first, end, next_tail.data(), plain, scratch)
                : io::h5::place_chunk(g, stored, k, j, std::max(b, first), std::min(e, end),
                                      dst + (std::max(b, first) - b) * row_bytes, plain, scratch);
        for (std::uint64_t seen = corrupt.load(); !ok && k < seen;) {
          if (corrupt.compare_exchange_weak(seen, k)) break;
        }
      }
    });
    if (have_first) {
      const std::uint64_t end = std::min(e, k0 * cr + cr);
      std::memcpy(dst, tail.data() + (b - k0 * cr) * row_bytes, (end - b) * row_bytes);
    }
    if (const std::uint64_t k = corrupt.load(); k != std::numeric_limits<std::uint64_t>::max()) {
      // A bad row before the corrupt chunk is named first, as a serial read would.
      const std::uint64_t good = std::max(b, k * cr);
      if (good > b) convert(raw, static_cast<std::size_t>(good - b), b, out, 0);
      throw Error(fmt::format("{}: cannot read dataset 'muons' rows {}..{} (corrupt chunk)", source,
                              k * cr, std::min(k * cr + cr, g.rows)));
    }
    if (keep_last) {
      const std::uint64_t first = std::max(b, (k1 - 1) * cr);
      std::memcpy(dst + (first - b) * row_bytes,
                  next_tail.data() + (first - (k1 - 1) * cr) * row_bytes, (e - first) * row_bytes);
      std::swap(tail, next_tail);
      tail_chunk = k1 - 1;
    }
    convert(raw, n, b, out, 0);
    row += n;
  }

  // HDF5 rows: by positioned reads on all cores where the layout allows,
  // inflated on all cores where deflated, else through H5Dread in blocks of
  // kReadBlock (the raw buffer stays small).
  std::size_t hdf5_next(std::size_t max_rows, MuonBatch& out) {
    const std::uint64_t n64 = std::min<std::uint64_t>(max_rows, *total - row);
    const std::size_t n = static_cast<std::size_t>(n64);
    resize_columns(out, n, threads);
    if (!extents.empty()) {
      if (single_precision) {
        read_raw<float>(n, out);
      } else {
        read_raw<double>(n, out);
      }
      return n;
    }
    if (grid && n > 0) {
      if (single_precision) {
        read_deflated<float>(n, out);
      } else {
        read_deflated<double>(n, out);
      }
      return n;
    }
    for (std::size_t done = 0; done < n;) {
      const std::size_t k = std::min(kReadBlock, n - done);
      hdf5_block(k, out, done);
      done += k;
    }
    return n;
  }

  void hdf5_block(std::size_t n, MuonBatch& out, std::size_t offset) {
    herr_t st;
    {
      const io::h5::LibraryLock lock(io::h5::library_mutex());
      const hsize_t start[2] = {row, 0}, count[2] = {n, ncol};
      io::h5::Handle fspace(H5Dget_space(dataset.get()));
      H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, start, nullptr, count, nullptr);
      io::h5::Handle mspace(H5Screate_simple(2, count, nullptr));
      if (single_precision) {
        raw_f.resize(n * ncol);
        st = H5Dread(dataset.get(), H5T_NATIVE_FLOAT, mspace.get(), fspace.get(), H5P_DEFAULT,
                     raw_f.data());
      } else {
        raw_d.resize(n * ncol);
        st = H5Dread(dataset.get(), H5T_NATIVE_DOUBLE, mspace.get(), fspace.get(), H5P_DEFAULT,
                     raw_d.data());
      }
    }
    if (st < 0)
      throw Error(fmt::format("{}: cannot read dataset 'muons' rows {}..{}", source, row, row + n));
    if (single_precision) {
      convert(raw_f.data(), n, row, out, offset);
    } else {
      convert(raw_d.data(), n, row, out, offset);
    }
    row += n;
  }
};

MuonReader::MuonReader(const std::filesystem::path& path, int threads, MuonRowLimits limits)
    : impl_(std::make_unique<Impl>()) {
  impl_->source = path.string();
  impl_->threads = threads;
  impl_->limits = limits;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw Error(path.string() + ": file not found");
  if (std::filesystem::is_directory(path, ec))
    throw Error(path.string() + ": is a folder, not a file");
  impl_->csv = io::format_from_path(path) != io::TableFormat::hdf5;
  if (io::format_from_path(path) == io::TableFormat::raw_f32) {
    throw Error(path.string() + ": .f32 files are samples, not muons (CSV or HDF5 expected)");
  }
  if (impl_->csv) {
    impl_->open_csv(path);
  } else {
    impl_->open_hdf5();
  }
}

MuonReader::~MuonReader() = default;

std::optional<std::uint64_t> MuonReader::known_rows() const { return impl_->total; }

std::uint64_t MuonReader::rows() {
  Impl& m = *impl_;
  if (!m.total) {
    const std::uint64_t pos = m.pos, line = m.line, row = m.row;
    m.pos = m.data_start, m.line = m.data_start_line, m.row = 0;
    while (m.csv_next(std::size_t(1) << 22, nullptr) > 0) {
    }
    m.total = m.row;
    m.pos = pos, m.line = line, m.row = row;
    m.buf.reset();
    m.buf_capacity = 0;
  }
  return *m.total;
}

std::uint64_t MuonReader::position() const { return impl_->row; }

void MuonReader::seek(std::uint64_t row) {
  Impl& m = *impl_;
  if (!m.csv) {
    m.row = std::min<std::uint64_t>(row, *m.total);
    return;
  }
  if (row < m.row) m.pos = m.data_start, m.line = m.data_start_line, m.row = 0;
  while (m.row < row) {
    if (m.csv_next(static_cast<std::size_t>(std::min<std::uint64_t>(row - m.row, 1u << 22)),
                   nullptr) == 0)
      break;
  }
}

bool MuonReader::read(std::size_t max_rows, MuonBatch& out) {
  Impl& m = *impl_;
  // Every row read is stored whole, so a reused batch of the same size is
  // not cleared first (no memset of a chunk's worth of columns per read).
  const std::size_t n = max_rows == 0 ? 0
                        : m.csv       ? m.csv_next(max_rows, &out)
                                      : m.hdf5_next(max_rows, out);
  if (n == 0) out.resize(0);
  return n > 0;
}

std::size_t MuonReader::buffer_bytes_per_row() const {
  const Impl& m = *impl_;
  const std::size_t raw = m.ncol * (m.single_precision ? sizeof(float) : sizeof(double));
  // Deflated: the raw rows and their stored chunks (at most as large).
  return m.csv ? static_cast<std::size_t>(m.bytes_per_line * 1.05) + 1 : m.grid ? 2 * raw : raw;
}

}  // namespace fastmu
