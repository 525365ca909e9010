// Reading muon files and writing transport output.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "fastmu/core/Error.hh"
#include "fastmu/io/ColumnTable.hh"
#include "fastmu/io/Hdf5.hh"
#include "fastmu/transport/stream/MuonIO.hh"

namespace fastmu {
namespace {

std::filesystem::path temp_file(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "fastmu_muonio_test";
  std::filesystem::create_directories(dir);
  const auto p = dir / name;
  std::ofstream(p) << text;
  return p;
}

std::string error_of(const std::filesystem::path& p) {
  try {
    read_muons(p);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(MuonIO, ReadsCsvWithAndWithoutWeight) {
  const auto a = temp_file("a.csv", "px,py,pz,x,y,z,pdg\n0,0.1,10,0,0,-1,13\n0.2,0,5,1,2,3,-13\n");
  const MuonBatch b = read_muons(a);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_FLOAT_EQ(b.py[0], 0.1f);
  EXPECT_FLOAT_EQ(b.pz[1], 5.0f);
  EXPECT_FLOAT_EQ(b.z[0], -1.0f);
  EXPECT_EQ(b.pdg[0], 13);
  EXPECT_EQ(b.pdg[1], -13);
  EXPECT_EQ(b.weight[0], 1.0);
  EXPECT_EQ(b.weight[1], 1.0);

  // Column order is free; weights pass through.
  const auto w = temp_file("w.csv", "pdg,weight,x,y,z,px,py,pz\n-13,0.25,1,2,3,4,5,6\n");
  const MuonBatch c = read_muons(w);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c.weight[0], 0.25);
  EXPECT_FLOAT_EQ(c.x[0], 1.0f);
  EXPECT_FLOAT_EQ(c.pz[0], 6.0f);
}

TEST(MuonIO, BadInputNamesFileLineAndColumn) {
  const auto pdg = temp_file("pdg.csv", "px,py,pz,x,y,z,pdg\n0,0,10,0,0,0,13\n0,0,10,0,0,0,11\n");
  const std::string e1 = error_of(pdg);
  EXPECT_NE(e1.find("pdg.csv line 3"), std::string::npos) << e1;
  EXPECT_NE(e1.find("column pdg"), std::string::npos) << e1;
  EXPECT_EQ(e1.find('\n'), std::string::npos);

  const auto nan = temp_file("nan.csv", "px,py,pz,x,y,z,pdg\n0,nan,10,0,0,0,13\n");
  const std::string e2 = error_of(nan);
  EXPECT_NE(e2.find("line 2"), std::string::npos) << e2;
  EXPECT_NE(e2.find("column py"), std::string::npos) << e2;

  const auto missing = temp_file("missing.csv", "px,py,x,y,z,pdg\n0,0,0,0,0,13\n");
  const std::string e3 = error_of(missing);
  EXPECT_NE(e3.find("missing.csv"), std::string::npos) << e3;
  EXPECT_NE(e3.find("pz"), std::string::npos) << e3;
}

// An HDF5 file as the interfaces spec describes it (and as h5py writes it):
// one 2-D float dataset `muons`, no attributes, columns px,py,pz,x,y,z,pdg[,weight].
template <class T>
std::filesystem::path spec_hdf5(const std::string& name, const std::vector<hsize_t>& shape,
                                const std::vector<T>& values) {
  const auto dir = std::filesystem::temp_directory_path() / "fastmu_muonio_test";
  std::filesystem::create_directories(dir);
  const auto p = dir / name;
  io::h5::Handle f = io::h5::create_file(p.string());
  io::h5::write_dataset<T>(f.get(), "muons", shape, values.data());
  return p;
}

TEST(MuonIO, ReadsSpecHdf5WithoutColumnsAttribute) {
  const auto f8 = spec_hdf5<float>("spec8.h5", {2, 8},
                                   {0.1f, 0.2f, 50, 1, 2, 3, 13, 0.5f,  //
                                    0, 0, 20, -1, -2, -3, -13, 2});
  const MuonBatch a = read_muons(f8);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_FLOAT_EQ(a.px[0], 0.1f);
  EXPECT_FLOAT_EQ(a.pz[0], 50.0f);
  EXPECT_FLOAT_EQ(a.z[1], -3.0f);
  EXPECT_EQ(a.pdg[1], -13);
  EXPECT_EQ(a.weight[0], 0.5);
  EXPECT_EQ(a.weight[1], 2.0);

  const auto d7 = spec_hdf5<double>("spec7.h5", {1, 7}, {0, 0, 10, 0, 0, -1, -13});
  const MuonBatch b = read_muons(d7);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_FLOAT_EQ(b.pz[0], 10.0f);
  EXPECT_EQ(b.pdg[0], -13);
  EXPECT_EQ(b.weight[0], 1.0);

  // Nine columns without names cannot be the spec's layout.
  const auto d9 = spec_hdf5<double>("spec9.h5", {1, 9}, {0, 0, 10, 0, 0, 0, 13, 1, 7});
  const std::string e = error_of(d9);
  EXPECT_NE(e.find("spec9.h5"), std::string::npos) << e;
  EXPECT_NE(e.find("9 columns"), std::string::npos) << e;
}

TEST(MuonIO, WritesStatusZeroRowsUnlessAll) {
  TransportResult r;
  r.muons.push_back(1, 2, 3, 4, 5, 6, 13, 0.5);
  r.muons.push_back(0, 0, 0, 7, 8, 9, -13, 2.0);
  r.status = {0, 1};
  r.plane = {0, -1};
  r.steps = {10, 20};
  r.first_id = 100;
  const auto dir = std::filesystem::temp_directory_path() / "fastmu_muonio_test";
  const auto out = dir / "out.csv";
  write_transport_result(out, r, false, false);
  io::ColumnTable t = io::read_table(out);
  ASSERT_EQ(t.rows(), 1u);
  EXPECT_EQ(t.columns, (std::vector<std::string>{"id", "px", "py", "pz", "x", "y", "z", "pdg",
                                                 "weight", "status"}));
  EXPECT_EQ(t.at(0, 0), 100);
  EXPECT_EQ(t.at(0, 8), 0.5);

  const auto all = dir / "all.h5";
  write_transport_result(all, r, true, true);
  t = io::read_table(all);
  ASSERT_EQ(t.rows(), 2u);
  EXPECT_EQ(t.columns.back(), "plane");
  EXPECT_EQ(t.at(1, 0), 101);
  EXPECT_EQ(t.at(1, 7), -13);
  EXPECT_EQ(t.at(1, 9), 1);
  EXPECT_EQ(t.at(1, 10), -1);
}

}  // namespace
}  // namespace fastmu
