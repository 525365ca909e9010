#include "fastmu/transport/stream/TopMomentumMemo.hh"

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <string_view>
#include <system_error>

#include <fmt/format.h>

#include "fastmu/core/Error.hh"
#include "fastmu/core/Version.hh"
#include "fastmu/io/AtomicOutput.hh"
#include "fastmu/tables/Sha256.hh"

namespace fastmu {
namespace {

// The version too: the row checks may change between releases.
constexpr const char* kMemoHeader = "fastmu " FASTMU_VERSION " top-momentum memo v1\n";
constexpr const char* kTopField = "top=";

std::filesystem::path memo_path(const std::filesystem::path& dir, const std::string& key) {
  return dir / (sha256_hex(key).substr(0, 16) + ".txt");
}

}  // namespace

std::string top_momentum_key(const std::filesystem::path& muons, double p_limit) {
  std::error_code ec;
  const std::filesystem::path canonical = std::filesystem::canonical(muons, ec);
  struct stat st {};
  if (ec || ::stat(canonical.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return {};
  if (static_cast<std::uintmax_t>(st.st_size) < kTopMemoMinBytes) return {};
  return fmt::format(
      "{}path={}\ndevice={}\ninode={}\nsize={}\nmtime={}.{:09}\nctime={}.{:09}\n"
      "limit={:.17g}\n",
      kMemoHeader, canonical.string(), static_cast<unsigned long long>(st.st_dev),
      static_cast<unsigned long long>(st.st_ino), static_cast<long long>(st.st_size),
      static_cast<long long>(st.st_mtim.tv_sec), static_cast<long>(st.st_mtim.tv_nsec),
      static_cast<long long>(st.st_ctim.tv_sec), static_cast<long>(st.st_ctim.tv_nsec), p_limit);
}

std::optional<double> recall_top_momentum(const std::filesystem::path& dir,
                                          const std::string& key) {
  if (key.empty()) return std::nullopt;
  std::ifstream in(memo_path(dir, key), std::ios::binary);
  if (!in) return std::nullopt;
  // At most the key and a number's line: a memo is never read whole.
  std::string memo(key.size() + 64, '\0');
  in.read(memo.data(), static_cast<std::streamsize>(memo.size()));
  memo.resize(static_cast<std::size_t>(in.gcount()));
  if (in.peek() != std::char_traits<char>::eof()) return std::nullopt;
  // The whole key, then one line "top=VALUE".
  const std::string_view text(memo), field(kTopField);
  if (text.substr(0, key.size()) != key) return std::nullopt;
  const std::string_view line = text.substr(key.size());
  if (line.substr(0, field.size()) != field || line.size() <= field.size() || line.back() != '\n')
    return std::nullopt;
  const std::string value(line.substr(field.size(), line.size() - field.size() - 1));
  char* end = nullptr;
  const double top = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0' || !(top >= 0.0 && top < 1e300)) return std::nullopt;
  return top;
}

void remember_top_momentum(const std::filesystem::path& dir, const std::string& key, double top) {
  if (key.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return;
  try {
    io::AtomicOutput(memo_path(dir, key)).write([&](const std::filesystem::path& temp) {
      std::ofstream out(temp, std::ios::binary | std::ios::trunc);
      out << key << kTopField << fmt::format("{:.17g}", top) << '\n';
      io::close_checked(out, temp);
    });
  } catch (const Error&) {
    // not remembered: the next run reads the file again
  }
}

}  // namespace fastmu
