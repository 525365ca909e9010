#!/usr/bin/env python3
"""Report of `fastmu validate` (run by the fastmu executable).

  plot_validate.py --dir D --info JSON

Reads D/fast.csv and D/detailed.csv (every muon: id,px,py,pz,x,y,z,pdg,weight,
status,plane) and D/tolerances.json; writes, per sensitive plane and charge,
D/plane<k>_<mu->.png (final |p|, x, y, px, py of the muons at the plane inside
its window: both engines overlaid on the same bins, ratio fast/detailed with
its error from the counts below), D/status.png (status fractions; the PNGs
only where matplotlib is installed), D/summary.json and D/summary.md. Exit 0
when every check passes, 1 when one fails, 2 on bad input.

Checks (validate_checks.py), per plane and charge with >= min_muons muons in
both engines:
  - two-sample Kolmogorov-Smirnov test of each quantity: p-value >= ks_p_min;
  - 10/50/90 % quantiles of |p|: relative difference <= quantile_rel, or
    difference <= quantile_sigma x its order-statistic standard error;
and per charge, for each status: |f_fast - f_detailed| <= fraction_abs or
<= fraction_sigma x its binomial error. Each check records the error it used
and whether it passed by the tolerance or by the statistics.
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validate_checks as vc  # noqa: E402

# Status values and labels (interfaces.md "Transport output"; 5, above the
# tables, never reaches validate: such rows are refused).
STATUS = {0: "at plane", 1: "stopped", 2: "left world", 3: "step limit", 4: "outside window",
          6: "decayed"}
QUANTITIES = [("|p|", "GeV/c"), ("x", "m"), ("y", "m"), ("px", "GeV/c"), ("py", "GeV/c")]
CHARGES = [(13, "mu-"), (-13, "mu+")]
MIN_BINS, MAX_BINS = 5, 60


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


def bin_edges(a, b):
    """Common edges for both engines: Freedman-Diaconis width 2 IQR n^(-1/3)
    with n the smaller sample (it sets the noise per bin), over the pooled
    0.1-99.9 % range, MIN_BINS to MAX_BINS bins."""
    both = np.concatenate([a, b])
    lo, hi = np.quantile(both, [0.001, 0.999])
    if not hi > lo:
        return np.linspace(lo - 1e-6, hi + 1e-6, MIN_BINS + 1)
    n = max(min(len(a), len(b)), 1)
    iqr = np.subtract(*np.quantile(both, [0.75, 0.25]))
    bins = (hi - lo) / (2.0 * iqr * n ** (-1.0 / 3.0)) if iqr > 0 else math.sqrt(n)
    return np.linspace(lo, hi, int(np.clip(math.ceil(bins), MIN_BINS, MAX_BINS)) + 1)


def ratio_panel(ax, centres, ha, na, hb, nb, label):
    """fast/detailed per bin with the error of two Poisson counts."""
    ok = (ha > 0) & (hb > 0)
    r = (ha[ok] / na) / (hb[ok] / nb)
    err = r * np.sqrt(1.0 / ha[ok] + 1.0 / hb[ok])
    ax.errorbar(centres[ok], r, yerr=err, fmt=".", color="k", ms=3)
    ax.axhline(1.0, color="gray", lw=0.8)
    half = 0.5 if not len(err) or np.median(err / np.maximum(r, 1e-12)) < 0.15 else 1.0
    ax.set_ylim(max(0.0, 1.0 - half), 1.0 + half)
    ax.set_ylabel("fast / detailed")
    ax.set_xlabel(label)


def overlay(path, title, fast, det):
    if plt is None:
        return False
    fig, axes = plt.subplots(2, 5, figsize=(20, 6), gridspec_kw={"height_ratios": [3, 1]},
                             sharex="col")
    for c, (q, unit) in enumerate(QUANTITIES):
        a, b = values(fast, q), values(det, q)
        edges = bin_edges(a, b)
        ha, _ = np.histogram(a, edges)
        hb, _ = np.histogram(b, edges)
        na, nb = max(len(a), 1), max(len(b), 1)
        centres = 0.5 * (edges[1:] + edges[:-1])
        ax = axes[0, c]
        ax.stairs(ha / na, edges, label=f"fast ({len(a)})", color="C0")
        ax.stairs(hb / nb, edges, label=f"detailed ({len(b)})", color="C2")
        ax.set_yscale("log")
        ax.set_title(f"{title}: {q} ({len(edges) - 1} bins)")
        ax.set_ylabel("fraction per bin")
        ax.legend(fontsize=8)
        ratio_panel(axes[1, c], centres, ha, na, hb, nb, f"{q} [{unit}]")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return True


def quantity_entry(a, b):
    qs = list(vc.QUANTILES)
    return {"quantiles": qs, "fast": np.quantile(a, qs).tolist(),
            "detailed": np.quantile(b, qs).tolist(),
            "fast_error": [vc.quantile_error(a, q) for q in qs],
            "detailed_error": [vc.quantile_error(b, q) for q in qs],
            "mean_fast": float(a.mean()), "mean_detailed": float(b.mean())}


def judge_group(g, f, d, tol, checks):
    label = f"plane {g['plane']} {g['charge']}"
    for q, _ in QUANTITIES:
        a, b = values(f, q), values(d, q)
        entry = quantity_entry(a, b)
        ks = vc.ks_check(label, q, a, b, tol)
        entry["ks_d"], entry["ks_p"] = ks["difference"], ks["value"]
        g["quantities"][q] = entry
        checks.append(ks)
        if q == "|p|":
            checks += [vc.quantile_check(label, qq, a, b, tol) for qq in vc.QUANTILES]


def plane_checks(fast, det, tol, out_dir, checks):
    groups = []
    planes = sorted(set(int(p) for p in np.concatenate([fast["plane"], det["plane"]]) if p >= 0))
    for k in planes:
        for pdg, name in CHARGES:
            f = fast[(fast["status"] == 0) & (fast["plane"] == k) & (fast["pdg"] == pdg)]
            d = det[(det["status"] == 0) & (det["plane"] == k) & (det["pdg"] == pdg)]
            g = {"plane": k, "charge": name, "n_fast": len(f), "n_detailed": len(d),
                 "quantities": {}, "judged": min(len(f), len(d)) >= max(tol["min_muons"], 2)}
            groups.append(g)
            if not g["judged"]:
                continue
            png = f"plane{k}_{name}.png"
            if overlay(os.path.join(out_dir, png), f"plane {k} {name}", f, d):
                g["png"] = png
            judge_group(g, f, d, tol, checks)
    return groups


def fraction_checks(fast, det, tol, checks):
    fractions = []
    for pdg, name in CHARGES:
        nf, nd = int(np.sum(fast["pdg"] == pdg)), int(np.sum(det["pdg"] == pdg))
        if nf == 0 or nd == 0:
            continue
        for s, label in STATUS.items():
            kf = int(np.sum((fast["pdg"] == pdg) & (fast["status"] == s)))
            kd = int(np.sum((det["pdg"] == pdg) & (det["status"] == s)))
            c = vc.fraction_check(name, label, (kf, nf, kd, nd), tol)
            checks.append(c)
            fractions.append({"charge": name, "status": s, "label": label, "fast": kf / nf,
                              "detailed": kd / nd, "n_fast": nf, "n_detailed": nd,
                              "difference": c["difference"], "error": c["error"],
                              "pass": c["pass"], "passed_by": c["passed_by"]})
    return fractions


def status_plot(path, fractions):
    if plt is None:
        return
    # One panel per charge present (the iron block has mu- only): no empty panel.
    names = [name for _, name in CHARGES if any(r["charge"] == name for r in fractions)]
    if not names:
        return
    fig, axes = plt.subplots(1, len(names), figsize=(6 * len(names), 4), squeeze=False)
    for ax, name in zip(axes[0], names):
        rows = [r for r in fractions if r["charge"] == name]
        xs = np.arange(len(rows))
        ff, fd = [r["fast"] for r in rows], [r["detailed"] for r in rows]
        nf, nd = rows[0]["n_fast"], rows[0]["n_detailed"]
        ax.bar(xs - 0.2, ff, 0.4, label=f"fast ({nf})", color="C0",
               yerr=[math.sqrt(f * (1 - f) / nf) for f in ff])
        ax.bar(xs + 0.2, fd, 0.4, label=f"detailed ({nd})", color="C2",
               yerr=[math.sqrt(f * (1 - f) / nd) for f in fd])
        ax.set_xticks(xs)
        ax.set_xticklabels([r["label"] for r in rows], rotation=20)
        ax.set_title(f"status fractions, {name}")
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def outcome(c):
    return f"pass ({c['passed_by']})" if c["pass"] else "**FAIL**"


def cell(s):
    return str(s).replace("|", "\\|")


def fmt_error(e):
    return "-" if e is None else f"{e:.3g}"


def header_markdown(info, checks, failed):
    where = ("the GPU" if info.get("detailed_backend") == "cuda"
             else f"{info.get('threads', '?')} threads")
    md = [f"# fastmu validate: {info.get('source', '')}", "",
          f"{info.get('muons', '?')} muons, seed {info.get('seed', '?')}; fast transport "
          f"{info.get('fast_seconds', 0):.3g} s, detailed engine "
          f"{info.get('detailed_seconds', 0):.3g} s on {where}.", "",
          f"**{'PASSED' if not failed else 'FAILED'}**: {len(checks) - len(failed)} of "
          f"{len(checks)} checks pass.", ""]
    if plt is None:
        md += ["Plots skipped: matplotlib is not installed (apt install python3-matplotlib).", ""]
    return md


def markdown(info, tol, groups, fractions, checks):
    failed = [c for c in checks if not c["pass"]]
    md = header_markdown(info, checks, failed)
    md += ["## Status fractions (fast vs detailed, difference +- binomial error)", "",
           "| charge | status | fast | detailed | difference | error | result |",
           "|---|---|---|---|---|---|---|"]
    md += [f"| {r['charge']} | {r['label']} | {r['fast']:.4f} | {r['detailed']:.4f} | "
           f"{r['difference']:+.4f} | {r['error']:.4f} | {outcome(r)} |" for r in fractions]
    md += ["", "## At the planes (muons inside the window)", "",
           "Quantiles +- their order-statistic standard error.", ""]
    for g in groups:
        md += plane_markdown(g, tol)
    md += ["## Checks", "", "| check | value | limit | error | result |", "|---|---|---|---|---|"]
    md += [f"| {cell(c['what'])} | {c['value']:.4g} | {cell(c['limit'])} | "
           f"{fmt_error(c['error'])} | {outcome(c)} |" for c in checks]
    md += ["", "## Failed checks", ""]
    md += [f"- {c['what']} ({c['limit']})" for c in failed] or ["none"]
    return "\n".join(md) + "\n"


def plane_markdown(g, tol):
    md = [f"### plane {g['plane']}, {g['charge']}: {g['n_fast']} fast, {g['n_detailed']} detailed"]
    if not g["judged"]:
        return md + ["", f"too few muons (< {tol['min_muons']}): not judged", ""]
    md += [""] + ([f"![]({g['png']})", ""] if "png" in g else [])
    md += ["| quantity | mean fast | mean detailed | 10/50/90 % fast | 10/50/90 % detailed | "
           "KS D | KS p |", "|---|---|---|---|---|---|---|"]
    for q, e in g["quantities"].items():
        qf = " / ".join(f"{v:.4g} +- {s:.2g}" for v, s in zip(e["fast"], e["fast_error"]))
        qd = " / ".join(f"{v:.4g} +- {s:.2g}" for v, s in zip(e["detailed"], e["detailed_error"]))
        md.append(f"| {cell(q)} | {e['mean_fast']:.4g} | {e['mean_detailed']:.4g} | {qf} | {qd} | "
                  f"{e['ks_d']:.3g} | {e['ks_p']:.3g} |")
    return md + [""]


def read_inputs(args):
    fast = load(os.path.join(args.dir, "fast.csv"))
    det = load(os.path.join(args.dir, "detailed.csv"))
    with open(os.path.join(args.dir, "tolerances.json")) as f:
        tol = json.load(f)
    missing = {"ks_p_min", "quantile_rel", "quantile_sigma", "fraction_abs", "fraction_sigma",
               "min_muons"} - set(tol)
    if missing:
        raise ValueError(f"tolerances.json: missing {', '.join(sorted(missing))}")
    return fast, det, tol, json.loads(args.info)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--info", default="{}")
    args = ap.parse_args()
    try:
        fast, det, tol, info = read_inputs(args)
    except (OSError, ValueError) as e:
        print(f"plot_validate: {e}", file=sys.stderr)
        return 2
    checks = []
    groups = plane_checks(fast, det, tol, args.dir, checks)
    fractions = fraction_checks(fast, det, tol, checks)
    status_plot(os.path.join(args.dir, "status.png"), fractions)
    failed = sum(not c["pass"] for c in checks)
    summary = {"info": info, "tolerances": tol, "groups": groups, "status_fractions": fractions,
               "checks": checks, "failed": failed, "passed": failed == 0}
    with open(os.path.join(args.dir, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    with open(os.path.join(args.dir, "summary.md"), "w") as f:
        f.write(markdown(info, tol, groups, fractions, checks))
    print(f"wrote {os.path.join(args.dir, 'summary.md')}: {len(checks) - failed} of "
          f"{len(checks)} checks pass" + ("" if plt else " (plots skipped: no matplotlib)"))
    return 1 if failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as e:  # noqa: BLE001 - any other failure is not a failed check
        print(f"plot_validate: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(2)
