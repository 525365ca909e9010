"""The checks of `fastmu validate` (imported by plot_validate.py).

Each check compares one statistic of the fast transport with the detailed
engine and passes when the difference is within its fixed tolerance or is
explained by the statistical error of the two samples. Every check returns a
dict: what, kind, value, limit, difference, error, method, pass and passed_by
("tolerance", "statistics" or None when it fails).

Errors (see docs/detailed-engine-and-validation.md, "fastmu validate"):
  - quantile: the distribution-free standard error of a sample quantile from
    order statistics (quantile_error);
  - status fraction: the binomial error sqrt(f1(1-f1)/n1 + f2(1-f2)/n2);
  - distribution: the two-sample Kolmogorov-Smirnov p-value (ks_test).
"""
import math

import numpy as np

QUANTILES = (0.1, 0.5, 0.9)
# Half-width, in binomial standard deviations, of the rank interval that
# brackets a quantile (2: ~95 %). Spacings over fewer ranks (z = 1) are noisier
# and gave the error ratio heavier tails in simulation.
RANK_Z = 2.0


def ks_test(x, y):
    """Two-sample KS statistic D and its asymptotic p-value (Numerical Recipes
    3rd ed. 14.3.3, with Stephens' small-sample correction of lambda)."""
    x, y = np.sort(x), np.sort(y)
    grid = np.concatenate([x, y])
    d = np.max(np.abs(np.searchsorted(x, grid, side="right") / len(x)
                      - np.searchsorted(y, grid, side="right") / len(y)))
    en = math.sqrt(len(x) * len(y) / (len(x) + len(y)))
    lam = (en + 0.12 + 0.11 / en) * d
    if lam < 1e-3:
        return float(d), 1.0
    p = 2.0 * sum((-1) ** (j - 1) * math.exp(-2.0 * j * j * lam * lam) for j in range(1, 101))
    return float(d), float(min(max(p, 0.0), 1.0))


def quantile_error(x, q, z=RANK_Z):
    """Standard error of the sample q-quantile of x, without assuming a shape.

    The number of values below the true quantile is binomial(n, q), so the
    order statistics x_(j), x_(k) with ranks j, k = q (n-1) -+ z sqrt(n q (1-q))
    (j rounded down, k up, both clipped to [0, n-1]) bracket it with the
    binomial probability of +-z standard deviations. Their spacing per rank
    estimates the slope dx/dF of the quantile function, so
        s = sqrt(n q (1-q)) (x_(k) - x_(j)) / (k - j),
    the asymptotic sqrt(q (1-q) / n) / f(x_q) with the density f estimated from
    the sample; unclipped, s = (x_(k) - x_(j)) / (2 z).
    """
    x = np.sort(np.asarray(x, dtype=float))
    n = len(x)
    if n < 2:
        return float("inf")
    sd = math.sqrt(n * q * (1.0 - q))
    m = q * (n - 1)
    j = min(max(math.floor(m - z * sd), 0), n - 1)
    k = min(max(math.ceil(m + z * sd), 0), n - 1)
    return float(sd * (x[k] - x[j]) / max(k - j, 1))


def judged(within_tolerance, within_error):
    """passed_by of a check that passes within either."""
    if within_tolerance:
        return "tolerance"
    return "statistics" if within_error else None


def result(what, kind, value, limit, difference, error, method, passed_by):
    return {"what": what, "kind": kind, "value": value, "limit": limit, "difference": difference,
            "error": error, "method": method, "pass": passed_by is not None,
            "passed_by": passed_by}


def ks_check(label, quantity, a, b, tol):
    """Fails when the two samples differ more than chance explains at p >= ks_p_min."""
    d, p = ks_test(a, b)
    ok = p >= tol["ks_p_min"]
    return result(f"{label} {quantity}: KS p-value", "ks", p, f">= {tol['ks_p_min']}", d, None,
                  "two-sample Kolmogorov-Smirnov p-value (asymptotic); difference = D",
                  "statistics" if ok else None)


def quantile_check(label, q, a, b, tol):
    """|q_f - q_d| <= quantile_rel |q_d|, or <= quantile_sigma sqrt(s_f^2 + s_d^2)."""
    qa, qb = float(np.quantile(a, q)), float(np.quantile(b, q))
    diff = qa - qb
    err = math.hypot(quantile_error(a, q), quantile_error(b, q))
    rel = abs(diff) / abs(qb) if qb != 0 else float("inf")
    passed_by = judged(rel <= tol["quantile_rel"], abs(diff) <= tol["quantile_sigma"] * err)
    return result(f"{label} |p| {round(q * 100)} % quantile: fast {qa:.4g} vs detailed {qb:.4g}",
                  "quantile", rel, f"<= {tol['quantile_rel']} relative or |diff| <= "
                  f"{tol['quantile_sigma']} x {err:.3g}", diff, err,
                  f"order-statistic standard error, ranks +-{RANK_Z:g} binomial sd",
                  passed_by)


def fraction_check(name, label, counts, tol):
    """|f_f - f_d| <= fraction_abs, or <= fraction_sigma x the binomial error.

    counts: (k_fast, n_fast, k_detailed, n_detailed)."""
    kf, nf, kd, nd = counts
    a, b = kf / nf, kd / nd
    diff = a - b
    err = math.sqrt(a * (1 - a) / nf + b * (1 - b) / nd)
    passed_by = judged(abs(diff) <= tol["fraction_abs"], abs(diff) <= tol["fraction_sigma"] * err)
    return result(f"{name} fraction '{label}': fast {a:.4f} vs detailed {b:.4f}", "fraction", diff,
                  f"|diff| <= {tol['fraction_abs']} or <= {tol['fraction_sigma']} x {err:.2g}",
                  diff, err, "binomial sqrt(f1(1-f1)/n1 + f2(1-f2)/n2)", passed_by)
