#!/usr/bin/env python3
"""Bins a Geant4 end-to-end sample into the small reference that
`fastmu run --example iron-block` overlays on its plot (data/).

  python3 tools/make_geant4_reference.py SAMPLE.f32 --out data/geant4_iron_block.csv

SAMPLE.f32 is the 7-column float32 layout (p0, px, py, pz, x, y, z; a row with
px = py = pz = 0 stopped in the material) of 50 GeV/c mu- after 10 m of G4_Fe
(Geant4 11.4, the muon part of G4EmStandardPhysics option 0, no decay). The CSV
holds, for the muons that left the iron, the counts of final |p| (0-50 GeV/c,
125 bins) and final x (-0.25 to 0.25 m, 100 bins) with their Poisson errors
sqrt(count), and the numbers of muons in the sample and stopped in it; the
bins are those of scripts/plot_run.py.
"""
import argparse

import numpy as np

P_BINS = np.linspace(0, 50, 126)
X_BINS = np.linspace(-0.25, 0.25, 101)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sample", help="7-column float32 Geant4 sample")
    ap.add_argument("--out", required=True, help="CSV to write")
    args = ap.parse_args()
    a = np.fromfile(args.sample, dtype="<f4").reshape(-1, 7).astype(np.float64)
    moving = np.any(a[:, 1:4] != 0, axis=1)
    p = np.sqrt((a[moving, 1:4] ** 2).sum(axis=1))
    x = a[moving, 4]
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(f"# Geant4 11.4: {len(a)} mu- of {a[0, 0]:g} GeV/c through 10 m of G4_Fe, "
                f"{np.count_nonzero(~moving)} stopped; binned by tools/make_geant4_reference.py\n")
        f.write("quantity,low,high,count,error\n")
        f.write(f"muons,0,0,{len(a)},0\n")
        f.write(f"stopped,0,0,{np.count_nonzero(~moving)},0\n")
        for name, values, edges in (("p", p, P_BINS), ("x", x, X_BINS)):
            counts, _ = np.histogram(values, bins=edges)
            for lo, hi, c in zip(edges[:-1], edges[1:], counts):
                f.write(f"{name},{lo:.6g},{hi:.6g},{c},{np.sqrt(c):.4g}\n")


if __name__ == "__main__":
    main()
