// `fastmu physics sample` and `fastmu physics transport`: the detailed
// engine on the command line (see interfaces.md, "Command line").
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <unistd.h>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "fastmu/cli/Commands.hh"
#include "fastmu/cli/MpiProgress.hh"
#include "fastmu/cli/MpiSession.hh"
#include "fastmu/core/Error.hh"
#include "fastmu/core/InputLimits.hh"
#include "fastmu/core/Parallel.hh"
#include "fastmu/core/Progress.hh"
#include "fastmu/io/AtomicOutput.hh"
#include "fastmu/io/ColumnTable.hh"
#include "fastmu/materials/Material.hh"
#include "fastmu/physics/DetailedEngine.hh"
#include "fastmu/physics/LadderSampler.hh"

namespace fastmu::cli {
namespace {

constexpr double kSameAsP = -1;  // --p-max not given: p

struct CommonOptions {
  std::string material;
  double p = 0;
  double p_max = kSameAsP;
  long long n = 0;
  int charge = -1;
  unsigned long long seed = 1;
  int threads = 0;
  std::string backend = "auto";
  std::string out;
  std::string compression = "none";
  bool photonuclear = false;
  bool decay = false;
};

void add_common(CLI::App* cmd, CommonOptions& o) {
  cmd->add_option("--material", o.material, "Material name (Geant4 NIST, e.g. G4_Fe; 'vacuum')")
      ->required();
  cmd->add_option("--p", o.p, "Initial momentum [GeV/c] (lower edge when --p-max is given)")
      ->required();
  cmd->add_option("--p-max", o.p_max, "Upper edge [GeV/c]: momentum uniform in [p, p-max]");
  cmd->add_option("--n", o.n, "Number of muons")->required();
  cmd->add_option("--charge", o.charge, "Muon charge: -1 (mu-) or 1 (mu+)")->capture_default_str();
  cmd->add_option("--seed", o.seed, "Random seed (muon i uses stream (seed, i))")
      ->capture_default_str();
  cmd->add_option("--backend", o.backend, "Engine on cpu, cuda or auto (the GPU when there is one)")
      ->capture_default_str()
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}));
  cmd->add_option("--threads", o.threads,
                  "Worker threads (0: all cores); output does not depend on it")
      ->capture_default_str();
  cmd->add_option("--out", o.out,
                  "Output file: CSV, or HDF5 by extension .h5/.hdf5 "
                  "(columns p0,px,py,pz,x,y,z; stopped muons have px=py=pz=0)")
      ->required();
  cmd->add_option("--compression", o.compression, "HDF5 output: none | gzip | gzip:1..9 | szip")
      ->capture_default_str();
  cmd->add_flag("--photonuclear", o.photonuclear,
                "Muon photonuclear interactions at every energy (default: from 400 GeV "
                "kinetic energy on, off below)");
  cmd->add_flag("--decay", o.decay,
                "Enable muon decay in flight (a decayed muon is recorded as stopped)");
}

void check_common(const CommonOptions& o) {
  auto bad = [](const std::string& what) { throw Error(what); };
  const std::string range = fmt::format("(0, {:g}] GeV/c", limits::kTopMomentum);
  if (!(o.p > 0 && o.p <= limits::kTopMomentum))
    bad(fmt::format("--p: {:g} GeV/c is not a momentum in {}", o.p, range));
  if (o.p_max != kSameAsP && !(o.p_max >= o.p && o.p_max <= limits::kTopMomentum))
    bad(fmt::format("--p-max: {:g} GeV/c is not a momentum in [--p, {:g}] GeV/c", o.p_max,
                    limits::kTopMomentum));
  if (o.n <= 0) bad("--n: number of muons must be positive, got " + std::to_string(o.n));
  if (o.charge != -1 && o.charge != 1)
    bad("--charge: must be -1 or 1, got " + std::to_string(o.charge));
  if (o.threads < 0) bad("--threads: must be >= 0, got " + std::to_string(o.threads));
  if (o.out.empty()) bad("--out: empty file name");
  io::h5::parse_compression(o.compression);  // a bad value fails before the work
  // Fails early (before a long run) when the output cannot be written.
  io::AtomicOutput probe(o.out);
}

void write_samples(const std::string& path, const std::vector<MuonSample>& samples,
                   const std::string& compression) {
  const io::h5::Compression c = io::h5::parse_compression(compression);
  if (io::format_from_path(path) == io::TableFormat::hdf5) {
    // Straight from the samples: they are rows of 7 doubles already.
    static_assert(sizeof(MuonSample) == 7 * sizeof(double) &&
                  std::is_standard_layout_v<MuonSample>);
    io::AtomicOutput out(path);
    out.write([&](const std::filesystem::path& temp) {
      io::h5::Handle file = io::h5::create_file(temp.string());
      io::h5::write_dataset<double>(file.get(), "muons", {samples.size(), 7},
                                    reinterpret_cast<const double*>(samples.data()), c);
      io::h5::Handle ds(H5Dopen2(file.get(), "muons", H5P_DEFAULT));
      io::h5::write_attribute(ds.get(), "columns", std::string("p0,px,py,pz,x,y,z"));
      ds.reset();
      io::h5::close_written_file(file);
    });
    return;
  }
  io::ColumnTable table;
  table.columns = {"p0", "px", "py", "pz", "x", "y", "z"};
  table.values.resize(samples.size() * 7);
  double* v = table.values.data();
  for (const auto& s : samples) {
    v[0] = s.p0, v[1] = s.px, v[2] = s.py, v[3] = s.pz, v[4] = s.x, v[5] = s.y, v[6] = s.z;
    v += 7;
  }
  io::write_table(path, table, "muons", c);
}

PhysicsOptions physics_options(const CommonOptions& o) {
  PhysicsOptions opt;
  opt.photonuclear = o.photonuclear;
  opt.decay = o.decay;
  return opt;
}

Vec3 parse_field(const std::string& text) {
  std::vector<double> v;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    try {
      std::size_t used = 0;
      v.push_back(std::stod(item, &used));
      if (used != item.size()) throw std::invalid_argument(item);
    } catch (const std::exception&) {
      throw Error("--field: '" + text + "' is not three numbers BX,BY,BZ in tesla");
    }
  }
  const auto bounded = [](double b) { return std::abs(b) <= limits::kMaxField; };
  if (v.size() != 3 || !bounded(v[0]) || !bounded(v[1]) || !bounded(v[2]))
    throw Error("--field: '" + text + "' is not three numbers BX,BY,BZ in [-1000, 1000] tesla");
  return {v[0], v[1], v[2]};
}

}  // namespace

void register_physics_commands(CLI::App& app) {
  auto* physics =
      app.add_subcommand("physics", "Detailed muon physics engine (Geant4-like condensed history)");
  physics->require_subcommand(1);

  auto sample_opts = std::make_shared<CommonOptions>();
  auto step = std::make_shared<double>(0);
  auto* sample = physics->add_subcommand(
      "sample",
      "Single-step sampler: muons start at the centre of a sphere of radius --step filled with "
      "--material, momentum (0,0,p), and are recorded where they leave it");
  add_common(sample, *sample_opts);
  sample->add_option("--step", *step, "Sphere radius (step length) [m]")->required();
  sample->callback([sample_opts, step] {
    const CommonOptions& o = *sample_opts;
    check_common(o);
    if (!(*step > 0 && *step <= limits::kMaxStep))
      throw Error(fmt::format("--step: {:g} m is not in (0, {:g}] m", *step, limits::kMaxStep));
    const Material& material = builtin_materials().find(o.material);
    // Under mpirun each rank samples its share of the muon ids; rank 0
    // gathers the shares in order and writes the one-process file.
    const auto n = static_cast<std::uint64_t>(o.n);
    const std::uint64_t begin = mpi::split(n, mpi::rank()), end = mpi::split(n, mpi::rank() + 1);
    const auto bar = mpi::rank_progress_bar("physics sample", std::size_t(end - begin), n);
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<MuonSample> samples;
    mpi::collective([&] {
      samples = sample_single_step(
          material, o.p, o.p_max >= 0 ? o.p_max : o.p, *step, std::size_t(end - begin), o.charge,
          o.seed, resolve_thread_count(o.threads), physics_options(o),
          [&bar](std::size_t k) { bar->add(k); }, begin,
          resolve_engine_backend(o.backend, "--backend"));
    });
    bar->finish(n);  // every rank has done its share
    mpi::gather_rows(samples, sizeof(MuonSample));
    const auto t1 = std::chrono::steady_clock::now();
    mpi::collective([&] {
      if (mpi::rank() == 0) write_samples(o.out, samples, o.compression);
    });
    const auto t2 = std::chrono::steady_clock::now();
    if (mpi::rank() == 0) {
      std::printf("sampled %zu muons in %.3f s, wrote %s in %.3f s\n", samples.size(),
                  std::chrono::duration<double>(t1 - t0).count(), o.out.c_str(),
                  std::chrono::duration<double>(t2 - t1).count());
    }
  });

  auto transport_opts = std::make_shared<CommonOptions>();
  auto thickness = std::make_shared<double>(0);
  auto field_text = std::make_shared<std::string>("0,0,0");
  auto* transport = physics->add_subcommand(
      "transport",
      "Slab transport: muons start at the origin along +z through --material filling "
      "0 <= z <= --thickness (|x|,|y| <= 20 m), optional uniform field; recorded where they leave");
  add_common(transport, *transport_opts);
  transport->add_option("--thickness", *thickness, "Slab thickness [m]")->required();
  transport->add_option("--field", *field_text, "Uniform magnetic field BX,BY,BZ [T]")
      ->capture_default_str();
  transport->callback([transport_opts, thickness, field_text] {
    const CommonOptions& o = *transport_opts;
    check_common(o);
    if (!(*thickness > 0 && *thickness <= limits::kMaxThickness)) {
      throw Error(fmt::format("--thickness: {:g} m is not in (0, {:g}] m", *thickness,
                              limits::kMaxThickness));
    }
    const Vec3 field = parse_field(*field_text);
    const Material& material = builtin_materials().find(o.material);
    ProgressBar bar("physics transport", std::size_t(o.n));
    const auto samples = transport_slab(
        material, *thickness, o.p, o.p_max >= 0 ? o.p_max : o.p, std::size_t(o.n), o.charge, field,
        o.seed, resolve_thread_count(o.threads), physics_options(o),
        [&bar](std::size_t k) { bar.add(k); }, resolve_engine_backend(o.backend, "--backend"));
    bar.finish();
    write_samples(o.out, samples, o.compression);
  });
}

}  // namespace fastmu::cli
