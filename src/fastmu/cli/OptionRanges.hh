// The integer options of every command (counts, seeds, threads, bins) are
// range-checked by their text, before CLI11 converts them: "-1" into an
// unsigned count would wrap to 1.8e19.
#pragma once

#include <CLI/CLI.hpp>

namespace fastmu::cli {

// Adds the range check of every known integer option to `app` and its
// subcommands (after they are registered). A bad value gives one line:
// "--n: -1 is not an integer in [1, 1000000000]".
void check_integer_options(CLI::App& app);

}  // namespace fastmu::cli
