// Each command group registers its subcommands (with their callbacks) here.
#pragma once

#include <CLI/CLI.hpp>

namespace fastmu::cli {

void register_physics_commands(CLI::App& app);     // physics sample | transport
void register_tables_commands(CLI::App& app);      // tables build | info | plot
void register_run_command(CLI::App& app);          // run
void register_bench_command(CLI::App& app);        // bench
void register_geometry_commands(CLI::App& app);    // geometry export
void register_validate_command(CLI::App& app);     // validate
void register_flux_command(CLI::App& app);         // flux
void register_underground_command(CLI::App& app);  // underground

}  // namespace fastmu::cli
