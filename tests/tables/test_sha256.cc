#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "fastmu/core/Error.hh"
#include "fastmu/tables/Sha256.hh"

using namespace fastmu;

// Test vectors of FIPS 180-4 (NIST CSRC examples).
TEST(Sha256, KnownVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, IncrementalEqualsOneShot) {
  std::string msg;
  for (int i = 0; i < 1000; ++i) msg.push_back(static_cast<char>(i * 7 + 3));
  Sha256 s;
  std::size_t pos = 0;
  for (std::size_t len : {1, 63, 64, 65, 3, 200, 604}) {
    s.update(msg.data() + pos, len);
    pos += len;
  }
  ASSERT_EQ(pos, msg.size());
  EXPECT_EQ(s.hex_digest(), sha256_hex(msg));
}

TEST(Sha256, File) {
  const auto path = std::filesystem::temp_directory_path() / "fastmu_sha256_test.txt";
  { std::ofstream(path) << "abc"; }
  EXPECT_EQ(sha256_file(path), sha256_hex("abc"));
  std::filesystem::remove(path);
  EXPECT_THROW(sha256_file(path), Error);
}
