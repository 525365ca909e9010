// The slant-depth table of one material: what becomes of sea-level muons
// along a straight path through it, built once by the fast transport and
// reused for every zenith angle, depth and site (the approach of MUTE,
// Fedynitch, Woodley & Piro, with fastmu's own transport in place of
// PROPOSAL).
//
// N vertical muons, total energy E0 log-uniform in [e_min, e_max], go down a
// column of the material in segments; after each segment the survivors'
// energies are recorded at its bottom (a depth of the grid, m.w.e. = hg/cm^2),
// and they start the next segment vertical again, so a muon's path length is
// the slant depth. Where a muon stops or decays is kept exactly, so survival
// to any depth needs no interpolation; energies between grid depths are
// interpolated linearly. Muons above the tables' top (100 TeV/c) lose the
// mean loss a + b E (the detailed engine's, at 100 TeV) over a segment instead,
// without fluctuations.
//
// A site weights each muon by the sea-level flux at its E0 and zenith angle
// over the density E0 was drawn from (SiteFlux.hh).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace fastmu {
class MaterialLibrary;
class TableCache;
enum class Backend;
}  // namespace fastmu

namespace fastmu::underground {

inline constexpr double kTableTopGeV = 1e5;  // the fast transport's tables' top momentum

struct SlantTableOptions {
  std::size_t muons = 200000;       // sea-level muons in the table
  double e_min = 1.0, e_max = 1e7;  // total energy range [GeV], log-uniform
  double depth_max_mwe = 20000;     // deepest slant depth [m.w.e.]
  std::uint64_t seed = 1;
};

// The grid of slant depths [m.w.e.]: 0, then every 20 to 400, 100 to 2000,
// 250 to 6000 and 500 beyond, up to depth_max (its last point).
std::vector<double> slant_depth_grid(double depth_max_mwe);

struct SlantDepthTable {
  std::string material;  // material name (in the MaterialLibrary)
  SlantTableOptions options;
  std::vector<double> depths;  // the grid [m.w.e.], depths[0] = 0
  double loss_a = 0;           // mean loss above the tables, a [GeV per m.w.e.]
  double loss_b = 0;           //   and b [per m.w.e.]
  // Per muon, sorted by end depth, deepest first (those alive at a depth
  // are a prefix):
  std::vector<float> e0;              // sea-level total energy [GeV]
  std::vector<std::int32_t> pdg;      // 13 / -13
  std::vector<float> end_depth;       // where it stopped or decayed [m.w.e.]; > depth_max: survived
  std::vector<std::uint32_t> offset;  // its energies start at energy[offset[i]]
  std::vector<float> energy;          // total energy at depths[0..k] while alive [GeV]

  std::size_t size() const { return e0.size(); }
  // Muons alive at slant depth x [m.w.e.] (the first ones).
  std::size_t alive_at(double x) const;
  // Energy [GeV] of muon i (alive at x) at slant depth x.
  double energy_at(std::size_t i, double x) const;
  // The density q(E0) the energies were drawn from [GeV^-1].
  double energy_density(double e0_gev) const;
};

// Checks the options (one line naming the bad one): 1000 <= muons <= 1e8,
// muon mass < e_min < e_max <= 1e7 GeV, 100 <= depth_max <= 30000 m.w.e.
void check_slant_options(const SlantTableOptions& o);

// The table of `material` (a name in `materials`): from the table cache's
// folder when one made with the same material, tables and options is there,
// else built with the fast transport (on `backend`, `threads` CPU threads)
// and written there. `build_seconds` (may be null) receives the build's
// wall time (0 when loaded).
SlantDepthTable slant_depth_table(const std::string& material, MaterialLibrary& materials,
                                  TableCache& cache, const SlantTableOptions& options,
                                  Backend backend, int threads, bool progress,
                                  double* build_seconds = nullptr);

// The table file's name in the cache folder for a key (material and options).
std::filesystem::path slant_table_path(const std::filesystem::path& cache_dir,
                                       const std::string& material, const std::string& key);
void write_slant_table(const std::filesystem::path& path, const SlantDepthTable& t,
                       const std::string& key);
// The table in `path` if it exists and carries `key`, else false.
bool read_slant_table(const std::filesystem::path& path, const std::string& key,
                      SlantDepthTable& t);

}  // namespace fastmu::underground
