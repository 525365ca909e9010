#!/usr/bin/env python3
"""fastmu.ship.objective's gradient against central finite differences with
common random numbers (the same seed), per magnet, plus timings of the forward
transport, the value alone and value + gradient (docs/python-and-gradients.md "Gradients").

    PYTHONPATH=build/python python3 tools/ship_gradient_check.py --n 100000 --eps 0.05
    PYTHONPATH=.device/python python3 tools/ship_gradient_check.py --n 10000000 --backend cuda
"""

import argparse
import time

import numpy as np

import fastmu


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=100000, help="muons (fastmu.ship.muons, seed 1)")
    ap.add_argument("--eps", type=float, default=0.05, help="B step of the differences [T]")
    ap.add_argument("--smoothing", type=float, default=0.05)
    ap.add_argument("--boundary-softening", type=float, default=0.0)
    ap.add_argument("--max-tangent", type=float, default=100.0)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--long-steps", type=int, default=3, help="as fastmu run --long-steps")
    ap.add_argument("--backend", default="cpu", help="cpu, cuda or auto")
    args = ap.parse_args()
    p = fastmu.ship.parameters("warm_baseline")
    mu = fastmu.ship.muons(args.n, seed=1)
    opt = dict(seed=1, smoothing=args.smoothing, backend=args.backend, threads=args.threads,
               long_steps=args.long_steps)
    fastmu.ship.objective(mu[:100], p, **opt)  # tables and geometry loaded
    t = time.time()
    out = fastmu.transport(mu, fastmu.ship.geometry(p), seed=1, backend=args.backend, all=True,
                           threads=args.threads, long_steps=args.long_steps)
    tf = time.time() - t
    t = time.time()
    fastmu.ship.objective(mu, p, gradient=False, **opt)
    tv = time.time() - t
    t = time.time()
    value, grad, info = fastmu.ship.objective(mu, p, details=True,
                                              boundary_softening=args.boundary_softening,
                                              max_tangent=args.max_tangent, **opt)
    tg = time.time() - t
    us = 1e6 / args.n
    print(f"n={args.n} smoothing={args.smoothing} eps={args.eps}: value {value:.3f}, hard "
          f"{info['hard']:.0f} (forward transport: {int(np.sum(out['status'] == 0))})")
    print(f"time per muon: forward {tf * us:.1f} us, value only {tv * us:.1f} us, value+gradient "
          f"{tg * us:.1f} us ({tg / tf:.2f}x forward)", flush=True)
    for k in range(p.shape[0]):
        up, dn = p.copy(), p.copy()
        up[k, 14] += args.eps
        dn[k, 14] -= args.eps
        a = fastmu.ship.objective(mu, up, gradient=False, details=True, **opt)[2]
        b = fastmu.ship.objective(mu, dn, gradient=False, details=True, **opt)[2]
        fd = (a["muon_value"] - b["muon_value"]) / (2 * args.eps)
        d = fd - info["muon_gradient"][:, k]
        err, derr = np.sqrt(args.n) * fd.std(), np.sqrt(args.n) * d.std()
        # The gradient criterion: within 5 %, or within the statistical spread
        # (2 standard errors of the paired per-muon differences).
        ok = abs(d.sum()) <= max(0.05 * abs(fd.sum()), 2 * derr)
        print(f"magnet {k} (B={p[k, 14]:+.1f}): gradient {grad[k, 14]:10.2f}  central FD "
              f"{fd.sum():10.2f} +- {err:.2f}  gradient/FD-1 {grad[k, 14] / fd.sum() - 1:+.3f}  "
              f"paired difference {d.sum():.2f} +- {derr:.2f}  {'agrees' if ok else 'DIFFERS'}",
              flush=True)


if __name__ == "__main__":
    main()
