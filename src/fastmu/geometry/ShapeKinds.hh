// The kinds of solid beyond axis-aligned boxes that a geometry may hold, as
// bits. GeometryView's navigation takes them as a template argument: a
// function compiled for fewer kinds carries none of the others' code (a GPU
// kernel for boxes and planar ARB8s is smaller and takes fewer registers
// than one that can also meet terrain). GeometryParams::shape_kinds says
// which kinds a geometry holds.
#pragma once

namespace fastmu::shapes {

inline constexpr unsigned kPlanarArb8 = 1u;   // ARB8s with flat faces (Arb8Shape::planar)
inline constexpr unsigned kTwistedArb8 = 2u;  // ARB8s with a twisted lateral face
inline constexpr unsigned kTerrain = 4u;      // terrain slabs (Terrain.hh)
inline constexpr unsigned kAll = kPlanarArb8 | kTwistedArb8 | kTerrain;

// Whether `kinds` may hold `kind`.
constexpr bool may_hold(unsigned kinds, unsigned kind) { return (kinds & kind) != 0u; }

}  // namespace fastmu::shapes
