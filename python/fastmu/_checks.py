"""Range checks of the integer arguments of the Python API, before they reach
the extension: an out-of-range int there would surface as pybind11's
"incompatible function arguments" with every argument (whole arrays) printed.
The ranges are those of the command line (docs/interfaces.md, "Accepted
ranges")."""

import numbers

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
}


def integer(name, value):
    """`value` as an int within RANGES[name], else fastmu.Error naming the
    argument and the range (bool and non-integral numbers are refused)."""
    lo, hi = RANGES[name]
    ok = isinstance(value, numbers.Integral) and not isinstance(value, bool)
    if not ok and isinstance(value, numbers.Real) and float(value).is_integer():
        ok, value = True, int(value)
    if not ok or not lo <= int(value) <= hi:
        raise Error(f"{name}: {value!r} is not an integer in [{lo}, {hi}]")
    return int(value)
