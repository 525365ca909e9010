#!/usr/bin/env python3
"""Report of `fastmu validate` (run by the fastmu executable).

  plot_validate.py --dir D --info JSON

Reads D/fast.csv and D/detailed.csv (every muon: id,px,py,pz,x,y,z,pdg,weight,
status,plane) and D/tolerances.json; writes, per sensitive plane and charge,
D/plane<k>_<mu->.png (final |p|, x, y, px, py of the muons at the plane inside
its window: both engines overlaid, ratio fast/detailed below), D/status.png
(status fractions; the PNGs only where matplotlib is installed), D/summary.json
and D/summary.md. Exit 0 when every check passes, 1 when one fails, 2 on bad
input.

Checks, per plane and charge with >= min_muons muons in both engines:
  - two-sample Kolmogorov-Smirnov test of each quantity: p-value >= ks_p_min
    (asymptotic distribution, Numerical Recipes 3rd ed. 14.3.3);
  - 10/50/90 % quantiles of |p|: relative difference <= quantile_rel;
and per charge, for each status: |f_fast - f_detailed| <= fraction_abs or
<= fraction_sigma x its binomial error sqrt(f1(1-f1)/n1 + f2(1-f2)/n2).
"""
import argparse
import json
import math
import os
import sys

try:
    import numpy as np
except ImportError:
    print("plot_validate: numpy is not installed (apt install python3-numpy)", file=sys.stderr)
    sys.exit(2)
try:  # the checks do not need matplotlib: without it the PNGs are skipped
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    plt = None

STATUS = ["at plane", "stopped", "left world", "step limit", "outside window"]
QUANTITIES = [("|p|", "GeV/c"), ("x", "m"), ("y", "m"), ("px", "GeV/c"), ("py", "GeV/c")]
CHARGES = [(13, "mu-"), (-13, "mu+")]


def load(path):
    a = np.genfromtxt(path, delimiter=",", names=True)
    a = np.atleast_1d(a)
    if "plane" not in a.dtype.names:
        raise ValueError(f"{path}: no plane column")
    return a


def values(a, q):
    if q == "|p|":
        return np.sqrt(a["px"] ** 2 + a["py"] ** 2 + a["pz"] ** 2)
    return a[q]


def ks_test(x, y):
    """Two-sample KS statistic and asymptotic p-value."""
    x, y = np.sort(x), np.sort(y)
    grid = np.concatenate([x, y])
    d = np.max(np.abs(np.searchsorted(x, grid, side="right") / len(x)
                      - np.searchsorted(y, grid, side="right") / len(y)))
    en = math.sqrt(len(x) * len(y) / (len(x) + len(y)))
    lam = (en + 0.12 + 0.11 / en) * d
    if lam < 1e-3:
        return float(d), 1.0
    p = 2.0 * sum((-1) ** (j - 1) * math.exp(-2.0 * j * j * lam * lam) for j in range(1, 101))
    return float(d), float(min(max(p, 0.0), 1.0))


def overlay(path, title, fast, det):
    if plt is None:
        return False
    fig, axes = plt.subplots(2, 5, figsize=(20, 6), gridspec_kw={"height_ratios": [3, 1]},
                             sharex="col")
    for c, (q, unit) in enumerate(QUANTITIES):
        a, b = values(fast, q), values(det, q)
        both = np.concatenate([a, b])
        lo, hi = np.quantile(both, [0.001, 0.999])
        if not hi > lo:
            lo, hi = lo - 1e-6, hi + 1e-6
        bins = np.linspace(lo, hi, 51)
        ha, _ = np.histogram(a, bins)
        hb, _ = np.histogram(b, bins)
        wa, wb = 1.0 / max(len(a), 1), 1.0 / max(len(b), 1)
        centres = 0.5 * (bins[1:] + bins[:-1])
        ax = axes[0, c]
        ax.step(centres, ha * wa, where="mid", label=f"fast ({len(a)})", color="C0")
        ax.step(centres, hb * wb, where="mid", label=f"detailed ({len(b)})", color="C2")
        ax.set_yscale("log")
        ax.set_title(f"{title}: {q}")
        ax.legend(fontsize=8)
        with np.errstate(divide="ignore", invalid="ignore"):
            r = (ha * wa) / (hb * wb)
            err = r * np.sqrt(1.0 / np.maximum(ha, 1) + 1.0 / np.maximum(hb, 1))
        ok = (ha > 0) & (hb > 0)
        axes[1, c].errorbar(centres[ok], r[ok], yerr=err[ok], fmt=".", color="k", ms=3)
        axes[1, c].axhline(1.0, color="gray", lw=0.8)
        axes[1, c].set_ylim(0.5, 1.5)
        axes[1, c].set_ylabel("fast / detailed")
        axes[1, c].set_xlabel(f"{q} [{unit}]")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--info", default="{}")
    args = ap.parse_args()
    try:
        fast = load(os.path.join(args.dir, "fast.csv"))
        det = load(os.path.join(args.dir, "detailed.csv"))
        with open(os.path.join(args.dir, "tolerances.json")) as f:
            tol = json.load(f)
        info = json.loads(args.info)
    except (OSError, ValueError) as e:
        print(f"plot_validate: {e}", file=sys.stderr)
        return 2
    checks = []
    groups = []
    planes = sorted(set(int(p) for p in np.concatenate([fast["plane"], det["plane"]]) if p >= 0))
    for k in planes:
        for pdg, name in CHARGES:
            f = fast[(fast["status"] == 0) & (fast["plane"] == k) & (fast["pdg"] == pdg)]
            d = det[(det["status"] == 0) & (det["plane"] == k) & (det["pdg"] == pdg)]
            g = {"plane": k, "charge": name, "n_fast": len(f), "n_detailed": len(d), "quantities": {}}
            if min(len(f), len(d)) < tol["min_muons"]:
                g["judged"] = False
                groups.append(g)
                continue
            g["judged"] = True
            png = f"plane{k}_{name}.png"
            if overlay(os.path.join(args.dir, png), f"plane {k} {name}", f, d):
                g["png"] = png
            for q, _ in QUANTITIES:
                a, b = values(f, q), values(d, q)
                dks, p = ks_test(a, b)
                qs = [0.1, 0.5, 0.9]
                entry = {"quantiles": qs, "fast": np.quantile(a, qs).tolist(),
                         "detailed": np.quantile(b, qs).tolist(), "mean_fast": float(a.mean()),
                         "mean_detailed": float(b.mean()), "ks_d": dks, "ks_p": p}
                g["quantities"][q] = entry
                checks.append({"what": f"plane {k} {name} {q}: KS p-value", "value": p,
                               "limit": f">= {tol['ks_p_min']}", "pass": bool(p >= tol["ks_p_min"])})
                if q == "|p|":
                    for qq, va, vb in zip(qs, entry["fast"], entry["detailed"]):
                        rel = abs(va - vb) / abs(vb) if vb != 0 else float("inf")
                        checks.append({"what": f"plane {k} {name} |p| {int(qq * 100)} % quantile: "
                                       f"fast {va:.4g} vs detailed {vb:.4g}", "value": rel,
                                       "limit": f"<= {tol['quantile_rel']} relative",
                                       "pass": bool(rel <= tol["quantile_rel"])})
            groups.append(g)
    fractions = []
    fig, axes = plt.subplots(1, 2, figsize=(12, 4)) if plt else (None, [None, None])
    for ax, (pdg, name) in zip(axes, CHARGES):
        nf, nd = np.sum(fast["pdg"] == pdg), np.sum(det["pdg"] == pdg)
        if nf == 0 or nd == 0:
            continue
        ff, fd, ee = [], [], []
        for s, label in enumerate(STATUS):
            a = np.sum((fast["pdg"] == pdg) & (fast["status"] == s)) / nf
            b = np.sum((det["pdg"] == pdg) & (det["status"] == s)) / nd
            err = math.sqrt(a * (1 - a) / nf + b * (1 - b) / nd)
            diff = a - b
            ok = bool(abs(diff) <= tol["fraction_abs"] or abs(diff) <= tol["fraction_sigma"] * err)
            fractions.append({"charge": name, "status": s, "label": label, "fast": a, "detailed": b,
                              "difference": diff, "error": err, "pass": ok})
            checks.append({"what": f"{name} fraction '{label}': fast {a:.4f} vs detailed {b:.4f}",
                           "value": diff, "limit": f"|diff| <= {tol['fraction_abs']} or "
                           f"<= {tol['fraction_sigma']} x {err:.2g}", "pass": ok})
            ff.append(a), fd.append(b), ee.append(err)
        if ax is None:
            continue
        xs = np.arange(len(STATUS))
        ax.bar(xs - 0.2, ff, 0.4, label=f"fast ({nf})", color="C0")
        ax.bar(xs + 0.2, fd, 0.4, label=f"detailed ({nd})", color="C2",
               yerr=[math.sqrt(f_ * (1 - f_) / nd) for f_ in fd])
        ax.set_xticks(xs)
        ax.set_xticklabels(STATUS, rotation=20)
        ax.set_title(f"status fractions, {name}")
        ax.legend()
    if fig is not None:
        fig.tight_layout()
        fig.savefig(os.path.join(args.dir, "status.png"), dpi=90)
        plt.close(fig)
    failed = [c for c in checks if not c["pass"]]
    summary = {"info": info, "tolerances": tol, "groups": groups, "status_fractions": fractions,
               "checks": checks, "failed": len(failed), "passed": len(failed) == 0}
    with open(os.path.join(args.dir, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    md = [f"# fastmu validate: {info.get('source', '')}", "",
          f"{info.get('muons', '?')} muons, seed {info.get('seed', '?')}; fast transport "
          f"{info.get('fast_seconds', 0):.3g} s, detailed engine {info.get('detailed_seconds', 0):.3g} s "
          f"on {info.get('threads', '?')} threads.", "",
          f"**{'PASSED' if not failed else 'FAILED'}**: {len(checks) - len(failed)} of {len(checks)} "
          "checks pass.", ""]
    if plt is None:
        md += ["Plots skipped: matplotlib is not installed (apt install python3-matplotlib).", ""]
    md += ["## Status fractions (fast vs detailed, difference +- error)", "",
          "| charge | status | fast | detailed | difference | error | pass |",
          "|---|---|---|---|---|---|---|"]
    for r in fractions:
        md.append(f"| {r['charge']} | {r['label']} | {r['fast']:.4f} | {r['detailed']:.4f} | "
                  f"{r['difference']:+.4f} | {r['error']:.4f} | {'yes' if r['pass'] else 'NO'} |")
    md += ["", "## At the planes (muons inside the window)", ""]
    for g in groups:
        md.append(f"### plane {g['plane']}, {g['charge']}: {g['n_fast']} fast, {g['n_detailed']} detailed")
        if not g["judged"]:
            md += ["", f"too few muons (< {tol['min_muons']}): not judged", ""]
            continue
        md += [""] + ([f"![]({g['png']})", ""] if "png" in g else []) + ["| quantity | mean fast | mean detailed | "
               "10/50/90 % fast | 10/50/90 % detailed | KS D | KS p |", "|---|---|---|---|---|---|---|"]
        for q, e in g["quantities"].items():
            md.append(f"| {q} | {e['mean_fast']:.4g} | {e['mean_detailed']:.4g} | "
                      + " / ".join(f"{v:.4g}" for v in e["fast"]) + " | "
                      + " / ".join(f"{v:.4g}" for v in e["detailed"])
                      + f" | {e['ks_d']:.3g} | {e['ks_p']:.3g} |")
        md.append("")
    md += ["## Failed checks", ""] + ([f"- {c['what']} ({c['limit']})" for c in failed] or ["none"])
    with open(os.path.join(args.dir, "summary.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print(f"wrote {os.path.join(args.dir, 'summary.md')}: {len(checks) - len(failed)} of "
          f"{len(checks)} checks pass" + ("" if plt else " (plots skipped: no matplotlib)"))
    return 1 if failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as e:  # noqa: BLE001 - any other failure is not a failed check
        print(f"plot_validate: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(2)
