import numpy as np
import pytest

import fastmu
from conftest import read_reference


def test_sample_shape_and_geometry():
    s = fastmu.physics.sample("G4_Fe", 10.0, step=0.02, n=2000, seed=3)
    assert s.shape == (2000, 7) and s.dtype == np.float64
    assert np.all(s[:, 0] == 10.0)
    moving = np.any(s[:, 1:4] != 0, axis=1)
    # Recorded where they leave the sphere of radius `step`.
    r = np.linalg.norm(s[moving, 4:7], axis=1)
    assert np.allclose(r, 0.02, rtol=1e-4)
    loss = s[:, 0] - s[:, 3]
    assert np.all(loss[moving] > 0)
    # Bethe-Bloch alone gives about 1.6 MeV cm2/g * 15.7 g/cm2 = 25 MeV in 2 cm
    # of iron; radiative losses add to the mean at 10 GeV.
    assert 0.02 < loss.mean() < 0.05


def test_sample_is_reproducible_and_seeded():
    a = fastmu.physics.sample("G4_Fe", 3.0, n=500, seed=11, threads=1)
    b = fastmu.physics.sample("G4_Fe", 3.0, n=500, seed=11, threads=2)
    c = fastmu.physics.sample("G4_Fe", 3.0, n=500, seed=12)
    np.testing.assert_array_equal(a, b)  # independent of the thread count
    assert not np.array_equal(a, c)


def test_sample_momentum_range():
    s = fastmu.physics.sample("G4_CONCRETE", 1.0, p_max=5.0, n=1000)
    assert s[:, 0].min() >= 1.0 and s[:, 0].max() <= 5.0
    assert s[:, 0].std() > 0.5


def test_slab_transport_exits_at_thickness():
    t = fastmu.physics.transport("G4_Fe", 0.5, 5.0, n=200, seed=2)
    assert t.shape == (200, 7)
    moving = np.any(t[:, 1:4] != 0, axis=1)
    assert np.allclose(t[moving, 6], 0.5, atol=1e-6)
    assert np.all(np.linalg.norm(t[:, 1:4], axis=1) < 5.0)


def test_slab_transport_field_bends_by_charge():
    kw = dict(n=200, seed=5, field=(0.0, 1.5, 0.0))
    neg = fastmu.physics.transport("G4_Fe", 1.0, 10.0, charge=-1, **kw)
    pos = fastmu.physics.transport("G4_Fe", 1.0, 10.0, charge=1, **kw)
    # Opposite charges bend to opposite sides along x.
    assert np.sign(neg[:, 1].mean()) == -np.sign(pos[:, 1].mean())
    assert abs(neg[:, 1].mean()) > 0.02


@pytest.mark.parametrize("kwargs", [dict(p=-1.0), dict(p=5.0, p_max=1.0), dict(p=5.0, charge=2),
                                    dict(p=5.0, step=0.0), dict(p=5.0, material="nope")])
def test_sample_bad_input(kwargs):
    args = dict(material="G4_Fe", n=10)
    args.update(kwargs)
    with pytest.raises(fastmu.Error):
        fastmu.physics.sample(**args)


def test_sample_against_geant4(reference_dir):
    ref = read_reference(reference_dir / "sphere2cm_G4_Fe_p10GeV_mu-.f32")
    s = fastmu.physics.sample("G4_Fe", 10.0, step=0.02, n=20000, seed=1)
    ref_loss = (ref[:, 0] - ref[:, 3]).mean()
    assert (s[:, 0] - s[:, 3]).mean() == pytest.approx(ref_loss, rel=0.10)
    ref_kick = np.hypot(ref[:, 1], ref[:, 2]).mean()
    assert np.hypot(s[:, 1], s[:, 2]).mean() == pytest.approx(ref_kick, rel=0.05)
