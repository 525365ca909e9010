#!/usr/bin/env python3
"""Where a kernel's time goes, by source file: sums the warp-stall samples and
the executed thread instructions of an Nsight Compute source page
(`ncu -i R --page source --csv --print-source cuda,sass`) per source file and
prints each file's share, largest first, then the stall reasons and the
busiest source lines.

Usage: ncu_source_share.py SOURCE.csv [--lines N]
"""
import argparse
import csv
from collections import Counter


def read_page(path):
    """Per file and per (file, line): stall samples and thread instructions of
    the CUDA source lines, and the stall reasons summed over them. The page
    holds one table per file ("File Path", "Function Name", a header row);
    a CUDA line's row has its line number and the address "-", the SASS rows
    under it an address and no line number."""
    samples, instructions, lines, reasons = Counter(), Counter(), Counter(), Counter()
    current, header = "?", None
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        for row in csv.reader(f):
            if len(row) == 2:
                if row[0] == "File Path":
                    current = row[1].split("/src/")[-1]
                continue
            if row and row[0] == "Line No":
                header = {name: i for i, name in enumerate(row)}
                continue
            if header is None or len(row) < 3 or not row[0] or row[2] != "-":
                continue

            def value(name):
                try:
                    return float(row[header[name]].replace(",", ""))
                except (KeyError, ValueError, IndexError):
                    return 0.0

            s = value("Warp Stall Sampling (All Samples)")
            samples[current] += s
            instructions[current] += value("Thread Instructions Executed")
            lines[(current, row[0])] += s
            for name in header:
                if name.startswith("stall_") and "Not Issued" not in name:
                    reasons[name[len("stall_"):]] += value(name)
    return samples, instructions, lines, reasons


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("page")
    parser.add_argument("--lines", type=int, default=12, help="busiest source lines to list")
    args = parser.parse_args()
    samples, instructions, lines, reasons = read_page(args.page)
    total, total_inst = sum(samples.values()), sum(instructions.values())
    if total <= 0:
        print(f"ncu_source_share: no stall samples in {args.page}")
        return
    print(f"warp-stall samples by source file ({total:.0f} in all; share of thread instructions):")
    for name, value in samples.most_common():
        if value / total >= 0.003:
            inst = 100 * instructions[name] / total_inst if total_inst else 0
            print(f"  {100 * value / total:5.1f} %  ({inst:4.1f} %)  {name}")
    all_reasons = sum(reasons.values()) or 1
    print("stall reasons: " + ", ".join(
        f"{name} {100 * v / all_reasons:.0f} %" for name, v in reasons.most_common(8)))
    print("busiest lines:")
    for (name, line), value in lines.most_common(args.lines):
        print(f"  {100 * value / total:5.1f} %  {name}:{line}")


if __name__ == "__main__":
    main()
