// The accepted range of every number a user or a file gives fastmu, written
// down once (docs/interfaces.md, "Accepted ranges", is the same table): the
// readers and options check against these where the number enters, so the
// step never meets a value it was not built for.
#pragma once

#include <cstdint>

namespace fastmu::limits {

// Momentum [GeV/c]: the detailed engine's cross sections and the tables stop
// at 100 TeV/c.
inline constexpr double kTopMomentum = 1e5;
// A step or a material's step [m] (--step, --material-step, "steps").
inline constexpr double kMaxStep = 1000.0;
// A coordinate of the geometry (world, volumes, planes, field-map extents)
// [m]: 100 km, where a float position still resolves 8 mm.
inline constexpr double kMaxCoordinate = 1e5;
// A magnetic field component (volumes, field maps, --field) [T].
inline constexpr double kMaxField = 1000.0;
// Values of a field map (nx ny nz 3 floats: 4 GB).
inline constexpr double kMaxFieldMapValues = 1e9;
// Points of a terrain height map.
inline constexpr double kMaxHeightMapPoints = 1e8;
// A slab's thickness [m] (physics transport): 100 km, beyond any muon's range.
inline constexpr double kMaxThickness = 1e5;
// Density of a material [g/cm^3]: from G4_Galactic's 1e-25 to 1000, forty
// times osmium (above it the tables' mass thickness per step is meaningless).
inline constexpr double kMinDensity = 1e-25;
inline constexpr double kMaxDensity = 1e3;
// Muons of one command held in memory (examples, physics sample/transport,
// flux, bench, validate): 10^9 rows are ~60 GB.
inline constexpr std::uint64_t kMaxMuons = 1'000'000'000;
// Momentum bins of a table, and the cells of its histograms together
// (p-bins x hist-bins^2 floats: 10^9 cells are 4 GB).
inline constexpr std::int64_t kMaxMomentumBins = 100'000;
inline constexpr double kMaxTableCells = 1e9;
// Threads and GPUs asked for.
inline constexpr std::int64_t kMaxThreads = 65536;

}  // namespace fastmu::limits
