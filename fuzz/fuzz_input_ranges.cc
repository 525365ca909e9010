// Fuzzes the range checks where numbers enter (core/InputLimits.hh): the
// bytes choose one entry point and the values handed to it, as doubles and
// short strings: custom materials (density, mass fractions), per-material
// steps (--material-step), field-map shapes and extents, terrain height
// maps (CSV text) and HDF5 string attributes of any shape and string type.
// Each either returns or throws fastmu::Error.
#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "FuzzSupport.hh"
#include "fastmu/core/Error.hh"
#include "fastmu/field/FieldMapParams.hh"
#include "fastmu/geometry/HeightMap.hh"
#include "fastmu/io/Hdf5.hh"
#include "fastmu/materials/Material.hh"
#include "fastmu/transport/step/StepLengths.hh"

namespace {

// Reads the input front to back; past its end, zeros.
struct Bytes {
  const std::uint8_t* data;
  std::size_t size, at = 0;
  std::uint8_t byte() { return at < size ? data[at++] : 0; }
  double number() {
    double v = 0;
    std::uint8_t raw[8] = {};
    for (auto& b : raw) b = byte();
    std::memcpy(&v, raw, sizeof v);
    return v;
  }
  std::string text(std::size_t most) {
    std::string s;
    const std::size_t n = byte() % (most + 1);
    for (std::size_t k = 0; k < n && at < size; ++k) s += static_cast<char>(byte());
    return s;
  }
};

void custom_material(Bytes& in) {
  fastmu::MaterialLibrary lib;
  std::map<std::string, double> fractions;
  const char* symbols[] = {"H", "C", "O", "Fe", "Pb", "Xx"};
  for (int k = 1 + in.byte() % 3; k > 0; --k) fractions[symbols[in.byte() % 6]] = in.number();
  lib.add_custom("fuzzed", in.number(), fractions);
}

void material_step(Bytes& in) { fastmu::parse_material_step(in.text(40), "--material-step"); }

void field_map(Bytes& in) {
  std::array<std::size_t, 3> shape{};
  for (auto& n : shape) n = in.byte() % 5;
  std::array<double, 3> lo{}, hi{};
  for (auto& v : lo) v = in.number();
  for (auto& v : hi) v = in.number();
  std::vector<float> b(shape[0] * shape[1] * shape[2] * 3 + (in.byte() % 2));
  for (auto& v : b) v = static_cast<float>(in.number());
  fastmu::FieldMapParams(shape, std::move(b), lo, hi, fastmu::FieldInterpolation::linear,
                         fastmu::FieldSymmetry::none, "fuzzed");
}

void height_map(Bytes& in) {
  const auto path = fastmu::fuzz::scratch("heights.csv");
  std::ofstream(path, std::ios::trunc) << in.text(200);
  fastmu::read_height_map(path, "height");
}

// A string attribute whose dataspace (scalar, or up to 3 dimensions of up to
// 4) and string type (fixed length 1..16 or variable) the bytes choose.
void string_attribute(Bytes& in) {
  namespace h5 = fastmu::io::h5;
  const auto path = fastmu::fuzz::scratch("attribute.h5");
  h5::Handle file = h5::create_file(path.string());
  const int rank = in.byte() % 4;
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  hsize_t n = 1;
  for (auto& d : dims) n *= (d = in.byte() % 5);
  h5::Handle space(rank == 0 ? H5Screate(H5S_SCALAR)
                             : H5Screate_simple(rank, dims.data(), nullptr));
  const bool variable = in.byte() % 2;
  const std::size_t size = 1 + in.byte() % 16;
  h5::Handle type(H5Tcopy(H5T_C_S1));
  H5Tset_size(type.get(), variable ? H5T_VARIABLE : size);
  h5::Handle a(
      H5Acreate2(file.get(), "columns", type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT));
  std::vector<std::string> values(n);
  for (auto& v : values) v = in.text(12);
  if (n > 0 && variable) {
    std::vector<const char*> p;
    for (auto& v : values) p.push_back(v.c_str());
    H5Awrite(a.get(), type.get(), p.data());
  } else if (n > 0) {
    std::vector<char> buf(size * n, '\0');
    for (hsize_t k = 0; k < n; ++k) values[k].copy(buf.data() + k * size, size);
    H5Awrite(a.get(), type.get(), buf.data());
  }
  a.reset();
  switch (in.byte() % 3) {
    case 0:
      h5::read_string_attribute(file.get(), "columns", "fuzzed");
      break;
    case 1:
      h5::read_string_list_attribute(file.get(), "columns", "fuzzed");
      break;
    default:
      h5::read_string_array_attribute(file.get(), "columns", "fuzzed");
      break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fastmu::io::h5::silence_hdf5_errors();
  Bytes in{data, size};
  try {
    switch (in.byte() % 5) {
      case 0:
        custom_material(in);
        break;
      case 1:
        material_step(in);
        break;
      case 2:
        field_map(in);
        break;
      case 3:
        height_map(in);
        break;
      default:
        string_attribute(in);
        break;
    }
  } catch (const fastmu::Error&) {
  }
  return 0;
}
