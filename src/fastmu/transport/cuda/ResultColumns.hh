// Sizing a transport result's columns before the rows are unpacked into them.
#pragma once

#include <cstddef>
#include <thread>
#include <vector>

#include "fastmu/transport/MuonBatch.hh"

namespace fastmu {

// Sizes every column of `out` to `n` rows, one host thread per column:
// first-touch of hundreds of MB is what a single thread is slow at. With
// `pass_through` (every row kept) pdg and weight are its, copied; without
// (compacted rows) they and the id column are sized too.
inline void size_result_columns(TransportResult& out, std::size_t n,
                                const MuonBatch* pass_through) {
  MuonBatch& m = out.muons;
  std::vector<std::thread> t;
  for (auto* c : {&m.px, &m.py, &m.pz, &m.x, &m.y, &m.z}) t.emplace_back([c, n] { c->resize(n); });
  for (auto* c : {&out.status, &out.plane, &out.steps}) t.emplace_back([c, n] { c->resize(n); });
  if (pass_through) {
    t.emplace_back([&m, pass_through] { m.pdg = pass_through->pdg; });
    t.emplace_back([&m, pass_through] { m.weight = pass_through->weight; });
  } else {
    t.emplace_back([&m, n] { m.pdg.resize(n); });
    t.emplace_back([&m, n] { m.weight.resize(n); });
    t.emplace_back([&out, n] { out.id.resize(n); });
  }
  for (auto& th : t) th.join();
}

// Sizes every column of `batch` to `n` rows, one host thread per column (the
// pages' first touch, as above), before the rows are filled in parallel.
inline void size_batch_columns(MuonBatch& batch, std::size_t n) {
  std::vector<std::thread> t;
  for (auto* c : {&batch.px, &batch.py, &batch.pz, &batch.x, &batch.y, &batch.z}) {
    t.emplace_back([c, n] { c->resize(n); });
  }
  t.emplace_back([&batch, n] { batch.pdg.resize(n); });
  t.emplace_back([&batch, n] { batch.weight.resize(n); });
  for (auto& th : t) th.join();
}

}  // namespace fastmu
