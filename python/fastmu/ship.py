"""The SHiP-like active muon shield (docs/ship-like-muon-shield.md) from Python.

    params = fastmu.ship.parameters("warm_baseline")   # (n_magnets, 15) float64: cm, T
    params[:, 14] *= 1.1                               # a design to try
    geo = fastmu.ship.geometry(params)                 # a fastmu.Geometry
    out = fastmu.transport(fastmu.ship.muons(100_000, seed=1), geo)

Each row is one magnet: [zgap, dZ, dXIn, dXOut, dYIn, dYOut, gapIn, gapOut,
xYokeIn, xYokeOut, dYYokeIn, dYYokeOut, midGapIn, midGapOut] in cm, then B in
tesla; the geometry (eight ARB8 blocks per magnet, concrete cavern, sensitive
plane at z = 82 m with window |x| < 2 m, |y| < 3 m) follows the spec.
"""

import json

import numpy as np

from . import _fastmu
from ._checks import MAX_STEP, TOP_MOMENTUM, integer, path, real
from ._fastmu import Error, Geometry
from .transport import _Recent, is_device_array

COLUMNS = ("zgap", "dZ", "dXIn", "dXOut", "dYIn", "dYOut", "gapIn", "gapOut",
           "xYokeIn", "xYokeOut", "dYYokeIn", "dYYokeOut", "midGapIn", "midGapOut", "B")
PLANE_Z = 82.0             # m
WINDOW = (2.0, 3.0)        # half-widths in x and y, m


def parameter_sets():
    """Names of the spec's parameter sets."""
    return list(_fastmu._ship_parameter_sets())


def parameters(name="warm_baseline"):
    """The (n_magnets, 15) float64 parameter table of a named set (a new array)."""
    return np.array(_fastmu._ship_parameter_set(name), dtype=np.float64)


def geometry_dict(params, world_material="G4_AIR"):
    """The geometry document (interfaces.md JSON layout, as a dict) of a parameter table."""
    return json.loads(_fastmu._ship_geometry_json(np.asarray(params, dtype=np.float64),
                                                  world_material))


def geometry(params, world_material="G4_AIR"):
    """A fastmu.Geometry of the shield built from `params` ((n_magnets, 15), cm and T);
    `world_material` fills the space outside the blocks and the concrete
    ("G4_AIR" or "vacuum")."""
    return Geometry.from_dict(geometry_dict(params, world_material))


def muons(n, seed=1):
    """The spec's synthetic flux: n muons, mu+ and mu- alternately, from the origin,
    |p| log-uniform in [1, 350] GeV/c, pt exponential with mean 0.6 GeV/c; an (n, 8)
    float32 array px,py,pz,x,y,z,pdg,weight (the muons of `fastmu run --example ship`)."""
    return _fastmu._ship_muons(integer("n", n), integer("seed", seed))


# Geometries of the shapes (every column but B) seen last, by world material:
# a design that changes only fields reuses its geometry, hence (fastmu's
# resident parameters) its grid and views; the tables stay loaded in the
# process-wide table cache.
_SHAPES = _Recent(4)


def _shape_geometry(params, world_material):
    key = (params.shape, params[:, :14].tobytes(), world_material)
    return _SHAPES.get(key, lambda: geometry(params, world_material))


def _gradient_passes(columns, shape, method="adjoint"):
    """The (magnet, column) pairs of each pass of objective(): all in one pass
    with the adjoint; with forward tangents at most 16 per pass
    (kMaxFieldParameters), a magnet's columns in one pass, magnets in order
    (a pass's tangents stay zero, and cost nothing, until the muons reach its
    first magnet)."""
    n = shape[0]
    if isinstance(columns, str):
        if columns not in ("all", "fields"):
            raise Error(f"objective: columns must be 'all', 'fields' or a boolean (n_magnets, 15) "
                        f"mask, got '{columns}'")
        mask = np.zeros(shape, bool)
        mask[:, 14] = True
        if columns == "all":
            mask[:] = True
    else:
        mask = np.asarray(columns, dtype=bool)
        if mask.shape != shape:
            raise Error(f"objective: a columns mask must have shape {shape}, got {mask.shape}")
    if method == "adjoint":
        pairs = [(m, c) for m in range(n) for c in range(15) if mask[m, c]]
        return [pairs] if pairs else []
    passes, current = [], []
    for m in range(n):
        group = [(m, c) for c in range(15) if mask[m, c]]
        if len(current) + len(group) > 16:
            passes.append(current)
            current = []
        current = current + group
    if current:
        passes.append(current)
    return passes


def objective(muons, params, seed=1, smoothing=0.05, gradient=True, backend="auto",
              world_material="G4_AIR", tables=None, cache=True, step=0.02, p_kill=0.18,
              max_steps=100000, threads=0, first_id=0, boundary_softening=0.0,
              max_tangent=100.0, details=False, long_steps=3, columns="all", method="adjoint"):
    """The smooth objective of a design and its gradient.

    value = sum over muons crossing the sensitive plane (z = 82 m) of
    weight * sigmoid(d / smoothing), d = min(x + 2, 2 - x, y + 3, 3 - y) [m]
    the signed distance to the window's nearest edge (> 0 inside); with
    smoothing = 0 it is the hard count of muons inside the window, the
    forward transport's status-0 count (see below). The gradient is pathwise
    (the derivative of each muon's path with the forward transport's random
    numbers, per (seed, muon id)) plus the terms of moving faces: d value /
    d params, in 1/cm for the dimension columns and 1/T for B. What it leaves out
    (docs/python-and-gradients.md "Gradients"): changes of volume, material,
    momentum bin or step count, and muons that start or stop touching a
    block as its edges move.
    columns: which gradient columns to compute: "all" (the default), "fields"
      (the B column only: one pass) or a boolean (n_magnets, 15) mask; the
      others are NaN.
    method: "adjoint" (the default: a forward pass, then a backward pass over
      the muons whose window term has a slope, for every column at once) or
      "tangent" (forward-mode tangents, at most 16 columns per pass: one
      pass per magnet for "all"). Both take the same derivative.

    muons: (N, 8) array as fastmu.transport (e.g. fastmu.ship.muons(n)), or a
      CUDA tensor (torch or CuPy) of that shape: the muons then stay on the GPU
      between calls (only the sums come back), the pass runs on the tensor's
      device and current stream.
    params: (n_magnets, 15) float64 (cm, T), at most 16 magnets.
    backend: 'auto', 'cpu' or 'cuda' (one GPU).
    first_id: the id of row 0 (a slice of a larger set keeps its random numbers).
    boundary_softening: c in the factor (n.u) / ((n.u)^2 + c^2) that replaces
      1 / (n.u) where a step ends on a face crossed at a grazing angle
      (FieldTangents.hh; 0, the default, is the exact pathwise derivative).
      Keep it well below the angles at which fast muons cross the cores'
      sides (a few mrad): 0.01 made the first magnets' gradients 13-34 % too
      large.
    max_tangent [m/T]: a muon whose crossing point moves by more than this per
      tesla (a chaotic path) adds nothing to that magnet's gradient (bounds
      the variance: 99.9 % of the SHiP muons move by less than 10 m/T).
    long_steps: as fastmu.transport (the long steps of fast muons; 0: none).
    Returns value (float) when gradient=False, else (value, grad) with grad
    of params' shape; with details=True a third item, a dict: hard (the hard
    count), seconds, steps (of all passes), passes, muon_value, muon_gradient
    (N, n_magnets, 15; NaN where not computed), status, muon_steps.

    Repeated calls with new B values on the same shapes reuse the geometry,
    its grid and the loaded tables (on the GPU: resident in device memory,
    with the muons' device buffers). Each muon runs the per-muon step (the
    schedule of the CUDA backend); the CPU forward transport runs the same
    steps in SIMD lanes, equal up to float rounding, so the hard count may
    differ from fastmu.transport's by a rare muon.
    """
    try:
        params = np.array(params, dtype=np.float64)
    except (TypeError, ValueError):
        raise Error("params: not an array of numbers of shape (n_magnets, 15)") from None
    if params.ndim != 2 or params.shape[1] != 15:
        raise Error(f"ship parameters: expected an array of shape (n_magnets, 15), got "
                    f"{params.shape}")
    if not np.all(np.isfinite(params)):
        raise Error("params: every entry must be a finite number (cm and T)")
    if backend not in ("auto", "cpu", "cuda"):
        raise Error(f"backend: '{backend}' is not one of auto, cpu, cuda")
    if method not in ("adjoint", "tangent"):
        raise Error(f"objective: method must be 'adjoint' or 'tangent', got '{method}'")
    from .transport import _normalise_tables
    magnet, field, dfield = _fastmu._ship_field_parameters(params)
    geo = _shape_geometry(params, world_material)
    if cache is not True and cache is not False and cache is not None:
        cache = path("cache", cache)
    if isinstance(muons, str) or hasattr(muons, "__fspath__"):
        muons = _fastmu.read_muons(path("muons", muons))
    kw = dict(step=real("step", step, 0.0, MAX_STEP), seed=integer("seed", seed),
              p_kill=real("p_kill", p_kill, 0.0, TOP_MOMENTUM),
              max_steps=integer("max_steps", max_steps), smoothing=real("smoothing", smoothing, 0.0),
              plane=0, gradient=bool(gradient), threads=integer("threads", threads),
              first_id=integer("first_id", first_id), per_muon=bool(details),
              boundary_softening=real("boundary_softening", boundary_softening, 0.0),
              max_tangent=real("max_tangent", max_tangent, 0.0),
              long_steps=integer("long_steps", long_steps), method=method)
    tables = _normalise_tables(tables)
    if not is_device_array(muons):
        muons = np.asarray(muons)
        if muons.dtype != np.float32 and muons.dtype != np.float64:
            muons = muons.astype(np.float64)

    def run(n_params, extra):
        args = (geo, tables, cache, backend, n_params, magnet, dfield, field)
        if is_device_array(muons):
            return _device_objective(muons, backend, args, dict(kw, **extra))
        return _fastmu._window_objective(muons, *args, **kw, **extra)

    if not gradient:
        r = run(params.shape[0], {})
        return (float(r["value"]), None, r) if details else float(r["value"])
    grad = np.full(params.shape, np.nan)
    info = None
    for pairs in _gradient_passes(columns, params.shape, method):
        r = run(len(pairs), _pass_tables(params, pairs))
        m, c = np.array(pairs).T
        grad[m, c] = r["gradient"]
        info = _merge_pass(info, r, pairs, params.shape, details)
    value = float(info["value"])
    return (value, grad, info) if details else (value, grad)


def _pass_tables(params, pairs):
    """The dense parameter tables of one pass (dfield, and dshape unless the
    pass has only B columns, which move no face)."""
    dfield, dshape = _fastmu._ship_parameter_tangents(params, np.asarray(pairs, np.int32))
    only_fields = all(c == 14 for _, c in pairs)
    return dict(dfield=dfield, dshape=None if only_fields else dshape)


def _merge_pass(info, r, pairs, shape, details):
    """The result of one more pass: the first pass's value, counts and
    per-muon arrays; steps and seconds summed; this pass's gradient columns."""
    if info is None:
        info = dict(r)
        info["passes"] = 0
        info["steps"] = info["seconds"] = 0
        if details:
            n = len(r["muon_value"])
            info["muon_gradient"] = np.full((n,) + tuple(shape), np.nan)
    info["passes"] += 1
    info["steps"] += r["steps"]
    info["seconds"] += r["seconds"]
    if details:
        for k, (m, c) in enumerate(pairs):
            info["muon_gradient"][:, m, c] = r["muon_gradient"][:, k]
    return info


def _device_objective(muons, backend, args, kw):
    """objective() of muons in GPU memory (a torch or CuPy CUDA array)."""
    if backend == "cpu":
        raise Error("objective: backend='cpu' with CUDA device arrays: pass a host array or "
                    "use backend='cuda' or 'auto'")
    if not _fastmu.cuda_available():
        raise Error("objective: CUDA device arrays given, but this fastmu has no CUDA backend "
                    "or sees no GPU")
    if len(muons.shape) != 2 or muons.shape[1] not in (7, 8):
        raise Error(f"objective: muons must be an (N, 8) array (px,py,pz,x,y,z,pdg,weight), "
                    f"got shape {tuple(muons.shape)}")
    n, ncol = int(muons.shape[0]), int(muons.shape[1])
    lib = type(muons).__module__.split(".")[0]
    if lib == "torch":
        import torch
        rows = muons.detach().to(torch.float32).contiguous()
        with torch.cuda.device(rows.device):
            stream = torch.cuda.current_stream(rows.device).cuda_stream
            return _fastmu._window_objective(None, *args, device_rows=rows.data_ptr(),
                                             device_n=n, device_ncol=ncol, stream=stream, **kw)
    if lib == "cupy":
        import cupy
        with cupy.cuda.Device(muons.device.id):
            rows = cupy.ascontiguousarray(muons, dtype=cupy.float32)
            return _fastmu._window_objective(None, *args, device_rows=rows.data.ptr, device_n=n,
                                             device_ncol=ncol,
                                             stream=cupy.cuda.get_current_stream().ptr, **kw)
    raise Error("objective: CUDA device arrays are supported from torch and CuPy, got "
                f"{type(muons).__module__}.{type(muons).__name__}")


_TORCH_FUNCTION = None


def objective_function():
    """The torch.autograd.Function of objective(): apply(params, muons, options)
    with params a (n_magnets, 15) tensor (any float dtype, CPU or GPU) and
    options a dict of objective()'s keyword arguments; returns a 0-d tensor
    whose backward gives d value / d params (columns not computed, see
    `columns`, get 0, not NaN, so that an optimiser can take the whole
    tensor). Imports torch (only here)."""
    global _TORCH_FUNCTION
    if _TORCH_FUNCTION is not None:
        return _TORCH_FUNCTION
    import torch

    class ShipObjective(torch.autograd.Function):
        @staticmethod
        def forward(ctx, params, muons, options):
            p = params.detach().to("cpu", torch.float64).numpy()
            value, grad = objective(muons, p, gradient=True, **(options or {}))
            g = torch.as_tensor(np.nan_to_num(grad, nan=0.0), dtype=params.dtype,
                                device=params.device)
            ctx.save_for_backward(g)
            return torch.tensor(value, dtype=params.dtype, device=params.device)

        @staticmethod
        def backward(ctx, grad_output):
            (g,) = ctx.saved_tensors
            return grad_output * g, None, None

    _TORCH_FUNCTION = ShipObjective
    return ShipObjective


def torch_objective(params, muons, **options):
    """objective() of a torch tensor `params`, differentiable (objective_function())."""
    return objective_function().apply(params, muons, options)


__all__ = ["COLUMNS", "PLANE_Z", "WINDOW", "parameter_sets", "parameters", "geometry_dict",
           "geometry", "muons", "objective", "objective_function", "torch_objective"]


from .shipcost import (cost, iron_mass, coil_cost, penalties, loss, loss_function,  # noqa: E402
                       torch_loss)

__all__ += ["cost", "iron_mass", "coil_cost", "penalties", "loss", "loss_function", "torch_loss"]
