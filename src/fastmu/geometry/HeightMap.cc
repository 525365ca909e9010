#include "fastmu/geometry/HeightMap.hh"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>

#include <fmt/format.h>

#include "fastmu/core/Error.hh"
#include "fastmu/core/InputLimits.hh"
#include "fastmu/io/Hdf5.hh"
#include "fastmu/io/InputFiles.hh"

namespace fastmu {

namespace {

bool is_hdf5_name(const std::filesystem::path& file) {
  const std::string ext = file.extension().string();
  return ext == ".h5" || ext == ".hdf5";
}

// The comma-separated numbers of one CSV line.
std::vector<double> parse_csv_row(const std::string& line, const std::string& where) {
  std::vector<double> row;
  std::size_t pos = 0;
  for (int column = 1;; ++column) {
    const std::size_t comma = line.find(',', pos);
    const std::string cell = line.substr(pos, comma == std::string::npos ? comma : comma - pos);
    const char* begin = cell.c_str();
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(begin, &end);
    while (end != nullptr && (*end == ' ' || *end == '\t' || *end == '\r')) ++end;
    if (end == begin || *end != '\0' || errno == ERANGE) {
      throw Error(fmt::format("{}, column {}: '{}' is not a number", where, column, cell));
    }
    if (!(std::abs(v) <= limits::kMaxCoordinate))
      throw Error(
          fmt::format("{}, column {}: height {:g} m is not in [-1e5, 1e5] m", where, column, v));
    row.push_back(v);
    if (comma == std::string::npos) return row;
    pos = comma + 1;
  }
}

HeightMap read_csv(const std::filesystem::path& file) {
  const std::string source = file.string();
  std::ifstream in(file);
  if (!in) throw Error(fmt::format("{}: cannot open height map", source));
  io::note_input(file);
  HeightMap m;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    const std::vector<double> row = parse_csv_row(line, fmt::format("{}: line {}", source, number));
    if (m.ny == 0) m.nx = static_cast<std::int32_t>(row.size());
    if (static_cast<std::int32_t>(row.size()) != m.nx) {
      throw Error(fmt::format("{}: line {}: expected {} heights (as the first row), got {}", source,
                              number, m.nx, row.size()));
    }
    m.heights.insert(m.heights.end(), row.begin(), row.end());
    ++m.ny;
  }
  return m;
}

HeightMap read_hdf5(const std::filesystem::path& file, const std::string& dataset) {
  const std::string source = file.string();
  io::h5::silence_hdf5_errors();
  io::h5::Handle f = io::h5::open_file(source);
  if (!io::h5::has_dataset(f.get(), dataset)) {
    throw Error(fmt::format("{}: dataset '{}' not found", source, dataset));
  }
  const auto dims = io::h5::dataset_shape(f.get(), dataset, source);
  if (dims.size() != 2) {
    throw Error(fmt::format("{}: dataset '{}' has {} dimensions, expected 2 (ny, nx)", source,
                            dataset, dims.size()));
  }
  if (double(dims[0]) * double(dims[1]) > limits::kMaxHeightMapPoints) {
    throw Error(
        fmt::format("{}: dataset '{}' of {} x {} heights is more than the {:g} a height "
                    "map may have",
                    source, dataset, dims[0], dims[1], limits::kMaxHeightMapPoints));
  }
  HeightMap m;
  m.ny = static_cast<std::int32_t>(dims[0]);
  m.nx = static_cast<std::int32_t>(dims[1]);
  m.heights = io::h5::read_dataset<double>(f.get(), dataset, source);
  for (std::size_t k = 0; k < m.heights.size(); ++k) {
    if (!(std::abs(m.heights[k]) <= limits::kMaxCoordinate)) {
      throw Error(fmt::format("{}: dataset '{}': height [{}, {}] is not in [-1e5, 1e5] m", source,
                              dataset, k / static_cast<std::size_t>(m.nx),
                              k % static_cast<std::size_t>(m.nx)));
    }
  }
  return m;
}

}  // namespace

HeightMap read_height_map(const std::filesystem::path& file, const std::string& dataset) {
  const std::string source = file.string();
  if (!std::filesystem::is_regular_file(file)) {
    throw Error(fmt::format("{}: height map not found", source));
  }
  HeightMap m = is_hdf5_name(file) ? read_hdf5(file, dataset) : read_csv(file);
  if (m.nx < 2 || m.ny < 2) {
    throw Error(
        fmt::format("{}: height map has {} x {} nodes, needs at least 2 x 2", source, m.nx, m.ny));
  }
  return m;
}

}  // namespace fastmu
