#include "fastmu/tables/BinBytes.hh"

namespace fastmu {

void append_bin(std::vector<unsigned char>& out, const TableData& d, int b) {
  const std::size_t cpb = d.cells_per_bin(), i = static_cast<std::size_t>(b);
  const std::int32_t b32 = b;
  put_bytes(out, &b32);
  put_bytes(out, &d.axes[i]);
  put_bytes(out, &d.p_centres[i]);
  put_bytes(out, &d.samples_per_bin[i]);
  put_bytes(out, &d.mean_loss[i]);
  put_bytes(out, &d.std_loss[i]);
  put_bytes(out, &d.mean_kick[i]);
  put_bytes(out, d.counts.data() + i * cpb, cpb);
  put_bytes(out, d.cells.data() + i * cpb, cpb);
}

int read_bin(const std::vector<unsigned char>& in, std::size_t& at, TableData& d) {
  std::int32_t b = -1;
  get_bytes(in, at, &b);
  if (b < 0 || b >= d.n_pbins()) throw Error("table build: bad bin index from another rank");
  const std::size_t cpb = d.cells_per_bin(), i = static_cast<std::size_t>(b);
  get_bytes(in, at, &d.axes[i]);
  get_bytes(in, at, &d.p_centres[i]);
  get_bytes(in, at, &d.samples_per_bin[i]);
  get_bytes(in, at, &d.mean_loss[i]);
  get_bytes(in, at, &d.std_loss[i]);
  get_bytes(in, at, &d.mean_kick[i]);
  get_bytes(in, at, d.counts.data() + i * cpb, cpb);
  get_bytes(in, at, d.cells.data() + i * cpb, cpb);
  return b;
}

}  // namespace fastmu
