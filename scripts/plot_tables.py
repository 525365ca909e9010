#!/usr/bin/env python3
"""Figures of a fastmu histogram table (the paper's figures 3-5).

    plot_tables.py TABLE.h5 --out DIR [--bins i,j,k]

Writes into DIR:
  marginals.png   1-D distributions of the loss -dPz/P and the kick dPt/P for
                  a few momentum bins (--bins; default: four spread over the range)
  hist2d.png      the 2-D histogram of one momentum bin (the one holding
                  120 GeV/c if the table reaches it, else the middle bin)
  mean_loss.png   mean momentum loss per step vs momentum, +- one standard
                  deviation, with the momentum-bin edges

Needs numpy, h5py and matplotlib (/usr/bin/python3 on Debian).
"""
import argparse
import os
import sys

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from atomic_output import save_figure  # noqa: E402


def attr_str(f, name):
    v = f.attrs[name]
    return v.decode() if isinstance(v, bytes) else str(v)


def load(path):
    with h5py.File(path, "r") as f:
        t = {k: f[k][()] for k in ("momentum_edges", "momentum_centres", "axes", "histogram",
                                   "samples_per_bin", "mean_loss", "std_loss", "mean_kick")}
        t["material"] = attr_str(f, "material")
        t["step_m"] = float(f.attrs["step_m"])
        t["binning"] = attr_str(f, "binning")
    return t


def axis_edges(lo, width, n):
    """Edges of the n log bins of one axis, as fractions (not logs)."""
    return np.exp(lo + width * np.arange(n + 1))


def bin_label(t, b):
    e = t["momentum_edges"]
    return f"bin {b}: {e[b]:.3g}-{e[b + 1]:.3g} GeV/c"


def plot_marginals(t, bins, out):
    fig, (ax_l, ax_k) = plt.subplots(1, 2, figsize=(11, 4.2))
    h = t["histogram"].astype(float)
    nx, ny = h.shape[1] - 1, h.shape[2] - 1
    for b in bins:
        x_lo, x_w, y_lo, y_w = t["axes"][b]
        total = h[b].sum()
        for ax, counts, lo, w, n in ((ax_l, h[b].sum(axis=1), x_lo, x_w, nx),
                                     (ax_k, h[b].sum(axis=0), y_lo, y_w, ny)):
            # Density per unit ln(fraction): the log bins have equal width w.
            dens = counts[1:] / total / w
            edges = axis_edges(lo, w, n)
            ax.stairs(dens, edges, label=f"{bin_label(t, b)} (zero: {counts[0] / total:.1%})")
    for ax, name in ((ax_l, r"$-\Delta P_z / P$"), (ax_k, r"$\Delta P_t / P$")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(name)
        ax.set_ylabel("probability per unit ln")
        ax.grid(alpha=0.3)
    ax_l.set_title("momentum loss")
    ax_k.set_title("transverse kick")
    ax_k.legend(fontsize=7)
    fig.suptitle(f"{t['material']}, step {t['step_m'] * 100:g} cm")
    fig.tight_layout()
    save_figure(fig, out, dpi=120)
    plt.close(fig)


def plot_hist2d(t, b, out):
    h = t["histogram"][b].astype(float)
    nx, ny = h.shape[0] - 1, h.shape[1] - 1
    x_lo, x_w, y_lo, y_w = t["axes"][b]
    xe = (x_lo + x_w * np.arange(nx + 1)) / np.log(10)
    ye = (y_lo + y_w * np.arange(ny + 1)) / np.log(10)
    p = h[1:, 1:] / h.sum()
    fig, ax = plt.subplots(figsize=(6.5, 5.2))
    masked = np.ma.masked_where(p <= 0, p)
    m = ax.pcolormesh(xe, ye, masked.T, norm=matplotlib.colors.LogNorm(), shading="flat")
    fig.colorbar(m, ax=ax, label="probability")
    ax.set_xlabel(r"$\log_{10}(-\Delta P_z / P)$")
    ax.set_ylabel(r"$\log_{10}(\Delta P_t / P)$")
    zero = (h[0, :].sum() + h[1:, 0].sum()) / h.sum()
    ax.set_title(f"{t['material']}, {t['step_m'] * 100:g} cm, {bin_label(t, b)}\n"
                 f"(zero-loss or zero-kick floor bins: {zero:.2%})", fontsize=9)
    fig.tight_layout()
    save_figure(fig, out, dpi=120)
    plt.close(fig)


def plot_mean_loss(t, out):
    c = t["momentum_centres"]
    mean = t["mean_loss"] * c  # GeV/c lost per step
    std = t["std_loss"] * c
    fig, ax = plt.subplots(figsize=(9, 4.5))
    # Linear y as in the paper: radiative tails make the std exceed the mean at
    # high momentum, so the band is clipped at 0 and the axis at 3x the mean.
    ax.fill_between(c, np.maximum(mean - std, 0), mean + std, alpha=0.25, label="$\\pm$ 1 std")
    ax.plot(c, mean, "o-", ms=2.5, label=r"$\langle -\Delta P_z \rangle$ per step")
    for e in t["momentum_edges"]:
        ax.axvline(e, color="grey", lw=0.4, alpha=0.6)
    ax.set_xscale("log")
    ax.set_ylim(0, 3 * mean.max())
    ax.set_xlabel("momentum [GeV/c]")
    ax.set_ylabel("momentum loss per step [GeV/c]")
    ax.set_title(f"{t['material']}, step {t['step_m'] * 100:g} cm, "
                 f"{len(c)} {t['binning']} momentum bins (grey: edges)")
    ax.grid(alpha=0.3, axis="y")
    ax.legend()
    fig.tight_layout()
    save_figure(fig, out, dpi=120)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("table")
    ap.add_argument("--out", required=True)
    ap.add_argument("--bins", default="", help="momentum bins for the marginals, e.g. 10,40,70,90")
    a = ap.parse_args(argv)
    t = load(a.table)
    n = len(t["momentum_centres"])
    if a.bins:
        try:
            bins = [int(s) for s in a.bins.split(",")]
        except ValueError:
            sys.exit(f"plot_tables.py: error: --bins '{a.bins}' is not a list of integers")
        bad = [b for b in bins if not 0 <= b < n]
        if bad:
            sys.exit(f"plot_tables.py: error: --bins {bad} out of range (the table has {n} bins)")
    else:
        bins = sorted(set(int(round(f * (n - 1))) for f in (0.0, 0.33, 0.66, 1.0)))
    e = t["momentum_edges"]
    b2 = int(np.searchsorted(e, 120.0, side="right") - 1) if e[0] <= 120.0 < e[-1] else n // 2
    os.makedirs(a.out, exist_ok=True)
    plot_marginals(t, bins, os.path.join(a.out, "marginals.png"))
    plot_hist2d(t, b2, os.path.join(a.out, "hist2d.png"))
    plot_mean_loss(t, os.path.join(a.out, "mean_loss.png"))
    print(f"wrote marginals.png, hist2d.png, mean_loss.png to {a.out}")


if __name__ == "__main__":
    main()
