"""The fast transport: muons through a geometry by histogram sampling.

    muons = np.zeros((1000, 8), np.float32)          # px,py,pz,x,y,z,pdg,weight
    muons[:, 2] = 50; muons[:, 6] = 13; muons[:, 7] = 1
    out = fastmu.transport(muons, geo, tables=[fe_table], all=True)
    out["status"], out["pz"], out["x"]

Host arrays (NumPy or anything np.asarray accepts) come back as NumPy arrays.
CUDA device arrays (a torch.Tensor on 'cuda', a cupy.ndarray) are accepted
and come back as arrays of the same library on the same device, without a
copy through host memory (see _transport_device).
"""

import collections
import json
import math
import os

import numpy as np

from . import _fastmu
from ._checks import MAX_STEP, TOP_MOMENTUM, integer, path, real, text
from ._checks import path as _file_name
from ._fastmu import Error

# interfaces.md "Transport output".
STATUS = {
    0: "at_plane",        # reached a sensitive plane inside its window
    1: "stopped",         # |p| fell below the kill momentum
    2: "left_world",
    3: "step_limit",
    4: "outside_window",  # crossed a sensitive plane outside its window
    5: "above_tables",    # |p| above the tables' top (above_tables="stop"): not transported
    6: "decayed",         # decayed in flight (decay=True): the state where it decayed
}

COLUMNS = ("id", "px", "py", "pz", "x", "y", "z", "pdg", "weight", "status", "plane")

# DLPack device types in CUDA memory (kDLCUDA, kDLCUDAHost, kDLCUDAManaged).
_DLPACK_CUDA = (2, 3, 13)


def is_device_array(obj):
    """Whether `obj` lives in CUDA memory (__cuda_array_interface__ or a
    CUDA __dlpack_device__)."""
    if hasattr(obj, "__cuda_array_interface__"):
        return True
    dev = getattr(obj, "__dlpack_device__", None)
    if dev is None:
        return False
    try:
        return dev()[0] in _DLPACK_CUDA
    except Exception:  # noqa: BLE001 - a host array with a partial protocol
        return False


def read_muons(path):  # noqa: F811 - the argument's name is the API's
    return _fastmu.read_muons(_file_name("path", path))


read_muons.__doc__ = _fastmu.read_muons.__doc__


def _as_table(t):
    return t if isinstance(t, _fastmu.Table) else _fastmu.load_table(path("tables", t))


def _normalise_tables(tables):
    """None | Table | path | list of them | {material: Table or path} -> list of Table."""
    if tables is None:
        return []
    if isinstance(tables, (_fastmu.Table, str)) or hasattr(tables, "__fspath__"):
        return [_as_table(tables)]
    if isinstance(tables, dict):
        out = []
        for material, t in tables.items():
            t = _as_table(t)
            if t.material != material:
                raise Error(f"tables: the table given for '{material}' is for '{t.material}'")
            out.append(t)
        return out
    if not isinstance(tables, (list, tuple)):
        raise Error(f"tables: {type(tables).__name__} is not None, a Table, a table file, "
                    "a list of them or a dict {material: Table or file}")
    return [_as_table(t) for t in tables]


class _Recent:
    """The objects built for the last `kept` keys (least recently used out):
    building again for an equal key returns the same object, so that
    fastmu's resident parameters, kept per Geometry object, are reused."""

    def __init__(self, kept):
        self._kept = kept
        self._items = collections.OrderedDict()

    def get(self, key, build):
        if key is None:
            return build()
        item = self._items.get(key)
        if item is None:
            item = build()
            self._items[key] = item
            while len(self._items) > self._kept:
                self._items.popitem(last=False)
        else:
            self._items.move_to_end(key)
        return item


# Geometries built from dicts or JSON files, by content: a loop that passes
# the same dict (or an unchanged file) again gets the same Geometry object,
# hence the parameters and GPU uploads of its first call.
_GEOMETRIES = _Recent(8)


def _as_geometry(geometry):
    if isinstance(geometry, _fastmu.Geometry):
        return geometry
    if isinstance(geometry, dict):
        try:
            key = ("dict", json.dumps(geometry, sort_keys=True,
                                      default=lambda o: o.tolist() if hasattr(o, "tolist") else
                                      repr(o)))
        except (TypeError, ValueError):
            key = None
        return _GEOMETRIES.get(key, lambda: _fastmu.Geometry.from_dict(geometry))
    given = path("geometry", geometry)  # a Geometry, a dict or a JSON file
    file = os.path.realpath(given)
    try:
        st = os.stat(file)
        key = ("file", file, st.st_mtime_ns, st.st_size)
    except OSError:
        key = None  # from_json names the missing file
    return _GEOMETRIES.get(key, lambda: _fastmu.Geometry.from_json(given))


def transport(muons, geometry, tables=None, backend="auto", step=0.02, seed=1, p_kill=0.18,
              max_steps=100000, all=False, field_map=None, threads=0, gpus=0, cache=True,
              first_id=0, engine="fast", long_steps=7, above_tables="refuse", decay=True,
              p_max="auto"):
    """Transports muons through `geometry` by histogram sampling (engine="fast"),
    or with the detailed condensed-history engine (engine="detailed": the
    reference of `fastmu validate`, no tables, on the backend's GPU or the
    CPU; max_steps then counts volume crossings).

    muons: (N, 8) array px, py, pz [GeV/c], x, y, z [m], pdg (13 = mu-,
      -13 = mu+), weight (carried through); (N, 7) means weight 1. float32 or
      float64. A path (str or os.PathLike) is read as `fastmu run --muons`
      reads it (CSV, or HDF5 dataset `muons`; see fastmu.read_muons). Row i is muon id i, which keys its random numbers: results do
      not depend on the thread count or the backend's batching.
    geometry: a fastmu.Geometry, a dict with the JSON layout, or a JSON path.
    tables: None, a Table or table file, a list of them, or a dict
      {material: Table or file}; materials without one come from the table
      cache (built with the detailed engine when missing), as `fastmu run`.
    cache: True (the default cache folder, see fastmu.table_cache_dir()),
      a folder, or False (a material without a given table is an error).
    p_max: how far up the tables from the cache reach [GeV/c], in [1, 1e5]:
      'auto' (the default: the muons' highest |p|, as `fastmu run --p-max
      auto`) or a number. Cached tables that reach higher serve it as they
      are; missing bins are built (for the materials without a given table,
      and the shorter steps of those with one). A row above 1e5 GeV/c, which
      no table reaches, is refused before any table is built.
    backend: 'auto' (CUDA when built and a GPU is visible), 'cpu', 'cuda'.
    step [m] (must match the tables), long_steps (a fast muon's step doubles
      up to this many times: from 2^k x 2.5 GeV/c it is 2^k times its
      material's, from tables built for it; 0: never), seed, p_kill [GeV/c], max_steps,
      threads (CPU; 0 = all cores), gpus (CUDA; 0 = all visible GPUs; a
      batch given as GPU arrays stays on its own GPU): as `fastmu run`.
    field_map: a fastmu.FieldMap used instead of the geometry's field_map
      (the CUDA backend then uses one GPU).
    all: return every muon; by default only status 0 (at a sensitive plane,
      inside its window), as `fastmu run` writes.
    above_tables: what a muon above the tables' top momentum gets: 'refuse'
      (the default: fastmu.Error naming the row and the range) or 'stop' (not
      transported, status 5), as `fastmu run --above-tables`. Rows are checked
      as a file's rows are: finite, within float range, pdg +-13.
    decay: decay in flight (True, the default, as `fastmu run --decay on`): a
      muon that decays gets status 6, with its position and momentum where
      it decayed; False: muons never decay (both engines).
    first_id: the id of row 0 (host arrays): a slice of a larger set (an MPI
      rank's share) gets the same ids, hence the same random numbers and
      results, as in a transport of the whole set.

    Repeated calls with the same geometry (the same Geometry object, an equal
    dict or the same unchanged JSON file), tables and options reuse the
    parameters built by the first (tables, geometry views, and on a GPU their
    device copies): a loop pays only for the transport.

    Returns a dict of arrays, one entry per muon: id (int64), px, py, pz, x,
    y, z (float32), pdg (int32), weight (float64), status (int32, see
    fastmu.STATUS) and, when the geometry has several sensitive planes,
    plane (int32, -1 if none); with all=True from host arrays also steps
    (int32, the steps each muon took). Bad input raises fastmu.Error.
    """
    decay = _decay_flag(decay)
    seed, max_steps, threads = integer("seed", seed), integer("max_steps", max_steps), integer(
        "threads", threads)
    gpus, first_id, long_steps = integer("gpus", gpus), integer("first_id", first_id), integer(
        "long_steps", long_steps)
    geometry = _as_geometry(geometry)
    # Numbers here; their ranges where the command line checks them (the same lines).
    step = real("step", step, 0.0, MAX_STEP)
    p_kill = real("p_kill", p_kill, 0.0, TOP_MOMENTUM)
    above_tables = text("above_tables", above_tables)
    if backend not in ("auto", "cpu", "cuda"):
        raise Error(f"backend: '{backend}' is not one of auto, cpu, cuda")
    if engine == "detailed":
        if is_device_array(muons):
            raise Error("transport: engine='detailed' takes host arrays only")
        arr = np.asarray(muons)
        if arr.dtype != np.float32 and arr.dtype != np.float64:
            arr = arr.astype(np.float64)
        return _fastmu._transport_detailed(arr, geometry, seed=int(seed), p_kill=float(p_kill),
                                           max_steps=int(max_steps), all=bool(all),
                                           threads=int(threads), first_id=int(first_id),
                                           decay=decay,
                                           backend=str(backend))
    if engine != "fast":
        raise Error(f"engine: '{engine}' is not fast or detailed")
    tables = _normalise_tables(tables)
    if field_map is not None and not isinstance(field_map, _fastmu.FieldMap):
        raise Error("transport: field_map must be a fastmu.FieldMap or None")
    if cache is not True and cache is not False and cache is not None:
        cache = path("cache", cache)
    options = dict(step=float(step), seed=int(seed), p_kill=float(p_kill),
                   max_steps=int(max_steps), all=bool(all), threads=int(threads),
                   long_steps=int(long_steps), above_tables=str(above_tables), decay=decay,
                   p_max=_p_max_value(p_max))
    if int(gpus) < 0:
        raise Error(f"gpus: {gpus} is negative")
    if isinstance(muons, str) or hasattr(muons, "__fspath__"):
        muons = _fastmu.read_muons(path("muons", muons))
    if is_device_array(muons):
        return _transport_device(muons, geometry, tables, cache, backend, field_map, options)
    options["gpus"] = int(gpus)
    if int(first_id) < 0:
        raise Error(f"first_id: {first_id} is negative")
    options["first_id"] = int(first_id)
    arr = np.asarray(muons)
    if arr.dtype != np.float32 and arr.dtype != np.float64:
        arr = arr.astype(np.float64)
    return _fastmu._transport(arr, geometry, tables, cache, backend, field_map, **options)


def _p_max_value(p_max):
    """p_max= as the bindings take it: 0 for 'auto', else the number (checked there)."""
    if isinstance(p_max, bool):
        raise Error(f"p_max: {p_max} is neither 'auto' nor a momentum in [1, 100000] GeV/c")
    if isinstance(p_max, str):
        if p_max == "auto":
            return 0.0
        raise Error(f"p_max: '{p_max}' is neither 'auto' nor a momentum in [1, 100000] GeV/c")
    try:
        value = float(p_max)
    except (TypeError, ValueError):
        raise Error(f"p_max: {p_max!r} is neither 'auto' nor a momentum in [1, 100000] GeV/c")
    if not (1.0 <= value <= 1e5):
        raise Error(f"p_max: {p_max} is neither 'auto' nor a momentum in [1, 100000] GeV/c")
    return value


def _device_top(rows, lib):
    """The highest |p| of device rows (0 if none is finite: a bad row, named later)."""
    if int(rows.shape[0]) == 0:
        return 1.0
    if lib == "torch":
        top = float(rows[:, :3].double().norm(dim=1).max().item())
    else:
        import cupy
        top = float(cupy.linalg.norm(rows[:, :3].astype(cupy.float64), axis=1).max())
    return top if math.isfinite(top) else 0.0


def _decay_flag(decay):
    """decay= as a bool: True or False (NumPy booleans too), else fastmu.Error."""
    if isinstance(decay, (bool, np.bool_)):
        return bool(decay)
    raise Error(f"decay: {decay!r} is not True or False")


def _array_library(obj):
    mod = type(obj).__module__.split(".")[0]
    return mod if mod in ("torch", "cupy") else None


def _transport_device(muons, geometry, tables, cache, backend, field_map, options):
    """CUDA arrays in, CUDA arrays of the same library out.

    The muons stay on the GPU: the output columns are allocated with the input's
    library and filled by the kernel through their device pointers
    (_fastmu._transport_device_ptrs), on the library's current stream.
    """
    lib = _array_library(muons)
    if lib is None:
        raise Error("transport: CUDA device arrays are supported from torch and CuPy, got "
                    f"{type(muons).__module__}.{type(muons).__name__}")
    if backend == "cpu":
        raise Error("transport: backend='cpu' with CUDA device arrays: pass a host array "
                    "or use backend='cuda' or 'auto'")
    if not _fastmu.cuda_available():
        raise Error("transport: CUDA device arrays given, but this fastmu has no CUDA backend "
                    "or sees no GPU")
    if len(muons.shape) != 2 or muons.shape[1] not in (7, 8):
        raise Error(f"transport: muons must be an (N, 8) array (px,py,pz,x,y,z,pdg,weight), "
                    f"got shape {tuple(muons.shape)}")
    n, ncol = int(muons.shape[0]), int(muons.shape[1])
    dtypes = dict(id="int64", px="float32", py="float32", pz="float32", x="float32",
                  y="float32", z="float32", pdg="int32", weight="float32", status="int32",
                  plane="int32")
    kw = dict(step=options["step"], seed=options["seed"], p_kill=options["p_kill"],
              max_steps=options["max_steps"], long_steps=options["long_steps"],
              above_tables=options["above_tables"], decay=options["decay"],
              p_max=options["p_max"])
    if lib == "torch":
        import torch
        rows = muons.detach().to(torch.float32).contiguous()
        if kw["p_max"] == 0:
            top = _device_top(rows, lib)
            kw["p_max"] = min(max(top, 1.0), 1e5) if top else 0.0
        cols = {k: torch.empty(n, dtype=getattr(torch, t), device=rows.device)
                for k, t in dtypes.items()}
        with torch.cuda.device(rows.device):
            stream = torch.cuda.current_stream(rows.device).cuda_stream
            with_plane = _fastmu._transport_device_ptrs(
                rows.data_ptr(), n, ncol, {k: v.data_ptr() for k, v in cols.items()}, geometry,
                tables, cache, field_map, stream=stream, **kw)
    else:
        import cupy
        with cupy.cuda.Device(muons.device.id):
            rows = cupy.ascontiguousarray(muons, dtype=cupy.float32)
            if kw["p_max"] == 0:
                top = _device_top(rows, lib)
                kw["p_max"] = min(max(top, 1.0), 1e5) if top else 0.0
            cols = {k: cupy.empty(n, dtype=t) for k, t in dtypes.items()}
            with_plane = _fastmu._transport_device_ptrs(
                rows.data.ptr, n, ncol, {k: v.data.ptr for k, v in cols.items()}, geometry,
                tables, cache, field_map, stream=cupy.cuda.get_current_stream().ptr, **kw)
    if not options["all"]:
        keep = cols["status"] == 0
        cols = {k: v[keep] for k, v in cols.items()}
    if not with_plane:
        del cols["plane"]
    return cols


__all__ = ["transport", "is_device_array", "STATUS", "COLUMNS"]
