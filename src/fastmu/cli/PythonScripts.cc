#include "fastmu/cli/PythonScripts.hh"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>

#include <fmt/format.h>

#include "fastmu/core/Error.hh"

extern char** environ;

namespace fastmu::cli {
namespace {

namespace fs = std::filesystem;

// The folder of the running binary (symbolic links resolved), empty if unknown.
fs::path binary_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path();
}

bool is_dir(const fs::path& p) {
  std::error_code ec;
  return !p.empty() && fs::is_directory(p, ec);
}

// Spawns argv quietly (stdout and stderr to /dev/null); the exit status or -1.
int spawn(const std::vector<std::string>& args, bool quiet) {
  std::vector<std::string> copy = args;
  std::vector<char*> argv;
  for (auto& s : copy) argv.push_back(s.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (quiet) {
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
  }
  pid_t pid = 0;
  // posix_spawnp searches PATH for a bare name, as a shell would.
  const int rc = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

// The modules of `modules` that `python` cannot import ("" when it cannot run).
std::vector<std::string> missing_modules(const std::string& python,
                                         const std::vector<std::string>& modules) {
  std::vector<std::string> missing;
  for (const auto& m : modules) {
    const int rc = spawn({python, "-c", "import " + m}, true);
    if (rc == -1 || rc == 127) return {""};
    if (rc != 0) missing.push_back(m);
  }
  return missing;
}

std::string describe(const std::string& python, const std::vector<std::string>& missing) {
  if (missing.size() == 1 && missing[0].empty()) return python + " does not run";
  return fmt::format("{} lacks {}", python, fmt::join(missing, ", "));
}

// Every python3 on PATH, in PATH order (each folder once).
std::vector<std::string> python3_on_path() {
  std::vector<std::string> found;
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / "python3";
    if (access(candidate.c_str(), X_OK) == 0) found.push_back(candidate.string());
  }
  return found;
}

}  // namespace

fs::path scripts_dir() {
  if (const char* env = std::getenv("FASTMU_SCRIPTS_DIR"); env && *env) return env;
  const fs::path bin = binary_dir();
  if (!bin.empty()) {
    // <prefix>/bin/fastmu -> <prefix>/share/fastmu/scripts (cmake --install);
    // <package>/_bin/fastmu -> <package>/scripts (pip install).
    for (const fs::path& p :
         {bin.parent_path() / "share" / "fastmu" / "scripts", bin.parent_path() / "scripts"}) {
      if (is_dir(p)) return p;
    }
  }
  return fs::path(FASTMU_SOURCE_DIR) / "scripts";
}

fs::path data_dir() {
  const fs::path beside = scripts_dir().parent_path() / "data";
  return is_dir(beside) ? beside : fs::path(FASTMU_SOURCE_DIR) / "data";
}

std::string find_python(const std::vector<std::string>& modules) {
  const std::string wanted = fmt::format("{}", fmt::join(modules, ", "));
  if (const char* env = std::getenv("FASTMU_PYTHON"); env && *env) {
    const auto missing = missing_modules(env, modules);
    if (!missing.empty()) {
      throw Error(fmt::format("FASTMU_PYTHON: {} (the plots and checks need {})",
                              describe(env, missing), wanted));
    }
    return env;
  }
  std::vector<std::string> tried;
  for (const auto& python : python3_on_path()) {
    const auto missing = missing_modules(python, modules);
    if (missing.empty()) return python;
    tried.push_back(describe(python, missing));
  }
  if (tried.empty()) {
    throw Error(
        fmt::format("no python3 on PATH (the plots and checks need Python 3 with {}; "
                    "or set FASTMU_PYTHON)",
                    wanted));
  }
  throw Error(
      fmt::format("no python3 on PATH imports {} ({}; install them, e.g. apt install "
                  "python3-numpy python3-matplotlib, or set FASTMU_PYTHON)",
                  wanted, fmt::join(tried, "; ")));
}

PythonScript find_script(const std::string& name, const std::vector<std::string>& modules) {
  const fs::path path = scripts_dir() / name;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    throw Error(fmt::format("script {} not found (set FASTMU_SCRIPTS_DIR to the folder holding {})",
                            path.string(), name));
  }
  return {find_python(modules), path};
}

int run_script(const PythonScript& script, const std::vector<std::string>& args) {
  std::vector<std::string> argv{script.python, script.path.string()};
  argv.insert(argv.end(), args.begin(), args.end());
  return spawn(argv, false);
}

}  // namespace fastmu::cli
