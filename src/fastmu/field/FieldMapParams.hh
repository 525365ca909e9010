// Host-side owner of a field map: loaded from HDF5 (interfaces.md "Field map")
// or built from arrays, validated once, then viewed on host or device.
#pragma once

#include <array>
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "fastmu/field/FieldMapSpec.hh"
#include "fastmu/field/FieldMapView.hh"

namespace fastmu {

class FieldMapParams {
 public:
  // Dataset `B` (nx, ny, nz, 3) in tesla, attributes `min` and `max` = [x, y, z]
  // in metres. Throws fastmu::Error with one line naming the file and what is
  // wrong: missing dataset or attribute, wrong shape, fewer than 2 points on an
  // axis, non-finite values, min >= max.
  static FieldMapParams from_hdf5(const std::filesystem::path& file,
                                  FieldInterpolation interpolation = FieldInterpolation::linear,
                                  FieldSymmetry symmetry = FieldSymmetry::none);
  static FieldMapParams from_spec(const FieldMapSpec& spec) {
    return from_hdf5(spec.file, spec.interpolation, spec.symmetry);
  }

  // From arrays (e.g. Python): `b` holds nx * ny * nz * 3 values in C order
  // (ix, iy, iz, component). Same checks as from_hdf5; `source` names the
  // origin in error messages.
  FieldMapParams(std::array<std::size_t, 3> shape, std::vector<float> b, std::array<double, 3> lo,
                 std::array<double, 3> hi, FieldInterpolation interpolation, FieldSymmetry symmetry,
                 const std::string& source = "field map");

  // Writes the map in the HDF5 layout that from_hdf5 reads (atomically).
  void write_hdf5(const std::filesystem::path& file) const;

  const std::array<std::size_t, 3>& shape() const { return shape_; }
  const std::vector<float>& values() const { return b_; }
  const std::array<double, 3>& lo() const { return lo_; }
  const std::array<double, 3>& hi() const { return hi_; }
  FieldInterpolation interpolation() const { return interpolation_; }
  FieldSymmetry symmetry() const { return symmetry_; }

  // copy(const T* host, std::size_t n) -> const T*: identity on host, a device
  // copy (owned by the caller) for CUDA.
  template <class Copy>
  FieldMapView make_view(Copy&& copy) const {
    FieldMapView v;
    v.b = copy(b_.data(), b_.size());
    v.nx = static_cast<std::int32_t>(shape_[0]);
    v.ny = static_cast<std::int32_t>(shape_[1]);
    v.nz = static_cast<std::int32_t>(shape_[2]);
    v.lo = to_vec3f(lo_);
    v.hi = to_vec3f(hi_);
    v.inv_spacing = {static_cast<float>((shape_[0] - 1) / (hi_[0] - lo_[0])),
                     static_cast<float>((shape_[1] - 1) / (hi_[1] - lo_[1])),
                     static_cast<float>((shape_[2] - 1) / (hi_[2] - lo_[2]))};
    v.interpolation = interpolation_;
    v.symmetry = symmetry_;
    return v;
  }
  FieldMapView host_view() const {
    return make_view([](const float* p, std::size_t) { return p; });
  }

 private:
  std::array<std::size_t, 3> shape_{};
  std::vector<float> b_;
  std::array<double, 3> lo_{}, hi_{};
  FieldInterpolation interpolation_ = FieldInterpolation::linear;
  FieldSymmetry symmetry_ = FieldSymmetry::none;
};

}  // namespace fastmu
