"""The covariance task of Fig. 5 (Sec. VIII-D, Eq. 33) on the UCI CTG table, and the two
baselines only it uses: the JL transform (Blocki et al. 2012, the paper's [4]) and the Matrix
Mechanism (Def. 10, the paper's [3]).

The query is ``f(X) = XᵀX / N`` for records ``x_j ∈ [−1, 1]^d`` (the paper writes ``X Xᵀ`` with
records as columns). One record changes ``f`` by ``(x xᵀ − x′x′ᵀ)/N``: every entry by at most
``2/N`` and the Frobenius norm by at most ``2d/N`` (``‖x xᵀ‖_F = ‖x‖² ≤ d``), so ``s₂ = 2d/N``
(the paper: 52/2126 for d = 26; the CTG table has d = 21 features, 42/2126).
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ldp_companion.data.datasets import load_ctg, scale_to_unit_interval
from ldp_companion.tensor.calibration import check_delta
from ldp_companion.tvg.release import iid_release
from ldp_companion.validation import check_epsilon, check_positive_int, check_rng

__all__ = ["ctg_records", "covariance", "sensitivity", "release_covariance", "rss",
           "jl_covariance", "mm_strategy", "mm_error", "ctg_grid", "CTG_MECHANISMS",
           "COVARIANCE_MECHANISMS"]

#: Mechanisms of :func:`release_covariance` (``"jl"`` is the JL transform).
COVARIANCE_MECHANISMS = ("gauss_l2", "gauss_analytic", "idn", "gauss_paper", "udn", "tvg",
                         "mvg", "jl")
#: Mechanisms of the CTG panel (Fig. 5), in the page's order.
CTG_MECHANISMS = ("idn", "gauss_paper", "udn", "tvg", "mvg", "jl", "gauss_analytic")


def ctg_records() -> np.ndarray:
    """The 2126 CTG records, each of the 21 features scaled to [−1, 1] (min–max)."""
    features, _ = load_ctg()
    return scale_to_unit_interval(features)


def covariance(x) -> np.ndarray:
    """``S = XᵀX / N`` for records as rows."""
    x = np.asarray(x, float)
    return x.T @ x / x.shape[0]


def sensitivity(n: int, d: int) -> tuple[float, float]:
    """``(s₂, b − a) = (2d/N, 2/N)``: the query's ℓ2 sensitivity and per-entry range."""
    n, d = check_positive_int(n, "n"), check_positive_int(d, "d")
    return 2.0 * d / n, 2.0 / n


def release_covariance(mechanism: str, x, epsilon, delta=1e-5, *, rng,
                       jl_rows: int | None = None) -> np.ndarray:
    """A private ``Ŝ`` (symmetrised: post-processing) of the records ``x`` (rows in [−1, 1]).

    All but ``"jl"`` add i.i.d. noise to ``S`` (``W = E``: the paper gives no utility subspace
    for this task, and MM with ``W = E`` is the Gaussian mechanism); MVG uses
    ``γ = sup ‖S‖_F = d``.
    """
    x = np.asarray(x, float)
    n, d = x.shape
    if mechanism == "jl":
        return jl_covariance(x, epsilon, delta, rng=rng, rows=jl_rows or 4 * d)
    s2, width = sensitivity(n, d)
    noisy = iid_release(mechanism, covariance(x), epsilon, delta, rng=rng, value_range=width,
                        l2_sensitivity=s2, gamma=float(d))
    return (noisy + noisy.T) / 2.0


def rss(s, s_hat, eigenvalues: str = "released") -> float:
    """Residual sum of squares of Eq. 33: ``Σᵢ (λᵢ − v̂ᵢᵀ S v̂ᵢ)²`` over the eigenvectors ``v̂ᵢ``
    of ``Ŝ``. ``eigenvalues="released"`` takes ``λᵢ`` of ``Ŝ`` (as printed);
    ``"true"`` takes those of ``S`` (both in decreasing order; the MVG/JL papers' reading)."""
    lam_hat, v = np.linalg.eigh(np.asarray(s_hat, float))
    rho = np.einsum("ij,ik,kj->j", v, np.asarray(s, float), v)
    if eigenvalues == "released":
        lam = lam_hat
    elif eigenvalues == "true":
        lam = np.linalg.eigvalsh(np.asarray(s, float))
    else:
        raise ValueError(f"eigenvalues must be 'released' or 'true', got {eigenvalues!r}")
    return float(np.sum((lam - rho) ** 2))


def jl_covariance(x, epsilon, delta=1e-5, *, rng, rows: int) -> np.ndarray:
    """JL-transform estimate of ``XᵀX / N`` (Blocki, Blum, Datta & Sheffet 2012, Alg. 1).

    Records are scaled to norm ≤ 1 (÷√d); the singular values of ``A`` are raised to
    ``√(s² + w²)`` with ``w = 16 √(r ln(2/δ)) ln(16r/δ) / ε``; the output is
    ``(d/N) ((1/r) A′ᵀMᵀMA′ − w² I)`` with ``M`` an ``r × N`` Gaussian matrix.
    """
    x = np.asarray(x, float)
    n, d = x.shape
    eps, delta = check_epsilon(epsilon), check_delta(delta)
    r = check_positive_int(rows, "rows")
    a = x / math.sqrt(d)
    u, s, vt = np.linalg.svd(a, full_matrices=False)
    w = 16.0 * math.sqrt(r * math.log(2.0 / delta)) * math.log(16.0 * r / delta) / eps
    a_raised = (u * np.sqrt(s**2 + w**2)) @ vt
    proj = check_rng(rng).standard_normal((r, n)) @ a_raised
    est = proj.T @ proj / r - w**2 * np.eye(d)
    return d / n * (est + est.T) / 2.0


def mm_error(w, a, epsilon, delta=1e-5) -> float:
    """Expected squared error of the Matrix Mechanism with strategy ``A`` on workload ``W``
    (Def. 10, with ``‖A‖`` squared as it must be): ``‖A‖² ‖W A⁺‖²_F · 2 ln(2/δ)/ε²``, ``‖A‖``
    the largest column ℓ2 norm (Li et al. 2015)."""
    w, a = np.asarray(w, float), np.asarray(a, float)
    col = float(np.max(np.linalg.norm(a, axis=0)))
    var = 2.0 * math.log(2.0 / check_delta(delta)) / check_epsilon(epsilon) ** 2
    return col**2 * float(np.linalg.norm(w @ np.linalg.pinv(a)) ** 2) * var


def mm_strategy(w, *, rng, steps: int = 500, lr: float = 0.05) -> np.ndarray:
    """A strategy ``A`` (square, unit-norm columns) that lowers ``tr(WᵀW (AᵀA)⁻¹)``, by
    projected gradient descent from a random start (the paper cites an SDP; this is the
    usual first-order substitute). For ``W = E`` the optimum is ``A = E`` up to signs."""
    w = np.asarray(w, float)
    g = w.T @ w
    n = g.shape[0]
    a = np.eye(n) + 0.3 * check_rng(rng).standard_normal((n, n))
    a /= np.linalg.norm(a, axis=0)
    for _ in range(check_positive_int(steps, "steps")):
        inv = np.linalg.inv(a.T @ a)
        grad = -2.0 * a @ inv @ g @ inv
        a = a - lr * grad / max(1.0, np.linalg.norm(grad))
        a /= np.linalg.norm(a, axis=0)
    return a


def ctg_grid(x, mechanisms, eps_grid, runs: int, delta=1e-5, *, rng) -> pd.DataFrame:
    """Fig. 5's covariance panel: the RSS (Eq. 33) of ``runs`` releases of ``Ŝ`` per
    (mechanism, ε), drawn from ``rng`` in that order (mechanism, then ε, then run).

    Returns
    -------
    DataFrame
        One row per release: ``task`` (``"ctg"``), ``mechanism``, ``epsilon``, ``run``,
        ``rss``.
    """
    x = np.asarray(x, float)
    s, runs = covariance(x), check_positive_int(runs, "runs")
    rows = [{"task": "ctg", "mechanism": m, "epsilon": eps, "run": run,
             "rss": rss(s, release_covariance(m, x, eps, delta, rng=rng))}
            for m in mechanisms for eps in eps_grid
            for run in range(runs)]
    return pd.DataFrame(rows)
