// Named-column numeric tables and their file formats: CSV with a header line,
// HDF5 (one 2-D dataset, column names in its "columns" attribute), and the raw
// little-endian float32 format of the Geant4 reference samples (.f32, 7 columns
// p0,px,py,pz,x,y,z).
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "fastmu/io/Hdf5.hh"

namespace fastmu::io {

struct ColumnTable {
  std::vector<std::string> columns;
  std::vector<double> values;  // row-major, rows() * columns.size()

  std::size_t rows() const { return columns.empty() ? 0 : values.size() / columns.size(); }
  // Index of a column, or -1.
  int find(const std::string& name) const;
  // Index of a column; throws fastmu::Error naming `source` if it is missing.
  int require(const std::string& name, const std::string& source) const;
  double at(std::size_t row, int col) const { return values[row * columns.size() + col]; }
};

enum class TableFormat { csv, hdf5, raw_f32 };

// By extension: .h5/.hdf5 -> hdf5, .f32 -> raw_f32, anything else -> csv.
// The index of the first column name that repeats an earlier one, or -1
// (linear in the number of columns: headers of any width).
long first_duplicate_column(const std::vector<std::string>& names);

TableFormat format_from_path(const std::filesystem::path& path);

// Reads a table. `dataset` names the HDF5 dataset (e.g. "muons"); for HDF5 a
// dataset without a "columns" attribute gets `default_columns`. Throws
// fastmu::Error with file, line and field for any malformed input.
ColumnTable read_table(const std::filesystem::path& path, const std::string& dataset = "muons",
                       const std::vector<std::string>& default_columns = {});

// Writes a table atomically (no partial file on failure). HDF5 files get one
// float64 dataset `dataset` with a "columns" attribute (comma-separated names),
// compressed as `compression` says (default none: see h5::Compression).
void write_table(const std::filesystem::path& path, const ColumnTable& table,
                 const std::string& dataset = "muons", const h5::Compression& compression = {});

}  // namespace fastmu::io
