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
#include "fastmu/transport/TransportView.hh"

namespace fastmu {

using TableSet = std::map<std::string, std::shared_ptr<const TableParams>>;  // by material name

// Materials that need no tables (no interactions).
bool is_vacuum_material(const std::string& name);

class TransportParams {
 public:
  // Checks that every non-vacuum material of the geometry has a table of step
  // options.step (relative 1e-6); throws fastmu::Error naming the material
  // otherwise. The field map (if the geometry names one) is loaded here.
  TransportParams(std::shared_ptr<const GeometryParams> geometry, const TableSet& tables,
                  const StepOptions& options);

  const GeometryParams& geometry() const { return *geometry_; }
  const StepOptions& options() const { return options_; }
  const std::optional<FieldMapParams>& field_map() const { return field_; }
  // Tables by material id (null for vacuum).
  const std::vector<std::shared_ptr<const TableParams>>& tables() const { return tables_; }

  // A view whose arrays are copy(host_pointer, count). The per-material table
  // headers are assembled in `table_views`, which must outlive a host view.
  template <class Copy>
  TransportView make_view(Copy&& copy, std::vector<MaterialTableView>& table_views) const {
    TransportView v;
    v.geometry = geometry_->make_view(copy);
    if (field_) {
      v.field = field_->make_view(copy);
      v.field_lo = field_lo_;
      v.field_hi = field_hi_;
    }
    table_views.assign(tables_.size(), MaterialTableView{});
    for (std::size_t m = 0; m < tables_.size(); ++m) {
      if (tables_[m]) table_views[m] = table_logs_[m]->make_view(tables_[m]->make_view(copy), copy);
    }
    v.tables = copy(table_views.data(), table_views.size());
    v.n_tables = static_cast<std::int32_t>(table_views.size());
    v.planes = v.geometry.planes;
    v.n_planes = v.geometry.num_planes;
    v.options = options_;
    return v;
  }

 private:
  std::shared_ptr<const GeometryParams> geometry_;
  std::optional<FieldMapParams> field_;
  Vec3f field_lo_{}, field_hi_{};
  std::vector<std::shared_ptr<const TableParams>> tables_;
  std::vector<std::shared_ptr<const MaterialTableLogs>> table_logs_;
  StepOptions options_;
};

// A host view with its storage.
struct HostTransportView {
  explicit HostTransportView(const TransportParams& params)
      : view(params.make_view([](const auto* p, std::size_t) { return p; }, table_views)) {}
  std::vector<MaterialTableView> table_views;
  TransportView view;
};

}  // namespace fastmu
