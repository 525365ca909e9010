#!/usr/bin/env python3
"""Table fidelity: does sampling a table (alias + jitter, as the fast transport
does) reproduce the samples it was built from? For each Geant4 sphere sample
(one momentum), build a one-bin table from it with `fastmu tables build
--from-samples`, draw 2e6 steps with fastmu.Table.sample and print the % deviation
of the quantiles of -dPz/P and dPt/P.

usage: PYTHONPATH=build/python /usr/bin/python3 tools/table_fidelity.py \
           [--fastmu build/fastmu] [--reference $FASTMU_REFERENCE_DIR]
"""
import argparse
import os
import subprocess
import tempfile

import numpy as np

import fastmu

here = os.path.dirname(os.path.abspath(__file__))
ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
ap.add_argument("--fastmu", default=os.path.join(here, "..", "build", "fastmu"))
ap.add_argument("--reference", default=os.environ.get(
    "FASTMU_REFERENCE_DIR", os.path.join(here, "..", "..", "shared", "reference", "geant4")))
args = ap.parse_args()

qs = [10, 25, 50, 75, 90, 99]
print("material      p  quantity " + "".join(f"  q{q:<4d}" for q in qs) + " (% deviation, table vs samples)")
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "t.h5")
    for mat in ("G4_Fe", "G4_CONCRETE"):
        for p in (0.5, 10, 300):
            f = os.path.join(args.reference, f"sphere2cm_{mat}_p{p:g}GeV_mu-.f32")
            subprocess.run([args.fastmu, "tables", "build", "--material", mat, "--step", "0.02",
                            "--from-samples", f, "--p-min", str(p * 0.99), "--p-max", str(p * 1.01),
                            "--p-bins", "1", "--out", out], check=True, capture_output=True)
            table = fastmu.load_table(out)
            d = np.fromfile(f, "<f4").reshape(-1, 7).astype(np.float64)
            loss = (d[:, 0] - d[:, 3]) / d[:, 0]
            kick = np.hypot(d[:, 1], d[:, 2]) / d[:, 0]
            s = np.asarray(table.sample(np.full(2_000_000, p, np.float32), seed=3))
            for name, a, b in (("loss", s[:, 0], loss), ("kick", s[:, 1], kick)):
                dev = [100 * (np.percentile(a, q) / np.percentile(b, q) - 1) for q in qs]
                print(f"{mat:11s} {p:5g}  {name}    " + "".join(f" {x:+6.2f}" for x in dev))
