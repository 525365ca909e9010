#include "fastmu/transport/gradient/ShipParameters.hh"

namespace fastmu {

FieldParameters ship_objective_parameters(const std::vector<ShipMagnetParameters>& magnets,
                                          const std::vector<std::array<int, 2>>& pairs) {
  const ShipFieldParameters f = ship_field_parameters(magnets);
  const ShipParameterTangents t = ship_parameter_tangents(magnets, pairs);
  FieldParameters fp;
  fp.n_params = static_cast<std::int32_t>(pairs.size());
  for (const auto& b : f.field) fp.volume_field.push_back(to_vec3f(b));
  for (const auto& d : t.dfield) fp.dfield.push_back(to_vec3f(d));
  for (const ShipArb8Derivative& d : t.dshape) {
    Arb8Tangent a;
    for (int v = 0; v < 4; ++v) {
      a.x_lo[v] = static_cast<float>(d.x[v]), a.x_hi[v] = static_cast<float>(d.x[4 + v]);
      a.y_lo[v] = static_cast<float>(d.y[v]), a.y_hi[v] = static_cast<float>(d.y[4 + v]);
    }
    a.z_lo = static_cast<float>(d.z_lo), a.z_hi = static_cast<float>(d.z_hi);
    fp.dshape.push_back(a);
  }
  return fp;
}

FieldParameters ship_field_objective_parameters(const std::vector<ShipMagnetParameters>& magnets) {
  const ShipFieldParameters f = ship_field_parameters(magnets);
  FieldParameters fp;
  fp.n_params = static_cast<std::int32_t>(magnets.size());
  fp.volume_param = f.volume_magnet;
  for (std::size_t v = 0; v < f.field.size(); ++v) {
    fp.volume_field.push_back(to_vec3f(f.field[v]));
    fp.volume_dfield.push_back(to_vec3f(f.dfield[v]));
  }
  return fp;
}

std::vector<std::array<int, 2>> ship_every_column(std::size_t n_magnets) {
  std::vector<std::array<int, 2>> pairs;
  for (std::size_t m = 0; m < n_magnets; ++m) {
    for (int c = 0; c < 15; ++c) pairs.push_back({static_cast<int>(m), c});
  }
  return pairs;
}

}  // namespace fastmu
