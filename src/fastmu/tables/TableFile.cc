#include "fastmu/tables/TableFile.hh"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <hdf5.h>

#include "fastmu/core/Error.hh"
#include "fastmu/core/Parallel.hh"
#include "fastmu/io/AtomicOutput.hh"
#include "fastmu/io/Hdf5.hh"
#include "fastmu/io/Hdf5Chunks.hh"
#include "fastmu/io/Hdf5Deflate.hh"
#include "fastmu/io/InputFiles.hh"
#include "fastmu/tables/AliasTable.hh"
#include "fastmu/tables/MomentumBinning.hh"

namespace fastmu {
namespace {

// Owns one HDF5 identifier and closes it with the matching H5?close.
class Handle {
 public:
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~Handle() {
    if (id_ >= 0) close_(id_);
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  hid_t get() const { return id_; }
  hid_t release() { return std::exchange(id_, H5I_INVALID_HID); }  // the caller closes it
  bool ok() const { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

// HDF5 prints its error stack by default; fastmu reports its own one line.
struct QuietHdf5 {
  H5E_auto2_t func = nullptr;
  void* data = nullptr;
  QuietHdf5() {
    H5Eget_auto2(H5E_DEFAULT, &func, &data);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~QuietHdf5() { H5Eset_auto2(H5E_DEFAULT, func, data); }
};

// ---- writing -------------------------------------------------------------

struct Writer {
  static constexpr int kDeflateLevel = 4;
  hid_t file;
  std::string path;

  void check(herr_t status, const std::string& what) const {
    if (status < 0) throw io::write_error(path, "HDF5 error writing " + what);
  }

  void dataset(const char* name, hid_t mem_type, hid_t file_type, const std::vector<hsize_t>& dims,
               const void* data, bool compress = false) {
    Handle space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose);
    Handle plist(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    // No object times: equal tables (and equal SOURCE_DATE_EPOCH), equal bytes.
    check(H5Pset_obj_track_times(plist.get(), false), name);
    if (compress && H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0) {
      // One chunk per momentum bin: h5py and the reader get a bin at a time.
      std::vector<hsize_t> chunk(dims);
      chunk[0] = 1;
      check(H5Pset_chunk(plist.get(), static_cast<int>(chunk.size()), chunk.data()), name);
      check(H5Pset_shuffle(plist.get()), name);
      check(H5Pset_deflate(plist.get(), kDeflateLevel), name);
    }
    Handle ds(H5Dcreate2(file, name, file_type, space.get(), H5P_DEFAULT, plist.get(), H5P_DEFAULT),
              H5Dclose);
    if (!ds.ok()) check(-1, name);
    if (compress && write_deflated(ds.get(), mem_type, file_type, dims, data, name)) return;
    check(H5Dwrite(ds.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), name);
  }

  // A chunked dataset's chunks (one per momentum bin) shuffled and deflated
  // on all threads, stored by H5Dwrite_chunk: the bytes H5Dwrite would store,
  // which filters one chunk after the other on this thread (a ladder's 15
  // files took ~0.4 s). False (nothing written) where the memory layout is
  // not the file's or a chunk would not shrink: H5Dwrite then writes it.
  bool write_deflated(hid_t ds, hid_t mem_type, hid_t file_type, const std::vector<hsize_t>& dims,
                      const void* data, const char* name) const {
    if (H5Zfilter_avail(H5Z_FILTER_DEFLATE) <= 0 || dims.empty() || dims[0] == 0) return false;
    const std::size_t element = H5Tget_size(file_type);
    if (element == 0 || H5Tget_size(mem_type) != element ||
        H5Tget_order(mem_type) != H5Tget_order(file_type)) {
      return false;
    }
    std::size_t chunk = element;
    for (std::size_t k = 1; k < dims.size(); ++k) chunk *= static_cast<std::size_t>(dims[k]);
    std::vector<io::h5::DeflatedChunk> out;
    io::h5::deflate_chunks(static_cast<const unsigned char*>(data),
                           static_cast<std::size_t>(dims[0]), chunk, element, true, kDeflateLevel,
                           0, out);
    for (const io::h5::DeflatedChunk& c : out) {
      if (!c.ok) return false;
    }
    std::vector<hsize_t> offset(dims.size(), 0);
    for (std::size_t i = 0; i < out.size(); ++i) {
      offset[0] = i;
      check(H5Dwrite_chunk(ds, H5P_DEFAULT, 0, offset.data(), out[i].bytes.size(),
                           out[i].bytes.data()),
            name);
    }
    return true;
  }

  void attr(const char* name, hid_t mem_type, hid_t file_type, const void* value, hsize_t n = 1) {
    Handle space(n == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, nullptr), H5Sclose);
    Handle a(H5Acreate2(file, name, file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    if (!a.ok()) check(-1, name);
    check(H5Awrite(a.get(), mem_type, value), name);
  }

  void attr_string(const char* name, const std::string& value) {
    Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(type.get(), H5T_VARIABLE);
    H5Tset_cset(type.get(), H5T_CSET_UTF8);
    const char* p = value.c_str();
    attr(name, type.get(), type.get(), &p);
  }
};

// ---- reading -------------------------------------------------------------

// Each bin's alias table from its counts, as the builders make it.
std::vector<AliasCell> alias_cells_of(const std::vector<std::uint32_t>& counts,
                                      std::size_t cells_per_bin, int threads) {
  std::vector<AliasCell> cells(counts.size());
  const std::size_t bins = cells_per_bin ? counts.size() / cells_per_bin : 0;
  parallel_for_chunks(bins, threads, 1, [&](std::size_t lo, std::size_t hi) {
    for (std::size_t b = lo; b < hi; ++b) {
      build_alias_table(
          std::span<const std::uint32_t>(counts.data() + b * cells_per_bin, cells_per_bin),
          std::span<AliasCell>(cells.data() + b * cells_per_bin, cells_per_bin));
    }
  });
  return cells;
}

struct Reader {
  hid_t file;
  std::string path;
  int threads = 0;  // for the chunked datasets

  [[noreturn]] void fail(const std::string& what) const { throw Error(path + ": " + what); }

  hid_t open_dataset(const char* name) const {
    if (!io::h5::has_dataset(file, name)) fail(std::string("missing dataset /") + name);
    io::h5::check_local_dataset(file, name, path);
    const hid_t ds = H5Dopen2(file, name, H5P_DEFAULT);
    if (ds < 0) fail(std::string("cannot open dataset /") + name);
    return ds;
  }

  // Dataset `name`, opened, whose shape must be `want`.
  hid_t open_shaped(const char* name, const std::vector<hsize_t>& want) const {
    Handle ds(open_dataset(name), H5Dclose);
    Handle space(H5Dget_space(ds.get()), H5Sclose);
    const int rank = H5Sget_simple_extent_ndims(space.get());
    std::vector<hsize_t> dims(rank > 0 ? rank : 0);
    if (rank > 0) H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
    if (dims != want) {
      auto show = [](const std::vector<hsize_t>& v) {
        std::ostringstream s;
        s << "(";
        for (std::size_t i = 0; i < v.size(); ++i) s << (i ? ", " : "") << v[i];
        s << (v.size() == 1 ? ",)" : ")");
        return s.str();
      };
      fail(std::string("dataset /") + name + " has shape " + show(dims) + ", expected " +
           show(want));
    }
    return ds.release();
  }

  // Dataset `name`, whose shape must be `want`: its first `rows` rows (along
  // the first axis; all of them by default).
  template <class T>
  std::vector<T> dataset(const char* name, hid_t mem_type, const std::vector<hsize_t>& want,
                         hsize_t rows = io::h5::kAllRows) const {
    Handle ds(open_shaped(name, want), H5Dclose);
    std::vector<hsize_t> count(want);
    if (!count.empty()) count[0] = std::min(count[0], rows);
    std::size_t total = 1;
    for (hsize_t d : count) total *= d;
    std::vector<T> out(total);
    const std::string source = path + ": dataset /" + name;  // for a corrupt chunk
    if (!io::h5::read_deflated_chunks(ds.get(), mem_type, sizeof(T), out.data(), source.c_str(),
                                      threads, rows) &&
        !read_rows(ds.get(), mem_type, count, out.data())) {
      fail(std::string("cannot read dataset /") + name + " (wrong type?)");
    }
    if constexpr (std::is_floating_point_v<T>) {
      const std::size_t i =
          first_index_where(total, threads, [&](std::size_t k) { return !std::isfinite(out[k]); });
      if (i < total) {
        fail(std::string("dataset /") + name + " has a NaN or infinite value at entry " +
             std::to_string(i));
      }
    }
    return out;
  }

  // The alias tables of the first `rows` bins of /histogram (of shape
  // `want`: bins x cells), each built from its chunk as it is inflated, in
  // cache: no array of the counts (~7 MB a file) is filled, faulted in and
  // read back. Files written otherwise than in deflated chunks have their
  // counts read whole first.
  std::vector<AliasCell> histogram_alias_cells(const std::vector<hsize_t>& want,
                                               hsize_t rows) const {
    Handle ds(open_shaped("histogram", want), H5Dclose);
    const std::size_t cpb = static_cast<std::size_t>(want[1] * want[2]);
    std::vector<AliasCell> cells(std::min(want[0], rows) * cpb);
    const std::string source = path + ": dataset /histogram";
    const bool built = io::h5::for_each_deflated_chunk(
        ds.get(), H5T_NATIVE_UINT32, sizeof(std::uint32_t), source.c_str(), threads, rows,
        [&](std::uint64_t first, std::uint64_t count, const unsigned char* plain) {
          // The chunk's bytes are the counts (native uint32, as asked).
          const auto* counts = reinterpret_cast<const std::uint32_t*>(plain);
          for (std::uint64_t b = 0; b < count; ++b) {
            build_alias_table(std::span<const std::uint32_t>(counts + b * cpb, cpb),
                              std::span<AliasCell>(cells.data() + (first + b) * cpb, cpb));
          }
        });
    if (built) return cells;
    return alias_cells_of(dataset<std::uint32_t>("histogram", H5T_NATIVE_UINT32, want, rows), cpb,
                          threads);
  }

  // The first count[0] rows of `ds` (whose other dimensions `count` gives)
  // through HDF5.
  static bool read_rows(hid_t ds, hid_t mem_type, const std::vector<hsize_t>& count, void* out) {
    if (count.empty()) return H5Dread(ds, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) >= 0;
    Handle file_space(H5Dget_space(ds), H5Sclose);
    const std::vector<hsize_t> start(count.size(), 0);
    Handle mem_space(H5Screate_simple(static_cast<int>(count.size()), count.data(), nullptr),
                     H5Sclose);
    return file_space.ok() && mem_space.ok() &&
           H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr,
                               count.data(), nullptr) >= 0 &&
           H5Dread(ds, mem_type, mem_space.get(), file_space.get(), H5P_DEFAULT, out) >= 0;
  }

  // Rank-1 length of a dataset (to learn the number of momentum bins).
  hsize_t length(const char* name) const {
    Handle ds(open_dataset(name), H5Dclose);
    Handle space(H5Dget_space(ds.get()), H5Sclose);
    if (H5Sget_simple_extent_ndims(space.get()) != 1) {
      fail(std::string("dataset /") + name + " must be one-dimensional");
    }
    hsize_t n = 0;
    H5Sget_simple_extent_dims(space.get(), &n, nullptr);
    return n;
  }

  hid_t open_attr(const char* name) const {
    if (H5Aexists(file, name) <= 0) fail(std::string("missing attribute ") + name);
    const hid_t a = H5Aopen(file, name, H5P_DEFAULT);
    if (a < 0) fail(std::string("cannot open attribute ") + name);
    return a;
  }

  template <class T>
  std::vector<T> attr_values(const char* name, hid_t mem_type, std::size_t n) const {
    Handle a(open_attr(name), H5Aclose);
    Handle space(H5Aget_space(a.get()), H5Sclose);
    const hssize_t count = H5Sget_simple_extent_npoints(space.get());
    if (count != static_cast<hssize_t>(n)) {
      fail(std::string("attribute ") + name + " has " + std::to_string(count) +
           " values, expected " + std::to_string(n));
    }
    std::vector<T> out(n);
    if (H5Aread(a.get(), mem_type, out.data()) < 0) {
      fail(std::string("attribute ") + name + " has the wrong type");
    }
    if constexpr (std::is_floating_point_v<T>) {
      for (T v : out) {
        if (!std::isfinite(v)) fail(std::string("attribute ") + name + " is NaN or infinite");
      }
    }
    return out;
  }

  template <class T>
  T attr_scalar(const char* name, hid_t mem_type) const {
    return attr_values<T>(name, mem_type, 1)[0];
  }

  std::string attr_string(const char* name) const {
    return io::h5::read_string_attribute(file, name, path);  // any shape and string type
  }
};

}  // namespace

void write_table_file(const std::filesystem::path& path, const TableParams& table,
                      const TableWriteOptions& options) {
  if (!table.has_histogram()) {
    throw Error(path.string() + ": cannot write a table loaded without its histograms");
  }
  io::AtomicOutput out(path);
  const TableMetadata& m = table.metadata();
  const TableData& d = table.data();
  {
    QuietHdf5 quiet;
    Handle file(H5Fcreate(out.temp_path().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT),
                H5Fclose);
    if (!file.ok()) throw Error("cannot write '" + path.string() + "': cannot create HDF5 file");
    Writer w{file.get(), path.string()};
    const hsize_t n = d.n_pbins();
    const hsize_t nx1 = d.nx + 1, ny1 = d.ny + 1;
    w.dataset("momentum_edges", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, {n + 1}, d.p_edges.data());
    w.dataset("momentum_centres", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, {n}, d.p_centres.data());
    static_assert(sizeof(HistAxes) == 4 * sizeof(float));
    w.dataset("axes", H5T_NATIVE_FLOAT, H5T_IEEE_F32LE, {n, 4}, d.axes.data());
    if (options.alias) {
      std::vector<float> thr(d.cells.size());
      std::vector<std::int32_t> idx(d.cells.size());
      for (std::size_t i = 0; i < d.cells.size(); ++i) {
        thr[i] = d.cells[i].threshold;
        idx[i] = d.cells[i].alias;
      }
      w.dataset("alias_threshold", H5T_NATIVE_FLOAT, H5T_IEEE_F32LE, {n, nx1, ny1}, thr.data(),
                true);
      w.dataset("alias_index", H5T_NATIVE_INT32, H5T_STD_I32LE, {n, nx1, ny1}, idx.data(), true);
    }
    w.dataset("histogram", H5T_NATIVE_UINT32, H5T_STD_U32LE, {n, nx1, ny1}, d.counts.data(), true);
    w.dataset("samples_per_bin", H5T_NATIVE_UINT64, H5T_STD_U64LE, {n}, d.samples_per_bin.data());
    w.dataset("mean_loss", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, {n}, d.mean_loss.data());
    w.dataset("std_loss", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, {n}, d.std_loss.data());
    w.dataset("mean_kick", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, {n}, d.mean_kick.data());

    const std::int32_t version = m.format_version;
    w.attr("format_version", H5T_NATIVE_INT32, H5T_STD_I32LE, &version);
    w.attr_string("material", m.material);
    w.attr_string("material_definition", m.material_definition);
    w.attr("density_g_cm3", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, &m.density_g_cm3);
    w.attr("step_m", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, &m.step_m);
    w.attr_string("binning", to_string(m.binning));
    const std::int32_t bins[2] = {d.nx, d.ny};
    w.attr("hist_bins", H5T_NATIVE_INT32, H5T_STD_I32LE, bins, 2);
    w.attr_string("generator", m.generator);
    w.attr_string("source_sha256", m.source_sha256);
    w.attr("seed", H5T_NATIVE_UINT64, H5T_STD_U64LE, &m.seed);
    w.attr_string("created_utc", m.created_utc);
    const std::int32_t charge = m.charge;
    w.attr("charge", H5T_NATIVE_INT32, H5T_STD_I32LE, &charge);
    w.attr("epsilon", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, &m.epsilon);
    w.attr("tail_fraction", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, &m.tail_fraction);
    if (!m.cache_key.empty()) w.attr_string("cache_key", m.cache_key);
    if (H5Fflush(file.get(), H5F_SCOPE_GLOBAL) < 0) w.check(-1, "the file");
    // Checked: a close that fails (a full disk) must not commit the file.
    if (H5Fclose(file.release()) < 0) w.check(-1, "the file");
  }
  out.commit();
}

TableParams load_table(const std::filesystem::path& path, double expected_step_m,
                       const TableLoadOptions& options, TableExtent* extent) {
  const std::string name = path.string();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw Error(name + ": no such table file");
  QuietHdf5 quiet;
  if (options.is_input) io::note_input(path);
  if (H5Fis_hdf5(path.c_str()) <= 0) throw Error(name + ": not an HDF5 file");
  Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!file.ok()) throw Error(name + ": cannot open HDF5 file");
  Reader r{file.get(), name, options.threads};

  TableMetadata m;
  m.format_version = r.attr_scalar<std::int32_t>("format_version", H5T_NATIVE_INT32);
  if (m.format_version != kTableFormatVersion) {
    r.fail("attribute format_version is " + std::to_string(m.format_version) +
           ", this fastmu reads version " + std::to_string(kTableFormatVersion) +
           " (rebuild the table)");
  }
  m.step_m = r.attr_scalar<double>("step_m", H5T_NATIVE_DOUBLE);
  if (!(m.step_m > 0)) r.fail("attribute step_m must be positive");
  if (expected_step_m > 0 && std::abs(m.step_m - expected_step_m) > 1e-6 * expected_step_m) {
    std::ostringstream s;
    s << "attribute step_m is " << m.step_m << " m but the run uses a step of " << expected_step_m
      << " m (build a table for that step)";
    r.fail(s.str());
  }
  m.material = r.attr_string("material");
  m.material_definition = r.attr_string("material_definition");
  m.density_g_cm3 = r.attr_scalar<double>("density_g_cm3", H5T_NATIVE_DOUBLE);
  const std::string binning = r.attr_string("binning");
  try {
    m.binning = parse_momentum_binning(binning, "attribute binning");
  } catch (const Error& e) {
    r.fail(e.what());
  }
  const auto bins = r.attr_values<std::int32_t>("hist_bins", H5T_NATIVE_INT32, 2);
  if (bins[0] < 1 || bins[1] < 1 || bins[0] > 4096 || bins[1] > 4096) {
    r.fail("attribute hist_bins must be two values in [1, 4096]");
  }
  m.generator = r.attr_string("generator");
  m.source_sha256 = r.attr_string("source_sha256");
  m.seed = r.attr_scalar<std::uint64_t>("seed", H5T_NATIVE_UINT64);
  m.created_utc = r.attr_string("created_utc");
  m.charge = r.attr_scalar<std::int32_t>("charge", H5T_NATIVE_INT32);
  if (m.charge != -1 && m.charge != 1) r.fail("attribute charge must be -1 or 1");
  m.epsilon = r.attr_scalar<double>("epsilon", H5T_NATIVE_DOUBLE);
  m.tail_fraction = r.attr_scalar<double>("tail_fraction", H5T_NATIVE_DOUBLE);
  // Optional: only the table cache's files carry it.
  if (H5Aexists(file.get(), "cache_key") > 0) m.cache_key = r.attr_string("cache_key");

  TableData d;
  d.nx = bins[0];
  d.ny = bins[1];
  // The file's bins (every dataset is checked against them), the first n of them read.
  const hsize_t all = r.length("momentum_centres");
  if (all < 1) r.fail("dataset /momentum_centres is empty");
  const hsize_t n = options.bins > 0 ? std::min<hsize_t>(all, options.bins) : all;
  const hsize_t nx1 = d.nx + 1, ny1 = d.ny + 1;
  d.p_edges = r.dataset<double>("momentum_edges", H5T_NATIVE_DOUBLE, {all + 1});
  if (extent) *extent = {static_cast<int>(all), d.p_edges.back()};
  d.p_edges.resize(n + 1);
  d.p_centres = r.dataset<double>("momentum_centres", H5T_NATIVE_DOUBLE, {all}, n);
  const auto axes = r.dataset<float>("axes", H5T_NATIVE_FLOAT, {all, 4}, n);
  d.axes.resize(n);
  std::memcpy(d.axes.data(), axes.data(), axes.size() * sizeof(float));
  AliasCells cells = AliasCells::unchecked;  // read from the file
  if (io::h5::has_dataset(file.get(), "alias_threshold") ||
      io::h5::has_dataset(file.get(), "alias_index")) {
    const auto thr = r.dataset<float>("alias_threshold", H5T_NATIVE_FLOAT, {all, nx1, ny1}, n);
    const auto idx = r.dataset<std::int32_t>("alias_index", H5T_NATIVE_INT32, {all, nx1, ny1}, n);
    d.cells.resize(thr.size());
    parallel_for_chunks(thr.size(), options.threads, std::size_t(1) << 20,
                        [&](std::size_t b, std::size_t e) {
                          for (std::size_t i = b; i < e; ++i) d.cells[i] = {thr[i], idx[i]};
                        });
    if (options.histogram) {
      d.counts = r.dataset<std::uint32_t>("histogram", H5T_NATIVE_UINT32, {all, nx1, ny1}, n);
    } else {
      H5Dclose(r.open_dataset("histogram"));  // still required of a table file
    }
  } else if (options.histogram) {
    d.counts = r.dataset<std::uint32_t>("histogram", H5T_NATIVE_UINT32, {all, nx1, ny1}, n);
    d.cells = alias_cells_of(d.counts, static_cast<std::size_t>(nx1 * ny1), options.threads);
    cells = AliasCells::valid;
  } else {
    d.cells = r.histogram_alias_cells({all, nx1, ny1}, n);
    cells = AliasCells::valid;
  }
  d.samples_per_bin = r.dataset<std::uint64_t>("samples_per_bin", H5T_NATIVE_UINT64, {all}, n);
  d.mean_loss = r.dataset<double>("mean_loss", H5T_NATIVE_DOUBLE, {all}, n);
  d.std_loss = r.dataset<double>("std_loss", H5T_NATIVE_DOUBLE, {all}, n);
  d.mean_kick = r.dataset<double>("mean_kick", H5T_NATIVE_DOUBLE, {all}, n);
  return TableParams(std::move(m), std::move(d), name, options.threads, cells);
}

TableSummary read_table_summary(const std::filesystem::path& path) {
  const std::string name = path.string();
  QuietHdf5 quiet;
  if (H5Fis_hdf5(path.c_str()) <= 0) throw Error(name + ": not an HDF5 file");
  Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!file.ok()) throw Error(name + ": cannot open HDF5 file");
  Reader r{file.get(), name, 1};
  const auto has = [&](const char* attr) { return H5Aexists(file.get(), attr) > 0; };
  TableSummary s;
  s.format_version = r.attr_scalar<std::int32_t>("format_version", H5T_NATIVE_INT32);
  if (has("material")) s.material = r.attr_string("material");
  if (has("generator")) s.generator = r.attr_string("generator");
  if (has("created_utc")) s.created_utc = r.attr_string("created_utc");
  if (has("cache_key")) s.cache_key = r.attr_string("cache_key");
  if (has("step_m")) s.step_m = r.attr_scalar<double>("step_m", H5T_NATIVE_DOUBLE);
  if (H5Lexists(file.get(), "momentum_edges", H5P_DEFAULT) > 0) {
    const hsize_t n = r.length("momentum_edges");
    if (n >= 2) {
      const auto edges = r.dataset<double>("momentum_edges", H5T_NATIVE_DOUBLE, {n});
      s.p_min = edges.front();
      s.p_max = edges.back();
      s.n_pbins = static_cast<int>(n - 1);
    }
  }
  return s;
}

}  // namespace fastmu
