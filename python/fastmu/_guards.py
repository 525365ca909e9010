"""pybind11's type errors as one line: a call to a bound function or method
with arguments of the wrong type raises, from pybind11, a TypeError that
lists every overload and then prints every argument given (whole arrays).
The functions wrapped here raise fastmu.Error instead, naming the function
and the argument types it accepts, without the values."""

import functools
import re

from ._fastmu import Error

_MARKERS = ("incompatible function arguments", "incompatible constructor arguments")


def _accepted(message):
    """The overloads' argument lists from pybind11's message, on one line."""
    sigs = re.findall(r"^\s*\d+\.\s*(\(.*?\))(?:\s*->.*)?$", message, re.M)
    sigs = [re.sub(r"self: [\w.]+,?\s*", "", s) for s in sigs]
    return " or ".join(sigs) if sigs else "see help()"


def _guard(fn, qualname):
    @functools.wraps(fn)
    def guarded(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except TypeError as e:
            text = str(e)
            if not any(m in text for m in _MARKERS):
                raise
            raise Error(f"{qualname}: an argument has the wrong type; accepted: "
                        f"{_accepted(text)}") from None
    return guarded


def guard_class(cls, name):
    """Wraps the public methods, static methods and __call__ of a bound class."""
    for attr, value in list(vars(cls).items()):
        if attr.startswith("_") and attr != "__call__":
            continue
        if isinstance(value, staticmethod):
            setattr(cls, attr, staticmethod(_guard(value.__func__, f"{name}.{attr}")))
        elif callable(value) and not isinstance(value, (type, property)):
            setattr(cls, attr, _guard(value, f"{name}.{attr}"))


def guard_module(module, name):
    """Wraps the public functions of a bound submodule."""
    for attr, value in list(vars(module).items()):
        if not attr.startswith("_") and callable(value) and not isinstance(value, type):
            setattr(module, attr, _guard(value, f"{name}.{attr}"))
