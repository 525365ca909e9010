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


GEOMETRY = {"world": {"min": [-1, -1, -1], "max": [1, 1, 1], "material": "vacuum"}}
MUONS = np.array([[0, 0, 1.5, 0, 0, -0.5, 13, 1.0]])
FIELD = np.zeros((2, 2, 2, 3), np.float32)
# (function, valid keyword arguments, the arguments to spoil): every public
# function whose arguments are numbers, counts, seeds, paths or names.
CALLS = {
    "physics.sample": (lambda **k: fastmu.physics.sample(**k),
                       dict(material="G4_Fe", p=10.0, step=0.02, n=10),
                       ["material", "p", "p_max", "step", "n", "seed", "threads", "charge"]),
    "physics.transport": (lambda **k: fastmu.physics.transport(**k),
                          dict(material="G4_Fe", thickness=0.1, p=10.0, n=10),
                          ["material", "thickness", "p", "p_max", "field", "n", "seed"]),
    "transport": (lambda **k: fastmu.transport(**k), dict(muons=MUONS, geometry=GEOMETRY),
                  ["step", "p_kill", "seed", "max_steps", "threads", "gpus", "long_steps",
                   "first_id", "cache", "above_tables", "p_max", "geometry", "tables"]),
    "flux": (lambda **k: fastmu.flux(**k), dict(n=10),
             ["n", "e_min", "e_max", "zenith_max", "gamma", "area", "z", "seed", "cos_power",
              "threads"]),
    "flux_rate": (lambda **k: fastmu.flux_rate(**k), {}, ["e_min", "e_max", "zenith_max", "area"]),
    "build_table": (lambda **k: fastmu.build_table(**k),
                    dict(material="G4_Fe", step=0.05, p_max=2.0, p_bins=2, samples_per_bin=20,
                         hist_bins=4),
                    ["material", "step", "p_min", "p_max", "p_bins", "binning", "samples_per_bin",
                     "hist_bins", "seed", "threads", "charge", "epsilon", "pilot_muons",
                     "pilot_probes"]),
    "underground": (lambda **k: fastmu.underground(**k), dict(depth=100.0),
                    ["depth", "rock_depth", "rock", "density", "composition", "depths",
                     "zenith_max", "zenith_bins", "azimuth_bins", "energy_bins", "table_muons",
                     "seed", "threads", "backend"]),
    "ship.muons": (lambda **k: fastmu.ship.muons(**k), dict(n=10), ["n", "seed"]),
    "read_muons": (lambda **k: fastmu.read_muons(**k), dict(path="m.csv"), ["path"]),
    "load_table": (lambda **k: fastmu.load_table(**k), dict(path="t.h5"), ["path"]),
    "FieldMap": (lambda **k: fastmu.FieldMap(**k), dict(B=FIELD, min=[-1, -1, -1], max=[1, 1, 1]),
                 ["B", "min", "max", "interpolation", "symmetry"]),
}
# Values no argument above accepts: wrong types, NaN, infinities, a bool,
# integers beyond 64 bits.
BAD = [("nan", float("nan")), ("inf", float("inf")), ("-inf", -float("inf")), ("None", None),
       ("object", object()), ("2**70", 2**70), ("dict", {"a": 1})]


@pytest.mark.parametrize("call, arg, label, value", [
    (call, arg, label, value) for call, (_, _, args) in CALLS.items() for arg in args
    for label, value in BAD
    # A mapping is a valid `tables` and `composition`; a bare number a valid p_max ("auto" or
    # a momentum: 2**70 is refused by range, the others by type).
    if not (label == "dict" and arg in ("tables", "composition", "geometry"))
    and not (label == "None" and arg in ("p_max", "tables", "cache", "composition"))
])
def test_bad_arguments_give_one_line_naming_them(call, arg, label, value):
    fn, base, _ = CALLS[call]
    kwargs = dict(base)
    kwargs[arg] = value
    with pytest.raises(fastmu.Error) as e:
        fn(**kwargs)
    message = str(e.value)
    assert "\n" not in message
    assert "incompatible" not in message
    name = {"B": "B", "min": "min", "max": "max"}.get(arg, arg)
    assert name in message or name.replace("_", "-") in message, message


@pytest.mark.parametrize("call, arg", [
    ("flux", "n"), ("physics.sample", "seed"), ("underground", "zenith_bins"),
    ("ship.muons", "n"), ("transport", "step"), ("build_table", "p_bins"),
])
def test_bools_are_not_numbers(call, arg):
    fn, base, _ = CALLS[call]
    with pytest.raises(fastmu.Error, match=arg):
        fn(**dict(base, **{arg: True}))


@pytest.mark.parametrize("arg, value", [
    ("seed", -1), ("seed", "1"), ("step", float("nan")), ("p_kill", float("inf")),
    ("max_steps", 0), ("smoothing", None), ("threads", 2**70), ("first_id", -1),
    ("boundary_softening", float("nan")), ("max_tangent", "x"), ("long_steps", 11),
    ("cache", 3.5), ("params", "abc"), ("params", float("nan")),
])
def test_ship_objective_refuses_bad_arguments(arg, value):
    params = fastmu.ship.parameters()
    kwargs = dict(muons=fastmu.ship.muons(10), params=params)
    if arg == "params" and isinstance(value, float):
        value = np.full_like(np.asarray(params, dtype=float), value)
    kwargs[arg] = value
    with pytest.raises(fastmu.Error) as e:
        fastmu.ship.objective(**kwargs)
    assert str(e.value).startswith(arg + ": ") and "\n" not in str(e.value), str(e.value)


@pytest.mark.parametrize("label, call, name", [
    ("Geometry.from_json", lambda: fastmu.Geometry.from_json(3), "Geometry.from_json"),
    ("Geometry.from_dict", lambda: fastmu.Geometry.from_dict("x"), "Geometry.from_dict"),
    ("Geometry.from_json_text", lambda: fastmu.Geometry.from_json_text(3),
     "Geometry.from_json_text"),
    ("FieldMap.from_hdf5", lambda: fastmu.FieldMap.from_hdf5(None), "FieldMap.from_hdf5"),
    ("FieldMap.save", lambda: fastmu.FieldMap(FIELD, [-1, -1, -1], [1, 1, 1]).save(3),
     "FieldMap.save"),
    ("FieldMap call", lambda: fastmu.FieldMap(FIELD, [-1, -1, -1], [1, 1, 1])("x"),
     "FieldMap.__call__"),
    ("materials.add_custom", lambda: fastmu.materials.add_custom("x", "dense", {"Fe": 1}),
     "materials.add_custom"),
    ("materials.find", lambda: fastmu.materials.find(3), "materials.find"),
])
def test_bound_functions_give_one_line_on_wrong_types(label, call, name):
    with pytest.raises(fastmu.Error) as e:
        call()
    message = str(e.value)
    assert message.startswith(name + ": an argument has the wrong type; accepted: (")
    assert "\n" not in message and "Invoked with" not in message
