#!/usr/bin/env python3
"""Where a kernel's time goes, by source file: sums the warp-stall samples of
an Nsight Compute source page (`ncu -i R --page source --csv --print-source
cuda`) per file and prints each file's share, largest first.

Usage: ncu_source_share.py SOURCE.csv
"""
import csv
import io
import sys
from collections import defaultdict


def sample_column(header):
    """Index of the 'Warp Stall Sampling (All Samples)' column, else None."""
    for i, name in enumerate(header):
        if "Sampling" in name and "All" in name:
            return i
    for i, name in enumerate(header):
        if "Sampling" in name:
            return i
    return None


def shares(text):
    """{file: samples} from the page; files are announced by lines that are
    not CSV rows of the current table (ncu prints one table per file)."""
    per_file = defaultdict(float)
    current = "?"
    column = None
    for line in text.splitlines():
        if not line.strip():
            continue
        row = next(csv.reader(io.StringIO(line)))
        if len(row) <= 2:  # a file's heading ("File: ..." or the path alone)
            current = row[-1].split(":", 1)[-1].strip() or current
            column = None
            continue
        if column is None:
            column = sample_column(row)
            continue
        try:
            per_file[current] += float(row[column].replace(",", ""))
        except (ValueError, IndexError):
            continue
    return per_file


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    text = open(sys.argv[1], encoding="utf-8", errors="replace").read()
    per_file = shares(text)
    total = sum(per_file.values())
    if total <= 0:
        print("ncu_source_share: no stall samples found; first lines of the page:")
        print("\n".join(text.splitlines()[:8]))
        return
    print(f"warp-stall samples by source file ({total:.0f} in all):")
    for name, value in sorted(per_file.items(), key=lambda kv: -kv[1]):
        if value / total >= 0.002:
            print(f"  {100 * value / total:5.1f} %  {name}")


if __name__ == "__main__":
    main()
