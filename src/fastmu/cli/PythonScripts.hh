// The Python side of the command line: the interpreter that runs the plotting
// and checking scripts, and the folders holding those scripts and the data
// shipped with them. One lookup, used by run --example, tables plot and validate.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace fastmu::cli {

// The scripts folder: $FASTMU_SCRIPTS_DIR, else share/fastmu/scripts next to
// an installed binary, scripts/ of the pip package, else the source tree's.
std::filesystem::path scripts_dir();

// The data shipped with the scripts (reference histograms): the scripts
// folder's sibling `data`, else the source tree's.
std::filesystem::path data_dir();

// An interpreter that imports every module of `modules`: $FASTMU_PYTHON, else
// the first python3 on PATH that does. Throws Error with one line naming the
// interpreters tried and the modules each lacks.
std::string find_python(const std::vector<std::string>& modules);

// A script of scripts_dir() with the interpreter to run it.
struct PythonScript {
  std::string python;
  std::filesystem::path path;
};

// Finds `name` in scripts_dir() and an interpreter for `modules`; throws Error
// (one line) when either is missing.
PythonScript find_script(const std::string& name, const std::vector<std::string>& modules);

// Runs the script with `args` (no shell) and returns its exit status (-1 when
// it could not start or was killed).
int run_script(const PythonScript& script, const std::vector<std::string>& args);

}  // namespace fastmu::cli
