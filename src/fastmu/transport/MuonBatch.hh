// Muons in and out of the fast transport, as structures of arrays.
//
// MuonBatch is the input (one row per muon; the row index is the muon id,
// which keys its random numbers). TransportResult is the final state of the
// muons of a batch in id order: every muon, or (ResultRows::at_plane) only
// those that reached a sensitive plane, each with its id.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fastmu {

// Final status of a muon (interfaces.md "Transport output").
enum class MuonStatus : std::int32_t {
  alive = -1,    // still being transported (never written out)
  at_plane = 0,  // reached a sensitive plane inside its window
  stopped = 1,   // |p| fell below the kill momentum
  left_world = 2,
  step_limit = 3,
  outside_window = 4,  // crossed a sensitive plane outside its window
  above_tables = 5,    // |p| above the tables' top (MomentumPolicy::stop): not transported
  decayed = 6,         // decayed in flight (decay on): the state where it decayed
};
// Final statuses 0 .. kMuonStatusCount - 1.
inline constexpr int kMuonStatusCount = 7;

struct MuonBatch {
  std::vector<float> px, py, pz;  // GeV/c
  std::vector<float> x, y, z;     // m
  std::vector<std::int32_t> pdg;  // 13 = mu-, -13 = mu+
  std::vector<double> weight;     // carried through untouched

  std::size_t size() const { return px.size(); }
  void resize(std::size_t n) {
    px.resize(n), py.resize(n), pz.resize(n), x.resize(n), y.resize(n), z.resize(n);
    pdg.resize(n), weight.resize(n, 1.0);
  }
  void reserve(std::size_t n) {
    px.reserve(n), py.reserve(n), pz.reserve(n), x.reserve(n), y.reserve(n), z.reserve(n);
    pdg.reserve(n), weight.reserve(n);
  }
  void push_back(float px_, float py_, float pz_, float x_, float y_, float z_, std::int32_t pdg_,
                 double weight_ = 1.0) {
    px.push_back(px_), py.push_back(py_), pz.push_back(pz_);
    x.push_back(x_), y.push_back(y_), z.push_back(z_);
    pdg.push_back(pdg_), weight.push_back(weight_);
  }
};

struct TransportResult {
  MuonBatch muons;                   // final momenta and positions, pdg and weight
  std::vector<std::int32_t> status;  // MuonStatus
  std::vector<std::int32_t> plane;   // sensitive-plane index, -1 if none was reached
  std::vector<std::int32_t> steps;   // steps taken
  std::uint64_t first_id = 0;        // id of row 0 (batches cut from a larger input)
  // Muon id of each row, ascending; empty when every muon of the batch is
  // there (row i is muon first_id + i).
  std::vector<std::int64_t> id;

  std::size_t size() const { return status.size(); }
  std::uint64_t id_of(std::size_t row) const {
    return id.empty() ? first_id + row : static_cast<std::uint64_t>(id[row]);
  }
  // Steps of the rows held (TransportStats::steps counts every muon).
  std::uint64_t total_steps() const {
    std::uint64_t s = 0;
    for (auto v : steps) s += static_cast<std::uint64_t>(v);
    return s;
  }
};

}  // namespace fastmu
