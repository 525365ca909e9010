#!/usr/bin/env python3
"""Plots of `fastmu underground` (docs/underground.md).

  plot_underground.py --json NAME.json [--depths NAME_depth_intensity.csv
                      [--measured depth_intensity_measured.csv]] --out NAME.png

With a site (the JSON's "site"): its energy spectrum, zenith and azimuth
distributions with their errors and the totals. With a depth list: the
vertical intensity against depth with the measured compilation, rock and
water/ice on separate axes, each point with its error
(data/depth_intensity_measured.csv).
"""
import argparse
import csv
import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from atomic_output import save_figure  # noqa: E402


def step(ax, h, colour="C0", scale=1.0):
    e = np.asarray(h["edges"], dtype=float) * scale
    v = np.asarray(h["value"], dtype=float)
    err = np.asarray(h["error"], dtype=float)
    mid = 0.5 * (e[1:] + e[:-1])
    ax.stairs(v, e, color=colour)
    ax.errorbar(mid, v, yerr=err, fmt="none", ecolor=colour, lw=0.8)


def site_panels(axes, j):
    s = j["site"]
    ax = axes[0]
    step(ax, s["energy_spectrum_per_gev"])
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("muon energy underground [GeV]")
    ax.set_ylabel("dPhi/dE [cm$^{-2}$ s$^{-1}$ GeV$^{-1}$]")
    ax = axes[1]
    step(ax, s["zenith_per_cos"])
    ax.set_xlabel("cos(zenith)")
    ax.set_ylabel("dPhi/dcos [cm$^{-2}$ s$^{-1}$]")
    ax = axes[2]
    step(ax, s["azimuth_per_rad"])
    ax.set_xlabel("azimuth [deg]")
    ax.set_ylabel("dPhi/dphi [cm$^{-2}$ s$^{-1}$ rad$^{-1}$]")
    ax.set_ylim(bottom=0)
    o = j["overburden"]
    h, hs = s["flux_horizontal_cm2_s"], s["flux_sphere_cm2_s"]
    v, m = s["vertical_intensity_cm2_s_sr"], s["mean_energy_gev"]
    text = (f"{o['depth_mwe']:.0f} m.w.e. of {o['material']} ({o['density_g_cm3']:.3g} g/cm$^3$)\n"
            f"horizontal: {h[0]:.3e} $\\pm$ {h[1]:.1e} cm$^{{-2}}$ s$^{{-1}}$\n"
            f"sphere: {hs[0]:.3e} $\\pm$ {hs[1]:.1e} cm$^{{-2}}$ s$^{{-1}}$\n"
            f"vertical: {v[0]:.3e} $\\pm$ {v[1]:.1e} cm$^{{-2}}$ s$^{{-1}}$ sr$^{{-1}}$\n"
            f"mean energy: {m[0]:.4g} $\\pm$ {m[1]:.2g} GeV\n"
            f"surface flux: Guan et al. 2015 (no prompt muons)")
    axes[3].axis("off")
    axes[3].text(0.0, 0.5, text, va="center", fontsize=9)


def read_measured(path):
    rows = []
    with open(path) as f:
        for r in csv.DictReader(line for line in f if not line.startswith("#")):
            rows.append(r)
    return rows


def is_rock(medium):
    return medium not in ("water", "sea water", "ice")


def depth_panels(axes, depths_csv, measured, medium):
    """Rock on the first axis, water and ice on the second: a depth in m.w.e.
    means a different overburden in each, so the two are not drawn together.
    fastmu's points go on the axis of its own medium."""
    d = np.genfromtxt(depths_csv, delimiter=",", names=True, ndmin=1)
    own = axes[0] if is_rock(medium) else axes[1]
    own.errorbar(d["depth_mwe"], d["intensity"], yerr=d["intensity_err"], fmt="o-", ms=4,
                 color="k", label=f"fastmu, {medium} (Guan et al. surface flux)", zorder=3)
    if measured:
        groups = {}
        for r in read_measured(measured):
            groups.setdefault((r["experiment"], r["medium"]), []).append(r)
        markers = "sDv^<>pP*hXd"
        for k, ((exp, med), rs) in enumerate(sorted(groups.items())):
            ax = axes[0] if is_rock(med) else axes[1]
            x = np.array([float(r["depth_mwe"]) for r in rs])
            y = np.array([float(r["intensity"]) for r in rs])
            e = np.array([float(r["intensity_err"]) for r in rs])
            # On a log axis a bar below zero is not drawn: one as large as
            # its value stops at a tenth of it.
            low = np.minimum(e, 0.9 * y)
            # Rock filled, water and ice open: told apart on either axis.
            ax.errorbar(x, y, yerr=[low, e], fmt=markers[k % len(markers)], ms=5, alpha=0.8,
                        mfc=None if is_rock(med) else "none", capsize=2,
                        label=f"{exp} ({med})")
    for ax, title in zip(axes, ("rock and salt (measured: each row's medium)", "water and ice")):
        ax.set_yscale("log")
        ax.margins(0.08)  # the first and last points and their bars clear of the frame
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("vertical depth [m.w.e.]")
        ax.set_ylabel("vertical intensity [cm$^{-2}$ s$^{-1}$ sr$^{-1}$]")
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7)


def overburden_medium(j):
    """'water', 'sea water', 'ice' or the rock's name, from the JSON."""
    material = j.get("overburden", {}).get("material", "")
    return {"G4_WATER": "water", "SeaWater": "sea water", "Ice": "ice"}.get(material, material)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", required=True)
    ap.add_argument("--depths")
    ap.add_argument("--measured")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    with open(args.json) as f:
        j = json.load(f)
    has_site = "site" in j
    medium = overburden_medium(j)
    if has_site:
        fig, axes = plt.subplots(2, 3, figsize=(16, 9))
        axes = axes.ravel()
        site_panels(axes[:4], j)
        if args.depths:
            depth_panels(axes[4:6], args.depths, args.measured, medium)
        else:
            axes[4].axis("off")
            axes[5].axis("off")
    else:
        fig, axes = plt.subplots(1, 2, figsize=(12, 5))
        depth_panels(axes, args.depths, args.measured, medium)
    fig.tight_layout()
    save_figure(fig, args.out, dpi=100)


if __name__ == "__main__":
    main()
