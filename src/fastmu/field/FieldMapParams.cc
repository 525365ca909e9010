#include "fastmu/field/FieldMapParams.hh"

#include <cmath>

#include <fmt/format.h>

#include "fastmu/core/Error.hh"
#include "fastmu/core/InputLimits.hh"
#include "fastmu/io/AtomicOutput.hh"
#include "fastmu/io/Hdf5.hh"

namespace fastmu {

namespace {
const char* kAxis = "xyz";
}  // namespace

FieldMapParams::FieldMapParams(std::array<std::size_t, 3> shape, std::vector<float> b,
                               std::array<double, 3> lo, std::array<double, 3> hi,
                               FieldInterpolation interpolation, FieldSymmetry symmetry,
                               const std::string& source)
    : shape_(shape),
      b_(std::move(b)),
      lo_(lo),
      hi_(hi),
      interpolation_(interpolation),
      symmetry_(symmetry) {
  std::size_t n = 3;
  for (int a = 0; a < 3; ++a) {
    if (shape_[a] < 2) {
      throw Error(fmt::format("{}: B: need at least 2 grid points along {}, got {}", source,
                              kAxis[a], shape_[a]));
    }
    if (!(std::abs(lo_[a]) <= limits::kMaxCoordinate &&
          std::abs(hi_[a]) <= limits::kMaxCoordinate)) {
      throw Error(fmt::format("{}: min/max {} ({:g}, {:g}) is not within [-{:g}, {:g}] m", source,
                              kAxis[a], lo_[a], hi_[a], limits::kMaxCoordinate,
                              limits::kMaxCoordinate));
    }
    if (!std::isfinite(lo_[a]) || !std::isfinite(hi_[a]) || !(lo_[a] < hi_[a])) {
      throw Error(fmt::format("{}: min {} ({:g}) must be < max {} ({:g})", source, kAxis[a], lo_[a],
                              kAxis[a], hi_[a]));
    }
    n *= shape_[a];
  }
  if (b_.size() != n) {
    throw Error(fmt::format("{}: B: expected {} x {} x {} x 3 = {} values, got {}", source,
                            shape_[0], shape_[1], shape_[2], n, b_.size()));
  }
  if (symmetry_ == FieldSymmetry::quadrant && (lo_[0] < 0 || lo_[1] < 0)) {
    throw Error(fmt::format(
        "{}: symmetry 'quadrant' needs a map of x >= 0, y >= 0, but min = [{:g}, {:g}, {:g}]",
        source, lo_[0], lo_[1], lo_[2]));
  }
  for (std::size_t i = 0; i < b_.size(); ++i) {
    if (!(std::abs(b_[i]) <= limits::kMaxField)) {
      const std::size_t c = i % 3, p = i / 3;
      const std::size_t iz = p % shape_[2], iy = (p / shape_[2]) % shape_[1],
                        ix = p / (shape_[2] * shape_[1]);
      throw Error(
          fmt::format("{}: B[{}, {}, {}, {}] is not in [-1000, 1000] T", source, ix, iy, iz, c));
    }
  }
}

FieldMapParams FieldMapParams::from_hdf5(const std::filesystem::path& file,
                                         FieldInterpolation interpolation, FieldSymmetry symmetry) {
  const std::string source = file.string();
  if (!std::filesystem::exists(file))
    throw Error(fmt::format("{}: field map file not found", source));
  io::h5::Handle f = io::h5::open_file(source);
  const auto dims = io::h5::dataset_shape(f.get(), "B", source);
  if (dims.size() != 4 || dims[3] != 3) {
    std::string s;
    for (auto d : dims) s += (s.empty() ? "" : ", ") + std::to_string(d);
    throw Error(fmt::format("{}: dataset 'B' has shape ({}), expected (nx, ny, nz, 3)", source, s));
  }
  const double values = double(dims[0]) * double(dims[1]) * double(dims[2]) * 3.0;
  if (values > limits::kMaxFieldMapValues) {
    throw Error(
        fmt::format("{}: dataset 'B' of {} x {} x {} points holds {:g} values, more than "
                    "the {:g} a field map may have",
                    source, dims[0], dims[1], dims[2], values, limits::kMaxFieldMapValues));
  }
  std::vector<float> b = io::h5::read_dataset<float>(f.get(), "B", source);
  std::array<double, 3> lo{}, hi{};
  const auto read3 = [&](const char* name, std::array<double, 3>& out) {
    // The attributes may sit on the dataset or on the file's root group.
    io::h5::Handle d(H5Dopen2(f.get(), "B", H5P_DEFAULT));
    const hid_t holder = io::h5::has_attribute(d.get(), name) ? d.get() : f.get();
    const auto v = io::h5::read_double_array_attribute(holder, name, source);
    if (v.size() != 3) {
      throw Error(fmt::format("{}: attribute '{}' must hold 3 values [x, y, z], got {}", source,
                              name, v.size()));
    }
    for (int a = 0; a < 3; ++a) {
      if (!std::isfinite(v[a]))
        throw Error(fmt::format("{}: attribute '{}' is not finite", source, name));
      out[a] = v[a];
    }
  };
  read3("min", lo);
  read3("max", hi);
  return FieldMapParams({dims[0], dims[1], dims[2]}, std::move(b), lo, hi, interpolation, symmetry,
                        source);
}

void FieldMapParams::write_hdf5(const std::filesystem::path& file) const {
  io::AtomicOutput out(file);
  out.write([&](const std::filesystem::path& temp) {
    io::h5::Handle f = io::h5::create_file(temp.string());
    io::h5::write_dataset<float>(f.get(), "B", {shape_[0], shape_[1], shape_[2], 3}, b_.data());
    // On the dataset and on the root group: readers may look at either.
    io::h5::Handle d(H5Dopen2(f.get(), "B", H5P_DEFAULT));
    for (hid_t holder : {f.get(), d.get()}) {
      io::h5::write_attribute(holder, "min", std::vector<double>(lo_.begin(), lo_.end()));
      io::h5::write_attribute(holder, "max", std::vector<double>(hi_.begin(), hi_.end()));
    }
    d.reset();
    io::h5::close_written_file(f);
  });
}

}  // namespace fastmu
