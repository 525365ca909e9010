#!/usr/bin/env python3
"""Input rows at the edges of the float range through `fastmu run`: a small
muon file (N muons of 50 GeV/c along +z) with one extra row whose one field
is extreme, as CSV and as HDF5 (float64), on each backend and under both
policies for momenta above the tables (--above-tables refuse|stop), each run under
`timeout`. One CSV row per run: exit code, wall time, the extra row's status
and the output's status counts, whether any NaN or infinity is in the
output, or the one-line error. The first case, "none", is the file without
an extra row.

    extreme_rows.py --fastmu .device/bin/fastmu --geometry examples/iron_block.json \\
        --csv out/extreme_rows.csv [--backends cuda,cpu] [--timeout 60] [--n 1000]
"""

import argparse
import csv
import math
import os
import subprocess
import time

import h5py
import numpy as np

COLUMNS = ["px", "py", "pz", "x", "y", "z", "pdg", "weight"]
# (field, value) of the extra row; the other fields as in BASE_ROW.
EXTREMES = [("px", 3e38), ("pz", 1e15), ("pz", 1e20), ("pz", 1e30), ("pz", 3e38), ("pz", -1e25),
            ("pz", 1e-30), ("pz", 1e-40), ("px", 1e30), ("x", 1e30), ("z", -1e30)]
BASE_ROW = {"px": 0.0, "py": 0.0, "pz": 50.0, "x": 0.0, "y": 0.0, "z": -0.01, "pdg": 13.0,
            "weight": 1.0}
RESULT = ["case", "format", "backend", "policy", "exit_code", "wall_s", "extra_row_status", "status_counts",
          "nan_in_output", "inf_in_output", "error"]


def base_muons(n):
    rng = np.random.default_rng(1)
    m = np.zeros((n, len(COLUMNS)))
    m[:, 2] = 50.0
    m[:, 3] = rng.uniform(-0.5, 0.5, n)
    m[:, 4] = rng.uniform(-0.5, 0.5, n)
    m[:, 5] = -0.01
    m[:, 6] = np.where(np.arange(n) % 2 == 0, 13, -13)
    m[:, 7] = 1.0
    return m


def write_input(path, rows):
    if path.endswith(".h5"):
        with h5py.File(path, "w") as f:
            d = f.create_dataset("muons", data=rows)
            d.attrs["columns"] = ",".join(COLUMNS)
        return
    with open(path, "w") as f:
        f.write(",".join(COLUMNS) + "\n")
        for r in rows:
            f.write(",".join(repr(float(v)) for v in r[:6]) + f",{int(r[6])},{float(r[7])!r}\n")


def read_output(path):
    """Column name -> array of an output file of `fastmu run`."""
    if path.endswith(".h5"):
        with h5py.File(path, "r") as f:
            d = f["muons"]
            cols = d.attrs["columns"]
            cols = cols.decode() if isinstance(cols, bytes) else str(cols)
            a = d[...]
        return {c: a[:, i] for i, c in enumerate(cols.split(","))}
    with open(path) as f:
        cols = f.readline().strip().split(",")
        rows = [[float(v) for v in line.split(",")] for line in f if line.strip()]
    a = np.array(rows, dtype=float).reshape(-1, len(cols))
    return {c: a[:, i] for i, c in enumerate(cols)}


def summarise(path, extra_id):
    """extra row's status, status counts, any NaN, any infinity."""
    c = read_output(path)
    status = c.get("status", np.zeros(0)).astype(int)
    ids = c.get("id", np.zeros(0)).astype(np.int64)
    hit = status[ids == extra_id] if extra_id is not None else []
    counts = " ".join(f"{s}:{k}" for s, k in zip(*np.unique(status, return_counts=True)))
    allv = np.concatenate([v for v in c.values()]) if c else np.zeros(0)
    extra = "" if extra_id is None else (str(hit[0]) if len(hit) else "absent")
    return extra, counts, bool(np.isnan(allv).any()), bool(np.isinf(allv).any())


def one_line_error(text):
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    return lines[-1][:300] if lines else ""


def run_case(args, name, rows, fmt, backend, policy, extra_id):
    stem = os.path.join(args.work, f"{name}_{fmt}_{backend}_{policy}")
    src = os.path.join(args.work, f"{name}.{fmt}")
    write_input(src, rows)
    out = f"{stem}_out.{fmt}"
    if os.path.exists(out):
        os.remove(out)
    cmd = ["timeout", str(args.timeout), args.fastmu, "run", "--geometry", args.geometry,
           "--muons", src, "--out", out, "--backend", backend, "--all", "--above-tables", policy]
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
    wall = time.perf_counter() - t
    row = {"case": name, "format": fmt, "backend": backend, "policy": policy,
           "exit_code": p.returncode,
           "wall_s": f"{wall:.3f}", "extra_row_status": "", "status_counts": "",
           "nan_in_output": "", "inf_in_output": "", "error": ""}
    if p.returncode == 0 and os.path.exists(out):
        try:
            extra, counts, nan, inf = summarise(out, extra_id)
            row.update(extra_row_status=extra, status_counts=counts, nan_in_output=nan,
                       inf_in_output=inf)
        except Exception as e:  # an unreadable output is a finding too
            row["error"] = f"output unreadable: {e}"
    elif p.returncode == 124:
        row["error"] = f"timed out after {args.timeout} s"
    else:
        row["error"] = one_line_error(p.stderr) or one_line_error(p.stdout)
    if os.path.exists(out):
        os.remove(out)
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fastmu", required=True)
    ap.add_argument("--geometry", required=True)
    ap.add_argument("--csv", required=True)
    ap.add_argument("--n", type=int, default=1000, help="ordinary muons before the extra row")
    ap.add_argument("--backends", default="cuda,cpu")
    ap.add_argument("--timeout", type=int, default=60, help="seconds per run")
    ap.add_argument("--work", default="extreme_rows_work")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    base = base_muons(args.n)
    cases = [("none", base, None)]
    for field, value in EXTREMES:
        extra = dict(BASE_ROW, **{field: value})
        rows = np.vstack([base, [[extra[c] for c in COLUMNS]]])
        cases.append((f"{field}={value:g}", rows, args.n))
    with open(args.csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=RESULT)
        w.writeheader()
        for name, rows, extra_id in cases:
            for fmt in ("csv", "h5"):
                for backend in args.backends.split(","):
                    for policy in ("refuse", "stop"):
                        row = run_case(args, name.replace("=", "_"), rows, fmt, backend, policy,
                                       extra_id)
                        row["case"] = name
                        w.writerow(row)
                        f.flush()
                        print(", ".join(f"{k} {row[k]}" for k in RESULT), flush=True)


if __name__ == "__main__":
    main()
