// Writing transport output the way `fastmu run` does: MuonWriter appends
// results of 2^22 muons (a GPU chunk) into an HDF5 file under
// FASTMU_BENCH_DIR (default: the temporary folder) and commits it. Argument:
// millions of rows, every one kept (status 0, 80 B each in the file).
// bytes_per_second counts the file's rows; compare with BM_StorageWrite.
//
//   FASTMU_BENCH_DIR=/data fastmu_bench --benchmark_filter=MuonWriter
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "fastmu/transport/cuda/ResultColumns.hh"
#include "fastmu/transport/stream/MuonWriter.hh"

namespace {

std::filesystem::path bench_dir() {
  const char* d = std::getenv("FASTMU_BENCH_DIR");
  return d ? std::filesystem::path(d) : std::filesystem::temp_directory_path();
}

fastmu::TransportResult chunk_result(std::size_t n) {
  fastmu::TransportResult r;
  fastmu::MuonBatch in;
  in.pdg.assign(n, 13);
  in.weight.assign(n, 1.0);
  fastmu::size_result_columns(r, n, &in);
  for (std::size_t i = 0; i < n; ++i) {
    const float f = static_cast<float>(i % 1000) * 1e-3f;
    r.muons.px[i] = f, r.muons.py[i] = -f, r.muons.pz[i] = 40 + f;
    r.muons.x[i] = 2 * f, r.muons.y[i] = -2 * f, r.muons.z[i] = 10;
  }
  return r;
}

void BM_MuonWriterHdf5(benchmark::State& state) {
  const std::size_t rows = static_cast<std::size_t>(state.range(0)) * 1000000;
  constexpr std::size_t kChunk = std::size_t(1) << 22;
  fastmu::TransportResult r = chunk_result(kChunk);
  const auto path = bench_dir() / ("fastmu_writer_bench_" + std::to_string(::getpid()) + ".h5");
  std::uint64_t written = 0;
  for (auto _ : state) {
    fastmu::MuonWriter w(path, fastmu::OutputLayout{});
    for (std::size_t first = 0; first < rows; first += kChunk) {
      const std::size_t n = std::min(kChunk, rows - first);
      if (n != r.size()) r = chunk_result(n);
      r.first_id = first;
      w.append(r);
    }
    w.commit();
    written += w.rows();
    state.PauseTiming();
    std::filesystem::remove(path);
    state.ResumeTiming();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(written * 80));
  state.counters["rows"] = static_cast<double>(written) / static_cast<double>(state.iterations());
}

BENCHMARK(BM_MuonWriterHdf5)
    ->Arg(4)
    ->Arg(34)
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
