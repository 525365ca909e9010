// String attributes of every shape and string type are read or refused by
// their shape, never read into a buffer of the wrong size.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>

#include "fastmu/core/Error.hh"
#include "fastmu/io/Hdf5.hh"

namespace fs = std::filesystem;
using fastmu::io::h5::Handle;
namespace h5 = fastmu::io::h5;

namespace {

struct AttributeFile {
  fs::path path =
      fs::temp_directory_path() / ("fastmu_h5attr_" + std::to_string(::getpid()) + ".h5");
  Handle file = h5::create_file(path.string());
  ~AttributeFile() {
    file.reset();
    std::error_code ec;
    fs::remove(path, ec);
  }

  // `values` as attribute `name`: fixed-length strings of `size` bytes (0:
  // variable length), in a dataspace of `dims` (empty: scalar).
  void write(const std::string& name, const std::vector<std::string>& values, std::size_t size,
             const std::vector<hsize_t>& dims) {
    Handle type(H5Tcopy(H5T_C_S1));
    H5Tset_size(type.get(), size == 0 ? H5T_VARIABLE : size);
    Handle space(dims.empty()
                     ? H5Screate(H5S_SCALAR)
                     : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr));
    Handle a(
        H5Acreate2(file.get(), name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT));
    if (values.empty()) return;  // an empty dataspace: nothing to write
    if (size == 0) {
      std::vector<const char*> p;
      for (const auto& v : values) p.push_back(v.c_str());
      ASSERT_GE(H5Awrite(a.get(), type.get(), p.data()), 0);
    } else {
      std::vector<char> buf(size * values.size(), '\0');
      for (std::size_t k = 0; k < values.size(); ++k) {
        values[k].copy(buf.data() + k * size, std::min(size, values[k].size()));
      }
      ASSERT_GE(H5Awrite(a.get(), type.get(), buf.data()), 0);
    }
  }
};

TEST(Hdf5Attribute, ScalarFixedAndVariableStringsAreRead) {
  AttributeFile f;
  f.write("fixed", {"G4_Fe"}, 8, {});
  f.write("variable", {"px,py,pz"}, 0, {});
  EXPECT_EQ(h5::read_string_attribute(f.file.get(), "fixed", "f"), "G4_Fe");
  EXPECT_EQ(h5::read_string_attribute(f.file.get(), "variable", "f"), "px,py,pz");
}

TEST(Hdf5Attribute, ArraysOfStringsAreReadWhole) {
  AttributeFile f;
  // As h5py writes np.array([b'px', b'py', ...]): 1-D, fixed length.
  f.write("fixed", {"px", "py", "pz", "x", "y", "z", "pdg"}, 3, {7});
  f.write("variable", {"px", "py", "pz"}, 0, {3});
  f.write("grid", {"a", "b", "c", "d"}, 1, {2, 2});
  EXPECT_EQ(h5::read_string_list_attribute(f.file.get(), "fixed", "f"), "px,py,pz,x,y,z,pdg");
  EXPECT_EQ(h5::read_string_list_attribute(f.file.get(), "variable", "f"), "px,py,pz");
  EXPECT_EQ(h5::read_string_array_attribute(f.file.get(), "grid", "f"),
            (std::vector<std::string>{"a", "b", "c", "d"}));
}

TEST(Hdf5Attribute, OneStringIsRefusedWhenTheAttributeHoldsSeveral) {
  AttributeFile f;
  f.write("material", {"G4_Fe", "G4_Pb"}, 6, {2});
  f.write("empty", {}, 4, {0});
  for (const char* name : {"material", "empty"}) {
    try {
      h5::read_string_attribute(f.file.get(), name, "t.h5");
      FAIL() << name << " was read as one string";
    } catch (const fastmu::Error& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("attribute '") + name + "' holds"),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(Hdf5Attribute, NumbersAreNotStrings) {
  AttributeFile f;
  h5::write_attribute(f.file.get(), "n", 3.0);
  EXPECT_THROW(h5::read_string_attribute(f.file.get(), "n", "f"), fastmu::Error);
  EXPECT_THROW(h5::read_string_list_attribute(f.file.get(), "n", "f"), fastmu::Error);
}

}  // namespace
