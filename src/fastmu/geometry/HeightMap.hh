// Reading a terrain's height map (interfaces.md "Geometry (JSON)", key
// "terrain"): a grid of surface heights [m], row j at y_j, column i at x_i,
// from a CSV file or a 2-D HDF5 dataset.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace fastmu {

struct HeightMap {
  std::int32_t nx = 0, ny = 0;  // nodes along x (columns) and y (rows)
  std::vector<double> heights;  // heights[j * nx + i]
};

// CSV (any name but .h5 / .hdf5): one row of comma-separated heights per y,
// all rows of equal length; blank lines and lines starting with '#' are
// skipped. HDF5 (.h5 / .hdf5): the 2-D dataset `dataset` of shape (ny, nx).
// At least 2 x 2 nodes, every height finite. Throws fastmu::Error with one
// line naming the file and where, e.g. "hill.csv: line 7: expected 41
// heights, got 40".
HeightMap read_height_map(const std::filesystem::path& file, const std::string& dataset);

}  // namespace fastmu
