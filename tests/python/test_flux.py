"""fastmu.flux / flux_intensity / flux_rate: the sea-level muon flux and its
weighted samples (docs/cosmic-muons.md)."""

import os
import subprocess

import numpy as np
import pytest
from scipy import integrate

import fastmu

MUON_MASS = 0.1056583755


def gaisser(e, zenith_deg):
    """Gaisser's formula (PDG review "Cosmic rays"), m^-2 s^-1 sr^-1 GeV^-1."""
    c = np.cos(np.radians(zenith_deg))
    return 1e4 * 0.14 * e ** -2.7 * (1 / (1 + 1.1 * e * c / 115) + 0.054 / (1 + 1.1 * e * c / 850))


def test_intensity_broadcasts_and_matches_gaisser_at_high_energy():
    e = np.array([100.0, 1e3, 1e4])
    got = fastmu.flux_intensity(e, 0.0)
    assert got.shape == (3,)
    np.testing.assert_allclose(got / gaisser(e, 0.0), 1.0, atol=0.10)
    grid = fastmu.flux_intensity(e[:, None], np.array([0.0, 30.0, 60.0])[None, :])
    assert grid.shape == (3, 3)
    assert grid[0, 0] == got[0]
    assert isinstance(fastmu.flux_intensity(10.0, 0.0), float)
    assert fastmu.flux_intensity(10.0, 90.0) == 0.0
    # below 100 GeV the low-energy correction lowers Gaisser's flux
    assert fastmu.flux_intensity(10.0, 0.0) < gaisser(10.0, 0.0)


def test_vertical_integral_intensity_near_pdg():
    # PDG: ~70 m^-2 s^-1 sr^-1 for vertical muons above 1 GeV/c.
    value, _ = integrate.quad(lambda e: fastmu.flux_intensity(e, 0.0), 1.0, 1e7,
                              points=[10, 100, 1e3, 1e4], limit=200)
    assert value == pytest.approx(70.0, rel=0.2)


def test_rate_matches_independent_quadrature():
    area = (0.0, 2.0, 0.0, 0.5)
    for e_min, e_max, zmax in [(1.0, 1e5, 85.0), (10.0, 1e3, 40.0)]:
        cmin = np.cos(np.radians(zmax))

        def over_energy(c):
            t = np.degrees(np.arccos(c))
            f = lambda lne: np.exp(lne) * fastmu.flux_intensity(np.exp(lne), t)  # noqa: E731
            return c * integrate.quad(f, np.log(e_min), np.log(e_max), limit=200)[0]

        want = 1.0 * 2 * np.pi * integrate.quad(over_energy, cmin, 1.0, limit=200)[0]
        assert fastmu.flux_rate(e_min, e_max, zmax, area) == pytest.approx(want, rel=1e-4)


def test_sample_columns_and_weights_sum_to_rate():
    area = (-5.0, 5.0, -5.0, 5.0)
    m = fastmu.flux(200000, e_min=1.0, e_max=1e5, area=area, z=3.0, seed=9)
    assert m.shape == (200000, 8) and m.dtype == np.float64
    assert np.all(m[:, 2] < 0)
    assert np.all(m[:, 5] == 3.0)
    assert set(np.unique(m[:, 6])) == {-13.0, 13.0}
    e = np.sqrt((m[:, :3] ** 2).sum(1) + MUON_MASS ** 2)
    assert e.min() >= 1.0 - 1e-9 and e.max() <= 1e5 * (1 + 1e-9)
    w = m[:, 7]
    rate = fastmu.flux_rate(1.0, 1e5, 85.0, area)
    assert abs(w.sum() - rate) < 5 * np.sqrt((w ** 2).sum())


def test_weighted_energy_histogram_follows_flux():
    m = fastmu.flux(300000, gamma=1.5, seed=4)
    e = np.sqrt((m[:, :3] ** 2).sum(1) + MUON_MASS ** 2)
    edges = np.logspace(0, 5, 6)
    got, _ = np.histogram(e, edges, weights=m[:, 7])
    err = np.sqrt(np.histogram(e, edges, weights=m[:, 7] ** 2)[0])
    want = np.array([fastmu.flux_rate(lo, hi) for lo, hi in zip(edges[:-1], edges[1:])])
    assert np.all(np.abs(got - want) < 5 * err), (got, want, err)


def test_same_rows_for_any_thread_count():
    a = fastmu.flux(50000, seed=7, threads=1)
    b = fastmu.flux(50000, seed=7, threads=0)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, fastmu.flux(50000, seed=8))


@pytest.mark.parametrize("kwargs", [dict(e_min=0.05), dict(e_max=1e8), dict(zenith_max=88),
                                    dict(gamma=-1), dict(area=(1, 0, 0, 1)), dict(area=(0, 1))])
def test_bad_options_raise_fastmu_error(kwargs):
    with pytest.raises(fastmu.Error):
        fastmu.flux(10, **kwargs)
    with pytest.raises(fastmu.Error):
        fastmu.flux(-1)


def test_errors_name_the_python_argument():
    # The check is shared with `fastmu flux`; in Python it names area, not --area.
    with pytest.raises(fastmu.Error) as e:
        fastmu.flux(10, area=(1, 0, 0, 1))
    assert "area 1,0,0,1" in str(e.value) and "--" not in str(e.value), str(e.value)
    with pytest.raises(fastmu.Error) as e:
        fastmu.flux(10, e_min=0.05)
    assert "e_min" in str(e.value) and "--" not in str(e.value), str(e.value)


def test_command_writes_the_same_muons(tmp_path):
    binary = os.environ.get("FASTMU_BINARY")
    if not binary:
        pytest.skip("FASTMU_BINARY (the fastmu command) not set")
    out = tmp_path / "mu.h5"
    r = subprocess.run([binary, "flux", "--n", "2000", "--seed", "5", "--e-max", "1e6",
                        "--area", "0,2,0,3", "--out", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    got = fastmu.read_muons(str(out))
    want = fastmu.flux(2000, seed=5, e_max=1e6, area=(0, 2, 0, 3))
    np.testing.assert_allclose(got[:, :7], want[:, :7], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(got[:, 7], want[:, 7], rtol=1e-12)
    bad = subprocess.run([binary, "flux", "--n", "10", "--zenith-max", "90", "--out",
                          str(tmp_path / "bad.csv")], capture_output=True, text=True)
    assert bad.returncode != 0 and bad.stderr.count("\n") == 1
    assert not (tmp_path / "bad.csv").exists()
