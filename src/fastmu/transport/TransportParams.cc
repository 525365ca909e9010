#include "fastmu/transport/TransportParams.hh"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "fastmu/core/Error.hh"
#include "fastmu/transport/StepOptionsCheck.hh"

namespace fastmu {

bool is_vacuum_material(const std::string& name) {
  return name == "G4_Galactic" || name == "vacuum";
}

TransportParams::TransportParams(std::shared_ptr<const GeometryParams> geometry,
                                 const TableSet& tables, const StepOptions& options,
                                 const TableLadders& shorter, const TableLadders& longer)
    : geometry_(std::move(geometry)), options_(options) {
  const std::string& src = geometry_->source();
  check_step_options(options);
  const auto& names = geometry_->material_names();
  tables_.resize(names.size());
  table_arrays_.resize(names.size());
  shorter_.resize(names.size());
  shorter_arrays_.resize(names.size());
  longer_.resize(names.size());
  longer_arrays_.resize(names.size());
  for (std::size_t m = 0; m < names.size(); ++m) {
    if (is_vacuum_material(names[m])) continue;
    const auto it = tables.find(names[m]);
    if (it == tables.end() || !it->second) {
      throw Error(fmt::format("{}: material '{}' has no table", src, names[m]));
    }
    const double step = it->second->metadata().step_m;
    tables_[m] = it->second;
    table_arrays_[m] = std::make_shared<const MaterialTableArrays>(it->second->host_view(),
                                                                   it->second->data().mean_loss);
    if (const auto lt = shorter.find(names[m]); lt != shorter.end()) {
      auto ladder = lt->second;
      std::sort(ladder.begin(), ladder.end(), [](const auto& a, const auto& b) {
        return a && b && a->metadata().step_m > b->metadata().step_m;
      });
      double above = step;
      for (const auto& t : ladder) {
        if (!t || t->metadata().material != names[m]) {
          throw Error(fmt::format("shorter tables of '{}': a table of another material", names[m]));
        }
        const double d = t->metadata().step_m;
        if (!(d < above * (1 - 1e-6))) {
          throw Error(fmt::format("shorter tables of '{}': step {} m is not below {} m", names[m],
                                  d, above));
        }
        above = d;
        shorter_[m].push_back(t);
        shorter_arrays_[m].push_back(
            std::make_shared<const MaterialTableArrays>(t->host_view(), t->data().mean_loss));
      }
    }
    if (const auto lt = longer.find(names[m]); lt != longer.end()) {
      auto ladder = lt->second;
      std::sort(ladder.begin(), ladder.end(), [](const auto& a, const auto& b) {
        return a && b && a->metadata().step_m < b->metadata().step_m;
      });
      double below = step, p_below = it->second->host_view().p_min;
      for (const auto& t : ladder) {
        if (!t || t->metadata().material != names[m]) {
          throw Error(
              fmt::format("long-step tables of '{}': a table of another material", names[m]));
        }
        const double d = t->metadata().step_m, p = t->host_view().p_min;
        if (!(d > below * (1 + 1e-6)) || !(p > p_below)) {
          throw Error(fmt::format(
              "long-step tables of '{}': step {} m from {} GeV/c does not follow step {} m from "
              "{} GeV/c",
              names[m], d, p, below, p_below));
        }
        below = d, p_below = p;
        longer_[m].push_back(t);
        longer_arrays_[m].push_back(
            std::make_shared<const MaterialTableArrays>(t->host_view(), t->data().mean_loss));
      }
    }
  }
  options_.p_max = static_cast<float>(tables_top());
  if (const auto& spec = geometry_->field_map()) field_ = FieldMapParams::from_spec(*spec);
}

void attach_field_map(TransportView& v, const FieldMapView& f, const FieldMapParams& params) {
  const auto& lo = params.lo();
  const auto& hi = params.hi();
  v.field = f;
  v.field_lo = to_vec3f(lo);
  v.field_hi = to_vec3f(hi);
  if (params.symmetry() == FieldSymmetry::quadrant) {
    // The map covers x, y >= 0 and is mirrored: its region is |x| <= hi.x, |y| <= hi.y.
    v.field_lo.x = -std::fmax(std::fabs(v.field_lo.x), std::fabs(v.field_hi.x));
    v.field_lo.y = -std::fmax(std::fabs(v.field_lo.y), std::fabs(v.field_hi.y));
    v.field_hi.x = -v.field_lo.x;
    v.field_hi.y = -v.field_lo.y;
  }
  v.features |= step_features::kFieldMap;
}

double TransportParams::tables_top() const {
  double top = kMaxStepMomentum;
  auto lower = [&](const std::shared_ptr<const TableParams>& t) {
    if (t) top = std::min(top, static_cast<double>(t->host_view().p_max));
  };
  for (std::size_t m = 0; m < tables_.size(); ++m) {
    lower(tables_[m]);
    for (const auto& t : shorter_[m]) lower(t);
    for (const auto& t : longer_[m]) lower(t);
  }
  return top;
}

MuonRowLimits TransportParams::row_limits(MomentumPolicy policy) const {
  MuonRowLimits limits;
  if (policy == MomentumPolicy::refuse) limits.p_max = options_.p_max;
  return limits;
}

}  // namespace fastmu
