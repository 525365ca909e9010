#include "fastmu/tables/FileSampleSource.hh"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "fastmu/core/Error.hh"
#include "fastmu/core/Progress.hh"
#include "fastmu/io/ColumnTable.hh"
#include "fastmu/io/Hdf5.hh"

namespace fastmu {

FileSampleSource::FileSampleSource(const std::filesystem::path& path) : path_(path) {
  const std::string name = path.string();
  std::string dataset = "muons";
  if (io::format_from_path(path) == io::TableFormat::hdf5) {
    io::h5::silence_hdf5_errors();
    const auto file = io::h5::open_file(name);
    if (io::h5::has_dataset(file.get(), "samples")) dataset = "samples";
  }
  const io::ColumnTable t = io::read_table(path, dataset, {"p0", "px", "py", "pz", "x", "y", "z"});
  const int c0 = t.require("p0", name), cx = t.require("px", name), cy = t.require("py", name),
            cz = t.require("pz", name);
  const std::size_t n = t.rows();
  if (n == 0) throw Error(name + ": no samples");
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  for (std::size_t i = 0; i < n; ++i) {
    const double p0 = t.at(i, c0);
    if (!(p0 > 0) || !std::isfinite(p0)) {
      throw Error(name + ": row " + std::to_string(i + 1) + ": p0 must be a positive momentum");
    }
    for (int c : {cx, cy, cz}) {
      if (!std::isfinite(t.at(i, c))) {
        throw Error(name + ": row " + std::to_string(i + 1) + ": " + t.columns[c] +
                    " is not finite");
      }
    }
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return t.at(a, c0) < t.at(b, c0); });
  p0_.resize(n);
  px_.resize(n);
  py_.resize(n);
  pz_.resize(n);
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = order[k];
    p0_[k] = t.at(i, c0);
    px_[k] = t.at(i, cx);
    py_[k] = t.at(i, cy);
    pz_[k] = t.at(i, cz);
  }
}

std::string FileSampleSource::generator() const { return "samples: " + path_.filename().string(); }

std::pair<std::size_t, std::size_t> FileSampleSource::range(double p_lo, double p_hi,
                                                            bool last) const {
  const auto first = std::lower_bound(p0_.begin(), p0_.end(), p_lo);
  const auto end = last ? std::upper_bound(p0_.begin(), p0_.end(), p_hi)
                        : std::lower_bound(p0_.begin(), p0_.end(), p_hi);
  return {static_cast<std::size_t>(first - p0_.begin()),
          static_cast<std::size_t>(end - p0_.begin())};
}

void FileSampleSource::fill_bin(int, double p_lo, double p_hi, std::size_t, BinHistogrammer& hist,
                                ProgressBar* progress) {
  // The last bin is closed above: p_max itself belongs to it.
  const bool last = p_hi >= p_last_edge_;
  const auto [a, b] = range(p_lo, p_hi, last);
  hist.reserve(b - a);
  for (std::size_t i = a; i < b; ++i) hist.add(p0_[i], px_[i], py_[i], pz_[i]);
  if (progress) progress->add(b - a);
}

std::size_t FileSampleSource::prepare(const std::vector<double>& edges, std::size_t) {
  p_last_edge_ = edges.back();
  const auto [a, b] = range(edges.front(), edges.back(), true);
  return b - a;
}

std::vector<double> FileSampleSource::pilot_phi(const std::vector<double>& probes, std::size_t k,
                                                ProgressBar*) {
  const std::size_t n = p0_.size();
  k = std::min(std::max<std::size_t>(k, 1), n);
  std::vector<double> phi(probes.size());
  for (std::size_t j = 0; j < probes.size(); ++j) {
    // The k samples nearest to the probe in p0: a window around its position.
    const std::size_t pos = std::lower_bound(p0_.begin(), p0_.end(), probes[j]) - p0_.begin();
    std::size_t lo = pos >= k / 2 ? pos - k / 2 : 0;
    lo = std::min(lo, n - k);
    double sum = 0;
    std::size_t used = 0;
    for (std::size_t i = lo; i < lo + k; ++i) {
      const double loss = (p0_[i] - pz_[i]) / p0_[i];
      if (loss > 0) {
        sum += std::log(loss);
        ++used;
      }
    }
    if (used == 0) {
      throw Error(path_.string() + ": no sample with a momentum loss near p = " +
                  std::to_string(probes[j]) + " GeV/c for the adaptive binning");
    }
    phi[j] = sum / used;
  }
  return phi;
}

}  // namespace fastmu
