"""fastmu.ship.objective: the smooth window objective and its pathwise gradient
with respect to the magnets' fields (B column)."""

import numpy as np
import pytest

import fastmu


@pytest.fixture(scope="module")
def ship_muons():
    return fastmu.ship.muons(1500, seed=3)


def test_value_and_gradient_shapes(ship_muons):
    p = fastmu.ship.parameters("warm_baseline")
    value, grad = fastmu.ship.objective(ship_muons, p, seed=1, smoothing=0.05, backend="cpu",
                                        columns="fields")
    assert isinstance(value, float) and value > 0
    assert grad.shape == p.shape
    assert np.all(np.isnan(grad[:, :14]))
    assert np.all(np.isfinite(grad[:, 14]))
    assert np.any(grad[:, 14] != 0)
    # Every column: the fields' columns are the same numbers.
    value_all, grad_all = fastmu.ship.objective(ship_muons, p, seed=1, smoothing=0.05,
                                                backend="cpu")
    assert value_all == value
    assert np.all(np.isfinite(grad_all))
    assert np.array_equal(grad_all[:, 14], grad[:, 14])
    only = fastmu.ship.objective(ship_muons, p, seed=1, smoothing=0.05, gradient=False,
                                 backend="cpu")
    assert only == pytest.approx(value, rel=1e-12)


def test_hard_limit_is_the_forward_count(ship_muons):
    p = fastmu.ship.parameters("warm_baseline")
    value, grad, info = fastmu.ship.objective(ship_muons, p, seed=1, smoothing=0.0,
                                              backend="cpu", details=True)
    assert value == info["hard"]
    assert np.all(grad[:, 14] == 0)
    out = fastmu.transport(ship_muons, fastmu.ship.geometry(p), seed=1, backend="cpu", all=True)
    forward = float(np.sum(out["weight"][out["status"] == 0]))
    # The per-muon schedule against the CPU's SIMD lanes: equal up to float
    # rounding, which may change a rare muon's history.
    assert abs(value - forward) <= max(2.0, 0.02 * forward)
    assert np.count_nonzero(info["status"] != out["status"]) <= max(3, len(ship_muons) // 100)


def test_gradient_matches_central_differences(ship_muons):
    p = fastmu.ship.parameters("warm_baseline")
    s = 0.2
    _, grad, info = fastmu.ship.objective(ship_muons, p, seed=1, smoothing=s, backend="cpu",
                                          details=True, columns="fields")
    k, eps = 2, 0.02
    up, dn = p.copy(), p.copy()
    up[k, 14] += eps
    dn[k, 14] -= eps
    _, _, a = fastmu.ship.objective(ship_muons, up, seed=1, smoothing=s, gradient=False,
                                    backend="cpu", details=True)
    _, _, b = fastmu.ship.objective(ship_muons, dn, seed=1, smoothing=s, gradient=False,
                                    backend="cpu", details=True)
    per_muon_fd = (a["muon_value"] - b["muon_value"]) / (2 * eps)
    fd = per_muon_fd.sum()
    spread = np.sqrt(np.sum((per_muon_fd - info["muon_gradient"][:, k, 14]) ** 2))
    assert abs(grad[k, 14] - fd) <= max(0.05 * abs(fd), 2 * spread), (grad[k, 14], fd, spread)


def test_repeated_calls_reuse_the_geometry(ship_muons):
    p = fastmu.ship.parameters("warm_baseline")
    fastmu.ship.objective(ship_muons[:100], p, backend="cpu")
    builds = fastmu._fastmu._transport_params_builds()
    for b in (1.7, 1.8):
        q = p.copy()
        q[:, 14] = np.sign(q[:, 14]) * b
        fastmu.ship.objective(ship_muons[:100], q, backend="cpu")
    assert fastmu._fastmu._transport_params_builds() == builds


def test_fields_follow_the_b_column(ship_muons):
    # The objective with new B values on a cached geometry equals the one of a
    # geometry built with those values.
    p = fastmu.ship.parameters("warm_baseline")
    q = p.copy()
    q[1, 14] = 1.4
    q[5, 14] = -1.6
    fastmu.ship.objective(ship_muons[:300], p, backend="cpu")  # p's shapes cached
    v = fastmu.ship.objective(ship_muons[:300], q, smoothing=0.0, gradient=False, backend="cpu")
    out = fastmu.transport(ship_muons[:300], fastmu.ship.geometry(q), seed=1, backend="cpu")
    assert abs(v - len(out["status"])) <= 2


def test_bad_input():
    p = fastmu.ship.parameters("warm_baseline")
    with pytest.raises(fastmu.Error):
        fastmu.ship.objective(fastmu.ship.muons(10), p[:, :14])
    with pytest.raises(fastmu.Error):
        fastmu.ship.objective(fastmu.ship.muons(10), p, smoothing=-1.0, backend="cpu")
    with pytest.raises(fastmu.Error):
        fastmu.ship.objective(fastmu.ship.muons(10), np.tile(p, (3, 1)), backend="cpu")


def test_torch_function(ship_muons):
    torch = pytest.importorskip("torch")
    p = fastmu.ship.parameters("warm_baseline")
    t = torch.tensor(p, requires_grad=True)
    v = fastmu.ship.torch_objective(t, ship_muons[:300], seed=1, smoothing=0.1, backend="cpu")
    v.backward()
    value, grad = fastmu.ship.objective(ship_muons[:300], p, seed=1, smoothing=0.1,
                                        backend="cpu")
    assert float(v) == pytest.approx(value)
    assert np.allclose(t.grad.numpy(), grad)


def test_optimise_example_runs(tmp_path):
    import os
    import pathlib
    import subprocess
    import sys
    script = pathlib.Path(__file__).resolve().parents[2] / "examples" / "optimise_ship.py"
    out = tmp_path / "opt.png"
    r = subprocess.run([sys.executable, str(script), "--n-train", "200", "--n-test", "300",
                        "--iterations", "2", "--backend", "cpu", "--out", str(out)],
                       capture_output=True, text=True, env=dict(os.environ), timeout=300)
    assert r.returncode == 0, r.stderr
    assert "iteration   2" in r.stdout and "optimised:" in r.stdout
    if "matplotlib not found" not in r.stdout:
        assert out.stat().st_size > 1000


def test_totals_alone_equal_the_totals_of_the_details(ship_muons):
    # Without details only the sums are kept: the same bits as with them.
    p = fastmu.ship.parameters("warm_baseline")
    v1, g1 = fastmu.ship.objective(ship_muons, p, seed=1, smoothing=0.05, backend="cpu")
    v2, g2, info = fastmu.ship.objective(ship_muons, p, seed=1, smoothing=0.05, backend="cpu",
                                         details=True)
    assert v1 == v2
    assert np.array_equal(g1, g2)
    assert info["muon_gradient"].shape == (len(ship_muons),) + p.shape
    assert np.allclose(info["muon_gradient"].sum(0), g2, rtol=1e-9, atol=1e-9)


class _FakeCudaArray:
    """Claims to live in CUDA memory (as a torch or CuPy array would)."""
    __cuda_array_interface__ = {"shape": (4, 8), "typestr": "<f4", "data": (0, False),
                                "version": 3}
    shape = (4, 8)


def test_device_muons_on_the_cpu_backend_are_a_one_line_error():
    p = fastmu.ship.parameters("warm_baseline")
    with pytest.raises(fastmu.Error, match="backend='cpu' with CUDA device arrays"):
        fastmu.ship.objective(_FakeCudaArray(), p, backend="cpu")


def test_adjoint_equals_forward_tangents():
    """The default adjoint and the forward-mode tangents take the same
    derivative: every column of the shield, per muon."""
    mu = fastmu.ship.muons(1500, seed=4)
    p = fastmu.ship.parameters("warm_baseline")
    va, ga, ia = fastmu.ship.objective(mu, p, backend="cpu", details=True)
    vt, gt, it = fastmu.ship.objective(mu, p, backend="cpu", details=True, method="tangent")
    assert va == vt
    assert ia["passes"] == 1 and it["passes"] == p.shape[0]
    assert 0 < ia["adjoint_muons"] < len(mu)
    scale = np.abs(gt).max()
    np.testing.assert_allclose(ga, gt, rtol=1e-3, atol=1e-6 * scale)
    np.testing.assert_allclose(ia["muon_gradient"], it["muon_gradient"], rtol=1e-3,
                               atol=1e-6 * scale)
