"""Draw docs/images/headline.png from figures recorded in BENCHMARKS.md.

Run from the repository root: /usr/bin/python3 docs/images/headline.py
Left: the iron block against Geant4 11.4 (10^5 mu- of 50 GeV/c through 10 m
of iron). Right: kernel time for 4e6 muons on one H100, fastmu against the
paper's method (fixed 2 cm steps) in the same calls.
"""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

# BENCHMARKS.md "Fidelity": fastmu / Geant4.
FIDELITY = [
    ("loss q10", 15.047, 15.010),
    ("loss q50", 16.756, 16.708),
    ("loss q90", 21.930, 22.126),
    ("x rms", 4.708, 4.695),
    ("px rms", 0.2894, 0.2881),
]
# BENCHMARKS.md "Kernel against the paper's method": seconds, midpoints of
# the recorded ranges.
SPEED = [
    ("iron block", 0.0409, 0.0157),
    ("SHiP-like shield", 0.5215, 0.2321),
]


def main():
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.6))
    names = [f[0] for f in FIDELITY]
    ratios = [100.0 * (f[1] / f[2] - 1.0) for f in FIDELITY]
    left.bar(names, ratios, color="tab:blue")
    left.axhline(0.0, color="black", lw=0.8)
    left.set_ylim(-3, 3)
    left.set_ylabel("fastmu / Geant4 - 1  [%]")
    left.set_title("Iron block, 50 GeV/c mu-, 10 m Fe")
    for i, r in enumerate(ratios):
        left.text(i, r + (0.15 if r >= 0 else -0.45), f"{r:+.1f}", ha="center", fontsize=9)

    x = range(len(SPEED))
    width = 0.38
    paper = [s[1] for s in SPEED]
    ours = [s[2] for s in SPEED]
    right.bar([i - width / 2 for i in x], paper, width, label="fixed 2 cm steps (paper)",
              color="tab:gray")
    right.bar([i + width / 2 for i in x], ours, width, label="fastmu", color="tab:orange")
    right.set_xticks(list(x), [s[0] for s in SPEED])
    right.set_yscale("log")
    right.set_ylabel("kernel time, 4e6 muons [s]")
    right.set_title("One H100")
    for i, (p, o) in enumerate(zip(paper, ours)):
        right.text(i + width / 2, o * 1.15, f"{p / o:.2f}x", ha="center", fontsize=9)
    right.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    fig.savefig("docs/images/headline.png", dpi=110)


if __name__ == "__main__":
    main()
