// SHA-256 (FIPS 180-4) of byte strings and files: the fingerprint of the sample
// file a table was built from, stored in the table so its origin can be checked.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

namespace fastmu {

// Incremental hasher: update() any number of times, then hex_digest() once.
class Sha256 {
 public:
  Sha256();
  void update(const void* data, std::size_t n);
  // Lower-case hex digest (64 characters); finalises the hasher.
  std::string hex_digest();

 private:
  void compress(const std::uint8_t* block);

  std::array<std::uint32_t, 8> h_;
  std::array<std::uint8_t, 64> buffer_{};
  std::size_t buffered_ = 0;
  std::uint64_t total_bytes_ = 0;
};

std::string sha256_hex(const std::string& bytes);
// Throws fastmu::Error naming the file if it cannot be read.
std::string sha256_file(const std::filesystem::path& path);

}  // namespace fastmu
