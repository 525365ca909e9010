"""Underground and underwater laboratories: the muon flux under a flat
overburden of rock, water or ice, as `fastmu underground` computes it
(docs/underground.md).

    site = fastmu.underground(depth=2805)                     # m.w.e. of standard rock
    site["site"]["flux_horizontal_cm2_s"]                      # [value, error], cm^-2 s^-1
    fastmu.underground(rock="sea_water", rock_depth=2000)      # 2000 m of sea water
    fastmu.underground(depths=[1000, 3000, 6000])["depth_intensity"]

The slant-depth table of the rock is built once by the fast transport (on the
GPU when there is one) and kept in the table cache; later calls reuse it.
"""

import json
import os

from . import _fastmu
from ._checks import integer, real, reals, text
from ._fastmu import Error


def underground(depth=0.0, rock_depth=0.0, rock="standard_rock", density=0.0, composition=None,
                depths=(), zenith_max=90.0, zenith_bins=20, azimuth_bins=12, energy_bins=10,
                table_muons=200000, seed=1, backend="auto", threads=0, progress=False,
                terrain=None, terrain_x=None, terrain_y=None, lab=None, terrain_dataset="height"):
    """One laboratory's muon flux, as a dict (the JSON `fastmu underground`
    writes): "overburden", "model" (what the numbers assume), "table",
    "seconds", and "site" when a depth is given (fluxes through a horizontal
    surface and through a sphere [cm^-2 s^-1], vertical intensity
    [cm^-2 s^-1 sr^-1], mean energy [GeV], each as [value, error]; the energy
    spectrum and zenith and azimuth distributions as edges, value, error),
    "depth_intensity" when `depths` (m.w.e., at most 20) are given.

    depth: vertical depth in m.w.e. (hg/cm^2) of the rock; rock_depth: in
    metres of rock (times density). rock: standard_rock, salt, norite,
    granite, water, ice, sea_water, or the name of a custom rock given by `composition` (mass
    fractions by element symbol) and `density` [g/cm3].

    terrain: a lab under a terrain instead of a flat depth: the height map
    (CSV or HDF5 file, as the geometry's terrain reads it) over the rectangle
    terrain_x = (min, max), terrain_y = (min, max) [m], with the lab at
    lab = (x, y, z) [m] below the surface; the rock fills all below the
    surface. "site" then holds the vertical depth as depth_mwe, and
    "terrain" what is not counted.
    """
    if composition is not None and not isinstance(composition, dict):
        raise Error("composition: must be a dict {element symbol: mass fraction} or None")
    if isinstance(depths, (str, bytes)) or not hasattr(depths, "__iter__"):
        raise Error(f"depths: {depths!r:.40} is not a sequence of depths in m.w.e.")
    if terrain is None:
        if not (terrain_x is None and terrain_y is None and lab is None):
            raise Error("terrain: terrain_x, terrain_y and lab need terrain (a height map file)")
        terrain_request = {"terrain": ""}
    else:
        if not isinstance(terrain, (str, os.PathLike)):
            raise Error(f"terrain: {terrain!r:.40} is not a file name")
        if terrain_x is None or terrain_y is None or lab is None:
            raise Error("terrain: needs terrain_x=(min, max), terrain_y=(min, max) and lab=(x, y, z)")
        terrain_request = {
            "terrain": os.fspath(terrain), "terrain_dataset": text("terrain_dataset", terrain_dataset),
            "terrain_x": reals("terrain_x", terrain_x, 2), "terrain_y": reals("terrain_y", terrain_y, 2),
            "lab": reals("lab", lab, 3)}
    request = {
        **terrain_request,
        "depth": real("depth", depth, 0.0, 1e5), "rock_depth": real("rock_depth", rock_depth,
                                                                      0.0, 1e5),
        "rock": text("rock", rock), "density": real("density", density, 0.0, 1e3),
        "composition": {text("composition key", k): real(f"composition[{k!r}]", v, 0.0)
                        for k, v in (composition or {}).items()},
        "depths": [real("depths", d, 0.0, 1e5) for d in depths],
        "zenith_max": real("zenith_max", zenith_max, 0.0, 90.0),
        "zenith_bins": integer("zenith_bins", zenith_bins),
        "azimuth_bins": integer("azimuth_bins", azimuth_bins),
        "energy_bins": integer("energy_bins", energy_bins),
        "table_muons": integer("table_muons", table_muons), "seed": integer("seed", seed),
        "backend": text("backend", backend), "threads": integer("threads", threads),
        "progress": bool(progress),
    }
    return json.loads(_fastmu._underground(json.dumps(request)))
