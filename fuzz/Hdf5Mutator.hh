// Structure-aware mutation of HDF5 files for the fuzzers of fastmu's HDF5
// readers (muons, tables, field maps). Fuzzing the raw bytes of an HDF5 file
// mostly exercises libhdf5's own parser (Debian's, not ours, and not
// instrumented); what the fastmu readers must survive is a well-formed file
// with the wrong content. So each input is a list of edits of a valid
// template file: delete a dataset or attribute, replace one with another
// rank, shape, type or values (NaN, infinities, huge and tiny numbers,
// strings), or overwrite a dataset's values keeping its shape.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include <fuzzer/FuzzedDataProvider.h>
#include <hdf5.h>

namespace fastmu::fuzz {

namespace detail {

inline std::vector<std::string> link_names(hid_t group) {
  std::vector<std::string> out;
  H5Literate(
      group, H5_INDEX_NAME, H5_ITER_NATIVE, nullptr,
      [](hid_t, const char* name, const H5L_info_t*, void* op) -> herr_t {
        static_cast<std::vector<std::string>*>(op)->emplace_back(name);
        return 0;
      },
      &out);
  return out;
}

inline std::vector<std::string> attribute_names(hid_t obj) {
  std::vector<std::string> out;
  H5Aiterate2(
      obj, H5_INDEX_NAME, H5_ITER_NATIVE, nullptr,
      [](hid_t, const char* name, const H5A_info_t*, void* op) -> herr_t {
        static_cast<std::vector<std::string>*>(op)->emplace_back(name);
        return 0;
      },
      &out);
  return out;
}

inline const std::string& pick(FuzzedDataProvider& in, const std::vector<std::string>& names) {
  return names[in.ConsumeIntegralInRange<std::size_t>(0, names.size() - 1)];
}

inline double fuzz_value(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange<int>(0, 7)) {
    case 0:
      return std::numeric_limits<double>::quiet_NaN();
    case 1:
      return std::numeric_limits<double>::infinity();
    case 2:
      return -std::numeric_limits<double>::infinity();
    case 3:
      return in.ConsumeBool() ? 1e300 : -1e300;
    case 4:
      return in.ConsumeIntegralInRange<int>(-20, 20);
    case 5:
      return in.ConsumeBool() ? 13.0 : -13.0;
    default:
      return in.ConsumeFloatingPoint<double>();
  }
}

struct Shape {
  std::vector<hsize_t> dims;
  hsize_t size() const {
    hsize_t n = 1;
    for (auto d : dims) n *= d;
    return n;
  }
};

inline Shape fuzz_shape(FuzzedDataProvider& in) {
  Shape s;
  const int rank = in.ConsumeIntegralInRange<int>(0, 4);
  for (int i = 0; i < rank; ++i) s.dims.push_back(in.ConsumeIntegralInRange<hsize_t>(0, 12));
  return s;
}

inline hid_t fuzz_type(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange<int>(0, 5)) {
    case 0:
      return H5T_NATIVE_INT32;
    case 1:
      return H5T_NATIVE_UINT64;
    case 2:
      return H5T_NATIVE_FLOAT;
    case 3:
      return H5T_NATIVE_UINT8;
    case 4:
      return H5T_C_S1;  // a string
    default:
      return H5T_NATIVE_DOUBLE;
  }
}

// Writes `values` (converted by HDF5) or a string of the fuzzer's into a new
// dataset or attribute `name` of `parent`.
inline void create(hid_t parent, const std::string& name, bool attribute, FuzzedDataProvider& in) {
  const hid_t type = fuzz_type(in);
  if (type == H5T_C_S1) {
    const std::string text = in.ConsumeRandomLengthString(64);
    hid_t st = H5Tcopy(H5T_C_S1);
    H5Tset_size(st, std::max<std::size_t>(1, text.size()));
    hid_t space = H5Screate(H5S_SCALAR);
    std::string padded = text;
    padded.resize(std::max<std::size_t>(1, text.size()), '\0');
    if (attribute) {
      hid_t a = H5Acreate2(parent, name.c_str(), st, space, H5P_DEFAULT, H5P_DEFAULT);
      if (a >= 0) H5Awrite(a, st, padded.data()), H5Aclose(a);
    } else {
      hid_t d = H5Dcreate2(parent, name.c_str(), st, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
      if (d >= 0) H5Dwrite(d, st, H5S_ALL, H5S_ALL, H5P_DEFAULT, padded.data()), H5Dclose(d);
    }
    H5Sclose(space);
    H5Tclose(st);
    return;
  }
  const Shape shape = fuzz_shape(in);
  hid_t space = shape.dims.empty() ? H5Screate(H5S_SCALAR)
                                   : H5Screate_simple(static_cast<int>(shape.dims.size()),
                                                      shape.dims.data(), nullptr);
  std::vector<double> values(shape.size());
  for (double& v : values) v = fuzz_value(in);
  // Out-of-range conversions to integers are clipped by HDF5 (no exception handler set).
  if (attribute) {
    hid_t a = H5Acreate2(parent, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT);
    if (a >= 0) H5Awrite(a, H5T_NATIVE_DOUBLE, values.data()), H5Aclose(a);
  } else {
    hid_t d = H5Dcreate2(parent, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (d >= 0) {
      if (!values.empty())
        H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
      H5Dclose(d);
    }
  }
  H5Sclose(space);
}

}  // namespace detail

// Copies `templ` to `out` and applies up to 6 edits chosen by `in`. Attributes
// of the root group and of every root dataset can be edited; `extra_names`
// are names a reader looks for that the template may lack (they can be created).
inline void mutate_hdf5(const std::filesystem::path& templ, const std::filesystem::path& out,
                        FuzzedDataProvider& in, const std::vector<std::string>& extra_names = {}) {
  std::filesystem::copy_file(templ, out, std::filesystem::copy_options::overwrite_existing);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  hid_t file = H5Fopen(out.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  if (file < 0) return;
  const int edits = in.ConsumeIntegralInRange<int>(1, 6);
  for (int e = 0; e < edits && in.remaining_bytes() > 0; ++e) {
    auto datasets = detail::link_names(file);
    // The object whose attributes or which dataset to edit: root or a dataset.
    const bool on_dataset = !datasets.empty() && in.ConsumeBool();
    const std::string ds_name = on_dataset ? detail::pick(in, datasets) : std::string();
    const int op = in.ConsumeIntegralInRange<int>(0, 4);
    if (op <= 1) {  // an attribute: delete or replace (or create a missing one)
      hid_t obj = on_dataset ? H5Oopen(file, ds_name.c_str(), H5P_DEFAULT)
                             : H5Gopen2(file, "/", H5P_DEFAULT);
      if (obj < 0) continue;
      auto attrs = detail::attribute_names(obj);
      attrs.insert(attrs.end(), extra_names.begin(), extra_names.end());
      if (!attrs.empty()) {
        const std::string name = detail::pick(in, attrs);
        if (H5Aexists(obj, name.c_str()) > 0) H5Adelete(obj, name.c_str());
        if (op == 1) detail::create(obj, name, true, in);
      }
      H5Oclose(obj);
    } else if (op <= 3) {  // a dataset: delete or replace (or create a missing one)
      datasets.insert(datasets.end(), extra_names.begin(), extra_names.end());
      if (datasets.empty()) continue;
      const std::string name = detail::pick(in, datasets);
      if (H5Lexists(file, name.c_str(), H5P_DEFAULT) > 0)
        H5Ldelete(file, name.c_str(), H5P_DEFAULT);
      if (op == 3) detail::create(file, name, false, in);
    } else if (on_dataset) {  // new values, same shape and type
      hid_t d = H5Dopen2(file, ds_name.c_str(), H5P_DEFAULT);
      if (d < 0) continue;
      hid_t space = H5Dget_space(d);
      const hssize_t n = H5Sget_simple_extent_npoints(space);
      hid_t type = H5Dget_type(d);
      if (n > 0 && n < (1 << 22) && H5Tget_class(type) != H5T_STRING) {
        std::vector<double> values(static_cast<std::size_t>(n));
        H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
        const int changes = in.ConsumeIntegralInRange<int>(1, 8);
        for (int c = 0; c < changes; ++c) {
          values[in.ConsumeIntegralInRange<std::size_t>(0, values.size() - 1)] =
              detail::fuzz_value(in);
        }
        H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
      }
      H5Tclose(type);
      H5Sclose(space);
      H5Dclose(d);
    }
  }
  H5Fclose(file);
}

// Readers must close every HDF5 object they open, also when they throw: a
// leaked id keeps the file open (and its memory) for the life of the process.
inline void require_no_open_hdf5_objects(const char* reader) {
  const ssize_t open = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL);
  if (open > 0) {
    std::fprintf(stderr, "%s left %zd HDF5 object(s) open\n", reader, open);
    std::abort();
  }
}

}  // namespace fastmu::fuzz
