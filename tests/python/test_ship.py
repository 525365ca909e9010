"""fastmu.ship: the SHiP-like shield from its parameter table."""

import json
import pathlib

import numpy as np
import pytest

import fastmu

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def test_warm_baseline_table_is_the_spec():
    p = fastmu.ship.parameters("warm_baseline")
    assert p.shape == (7, 15) and p.dtype == np.float64
    # Rows 1 and 5 of the spec's table.
    assert p[0].tolist() == [0.0, 120.5, 50.0, 50.0, 119.0, 119.0, 2.0, 2.0, 50.0, 50.0,
                             50.0, 50.0, 0.0, 0.0, 1.9]
    assert p[5].tolist() == [10.0, 150.0, 22.0, 32.0, 130.0, 35.0, 8.0, 13.0, 22.0, 32.0,
                             22.0, 32.0, 30.0, 30.0, -1.9]
    assert fastmu.ship.parameters("hybrid_baseline").shape == (5, 15)
    p[0, 14] = 0.0  # a copy: the next call still has the spec's value
    assert fastmu.ship.parameters("warm_baseline")[0, 14] == 1.9


def test_geometry_of_the_baseline_is_the_shipped_example():
    built = fastmu.ship.geometry_dict(fastmu.ship.parameters("warm_baseline"))
    shipped = json.loads((EXAMPLES / "ship_warm.json").read_text())
    assert [v["name"] for v in built["volumes"]] == [v["name"] for v in shipped["volumes"]]
    for a, b in zip(built["volumes"], shipped["volumes"]):
        assert a["material"] == b["material"]
        assert np.allclose(a.get("field", [0, 0, 0]), b.get("field", [0, 0, 0]), atol=1e-12)
        if a["shape"] == "arb8":
            assert np.allclose(a["vertices"], b["vertices"], atol=1e-9)
    assert built["sensitive_planes"] == shipped["sensitive_planes"]


def test_changed_parameters_change_the_geometry():
    p = fastmu.ship.parameters("warm_baseline")
    p[1, 14] = 1.5  # second magnet's field
    geo = fastmu.ship.geometry(p)
    fields = {v["name"]: v["field"] for v in geo.volumes}
    cores = [name for name in fields if name.startswith("magnet1_core")]
    assert cores, sorted(fields)[:10]
    assert all(fields[c][1] == pytest.approx(1.5) for c in cores)
    # A skipped magnet (dZ < 1 cm) leaves its blocks out but still advances z.
    q = fastmu.ship.parameters("warm_baseline")
    q[3, 1] = 0.5
    n_full = len(fastmu.ship.geometry(fastmu.ship.parameters("warm_baseline")).volumes)
    assert len(fastmu.ship.geometry(q).volumes) == n_full - 8


def test_bad_parameter_arrays_are_one_line_errors():
    with pytest.raises(fastmu.Error, match=r"shape \(n_magnets, 15\)"):
        fastmu.ship.geometry(np.zeros((7, 14)))
    p = fastmu.ship.parameters("warm_baseline")
    p[2, 4] = np.nan
    with pytest.raises(fastmu.Error, match="SHiP magnet 2"):
        fastmu.ship.geometry(p)
    with pytest.raises(fastmu.Error):
        fastmu.ship.parameters("no_such_set")


def test_synthetic_muons():
    m = fastmu.ship.muons(1000, seed=3)
    assert m.shape == (1000, 8) and m.dtype == np.float32
    assert set(np.unique(m[:, 6]).tolist()) == {-13.0, 13.0}
    p = np.linalg.norm(m[:, :3], axis=1)
    assert p.min() >= 1.0 - 1e-4 and p.max() <= 350.0 + 1e-3
    assert np.array_equal(m, fastmu.ship.muons(1000, seed=3))
    assert not np.array_equal(m, fastmu.ship.muons(1000, seed=4))
