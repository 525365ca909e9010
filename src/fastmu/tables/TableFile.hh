// The HDF5 file of one material's tables for one step (layout: docs/stepping-and-tables.md).
#pragma once

#include <filesystem>
#include <string>

#include "fastmu/tables/TableParams.hh"

namespace fastmu {

// What write_table_file writes. The alias tables are a function of the
// histograms (build_alias_table of each bin's counts, as the builders make
// them), so a file may leave them out: load_table then rebuilds them, bit for
// bit, faster than it inflates them. The table cache's files and the tables
// shipped with fastmu do; a table a user names (`tables build --out`) keeps
// them for readers other than fastmu.
struct TableWriteOptions {
  bool alias = true;
};

// Writes atomically: the file appears whole or not at all.
void write_table_file(const std::filesystem::path& path, const TableParams& table,
                      const TableWriteOptions& options = {});

// What load_table reads. The transport samples the alias tables only, so the
// table cache leaves out the histograms (TableData::counts stays empty,
// TableParams::has_histogram()); a file without alias tables has its
// histograms read all the same, to rebuild them.
struct TableLoadOptions {
  bool histogram = true;
  int threads = 0;  // threads inflating and checking the large datasets (0: all cores)
  // Whether the file counts as an input of the command (InputFiles.hh): not
  // for the table cache's own files, which it rewrites when it extends them.
  bool is_input = true;
  // The file's first `bins` momentum bins only (0, or more than it holds:
  // all of them): the table cache serves a run the bins below the run's top
  // from a ladder that may reach further. The shapes of the whole file are
  // checked all the same; values are read (and checked) for those bins only.
  int bins = 0;
};

// How far a table file reaches, whichever of its bins were read.
struct TableExtent {
  int n_pbins = 0;
  double p_max = 0;  // its top momentum edge (GeV/c)
};

// Reads and validates a table file. With expected_step_m > 0 the file's step
// must match it (relative 1e-6). Any problem (not HDF5, a missing or
// wrongly-shaped dataset, a missing attribute, NaN, a format version other
// than kTableFormatVersion, a step mismatch) throws fastmu::Error with one
// line naming the file and the dataset or attribute. `extent`, if given,
// receives the file's own bins and top.
TableParams load_table(const std::filesystem::path& path, double expected_step_m = 0,
                       const TableLoadOptions& options = {}, TableExtent* extent = nullptr);

// What a table file says of itself without its arrays (a cache listing),
// read from any format version: the attributes it has (empty or 0 where it
// lacks one) and its momentum range. Throws fastmu::Error for a file that is
// not HDF5 or has no format_version.
struct TableSummary {
  int format_version = 0;
  std::string material, generator, created_utc, cache_key;
  double step_m = 0;
  double p_min = 0, p_max = 0;  // 0: no momentum_edges
  int n_pbins = 0;
};
TableSummary read_table_summary(const std::filesystem::path& path);

}  // namespace fastmu
