#!/usr/bin/env python3
"""fastmu.ship.objective's gradient with respect to the magnets' dimensions
against finite differences with common random numbers (the same seed), per
(magnet, column), with the standard error of the paired per-muon
differences, and the timing of value + full gradient against the forward
transport (docs/python-and-gradients.md "Gradients").

    PYTHONPATH=build/python python3 tools/ship_dimension_check.py --n 100000 \\
        --magnets 1 4 5 --columns dZ dXIn gapIn midGapIn

Central differences of +-eps cm; a column at 0 that cannot go below it
(midGap: the cores would overlap) takes the forward difference of
--eps-one-sided (0.3 cm) and is marked "one-sided".
"""

import argparse
import time

import numpy as np

import fastmu


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=100000, help="muons (fastmu.ship.muons, seed 1)")
    ap.add_argument("--eps", type=float, default=0.3, help="step of the central differences [cm]")
    ap.add_argument("--eps-one-sided", type=float, default=0.3,
                    help="step of the one-sided differences at midGap = 0 [cm]: the gap "
                         "opened between touching cores changes the count faster than "
                         "linearly, so a wide step overstates the slope at 0")
    ap.add_argument("--smoothing", type=float, default=0.05)
    ap.add_argument("--magnets", type=int, nargs="+", default=[1, 4, 5])
    ap.add_argument("--columns", nargs="+", default=["dZ", "dXIn", "gapIn", "midGapIn"])
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--backend", default="cpu", help="cpu, cuda or auto")
    ap.add_argument("--rel", type=float, default=None,
                    help="relative tolerance beside two standard errors (default 0.05 from 10^6 "
                         "muons, else 0.15)")
    ap.add_argument("--no-tangent", action="store_true",
                    help="do not time the forward-mode tangents (one pass per magnet)")
    args = ap.parse_args()
    p = fastmu.ship.parameters("warm_baseline")
    mu = fastmu.ship.muons(args.n, seed=1)
    # The forward transport with the objective's steps (its long_steps), so
    # that both time the same stepping over tables already loaded.
    steps = dict(long_steps=3)
    opt = dict(seed=1, smoothing=args.smoothing, backend=args.backend, threads=args.threads,
               **steps)
    fastmu.ship.objective(mu[:100], p, gradient=False, **opt)  # tables and geometry loaded
    fastmu.transport(mu[:100], fastmu.ship.geometry(p), seed=1, backend=args.backend,
                     threads=args.threads, **steps)
    t = time.time()
    fastmu.transport(mu, fastmu.ship.geometry(p), seed=1, backend=args.backend, all=True,
                     threads=args.threads, **steps)
    tf = time.time() - t
    t = time.time()
    fastmu.ship.objective(mu, p, gradient=False, **opt)
    t_value = time.time() - t
    t = time.time()
    fastmu.ship.objective(mu, p, columns="all", details=False, **opt)
    t_all = time.time() - t
    t_tangent = float("nan")
    if not args.no_tangent:
        t = time.time()
        fastmu.ship.objective(mu, p, columns="all", method="tangent", **opt)
        t_tangent = time.time() - t
    mask = np.zeros(p.shape, bool)
    cols = [fastmu.ship.COLUMNS.index(c) for c in args.columns]
    for m in args.magnets:
        mask[m, cols] = True
    t = time.time()
    value, grad, info = fastmu.ship.objective(mu, p, details=True, columns=mask, **opt)
    tg = time.time() - t
    print(f"n={args.n} eps={args.eps} cm smoothing={args.smoothing}: value {value:.2f}; "
          f"forward transport {tf:.3f} s, objective value alone {t_value:.3f} s; value + gradient "
          f"of every column by the adjoint {t_all:.3f} s ({t_all / tf:.2f}x the forward, "
          f"{info['adjoint_muons']} backward passes), by forward tangents {t_tangent:.3f} s "
          f"({t_tangent / tf:.1f}x); of the {mask.sum()} checked columns {tg:.3f} s", flush=True)
    for m in args.magnets:
        for c in cols:
            check(mu, p, m, c, args.eps, args.eps_one_sided, grad, info, opt,
                  args.rel if args.rel is not None else (0.05 if args.n >= 1000000 else 0.15))


def check(mu, p, m, c, eps, eps_one_sided, grad, info, opt, rel):
    up, dn = p.copy(), p.copy()
    one_sided = fastmu.ship.COLUMNS[c].startswith("midGap") and p[m, c] < eps
    if one_sided:
        eps = min(eps, eps_one_sided)
    up[m, c] += eps
    if not one_sided:
        dn[m, c] -= eps
    a = fastmu.ship.objective(mu, up, gradient=False, details=True, **opt)[2]
    b = fastmu.ship.objective(mu, dn, gradient=False, details=True, **opt)[2]
    fd = (a["muon_value"] - b["muon_value"]) / (eps if one_sided else 2 * eps)
    d = fd - info["muon_gradient"][:, m, c]
    n = len(fd)
    se_fd, se_d = np.sqrt(n) * fd.std(), np.sqrt(n) * d.std()
    ok = abs(d.sum()) <= max(rel * abs(fd.sum()), 2 * se_d)
    print(f"magnet {m} {fastmu.ship.COLUMNS[c]:>9}: gradient {grad[m, c]:9.2f}  FD "
          f"{fd.sum():9.2f} +- {se_fd:6.2f}  paired difference {d.sum():8.2f} +- {se_d:6.2f}"
          f"{'  one-sided' if one_sided else ''}  {'agrees' if ok else 'DIFFERS'}", flush=True)


if __name__ == "__main__":
    main()
