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


def test_lab_under_a_terrain(tmp_path):
    # A flat map 500 m above a lab at -500 m: the flat site at 1000 m of rock.
    hmap = tmp_path / "flat.csv"
    hmap.write_text("500,500\n500,500\n")
    common = dict(table_muons=2000, backend="cpu", zenith_bins=5, azimuth_bins=4)
    under = fastmu.underground(terrain=hmap, terrain_x=(-1000, 1000), terrain_y=(-1000, 1000),
                               lab=(0, 0, -500), **common)
    flat = fastmu.underground(rock_depth=1000, **common)
    assert math.isclose(under["site"]["depth_mwe"], flat["site"]["depth_mwe"], rel_tol=1e-9)
    assert math.isclose(under["site"]["flux_horizontal_cm2_s"][0],
                        flat["site"]["flux_horizontal_cm2_s"][0], rel_tol=1e-6)
    assert 0 <= under["terrain"]["uncounted_solid_angle_fraction"] < 1
    with pytest.raises(fastmu.Error, match="lab"):
        fastmu.underground(terrain=hmap, terrain_x=(-1000, 1000), terrain_y=(-1000, 1000),
                           lab=(0, 0, 600), **common)
    with pytest.raises(fastmu.Error, match="lab"):
        fastmu.underground(terrain=hmap, terrain_x=(-1000, 1000), terrain_y=(-1000, 1000),
                           lab=(0, 0), **common)
    with pytest.raises(fastmu.Error, match="terrain"):
        fastmu.underground(lab=(0, 0, -500), **common)
    with pytest.raises(fastmu.Error, match="terrain"):
        fastmu.underground(terrain=hmap, terrain_x=(-1000, 1000), terrain_y=(-1000, 1000),
                           lab=(0, 0, -500), depth=2000, **common)
