// Fuzzes the fast transport itself: random muon rows through small random
// geometries under random step options (TransportInputs.hh), with synthetic
// tables (SyntheticTables.hh). Every row is refused by the row check with one
// line, or transported on the CPU lanes to a final status 0..6 with finite
// momentum and position and at most max_steps steps; status 5 (above_tables)
// only for a row above the tables' top; and the per-muon path the GPU runs
// (transport_muon) ends the first rows with the statuses the lanes gave.
// A violation aborts with a message (a finding); a geometry the reader
// refuses (fastmu::Error) is skipped.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include <fuzzer/FuzzedDataProvider.h>

#include "SyntheticTables.hh"
#include "TransportInputs.hh"
#include "fastmu/core/Error.hh"
#include "fastmu/geometry/GeometryParams.hh"
#include "fastmu/materials/Material.hh"
#include "fastmu/transport/MuonRowCheck.hh"
#include "fastmu/transport/Transport.hh"
#include "fastmu/transport/TransportParams.hh"
#include "fastmu/transport/step/StepLengths.hh"
#include "fastmu/transport/step/StepPhysics.hh"

namespace {

using namespace fastmu;

// Rows also run through the per-muon path (it costs as much as the lanes).
constexpr std::size_t kPerMuonRows = 8;

// The rows in and out of the current transport, printed with a finding.
struct Rows {
  const MuonBatch* in = nullptr;
  const TransportResult* out = nullptr;
  const StepOptions* options = nullptr;
} current;

void print_row(const char* label, const MuonBatch& b, std::size_t i) {
  std::fprintf(stderr, "  %s: p = (%.9g, %.9g, %.9g) r = (%.9g, %.9g, %.9g) pdg %d\n", label,
               b.px[i], b.py[i], b.pz[i], b.x[i], b.y[i], b.z[i], b.pdg[i]);
}

[[noreturn]] void fail(const char* what, std::size_t row) {
  std::fprintf(stderr, "fuzz_transport: %s (row %zu)\n", what, row);
  if (current.in && row < current.in->size()) print_row("in", *current.in, row);
  if (current.out && row < current.out->size()) {
    print_row("out", current.out->muons, row);
    std::fprintf(stderr, "  status %d, steps %d, plane %d\n", current.out->status[row],
                 current.out->steps[row], current.out->plane[row]);
  }
  if (current.options) {
    const StepOptions& o = *current.options;
    std::fprintf(stderr, "  step %g, p_kill %g, p_max %.9g, max_steps %d, long_steps %d\n", o.step,
                 o.p_kill, o.p_max, o.max_steps, o.long_steps);
  }
  std::abort();
}

void require(bool ok, const char* what, std::size_t row = 0) {
  if (!ok) fail(what, row);
}

// The params make_transport_params would assemble from the table cache (the
// material's step, its ladder and its long steps), from synthetic tables.
TransportParams make_params(std::shared_ptr<const GeometryParams> geo,
                            const MaterialLibrary& materials, const StepOptions& options) {
  static fuzz::SyntheticTables synthetic;
  TableSet tables;
  TableLadders shorter, longer;
  const MaterialSteps& steps = geo->material_steps();
  for (const auto& name : geo->material_names()) {
    if (is_vacuum_material(name) || tables.count(name)) continue;
    const Material& m = materials.find(name);
    const double d = material_step(m, options.step, steps);
    tables[name] = synthetic.get(m, d);
    for (const double s : ladder_steps(d, m.density_g_cm3)) {
      shorter[name].push_back(synthetic.get(m, s));
    }
    if (steps.count(name)) continue;
    for (const LongStep& s : long_steps(d, options.long_steps, fuzz::kTableMomentumMax)) {
      longer[name].push_back(synthetic.get(m, s.step, s.p_from));
    }
  }
  return TransportParams(std::move(geo), tables, options, shorter, longer);
}

MuonBatch row_of(const MuonBatch& b, std::size_t i) {
  MuonBatch one;
  one.push_back(b.px[i], b.py[i], b.pz[i], b.x[i], b.y[i], b.z[i], b.pdg[i], b.weight[i]);
  return one;
}

bool finite_row(const MuonBatch& b, std::size_t i) {
  return std::isfinite(b.px[i]) && std::isfinite(b.py[i]) && std::isfinite(b.pz[i]) &&
         std::isfinite(b.x[i]) && std::isfinite(b.y[i]) && std::isfinite(b.z[i]) &&
         std::isfinite(b.weight[i]) && (b.pdg[i] == 13 || b.pdg[i] == -13);
}

// The rows the check accepts, one by one; a refused row gets one line, and
// the whole batch is refused exactly when one of its rows is.
MuonBatch accepted_rows(const MuonBatch& rows, const MuonRowLimits& limits) {
  MuonBatch ok;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const double v[8] = {rows.px[i], rows.py[i], rows.pz[i],          rows.x[i],
                         rows.y[i],  rows.z[i],  double(rows.pdg[i]), rows.weight[i]};
    bool accepted = true;
    try {
      check_muon_rows(row_of(rows, i), limits, "fuzz");
    } catch (const Error& e) {
      require(std::string(e.what()).find('\n') == std::string::npos, "refusal is not one line", i);
      accepted = false;
    }
    require(accepted == muon_row_ok(v, limits.p_max), "check_muon_rows != muon_row_ok", i);
    require(!accepted || finite_row(rows, i), "a non-finite or non-muon row was accepted", i);
    if (accepted) {
      ok.push_back(rows.px[i], rows.py[i], rows.pz[i], rows.x[i], rows.y[i], rows.z[i], rows.pdg[i],
                   rows.weight[i]);
    }
  }
  bool batch_refused = false;
  try {
    check_muon_rows(rows, limits, "fuzz");
  } catch (const Error&) {
    batch_refused = true;
  }
  require(batch_refused == (ok.size() != rows.size()), "batch check disagrees with its rows");
  return ok;
}

void check_result(const TransportParams& params, const MuonBatch& in, const TransportResult& out,
                  const TransportStats& stats) {
  const StepOptions& o = params.options();
  const auto n_planes = static_cast<std::int32_t>(params.geometry().sensitive_planes().size());
  require(out.size() == in.size() && out.muons.size() == in.size(), "result size");
  for (std::size_t i = 0; i < out.size(); ++i) {
    const int s = out.status[i];
    require(s >= 0 && s < kMuonStatusCount, "status outside 0..6", i);
    require(s != static_cast<int>(MuonStatus::decayed) || o.decay, "status 6 with decay off", i);
    require(std::isfinite(out.muons.px[i]) && std::isfinite(out.muons.py[i]) &&
                std::isfinite(out.muons.pz[i]) && std::isfinite(out.muons.x[i]) &&
                std::isfinite(out.muons.y[i]) && std::isfinite(out.muons.z[i]),
            "non-finite output", i);
    require(out.steps[i] >= 0 && out.steps[i] <= o.max_steps, "steps outside 0..max_steps", i);
    require(out.plane[i] >= -1 && out.plane[i] < n_planes, "plane index out of range", i);
    require(s != 0 || out.plane[i] >= 0, "status 0 without a plane", i);
    const double p_in = row_momentum(in.px[i], in.py[i], in.pz[i]);
    require(s != static_cast<int>(MuonStatus::above_tables) || p_in > o.p_max,
            "status 5 for a row at or below the tables' top", i);
    // Clearly above (float rounding aside): never transported.
    require(!(p_in > o.p_max * (1 + 1e-6)) || s == static_cast<int>(MuonStatus::above_tables),
            "a row above the tables' top was transported", i);
    require(s != static_cast<int>(MuonStatus::step_limit) || out.steps[i] == o.max_steps,
            "status 3 before max_steps", i);
  }
  std::uint64_t total = 0;
  for (auto c : stats.by_status) total += c;
  require(total == in.size() && stats.muons == in.size(), "stats do not count every muon");
}

// The per-muon path (the GPU's schedule) takes the lanes' step decisions.
void check_per_muon(const TransportParams& params, const MuonBatch& in,
                    const TransportResult& lanes) {
  const HostTransportView host(params);
  for (std::size_t i = 0; i < in.size() && i < kPerMuonRows; ++i) {
    MuonTrack m = make_track(in, i, host.view.options, 0);
    transport_muon(host.view, m, i);
    require(m.status == lanes.status[i], "per-muon status differs from the CPU lanes", i);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  fuzz::WorldBox world{};
  const nlohmann::json doc = fuzz::pick_geometry(in, world);
  const StepOptions options = fuzz::pick_options(in);
  const MomentumPolicy policy = in.ConsumeBool() ? MomentumPolicy::stop : MomentumPolicy::refuse;
  const MuonBatch rows = fuzz::pick_rows(in, world);
  MaterialLibrary materials;
  std::unique_ptr<TransportParams> params;
  try {
    params = std::make_unique<TransportParams>(make_params(
        std::make_shared<const GeometryParams>(GeometryParams::from_json(doc, "fuzz", materials)),
        materials, options));
  } catch (const Error&) {
    return 0;  // a geometry the reader refuses
  }
  const MuonBatch ok = accepted_rows(rows, params->row_limits(policy));
  if (ok.size() == 0) return 0;
  TransportStats stats;
  const TransportResult out = transport(*params, ok, Backend::cpu, 1, 0, &stats);
  current = {&ok, &out, &params->options()};
  check_result(*params, ok, out, stats);
  check_per_muon(*params, ok, out);
  current = {};
  return 0;
}
