// A momentum bin's results as bytes, for builds spread over processes (the
// MPI ranks of one mpirun run one fastmu build): index, axes, centre,
// samples, moments, histogram and alias table, in that order, native layout.
#pragma once

#include <cstddef>
#include <cstring>
#include <vector>

#include "fastmu/core/Error.hh"
#include "fastmu/tables/TableParams.hh"

namespace fastmu {

template <class T>
void put_bytes(std::vector<unsigned char>& out, const T* v, std::size_t n = 1) {
  const auto* p = reinterpret_cast<const unsigned char*>(v);
  out.insert(out.end(), p, p + n * sizeof(T));
}

template <class T>
void get_bytes(const std::vector<unsigned char>& in, std::size_t& at, T* v, std::size_t n = 1) {
  if (in.size() - at < n * sizeof(T)) throw Error("table build: truncated bin from another rank");
  std::memcpy(static_cast<void*>(v), in.data() + at, n * sizeof(T));
  at += n * sizeof(T);
}

// Appends bin b of `d` to `out`.
void append_bin(std::vector<unsigned char>& out, const TableData& d, int b);
// Reads one bin from `in` at `at` into `d` (sized already); returns its index.
int read_bin(const std::vector<unsigned char>& in, std::size_t& at, TableData& d);

}  // namespace fastmu
