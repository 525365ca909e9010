#!/usr/bin/env python3
"""Plots of `fastmu run --example` results (run by the fastmu executable).

  plot_run.py iron-block --fast F.f32 [--detailed D.f32] [--geant4 G.f32] --out PNG
      final |p| and x of 50 GeV/c mu- after 10 m of iron: fast transport vs the
      detailed engine vs Geant4. F and D are the 7-column float32 layout of
      the Geant4 reference samples (p0, px, py, pz, x, y, z); rows with
      px = py = pz = 0 stopped or decayed in the iron: counted, not plotted.
      G is such a file or the binned reference data/geant4_iron_block_*.csv.
  plot_run.py ship --run RUN.h5 --out PNG
      SHiP-like shield: hits at the sensitive plane (x-y) and their |p|.
  plot_run.py underground --csv depth_intensity.csv --out PNG
      vertical muon intensity against depth in standard rock with the
      measured vertical intensities in rock and salt of
      data/depth_intensity_measured.csv (each with its error and source;
      its water and ice rows belong to another depth scale) and, as a thin
      line, the relation of Menon et al. (1967).
"""
import argparse
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from atomic_output import save_figure  # noqa: E402


P_BINS = np.linspace(0, 50, 126)  # as data/geant4_iron_block_10m_50GeV_mu-.csv
X_BINS = np.linspace(-0.25, 0.25, 101)


def load_f32(path):
    """(|p|, x) of the muons that left the iron, and the number of rows."""
    a = np.fromfile(path, dtype="<f4").reshape(-1, 7).astype(np.float64)
    moving = np.any(a[:, 1:4] != 0, axis=1)
    p = np.sqrt((a[moving, 1:4] ** 2).sum(axis=1))
    return p, a[moving, 4], len(a)


def binned(values, edges, n):
    """Muons per unit per muon entering, with the Poisson error."""
    counts, _ = np.histogram(values, bins=edges)
    width = np.diff(edges)
    return counts / (n * width), np.sqrt(counts) / (n * width)


def load_reference(path):
    """The binned Geant4 reference (tools/make_geant4_reference.py): per
    quantity the densities and errors on P_BINS and X_BINS, and its text."""
    with open(path, encoding="utf-8") as f:
        rows = [line.strip().split(",") for line in f if line.strip() and line[0] != "#"]
    header, rows = rows[0], rows[1:]
    col = {name: i for i, name in enumerate(header)}
    quantity = np.array([r[col["quantity"]] for r in rows])
    d = {name: np.array([float(r[i]) for r in rows]) for name, i in col.items()
         if name != "quantity"}
    d["quantity"] = quantity
    n = float(d["count"][quantity == "muons"][0])
    stopped = float(d["count"][quantity == "stopped"][0])
    out = {}
    for q in ("p", "x"):
        sel = quantity == q
        width = d["high"][sel] - d["low"][sel]
        out[q] = (d["count"][sel] / (n * width), d["error"][sel] / (n * width))
    return out, f"Geant4 11.4 (n={int(n)}, not out of the iron {(stopped / n):.4f}, no decay)"


def iron_block(args):
    curves = []
    for label, path, colour in (("fast transport", args.fast, "C0"),
                                ("detailed engine", args.detailed, "C2")):
        if not path:
            continue
        p, x, n = load_f32(path)
        text = (f"{label} (n={n}, not out of the iron {(n - len(p)) / n:.4f}, "
                f"<p>={p.mean():.2f} GeV/c, x rms={100 * np.sqrt((x ** 2).mean()):.2f} cm)")
        curves.append((text, colour, binned(p, P_BINS, n), binned(x, X_BINS, n)))
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.8))
    for text, colour, hp, hx in curves:
        for ax, edges, (h, _) in ((axes[0], P_BINS, hp), (axes[1], X_BINS, hx)):
            ax.stairs(h, edges, color=colour, label=text)
    if args.geant4:
        if args.geant4.endswith(".f32"):
            p, x, n = load_f32(args.geant4)
            ref = {"p": binned(p, P_BINS, n), "x": binned(x, X_BINS, n)}
            text = f"Geant4 11.4 (n={n}, not out of the iron {(n - len(p)) / n:.4f}, no decay)"
        else:
            ref, text = load_reference(args.geant4)
        for ax, edges, q in ((axes[0], P_BINS, "p"), (axes[1], X_BINS, "x")):
            h, e = ref[q]
            centres = 0.5 * (edges[:-1] + edges[1:])
            shown = h > 0  # a log axis cannot show an empty bin
            ax.errorbar(centres[shown], h[shown], yerr=e[shown], fmt="o", ms=2, color="k",
                        elinewidth=0.8, label=text)
    axes[0].set_xlabel("final |p| of the muons out of the iron [GeV/c]")
    axes[0].set_ylabel("muons per GeV/c per muon entering")
    axes[1].set_xlabel("final x of the muons out of the iron [m]")
    axes[1].set_ylabel("muons per m per muon entering")
    for ax in axes:
        ax.set_yscale("log")
    # One legend below both panels: inside, it would hide the peaks.
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", fontsize=8, frameon=False)
    fig.suptitle("50 GeV/c mu- through 10 m of iron (muons stopped or decayed in the iron "
                 "are counted, not plotted)", fontsize=10)
    fig.tight_layout(rect=(0, 0.055 * len(handles), 1, 1))
    save_figure(fig, args.out, dpi=110)


def ship(args):
    import h5py

    with h5py.File(args.run, "r") as f:
        d = f["muons"]
        cols = d.attrs["columns"]
        cols = cols.decode() if isinstance(cols, bytes) else str(cols)
        names = cols.split(",")
        a = d[...]
    c = {n: a[:, i] for i, n in enumerate(names)}
    hit = c["status"] == 0
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    *_, image = axes[0].hist2d(c["x"][hit], c["y"][hit], bins=60, range=[[-2, 2], [-3, 3]],
                               cmap="viridis", cmin=1)
    fig.colorbar(image, ax=axes[0], label="hits per bin (6.7 cm x 10 cm)")
    axes[0].set_xlabel("x [m]")
    axes[0].set_ylabel("y [m]")
    axes[0].set_title(f"hits at z = 82 m: {hit.sum()} of {len(hit)}")
    p = np.sqrt(c["px"] ** 2 + c["py"] ** 2 + c["pz"] ** 2)
    for charge, colour in ((13, "C0"), (-13, "C3")):
        sel = hit & (c["pdg"] == charge)
        axes[1].hist(p[sel], bins=np.logspace(0, np.log10(400), 50), histtype="step",
                     color=colour, label="mu-" if charge == 13 else "mu+")
    axes[1].set_xscale("log")
    axes[1].set_xlabel("|p| at the plane [GeV/c]")
    axes[1].set_ylabel("hits per bin")
    axes[1].legend()
    fig.tight_layout()
    save_figure(fig, args.out, dpi=110)


MEASURED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data",
                        "depth_intensity_measured.csv")


def measured_rows(path):
    """Rows of the measured compilation (comment lines start with #)."""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def underground(args):
    d = np.genfromtxt(args.csv, delimiter=",", names=True)
    h, i, e = d["depth_mwe"], d["intensity"], d["intensity_err"]
    fig, axes = plt.subplots(2, 1, figsize=(7, 7), sharex=True, height_ratios=(3, 1))
    axes[0].errorbar(h, i, yerr=e, fmt="o-", ms=4, color="k", zorder=3,
                     label="fastmu: Guan et al. sea-level flux through standard rock")
    hh = np.linspace(min(h.min(), 500), h.max(), 200)
    axes[0].plot(hh, 9.8e-7 * np.exp(-hh / 810.0), color="0.6", lw=0.8,
                 label="Menon et al. 1967 (fit): 9.8e-7 exp(-h / 810 m.w.e.)")
    # The example is standard rock: a depth in m.w.e. of water or ice is a
    # different overburden, so those rows are left to `fastmu underground
    # --rock water|sea_water|ice --depths` (scripts/plot_underground.py).
    groups = {}
    for r in measured_rows(MEASURED):
        if r["medium"] in ("water", "sea water", "ice"):
            continue
        groups.setdefault((r["experiment"], r["medium"]), []).append(r)
    markers = "sDv^<>pP*hX"
    for k, ((exp, medium), rows) in enumerate(sorted(groups.items())):
        x = np.array([float(r["depth_mwe"]) for r in rows])
        y = np.array([float(r["intensity"]) for r in rows])
        err = np.array([float(r["intensity_err"]) for r in rows])
        style = dict(fmt=markers[k % len(markers)], ms=6, color=f"C{k}", label=f"{exp} ({medium})")
        axes[0].errorbar(x, y, yerr=[np.minimum(err, 0.9 * y), err], **style)
        # fastmu at the measured depths (log-interpolated), within its range
        inside = (x >= h.min()) & (x <= h.max())
        if inside.any():
            model = np.exp(np.interp(x[inside], h, np.log(i)))
            axes[1].errorbar(x[inside], model / y[inside], yerr=model * err[inside] / y[inside] ** 2,
                             **style)
    axes[0].set_yscale("log")
    axes[0].set_ylabel("vertical intensity [cm$^{-2}$ s$^{-1}$ sr$^{-1}$]")
    axes[0].legend(fontsize=7)
    axes[1].axhline(1.0, color="k")
    axes[1].axhspan(0.8, 1.2, color="0.9")
    axes[1].set_ylim(bottom=0)  # autoscaled above: every point inside the axes
    axes[1].set_ylabel("fastmu / measured")
    axes[1].set_xlabel("depth [m.w.e.] (standard rock; measured: the site's medium)")
    fig.tight_layout()
    save_figure(fig, args.out, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("case", choices=["iron-block", "ship", "underground"])
    ap.add_argument("--csv")
    ap.add_argument("--fast")
    ap.add_argument("--detailed")
    ap.add_argument("--geant4")
    ap.add_argument("--run")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    if args.case == "iron-block":
        if not args.fast:
            ap.error("iron-block needs --fast")
        iron_block(args)
    elif args.case == "underground":
        if not args.csv:
            ap.error("underground needs --csv")
        underground(args)
    else:
        if not args.run:
            ap.error("ship needs --run")
        ship(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
