"""The gradient of fastmu.ship.objective with respect to the magnets'
dimensions (moving faces), and the shield's loss (cost factor, length and
cavern terms) with its analytic cost gradient."""

import os

import numpy as np
import pytest

import fastmu

# Muons of the finite-difference test: 10^4 by default (a minute on two
# cores); FASTMU_SHIP_FD_MUONS=100000 is the criterion's size.
FD_MUONS = int(os.environ.get("FASTMU_SHIP_FD_MUONS", "10000"))


@pytest.fixture(scope="module")
def fd_muons():
    return fastmu.ship.muons(FD_MUONS, seed=1)


@pytest.fixture(scope="module")
def gradient(fd_muons):
    p = fastmu.ship.parameters("warm_baseline")
    mask = np.zeros(p.shape, bool)
    magnets = [1, 4, 5, 6]
    mask[magnets, 1] = mask[magnets, 2] = mask[magnets, 6] = mask[magnets, 12] = True
    return fastmu.ship.objective(fd_muons, p, seed=1, smoothing=0.05, backend="cpu",
                                 details=True, columns=mask)


@pytest.mark.parametrize("magnet", [1, 4, 5, 6])
@pytest.mark.parametrize("column", ["dZ", "dXIn", "gapIn", "midGapIn"])
def test_dimension_gradient_matches_differences(fd_muons, gradient, magnet, column):
    # Central differences of 1 cm with the same random numbers, per muon:
    # within 15 % or three standard errors of the paired differences (sixteen
    # checks: at two standard errors one of them fails by chance about every
    # other run even for an unbiased estimator). A midGap at 0 cannot go
    # lower (the cores would overlap): the forward difference, of 0.3 cm
    # (the gap opened lets muons through faster than linearly in its width).
    p = fastmu.ship.parameters("warm_baseline")
    _, grad, info = gradient
    c = fastmu.ship.COLUMNS.index(column)
    one_sided = column == "midGapIn" and p[magnet, c] == 0
    eps = 0.3 if one_sided else 1.0
    up, dn = p.copy(), p.copy()
    up[magnet, c] += eps
    if not one_sided:
        dn[magnet, c] -= eps
    opt = dict(seed=1, smoothing=0.05, backend="cpu", gradient=False, details=True)
    a = fastmu.ship.objective(fd_muons, up, **opt)[2]["muon_value"]
    b = fastmu.ship.objective(fd_muons, dn, **opt)[2]["muon_value"]
    fd = (a - b) / (eps if one_sided else 2 * eps)
    d = fd - info["muon_gradient"][:, magnet, c]
    se = np.sqrt(len(d)) * d.std()
    assert np.isfinite(grad[magnet, c])
    assert abs(d.sum()) <= max(0.15 * abs(fd.sum()), 3 * se), (grad[magnet, c], fd.sum(), se)


def test_every_component_is_finite_and_passes_agree():
    mu = fastmu.ship.muons(400, seed=2)
    p = fastmu.ship.parameters("warm_baseline")
    value, grad, info = fastmu.ship.objective(mu, p, seed=1, backend="cpu", details=True)
    assert np.all(np.isfinite(grad)) and np.all(np.isfinite(info["muon_gradient"]))
    assert info["passes"] == 1  # the adjoint: every column in one pass
    # A magnet's columns alone are the same numbers as within all of them.
    mask = np.zeros(p.shape, bool)
    mask[3] = True
    v3, g3 = fastmu.ship.objective(mu, p, seed=1, backend="cpu", columns=mask)
    assert v3 == value
    np.testing.assert_allclose(g3[3], grad[3], rtol=1e-12, atol=1e-12)
    assert np.all(np.isnan(g3[:3]))


def test_bad_columns_are_a_one_line_error():
    p = fastmu.ship.parameters("warm_baseline")
    with pytest.raises(fastmu.Error, match="columns"):
        fastmu.ship.objective(fastmu.ship.muons(5), p, backend="cpu", columns="some")
    with pytest.raises(fastmu.Error, match="mask"):
        fastmu.ship.objective(fastmu.ship.muons(5), p, backend="cpu", columns=np.ones((2, 15)))
    with pytest.raises(fastmu.Error, match="W0"):
        fastmu.ship.loss(fastmu.ship.muons(5), p, W0=-1.0, backend="cpu")


def test_iron_mass_gradient_is_the_derivative_of_the_volumes():
    p = fastmu.ship.parameters("warm_baseline")
    mass, grad = fastmu.ship.iron_mass(p)
    # The mass is the density times the blocks' volume, and its gradient the
    # central difference of that volume (exact: the vertices are linear).
    assert fastmu.ship.iron_mass(p, density=2 * 7.874)[0] == pytest.approx(2 * mass)
    rng = np.random.default_rng(4)
    h = 1e-3
    for _ in range(25):
        m, c = rng.integers(p.shape[0]), rng.integers(14)
        up, dn = p.copy(), p.copy()
        up[m, c] += h
        dn[m, c] -= h
        fd = (fastmu.ship.iron_mass(up)[0] - fastmu.ship.iron_mass(dn)[0]) / (2 * h)
        assert grad[m, c] == pytest.approx(fd, rel=1e-6, abs=1e-6), (m, c)
    # zgap only moves magnets: no mass; B neither.
    assert np.all(grad[:, 0] == 0) and np.all(grad[:, 14] == 0)


def test_cost_and_penalties_gradients():
    p = fastmu.ship.parameters("warm_baseline")
    p[2, 14] = 0.3  # near B = 0, where |B| is smoothed
    w, gw = fastmu.ship.cost(p)
    pen, gp = fastmu.ship.penalties(p, length_max=29.0)  # the baseline is 29.33 m long
    assert pen > fastmu.ship.penalties(p)[0]
    for m, c in [(0, 1), (2, 14), (3, 2), (4, 11), (6, 0), (1, 9)]:
        for f, g in ((fastmu.ship.cost, gw), (lambda q: fastmu.ship.penalties(q, 29.0), gp)):
            h = 1e-3
            up, dn = p.copy(), p.copy()
            up[m, c] += h
            dn[m, c] -= h
            fd = (f(up)[0] - f(dn)[0]) / (2 * h)
            assert g[m, c] == pytest.approx(fd, rel=1e-4, abs=1e-6), (m, c)


def test_loss_combines_hits_cost_and_penalties():
    mu = fastmu.ship.muons(300, seed=5)
    p = fastmu.ship.parameters("warm_baseline")
    opt = dict(seed=1, smoothing=0.05, backend="cpu", columns="fields")
    value, grad, info = fastmu.ship.loss(mu, p, details=True, **opt)
    hits, dhits = fastmu.ship.objective(mu, p, **opt)
    w, dw = fastmu.ship.cost(p)
    assert info["cost"] == pytest.approx(w)
    assert info["cost_factor"] == pytest.approx(2.0)  # W0 defaults to warm_baseline's cost
    assert value == pytest.approx(hits * 2.0 * (1 + info["penalty"]))
    # The fields' column: hits' gradient and the coil cost's, through the factor.
    expected = (dhits[:, 14] * 2.0 + hits * 10.0 / w * dw[:, 14]) * (1 + info["penalty"])
    assert np.allclose(grad[:, 14], expected)
    # A cheaper reference makes the same design dearer.
    assert fastmu.ship.loss(mu, p, W0=0.9 * w, **opt)[0] > value


def test_torch_loss():
    torch = pytest.importorskip("torch")
    mu = fastmu.ship.muons(200, seed=5)
    p = fastmu.ship.parameters("warm_baseline")
    t = torch.tensor(p, requires_grad=True)
    opt = dict(seed=1, backend="cpu", columns="fields")
    v = fastmu.ship.torch_loss(t, mu, **opt)
    v.backward()
    value, grad = fastmu.ship.loss(mu, p, **opt)
    assert float(v) == pytest.approx(value)
    assert np.allclose(t.grad.numpy(), np.nan_to_num(grad))
