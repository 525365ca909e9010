"""fastmu.underground: a laboratory's muon flux from a small slant-depth table
of standard rock (docs/underground.md); the transport tables are the session's
small ones (conftest.py)."""

import math

import pytest

import fastmu


@pytest.fixture(scope="module")
def site():
    return fastmu.underground(depth=2000, depths=[1000, 3000], table_muons=2000, backend="cpu")


def test_site_fluxes_are_consistent(site):
    s = site["site"]
    horizontal, horizontal_err = s["flux_horizontal_cm2_s"]
    sphere, _ = s["flux_sphere_cm2_s"]
    assert 0 < horizontal_err < 0.3 * horizontal
    assert horizontal < sphere < 2 * horizontal
    z = s["zenith_per_cos"]
    total = sum(v * (hi - lo) for v, lo, hi in zip(z["value"], z["edges"], z["edges"][1:]))
    assert math.isclose(total, horizontal, rel_tol=1e-9)
    assert all(math.isfinite(e) for e in s["energy_spectrum_per_gev"]["error"])
    rows = site["depth_intensity"]["rows"]
    assert [r[0] for r in rows] == [1000, 3000]
    assert rows[0][1] > rows[1][1] > 0
    assert site["overburden"]["material"] == "StandardRock"
    assert "prompt" in site["model"]["surface_flux"]


def test_bad_input_raises_before_tables():
    with pytest.raises(fastmu.Error, match="rock"):
        fastmu.underground(depth=2000, rock="basalt")
    with pytest.raises(fastmu.Error, match="depth"):
        fastmu.underground(depth=50000)
    with pytest.raises(fastmu.Error, match="depths"):
        fastmu.underground(depths=[1000] * 21)
