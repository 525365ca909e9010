"""The SHiP-like active muon shield (docs/ship-like-muon-shield.md) from Python.

    params = fastmu.ship.parameters("warm_baseline")   # (n_magnets, 15) float64: cm, T
    params[:, 14] *= 1.1                               # a design to try
    geo = fastmu.ship.geometry(params)                 # a fastmu.Geometry
    out = fastmu.transport(fastmu.ship.muons(100_000, seed=1), geo)

Each row is one magnet: [zgap, dZ, dXIn, dXOut, dYIn, dYOut, gapIn, gapOut,
xYokeIn, xYokeOut, dYYokeIn, dYYokeOut, midGapIn, midGapOut] in cm, then B in
tesla; the geometry (eight ARB8 blocks per magnet, concrete cavern, sensitive
plane at z = 82 m with window |x| < 2 m, |y| < 3 m) follows the spec.
"""

import json

import numpy as np

from . import _fastmu
from ._fastmu import Geometry

COLUMNS = ("zgap", "dZ", "dXIn", "dXOut", "dYIn", "dYOut", "gapIn", "gapOut",
           "xYokeIn", "xYokeOut", "dYYokeIn", "dYYokeOut", "midGapIn", "midGapOut", "B")
PLANE_Z = 82.0             # m
WINDOW = (2.0, 3.0)        # half-widths in x and y, m


def parameter_sets():
    """Names of the spec's parameter sets."""
    return list(_fastmu._ship_parameter_sets())


def parameters(name="warm_baseline"):
    """The (n_magnets, 15) float64 parameter table of a named set (a new array)."""
    return np.array(_fastmu._ship_parameter_set(name), dtype=np.float64)


def geometry_dict(params, world_material="G4_AIR"):
    """The geometry document (interfaces.md JSON layout, as a dict) of a parameter table."""
    return json.loads(_fastmu._ship_geometry_json(np.asarray(params, dtype=np.float64),
                                                  world_material))


def geometry(params, world_material="G4_AIR"):
    """A fastmu.Geometry of the shield built from `params` ((n_magnets, 15), cm and T);
    `world_material` fills the space outside the blocks and the concrete
    ("G4_AIR" or "vacuum")."""
    return Geometry.from_dict(geometry_dict(params, world_material))


def muons(n, seed=1):
    """The spec's synthetic flux: n muons, mu+ and mu- alternately, from the origin,
    |p| log-uniform in [1, 350] GeV/c, pt exponential with mean 0.6 GeV/c; an (n, 8)
    float32 array px,py,pz,x,y,z,pdg,weight (the muons of `fastmu run --example ship`)."""
    return _fastmu._ship_muons(int(n), int(seed))


__all__ = ["COLUMNS", "PLANE_Z", "WINDOW", "parameter_sets", "parameters", "geometry_dict",
           "geometry", "muons"]
