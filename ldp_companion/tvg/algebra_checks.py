"""Chapter 2's checks of the tensor algebra (Yang et al. 2021, Defs. 3–5 and 8, Lemmas 1–3,
Corollary 1): each ``*_check`` function draws its random inputs from the page's generator and
returns what it measured; each ``record_*`` function states the paper's claim and records it in
the chapter's ledger, which computes the verdict.

The checks build both sides independently: the unfolding from Eq. 4's index map written out,
Kronecker products from numpy, densities from scipy.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy.stats import multivariate_normal

from ldp_companion.tensor.algebra import (
    kolda_column,
    kron_covariance,
    multi_mode_product,
    unfold,
    vec,
)
from ldp_companion.tensor.variate import sample_tvg, tvg_logpdf
from ldp_companion.tvg import bounds

__all__ = ["random_spd", "lemma1_check", "record_lemma1", "mode_covariance_check",
           "record_mode_covariance", "lemma2_check", "record_lemma2", "lemma3_table",
           "record_lemma3", "LEMMA3_SIZES", "reshape_check", "record_reshape"]

#: Tensor sizes of the Lemma 3 check: from one entry to Type I MNIST's 3136 × 512 gradient.
LEMMA3_SIZES = (1, 8, 100, 1_000, 10_000, 100_000, 256 * 16 * 5 * 5, 3136 * 512)


def random_spd(rng: np.random.Generator, n: int, ridge: float) -> np.ndarray:
    """A random positive definite ``n × n`` matrix ``A Aᵀ + ridge · E`` (``A`` standard
    normal), a covariance factor of Def. 8."""
    a = rng.standard_normal((n, n))
    return a @ a.T + ridge * np.eye(n)


def lemma1_check(rng: np.random.Generator, shape=(3, 4, 2)) -> dict:
    """Lemma 1 (Eq. 6), Eq. 4's index map and Eq. 9's density on one random tensor.

    Draws ``X`` and one square factor per mode, then positive definite covariances
    ``Σₖ`` and one TVG draw ``Z``.

    Returns
    -------
    dict
        ``lemma1_err`` (largest ``|Y_(n) − Uₙ X_(n) (⊗ other U)ᵀ|`` per mode), ``index_err``
        (Eq. 4's map entry by entry), ``eq9`` and ``ref9`` (the TVG log density and scipy's
        normal log density of ``vec Z``), ``shape`` and ``spd`` (the covariances, reused by
        :func:`mode_covariance_check`).
    """
    x = rng.standard_normal(shape)
    us = [rng.standard_normal((n, n)) for n in shape]
    y = multi_mode_product(x, us)
    modes = range(len(shape))
    lemma1_err = []
    for n in modes:
        rest = [us[k] for k in reversed(modes) if k != n]
        kron = rest[0]
        for u in rest[1:]:
            kron = np.kron(kron, u)
        lemma1_err.append(np.abs(unfold(y, n) - us[n] @ unfold(x, n) @ kron.T).max())
    index_err = max(abs(unfold(x, n)[i[n], kolda_column(i, n, shape)] - x[i])
                    for n in modes for i in np.ndindex(shape))
    spd = [random_spd(rng, n, n) for n in shape]
    z = sample_tvg(shape, rng=rng, covariances=spd)
    ref9 = multivariate_normal(np.zeros(math.prod(shape)), kron_covariance(spd)).logpdf(vec(z))
    return {"lemma1_err": lemma1_err, "index_err": index_err, "eq9": tvg_logpdf(z, spd),
            "ref9": ref9, "shape": tuple(shape), "spd": spd}


def record_lemma1(ledger, check: dict) -> None:
    """Record Lemma 1 and Def. 8's density (Eq. 9) from :func:`lemma1_check`."""
    ledger.compare(
        "lemma1",
        "Lemma 1: the mode-n unfolding of a multi-mode product is U_n X_(n) (⊗ of the"
        " other U)ᵀ (shape 3×4×2, every mode; Eq. 4's index map entry by entry)",
        max(check["lemma1_err"] + [check["index_err"]]), "<=", 1e-12,
        names=("largest error", "round-off"))
    ledger.close(
        "def8-density",
        "Def. 8, Eq. 9: the TVG density is the normal density of vec Z with covariance"
        " Σ₃ ⊗ Σ₂ ⊗ Σ₁",
        check["ref9"], check["eq9"], atol=1e-9)


def mode_covariance_check(rng: np.random.Generator, shape, spd, n_draws: int) -> dict:
    """Def. 8's mode covariances by Monte Carlo: ``E[Z_(n) Z_(n)ᵀ] / Π_(k≠n) tr Σₖ`` against
    ``Σₙ`` for every mode, from ``n_draws`` TVG draws.

    Returns
    -------
    dict
        ``mode_err`` (largest relative error per mode), ``n`` and ``same`` (the largest
        difference between draws of ``(Σ₁, Σ₂, Σ₃)`` and ``(4Σ₁, Σ₂/4, Σ₃)`` from one seed:
        the factors are defined only up to scale).
    """
    draws = sample_tvg(shape, rng=rng, covariances=spd, size=n_draws)
    mode_err = []
    for n in range(len(shape)):
        u = np.moveaxis(draws, n + 1, 1).reshape(n_draws, shape[n], -1)
        emp = np.einsum("bij,bkj->ik", u, u) / n_draws
        other = math.prod(np.trace(c) for k, c in enumerate(spd) if k != n)
        mode_err.append(np.abs(emp / other - spd[n]).max() / np.abs(spd[n]).max())
    scaled = [4.0 * spd[0], spd[1] / 4.0, *spd[2:]]
    same = np.abs(sample_tvg(shape, rng=np.random.default_rng(1), covariances=spd)
                  - sample_tvg(shape, rng=np.random.default_rng(1), covariances=scaled)).max()
    return {"mode_err": mode_err, "n": n_draws, "same": same}


def record_mode_covariance(ledger, check: dict) -> None:
    """Record Def. 8's mode covariances from :func:`mode_covariance_check`: the relative
    error of a covariance estimate from n draws is about √(2/n); the check allows six times
    that."""
    n = check["n"]
    ledger.compare(
        "def8-mode-cov",
        "Def. 8: Σₙ is the covariance of mode n (Monte Carlo: E[Z_(n) Z_(n)ᵀ] / Π_(k≠n)"
        f" tr Σₖ against Σₙ, {n:,} draws, every mode)",
        max(check["mode_err"]), "<=", 6 * math.sqrt(2 / n),
        names=("largest relative error", "6·√(2/n)"),
        note=f"only up to scale: (4Σ₁, Σ₂/4) gives the same draw to {check['same']:.0e}")


def lemma2_check(rng: np.random.Generator, n_cases: int) -> dict:
    """Lemma 2, ``‖Y ×ₖ Uₖ‖_F ≤ ‖Y‖_F Πₖ ‖Uₖ‖_F``, on ``n_cases`` random shapes (2–4 modes of
    1–5) and rectangular factors.

    Returns
    -------
    dict
        ``ratios`` (left side over the Frobenius bound) and ``spectral`` (over the bound with
        spectral norms, which would hold too), one per case.
    """
    ratios, spectral = [], []
    for _ in range(n_cases):
        shp = tuple(rng.integers(1, 6, size=rng.integers(2, 5)))
        yy = rng.standard_normal(shp)
        uu = [rng.standard_normal((rng.integers(1, 6), n)) for n in shp]
        lhs = np.linalg.norm(multi_mode_product(yy, uu)) / np.linalg.norm(yy)
        ratios.append(lhs / np.prod([np.linalg.norm(u) for u in uu]))
        spectral.append(lhs / np.prod([np.linalg.norm(u, 2) for u in uu]))
    return {"ratios": ratios, "spectral": spectral}


def record_lemma2(ledger, check: dict) -> None:
    """Record Lemma 2 from :func:`lemma2_check`."""
    ratios = check["ratios"]
    ledger.compare(
        "lemma2",
        f"Lemma 2: ‖Y ×ₖ Uₖ‖ ≤ ‖Y‖ Π ‖Uₖ‖_F ({len(ratios):,} random shapes and factors)",
        max(ratios), "<=", 1.0, rtol=1e-12, names=("largest ratio", "1"),
        note=(f"median ratio {np.median(ratios):.2f}; with spectral norms the largest is"
              f" {max(check['spectral']):.4f}"))


def lemma3_table(delta: float, sizes=LEMMA3_SIZES) -> pd.DataFrame:
    """Lemma 3 per tensor size ``I``: ``ζ(δ)²/I`` and the χ²_I tail ``Pr[‖N‖² > ζ(δ)²]``."""
    return pd.DataFrame({
        "I": list(sizes),
        "ζ(δ)² / I": [bounds.zeta2(i, delta) / i for i in sizes],
        "Pr[‖N‖² > ζ²]": [bounds.lemma3_tail(i, delta) for i in sizes],
    }).set_index("I")


def record_lemma3(ledger, table: pd.DataFrame, delta: float) -> None:
    """Record Lemma 3 (the tail is at most δ at every size) from :func:`lemma3_table`."""
    ledger.compare(
        "lemma3",
        f"Lemma 3: Pr[‖N‖² > ζ(δ)²] ≤ δ = {delta:g} (χ² tail, I from 1 to 1.6 million)",
        table["Pr[‖N‖² > ζ²]"].to_numpy(), "<=", delta, names=("tail", "δ"))


def reshape_check(rng: np.random.Generator) -> list[float]:
    """Corollary 1 and Fig. 1: Theorem 1's left side ``Π tr Σₖ⁻¹`` for random 2 × 2 factors
    of a 2×2×2 tensor, the 2×4 reshape (``Σ₃ ⊗ Σ₂`` merged) and the vector of 8."""
    c3 = [random_spd(rng, 2, 1.0) for _ in range(3)]
    return [bounds.condition_lhs(c3), bounds.condition_lhs([c3[0], np.kron(c3[2], c3[1])]),
            bounds.condition_lhs([kron_covariance(c3)])]


def record_reshape(ledger, lhs: list[float]) -> None:
    """Record Corollary 1 from :func:`reshape_check`."""
    ledger.close(
        "cor1-reshape",
        "Corollary 1, Fig. 1: Theorem 1's left side is the same for 2×2×2, 2×4 and 8"
        " (Kronecker-merged factors)",
        lhs[0], lhs, rtol=1e-12)
