#!/usr/bin/env python3
"""Optimises every parameter of the SHiP-like shield (the 14 dimensions and
the field of each magnet, within bounds) from warm_baseline on the shield's
loss (fastmu.ship.loss: smoothed window count times the cost factor, with the
length and cavern terms), once with its gradient (Adam) and once with a
derivative-free optimiser (a small CMA-ES, written here) given the same
number of muon transports; checks both optima on fresh muons and plots both
curves in one PNG.

    PYTHONPATH=build/python python3 examples/optimise_ship_shield.py

The defaults run in about a minute on two CPU cores. On a GPU, e.g.
    --backend cuda --n-train 200000 --n-test 1000000
(a gradient iteration is a transport of the n-train muons and the adjoint's
backward pass, counted as two transports: the CMA-ES gets two evaluations
of n-train muons for each).
"""

import argparse
import time

import numpy as np

import fastmu

# Columns: zgap, dZ, dXIn, dXOut, dYIn, dYOut, gapIn, gapOut, xYokeIn,
# xYokeOut, dYYokeIn, dYYokeOut, midGapIn, midGapOut [cm], B [T].
LOWER = np.array([1, 20, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 0, 0, 0.5])
UPPER = np.array([50, 350, 150, 150, 150, 150, 80, 80, 150, 150, 150, 150, 50, 50, 1.9])
WALL_MARGIN = 2.0  # cm kept from the cavern's nearest walls


def bounds(base):
    """Per-parameter bounds: the table above, the first magnet's zgap fixed
    (the muons start on its face), B keeping its sign (iron saturates near
    1.9 T; the dilution rule depends on the sign)."""
    lo = np.tile(LOWER, (base.shape[0], 1))
    hi = np.tile(UPPER, (base.shape[0], 1))
    neg = base[:, 14] < 0
    lo[neg, 14], hi[neg, 14] = -UPPER[14], -LOWER[14]
    lo[0, 0] = hi[0, 0] = base[0, 0]
    return lo, hi


def keep_in_tunnel(p):
    """Shrinks the yokes (then the cores) of a magnet whose outer corners come
    within WALL_MARGIN of the tunnel's nearest walls (its upstream section,
    the narrower: docs/ship-like-muon-shield.md), so that every design can be
    built (a block in the concrete would overlap it)."""
    p = p.copy()
    x_wall, y_wall = 357.0 - WALL_MARGIN, 170.0 - WALL_MARGIN
    for f in (0, 1):  # In, Out
        over = p[:, 12 + f] + p[:, 2 + f] + p[:, 6 + f] + p[:, 8 + f] - x_wall
        cut = np.clip(over, 0, np.maximum(p[:, 8 + f] - LOWER[8 + f], 0))
        p[:, 8 + f] -= cut
        p[:, 2 + f] -= np.maximum(over - cut, 0)
        over = p[:, 4 + f] + p[:, 10 + f] - y_wall
        cut = np.clip(over, 0, np.maximum(p[:, 10 + f] - LOWER[10 + f], 0))
        p[:, 10 + f] -= cut
        p[:, 4 + f] -= np.maximum(over - cut, 0)
    return p


class Problem:
    """The loss of designs x in [0, 1]^n (the bounds' unit box), counting
    muon transports. A gradient call counts two: the adjoint's replay and
    backward pass cost less than one more transport (1.8x the forward
    transport on one H200, 1.2x on the CPU: BENCHMARKS.md "Python")."""

    def __init__(self, base, muons, options):
        self.base, self.muons, self.options = base, muons, options
        self.lo, self.hi = bounds(base)
        self.free = self.hi > self.lo
        self.transports = 0

    def design(self, x):
        p = self.base.copy()
        p[self.free] = self.lo[self.free] + np.clip(x, 0, 1) * (self.hi - self.lo)[self.free]
        return keep_in_tunnel(p)

    def x0(self):
        return ((self.base - self.lo) / np.where(self.free, self.hi - self.lo, 1))[self.free]

    def value(self, x):
        self.transports += len(self.muons)
        p = self.design(x)
        return fastmu.ship.loss(self.muons, p, columns="fields", **self.options)[0]

    def value_and_grad(self, x):
        p = self.design(x)
        value, grad = fastmu.ship.loss(self.muons, p, **self.options)
        self.transports += 2 * len(self.muons)
        return value, (grad * (self.hi - self.lo))[self.free]


def adam(problem, iterations, lr, log):
    x = problem.x0()
    m, v = np.zeros_like(x), np.zeros_like(x)
    b1, b2 = 0.9, 0.999
    best = (np.inf, x)
    for t in range(1, iterations + 1):
        value, g = problem.value_and_grad(x)
        best = min(best, (value, x.copy()), key=lambda b: b[0])
        log("gradient", problem.transports, value)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        x = np.clip(x - lr * (m / (1 - b1**t)) / (np.sqrt(v / (1 - b2**t)) + 1e-12), 0, 1)
    return best[1]


def cma_es(problem, budget, sigma, seed, log):
    """A (mu/mu_w, lambda)-CMA-ES (Hansen, "The CMA Evolution Strategy: A
    Tutorial", arXiv:1604.00772, default constants), in the unit box
    (samples clipped to it), until `budget` muon transports are spent."""
    rng = np.random.default_rng(seed)
    n = len(problem.x0())
    lam = 4 + int(3 * np.log(n))
    mu = lam // 2
    w = np.log(mu + 0.5) - np.log(np.arange(1, mu + 1))
    w /= w.sum()
    mueff = 1 / np.sum(w**2)
    cc, cs = (4 + mueff / n) / (n + 4 + 2 * mueff / n), (mueff + 2) / (n + mueff + 5)
    c1 = 2 / ((n + 1.3) ** 2 + mueff)
    cmu = min(1 - c1, 2 * (mueff - 2 + 1 / mueff) / ((n + 2) ** 2 + mueff))
    damps = 1 + 2 * max(0, np.sqrt((mueff - 1) / (n + 1)) - 1) + cs
    chi_n = np.sqrt(n) * (1 - 1 / (4 * n) + 1 / (21 * n * n))
    mean, C = problem.x0(), np.eye(n)
    pc, ps = np.zeros(n), np.zeros(n)
    best = (problem.value(mean), mean.copy())
    log("CMA-ES", problem.transports, best[0])
    g = 0
    while problem.transports + lam * len(problem.muons) <= budget:
        g += 1
        vals, vecs = np.linalg.eigh(C)
        B, D = vecs, np.sqrt(np.maximum(vals, 1e-20))
        z = rng.standard_normal((lam, n))
        y = (z * D) @ B.T
        xs = np.clip(mean + sigma * y, 0, 1)
        f = np.array([problem.value(x) for x in xs])
        order = np.argsort(f)
        if f[order[0]] < best[0]:
            best = (f[order[0]], xs[order[0]].copy())
        log("CMA-ES", problem.transports, f[order[0]])
        y_sel = (xs[order[:mu]] - mean) / sigma  # the steps taken (after clipping)
        yw = w @ y_sel
        mean = mean + sigma * yw
        inv_sqrt = B @ np.diag(1 / D) @ B.T
        ps = (1 - cs) * ps + np.sqrt(cs * (2 - cs) * mueff) * inv_sqrt @ yw
        hsig = np.linalg.norm(ps) / np.sqrt(1 - (1 - cs) ** (2 * g)) / chi_n < 1.4 + 2 / (n + 1)
        pc = (1 - cc) * pc + hsig * np.sqrt(cc * (2 - cc) * mueff) * yw
        C = ((1 - c1 - cmu) * C + c1 * (np.outer(pc, pc) + (1 - hsig) * cc * (2 - cc) * C)
             + cmu * (y_sel.T * w) @ y_sel)
        sigma *= np.exp((cs / damps) * (np.linalg.norm(ps) / chi_n - 1))
    return best[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n-train", type=int, default=2000, help="muons of the loss")
    ap.add_argument("--n-test", type=int, default=20000, help="fresh muons of the check")
    ap.add_argument("--iterations", type=int, default=60, help="gradient (Adam) iterations")
    ap.add_argument("--lr", type=float, default=0.01, help="Adam step in the unit box")
    ap.add_argument("--sigma", type=float, default=0.1, help="CMA-ES step in the unit box")
    ap.add_argument("--smoothing", type=float, default=0.1, help="sigmoid width [m]")
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--out", default="optimise_ship_shield.png")
    args = ap.parse_args()

    base = fastmu.ship.parameters("warm_baseline")
    train = fastmu.ship.muons(args.n_train, seed=1)
    options = dict(seed=1, smoothing=args.smoothing, backend=args.backend, threads=args.threads)
    curves = {"gradient": [], "CMA-ES": []}

    def log(name, transports, value):
        curves[name].append((transports, value))
        print(f"{name:8s} {transports:10d} muon transports  loss {value:10.3f}", flush=True)

    # The shield's tables are built into the table cache by the first call
    # (minutes on CPU cores, once) and loaded after: timed apart, so that the
    # two optimisers' times are their own.
    t_tables = time.time()
    fastmu.ship.loss(train[:100], base, columns="fields", **options)
    print(f"tables (built or loaded from the cache) and a first call: "
          f"{time.time() - t_tables:.1f} s", flush=True)
    t0 = time.time()
    grad_problem = Problem(base, train, options)
    x_grad = adam(grad_problem, args.iterations, args.lr, log)
    budget = grad_problem.transports
    t1 = time.time()
    cma_problem = Problem(base, train, options)
    x_cma = cma_es(cma_problem, budget, args.sigma, 3, log)
    t2 = time.time()
    print(f"gradient: {t1 - t0:.1f} s, CMA-ES: {t2 - t1:.1f} s, {budget} muon transports each "
          "(tables excluded)")

    test = fastmu.ship.muons(args.n_test, seed=2)
    check = dict(options, seed=2, columns="fields")
    results = {}
    for name, p in (("warm_baseline", base), ("gradient", grad_problem.design(x_grad)),
                    ("CMA-ES", cma_problem.design(x_cma))):
        value = fastmu.ship.loss(test, p, **check)[0]
        hits = fastmu.ship.objective(test, p, seed=2, smoothing=0.0, gradient=False,
                                     backend=args.backend, threads=args.threads)
        results[name] = (value, hits)
        print(f"fresh muons ({args.n_test}, seed 2): {name:13s} loss {value:10.2f}, "
              f"{hits:.0f} in the window, cost {fastmu.ship.cost(p)[0]:.0f} t", flush=True)
    print(f"loss CMA-ES / gradient on fresh muons: "
          f"{results['CMA-ES'][0] / results['gradient'][0]:.2f}")
    plot(curves, results, args)


def plot(curves, results, args):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6.5, 4))
    for name, style in (("gradient", "o-"), ("CMA-ES", ".-")):
        n, v = zip(*curves[name])
        best = np.minimum.accumulate(v)
        ax.plot(n, v, style, alpha=0.35, label=f"{name}: loss of each design")
        ax.plot(n, best, "-", lw=2, color=ax.lines[-1].get_color(), label=f"{name}: best so far")
    ax.set_yscale("log")
    ax.set_xlabel("muon transports (a gradient call counts two)")
    ax.set_ylabel(f"loss ({args.n_train} training muons)")
    ax.set_title("SHiP-like shield, all parameters from warm_baseline\n"
                 f"loss on {args.n_test} fresh muons: gradient {results['gradient'][0]:.0f}, "
                 f"CMA-ES {results['CMA-ES'][0]:.0f}, baseline {results['warm_baseline'][0]:.0f}",
                 fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
