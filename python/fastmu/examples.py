"""The built-in example workloads, as `fastmu run --example` has them.

    geo = fastmu.Geometry.from_dict(fastmu.examples.iron_block_geometry())
    out = fastmu.transport(fastmu.examples.iron_block_muons(10000), geo)
"""

import json

import numpy as np

from . import _fastmu

IRON_BLOCK_THICKNESS = 10.0  # m
IRON_BLOCK_MOMENTUM = 50.0   # GeV/c


def iron_block_geometry():
    """Vacuum world around an iron slab 0 <= z <= 10 m (|x|, |y| <= 20 m),
    with a sensitive plane on its exit face z = 10 m (a dict, JSON layout)."""
    return json.loads(_fastmu._iron_block_geometry_json())


def iron_block_muons(n):
    """n mu- at the origin with p = (0, 0, 50 GeV/c): an (n, 8) float32 array."""
    m = np.zeros((int(n), 8), dtype=np.float32)
    m[:, 2] = IRON_BLOCK_MOMENTUM
    m[:, 6] = 13
    m[:, 7] = 1
    return m


__all__ = ["iron_block_geometry", "iron_block_muons", "IRON_BLOCK_THICKNESS",
           "IRON_BLOCK_MOMENTUM"]
