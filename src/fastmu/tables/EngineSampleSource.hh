// Samples from the detailed physics engine (sample_single_step): the default
// source of the tables and of the table cache.
#pragma once

#include <string>

#include "fastmu/physics/DetailedEngine.hh"
#include "fastmu/tables/TableBuilder.hh"

namespace fastmu {

class EngineSampleSource final : public SampleSource {
 public:
  EngineSampleSource(const Material& material, double step_m, int charge, std::uint64_t seed,
                     int threads, PhysicsOptions physics = {});

  // Runs the engine in chunks of kChunk muons (memory stays small whatever
  // the samples per bin); chunk c of bin b uses a seed derived from (seed, b, c).
  void fill_bin(int bin, double p_lo, double p_hi, std::size_t n, BinHistogrammer& hist,
                ProgressBar* progress) override;
  std::vector<double> pilot_phi(const std::vector<double>& probes, std::size_t k,
                                ProgressBar* progress) override;

  // "fastmu <version> detailed engine (...)" for the table's generator attribute.
  std::string generator() const;

  static constexpr std::size_t kChunk = std::size_t{1} << 17;

 private:
  const Material& material_;
  double step_m_;
  int charge_;
  std::uint64_t seed_;
  int threads_;
  PhysicsOptions physics_;
};

// A seed for the random streams of (a, b) (e.g. momentum bin and round)
// derived from one user seed: decorrelated by the SplitMix64 finaliser.
std::uint64_t derived_seed(std::uint64_t seed, std::uint64_t a, std::uint64_t b);

// "fastmu <version> detailed engine (photonuclear off, ...)": the engine's
// version and every physics option that changes its samples.
std::string engine_generator(const PhysicsOptions& physics);

// Builds a table for `material` with the detailed engine.
TableParams build_table_with_engine(const Material& material, const TableBuildOptions& options,
                                    bool progress = false, PhysicsOptions physics = {});
// The same, its momentum bins spread over the processes of `share` (every
// process calls it and gets the table; see BinShare).
TableParams build_table_with_engine(const Material& material, const TableBuildOptions& options,
                                    bool progress, const BinShare& share,
                                    BinShareReport* report = nullptr, PhysicsOptions physics = {});

}  // namespace fastmu
