#!/usr/bin/env python3
"""Writes a large muon file for streaming benchmarks (`fastmu run --max-memory`):
N muons (px,py,pz,x,y,z,pdg,weight, float32) in blocks, so that the file may be
larger than memory; the numbers are reproducible (numpy seed).
  --spectrum uniform (default): |p| uniform in [p_min, p_max] GeV/c along +z,
      x and y uniform in [-0.5, 0.5] m, starting at z0, both charges;
  --spectrum ship: the synthetic SHiP flux of `fastmu run --example ship`
      (fastmu.ship.muons: from the origin, |p| log-uniform in [1, 350] GeV/c,
      pt exponential with mean 0.6 GeV/c capped at 0.99 |p|, azimuth uniform,
      mu- and mu+ alternately) -- the same distribution, other random numbers.

    python3 bench/make_muon_file.py --n 200000000 --out mu2e8.h5
    python3 bench/make_muon_file.py --n 40000000 --spectrum ship --out ship4e7.h5
"""

import argparse

import h5py
import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--p-min", type=float, default=1.0)
    ap.add_argument("--p-max", type=float, default=100.0)
    ap.add_argument("--z0", type=float, default=-0.01, help="start z [m]")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--spectrum", choices=("uniform", "ship"), default="uniform")
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    block = 4_000_000
    with h5py.File(args.out, "w") as f:
        d = f.create_dataset("muons", (args.n, 8), np.float32)
        d.attrs["columns"] = "px,py,pz,x,y,z,pdg,weight"
        for b in range(0, args.n, block):
            k = min(block, args.n - b)
            m = np.zeros((k, 8), np.float32)
            if args.spectrum == "ship":
                p = np.exp(rng.uniform(np.log(1.0), np.log(350.0), k))
                pt = np.minimum(rng.exponential(0.6, k), 0.99 * p)
                phi = rng.uniform(0.0, 2.0 * np.pi, k)
                m[:, 0] = pt * np.cos(phi)
                m[:, 1] = pt * np.sin(phi)
                m[:, 2] = np.sqrt(p * p - pt * pt)
                m[:, 6] = np.where((b + np.arange(k)) % 2 == 0, 13, -13)
            else:
                m[:, 2] = rng.uniform(args.p_min, args.p_max, k)
                m[:, 3] = rng.uniform(-0.5, 0.5, k)
                m[:, 4] = rng.uniform(-0.5, 0.5, k)
                m[:, 5] = args.z0
                m[:, 6] = np.where(rng.random(k) < 0.5, 13, -13)
            m[:, 7] = 1.0
            d[b:b + k] = m
    print(f"wrote {args.out}: {args.n} muons")


if __name__ == "__main__":
    main()
