"""The judge of `fastmu validate` (scripts/plot_validate.py, validate_checks.py)
on synthetic engine outputs: samples of one distribution pass at the rate the
tolerances state (~1e-3 false fails per check), a shift beyond both the
tolerance and the statistical error fails, and each check says what error it
used and whether it passed by the tolerance or by the statistics."""

import importlib.util
import json
import math
import pathlib
import subprocess
import sys

import numpy as np
import pytest

SCRIPTS = pathlib.Path(__file__).resolve().parents[2] / "scripts"
# The defaults of src/fastmu/cli/ValidateCommand.cc (documented in
# docs/detailed-engine-and-validation.md).
DEFAULTS = {"ks_p_min": 1e-3, "fraction_sigma": 3.3, "fraction_abs": 0.01, "quantile_rel": 0.05,
            "quantile_sigma": 3.5, "min_muons": 20}
# Only the statistical limits: every check is judged by its error alone.
STATS_ONLY = dict(DEFAULTS, quantile_rel=0.0, fraction_abs=0.0)
# Statuses at plane, stopped, left world, step limit, outside window: roughly
# the SHiP-like shield's at --n 5000 (~140 muons of each charge in the window).
STATUS_P = [0.055, 0.53, 0.002, 0.0, 0.413]


def _module(name):
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(SCRIPTS))
    spec.loader.exec_module(mod)
    return mod


vc = _module("validate_checks")


def muons(n, rng, p_scale=1.0, status_p=STATUS_P):
    """Rows of fast.csv/detailed.csv: half mu-, half mu+; the window muons
    have a |p| spectrum with a long low tail (as behind a shield)."""
    pdg = np.where(np.arange(n) % 2 == 0, 13, -13)
    status = rng.choice(len(status_p), size=n, p=status_p)
    sign = np.where(pdg == 13, 1.0, -1.0)
    p = p_scale * (320.0 - rng.lognormal(4.2, 0.5, n))
    px = sign * rng.normal(4.7, 0.8, n)
    py = rng.normal(0.0, 0.6, n)
    a = np.zeros(n, dtype=[(k, float) for k in
                           ("id", "px", "py", "pz", "x", "y", "z", "pdg", "weight", "status",
                            "plane")])
    a["id"], a["px"], a["py"] = np.arange(n), px, py
    a["pz"] = np.sqrt(np.maximum(p**2 - px**2 - py**2, 1.0))
    a["x"], a["y"], a["z"] = sign * rng.normal(1.67, 0.2, n), rng.normal(0, 0.2, n), 82.0
    a["pdg"], a["weight"], a["status"] = pdg, 1.0, status
    a["plane"] = np.where((status == 0) | (status == 4), 0, -1)
    return a


def write_run(d, fast, det, tol=DEFAULTS):
    d.mkdir(parents=True, exist_ok=True)
    for name, a in (("fast.csv", fast), ("detailed.csv", det)):
        np.savetxt(d / name, a, delimiter=",", header=",".join(a.dtype.names), comments="",
                   fmt="%.9g")
    (d / "tolerances.json").write_text(json.dumps(tol))


def judge(d):
    """Runs the report as fastmu does; returns (exit status, summary.json)."""
    r = subprocess.run([sys.executable, str(SCRIPTS / "plot_validate.py"), "--dir", str(d),
                        "--info", json.dumps({"source": "synthetic", "muons": 0})],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode in (0, 1), r.stdout + r.stderr
    return r.returncode, json.loads((d / "summary.json").read_text())


def test_quantile_error_matches_the_spread_of_the_quantile():
    # 2000 samples of 144 window-like |p| values: the typical error estimate
    # against the actual standard deviation of the sample quantile.
    rng = np.random.default_rng(1)
    x = 320 - rng.lognormal(4.2, 0.5, (2000, 144))
    for q in vc.QUANTILES:
        s = [vc.quantile_error(row, q) for row in x]
        assert np.median(s) == pytest.approx(np.std(np.quantile(x, q, axis=1)), rel=0.1)


def test_quantile_error_clips_ranks_at_the_sample_ends():
    x = np.arange(20.0)
    assert vc.quantile_error(x, 0.9) > 0
    assert math.isfinite(vc.quantile_error(x, 0.99))
    assert vc.quantile_error(np.ones(50), 0.5) == 0


@pytest.mark.parametrize("kind", ["ks", "quantile", "fraction"])
def test_same_distribution_false_fail_rate(kind):
    """Judged by the errors alone (no fixed tolerance), each kind of check
    fails in about 1e-3 of same-distribution trials; 1e4 trials each."""
    rng = np.random.default_rng({"ks": 2, "quantile": 3, "fraction": 4}[kind])
    trials, fails = 0, 0
    for _ in range(10000 if kind != "quantile" else 3400):
        if kind == "fraction":
            n, f = 2500, rng.choice([0.05, 0.45])
            c = [vc.fraction_check("mu-", "s", (rng.binomial(n, f), n, rng.binomial(n, f), n),
                                   STATS_ONLY)]
        else:
            a, b = 320 - rng.lognormal(4.2, 0.5, 144), 320 - rng.lognormal(4.2, 0.5, 130)
            c = ([vc.ks_check("g", "|p|", a, b, STATS_ONLY)] if kind == "ks" else
                 [vc.quantile_check("g", q, a, b, STATS_ONLY) for q in vc.QUANTILES])
        trials += len(c)
        fails += sum(not x["pass"] for x in c)
    # ~1e-3 expected: 25 fails of 1e4 is beyond 4 Poisson sd of 10.
    assert fails <= 2.5e-3 * trials, f"{fails} of {trials}"


def test_ten_runs_at_5000_muons_fail_at_most_one_check(tmp_path):
    """As the SHiP example at --n 5000 over ten seeds: 280 checks."""
    pv = _module("plot_validate")
    pv.plt = None  # no PNGs: the checks only
    failed, total = [], 0
    for seed in range(10):
        rng = np.random.default_rng(100 + seed)
        fast, det = muons(5000, rng), muons(5000, rng)
        checks = []
        pv.plane_checks(fast, det, DEFAULTS, str(tmp_path), checks)
        pv.fraction_checks(fast, det, DEFAULTS, checks)
        total += len(checks)
        failed += [c["what"] for c in checks if not c["pass"]]
    assert total == 280
    assert len(failed) <= 1, failed


def test_same_distribution_passes_and_says_why(tmp_path):
    rng = np.random.default_rng(5)
    write_run(tmp_path, muons(5000, rng), muons(5000, rng))
    rc, s = judge(tmp_path)
    assert rc == 0 and s["passed"] and len(s["checks"]) == 28
    for c in s["checks"]:
        assert c["passed_by"] in ("tolerance", "statistics")
        assert c["method"]
        if c["kind"] != "ks":
            assert c["error"] >= 0
    md = (tmp_path / "summary.md").read_text()
    assert "**PASSED**" in md and "pass (tolerance)" in md and "pass (statistics)" in md


def test_momentum_shift_beyond_tolerance_and_error_fails(tmp_path):
    # |p| 10 % lower in the fast engine: twice quantile_rel, and at 20000
    # muons (~550 per charge in the window) many errors of the quantiles.
    rng = np.random.default_rng(6)
    write_run(tmp_path, muons(20000, rng, p_scale=0.9), muons(20000, rng))
    rc, s = judge(tmp_path)
    assert rc == 1 and not s["passed"]
    bad = [c for c in s["checks"] if not c["pass"]]
    assert {c["kind"] for c in bad} >= {"quantile", "ks"}
    assert all(c["passed_by"] is None for c in bad)
    assert "**FAILED**" in (tmp_path / "summary.md").read_text()


def test_status_fraction_shift_beyond_tolerance_and_error_fails(tmp_path):
    # 5 points more muons stopped in the fast engine: 5 x fraction_abs and
    # ~3.5 binomial errors at 2500 muons per charge, ~5 at 5000.
    rng = np.random.default_rng(7)
    shifted = [0.055, 0.58, 0.002, 0.0, 0.363]
    write_run(tmp_path, muons(10000, rng, status_p=shifted), muons(10000, rng))
    rc, s = judge(tmp_path)
    assert rc == 1
    bad = [c["what"] for c in s["checks"] if not c["pass"]]
    assert any("fraction 'stopped'" in w for w in bad), bad


def test_shift_within_error_passes_by_statistics(tmp_path):
    # 8 % lower |p| with only ~30 muons per charge in the window: beyond
    # quantile_rel but within the errors of so few muons.
    rng = np.random.default_rng(8)
    status_p = [0.06, 0.53, 0.0, 0.0, 0.41]
    write_run(tmp_path, muons(1000, rng, p_scale=0.92, status_p=status_p),
              muons(1000, rng, status_p=status_p))
    rc, s = judge(tmp_path)
    q = [c for c in s["checks"] if c["kind"] == "quantile"]
    assert any(c["passed_by"] == "statistics" and c["value"] > DEFAULTS["quantile_rel"] for c in q)


def test_plots_share_bins_sized_for_the_counts():
    pv = _module("plot_validate")
    rng = np.random.default_rng(9)
    few = pv.bin_edges(rng.normal(size=40), rng.normal(size=5000))
    many = pv.bin_edges(rng.normal(size=5000), rng.normal(size=5000))
    assert pv.MIN_BINS <= len(few) - 1 < len(many) - 1 <= pv.MAX_BINS
    assert len(pv.bin_edges(np.ones(30), np.ones(30))) - 1 == pv.MIN_BINS
