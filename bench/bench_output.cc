// Writing transport output the way `fastmu run` does: MuonWriter appends
// results of 2^22 muons (a GPU chunk) into an HDF5 file under
// FASTMU_BENCH_DIR (default: the temporary folder) and commits it. Argument:
// millions of rows, every one kept (status 0, 80 B each in the file).
// bytes_per_second counts the file's rows; compare with BM_StorageWrite.
// The Gzip cases write and read `--compression gzip` files with a given
// number of threads (second argument; the chunks are compressed and
// inflated on all of them).
//
//   FASTMU_BENCH_DIR=/data fastmu_bench --benchmark_filter=MuonWriter
//   fastmu_bench --benchmark_filter=Gzip
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "fastmu/transport/cuda/ResultColumns.hh"
#include "fastmu/transport/stream/MuonReader.hh"
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

// `rows` muons (every one kept) written into `path` in results of 2^22.
std::uint64_t write_rows(const std::filesystem::path& path, std::size_t rows,
                         fastmu::io::h5::Compression compression, int threads) {
  constexpr std::size_t kChunk = std::size_t(1) << 22;
  fastmu::TransportResult r = chunk_result(std::min(kChunk, rows));
  fastmu::MuonWriter w(path, fastmu::OutputLayout{}, compression, threads);
  for (std::size_t first = 0; first < rows; first += kChunk) {
    const std::size_t n = std::min(kChunk, rows - first);
    if (n != r.size()) r = chunk_result(n);
    r.first_id = first;
    w.append(r);
  }
  w.commit();
  return w.rows();
}

void BM_MuonWriterHdf5Gzip(benchmark::State& state) {
  const std::size_t rows = static_cast<std::size_t>(state.range(0)) * 1000000;
  const int threads = static_cast<int>(state.range(1));
  const auto path = bench_dir() / ("fastmu_gzip_bench_" + std::to_string(::getpid()) + ".h5");
  std::uint64_t written = 0;
  for (auto _ : state) {
    written += write_rows(path, rows, fastmu::io::h5::parse_compression("gzip"), threads);
    state.PauseTiming();
    std::filesystem::remove(path);
    state.ResumeTiming();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(written * 80));
}

// Reads a gzip file of the writer's rows (10 float64 columns, shuffled and
// deflated chunks of 32768 rows) in reads of 2^19 rows, as `fastmu run` on
// the CPU does.
void BM_MuonReaderHdf5Gzip(benchmark::State& state) {
  const std::size_t rows = static_cast<std::size_t>(state.range(0)) * 1000000;
  const int threads = static_cast<int>(state.range(1));
  const auto path = bench_dir() / ("fastmu_gzip_read_" + std::to_string(::getpid()) + ".h5");
  write_rows(path, rows, fastmu::io::h5::parse_compression("gzip"), 0);
  std::uint64_t read = 0;
  for (auto _ : state) {
    fastmu::MuonReader reader(path, threads);
    fastmu::MuonBatch batch;
    while (reader.read(std::size_t(1) << 19, batch)) read += batch.size();
  }
  std::filesystem::remove(path);
  state.SetBytesProcessed(static_cast<std::int64_t>(read * 80));
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

BENCHMARK(BM_MuonWriterHdf5Gzip)
    ->Args({4, 1})
    ->Args({4, 2})
    ->Args({4, 16})
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

BENCHMARK(BM_MuonReaderHdf5Gzip)
    ->Args({4, 1})
    ->Args({4, 2})
    ->Args({4, 16})
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
