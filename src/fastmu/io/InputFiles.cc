#include "fastmu/io/InputFiles.hh"

#include <sys/stat.h>
#include <atomic>
#include <map>
#include <mutex>
#include <utility>

#include "fastmu/core/Error.hh"

namespace fastmu::io {
namespace {

std::atomic<bool> tracking{false};

struct Registry {
  std::mutex mutex;
  std::map<std::pair<dev_t, ino_t>, std::string> files;  // identity -> name as given
};
Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

void track_inputs() { tracking = true; }

void note_input(const std::filesystem::path& path) {
  if (!tracking) return;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.files.emplace(std::make_pair(st.st_dev, st.st_ino), path.string());
}

std::string input_same_as(const std::filesystem::path& path) {
  struct stat st {};
  if (!tracking || ::stat(path.c_str(), &st) != 0) return {};
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  const auto it = r.files.find({st.st_dev, st.st_ino});
  return it == r.files.end() ? std::string() : it->second;
}

void refuse_input_as_output(const std::filesystem::path& path, const std::string& what) {
  const std::string input = input_same_as(path);
  if (input.empty()) return;
  const std::string same = input == path.string() ? "" : " as '" + input + "'";
  throw Error(what + " '" + path.string() + "' is also an input of this command (the same file" +
              same + "): name another output, the input is kept");
}

}  // namespace fastmu::io
