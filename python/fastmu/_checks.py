"""Checks of the arguments of the Python API before they reach the extension:
a wrong type or an out-of-range int there would surface as pybind11's
"incompatible function arguments" with every argument (whole arrays)
printed, or as a bare TypeError/ValueError/OverflowError from float() or
int(). Each check raises one fastmu.Error naming the argument and what it
accepts. The ranges are those of the command line (docs/interfaces.md,
"Accepted ranges")."""

import math
import numbers
import os

from ._fastmu import Error

U64_MAX = 2**64 - 1
I32_MAX = 2**31 - 1
MAX_MUONS = 10**9
MAX_THREADS = 65536

RANGES = {
    "n": (1, MAX_MUONS),
    "seed": (0, U64_MAX),
    "threads": (0, MAX_THREADS),
    "gpus": (0, 1024),
    "max_steps": (1, I32_MAX),
    "long_steps": (0, 10),
    "first_id": (0, 2**63 - 1),
    "charge": (-1, 1),
    "p_bins": (1, 100_000),
    "hist_bins": (1, 4096),
    "samples_per_bin": (1, 10**10),
    "pilot_muons": (1, MAX_MUONS),
    "pilot_probes": (2, 100_000),
    "zenith_bins": (1, 1000),
    "azimuth_bins": (1, 3600),
    "energy_bins": (1, 100),
    "table_muons": (1000, 10**8),
}

TOP_MOMENTUM = 1e5  # GeV/c, the engine's top (core/InputLimits.hh)
MAX_STEP = 1000.0  # m
MAX_COORDINATE = 1e5  # m
MAX_FIELD = 1000.0  # T


def _show(value):
    """The value for an error line: short, on one line."""
    text = repr(value).replace("\n", " ")
    return text if len(text) <= 40 else text[:37] + "..."


def integer(name, value):
    """`value` as an int within RANGES[name], else fastmu.Error naming the
    argument and the range (bool and non-integral numbers are refused)."""
    lo, hi = RANGES[name]
    ok = isinstance(value, numbers.Integral) and not isinstance(value, bool)
    if (not ok and isinstance(value, numbers.Real) and not isinstance(value, bool) and
            math.isfinite(value) and float(value).is_integer()):
        ok, value = True, int(value)
    if not ok or not lo <= int(value) <= hi:
        raise Error(f"{name}: {_show(value)} is not an integer in [{lo}, {hi}]")
    return int(value)


def real(name, value, lo=-math.inf, hi=math.inf, lo_open=False):
    """`value` as a finite float within [lo, hi] ((lo, hi] with lo_open), else
    fastmu.Error naming the argument and the range (strings, None and bool
    are refused)."""
    v = math.nan
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        try:
            v = float(value)
        except (OverflowError, ValueError):
            pass
    if not (math.isfinite(v) and (lo < v if lo_open else lo <= v) and v <= hi):
        raise Error(f"{name}: {_show(value)} is not a finite number in "
                    f"{'(' if lo_open else '['}{lo:g}, {hi:g}]")
    return v


def positive(name, value, hi=math.inf):
    """A finite number in (0, hi]."""
    return real(name, value, 0.0, hi, lo_open=True)


def reals(name, value, count, lo=-math.inf, hi=math.inf):
    """A sequence of `count` finite numbers in [lo, hi], as a tuple of floats."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != count:
        raise Error(f"{name}: {_show(value)} is not a sequence of {count} numbers")
    return tuple(real(f"{name}[{i}]", v, lo, hi) for i, v in enumerate(value))


def text(name, value):
    """`value`, which must be a string."""
    if not isinstance(value, str):
        raise Error(f"{name}: {_show(value)} is not a string")
    return value


def path(name, value):
    """A file name: a string or an os.PathLike, as a string."""
    if not isinstance(value, (str, os.PathLike)):
        raise Error(f"{name}: {_show(value)} is not a file name (a string or a path)")
    result = os.fspath(value)
    if isinstance(result, bytes):
        result = os.fsdecode(result)
    if not result or "\0" in result:
        raise Error(f"{name}: {_show(value)} is not a file name")
    return result
