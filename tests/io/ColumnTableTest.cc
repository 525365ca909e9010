#include "fastmu/io/ColumnTable.hh"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>
#include <functional>
#include "fastmu/core/Error.hh"
#include "fastmu/io/AtomicOutput.hh"

namespace fs = std::filesystem;
using fastmu::io::ColumnTable;

namespace {

// This process's folder, removed when the tests end.
fs::path temp_dir() {
  static const struct Dir {
    fs::path path = fs::temp_directory_path() / ("fastmu_io_test_" + std::to_string(::getpid()));
    Dir() { fs::create_directories(path); }
    ~Dir() {
      std::error_code ec;
      fs::remove_all(path, ec);
    }
  } dir;
  return dir.path;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const fastmu::Error& e) {
    return e.what();
  }
  return "";
}

ColumnTable sample_table() {
  ColumnTable t;
  t.columns = {"px", "py", "pz", "pdg"};
  t.values = {0.1, -0.2, 50.0, 13, 1e-7, 2.5, 3.25, -13};
  return t;
}

}  // namespace

TEST(ColumnTable, CsvRoundTrip) {
  const auto path = temp_dir() / "t.csv";
  fastmu::io::write_table(path, sample_table());
  const auto back = fastmu::io::read_table(path);
  ASSERT_EQ(back.columns, sample_table().columns);
  ASSERT_EQ(back.rows(), 2u);
  for (std::size_t i = 0; i < back.values.size(); ++i) {
    EXPECT_NEAR(back.values[i], sample_table().values[i],
                1e-8 * std::abs(sample_table().values[i]));
  }
  EXPECT_EQ(back.find("pz"), 2);
  EXPECT_EQ(back.find("weight"), -1);
}

TEST(ColumnTable, Hdf5RoundTripIsExact) {
  const auto path = temp_dir() / "t.h5";
  fastmu::io::write_table(path, sample_table());
  const auto back = fastmu::io::read_table(path);
  EXPECT_EQ(back.columns, sample_table().columns);
  EXPECT_EQ(back.values, sample_table().values);
}

TEST(ColumnTable, RawF32HasReferenceColumns) {
  const auto path = temp_dir() / "t.f32";
  const float rows[14] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14};
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(rows), sizeof rows);
  const auto t = fastmu::io::read_table(path);
  EXPECT_EQ(t.columns, (std::vector<std::string>{"p0", "px", "py", "pz", "x", "y", "z"}));
  ASSERT_EQ(t.rows(), 2u);
  EXPECT_EQ(t.at(1, 3), 11.0);
}

TEST(ColumnTable, BadCsvNamesFileLineAndColumn) {
  const auto path = temp_dir() / "bad.csv";
  std::ofstream(path) << "px,py,pz\n1,2,3\n4,x5,6\n";
  const auto msg = error_of([&] { fastmu::io::read_table(path); });
  EXPECT_NE(msg.find("bad.csv:3"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'py'"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos);

  std::ofstream(path) << "px,py,pz\n1,2\n";
  EXPECT_NE(error_of([&] { fastmu::io::read_table(path); }).find("expected 3 fields, found 2"),
            std::string::npos);
  std::ofstream(path) << "1,2,3\n";
  EXPECT_NE(error_of([&] { fastmu::io::read_table(path); }).find("header"), std::string::npos);
}

TEST(ColumnTable, MissingFilesAndFoldersAreErrors) {
  EXPECT_NE(error_of([] { fastmu::io::read_table("/nonexistent/m.csv"); }).find("file not found"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              fastmu::io::write_table("/nonexistent/dir/m.csv", sample_table());
            }).find("does not exist"),
            std::string::npos);
  const auto bad_f32 = temp_dir() / "odd.f32";
  std::ofstream(bad_f32, std::ios::binary) << "abc";
  EXPECT_NE(error_of([&] { fastmu::io::read_table(bad_f32); }).find("7-float rows"),
            std::string::npos);
}

TEST(ColumnTable, FailedWriteLeavesNoFile) {
  const auto dir = temp_dir();
  const auto path = dir / "never.h5";
  fs::remove(path);
  ColumnTable broken;
  broken.columns = {"a"};
  {
    fastmu::io::AtomicOutput out(path);  // abandoned without commit
  }
  EXPECT_FALSE(fs::exists(path));
  for (const auto& entry : fs::directory_iterator(dir)) {
    EXPECT_EQ(entry.path().filename().string().find(".part"), std::string::npos);
  }
}
