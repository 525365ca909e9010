#!/usr/bin/env python3
"""Optimises the fields of the SHiP-like shield's magnets (the B column of
warm_baseline) with Adam on fastmu.ship.objective's smooth window count and
its pathwise gradient, then checks the result with a plain forward transport
of fresh muons (hard window count before and after).

    PYTHONPATH=build/python python3 examples/optimise_ship.py --n-train 20000 \
        --iterations 30 --out optimise_ship.png

With PyTorch installed (--torch) the parameters are a tensor in torch.optim.Adam
(fastmu.ship.torch_objective); without it a few lines of NumPy Adam do the same.
|B| is kept within --b-max (iron saturates near 2 T).
"""

import argparse
import time

import numpy as np

import fastmu


def adam_numpy(x, grad_fn, iterations, lr, b_max, log):
    m = np.zeros_like(x)
    v = np.zeros_like(x)
    b1, b2, eps = 0.9, 0.999, 1e-8
    for t in range(1, iterations + 1):
        value, g = grad_fn(x)
        log(t - 1, x, value)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        mh = m / (1 - b1**t)
        vh = v / (1 - b2**t)
        x = np.clip(x - lr * mh / (np.sqrt(vh) + eps), -b_max, b_max)
    value, _ = grad_fn(x)
    log(iterations, x, value)
    return x


def adam_torch(x, muons, options, iterations, lr, b_max, log, base):
    import torch
    b = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.Adam([b], lr=lr)
    for t in range(iterations + 1):
        p = torch.tensor(base)
        p[:, 14] = 0
        full = p + torch.nn.functional.pad(b.unsqueeze(1), (14, 0))
        value = fastmu.ship.torch_objective(full, muons, **options)
        log(t, b.detach().numpy().copy(), float(value))
        if t == iterations:
            break
        opt.zero_grad()
        value.backward()
        opt.step()
        with torch.no_grad():
            b.clamp_(-b_max, b_max)
    return b.detach().numpy().copy()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n-train", type=int, default=20000, help="muons of the objective")
    ap.add_argument("--n-test", type=int, default=100000, help="fresh muons of the check")
    ap.add_argument("--iterations", type=int, default=30)
    ap.add_argument("--lr", type=float, default=0.05, help="Adam step [T]")
    ap.add_argument("--smoothing", type=float, default=0.1, help="sigmoid width [m]")
    ap.add_argument("--b-max", type=float, default=2.2, help="bound on |B| [T]")
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--torch", action="store_true", help="torch.optim.Adam (needs PyTorch)")
    ap.add_argument("--out", default="optimise_ship.png", help="plot of the objective")
    args = ap.parse_args()

    base = fastmu.ship.parameters("warm_baseline")
    train = fastmu.ship.muons(args.n_train, seed=1)
    options = dict(seed=1, smoothing=args.smoothing, backend=args.backend, threads=args.threads)
    history = []

    def log(t, b, value):
        history.append((t, value))
        print(f"iteration {t:3d}  objective {value:10.3f}  B = "
              + " ".join(f"{x:+.3f}" for x in b), flush=True)

    def value_and_grad(b):
        p = base.copy()
        p[:, 14] = b
        value, grad = fastmu.ship.objective(train, p, **options)
        return value, grad[:, 14]

    # Tables are built into the cache by the first call (once) or loaded:
    # timed apart from the optimisation.
    t_tables = time.time()
    fastmu.ship.objective(train[:100], base, **dict(options, gradient=False))
    print(f"tables (built or loaded from the cache) and a first call: "
          f"{time.time() - t_tables:.1f} s", flush=True)
    t0 = time.time()
    if args.torch:
        best = adam_torch(base[:, 14].copy(), train, options, args.iterations, args.lr,
                          args.b_max, log, base)
    else:
        best = adam_numpy(base[:, 14].copy(), value_and_grad, args.iterations, args.lr,
                          args.b_max, log)
    print(f"optimisation: {time.time() - t0:.1f} s for {args.iterations} iterations of "
          f"{args.n_train} muons (tables excluded)")

    # The check: a plain forward transport of fresh muons (another seed).
    test = fastmu.ship.muons(args.n_test, seed=2)
    optimum = base.copy()
    optimum[:, 14] = best
    counts = {}
    for name, p in (("warm_baseline", base), ("optimised", optimum)):
        out = fastmu.transport(test, fastmu.ship.geometry(p), seed=2, backend=args.backend,
                               threads=args.threads)
        counts[name] = len(out["status"])
        print(f"forward check, {args.n_test} fresh muons (seed 2): {name}: "
              f"{counts[name]} in the window")
    print("B before: " + " ".join(f"{x:+.3f}" for x in base[:, 14]))
    print("B after:  " + " ".join(f"{x:+.3f}" for x in best))

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not found: no plot")
        return
    it, val = zip(*history)
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(it, val, "o-")
    ax.set_xlabel("Adam iteration")
    ax.set_ylabel(f"smoothed window count ({args.n_train} muons)")
    ax.set_title(f"SHiP-like shield fields: hard count {counts['warm_baseline']} -> "
                 f"{counts['optimised']} of {args.n_test} fresh muons", fontsize=9)
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
