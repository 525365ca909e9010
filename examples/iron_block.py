#!/usr/bin/env python3
"""The iron-block example from Python: 50 GeV/c mu- through 10 m of iron
(the paper's first validation case; `fastmu run --example iron-block`).

Transports the muons with the fast (histogram-sampling) transport and plots
the final |p| and x at the exit face to a PNG, with the Geant4 reference
sample overlaid when it is found.

    PYTHONPATH=build/python python3 examples/iron_block.py --n 100000 --out iron_block.png
    # tables: from the table cache (default), a file, or built here quickly:
    python3 examples/iron_block.py --tables G4_Fe_step20mm_v1.h5
    python3 examples/iron_block.py --samples-per-bin 20000
"""

import argparse
import os
import pathlib
import sys
import time

import matplotlib

matplotlib.use("Agg")  # files only, no display needed
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import fastmu  # noqa: E402

DEFAULT_REFERENCE = (pathlib.Path(__file__).resolve().parents[1] / ".." / "shared" / "reference" /
                     "geant4" / "slab_G4_Fe_10m_50GeV_mu-.f32")


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=100_000, help="number of muons")
    ap.add_argument("--out", default="iron_block.png", help="PNG to write")
    ap.add_argument("--tables", help="G4_Fe table file (default: the table cache)")
    ap.add_argument("--samples-per-bin", type=int,
                    help="build the G4_Fe table here with this many samples per momentum bin")
    ap.add_argument("--backend", default="auto", choices=["auto", "cpu", "cuda"])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--reference", default=os.environ.get("FASTMU_REFERENCE_DIR"),
                    help="Geant4 reference sample (file or folder) to overlay")
    return ap.parse_args()


def reference_sample(arg):
    path = pathlib.Path(arg) if arg else DEFAULT_REFERENCE
    if path.is_dir():
        path = path / "slab_G4_Fe_10m_50GeV_mu-.f32"
    if not path.is_file():
        return None
    ref = np.fromfile(path, dtype="<f4").reshape(-1, 7)
    moving = np.any(ref[:, 1:4] != 0, axis=1)
    return np.linalg.norm(ref[moving, 1:4], axis=1), ref[moving, 4]


def main():
    args = parse_args()
    geometry = fastmu.Geometry.from_dict(fastmu.examples.iron_block_geometry())
    tables = None
    if args.tables:
        tables = [fastmu.load_table(args.tables)]
    elif args.samples_per_bin:
        t0 = time.perf_counter()
        tables = [fastmu.build_table("G4_Fe", step=0.02, p_min=0.18, p_max=100.0, p_bins=40,
                                     samples_per_bin=args.samples_per_bin)]
        print(f"built the G4_Fe table in {time.perf_counter() - t0:.1f} s")
    muons = fastmu.examples.iron_block_muons(args.n)

    t0 = time.perf_counter()
    out = fastmu.transport(muons, geometry, tables=tables, backend=args.backend, seed=args.seed,
                           all=True)
    seconds = time.perf_counter() - t0
    at_exit = out["status"] == 0
    p = np.sqrt(out["px"] ** 2 + out["py"] ** 2 + out["pz"] ** 2)[at_exit]
    x = out["x"][at_exit]
    print(f"{args.n} mu- of 50 GeV/c through 10 m of G4_Fe in {seconds:.2f} s "
          f"({args.n / seconds:.3g} muons/s)")
    print(f"fastmu : mean |p| {p.mean():.2f} GeV/c, median {np.median(p):.2f}, std {p.std():.2f}, "
          f"stopped {int(np.sum(out['status'] == 1))}, rms x {100 * x.std():.2f} cm")

    ref = reference_sample(args.reference)
    if ref is not None:
        rp, rx = ref
        print(f"Geant4 : mean |p| {rp.mean():.2f} GeV/c, median {np.median(rp):.2f}, "
              f"std {rp.std():.2f}, rms x {100 * rx.std():.2f} cm")

    fig, (ax_p, ax_x) = plt.subplots(1, 2, figsize=(11, 4.2))
    p_bins = np.linspace(0, 50, 101)
    x_bins = np.linspace(-0.25, 0.25, 101)
    ax_p.hist(p, bins=p_bins, density=True, histtype="step", lw=1.5, label="fastmu")
    ax_x.hist(x, bins=x_bins, density=True, histtype="step", lw=1.5, label="fastmu")
    if ref is not None:
        ax_p.hist(rp, bins=p_bins, density=True, histtype="step", lw=1.5, label="Geant4 11.4")
        ax_x.hist(rx, bins=x_bins, density=True, histtype="step", lw=1.5, label="Geant4 11.4")
    ax_p.set_xlabel("|p| at exit [GeV/c]")
    ax_p.set_yscale("log")
    ax_x.set_xlabel("x at exit [m]")
    for ax in (ax_p, ax_x):
        ax.set_ylabel("density")
        ax.legend()
    fig.suptitle("50 GeV/c $\\mu^-$ through 10 m of iron")
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except fastmu.Error as e:
        print(f"iron_block.py: error: {e}", file=sys.stderr)
        sys.exit(1)
