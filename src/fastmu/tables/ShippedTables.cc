#include "fastmu/tables/ShippedTables.hh"

#include <dlfcn.h>

#include <vector>

namespace fastmu {
namespace {

namespace fs = std::filesystem;

bool is_dir(const fs::path& p) {
  std::error_code ec;
  return !p.empty() && fs::is_directory(p, ec);
}

// The folders holding the module this code is linked into (the Python
// extension, or the program) and the running program.
std::vector<fs::path> code_dirs() {
  std::vector<fs::path> dirs;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&find_shipped_tables), &info) && info.dli_fname) {
    const fs::path module(info.dli_fname);
    if (module.is_absolute()) dirs.push_back(module.parent_path());
  }
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) dirs.push_back(exe.parent_path());
  return dirs;
}

}  // namespace

fs::path find_shipped_tables() {
  for (const fs::path& dir : code_dirs()) {
    for (const fs::path& p : {dir / "data" / "tables", dir.parent_path() / "data" / "tables",
                              dir.parent_path() / "share" / "fastmu" / "data" / "tables"}) {
      if (is_dir(p)) return p;
    }
  }
#ifdef FASTMU_SOURCE_DIR
  if (const fs::path p = fs::path(FASTMU_SOURCE_DIR) / "data" / "tables"; is_dir(p)) return p;
#endif
  return {};
}

}  // namespace fastmu
