// fastmu: GPU-fast muon transport through matter and magnetic fields by
// histogram sampling.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "fastmu/cli/Commands.hh"
#include "fastmu/cli/MpiSession.hh"
#include "fastmu/cli/OptionRanges.hh"
#include "fastmu/core/ClosestNames.hh"
#include "fastmu/core/Error.hh"
#include "fastmu/core/Trace.hh"
#include "fastmu/core/Version.hh"
#include "fastmu/io/Hdf5.hh"
#include "fastmu/io/InputFiles.hh"

namespace {

// A first word that names no command ("fastmu runn") gets the nearest
// commands, not CLI11's "A subcommand is required".
void refuse_unknown_command(const CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return;
  const std::string word = argv[1];
  std::vector<std::string> names;
  for (const CLI::App* c : app.get_subcommands({})) {
    names.push_back(c->get_name());
    for (const std::string& alias : c->get_aliases()) names.push_back(alias);
  }
  if (std::find(names.begin(), names.end(), word) != names.end()) return;
  std::string known;
  for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
  const std::string hint = fastmu::did_you_mean(word, names);
  throw fastmu::Error("unknown command '" + word + "' (" + (hint.empty() ? "" : hint + "; ") +
                      "commands: " + known + ")");
}

}  // namespace

int main(int argc, char** argv) {
  fastmu::io::h5::no_close_at_exit();  // first: before HDF5 starts (Hdf5.hh says why)
  fastmu::trace("main: start");
  fastmu::io::track_inputs();             // no output of a command replaces one of its inputs
  fastmu::io::h5::silence_hdf5_errors();  // one line per error, fastmu's own
  CLI::App app{"fastmu " FASTMU_VERSION
               ": muon transport through matter and magnetic fields by histogram sampling.\n"
               "Units: metres, GeV/c, tesla. Run 'fastmu COMMAND --help' for each command."};
  app.require_subcommand(1);
  app.set_version_flag("--version", "fastmu " FASTMU_VERSION);
  fastmu::cli::register_physics_commands(app);
  fastmu::cli::register_tables_commands(app);
  fastmu::cli::register_run_command(app);
  fastmu::cli::register_bench_command(app);
  fastmu::cli::register_geometry_commands(app);
  fastmu::cli::register_validate_command(app);
  fastmu::cli::register_flux_command(app);
  fastmu::cli::register_underground_command(app);
  fastmu::cli::check_integer_options(app);
  // Under mpirun every rank meets the same error; rank 0 reports it.
  struct Finalize {
    ~Finalize() { fastmu::cli::mpi::finalize(); }
  } finalize;
  try {
    fastmu::cli::mpi::init(&argc, &argv);
    refuse_unknown_command(app, argc, argv);
    app.parse(argc, argv);
    fastmu::trace("main: command done");
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return fastmu::cli::mpi::rank() == 0 ? app.exit(e) : 0;
    // One line, naming the option and what is wrong.
    if (fastmu::cli::mpi::rank() == 0) {
      std::fprintf(stderr, "fastmu: error: %s (see 'fastmu --help')\n", e.what());
    }
    return 2;
  } catch (const fastmu::Error& e) {
    if (fastmu::cli::mpi::rank() == 0) std::fprintf(stderr, "fastmu: error: %s\n", e.what());
    return 1;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr,
                 "fastmu: error: out of memory (a smaller --chunk-rows, --max-memory or input)\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fastmu: internal error: %s\n", e.what());
    return 3;
  }
  return 0;
}
