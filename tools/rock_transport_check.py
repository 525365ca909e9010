#!/usr/bin/env python3
"""Fast transport against the detailed engine through standard rock.

Vertical muons of one momentum cross a column of standard rock (2.65 g/cm3)
of a given depth; for each case the fraction that comes out and the median
momentum of those that do are compared between `fastmu run` (histogram
tables) and `fastmu run --engine detailed`, with their statistical errors.
Each transport's own time (the `transported ...` line) and its muons per
second are reported, so the same runs measure speed.

  tools/rock_transport_check.py --fastmu build/fastmu --cases 1000:1000,10000:3000 \\
      --n 10000 --n-detailed 2000 --backend cuda --out rock.csv

A case is P:DEPTH (GeV/c : m.w.e.). Exit status 1 when a case fails the
issue's goal: survival within 0.03 (or 3 sigma) and median within 5 % (or 3
sigma).
"""
import argparse
import csv
import json
import math
import os
import re
import subprocess
import sys
import tempfile

DENSITY = 2.65  # g/cm3: standard rock


def geometry(depth_mwe):
    h = depth_mwe / DENSITY  # m (1 m.w.e. = 100 g/cm2)
    w = 1000.0
    return {
        "world": {"min": [-w, -w, -h - 1.0], "max": [w, w, 1.0], "material": "vacuum"},
        "volumes": [{"name": "rock", "shape": "box", "min": [-w, -w, -h], "max": [w, w, 0.0],
                     "material": "StandardRock"}],
        "sensitive_planes": [{"z": -h, "x": [-w, w], "y": [-w, w]}],
    }


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"rock_transport_check: {' '.join(cmd)} failed:\n{p.stderr[-2000:]}")
    m = re.search(r"transported (\d+) muons .* in ([0-9.e+-]+) s", p.stdout)
    return float(m.group(2)) if m else float("nan")


def read_out(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    p = [math.sqrt(float(r["px"]) ** 2 + float(r["py"]) ** 2 + float(r["pz"]) ** 2)
         for r in rows if int(r["status"]) == 0]
    return len(rows), sorted(p)


def median_and_error(p):
    """Median and its standard error from the order statistics' binomial spread."""
    n = len(p)
    if n == 0:
        return float("nan"), float("nan")
    k = 0.5 * math.sqrt(n)
    lo, hi = p[max(0, int(n / 2 - k))], p[min(n - 1, int(n / 2 + k))]
    return p[n // 2], 0.5 * (hi - lo)


def one_engine(args, tmp, case, engine, n):
    p0, depth = case
    base = os.path.join(tmp, f"{engine}_{int(p0)}_{int(depth)}")
    muons = base + "_in.csv"
    with open(muons, "w") as f:
        f.write("px,py,pz,x,y,z,pdg\n")
        for i in range(n):
            f.write(f"0,0,{-p0},0,0,0.5,{13 if i % 2 == 0 else -13}\n")
    geo = base + ".json"
    with open(geo, "w") as f:
        json.dump(geometry(depth), f)
    out = base + "_out.csv"
    cmd = [args.fastmu, "run", "--geometry", geo, "--muons", muons, "--out", out, "--all",
           "--backend", args.backend, "--seed", str(args.seed)]
    if args.threads:
        cmd += ["--threads", str(args.threads)]
    if engine == "detailed":
        cmd += ["--engine", "detailed"]
    seconds = run(cmd)
    total, p = read_out(out)
    return total, p, seconds


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fastmu", required=True)
    ap.add_argument("--cases", default="1000:1000,1000:2000,10000:3000,10000:6000")
    ap.add_argument("--n", type=int, default=10000, help="fast-transport muons per case")
    ap.add_argument("--n-detailed", type=int, default=2000, help="detailed-engine muons (0: none)")
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", help="CSV of the results")
    args = ap.parse_args()
    cases = [tuple(float(v) for v in c.split(":")) for c in args.cases.split(",")]
    rows, failed = [], False
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases:
            row = {"p0_gev": case[0], "depth_mwe": case[1]}
            for engine, n in (("fast", args.n), ("detailed", args.n_detailed)):
                if n <= 0:
                    continue
                total, p, seconds = one_engine(args, tmp, case, engine, n)
                frac = len(p) / total
                med, med_err = median_and_error(p)
                row.update({f"{engine}_n": total, f"{engine}_survival": frac,
                            f"{engine}_survival_err": math.sqrt(max(frac * (1 - frac), 1e-12) / total),
                            f"{engine}_median": med, f"{engine}_median_err": med_err,
                            f"{engine}_seconds": seconds, f"{engine}_muons_per_s": total / seconds})
            if args.n_detailed > 0:
                ds = abs(row["fast_survival"] - row["detailed_survival"])
                s_sig = math.hypot(row["fast_survival_err"], row["detailed_survival_err"])
                dm = abs(row["fast_median"] / row["detailed_median"] - 1)
                m_sig = math.hypot(row["fast_median_err"], row["detailed_median_err"]) / row["detailed_median"]
                row["pass"] = (ds <= max(0.03, 3 * s_sig)) and (dm <= max(0.05, 3 * m_sig) or math.isnan(dm))
                failed |= not row["pass"]
            rows.append(row)
            print(", ".join(f"{k} {v:.4g}" if isinstance(v, float) else f"{k} {v}" for k, v in row.items()),
                  flush=True)
    if args.out:
        keys = sorted({k for r in rows for k in r}, key=lambda k: list(rows[0]).index(k) if k in rows[0] else 99)
        with open(args.out, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=keys)
            w.writeheader()
            w.writerows(rows)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
