#include "fastmu/io/Hdf5.hh"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include "fastmu/core/Error.hh"
#include "fastmu/io/InputFiles.hh"

namespace fastmu::io::h5 {
namespace {

template <class T>
hid_t native_type() {
  if constexpr (std::is_same_v<T, double>) return H5T_NATIVE_DOUBLE;
  else if constexpr (std::is_same_v<T, float>) return H5T_NATIVE_FLOAT;
  else if constexpr (std::is_same_v<T, std::int32_t>) return H5T_NATIVE_INT32;
  else if constexpr (std::is_same_v<T, std::uint32_t>) return H5T_NATIVE_UINT32;
  else if constexpr (std::is_same_v<T, std::int64_t>) return H5T_NATIVE_INT64;
  else if constexpr (std::is_same_v<T, std::uint64_t>) return H5T_NATIVE_UINT64;
  else static_assert(sizeof(T) == 0, "unsupported HDF5 element type");
}

Handle open_attribute(hid_t obj, const std::string& name, const std::string& source) {
  if (!has_attribute(obj, name)) throw Error(source + ": attribute '" + name + "' is missing");
  Handle a(H5Aopen(obj, name.c_str(), H5P_DEFAULT));
  if (!a.valid()) throw Error(source + ": cannot open attribute '" + name + "'");
  return a;
}

void check(herr_t status, const std::string& what) {
  if (status < 0) throw Error("HDF5 error: " + what);
}

// As check(), for writes: the system's reason when a write failed for lack
// of space (HDF5 keeps errno of its failed write call).
void check_write(herr_t status, const std::string& what) {
  if (status >= 0) return;
  const int e = errno;
  std::string reason;
  if (e == ENOSPC || e == EFBIG || e == EDQUOT || e == EIO || e == EROFS) {
    reason = std::string(": ") + std::strerror(e) +
             (e == EIO || e == EROFS ? "" : " (the disk is full or a file size limit is reached)");
  }
  throw Error("HDF5 error: " + what + reason);
}

}  // namespace

void Handle::reset() {
  if (id_ < 0) return;
  switch (H5Iget_type(id_)) {
    case H5I_FILE:
      H5Fclose(id_);
      break;
    case H5I_GROUP:
      H5Gclose(id_);
      break;
    case H5I_DATASET:
      H5Dclose(id_);
      break;
    case H5I_DATASPACE:
      H5Sclose(id_);
      break;
    case H5I_DATATYPE:
      H5Tclose(id_);
      break;
    case H5I_ATTR:
      H5Aclose(id_);
      break;
    case H5I_GENPROP_LST:
      H5Pclose(id_);
      break;
    default:
      break;
  }
  id_ = H5I_INVALID_HID;
}

void close_written_file(Handle& file) {
  if (!file.valid()) return;
  check_write(H5Fflush(file.get(), H5F_SCOPE_GLOBAL), "cannot write the file");
  const hid_t id = file.release();
  check_write(H5Fclose(id), "cannot close the file");
}

void no_close_at_exit() { H5dont_atexit(); }

void silence_hdf5_errors() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

Handle open_file(const std::string& path) {
  silence_hdf5_errors();
  note_input(path);
  if (H5Fis_hdf5(path.c_str()) <= 0) {
    throw Error(path + ": not a readable HDF5 file");
  }
  Handle f(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  if (!f.valid()) throw Error(path + ": cannot open HDF5 file");
  return f;
}

Handle create_file(const std::string& path) {
  silence_hdf5_errors();
  Handle f(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
  if (!f.valid()) throw Error(path + ": cannot create HDF5 file");
  return f;
}

namespace {

// The first link on the way to `name` that is not a hard link, its path in
// `where`; H5L_TYPE_HARD when all are hard, H5L_TYPE_ERROR when one is
// missing. Each component is looked at before it is followed.
H5L_type_t first_foreign_link(hid_t file, const std::string& name, std::string& where) {
  std::string prefix;
  std::size_t from = 0;
  while (from <= name.size()) {
    const std::size_t slash = std::min(name.find('/', from), name.size());
    const std::string part = name.substr(from, slash - from);
    from = slash + 1;
    if (part.empty() || part == ".") continue;
    prefix += (prefix.empty() && name[0] != '/' ? "" : "/") + part;
    if (H5Lexists(file, prefix.c_str(), H5P_DEFAULT) <= 0) return H5L_TYPE_ERROR;
    H5L_info_t info{};
    if (H5Lget_info(file, prefix.c_str(), &info, H5P_DEFAULT) < 0) return H5L_TYPE_ERROR;
    if (info.type != H5L_TYPE_HARD) {
      where = prefix;
      return info.type;
    }
  }
  return H5L_TYPE_HARD;
}

}  // namespace

bool has_dataset(hid_t file, const std::string& name) {
  std::string where;
  const H5L_type_t kind = first_foreign_link(file, name, where);
  if (kind == H5L_TYPE_ERROR) return false;
  if (kind != H5L_TYPE_HARD) return true;  // refused, with its reason, when opened
  return H5Oexists_by_name(file, name.c_str(), H5P_DEFAULT) > 0;
}

void check_local_dataset(hid_t file, const std::string& name, const std::string& source) {
  std::string where;
  const H5L_type_t kind = first_foreign_link(file, name, where);
  const std::string what = source + ": dataset '" + name + "'";
  if (kind == H5L_TYPE_EXTERNAL) {
    throw Error(what + ": '" + where +
                "' is an external link to another file (not followed; copy the data into "
                "this file, e.g. with h5copy)");
  }
  if (kind == H5L_TYPE_SOFT) {
    throw Error(what + ": '" + where +
                "' is a soft link (not followed; store the dataset under this name)");
  }
  if (kind != H5L_TYPE_HARD && kind != H5L_TYPE_ERROR) {
    throw Error(what + ": '" + where + "' is a user-defined link (not followed)");
  }
  if (kind == H5L_TYPE_ERROR || H5Oexists_by_name(file, name.c_str(), H5P_DEFAULT) <= 0) return;
  Handle d(H5Dopen2(file, name.c_str(), H5P_DEFAULT));
  if (!d.valid()) return;  // the caller's open reports it
  Handle dcpl(H5Dget_create_plist(d.get()));
  if (!dcpl.valid()) throw Error(what + ": cannot read its storage layout");
  if (H5Pget_external_count(dcpl.get()) != 0) {
    throw Error(what + " keeps its data in external files (not read; store it in this file)");
  }
  const H5D_layout_t layout = H5Pget_layout(dcpl.get());
  if (layout == H5D_VIRTUAL) {
    throw Error(what +
                " is a virtual dataset mapping other files (not read; store it in this "
                "file)");
  }
  if (layout != H5D_COMPACT && layout != H5D_CONTIGUOUS && layout != H5D_CHUNKED) {
    throw Error(what + ": unknown storage layout");
  }
}

bool has_attribute(hid_t obj, const std::string& name) { return H5Aexists(obj, name.c_str()) > 0; }

std::vector<hsize_t> dataset_shape(hid_t file, const std::string& name, const std::string& source) {
  if (!has_dataset(file, name)) throw Error(source + ": dataset '" + name + "' is missing");
  check_local_dataset(file, name, source);
  Handle d(H5Dopen2(file, name.c_str(), H5P_DEFAULT));
  if (!d.valid()) throw Error(source + ": cannot open dataset '" + name + "'");
  Handle space(H5Dget_space(d.get()));
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 0) throw Error(source + ": dataset '" + name + "' has no simple shape");
  std::vector<hsize_t> dims(rank);
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  return dims;
}

template <class T>
std::vector<T> read_dataset(hid_t file, const std::string& name, const std::string& source) {
  const auto dims = dataset_shape(file, name, source);
  std::size_t n = 1;
  for (auto d : dims) n *= d;
  Handle d(H5Dopen2(file, name.c_str(), H5P_DEFAULT));
  Handle type(H5Dget_type(d.get()));
  const H5T_class_t cls = H5Tget_class(type.get());
  if (cls != H5T_INTEGER && cls != H5T_FLOAT) {
    throw Error(source + ": dataset '" + name + "' is not numeric");
  }
  std::vector<T> out(n);
  if (n > 0 && H5Dread(d.get(), native_type<T>(), H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0) {
    throw Error(source + ": cannot read dataset '" + name + "'");
  }
  return out;
}

Compression parse_compression(const std::string& text) {
  Compression c;
  if (text == "none") return c;
  if (text == "szip") {
    c.kind = Compression::Kind::szip;
    return c;
  }
  if (text == "gzip") {
    c.kind = Compression::Kind::gzip;
    return c;
  }
  if (text.size() == 6 && text.rfind("gzip:", 0) == 0 && text[5] >= '1' && text[5] <= '9') {
    c.kind = Compression::Kind::gzip;
    c.level = text[5] - '0';
    return c;
  }
  throw Error("--compression: '" + text + "' is not none, gzip, gzip:1..9 or szip");
}

void apply_compression(hid_t dcpl, const Compression& c, std::size_t element_size) {
  switch (c.kind) {
    case Compression::Kind::none:
      return;
    case Compression::Kind::gzip:
      // Byte shuffle groups the exponent bytes of floats: smaller and faster deflate.
      if (element_size > 1) check(H5Pset_shuffle(dcpl), "cannot set the shuffle filter");
      check(H5Pset_deflate(dcpl, static_cast<unsigned>(c.level)), "cannot set gzip compression");
      return;
    case Compression::Kind::szip:
      if (H5Zfilter_avail(H5Z_FILTER_SZIP) <= 0)
        throw Error("--compression szip: this HDF5 has no szip");
      check(H5Pset_szip(dcpl, H5_SZIP_NN_OPTION_MASK, 32), "cannot set szip compression");
      return;
  }
}

template <class T>
void write_dataset(hid_t file, const std::string& name, const std::vector<hsize_t>& shape,
                   const T* data) {
  write_dataset(file, name, shape, data, Compression{});
}

template <class T>
void write_dataset(hid_t file, const std::string& name, const std::vector<hsize_t>& shape,
                   const T* data, const Compression& compression) {
  Handle space(H5Screate_simple(static_cast<int>(shape.size()), shape.data(), nullptr));
  Handle plist(H5Pcreate(H5P_DATASET_CREATE));
  H5Pset_obj_track_times(plist.get(), false);  // equal data, equal bytes
  std::size_t n = 1;
  for (auto d : shape) n *= d;
  if (n >= 4096 && !shape.empty() && compression.kind != Compression::Kind::none) {
    std::vector<hsize_t> chunk(shape);
    // Chunks of at most ~1 MiB along the first axis.
    std::size_t row = n / shape[0];
    chunk[0] =
        std::max<hsize_t>(1, std::min<hsize_t>(shape[0], (1u << 20) / (sizeof(T) * row) + 1));
    H5Pset_chunk(plist.get(), static_cast<int>(chunk.size()), chunk.data());
    if (compression.kind == Compression::Kind::gzip) {
      H5Pset_deflate(plist.get(),
                     static_cast<unsigned>(compression.level));  // as before: no shuffle
    } else {
      apply_compression(plist.get(), compression, sizeof(T));
    }
  }
  Handle d(H5Dcreate2(file, name.c_str(), native_type<T>(), space.get(), H5P_DEFAULT, plist.get(),
                      H5P_DEFAULT));
  if (!d.valid()) throw Error("cannot create HDF5 dataset '" + name + "'");
  check_write(H5Dwrite(d.get(), native_type<T>(), H5S_ALL, H5S_ALL, H5P_DEFAULT, data),
              "cannot write dataset '" + name + "'");
}

void write_attribute(hid_t obj, const std::string& name, const std::string& value) {
  Handle type(H5Tcopy(H5T_C_S1));
  H5Tset_size(type.get(), value.empty() ? 1 : value.size());
  H5Tset_strpad(type.get(), H5T_STR_NULLPAD);
  H5Tset_cset(type.get(), H5T_CSET_UTF8);
  Handle space(H5Screate(H5S_SCALAR));
  Handle a(H5Acreate2(obj, name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT));
  check_write(H5Awrite(a.get(), type.get(), value.empty() ? "" : value.data()),
              "cannot write attribute '" + name + "'");
}

void write_attribute(hid_t obj, const std::string& name, double value) {
  Handle space(H5Screate(H5S_SCALAR));
  Handle a(H5Acreate2(obj, name.c_str(), H5T_NATIVE_DOUBLE, space.get(), H5P_DEFAULT, H5P_DEFAULT));
  check_write(H5Awrite(a.get(), H5T_NATIVE_DOUBLE, &value),
              "cannot write attribute '" + name + "'");
}

void write_attribute(hid_t obj, const std::string& name, long long value) {
  Handle space(H5Screate(H5S_SCALAR));
  Handle a(H5Acreate2(obj, name.c_str(), H5T_NATIVE_LLONG, space.get(), H5P_DEFAULT, H5P_DEFAULT));
  check_write(H5Awrite(a.get(), H5T_NATIVE_LLONG, &value), "cannot write attribute '" + name + "'");
}

void write_attribute(hid_t obj, const std::string& name, const std::vector<double>& values) {
  const hsize_t n = values.size();
  Handle space(H5Screate_simple(1, &n, nullptr));
  Handle a(H5Acreate2(obj, name.c_str(), H5T_NATIVE_DOUBLE, space.get(), H5P_DEFAULT, H5P_DEFAULT));
  check_write(H5Awrite(a.get(), H5T_NATIVE_DOUBLE, values.data()),
              "cannot write attribute '" + name + "'");
}

// Any string attribute: a scalar or an array of any rank, fixed or variable
// length (h5py writes `attrs['x'] = np.array([b'a', b'b'])` as a 1-D array of
// fixed-length strings), read element by element into buffers of the size
// its type and dataspace give, with bounds on both.
std::vector<std::string> read_string_array_attribute(hid_t obj, const std::string& name,
                                                     const std::string& source) {
  constexpr hssize_t kMaxStrings = 100000;
  constexpr std::size_t kMaxStringBytes = 1 << 20;
  const std::string what = source + ": attribute '" + name + "'";
  Handle a = open_attribute(obj, name, source);
  Handle type(H5Aget_type(a.get()));
  if (!type.valid() || H5Tget_class(type.get()) != H5T_STRING)
    throw Error(what + " is not a string");
  Handle space(H5Aget_space(a.get()));
  const hssize_t n = space.valid() ? H5Sget_simple_extent_npoints(space.get()) : -1;
  if (n < 0 || n > kMaxStrings) {
    throw Error(what + " holds " + std::to_string(n) + " strings, not 0 to " +
                std::to_string(kMaxStrings));
  }
  std::vector<std::string> out;
  if (n == 0) return out;
  const auto count = static_cast<std::size_t>(n);
  Handle mem(H5Tcopy(H5T_C_S1));
  H5Tset_cset(mem.get(), H5Tget_cset(type.get()));  // HDF5 converts no character sets
  if (H5Tis_variable_str(type.get()) > 0) {
    H5Tset_size(mem.get(), H5T_VARIABLE);
    std::vector<char*> values(count, nullptr);
    const herr_t rc = H5Aread(a.get(), mem.get(), values.data());
    for (char* v : values) {
      if (rc >= 0) out.emplace_back(v ? v : "");
      H5free_memory(v);
    }
    if (rc < 0) throw Error("cannot read " + what);
    return out;
  }
  const std::size_t size = H5Tget_size(type.get());
  if (size == 0 || size > kMaxStringBytes) {
    throw Error(what + ": strings of " + std::to_string(size) + " bytes, not 1 to " +
                std::to_string(kMaxStringBytes));
  }
  H5Tset_size(mem.get(), size);
  H5Tset_strpad(mem.get(), H5T_STR_NULLPAD);
  std::vector<char> buf(size * count, '\0');
  check(H5Aread(a.get(), mem.get(), buf.data()), "cannot read attribute '" + name + "'");
  for (std::size_t k = 0; k < count; ++k) {
    const char* p = buf.data() + k * size;
    std::size_t len = 0;
    while (len < size && p[len] != '\0') ++len;
    out.emplace_back(p, len);
  }
  return out;
}

std::string read_string_attribute(hid_t obj, const std::string& name, const std::string& source) {
  std::vector<std::string> v = read_string_array_attribute(obj, name, source);
  if (v.size() != 1) {
    throw Error(source + ": attribute '" + name + "' holds " + std::to_string(v.size()) +
                " strings, expected one");
  }
  return std::move(v[0]);
}

std::string read_string_list_attribute(hid_t obj, const std::string& name,
                                       const std::string& source) {
  std::string joined;
  for (const std::string& s : read_string_array_attribute(obj, name, source)) {
    joined += (joined.empty() ? "" : ",") + s;
  }
  return joined;
}

std::vector<double> read_double_array_attribute(hid_t obj, const std::string& name,
                                                const std::string& source) {
  Handle a = open_attribute(obj, name, source);
  Handle type(H5Aget_type(a.get()));
  const H5T_class_t cls = H5Tget_class(type.get());
  if (cls != H5T_INTEGER && cls != H5T_FLOAT) {
    throw Error(source + ": attribute '" + name + "' is not numeric");
  }
  Handle space(H5Aget_space(a.get()));
  const hssize_t n = H5Sget_simple_extent_npoints(space.get());
  std::vector<double> out(n > 0 ? n : 0);
  if (!out.empty()) {
    check(H5Aread(a.get(), H5T_NATIVE_DOUBLE, out.data()), "cannot read attribute '" + name + "'");
  }
  return out;
}

double read_double_attribute(hid_t obj, const std::string& name, const std::string& source) {
  const auto v = read_double_array_attribute(obj, name, source);
  if (v.size() != 1) throw Error(source + ": attribute '" + name + "' is not a scalar");
  return v[0];
}

long long read_int_attribute(hid_t obj, const std::string& name, const std::string& source) {
  Handle a = open_attribute(obj, name, source);
  long long value = 0;
  Handle space(H5Aget_space(a.get()));
  if (H5Sget_simple_extent_npoints(space.get()) != 1) {
    throw Error(source + ": attribute '" + name + "' is not a scalar");
  }
  check(H5Aread(a.get(), H5T_NATIVE_LLONG, &value), "cannot read attribute '" + name + "'");
  return value;
}

template std::vector<double> read_dataset<double>(hid_t, const std::string&, const std::string&);
template std::vector<float> read_dataset<float>(hid_t, const std::string&, const std::string&);
template std::vector<std::int32_t> read_dataset<std::int32_t>(hid_t, const std::string&,
                                                              const std::string&);
template std::vector<std::uint32_t> read_dataset<std::uint32_t>(hid_t, const std::string&,
                                                                const std::string&);
template std::vector<std::int64_t> read_dataset<std::int64_t>(hid_t, const std::string&,
                                                              const std::string&);
template std::vector<std::uint64_t> read_dataset<std::uint64_t>(hid_t, const std::string&,
                                                                const std::string&);
template void write_dataset<double>(hid_t, const std::string&, const std::vector<hsize_t>&,
                                    const double*);
template void write_dataset<double>(hid_t, const std::string&, const std::vector<hsize_t>&,
                                    const double*, const Compression&);
template void write_dataset<float>(hid_t, const std::string&, const std::vector<hsize_t>&,
                                   const float*, const Compression&);
template void write_dataset<float>(hid_t, const std::string&, const std::vector<hsize_t>&,
                                   const float*);
template void write_dataset<std::int32_t>(hid_t, const std::string&, const std::vector<hsize_t>&,
                                          const std::int32_t*);
template void write_dataset<std::uint32_t>(hid_t, const std::string&, const std::vector<hsize_t>&,
                                           const std::uint32_t*);
template void write_dataset<std::int64_t>(hid_t, const std::string&, const std::vector<hsize_t>&,
                                          const std::int64_t*);
template void write_dataset<std::uint64_t>(hid_t, const std::string&, const std::vector<hsize_t>&,
                                           const std::uint64_t*);

}  // namespace fastmu::io::h5
