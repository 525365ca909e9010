#!/usr/bin/env python3
"""Writes an illustrative dipole field map in fastmu's HDF5 layout
(interfaces.md "Field map"): dataset B (nx, ny, nz, 3) in tesla, attributes
min and max = [x, y, z] in metres, grid points at both ends.

The field is a dipole along y with soft ends in z, to first order in y:
    By = B0 g(z),  Bz = B0 y g'(z),  Bx = 0,
    g(z) = (tanh((z - z0) / w) - tanh((z - z1) / w)) / 2,
which has the symmetry that `"symmetry": "quadrant"` assumes, so by default
only x >= 0, y >= 0 is stored.

    /usr/bin/python3 tools/make_field_map.py --out dipole.h5 [--b0 1.5] \
        [--z0 2 --z1 8 --width 0.3] [--half-x 1 --half-y 1 --z-min 0 --z-max 10] \
        [--points 11 11 101] [--full]

and in the geometry:
    "field_map": {"file": "dipole.h5", "interpolation": "linear", "symmetry": "quadrant"}
(or "symmetry": "none" with --full).
"""
import argparse
import os

import h5py
import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--b0", type=float, default=1.5, help="plateau field By (T)")
    ap.add_argument("--z0", type=float, default=2.0, help="upstream edge of the field (m)")
    ap.add_argument("--z1", type=float, default=8.0, help="downstream edge of the field (m)")
    ap.add_argument("--width", type=float, default=0.3, help="fringe length (m)")
    ap.add_argument("--half-x", type=float, default=1.0)
    ap.add_argument("--half-y", type=float, default=1.0)
    ap.add_argument("--z-min", type=float, default=0.0)
    ap.add_argument("--z-max", type=float, default=10.0)
    ap.add_argument("--points", type=int, nargs=3, default=[11, 11, 101], metavar=("NX", "NY", "NZ"))
    ap.add_argument("--full", action="store_true", help="store -x..x, -y..y (for symmetry none)")
    a = ap.parse_args()
    lo = [-a.half_x if a.full else 0.0, -a.half_y if a.full else 0.0, a.z_min]
    hi = [a.half_x, a.half_y, a.z_max]
    x, y, z = (np.linspace(l, h, n) for l, h, n in zip(lo, hi, a.points))
    X, Y, Z = np.meshgrid(x, y, z, indexing="ij")
    t0, t1 = np.tanh((Z - a.z0) / a.width), np.tanh((Z - a.z1) / a.width)
    g = 0.5 * (t0 - t1)
    dg = 0.5 * ((1 - t0 ** 2) - (1 - t1 ** 2)) / a.width
    B = np.stack([np.zeros_like(X), a.b0 * g, a.b0 * Y * dg], axis=-1).astype(np.float32)
    tmp = a.out + ".tmp"
    with h5py.File(tmp, "w") as f:
        d = f.create_dataset("B", data=B)
        for obj in (f, d):
            obj.attrs["min"] = np.array(lo)
            obj.attrs["max"] = np.array(hi)
    os.replace(tmp, a.out)
    print("wrote %s: B %s, min %s, max %s" % (a.out, B.shape, lo, hi))


if __name__ == "__main__":
    main()
