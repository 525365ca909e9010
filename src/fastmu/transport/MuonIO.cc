#include "fastmu/transport/MuonIO.hh"

#include <cmath>
#include <string>

#include <fmt/format.h>

#include "fastmu/core/Error.hh"
#include "fastmu/io/ColumnTable.hh"

namespace fastmu {

MuonBatch read_muons(const std::filesystem::path& path) {
  const std::string source = path.string();
  const io::ColumnTable table = io::read_table(path, "muons");
  const bool csv = io::format_from_path(path) == io::TableFormat::csv;
  // Where a row sits in the file: CSV line numbers count the header as line 1.
  auto where = [&](std::size_t row) {
    return csv ? fmt::format("{} line {}", source, row + 2) : fmt::format("{} row {}", source, row);
  };

  const char* names[] = {"px", "py", "pz", "x", "y", "z", "pdg"};
  int col[7];
  for (int i = 0; i < 7; ++i) col[i] = table.require(names[i], source);
  const int col_w = table.find("weight");

  MuonBatch batch;
  const std::size_t n = table.rows();
  batch.resize(n);
  std::vector<float>* dest[6] = {&batch.px, &batch.py, &batch.pz, &batch.x, &batch.y, &batch.z};
  for (std::size_t r = 0; r < n; ++r) {
    for (int i = 0; i < 6; ++i) {
      const double v = table.at(r, col[i]);
      if (!std::isfinite(v) || std::fabs(v) > 3.0e38) {
        throw Error(fmt::format("{}, column {}: value {} is not a finite number", where(r),
                                names[i], v));
      }
      (*dest[i])[r] = static_cast<float>(v);
    }
    const double pdg = table.at(r, col[6]);
    if (pdg != 13.0 && pdg != -13.0) {
      throw Error(fmt::format("{}, column pdg: {} is not a muon PDG code (13 = mu-, -13 = mu+)",
                              where(r), pdg));
    }
    batch.pdg[r] = static_cast<std::int32_t>(pdg);
    const double w = col_w >= 0 ? table.at(r, col_w) : 1.0;
    if (!std::isfinite(w)) {
      throw Error(fmt::format("{}, column weight: value {} is not a finite number", where(r), w));
    }
    batch.weight[r] = w;
  }
  return batch;
}

void write_transport_result(const std::filesystem::path& path, const TransportResult& result,
                            bool all, bool with_plane) {
  io::ColumnTable table;
  table.columns = {"id", "px", "py", "pz", "x", "y", "z", "pdg", "weight", "status"};
  if (with_plane) table.columns.push_back("plane");
  const auto& m = result.muons;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < result.size(); ++i) kept += all || result.status[i] == 0;
  table.values.reserve(kept * table.columns.size());
  for (std::size_t i = 0; i < result.size(); ++i) {
    if (!all && result.status[i] != 0) continue;
    const double row[] = {static_cast<double>(result.first_id + i),
                          m.px[i], m.py[i], m.pz[i], m.x[i], m.y[i], m.z[i],
                          static_cast<double>(m.pdg[i]), m.weight[i],
                          static_cast<double>(result.status[i])};
    table.values.insert(table.values.end(), std::begin(row), std::end(row));
    if (with_plane) table.values.push_back(result.plane[i]);
  }
  io::write_table(path, table, "muons");
}

}  // namespace fastmu
