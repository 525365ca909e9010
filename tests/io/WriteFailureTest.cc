// Failed writes and datasets stored outside the file: one Error naming the
// file and the reason, no file left behind, nothing read from another file.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <hdf5.h>

#include "fastmu/core/Error.hh"
#include "fastmu/io/AtomicOutput.hh"
#include "fastmu/io/Hdf5.hh"

namespace fastmu::io {
namespace {

std::filesystem::path scratch(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("fastmu_write_failure_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir / name;
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// /dev/full fails every write with ENOSPC, as a full disk does.
TEST(WriteFailure, AFullDiskNamesTheFileAndSaysSo) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  std::FILE* f = std::fopen("/dev/full", "w");
  ASSERT_NE(f, nullptr);
  std::fputs("muons\n", f);
  const std::string m = message_of([&] { close_checked(f, "out.csv"); });
  EXPECT_NE(m.find("cannot write 'out.csv'"), std::string::npos) << m;
  EXPECT_NE(m.find("disk is full"), std::string::npos) << m;
  EXPECT_EQ(m.find('\n'), std::string::npos) << m;

  std::ofstream s("/dev/full");
  s << std::string(1 << 16, 'x');
  const std::string ms = message_of([&] { close_checked(s, "out.json"); });
  EXPECT_NE(ms.find("cannot write 'out.json'"), std::string::npos) << ms;
}

TEST(WriteFailure, AFailedBodyLeavesNoFileAndNamesTheOutput) {
  const auto out = scratch("o.csv");
  { std::ofstream(out) << "old\n"; }
  const std::string m = message_of([&] {
    AtomicOutput a(out);
    a.write([](const std::filesystem::path& temp) {
      std::ofstream(temp) << "half";
      throw Error("HDF5 error: cannot write dataset 'x'");
    });
  });
  EXPECT_EQ(m, "cannot write '" + out.string() + "': HDF5 error: cannot write dataset 'x'");
  std::ifstream in(out);
  std::string kept;
  std::getline(in, kept);
  EXPECT_EQ(kept, "old");  // the existing file is untouched
  for (const auto& e : std::filesystem::directory_iterator(out.parent_path())) {
    EXPECT_EQ(e.path().filename().string().find(".part"), std::string::npos) << e.path();
  }
  std::filesystem::remove_all(out.parent_path());
}

// A file whose `muons` is stored elsewhere: refused by name, before reading.
void expect_refused(const std::function<void(hid_t)>& make, const std::string& needle) {
  const auto path = scratch("links.h5").string();
  {
    h5::Handle f = h5::create_file(path);
    make(f.get());
  }
  h5::Handle f = h5::open_file(path);
  const std::string m = message_of([&] { h5::dataset_shape(f.get(), "muons", path); });
  EXPECT_NE(m.find(needle), std::string::npos) << m;
  EXPECT_NE(m.find(path), std::string::npos) << m;
  std::filesystem::remove_all(std::filesystem::path(path).parent_path());
}

TEST(Hdf5Links, ExternalLinksSoftLinksAndExternalStorageAreRefused) {
  const hsize_t dims[2] = {1, 7};
  auto dataset = [&](hid_t where, const char* name, hid_t dcpl) {
    h5::Handle space(H5Screate_simple(2, dims, nullptr));
    h5::Handle d(
        H5Dcreate2(where, name, H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, dcpl, H5P_DEFAULT));
    ASSERT_TRUE(d.valid());
  };
  expect_refused(
      [](hid_t f) {
        H5Lcreate_external("other.h5", "/muons", f, "muons", H5P_DEFAULT, H5P_DEFAULT);
      },
      "external link");
  expect_refused(
      [&](hid_t f) {
        dataset(f, "data", H5P_DEFAULT);
        H5Lcreate_soft("/data", f, "muons", H5P_DEFAULT, H5P_DEFAULT);
      },
      "soft link");
  expect_refused(
      [&](hid_t f) {
        h5::Handle dcpl(H5Pcreate(H5P_DATASET_CREATE));
        H5Pset_external(dcpl.get(), "/etc/hostname", 0, 7 * 8);
        dataset(f, "muons", dcpl.get());
      },
      "external files");
  // A plain dataset passes.
  const auto path = scratch("plain.h5").string();
  {
    h5::Handle f = h5::create_file(path);
    dataset(f.get(), "muons", H5P_DEFAULT);
  }
  h5::Handle f = h5::open_file(path);
  EXPECT_EQ(h5::dataset_shape(f.get(), "muons", path), (std::vector<hsize_t>{1, 7}));
  std::filesystem::remove_all(std::filesystem::path(path).parent_path());
}

}  // namespace
}  // namespace fastmu::io
