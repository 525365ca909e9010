#!/usr/bin/env python3
"""Python checks of fastmu ON the GPU machine (PYTHONPATH=.device/python,
the extension built there by `bash tools/device/bench.sh python`, which runs
this), one section each, results as lines on stdout:

  repeat    the fixed cost of a repeated fastmu.transport call on the GPU
            (one muon, then 10^3 and 10^6) after the first call built the
            parameters;
  objective fastmu.ship.objective with host muons against the same muons as
            a CUDA torch tensor (kept on the GPU): value, gradient, time per
            call;
  torch     the torch.autograd.Function wrapper: params a tensor with
            requires_grad, backward() against the objective's gradient, one
            torch.optim.Adam step;
  loop      the time per call of a loop of fastmu.transport calls on 10^6
            iron-block muons, rows at the plane and all rows.

    PYTHONPATH=.device/python python3 tools/device/python_checks.py --n 1000000 [--sections loop]
"""

import argparse
import time

import numpy as np

import fastmu
from fastmu import _fastmu


def timed(fn, repeat):
    times = []
    out = None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return out, times


def ms(times):
    return ", ".join(f"{1e3 * t:.2f}" for t in times)


def repeat_section():
    geo = fastmu.examples.iron_block_geometry()
    for n in (1, 1000, 1000000):
        mu = fastmu.examples.iron_block_muons(n)
        fastmu.transport(mu, geo, backend="cuda", all=True)  # parameters built / resident
        _, t = timed(lambda: fastmu.transport(mu, geo, backend="cuda", all=True), 5)
        print(f"repeat: fastmu.transport, iron block, {n} muons, host arrays, calls 2-6 [ms]: "
              f"{ms(t)}", flush=True)
        if n == 1:
            # The same on the CPU backend; what the GPU calls rebuilt or
            # uploaded again (nothing: a dict geometry is reused by content).
            fastmu.transport(mu, geo, backend="cpu", all=True)
            _, tc = timed(lambda: fastmu.transport(mu, geo, backend="cpu", all=True), 5)
            print(f"repeat: the same on the CPU backend [ms]: {ms(tc)}", flush=True)
            b0, u0 = _fastmu._transport_params_builds(), _fastmu._gpu_uploads()
            timed(lambda: fastmu.transport(mu, geo, backend="cuda", all=True), 5)
            print(f"repeat: 5 more GPU calls built the parameters "
                  f"{_fastmu._transport_params_builds() - b0} times and uploaded them "
                  f"{_fastmu._gpu_uploads() - u0} times", flush=True)


def loop_section():
    """What a loop of fastmu.transport calls pays per call for 10^6
    iron-block muons from a host array: rows at the plane (the default) and
    every row (all=True), GPU and CPU, after two calls that built and
    uploaded the parameters."""
    geo = fastmu.examples.iron_block_geometry()
    mu = fastmu.examples.iron_block_muons(1000000)
    for backend, n in (("cuda", 1000000), ("cpu", 100000)):
        for every in (False, True):
            m = mu[:n]
            for _ in range(2):
                out = fastmu.transport(m, geo, backend=backend, all=every)
            _, t = timed(lambda: fastmu.transport(m, geo, backend=backend, all=every), 5)
            print(f"loop: fastmu.transport, iron block, {n} muons, {backend}, all={every}, "
                  f"{len(out['id'])} rows back, calls 3-7 [ms]: {ms(t)}", flush=True)


def objective_section(n):
    import torch
    p = fastmu.ship.parameters("warm_baseline")
    mu = fastmu.ship.muons(n, seed=1)
    dev = torch.as_tensor(mu, device="cuda")
    opt = dict(seed=1, smoothing=0.05, backend="cuda")
    fastmu.ship.objective(mu[:1000], p, **opt)  # tables and geometry
    (vh, gh), th = timed(lambda: fastmu.ship.objective(mu, p, **opt), 3)
    (vd, gd), td = timed(lambda: fastmu.ship.objective(dev, p, **opt), 3)
    _, tv = timed(lambda: fastmu.ship.objective(dev, p, gradient=False, **opt), 3)
    print(f"objective: {n} SHiP muons, value+gradient per call [ms]: host array {ms(th)}; "
          f"CUDA tensor {ms(td)}; value only (CUDA tensor) {ms(tv)}", flush=True)
    print(f"objective: value host {vh:.6f} / device {vd:.6f}; max |grad difference| "
          f"{np.nanmax(np.abs(gh[:, 14] - gd[:, 14])):.3g} of max |grad| "
          f"{np.nanmax(np.abs(gh[:, 14])):.3g}", flush=True)
    print("objective: grad[:, 14] = " + " ".join(f"{g:.3f}" for g in gh[:, 14]), flush=True)
    return mu, dev, gh


def torch_section(mu, dev, g_ref):
    import torch
    p0 = fastmu.ship.parameters("warm_baseline")
    params = torch.tensor(p0, dtype=torch.float64, device="cuda", requires_grad=True)
    value = fastmu.ship.torch_objective(params, dev, seed=1, smoothing=0.05, backend="cuda")
    value.backward()
    g = params.grad.detach().cpu().numpy()
    print(f"torch: value {float(value):.6f} ({value.device}, requires_grad "
          f"{value.requires_grad}); grad[:, 14] max |difference| to objective() "
          f"{np.max(np.abs(g[:, 14] - g_ref[:, 14])):.3g}; grad[:, :14] all zero "
          f"{bool(np.all(g[:, :14] == 0))}", flush=True)
    mask = torch.zeros_like(params)
    mask[:, 14] = 1
    adam = torch.optim.Adam([params], lr=0.02)
    adam.zero_grad()
    loss = -fastmu.ship.torch_objective(params, dev, seed=1, smoothing=0.05, backend="cuda")
    loss.backward()
    params.grad *= mask
    adam.step()
    moved = (params.detach().cpu().numpy() - p0)[:, 14]
    print("torch: one Adam step (lr 0.02, maximising the objective) moved B by " +
          " ".join(f"{d:+.4f}" for d in moved) + " T", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1000000, help="SHiP muons for the objective")
    ap.add_argument("--sections", default="repeat,objective,torch",
                    help="comma-separated: repeat, loop, objective (torch needs it)")
    args = ap.parse_args()
    sections = args.sections.split(",")
    print(f"fastmu {fastmu.__version__}, cuda_available {fastmu.cuda_available()}", flush=True)
    if "repeat" in sections:
        repeat_section()
    if "loop" in sections:
        loop_section()
    if "objective" in sections:
        mu, dev, g = objective_section(args.n)
        if "torch" in sections:
            torch_section(mu, dev, g)


if __name__ == "__main__":
    main()
