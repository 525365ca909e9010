"""Integer arguments out of range give one fastmu.Error naming the argument
and its range, before the extension is called (no pybind11 dump of every
argument, no wrap-around of negative counts)."""

import numpy as np
import pytest

import fastmu


@pytest.mark.parametrize("kwargs, name", [
    (dict(n=-1), "n"), (dict(n=0), "n"), (dict(n=10**10), "n"),
    (dict(seed=-1), "seed"), (dict(seed=2**64), "seed"),
    (dict(threads=-1), "threads"), (dict(n=1.5), "n"), (dict(seed="1"), "seed"),
])
def test_physics_sample_refuses_bad_integers(kwargs, name):
    args = dict(material="G4_Fe", p=10.0, step=0.02, n=10)
    args.update(kwargs)
    with pytest.raises(fastmu.Error, match=rf"^{name}: .* is not an integer in \["):
        fastmu.physics.sample(**args)


@pytest.mark.parametrize("kwargs, name", [
    (dict(seed=-1), "seed"), (dict(max_steps=0), "max_steps"), (dict(max_steps=2**31), "max_steps"),
    (dict(threads=-5), "threads"), (dict(gpus=-1), "gpus"), (dict(first_id=-1), "first_id"),
    (dict(long_steps=11), "long_steps"),
])
def test_transport_refuses_bad_integers_without_dumping_the_muons(kwargs, name):
    muons = np.zeros((1000, 8))
    muons[:, 2], muons[:, 6] = 10.0, 13
    with pytest.raises(fastmu.Error) as e:
        fastmu.transport(muons, {"world": {"min": [-1, -1, -1], "max": [1, 1, 1],
                                           "material": "vacuum"}}, **kwargs)
    assert str(e.value).startswith(name + ": ")
    assert "\n" not in str(e.value)


def test_integral_floats_are_accepted():
    assert fastmu.physics.sample("G4_Fe", p=10.0, step=0.02, n=2.0, seed=3.0).shape == (2, 7)
