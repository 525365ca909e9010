#!/usr/bin/env python3
"""Runs one command measured from outside and appends one row to a CSV:
label, exit code, wall time, peak RSS (the command and all its children,
mpirun's ranks too), and what the command reports of itself: the wall and
kernel seconds of `fastmu bench`, the `time:` line of `fastmu run`. The
command's output passes through unchanged.

    timed_run.py --csv runs.csv --label "fastmu iron" -- fastmu run ...
"""

import argparse
import csv
import os
import re
import resource
import subprocess
import sys
import time

COLUMNS = ["label", "rc", "process_wall_s", "peak_rss_mb", "bench_wall_s", "bench_kernel_s",
           "run_time_line", "command"]
BENCH_WALL = re.compile(r"^\s+wall\s+([0-9.]+) s")
BENCH_KERNEL = re.compile(r"^\s+kernel\s+([0-9.]+) s")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--csv", required=True)
    ap.add_argument("--label", required=True)
    ap.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    cmd = args.command[1:] if args.command[:1] == ["--"] else args.command
    seen = {"wall": "", "kernel": "", "time": ""}
    t = time.perf_counter()
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                errors="replace")
    except OSError as e:
        print(f"timed_run: {e}", flush=True)
        rc = 127
    else:
        for line in proc.stdout:
            sys.stdout.write(line)
            sys.stdout.flush()
            if m := BENCH_WALL.match(line):
                seen["wall"] = m.group(1)
            elif m := BENCH_KERNEL.match(line):
                seen["kernel"] = m.group(1)
            elif line.startswith("time:"):
                seen["time"] = line[5:].strip()
        rc = proc.wait()
    wall = time.perf_counter() - t
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"process: rc {rc}, wall {wall:.3f} s, peak RSS {rss:.0f} MB", flush=True)
    new = not os.path.exists(args.csv)
    with open(args.csv, "a", newline="") as f:
        w = csv.writer(f)
        if new:
            w.writerow(COLUMNS)
        w.writerow([args.label, rc, f"{wall:.3f}", f"{rss:.0f}", seen["wall"], seen["kernel"],
                    seen["time"], " ".join(cmd)])
    return rc


if __name__ == "__main__":
    sys.exit(main())
