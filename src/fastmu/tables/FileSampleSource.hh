// Samples from a file (`tables build --from-samples FILE`): CSV, HDF5 or raw
// .f32 with columns p0,px,py,pz,... (e.g. the Geant4 reference samples, or
// the output of `fastmu physics sample`), binned by p0.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "fastmu/tables/TableBuilder.hh"

namespace fastmu {

class FileSampleSource final : public SampleSource {
 public:
  // Reads the file (HDF5: dataset "samples", else "muons"); throws
  // fastmu::Error naming the file for a missing column or a bad value.
  explicit FileSampleSource(const std::filesystem::path& path);

  void fill_bin(int bin, double p_lo, double p_hi, std::size_t n, BinHistogrammer& hist,
                ProgressBar* progress) override;
  // Phi at each probe from the k samples nearest to it in p0.
  std::vector<double> pilot_phi(const std::vector<double>& probes, std::size_t k,
                                ProgressBar* progress) override;
  std::size_t prepare(const std::vector<double>& edges, std::size_t n) override;
  bool parallel_bins() const override { return true; }

  std::size_t size() const { return p0_.size(); }
  double p0_min() const { return p0_.empty() ? 0 : p0_.front(); }
  double p0_max() const { return p0_.empty() ? 0 : p0_.back(); }
  // "samples: <file name>" for the table's generator attribute.
  std::string generator() const;

 private:
  // [first, last) of the samples with p_lo <= p0 < p_hi (p_hi included for the last bin).
  std::pair<std::size_t, std::size_t> range(double p_lo, double p_hi, bool last) const;

  std::filesystem::path path_;
  double p_last_edge_ = 0;
  // Sorted by p0 (structure of arrays).
  std::vector<double> p0_, px_, py_, pz_;
};

}  // namespace fastmu
