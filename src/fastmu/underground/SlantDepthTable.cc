#include "fastmu/underground/SlantDepthTable.hh"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <numeric>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "fastmu/core/Constants.hh"
#include "fastmu/core/Error.hh"
#include "fastmu/core/Random.hh"
#include "fastmu/core/Timing.hh"
#include "fastmu/flux/SeaLevelFlux.hh"
#include "fastmu/io/AtomicOutput.hh"
#include "fastmu/materials/Material.hh"
#include "fastmu/physics/DetailedEngine.hh"
#include "fastmu/physics/MuonPhysicsTables.hh"
#include "fastmu/tables/Sha256.hh"
#include "fastmu/tables/TableCache.hh"
#include "fastmu/transport/Transport.hh"
#include "fastmu/transport/examples/Examples.hh"

namespace fastmu::underground {

namespace {

constexpr double kHalfWidth = 1000.0;  // m: the column's half width (scattered muons stay inside)
constexpr int kFormatVersion = 1;
constexpr char kMagic[8] = {'F', 'M', 'S', 'L', 'A', 'N', 'T', '1'};

// A slab of `thickness` metres of `material` below z = 0 in a vacuum world
// that ends 1 m below it: a muon that leaves the world's bottom crossed it.
nlohmann::json segment_geometry(const std::string& material, double thickness) {
  const double w = kHalfWidth, h = thickness;
  return {
      {"world", {{"min", {-w, -w, -h - 1.0}}, {"max", {w, w, 1.0}}, {"material", "vacuum"}}},
      {"volumes",
       {{{"name", "overburden"},
         {"shape", "box"},
         {"min", {-w, -w, -h}},
         {"max", {w, w, 0.0}},
         {"material", material}}}},
  };
}

// The detailed engine's mean loss at the tables' top, as a + b E per m.w.e.
void mean_loss_at_top(const Material& m, double& a, double& b) {
  PhysicsOptions o;
  o.photonuclear = true;
  const MuonPhysicsTables t(m, o);
  const double per_mwe = 1.0 / m.density_g_cm3;  // GeV/m -> GeV per m.w.e.
  const double e = kTableTopGeV;
  a = t.ionisation_dedx(e) * per_mwe;
  b = (t.brems_dedx(e) + t.pair_dedx(e) + t.photonuclear_dedx(e)) * per_mwe / e;
}

// The muons' state while the table is built.
struct Column {
  std::vector<double> energy;                // current total energy [GeV]
  std::vector<std::vector<float>> energies;  // at each grid depth reached
  std::vector<float> end_depth;
  std::vector<char> alive;
};

double momentum_of(double e) {
  const double m = constants::muon_mass;
  return std::sqrt(std::max(e * e - m * m, 0.0));
}

// One segment [x0, x0 + dx] m.w.e. for the muons alive: CSDA above the
// tables' top, the fast transport below.
void transport_segment(const SlantDepthTable& t, Column& c, const TransportParams& params,
                       double x0, double dx, double density, Backend backend, int threads,
                       std::uint64_t first_id) {
  const double thickness = dx / density;  // m
  MuonBatch batch;
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < c.energy.size(); ++i) {
    if (!c.alive[i]) continue;
    const double e = c.energy[i];
    if (e > kTableTopGeV) {  // mean loss, no fluctuations
      const double ab = t.loss_a / t.loss_b;
      c.energy[i] = (e + ab) * std::exp(-t.loss_b * dx) - ab;
      continue;
    }
    rows.push_back(i);
    batch.push_back(0.0f, 0.0f, -static_cast<float>(momentum_of(e)), 0.0f, 0.0f, 0.5f, t.pdg[i]);
  }
  if (rows.empty()) return;
  const TransportResult r = transport(params, batch, backend, threads, first_id);
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const std::size_t i = rows[k];
    const auto& m = r.muons;
    const bool through =
        r.status[k] == static_cast<int>(MuonStatus::left_world) && m.z[k] < -thickness;
    if (through) {
      const double p2 =
          double(m.px[k]) * m.px[k] + double(m.py[k]) * m.py[k] + double(m.pz[k]) * m.pz[k];
      c.energy[i] = std::sqrt(p2 + constants::muon_mass * constants::muon_mass);
      continue;
    }
    // Stopped or decayed inside (or, rarely, out of the side or the top:
    // counted as ending at the segment's top).
    const bool inside = r.status[k] == static_cast<int>(MuonStatus::stopped) ||
                        r.status[k] == static_cast<int>(MuonStatus::decayed);
    const double depth = inside ? std::clamp(-double(m.z[k]), 0.0, thickness) * density : 0.0;
    c.alive[i] = 0;
    c.end_depth[i] = static_cast<float>(x0 + depth);
  }
}

// Sorts the muons by end depth (deepest first) and packs their energies.
void pack(SlantDepthTable& t, Column& c) {
  const std::size_t n = c.energy.size();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return c.end_depth[a] > c.end_depth[b]; });
  SlantDepthTable out = t;
  out.e0.clear(), out.pdg.clear(), out.end_depth.clear(), out.offset.clear(), out.energy.clear();
  for (const std::size_t i : order) {
    out.e0.push_back(t.e0[i]);
    out.pdg.push_back(t.pdg[i]);
    out.end_depth.push_back(c.end_depth[i]);
    out.offset.push_back(static_cast<std::uint32_t>(out.energy.size()));
    out.energy.insert(out.energy.end(), c.energies[i].begin(), c.energies[i].end());
  }
  t = std::move(out);
}

SlantDepthTable build_table(const Material& material, MaterialLibrary& materials, TableCache& cache,
                            const SlantTableOptions& o, Backend backend, int threads) {
  SlantDepthTable t;
  t.material = material.name;
  t.options = o;
  t.depths = slant_depth_grid(o.depth_max_mwe);
  mean_loss_at_top(material, t.loss_a, t.loss_b);
  const std::size_t n = o.muons;
  const double log_range = std::log(o.e_max / o.e_min);
  const double plus_fraction = flux::kChargeRatio / (1.0 + flux::kChargeRatio);
  Column c;
  c.energy.resize(n), c.energies.resize(n), c.alive.assign(n, 1);
  c.end_depth.assign(n, static_cast<float>(2 * o.depth_max_mwe));
  for (std::size_t i = 0; i < n; ++i) {
    CounterRng rng(o.seed, i, RngStream::muon_source);
    t.e0.push_back(static_cast<float>(o.e_min * std::exp(rng.uniform() * log_range)));
    t.pdg.push_back(rng.uniform() < plus_fraction ? -13 : 13);
    c.energy[i] = t.e0.back();
    c.energies[i].push_back(t.e0.back());
  }
  cache.build_options().p_top = kTableTopGeV;
  StepOptions step;
  step.seed = o.seed;
  std::map<long, std::unique_ptr<TransportParams>> params;  // by segment thickness [mm.w.e.]
  for (std::size_t k = 0; k + 1 < t.depths.size(); ++k) {
    const double x0 = t.depths[k], dx = t.depths[k + 1] - x0;
    const long key = std::lround(dx * 1000);
    if (!params.count(key)) {
      params[key] = std::make_unique<TransportParams>(
          make_transport_params(segment_geometry(material.name, dx / material.density_g_cm3),
                                "slant-depth table", materials, TableSet{}, &cache, step));
    }
    transport_segment(t, c, *params[key], x0, dx, material.density_g_cm3, backend, threads,
                      static_cast<std::uint64_t>(k) * n);
    for (std::size_t i = 0; i < n; ++i) {
      if (c.alive[i]) c.energies[i].push_back(static_cast<float>(c.energy[i]));
    }
  }
  pack(t, c);
  return t;
}

// Everything the table depends on: the material's tables' key (its
// definition, the tables' binning and generator) and the options.
std::string table_key(const Material& material, const TableCache& cache,
                      const SlantTableOptions& o) {
  TableBuildOptions b = cache.build_options();
  b.p_top = kTableTopGeV;
  return fmt::format(
      "slant-depth table v{}; muons {}; e {:.17g}..{:.17g}; depth_max {:.17g}; "
      "seed {}; engine {}",
      kFormatVersion, o.muons, o.e_min, o.e_max, o.depth_max_mwe, o.seed,
      TableCache::key(material, b));
}

template <class T>
void write_vec(std::ofstream& f, const std::vector<T>& v) {
  const std::uint64_t n = v.size();
  f.write(reinterpret_cast<const char*>(&n), sizeof n);
  f.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(n * sizeof(T)));
}

template <class T>
bool read_vec(std::ifstream& f, std::vector<T>& v) {
  std::uint64_t n = 0;
  if (!f.read(reinterpret_cast<char*>(&n), sizeof n) || n > (std::uint64_t(1) << 34)) return false;
  v.resize(n);
  return static_cast<bool>(
      f.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(n * sizeof(T))));
}

}  // namespace

std::vector<double> slant_depth_grid(double depth_max) {
  std::vector<double> g = {0.0};
  const double steps[][2] = {{400, 20}, {2000, 100}, {6000, 250}, {1e30, 500}};
  for (const auto& [until, dx] : steps) {
    while (g.back() < std::min(until, depth_max) - 1e-9) {
      g.push_back(std::min(g.back() + dx, depth_max));
    }
  }
  return g;
}

std::size_t SlantDepthTable::alive_at(double x) const {
  // end_depth is sorted descending: the first muon that ended at or above x.
  const auto it =
      std::partition_point(end_depth.begin(), end_depth.end(), [x](float d) { return d > x; });
  return static_cast<std::size_t>(it - end_depth.begin());
}

double SlantDepthTable::energy_at(std::size_t i, double x) const {
  const std::size_t k = static_cast<std::size_t>(std::upper_bound(depths.begin(), depths.end(), x) -
                                                 depths.begin() - 1);
  const std::size_t stored = (i + 1 < offset.size() ? offset[i + 1] : energy.size()) - offset[i];
  const double e0_here = energy[offset[i] + k];
  if (k + 1 < stored) {
    const double f = (x - depths[k]) / (depths[k + 1] - depths[k]);
    return e0_here + f * (energy[offset[i] + k + 1] - e0_here);
  }
  // It ends between depths[k] and end_depth: its energy falls to that of
  // the transport's kill momentum there.
  const double end = std::min<double>(end_depth[i], k + 1 < depths.size() ? depths[k + 1] : x);
  if (!(end > depths[k])) return e0_here;
  const double f = std::clamp((x - depths[k]) / (end - depths[k]), 0.0, 1.0);
  const double p_kill = StepOptions{}.p_kill;
  const double e_end = std::sqrt(p_kill * p_kill + constants::muon_mass * constants::muon_mass);
  return std::max(e0_here + f * (e_end - e0_here), e_end);
}

double SlantDepthTable::energy_density(double e) const {
  return 1.0 / (e * std::log(options.e_max / options.e_min));
}

void check_slant_options(const SlantTableOptions& o) {
  if (o.muons < 1000 || o.muons > 100'000'000) {
    throw Error(fmt::format("table muons: {} is outside [1000, 1e8]", o.muons));
  }
  if (!(o.e_min > constants::muon_mass) || !(o.e_max > o.e_min) || !(o.e_max <= 1e7)) {
    throw Error(
        fmt::format("table energies: [{}, {}] GeV must satisfy muon mass < e_min < e_max <= 1e7",
                    o.e_min, o.e_max));
  }
  if (!(o.depth_max_mwe >= 100) || !(o.depth_max_mwe <= 30000)) {
    throw Error(fmt::format("table depth: {} m.w.e. is outside [100, 30000]", o.depth_max_mwe));
  }
}

std::filesystem::path slant_table_path(const std::filesystem::path& dir,
                                       const std::string& material, const std::string& key) {
  return dir / fmt::format("slant_{}_{}_v{}.bin", material, sha256_hex(key).substr(0, 16),
                           kFormatVersion);
}

void write_slant_table(const std::filesystem::path& path, const SlantDepthTable& t,
                       const std::string& key) {
  io::AtomicOutput out(path);
  {
    std::ofstream f(out.temp_path(), std::ios::binary);
    f.write(kMagic, sizeof kMagic);
    write_vec(f, std::vector<char>(key.begin(), key.end()));
    write_vec(f, std::vector<double>{t.loss_a, t.loss_b});
    write_vec(f, t.depths), write_vec(f, t.e0), write_vec(f, t.pdg);
    write_vec(f, t.end_depth), write_vec(f, t.offset), write_vec(f, t.energy);
    io::close_checked(f, path);
  }
  out.commit();
}

bool read_slant_table(const std::filesystem::path& path, const std::string& key,
                      SlantDepthTable& t) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  char magic[sizeof kMagic];
  std::vector<char> stored;
  std::vector<double> loss;
  if (!f.read(magic, sizeof magic) || !std::equal(magic, magic + sizeof magic, kMagic))
    return false;
  if (!read_vec(f, stored) || std::string(stored.begin(), stored.end()) != key) return false;
  if (!read_vec(f, loss) || loss.size() != 2) return false;
  t.loss_a = loss[0], t.loss_b = loss[1];
  return read_vec(f, t.depths) && read_vec(f, t.e0) && read_vec(f, t.pdg) &&
         read_vec(f, t.end_depth) && read_vec(f, t.offset) && read_vec(f, t.energy) &&
         t.e0.size() == t.end_depth.size() && t.offset.size() == t.e0.size() &&
         t.pdg.size() == t.e0.size();
}

SlantDepthTable slant_depth_table(const std::string& name, MaterialLibrary& materials,
                                  TableCache& cache, const SlantTableOptions& options,
                                  Backend backend, int threads, bool progress,
                                  double* build_seconds) {
  check_slant_options(options);
  const Material& material = materials.find(name);
  const std::string key = table_key(material, cache, options);
  const auto path = slant_table_path(cache.dir(), material.name, key);
  if (build_seconds) *build_seconds = 0;
  SlantDepthTable t;
  if (read_slant_table(path, key, t)) {
    t.material = material.name;
    t.options = options;
    return t;
  }
  if (progress) {
    std::fprintf(stderr,
                 "fastmu: building the slant-depth table of %s (%zu muons, %g-%g GeV, to %g "
                 "m.w.e.) into %s\n",
                 material.name.c_str(), options.muons, options.e_min, options.e_max,
                 options.depth_max_mwe, path.c_str());
  }
  const auto t0 = SteadyClock::now();
  t = build_table(material, materials, cache, options, backend, threads);
  if (build_seconds) *build_seconds = seconds_since(t0);
  std::filesystem::create_directories(cache.dir());
  write_slant_table(path, t, key);
  return t;
}

}  // namespace fastmu::underground
