// What the storage under FASTMU_BENCH_DIR (default: the temporary folder)
// gives one process writing one new file, the way `fastmu run` writes its
// output (the iron-block run is bound by it). Each iteration writes
// FASTMU_BENCH_STORAGE_GB (default 1) gigabytes into a fresh file and removes
// it; bytes_per_second is the rate. Ways:
//   0 pwrite: buffered positioned writes of 8 MiB blocks from T threads
//   1 mmap:   a shared mapping of the file, each thread's range populated for
//             writing (MADV_POPULATE_WRITE, Linux 5.14) and filled by memcpy
//   2 direct: O_DIRECT positioned writes of 8 MiB aligned blocks (the disk
//             itself, no page cache)
//   3 memory: fresh anonymous memory filled by memcpy (the ceiling: what
//             touching new pages costs on this machine)
//   4 fallocate: the file's blocks allocated first (FALLOC_FL_KEEP_SIZE),
//             then buffered positioned writes as in 0
//   5 hugepages: as 3, the memory advised for transparent huge pages
//
//   FASTMU_BENCH_DIR=/data fastmu_bench --benchmark_filter=Storage
#include <benchmark/benchmark.h>

#include <fcntl.h>
#include <linux/falloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr std::size_t kBlock = std::size_t(8) << 20;

std::filesystem::path bench_dir() {
  const char* d = std::getenv("FASTMU_BENCH_DIR");
  return d ? std::filesystem::path(d) : std::filesystem::temp_directory_path();
}

std::size_t bench_bytes() {
  const char* g = std::getenv("FASTMU_BENCH_STORAGE_GB");
  const double gb = g ? std::atof(g) : 1.0;
  return static_cast<std::size_t>(gb * 1e9) / kBlock * kBlock;
}

template <class F>
void on_threads(int threads, std::size_t blocks, F&& body) {
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    const std::size_t b0 = blocks * t / threads, b1 = blocks * (t + 1) / threads;
    pool.emplace_back([&body, b0, b1] { body(b0, b1); });
  }
  for (auto& th : pool) th.join();
}

void BM_StorageWrite(benchmark::State& state) {
  const int way = static_cast<int>(state.range(0));
  const int threads = static_cast<int>(state.range(1));
  const std::size_t bytes = bench_bytes(), blocks = bytes / kBlock;
  const auto path = bench_dir() / ("fastmu_storage_probe_" + std::to_string(::getpid()));
  void* src_raw = std::aligned_alloc(4096, kBlock);
  std::unique_ptr<void, decltype(&std::free)> src(src_raw, &std::free);
  std::memset(src_raw, 0x5a, kBlock);
  bool ok = true;
  for (auto _ : state) {
    if (way == 3 || way == 5) {
      void* m = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (m == MAP_FAILED) return state.SkipWithError("mmap failed");
      if (way == 5) ::madvise(m, bytes, MADV_HUGEPAGE);
      on_threads(threads, blocks, [&](std::size_t b0, std::size_t b1) {
        for (std::size_t b = b0; b < b1; ++b)
          std::memcpy(static_cast<char*>(m) + b * kBlock, src_raw, kBlock);
      });
      ::munmap(m, bytes);
      continue;
    }
    const int flags = O_RDWR | O_CREAT | O_TRUNC | (way == 2 ? O_DIRECT : 0);
    const int fd = ::open(path.c_str(), flags, 0644);
    if (fd < 0) return state.SkipWithError("cannot create the file (O_DIRECT unsupported?)");
    if (way == 4 && ::fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, static_cast<off_t>(bytes)) != 0) {
      ok = false;
    }
    if (way == 1) {
      if (::ftruncate(fd, static_cast<off_t>(bytes)) != 0) ok = false;
      void* m = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      if (m == MAP_FAILED) {
        ::close(fd);
        return state.SkipWithError("mmap failed");
      }
      on_threads(threads, blocks, [&](std::size_t b0, std::size_t b1) {
        char* at = static_cast<char*>(m) + b0 * kBlock;
#ifdef MADV_POPULATE_WRITE
        ::madvise(at, (b1 - b0) * kBlock, MADV_POPULATE_WRITE);  // falls back to faults
#endif
        for (std::size_t b = b0; b < b1; ++b) std::memcpy(at + (b - b0) * kBlock, src_raw, kBlock);
      });
      ::munmap(m, bytes);
    } else {
      on_threads(threads, blocks, [&](std::size_t b0, std::size_t b1) {
        for (std::size_t b = b0; b < b1; ++b) {
          if (::pwrite(fd, src_raw, kBlock, static_cast<off_t>(b * kBlock)) !=
              static_cast<ssize_t>(kBlock))
            ok = false;
        }
      });
    }
    ::close(fd);
    state.PauseTiming();
    std::filesystem::remove(path);
    state.ResumeTiming();
  }
  if (!ok) state.SkipWithError("short write");
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
}

void storage_args(benchmark::internal::Benchmark* b) {
  for (int way : {3, 5, 0, 4, 1, 2})
    for (int threads : {1, 4, 8, 16}) b->Args({way, threads});
  b->ArgNames({"way", "threads"});
}

BENCHMARK(BM_StorageWrite)
    ->Apply(storage_args)
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
