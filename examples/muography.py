#!/usr/bin/env python3
"""Muography of a small synthetic mountain: sea-level cosmic muons through a
Gaussian hill (a height map, the geometry's "terrain") to a detector at its
foot, and a PNG of the transmitted flux against direction.

The hill is 300 m high (sigma 150 m) on flat ground, in standard rock; the
detector (10 m x 10 m, horizontal) lies at the ground's level 350 m south of
the summit, 20 m under the slope. Muons are drawn from the sea-level flux
(fastmu.flux) through the detector, each traced back along its direction to
a start above the terrain, and transported with the fast engine; those that
reach the detector give the transmitted flux per direction bin. The
atmosphere above the terrain is vacuum: the sea-level flux already went
through it.

    python3 examples/muography.py --out muography.png     # with fastmu installed
    # standard_rock tables: from the table cache (default), or built here quickly:
    python3 examples/muography.py --samples-per-bin 20000
"""

import argparse
import json
import pathlib
import tempfile
import time

import numpy as np

import fastmu

HEIGHT, SIGMA = 300.0, 150.0  # the hill [m]
EXTENT, NODES = 600.0, 61  # height map over [-EXTENT, EXTENT]^2, NODES^2 nodes (20 m cells)
DETECTOR = (0.0, -350.0, 0.0)  # centre [m]
HALF_SIZE = 5.0  # the detector's half side [m]
START_Z = 380.0  # muons start above the summit
ZENITH_MAX = 70.0  # degrees: the start stays within the world
TAN_RANGE = 2.0  # the map covers tan(theta_x), tan(theta_y) in [-TAN_RANGE, TAN_RANGE]


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1_000_000, help="muons through the detector")
    ap.add_argument("--out", default="muography.png", help="PNG to write")
    ap.add_argument("--workdir", help="where the height map and geometry go (default: temporary)")
    ap.add_argument("--samples-per-bin", type=int,
                    help="build the standard_rock table here with this many samples per bin")
    ap.add_argument("--p-max", type=float, default=3000.0,
                    help="top of the sampled momenta [GeV/c] (and of a table built here)")
    ap.add_argument("--bins", type=int, default=32, help="direction bins per axis")
    ap.add_argument("--backend", default="auto", choices=["auto", "cpu", "cuda"])
    ap.add_argument("--seed", type=int, default=1)
    return ap.parse_args()


def hill_height(x, y):
    return HEIGHT * np.exp(-(x**2 + y**2) / (2 * SIGMA**2))


def write_geometry(folder):
    """The height map (CSV, rows along y) and the geometry JSON; returns its path."""
    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    nodes = np.linspace(-EXTENT, EXTENT, NODES)
    heights = hill_height(nodes[None, :], nodes[:, None])  # [j, i]: y rows, x columns
    np.savetxt(folder / "hill.csv", heights, delimiter=",", fmt="%.3f",
               header="Gaussian hill: heights [m], row j at y_j, column i at x_i")
    x0, y0, z0 = DETECTOR
    geometry = {
        "world": {"min": [-1500, -1500, -60], "max": [1500, 1500, 400],
                  "material": "G4_Galactic"},
        "terrain": {"name": "hill", "height_map": "hill.csv", "x": [-EXTENT, EXTENT],
                    "y": [-EXTENT, EXTENT], "bottom": -50, "material": "standard_rock"},
        "sensitive_planes": [{"name": "detector", "z": z0,
                              "x": [x0 - HALF_SIZE, x0 + HALF_SIZE],
                              "y": [y0 - HALF_SIZE, y0 + HALF_SIZE]}],
    }
    path = folder / "hill.json"
    path.write_text(json.dumps(geometry, indent=1))
    return path


def sky_muons(n, p_max, seed):
    """Sea-level muons through the detector, moved back along their
    directions to z = START_Z: rows px, py, pz, x, y, z, pdg, weight."""
    x0, y0, z0 = DETECTOR
    area = (x0 - HALF_SIZE, x0 + HALF_SIZE, y0 - HALF_SIZE, y0 + HALF_SIZE)
    # E^-1.5 puts more muons at the energies that cross the hill; the weights
    # keep the flux right. Below 2 GeV none crosses even the 20 m overhead.
    m = fastmu.flux(n, e_min=2.0, e_max=p_max, zenith_max=ZENITH_MAX, gamma=1.5, area=area, z=z0,
                    seed=seed)
    u = m[:, 0:3] / np.linalg.norm(m[:, 0:3], axis=1, keepdims=True)
    back = (START_Z - z0) / -u[:, 2]
    m[:, 3:6] -= back[:, None] * u
    return m


def view_tangents(p):
    """tan(theta_x), tan(theta_y) of the line of sight (towards the sky)."""
    return p[:, 0] / p[:, 2], p[:, 1] / p[:, 2]


def rock_along(tx, ty, step=1.0):
    """Length of rock [m] from the detector along each line of sight, by
    marching through the (analytic) hill in `step`s."""
    x0, y0, z0 = DETECTOR
    d = np.stack([tx, ty, np.ones_like(tx)], axis=-1)
    d /= np.linalg.norm(d, axis=-1, keepdims=True)
    s = np.arange(0.5 * step, 2000.0, step)
    pts = np.array(DETECTOR) + s[:, None, None, None] * d[None]
    inside = pts[..., 2] < hill_height(pts[..., 0], pts[..., 1])
    inside &= (np.abs(pts[..., 0]) <= EXTENT) & (np.abs(pts[..., 1]) <= EXTENT)
    return inside.sum(axis=0) * step


def flux_maps(sky, result, bins):
    """Open-sky and transmitted flux [m^-2 s^-1 sr^-1] per (tan x, tan y) bin."""
    edges = np.linspace(-TAN_RANGE, TAN_RANGE, bins + 1)
    centres = 0.5 * (edges[1:] + edges[:-1])
    cx, cy = np.meshgrid(centres, centres, indexing="ij")
    d_omega = (edges[1] - edges[0])**2 / (1 + cx**2 + cy**2)**1.5
    area = (2 * HALF_SIZE)**2

    def histogram(p, w):
        tx, ty = view_tangents(-p)
        h, _, _ = np.histogram2d(tx, ty, bins=[edges, edges], weights=w)
        return h / (area * d_omega)

    open_sky = histogram(sky[:, 0:3], sky[:, 7])
    arrived = result["status"] == 0
    # The detector measures the direction it sees: the muon's at arrival.
    p_end = np.stack([result["px"], result["py"], result["pz"]], axis=1)[arrived]
    transmitted = histogram(p_end.astype(np.float64), result["weight"][arrived])
    return edges, cx, cy, open_sky, transmitted


def plot(path, edges, cx, cy, open_sky, transmitted, n, arrived):
    import matplotlib
    matplotlib.use("Agg")  # files only, no display needed
    import matplotlib.pyplot as plt
    from matplotlib.colors import LogNorm

    rock = rock_along(cx, cy)
    fig, axes = plt.subplots(1, 2, figsize=(13, 5.6), constrained_layout=True)
    shown = np.where(transmitted > 0, transmitted, np.nan)
    positive = transmitted[transmitted > 0]
    norm = LogNorm(vmin=positive.min(), vmax=positive.max()) if positive.size else None
    im = axes[0].pcolormesh(edges, edges, shown.T, norm=norm, cmap="viridis")
    fig.colorbar(im, ax=axes[0], label=r"transmitted flux [m$^{-2}$ s$^{-1}$ sr$^{-1}$]")
    axes[0].set_title(f"Transmitted flux ({arrived} of {n} muons arrived)")
    ratio = np.where(open_sky > 0, transmitted / np.where(open_sky > 0, open_sky, 1), np.nan)
    im = axes[1].pcolormesh(edges, edges, ratio.T, norm=LogNorm(vmin=1e-4, vmax=1), cmap="magma")
    fig.colorbar(im, ax=axes[1], label="transmission (transmitted / open sky)")
    axes[1].set_title("Transmission; contours: rock along the line of sight")
    for ax in axes:
        cs = ax.contour(cx, cy, rock, levels=[50, 100, 200, 400, 800], colors="white",
                        linewidths=0.8)
        ax.clabel(cs, fmt="%d m", fontsize=7)
        ax.set_xlabel(r"$\tan\theta_x$ (east)")
        ax.set_ylabel(r"$\tan\theta_y$ (north: the summit)")
        ax.set_aspect("equal")
    fig.suptitle(f"Muography of a {HEIGHT:.0f} m hill of standard rock from its foot "
                 "(fastmu, fast engine)")
    fig.savefig(path, dpi=110)


def main():
    args = parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        geometry = write_geometry(args.workdir or tmp)
        tables = None
        if args.samples_per_bin:
            t0 = time.time()
            # Steps of 0.5 m (the cache's would be 6 cm, up to 47 cm for fast
            # muons): hundreds of metres of rock in a few hundred steps.
            tables = [fastmu.build_table(
                "standard_rock", step=0.5, p_min=0.18, p_max=args.p_max, p_bins=40,
                samples_per_bin=args.samples_per_bin, hist_bins=50, seed=args.seed)]
            print(f"standard_rock table: {time.time() - t0:.1f} s")
        sky = sky_muons(args.n, args.p_max, args.seed)
        t0 = time.time()
        result = fastmu.transport(sky, str(geometry), tables=tables, cache=tables is None,
                                  backend=args.backend, seed=args.seed, all=True,
                                  above_tables="stop")
        seconds = time.time() - t0
    arrived = int(np.sum(result["status"] == 0))
    print(f"{args.n} muons in {seconds:.1f} s: {arrived} reached the detector; "
          f"transmitted rate {result['weight'][result['status'] == 0].sum():.4g} /s "
          f"of {sky[:, 7].sum():.4g} /s open sky")
    edges, cx, cy, open_sky, transmitted = flux_maps(sky, result, args.bins)
    plot(args.out, edges, cx, cy, open_sky, transmitted, args.n, arrived)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
