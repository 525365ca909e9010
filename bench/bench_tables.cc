// Table sampling and building speed. Run: fastmu_bench --benchmark_filter=Table
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "fastmu/core/Random.hh"
#include "fastmu/tables/BinHistogrammer.hh"
#include "fastmu/tables/TableBuilder.hh"
#include "fastmu/tables/TableSampling.hh"

using namespace fastmu;

namespace {

// xorshift64*: a cheap source of random bits, so that the alias draw itself
// is what gets timed (Vigna, ACM TOMS 42 (2016) 30).
struct XorShift {
  std::uint64_t s = 0x9e3779b97f4a7c15ull;
  std::uint64_t next() {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return s * 0x2545f4914f6cdd1dull;
  }
};

// Samples of a physics-like shape: log-normal loss core with a tail, Rayleigh kick.
class ShapeSource final : public SampleSource {
 public:
  void fill_bin(int bin, double p_lo, double p_hi, std::size_t n, BinHistogrammer& hist,
                ProgressBar*) override {
    for (std::size_t i = 0; i < n; ++i) {
      const Philox4 r = philox_block(1, (std::uint64_t(bin) << 32) + i, 0, RngStream::table_build);
      const double p = p_lo + (p_hi - p_lo) * to_unit_open(r.v[0]);
      const double g = std::sqrt(-2 * std::log(to_unit_open(r.v[1]))) *
                       std::cos(6.2831853 * to_unit_open(r.v[2]));
      double loss = 0.025 / p * std::exp(0.12 * g);
      if (r.v[3] < 0x14000000u)
        loss = std::min(0.99, loss * std::exp(2.5 * -std::log(to_unit_open(r.v[3] << 5))));
      const double kick = 0.0136 / p * std::sqrt(-2 * std::log(to_unit_open(r.v[0] ^ r.v[1])));
      hist.add(p, kick * p, 0, p * (1 - loss));
    }
  }
  std::vector<double> pilot_phi(const std::vector<double>& probes, std::size_t,
                                ProgressBar*) override {
    return std::vector<double>(probes.size(), 0.0);
  }
  bool parallel_bins() const override { return true; }
};

const TableParams& default_shape_table() {
  static const TableParams t = [] {
    ShapeSource source;
    TableBuildOptions o;  // 95 log bins in [0.18, 400], 100 x 100
    o.samples_per_bin = 20000;
    o.threads = 1;
    TableMetadata m;
    m.material = "bench";
    return build_table(m, o, source);
  }();
  return t;
}

}  // namespace

// The alias draw with jitter, from pre-drawn random numbers (so that the
// draw itself is timed, not a generator). Arg 0: one momentum bin (its 80 kB
// of cells stay in cache, as for a batch of muons of similar momentum);
// arg 1: a random bin per draw (7.8 MB of cells: memory-bound).
static void BM_TableAliasSample(benchmark::State& state) {
  const TableView v = default_shape_table().host_view();
  const bool random_bin = state.range(0) != 0;
  constexpr int kN = 1024;
  std::vector<std::uint32_t> r(kN);
  std::vector<std::int32_t> bins(kN);
  std::vector<float> ux(kN), uy(kN);
  XorShift rng;
  for (int i = 0; i < kN; ++i) {
    const std::uint64_t a = rng.next(), b = rng.next();
    r[i] = static_cast<std::uint32_t>(a);
    bins[i] = random_bin ? static_cast<std::int32_t>(((a >> 32) * 95u) >> 32) : 60;
    ux[i] = (static_cast<std::uint32_t>(b) >> 8) * (1.0f / 16777216.0f);
    uy[i] = (static_cast<std::uint32_t>(b >> 32) >> 8) * (1.0f / 16777216.0f);
  }
  float acc = 0;
  std::uint32_t salt = 0;
  for (auto _ : state) {
    salt += 0x9e3779b9u;  // new cells every pass
    for (int i = 0; i < kN; ++i) {
      const SampledLoss s = sample_bin(v, bins[i], r[i] ^ salt, ux[i], uy[i]);
      acc += s.loss_frac + s.kick_frac;
    }
    benchmark::DoNotOptimize(acc);
  }
  state.SetItemsProcessed(state.iterations() * kN);
}
BENCHMARK(BM_TableAliasSample)->Arg(0)->Arg(1);

// The alias draw alone (sample_cell: which (loss, kick) cell), same inputs.
static void BM_TableAliasCell(benchmark::State& state) {
  const TableView v = default_shape_table().host_view();
  const bool random_bin = state.range(0) != 0;
  constexpr int kN = 1024;
  std::vector<std::uint32_t> r(kN);
  std::vector<std::int32_t> bins(kN);
  XorShift rng;
  for (int i = 0; i < kN; ++i) {
    const std::uint64_t a = rng.next();
    r[i] = static_cast<std::uint32_t>(a);
    bins[i] = random_bin ? static_cast<std::int32_t>(((a >> 32) * 95u) >> 32) : 60;
  }
  std::int64_t acc = 0;
  std::uint32_t salt = 0;
  for (auto _ : state) {
    salt += 0x9e3779b9u;
    for (int i = 0; i < kN; ++i) acc += sample_cell(v, bins[i], r[i] ^ salt);
    benchmark::DoNotOptimize(acc);
  }
  state.SetItemsProcessed(state.iterations() * kN);
}
BENCHMARK(BM_TableAliasCell)->Arg(0)->Arg(1);

// The same with Philox random numbers and the interpolated bin choice: what
// one transport step spends on the tables.
static void BM_TableSamplePhiloxInterpolated(benchmark::State& state) {
  const TableView v = default_shape_table().host_view();
  float acc = 0;
  std::uint64_t id = 0;
  for (auto _ : state) {
    for (int i = 0; i < 1024; ++i, ++id) {
      const Philox4 r = philox_block(1, id, 0, RngStream::fast_transport);
      const float p = 0.2f + 399.0f * to_unit_open_f(r.v[3]);
      const std::int32_t bin = choose_interpolated_bin(v, p, to_unit_open_f(r.v[3] << 8));
      const SampledLoss s =
          sample_bin(v, bin, r.v[0], to_unit_open_f(r.v[1]), to_unit_open_f(r.v[2]));
      acc += s.loss_frac + s.kick_frac;
    }
    benchmark::DoNotOptimize(acc);
  }
  state.SetItemsProcessed(state.iterations() * 1024);
}
BENCHMARK(BM_TableSamplePhiloxInterpolated);

// Histogramming one momentum bin of 1e6 samples (add + finish + alias):
// the builder's own cost per bin, to compare with the engine's.
static void BM_TableHistogramBin(benchmark::State& state) {
  const std::size_t n = static_cast<std::size_t>(state.range(0));
  std::vector<double> p0(n), px(n), pz(n);
  for (std::size_t i = 0; i < n; ++i) {
    const Philox4 r = philox_block(2, i, 0, RngStream::table_build);
    p0[i] = 10 + to_unit_open(r.v[0]);
    pz[i] = p0[i] * (1 - 0.0025 * std::exp(0.3 * to_unit_open(r.v[1])));
    px[i] = p0[i] * 1e-3 * to_unit_open(r.v[2]);
  }
  for (auto _ : state) {
    BinHistogrammer h(100, 100);
    h.reserve(n);
    for (std::size_t i = 0; i < n; ++i) h.add(p0[i], px[i], 0, pz[i]);
    const BinHistogram out = h.finish();
    benchmark::DoNotOptimize(out.counts.data());
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_TableHistogramBin)->Arg(1000000)->Unit(benchmark::kMillisecond);
