// The immutable inputs of a transport run, owned on the host: geometry, its
// field map, one table per non-vacuum material, and the step options. Views of
// it (TransportView) go to the CPU loop or, copied, to the GPU.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fastmu/field/FieldMapParams.hh"
#include "fastmu/geometry/GeometryParams.hh"
#include "fastmu/tables/TableParams.hh"
#include "fastmu/transport/MuonRowCheck.hh"
#include "fastmu/transport/TransportView.hh"

namespace fastmu {

using TableSet = std::map<std::string, std::shared_ptr<const TableParams>>;  // by material name
// The ladders' shorter or long-step tables (StepLengths.hh), by material
// name, any order.
using TableLadders = std::map<std::string, std::vector<std::shared_ptr<const TableParams>>>;

// Materials that need no tables (no interactions).
bool is_vacuum_material(const std::string& name);

// Puts the field map `f` (a view of `params`) into the view: the map, the
// region where it can be non-zero (a quadrant map mirrored to |x|, |y| <=
// its top) and the kFieldMap feature, so that both backends run the step
// compiled with field maps. A view's features hold no field map otherwise.
void attach_field_map(TransportView& v, const FieldMapView& f, const FieldMapParams& params);

class TransportParams {
 public:
  // Checks that every non-vacuum material of the geometry has a table (its
  // step is the material's step d), that its shorter tables are for
  // distinct steps below d and its long-step tables for distinct steps above
  // d from increasing momenta above d's table's lowest; throws fastmu::Error
  // naming the material otherwise. The field map (if the geometry names one)
  // is loaded here.
  TransportParams(std::shared_ptr<const GeometryParams> geometry, const TableSet& tables,
                  const StepOptions& options, const TableLadders& shorter = {},
                  const TableLadders& longer = {});

  const GeometryParams& geometry() const { return *geometry_; }
  const std::shared_ptr<const GeometryParams>& geometry_ptr() const { return geometry_; }
  // The step options as given, with p_max the tables' top (tables_top).
  const StepOptions& options() const { return options_; }
  // The lowest top momentum of all tables [GeV/c] (kMaxStepMomentum without
  // tables): above it the tables say nothing.
  double tables_top() const;
  // What a muon row is checked against under `policy` (MuonRowCheck.hh).
  MuonRowLimits row_limits(MomentumPolicy policy) const;
  const std::optional<FieldMapParams>& field_map() const { return field_; }
  // Tables by material id (null for vacuum): the material's step d.
  const std::vector<std::shared_ptr<const TableParams>>& tables() const { return tables_; }
  // The shorter tables of material id m, by descending step.
  const std::vector<std::shared_ptr<const TableParams>>& shorter_tables(std::size_t m) const {
    return shorter_[m];
  }
  // The long-step tables of material id m, by ascending step.
  const std::vector<std::shared_ptr<const TableParams>>& longer_tables(std::size_t m) const {
    return longer_[m];
  }

  // A view whose arrays are copy(host_pointer, count). The per-material table
  // headers are assembled in `table_views`, which must outlive a host view.
  // `field_map`: a map to step through instead of the geometry's own (which
  // is then not copied); null: the geometry's.
  template <class Copy>
  TransportView make_view(Copy&& copy, std::vector<MaterialTableView>& table_views,
                          const FieldMapParams* field_map = nullptr) const {
    TransportView v;
    v.geometry = geometry_->make_view(copy);
    v.features = geometry_->shape_kinds() |
                 (geometry_->has_volume_fields() ? step_features::kVolumeFields : 0u);
    const FieldMapParams* field = field_map ? field_map : (field_ ? &*field_ : nullptr);
    if (field) attach_field_map(v, field->make_view(copy), *field);
    // Material ids first, then each ladder's shorter entries, chained by
    // `shorter` from the longest to the shortest, then its long steps,
    // listed in the material's first table and chained down by `shorter`.
    table_views.assign(tables_.size(), MaterialTableView{});
    auto view_of = [&](const TableParams& t, const MaterialTableArrays& logs) {
      MaterialTableView tv = logs.make_view(t.make_view(copy), copy);
      tv.step = static_cast<float>(t.metadata().step_m);
      tv.inv_step = static_cast<float>(1.0 / t.metadata().step_m);
      return tv;
    };
    for (std::size_t m = 0; m < tables_.size(); ++m) {
      if (!tables_[m]) continue;
      table_views[m] = view_of(*tables_[m], *table_arrays_[m]);
      std::size_t prev = m;
      for (std::size_t k = 0; k < shorter_[m].size(); ++k) {
        table_views[prev].shorter = static_cast<std::int32_t>(table_views.size());
        prev = table_views.size();
        table_views.push_back(view_of(*shorter_[m][k], *shorter_arrays_[m][k]));
      }
      prev = m;
      if (longer_[m].size() > MaterialTableView::kMaxLonger) {
        throw Error("transport: more long steps than a table view holds");
      }
      for (std::size_t k = 0; k < longer_[m].size(); ++k) {
        const auto next = static_cast<std::int32_t>(table_views.size());
        table_views.push_back(view_of(*longer_[m][k], *longer_arrays_[m][k]));
        table_views[next].shorter = static_cast<std::int32_t>(prev);
        MaterialTableView& base = table_views[m];
        base.longer[base.n_longer] = next;
        base.longer_from[base.n_longer++] = table_views[next].t.p_min;
        prev = static_cast<std::size_t>(next);
      }
    }
    v.tables = copy(table_views.data(), table_views.size());
    v.n_tables = static_cast<std::int32_t>(tables_.size());
    v.planes = v.geometry.planes;
    v.n_planes = v.geometry.num_planes;
    v.options = options_;
    return v;
  }

 private:
  std::shared_ptr<const GeometryParams> geometry_;
  std::optional<FieldMapParams> field_;
  std::vector<std::shared_ptr<const TableParams>> tables_;
  std::vector<std::shared_ptr<const MaterialTableArrays>> table_arrays_;
  std::vector<std::vector<std::shared_ptr<const TableParams>>> shorter_;
  std::vector<std::vector<std::shared_ptr<const MaterialTableArrays>>> shorter_arrays_;
  std::vector<std::vector<std::shared_ptr<const TableParams>>> longer_;
  std::vector<std::vector<std::shared_ptr<const MaterialTableArrays>>> longer_arrays_;
  StepOptions options_;
};

// A host view with its storage.
struct HostTransportView {
  // `field_map`: as TransportParams::make_view's.
  explicit HostTransportView(const TransportParams& params,
                             const FieldMapParams* field_map = nullptr)
      : view(params.make_view([](const auto* p, std::size_t) { return p; }, table_views,
                              field_map)) {}
  std::vector<MaterialTableView> table_views;
  TransportView view;
};

}  // namespace fastmu
