// `fastmu run`: the fast transport on the command line (interfaces.md), and
// its built-in examples (`--example iron-block | ship | underground`).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <unistd.h>

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "fastmu/cli/Commands.hh"
#include "fastmu/cli/MpiProgress.hh"
#include "fastmu/cli/MpiSession.hh"
#include "fastmu/cli/MpiTableBuilds.hh"
#include "fastmu/cli/PythonScripts.hh"
#include "fastmu/core/Error.hh"
#include "fastmu/core/MemoryUsage.hh"
#include "fastmu/core/Parallel.hh"
#include "fastmu/core/Progress.hh"
#include "fastmu/core/Timing.hh"
#include "fastmu/core/Trace.hh"
#include "fastmu/geometry/GdmlReader.hh"
#include "fastmu/geometry/ShipShield.hh"
#include "fastmu/io/AtomicOutput.hh"
#include "fastmu/io/ColumnTable.hh"
#include "fastmu/io/InputFiles.hh"
#include "fastmu/physics/DetailedEngine.hh"
#include "fastmu/physics/LadderSampler.hh"
#include "fastmu/tables/TableCache.hh"
#include "fastmu/tables/TableFile.hh"
#include "fastmu/transport/MuonRowCheck.hh"
#include "fastmu/transport/StepOptionsCheck.hh"
#include "fastmu/transport/Transport.hh"
#include "fastmu/transport/cuda/CudaSession.hh"
#include "fastmu/transport/cuda/CudaTransport.hh"
#include "fastmu/transport/detailed/DetailedTransport.hh"
#include "fastmu/transport/examples/Examples.hh"
#include "fastmu/transport/examples/Underground.hh"
#include "fastmu/transport/stream/MuonIO.hh"
#include "fastmu/transport/stream/MuonStream.hh"
#include "fastmu/transport/stream/TopMomentumMemo.hh"

namespace fastmu::cli {
namespace {

struct RunArgs {
  std::string geometry, muons, out;
  std::vector<std::string> tables;
  std::vector<std::string> material_steps;  // NAME=LENGTH
  std::string backend = "auto";
  std::string engine = "fast";
  double step = 0.02;
  int long_steps = kDefaultLongSteps;
  std::uint64_t seed = 1;
  bool all = false;
  std::string above_tables = "refuse";
  std::string decay = "on";
  std::int64_t max_steps = 100000;
  double p_kill = 0.18;
  std::string p_max = "auto";  // the tables' top: auto (the input's) or GeV/c
  int threads = 0;
  int gpus = 0;
  std::string max_memory;
  std::size_t chunk_rows = 0;
  std::string compression = "none";
  // --example
  std::string example;
  std::size_t n = 0;
  std::size_t n_detailed = 5000;
  std::string out_dir = ".";
  bool no_plot = false;
};

// --p-max: a momentum in [1, kCacheTopMomentum] GeV/c, or "auto": the
// highest |p| of the input file, read once before the tables are looked up,
// so that a file of 20 GeV/c muons builds tables to 20 GeV/c, not 100 TeV/c
// (a bad row, or one above what any table reaches, is named here as the run
// would name it, before a table is built). A large file's top is remembered
// (TopMomentumMemo.hh): the next run on the same, unchanged file skips the pass.
double tables_top(const RunArgs& a, const TableCache& cache) {
  if (a.p_max == "auto") {
    MuonRowLimits limits;
    const bool refuse = momentum_policy(a.above_tables) == MomentumPolicy::refuse;
    if (refuse) limits.p_max = static_cast<float>(kCacheTopMomentum);  // as the transport's
    const std::filesystem::path memos = cache.dir() / "inputs";
    const std::string key = top_momentum_key(a.muons, limits.p_max);
    double top = 0;
    if (const std::optional<double> known = recall_top_momentum(memos, key)) {
      top = *known;
      trace("run: the input's top momentum remembered");
    } else {
      MuonReader reader(a.muons, a.threads, limits);
      MuonBatch chunk;
      while (reader.read(std::size_t{1} << 20, chunk))
        top = std::max(top, highest_momentum(chunk, a.threads));
      remember_top_momentum(memos, key, top);
    }
    return top > 0 ? std::min(top, kCacheTopMomentum) : 1.0;
  }
  char* end = nullptr;
  const double p = std::strtod(a.p_max.c_str(), &end);
  if (a.p_max.empty() || *end != '\0' || !(p >= 1.0 && p <= kCacheTopMomentum)) {
    throw Error(fmt::format("--p-max: '{}' is neither auto nor a momentum in [1, {:g}] GeV/c",
                            a.p_max, kCacheTopMomentum));
  }
  return p;
}

StepOptions step_options(const RunArgs& a) {
  return checked_step_options(
      {a.step, a.p_kill, a.max_steps, a.seed, a.long_steps, parse_decay(a.decay)});
}

MaterialSteps material_steps(const RunArgs& a) {
  MaterialSteps steps;
  for (const auto& text : a.material_steps) {
    const auto [name, d] = parse_material_step(text, "--material-step");
    steps[name] = d;
  }
  return steps;
}

// Tables named on the command line, by material (each sets its material's
// step); the rest come from the cache.
TableSet load_tables(const std::vector<std::string>& files) {
  TableSet set;
  for (const auto& f : files) {
    auto t = std::make_shared<const TableParams>(load_table(f, 0.0));
    const std::string name = t->metadata().material;
    if (set.count(name)) throw Error(fmt::format("--tables: two tables for material '{}'", name));
    set[name] = std::move(t);
  }
  return set;
}

struct StatusCounts {
  std::size_t by_status[kMuonStatusCount] = {};
};
StatusCounts count_status(const TransportResult& r) {
  StatusCounts c;
  for (auto s : r.status) {
    if (s >= 0 && s < kMuonStatusCount) ++c.by_status[s];
  }
  return c;
}

void print_stats(const StreamTotals& t, int threads) {
  const double n = static_cast<double>(t.rows);
  std::string where = t.backend == Backend::cuda
                          ? fmt::format("cuda, {} x {}", t.gpus, cuda::device_name())
                          : fmt::format("cpu, {} threads", resolve_thread_count(threads));
  if (mpi::active()) where += fmt::format(", x {} ranks", mpi::size());
  std::printf("transported %llu muons (%s) in %.3f s: %.4g muons/s, %.4g muon-steps/s\n",
              static_cast<unsigned long long>(t.rows), where.c_str(), t.transport_seconds,
              n / t.transport_seconds, static_cast<double>(t.steps) / t.transport_seconds);
  if (t.backend == Backend::cuda) std::printf("kernels ran %.3f s of it\n", t.kernel_seconds);
  const auto* c = t.by_status;
  std::printf(
      "status: %llu at plane, %llu stopped, %llu left world, %llu step limit, %llu outside "
      "window, %llu above the tables, %llu decayed\n",
      static_cast<unsigned long long>(c[0]), static_cast<unsigned long long>(c[1]),
      static_cast<unsigned long long>(c[2]), static_cast<unsigned long long>(c[3]),
      static_cast<unsigned long long>(c[4]), static_cast<unsigned long long>(c[5]),
      static_cast<unsigned long long>(c[6]));
}

// Where the run's time went: the stages overlap (reading, transport and
// writing each on their own thread), so the busy times need not add up.
struct RunTimes {
  double setup = 0;     // geometry and tables (built into the cache if missing)
  double geometry = 0;  // of which reading the geometry and building its grid
  double output = 0;    // closing the output file (joining the ranks' parts)
  double whole = 0;     // the run command, set-up to closed output
};

void print_times(const StreamTotals& t, const RunTimes& rt, const RunArgs& a) {
  std::error_code ec;
  const auto in = std::filesystem::file_size(a.muons, ec);
  const double in_gb = ec ? 0.0 : static_cast<double>(in) / 1e9;
  const auto out = std::filesystem::file_size(a.out, ec);
  const double out_gb = ec ? 0.0 : static_cast<double>(out) / 1e9;
  std::printf(
      "time: set-up %.3f s (geometry %.3f s, tables %.3f s), stream %.3f s (%s set-up %.3f s; "
      "busy: reading "
      "%.3f s, transport %.3f s, writing %.3f s), output %.3f s; %.3f s in all, %.2f GB in + "
      "%.2f GB out = %.2f GB/s\n",
      rt.setup, rt.geometry, rt.setup - rt.geometry, t.wall_seconds,
      t.backend == Backend::cuda ? "GPU" : "CPU", t.prepare_seconds, t.read_seconds,
      t.transport_seconds, t.write_seconds, rt.output, rt.whole, in_gb, out_gb,
      rt.whole > 0 ? (in_gb + out_gb) / rt.whole : 0.0);
}

void print_stats(const TransportResult& r, const TransportStats& st, int threads) {
  const double n = static_cast<double>(r.size());
  const std::string where = st.backend == Backend::cuda
                                ? fmt::format("cuda, {} x {}", st.gpus, cuda::device_name())
                                : fmt::format("cpu, {} threads", resolve_thread_count(threads));
  std::printf("transported %zu muons (%s) in %.3f s: %.4g muons/s, %.4g muon-steps/s\n", r.size(),
              where.c_str(), st.seconds, n / st.seconds,
              static_cast<double>(st.steps) / st.seconds);
  const StatusCounts c = count_status(r);
  std::printf(
      "status: %zu at plane, %zu stopped, %zu left world, %zu step limit, %zu outside window, "
      "%zu above the tables, %zu decayed\n",
      c.by_status[0], c.by_status[1], c.by_status[2], c.by_status[3], c.by_status[4],
      c.by_status[5], c.by_status[6]);
}

// The files named on the command line are inputs before they are read, so
// that an --out equal to one of them is refused before any work.
void note_run_inputs(const RunArgs& a) {
  for (const auto& f : {a.geometry, a.muons}) io::note_input(f);
  for (const auto& f : a.tables) io::note_input(f);
}

// --out's format is its extension: anything else is refused rather than
// written as CSV under a name that says otherwise.
void check_output_extension(const std::string& out) {
  const std::string ext = std::filesystem::path(out).extension().string();
  if (ext != ".csv" && ext != ".h5" && ext != ".hdf5" && ext != ".hdf") {
    throw Error(fmt::format(
        "--out {}: unknown extension '{}' (.csv for CSV, .h5 or .hdf5 for HDF5)", out, ext));
  }
}

// Without a sensitive plane no muon ends with status 0: say so before the work.
void warn_without_planes(const GeometryParams& geometry, const RunArgs& a) {
  if (!geometry.sensitive_planes().empty() || mpi::rank() != 0) return;
  std::fprintf(stderr,
               "fastmu: warning: %s has no sensitive planes: no muon can reach one (status 0)%s\n",
               a.geometry.c_str(), a.all ? "" : "; without --all the output has no rows");
}

// `run --engine detailed`: the detailed engine through the same geometry,
// muons and output (one GPU, or all cores; no tables).
void run_detailed_files(const RunArgs& a) {
  mpi::require_one_process("--engine detailed",
                           "run it as one process (it uses a GPU or all cores)");
  const EngineBackend backend = resolve_engine_backend(a.backend, "--backend");
  const StepOptions opt = step_options(a);
  MaterialLibrary materials;
  const GeometryParams geometry = load_geometry_file(a.geometry, materials);
  warn_without_planes(geometry, a);
  const MuonBatch muons = read_muons(a.muons, detailed_row_limits());
  DetailedTransportOptions d;
  d.p_kill = opt.p_kill;
  d.max_segments = opt.max_steps;
  d.seed = a.seed;
  d.threads = a.threads;
  d.physics.decay = opt.decay;
  d.backend = backend;
  ProgressBar bar("detailed", muons.size());
  const auto t0 = SteadyClock::now();
  const TransportResult r =
      transport_detailed(geometry, materials, muons, d, 0, [&](std::size_t k) { bar.add(k); });
  bar.finish();
  TransportStats stats;
  stats.seconds = seconds_since(t0);
  stats.kernel_seconds = stats.seconds;
  stats.steps = r.total_steps();
  if (backend == EngineBackend::cuda) stats.backend = Backend::cuda, stats.gpus = 1;
  write_transport_result(a.out, r, a.all, geometry.sensitive_planes().size() > 1);
  print_stats(r, stats, a.threads);
  std::printf("wrote %s (detailed engine; steps = volume segments)\n", a.out.c_str());
}

// Where rank `r`'s rows wait to be joined: next to the output (a folder
// every rank can reach), named after the output and rank 0's process id.
std::filesystem::path part_path(const std::filesystem::path& out, std::uint64_t job, int r) {
  const auto dir = out.has_parent_path() ? out.parent_path() : std::filesystem::path(".");
  return dir / fmt::format(".{}.{}.rank{}.part", out.filename().string(), job, r);
}

// Joins the ranks' parts into O: rank 0 lays the file out for all the rows,
// every rank writes its part at its place (after the rows of the ranks
// before it) at the same time, and rank 0 finishes the file. A compressed
// dataset or an output under one HDF5 chunk is joined by rank 0 in rank order
// instead. Either way the file equals a one-process run's byte for byte.
// Each rank's part is removed by that rank when the run ends (run_files);
// every collective step below ends with all ranks, so no part goes early.
void join_parts(const RunArgs& a, std::uint64_t job, OutputLayout layout,
                io::h5::Compression compression, std::uint64_t part_rows) {
  const int rank = mpi::rank(), ranks = mpi::size();
  const auto own = part_path(a.out, job, rank);
  std::error_code ec;
  const std::uint64_t own_bytes = std::filesystem::file_size(own, ec);
  std::vector<std::uint64_t> sizes(2 * static_cast<std::size_t>(ranks), 0);
  sizes[2 * rank] = part_rows;
  sizes[2 * rank + 1] = ec ? 0 : own_bytes;  // a missing part fails in place_part
  mpi::sum(sizes.data(), static_cast<int>(sizes.size()));
  std::uint64_t total = 0, rows_before = 0, bytes_before = 0;
  for (int r = 0; r < ranks; ++r) {
    if (r < rank) rows_before += sizes[2 * r], bytes_before += sizes[2 * r + 1];
    total += sizes[2 * r];
  }
  std::unique_ptr<MuonWriter> out;
  std::vector<unsigned char> shared;  // rank 0's layout, empty: joined in order
  mpi::collective([&] {
    if (rank != 0) return;
    out = std::make_unique<MuonWriter>(a.out, layout, compression, a.threads);
    MuonWriter::PartLayout placed;
    if (out->lay_out_parts(total, placed)) shared = placed.to_bytes();
  });
  mpi::broadcast_bytes(shared);
  if (!shared.empty()) {
    const MuonWriter::PartLayout placed = MuonWriter::PartLayout::from_bytes(shared);
    mpi::collective([&] {
      MuonWriter::place_part(placed, own, rows_before, bytes_before,
                             mpi::threads_per_rank(a.threads));
    });
  }
  trace(shared.empty() ? "run: parts to be joined by rank 0" : "run: own part placed");
  mpi::collective([&] {
    if (rank != 0) return;
    if (shared.empty()) {
      for (int r = 0; r < ranks; ++r) out->append_part(part_path(a.out, job, r));
    }
    out->commit();
  });
}

// The GPUs are found (the driver's start: ~0.1 s) and their contexts
// started on a thread of their own while the geometry and the cached tables
// load; a missing GPU still stops the run before any table build. CUDA: one
// GPU per rank under mpirun, else `want` (0: all visible).
struct BackendStart {
  std::promise<std::pair<Backend, int>> promise;
  std::future<std::pair<Backend, int>> found = promise.get_future();
  std::jthread contexts;

  BackendStart(Backend requested, int want)
      : contexts([this, requested, want] {
          int gpus = want;
          Backend backend = Backend::cpu;
          try {
            backend = resolve_backend(requested);
            if (backend == Backend::cuda) gpus = mpi::active() ? 1 : resolve_gpu_count(want);
            promise.set_value({backend, gpus});
          } catch (...) {
            promise.set_exception(std::current_exception());
            return;
          }
          if (backend == Backend::cuda) {
            cuda::start_devices(gpus);
            trace("run: GPU contexts started");
          }
        }) {}
};

// The stream's options for this rank: its share of the n rows, the chunk
// size, the result rows kept.
StreamOptions stream_options(const RunArgs& a, Backend backend, int gpus, std::uint64_t n,
                             std::uint64_t max_memory, MuonReader& reader) {
  StreamOptions so;
  so.backend = backend;
  so.threads = a.threads;
  so.gpus = gpus;
  so.rows = a.all ? ResultRows::all : ResultRows::at_plane;
  so.begin = mpi::active() ? mpi::split(n, mpi::rank()) : 0;
  so.end = mpi::active() ? mpi::split(n, mpi::rank() + 1) : n;
  // CPU: chunks small enough that reading and writing overlap the
  // transport; CUDA: large enough to fill every GPU. A chunk ends with the
  // GPUs waiting for the slowest, so with several GPUs twice as many rows
  // per GPU (two H100s, 4e7 SHiP-like muons: 1.88-1.89x one GPU with 2^22
  // rows per GPU, 1.98-2.01x with 2^23).
  so.chunk_rows = backend == Backend::cuda
                      ? (std::size_t(1) << (gpus > 1 ? 23 : 22)) * static_cast<std::size_t>(gpus)
                      : std::size_t(1) << 19;
  if (a.chunk_rows > 0) {
    so.chunk_rows = a.chunk_rows;
  } else if (max_memory > 0) {
    so.chunk_rows =
        chunk_rows_for_memory(max_memory, resident_bytes(), stream_bytes_per_row(reader));
  }
  return so;
}

// Under mpirun: the ranks' counts summed and their times the slowest's.
void reduce_over_ranks(StreamTotals& totals, RunTimes& times) {
  std::uint64_t counts[2 + kMuonStatusCount] = {totals.rows, totals.steps};
  for (int k = 0; k < kMuonStatusCount; ++k) counts[2 + k] = totals.by_status[k];
  mpi::sum(counts, 2 + kMuonStatusCount);
  totals.rows = counts[0], totals.steps = counts[1];
  for (int k = 0; k < kMuonStatusCount; ++k) totals.by_status[k] = counts[2 + k];
  totals.transport_seconds = mpi::max(totals.transport_seconds);
  totals.kernel_seconds = mpi::max(totals.kernel_seconds);
  for (double* v : {&totals.prepare_seconds, &totals.read_seconds, &totals.write_seconds,
                    &totals.wall_seconds, &times.setup})
    *v = mpi::max(*v);
}

// `fastmu run --geometry G --muons M --out O`: streams M through the
// transport in chunks (reading, transport and writing overlapped). Under
// mpirun each rank takes a contiguous share of the rows and writes its encoded
// rows to a part file, and the parts are joined into O (join_parts),
// atomically, so the file equals a one-process run byte for byte.
void run_files(const RunArgs& a) {
  if (a.geometry.empty() || a.muons.empty() || a.out.empty()) {
    throw Error("run: --geometry, --muons and --out are required (or --example NAME)");
  }
  note_run_inputs(a);
  { io::AtomicOutput probe(a.out); }  // fail on an unwritable --out before the work
  check_output_extension(a.out);
  const io::h5::Compression compression = io::h5::parse_compression(a.compression);
  const std::uint64_t max_memory =
      a.max_memory.empty() ? 0 : parse_memory_size(a.max_memory, "--max-memory");
  if (a.engine == "detailed") return run_detailed_files(a);
  if (a.engine != "fast")
    throw Error(fmt::format("--engine: '{}' is not fast or detailed", a.engine));
  const auto t_run = SteadyClock::now();
  trace("run: start");
  RunTimes times;
  BackendStart started(parse_backend(a.backend), a.gpus);
  const StepOptions opt = step_options(a);
  MaterialLibrary materials;
  std::shared_ptr<const GeometryParams> geometry;
  std::unique_ptr<TransportParams> params;
  TableCache cache;
  // Every rank asks the cache for the same tables in the same order, so that
  // the ranks build missing ones together (MpiTableBuilds.hh).
  cache.share_builds(mpi::bin_share());
  cache.build_options().threads = mpi::threads_per_rank(a.threads);
  TableSet given;
  mpi::collective([&] {
    geometry = std::make_shared<const GeometryParams>(load_geometry_file(a.geometry, materials));
    given = load_tables(a.tables);
    cache.build_options().p_top = tables_top(a, cache);
  });
  times.geometry = seconds_since(t_run);
  { io::AtomicOutput probe(a.out); }  // nor one of the files the geometry names
  trace("run: geometry loaded");
  warn_without_planes(*geometry, a);
  cache.preload(cache_tables_needed(*geometry, materials, given, cache, opt, material_steps(a)));
  const std::pair<Backend, int> resolved = started.found.get();  // before any table build
  const Backend backend = resolved.first;
  const int gpus = resolved.second;
  params = std::make_unique<TransportParams>(
      make_transport_params(geometry, materials, given, &cache, opt, material_steps(a)));
  const OutputLayout layout{a.all, geometry->sensitive_planes().size() > 1};
  times.setup = seconds_since(t_run);
  trace("run: set-up done");

  std::uint64_t job = mpi::rank() == 0 ? static_cast<std::uint64_t>(::getpid()) : 0;
  mpi::sum(&job, 1);
  StreamTotals totals;
  // Each rank's part goes when the run ends, joined or not.
  struct RemovePart {
    std::filesystem::path path;
    ~RemovePart() {
      std::error_code ec;
      if (!path.empty()) std::filesystem::remove(path, ec);
    }
  } own_part{mpi::active() ? part_path(a.out, job, mpi::rank()) : std::filesystem::path()};
  std::unique_ptr<ProgressBar> bar;  // rank 0 draws the rows of all ranks
  std::jthread gpus_down;            // the GPUs' shutdown, joined on leaving
  std::uint64_t part_rows = 0;       // rows this rank wrote to its part
  mpi::collective([&] {
    MuonReader reader(a.muons, a.threads, params->row_limits(momentum_policy(a.above_tables)));
    // The row count splits the rows over ranks and sizes the progress bar
    // (a CSV file is scanned for it only then).
    const bool need_rows = mpi::active() || mpi::progress_shown();
    const std::uint64_t n =
        need_rows ? reader.rows()
                  : reader.known_rows().value_or(std::numeric_limits<std::uint64_t>::max());
    StreamOptions so = stream_options(a, backend, gpus, n, max_memory, reader);
    bar = mpi::rank_progress_bar("run", static_cast<std::size_t>(so.end - so.begin),
                                 need_rows ? static_cast<std::size_t>(n) : 0);
    so.on_rows = [&bar](std::size_t k) { bar->add(k); };
    if (backend == Backend::cuda) {
      // The GPUs are done once the last chunk is transported: their
      // contexts go while the last rows are written, not after the exit.
      so.on_transported = [&gpus_down] {
        cuda::device_name();  // cached for the report
        gpus_down = std::jthread([] {
          shut_down_resident_gpus();
          trace("run: GPUs shut down");
        });
      };
    }
    std::unique_ptr<MuonWriter> writer =
        mpi::active()
            ? std::make_unique<MuonWriter>(part_path(a.out, job, mpi::rank()), layout, compression,
                                           a.threads, MuonWriter::Mode::part, a.out)
            : std::make_unique<MuonWriter>(a.out, layout, compression, a.threads);
    totals = transport_stream(*params, reader, *writer, so);
    const auto t_commit = SteadyClock::now();
    writer->commit();
    part_rows = writer->rows();
    times.output = seconds_since(t_commit);
    trace("run: output committed");
  });
  const auto t_join = SteadyClock::now();
  if (mpi::active()) {
    join_parts(a, job, layout, compression, part_rows);
    reduce_over_ranks(totals, times);
    times.output = mpi::max(times.output + seconds_since(t_join));
  }
  times.whole = seconds_since(t_run);
  bar->finish(static_cast<std::size_t>(totals.rows));
  if (mpi::rank() == 0) {
    print_stats(totals, a.threads);
    print_times(totals, times, a);
    std::printf("wrote %s\n", a.out.c_str());
  }
}

// Final states as the 7-column float32 file of the Geant4 reference samples
// (p0, px, py, pz, x, y, z), which the plot script reads for every source.
void write_f32(const std::filesystem::path& path, const std::vector<std::array<double, 7>>& rows) {
  io::ColumnTable t;
  t.columns = {"p0", "px", "py", "pz", "x", "y", "z"};
  t.values.reserve(rows.size() * 7);
  for (const auto& r : rows) t.values.insert(t.values.end(), r.begin(), r.end());
  io::write_table(path, t);
}

// Runs scripts/plot_run.py; no Python with NumPy and Matplotlib, or no
// script, is a warning: the run's numbers are already printed and written.
void plot(const std::vector<std::string>& args, const std::filesystem::path& png) {
  try {
    const PythonScript script = find_script("plot_run.py", {"numpy", "matplotlib"});
    if (run_script(script, args) != 0) {
      std::fprintf(stderr, "fastmu: warning: %s failed: no plot\n", script.path.c_str());
    } else {
      std::printf("wrote %s\n", png.c_str());
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "fastmu: warning: no plot: %s\n", e.what());
  }
}

double quantile(std::vector<double>& v, double q) {
  if (v.empty()) return NAN;
  const std::size_t k = static_cast<std::size_t>(q * (v.size() - 1));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

// The built-in examples' output folder, created when missing.
std::filesystem::path example_out_dir(const RunArgs& a) {
  std::filesystem::path dir = a.out_dir;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (!std::filesystem::is_directory(dir)) {
    throw Error(fmt::format("--out-dir: '{}' is not a folder and cannot be created ({})", a.out_dir,
                            ec ? ec.message() : "a file of that name exists"));
  }
  return dir;
}

// An example's transport parameters: its geometry, the --tables given and the
// rest from the table cache (`materials` and `cache` outlive the result).
TransportParams example_params(const RunArgs& a, const nlohmann::json& geometry,
                               const std::string& source, MaterialLibrary& materials,
                               TableCache& cache) {
  return make_transport_params(geometry, source, materials, load_tables(a.tables), &cache,
                               step_options(a), material_steps(a));
}

void run_iron_block(const RunArgs& a) {
  const std::filesystem::path dir = example_out_dir(a);
  const std::size_t n = a.n ? a.n : 1'000'000;
  const Backend backend = resolve_backend(parse_backend(a.backend));
  MaterialLibrary materials;
  TableCache cache;
  // The beam's muons only lose momentum: tables up to the beam momentum's
  // bin are all the example draws from (TableBuildOptions::p_top).
  cache.build_options().p_top = kIronBlockMomentum;
  const TransportParams params =
      example_params(a, iron_block_geometry_json(), "iron-block", materials, cache);
  std::printf("iron-block: %zu mu- of %g GeV/c through %g m of G4_Fe, step %g m, seed %llu\n", n,
              kIronBlockMomentum, kIronBlockThickness, a.step,
              static_cast<unsigned long long>(a.seed));
  TransportStats stats;
  const TransportResult r =
      transport(params, iron_block_muons(n), backend, a.threads, 0, &stats, a.gpus);
  print_stats(r, stats, a.threads);

  std::vector<double> p, x;
  std::vector<std::array<double, 7>> rows(n);
  std::size_t stopped = 0, decayed = 0;
  double sum_p = 0, sum_x2 = 0;
  const auto& m = r.muons;
  for (std::size_t i = 0; i < n; ++i) {
    rows[i] = {kIronBlockMomentum, m.px[i], m.py[i], m.pz[i], m.x[i], m.y[i], m.z[i]};
    if (r.status[i] != 0) {
      // Not out of the iron: zero momentum, as the Geant4 samples and the
      // detailed engine record it (a decayed muon's |p| is not a final |p|).
      rows[i] = {kIronBlockMomentum, 0, 0, 0, m.x[i], m.y[i], m.z[i]};
      stopped += r.status[i] == 1;
      decayed += r.status[i] == 6;
      continue;
    }
    const double pm = std::sqrt(double(m.px[i]) * m.px[i] + double(m.py[i]) * m.py[i] +
                                double(m.pz[i]) * m.pz[i]);
    p.push_back(pm);
    x.push_back(m.x[i]);
    sum_p += pm;
    sum_x2 += double(m.x[i]) * m.x[i];
  }
  const double mean_p = sum_p / p.size();
  const double x_rms = std::sqrt(sum_x2 / x.size());
  std::printf(
      "final |p| of the muons out of the iron [GeV/c]: mean %.3f  q10 %.3f  q50 %.3f  "
      "q90 %.3f\n",
      mean_p, quantile(p, 0.1), quantile(p, 0.5), quantile(p, 0.9));
  std::printf(
      "x rms %.2f cm, stopped fraction %.5f, decayed fraction %.5f, time %.3f s, %.4g muons/s\n",
      100 * x_rms, double(stopped) / n, double(decayed) / n, stats.seconds, n / stats.seconds);

  const auto fast_file = dir / "iron_block_fast.f32";
  write_f32(fast_file, rows);
  std::vector<std::string> args = {"iron-block", "--fast", fast_file.string()};
  if (a.n_detailed > 0) {
    const auto t0 = SteadyClock::now();
    PhysicsOptions physics;
    physics.decay = params.options().decay;  // as the fast transport (decayed: recorded stopped)
    const auto samples = transport_slab(materials.find("G4_Fe"), kIronBlockThickness,
                                        kIronBlockMomentum, kIronBlockMomentum, a.n_detailed, -1,
                                        Vec3{0, 0, 0}, a.seed, a.threads, physics);
    const double secs = seconds_since(t0);
    std::vector<std::array<double, 7>> drows;
    for (const auto& s : samples) drows.push_back({s.p0, s.px, s.py, s.pz, s.x, s.y, s.z});
    const auto detailed_file = dir / "iron_block_detailed.f32";
    write_f32(detailed_file, drows);
    std::printf("detailed engine: %zu muons in %.2f s (%.4g muons/s); fast/detailed speed %.0fx\n",
                samples.size(), secs, samples.size() / secs,
                (n / stats.seconds) / (samples.size() / secs));
    args.insert(args.end(), {"--detailed", detailed_file.string()});
  }
  // Geant4's histograms, shipped with the scripts (tools/make_geant4_reference.py).
  const auto g4 = data_dir() / "geant4_iron_block_10m_50GeV_mu-.csv";
  if (std::filesystem::exists(g4)) {
    args.insert(args.end(), {"--geant4", g4.string()});
  } else {
    std::printf("Geant4 reference %s not found: comparing with the detailed engine only\n",
                g4.c_str());
  }
  const auto png = dir / "iron_block.png";
  args.insert(args.end(), {"--out", png.string()});
  if (!a.no_plot) plot(args, png);
}

void run_ship(const RunArgs& a) {
  const std::filesystem::path dir = example_out_dir(a);
  const std::size_t n = a.n ? a.n : 100'000;
  const Backend backend = resolve_backend(parse_backend(a.backend));
  MaterialLibrary materials;
  const MuonBatch muons = ship_muons(n, a.seed);
  TableCache cache;
  cache.build_options().p_top = highest_momentum(muons);  // tables as far up as the muons
  const TransportParams params =
      example_params(a, make_ship_shield_json("warm"), "ship(warm)", materials, cache);
  std::printf("ship: %zu muons (synthetic flux, seed %llu) through the warm_baseline shield\n", n,
              static_cast<unsigned long long>(a.seed));
  TransportStats stats;
  const TransportResult r = transport(params, muons, backend, a.threads, 0, &stats, a.gpus);
  print_stats(r, stats, a.threads);
  const StatusCounts c = count_status(r);
  std::printf("hits at z = 82 m inside the window: %zu (%.3g of the muons)\n", c.by_status[0],
              double(c.by_status[0]) / n);
  const auto out = dir / "ship_run.h5";
  write_transport_result(out, r, true, false);
  std::printf("wrote %s\n", out.c_str());
  const auto png = dir / "ship.png";
  if (!a.no_plot) plot({"ship", "--run", out.string(), "--out", png.string()}, png);
}

// The vertical intensity against depth in standard rock (Underground.hh),
// written as depth_intensity.csv and drawn over the Menon et al. relation.
void run_underground(const RunArgs& a) {
  const std::filesystem::path dir = example_out_dir(a);
  const std::size_t n = a.n ? a.n : 1'000'000;
  const Backend backend = resolve_backend(parse_backend(a.backend));
  const UndergroundSetup setup;
  MaterialLibrary materials;
  TableCache cache;
  const MuonBatch muons = underground_muons(setup, n, a.seed);
  cache.build_options().p_top = highest_momentum(muons);
  const TransportParams params =
      example_params(a, underground_geometry_json(setup), "underground", materials, cache);
  std::printf(
      "underground: %zu vertical sea-level muons, %g..%g GeV, through %g m.w.e. of standard rock "
      "(seed %llu)\n",
      n, setup.e_min, setup.e_max, setup.depth_mwe, static_cast<unsigned long long>(a.seed));
  TransportStats stats;
  const TransportResult r = transport(params, muons, backend, a.threads, 0, &stats, a.gpus);
  print_stats(r, stats, a.threads);
  std::vector<double> depths;
  for (double h = 1000; h <= setup.depth_mwe + 1e-9; h += 500) depths.push_back(h);
  io::ColumnTable t;
  t.columns = {"depth_mwe", "intensity", "intensity_err"};
  std::printf("depth [m.w.e.]  intensity [cm^-2 s^-1 sr^-1]  Menon et al. 1967  ratio\n");
  for (const DepthIntensity& d : depth_intensity(depths, setup, r.muons, r.status)) {
    t.values.insert(t.values.end(), {d.depth_mwe, d.intensity, d.error});
    const double menon = menon_intensity(d.depth_mwe);
    std::printf("%6.0f  %.3e +- %.1e  %.3e  %.3f\n", d.depth_mwe, d.intensity, d.error, menon,
                d.intensity / menon);
  }
  const auto csv = dir / "depth_intensity.csv";
  io::write_table(csv, t);
  std::printf("wrote %s\n", csv.c_str());
  const auto png = dir / "depth_intensity.png";
  if (!a.no_plot) plot({"underground", "--csv", csv.string(), "--out", png.string()}, png);
}

}  // namespace

void register_run_command(CLI::App& app) {
  auto a = std::make_shared<RunArgs>();
  auto* run = app.add_subcommand("run", "Fast transport of muons through a geometry");
  run->add_option("--geometry", a->geometry, "geometry: JSON, or GDML by its .gdml extension")
      ->check(CLI::ExistingFile);
  run->add_option("--muons", a->muons, "muons (CSV or HDF5: px,py,pz,x,y,z,pdg[,weight])")
      ->check(CLI::ExistingFile);
  run->add_option("--out", a->out, "output file (CSV or HDF5 by extension)");
  run->add_option("--tables", a->tables, "table files (.h5); other materials from the cache")
      ->check(CLI::ExistingFile);
  run->add_option(
         "--engine", a->engine,
         "fast (histogram sampling) | detailed (the condensed-history engine of `fastmu "
         "physics` through the same geometry, on --backend: the reference of `fastmu validate`)")
      ->capture_default_str();
  run->add_option("--backend", a->backend, "auto | cpu | cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->capture_default_str();
  run->add_option("--step", a->step,
                  "reference step [m]: each material's step has the mass thickness of this "
                  "length of iron, clamped to [1 mm, 1 m] (docs/stepping-and-tables.md)")
      ->capture_default_str();
  run->add_option("--long-steps", a->long_steps,
                  "doublings of a fast muon's step: from 2^k x 2.5 GeV/c a muon takes steps of "
                  "2^k times its material's step, k <= this, from tables built for them "
                  "(0: every step the material's; docs/stepping-and-tables.md)")
      ->check(CLI::Range(0, 10))
      ->capture_default_str();
  run->add_option("--material-step", a->material_steps,
                  "NAME=LENGTH: the step of one material [m] (repeatable; overrides the "
                  "geometry JSON's \"steps\")");
  run->add_option("--seed", a->seed, "random seed")->capture_default_str();
  run->add_flag("--all", a->all, "write every muon, not only status 0");
  run->add_option("--above-tables", a->above_tables,
                  "a muon above the tables' top momentum: refuse (the run stops with one line "
                  "naming the row) | stop (not transported: status 5)")
      ->check(CLI::IsMember({"refuse", "stop"}))
      ->capture_default_str();
  run->add_option("--decay", a->decay,
                  "decay in flight: on (a decayed muon gets status 6 where it decayed) | off")
      ->check(CLI::IsMember({"on", "off"}))
      ->capture_default_str();
  run->add_option("--max-steps", a->max_steps,
                  "step limit per muon (--engine detailed: volume segments, i.e. volumes "
                  "entered; then status 3)")
      ->capture_default_str();
  run->add_option("--p-kill", a->p_kill, "kill momentum [GeV/c]")->capture_default_str();
  run->add_option("--p-max", a->p_max,
                  "the tables' top momentum [GeV/c], at most 1e5: tables from the cache are built "
                  "up to the first bin edge at or above it; muons above it follow --above-tables. "
                  "auto: the input's highest |p| (the file is read once more; give a number to "
                  "skip that for large files)")
      ->capture_default_str();
  run->add_option("--threads", a->threads, "CPU threads (0: all)")->capture_default_str();
  run->add_option("--gpus", a->gpus, "GPUs for the CUDA backend (0: all visible)")
      ->check(CLI::Range(0, 1024))
      ->capture_default_str();
  run->add_option(
      "--max-memory", a->max_memory,
      "bound on resident memory, e.g. 2GB: the muons stream through in chunks that fit");
  run->add_option(
      "--chunk-rows", a->chunk_rows,
      "muons per chunk (default: from --max-memory, else 524288 on the CPU, 4194304 on one "
      "GPU, 8388608 per GPU on several)");
  run->add_option("--compression", a->compression, "HDF5 output: none | gzip | gzip:1..9 | szip")
      ->capture_default_str();
  run->add_option("--example", a->example,
                  "built-in example: iron-block | ship | underground (vertical intensity against "
                  "depth in standard rock)")
      ->check(CLI::IsMember({"iron-block", "ship", "underground"}));
  run->add_option("--n", a->n,
                  "examples: number of muons (iron-block 1e6, ship 1e5, underground 1e6)");
  run->add_option("--n-detailed", a->n_detailed,
                  "iron-block: muons for the detailed-engine comparison (0: none)")
      ->capture_default_str();
  run->add_option("--out-dir", a->out_dir, "examples: folder for outputs and the plot")
      ->capture_default_str();
  run->add_flag("--no-plot", a->no_plot, "examples: skip the PNG");
  run->callback([a] {
    if (!a->example.empty()) {
      mpi::require_one_process("--example",
                               "run it as one process, or split a muon file with "
                               "--geometry, --muons and --out");
      // An example makes its own geometry and muons and writes into --out-dir.
      for (const auto& [option, value] :
           {std::pair{"--geometry", a->geometry}, {"--muons", a->muons}, {"--out", a->out}}) {
        if (!value.empty()) {
          throw Error(
              fmt::format("{} '{}': --example {} makes its own geometry and muons and "
                          "writes into --out-dir; {} is for a run of your own files",
                          option, value, a->example, option));
        }
      }
    }
    if (a->example == "iron-block") {
      run_iron_block(*a);
    } else if (a->example == "ship") {
      run_ship(*a);
    } else if (a->example == "underground") {
      run_underground(*a);
    } else {
      run_files(*a);
    }
  });
}

}  // namespace fastmu::cli
