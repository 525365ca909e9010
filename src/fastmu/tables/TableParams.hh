// One material's histogram tables for one step length: immutable host data
// that owns every array, plus POD views (TableView) for host and device.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "fastmu/tables/TableView.hh"

namespace fastmu {

// Version of the HDF5 layout (docs/stepping-and-tables.md); bumped on any incompatible change.
inline constexpr int kTableFormatVersion = 1;

// Where a table came from and what it describes (the HDF5 attributes).
struct TableMetadata {
  std::string material;             // e.g. "G4_Fe"
  std::string material_definition;  // Material::definition()
  double density_g_cm3 = 0;
  double step_m = 0;  // fixed step length d of the tables
  MomentumBinning binning = MomentumBinning::log;
  int charge = -1;  // of the muons that generated the samples
  std::uint64_t seed = 0;
  std::string generator;      // engine version and options, or "samples: FILE"
  std::string source_sha256;  // SHA-256 of the sample file ("" for the engine)
  std::string created_utc;    // ISO 8601, e.g. "2026-11-22T03:00:00Z"
  double epsilon = 0;         // adaptive binning tolerance (0 otherwise)
  double tail_fraction = 0;   // lower-tail quantile sent to the floor bins
  std::string cache_key;      // TableCache::key() of a cached table ("" otherwise)
  int format_version = kTableFormatVersion;
};

// The arrays. Momentum bin b owns cells [b * cells_per_bin, (b + 1) * cells_per_bin).
struct TableData {
  int nx = 0, ny = 0;                          // log bins per axis (floor bin not counted)
  std::vector<double> p_edges;                 // n + 1, ascending (GeV/c)
  std::vector<double> p_centres;               // n, exp(<ln p0>) of each bin's samples
  std::vector<HistAxes> axes;                  // n
  std::vector<std::uint32_t> counts;           // n * cells_per_bin: the histograms
  std::vector<AliasCell> cells;                // n * cells_per_bin: their alias tables
  std::vector<std::uint64_t> samples_per_bin;  // n
  std::vector<double> mean_loss;               // n, <-dPz/P> of the samples
  std::vector<double> std_loss;                // n
  std::vector<double> mean_kick;               // n, <dPt/P>

  int n_pbins() const { return static_cast<int>(p_centres.size()); }
  int cells_per_bin() const { return (nx + 1) * (ny + 1); }
};

// Whether TableParams checks the alias cells one by one: cells read from a
// file may hold anything; cells that build_alias_table has just made (or cut
// from a table already checked) are valid by construction, and a whole
// ladder's ~2e7 of them take a sizeable part of its load to check.
enum class AliasCells { unchecked, valid };

class TableParams {
 public:
  // Checks every size and value (finite, ascending edges, centres inside
  // their bins, alias indices in range, unless `cells` says they are valid);
  // throws fastmu::Error naming `source` (a file name, or "table") and the
  // offending field. `threads` check the alias cells (0: all cores).
  // `data.counts` may be empty: a table loaded for sampling only
  // (TableLoadOptions).
  TableParams(TableMetadata metadata, TableData data, const std::string& source = "table",
              int threads = 0, AliasCells cells = AliasCells::unchecked);

  const TableMetadata& metadata() const { return meta_; }
  // False for a table loaded without its histograms (the table cache's).
  bool has_histogram() const { return !data_.counts.empty(); }
  // The table cache stamps its key on a table it built, before sharing it.
  void set_cache_key(std::string key) { meta_.cache_key = std::move(key); }
  const TableData& data() const { return data_; }
  int n_pbins() const { return data_.n_pbins(); }

  // A view of the host arrays.
  TableView host_view() const {
    return make_view([](const auto* p, std::size_t) { return p; });
  }

  // A view whose arrays are copy(host_pointer, count) -> pointer: identity on
  // the host, a cudaMemcpy into device memory for the GPU (the caller owns
  // what copy allocates).
  template <class Copy>
  TableView make_view(Copy&& copy) const {
    TableView v = view_header();
    v.p_edges = copy(p_edges_f_.data(), p_edges_f_.size());
    v.p_centres = copy(p_centres_f_.data(), p_centres_f_.size());
    v.axes = copy(data_.axes.data(), data_.axes.size());
    v.cells = copy(data_.cells.data(), data_.cells.size());
    return v;
  }

  // Bytes a device copy needs.
  std::size_t device_bytes() const;

 private:
  TableView view_header() const;

  TableMetadata meta_;
  TableData data_;
  std::vector<float> p_edges_f_, p_centres_f_;  // float copies for the view
};

}  // namespace fastmu
