// Thin RAII helpers over the HDF5 C API (files readable with h5py).
#pragma once

#include <hdf5.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace fastmu::io::h5 {

// Owns one HDF5 identifier and closes it with the matching H5?close.
class Handle {
 public:
  Handle() = default;
  explicit Handle(hid_t id) : id_(id) {}
  ~Handle() { reset(); }
  Handle(Handle&& o) noexcept : id_(std::exchange(o.id_, H5I_INVALID_HID)) {}
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = std::exchange(o.id_, H5I_INVALID_HID);
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  void reset();
  hid_t release() { return std::exchange(id_, H5I_INVALID_HID); }  // the caller closes it

 private:
  hid_t id_ = H5I_INVALID_HID;
};

// Silences HDF5's own error printing: fastmu reports one line per error itself.
void silence_hdf5_errors();

// Opens an existing file read-only; throws fastmu::Error naming the path.
Handle open_file(const std::string& path);
// Creates (truncates) a file for writing; throws fastmu::Error naming the path.
Handle create_file(const std::string& path);
// Flushes and closes a written file, checked: a full disk or a failed write
// throws fastmu::Error (the Handle's own close ignores errors).
void close_written_file(Handle& file);
// Keeps HDF5 from closing files at exit: the library (1.10) crashes there
// on a file whose close failed (a full disk). Call first in main, before
// any other HDF5 call; every file fastmu opens is closed by its Handle.
void no_close_at_exit();

// Whether a link `name` exists; a link that leaves the file (external, soft)
// counts as present without being followed (check_local_dataset refuses it).
bool has_dataset(hid_t file, const std::string& name);
// Throws fastmu::Error naming `source` unless `name` is reached through hard
// links only and its data lie in this file: external links (another file
// the user did not name), soft links (fastmu reads a dataset under its own
// name), external storage (raw data in other files) and virtual datasets are
// refused, as careful readers of untrusted files do. A missing name passes
// (the caller reports it).
void check_local_dataset(hid_t file, const std::string& name, const std::string& source);
bool has_attribute(hid_t obj, const std::string& name);

// Shape of a dataset; throws fastmu::Error("<file>: dataset '<name>' is missing") if absent.
std::vector<hsize_t> dataset_shape(hid_t file, const std::string& name, const std::string& source);

// Reads a whole numeric dataset converted to T (double, float, int32, uint64...).
template <class T>
std::vector<T> read_dataset(hid_t file, const std::string& name, const std::string& source);

// Compression of written datasets. Large outputs (muon files, samples) are
// written uncompressed by default: one thread of zlib runs at ~50 MB/s, far
// below the transport, and inflating gzip tables was most of `fastmu run`'s
// set-up (BENCHMARKS.md); `--compression` lets the user trade time for size.
struct Compression {
  enum class Kind { none, gzip, szip } kind = Kind::none;
  int level = 1;  // gzip level 1..9
};
// "none" | "gzip" | "gzip:L" (L = 1..9) | "szip" (libaec, in Debian's HDF5);
// throws fastmu::Error naming the option otherwise.
Compression parse_compression(const std::string& text);
// Adds the filters of `c` (with byte shuffle for gzip) to a dataset-creation
// property list that has a chunk size.
void apply_compression(hid_t dcpl, const Compression& c, std::size_t element_size);

// Writes a numeric dataset of the given shape: contiguous, or chunked and
// compressed (when large) as `compression` says.
template <class T>
void write_dataset(hid_t file, const std::string& name, const std::vector<hsize_t>& shape,
                   const T* data);
template <class T>
void write_dataset(hid_t file, const std::string& name, const std::vector<hsize_t>& shape,
                   const T* data, const Compression& compression);

// Attributes on a file, group or dataset.
void write_attribute(hid_t obj, const std::string& name, const std::string& value);
void write_attribute(hid_t obj, const std::string& name, double value);
void write_attribute(hid_t obj, const std::string& name, long long value);
void write_attribute(hid_t obj, const std::string& name, const std::vector<double>& values);
// A string attribute of one element (scalar, or an array of one), fixed or
// variable length; any other shape is refused with one line.
std::string read_string_attribute(hid_t obj, const std::string& name, const std::string& source);
// Every string of a string attribute of any shape, in storage order.
std::vector<std::string> read_string_array_attribute(hid_t obj, const std::string& name,
                                                     const std::string& source);
// A list attribute ("columns"): one comma-separated string, or an array of
// strings (joined with commas).
std::string read_string_list_attribute(hid_t obj, const std::string& name,
                                       const std::string& source);
double read_double_attribute(hid_t obj, const std::string& name, const std::string& source);
long long read_int_attribute(hid_t obj, const std::string& name, const std::string& source);
std::vector<double> read_double_array_attribute(hid_t obj, const std::string& name,
                                                const std::string& source);

}  // namespace fastmu::io::h5
