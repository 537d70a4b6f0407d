"""The tensor-variate Gaussian distribution (TVG Defs. 6 and 8, Eqs. 8–9).

``Z ~ TVG(M, Σ₁, …, Σ_N)`` means ``Z = M + N ×₁ U₁ ×₂ ⋯ ×_N U_N`` with ``N`` i.i.d. standard
normal and ``U_k U_kᵀ = Σ_k``; equivalently ``vec_F(Z) ~ N(vec_F(M), Σ_N ⊗ ⋯ ⊗ Σ₁)``. The
sampler applies the factors mode by mode: memory ``O(I + Σ I_k²)``, time ``O(I Σ I_k)``; the
``I × I`` Kronecker covariance is never formed.

Def. 8 allows positive *semi*definite covariances; the density (Eq. 9) and every theorem of the
paper need invertible factors, so positive definite ones are required here.
"""
from __future__ import annotations

import math

import numpy as np

from ldp_companion.tensor.algebra import multi_mode_product
from ldp_companion.validation import check_rng

__all__ = ["check_covariance", "square_root", "sample_tvg", "tvg_logpdf"]


def check_covariance(matrix, name: str = "covariance", size: int | None = None) -> np.ndarray:
    """A symmetric positive definite matrix (float64), or a ``ValueError`` saying what is wrong."""
    s = np.asarray(matrix, dtype=float)
    if s.ndim != 2 or s.shape[0] != s.shape[1]:
        raise ValueError(f"{name} must be a square matrix, got shape {s.shape}")
    if size is not None and s.shape[0] != size:
        raise ValueError(f"{name} must be {size} × {size} to match the tensor, got {s.shape}")
    if not np.all(np.isfinite(s)):
        raise ValueError(f"{name} must be finite")
    if not np.allclose(s, s.T, rtol=1e-10, atol=1e-12 * max(1.0, np.abs(s).max())):
        raise ValueError(f"{name} must be symmetric")
    try:
        np.linalg.cholesky(s)
    except np.linalg.LinAlgError:
        raise ValueError(f"{name} must be positive definite (TVG's density and Theorem 1 need "
                         f"invertible factors; Def. 8's 'semidefinite' is not enough)") from None
    return s


def square_root(covariance, method: str = "cholesky") -> np.ndarray:
    """A factor ``U`` with ``U Uᵀ = Σ``: ``"cholesky"`` (lower triangular) or ``"eigh"``
    (``W diag(√λ)``). Any choice gives the same law and ``‖U⁻¹‖²_F = tr Σ⁻¹``."""
    s = check_covariance(covariance)
    if method == "cholesky":
        return np.linalg.cholesky(s)
    if method == "eigh":
        lam, w = np.linalg.eigh(s)
        return w * np.sqrt(lam)
    raise ValueError(f"method must be 'cholesky' or 'eigh', got {method!r}")


def _factors(shape, covariances, factors):
    if (covariances is None) == (factors is None):
        raise ValueError("give exactly one of covariances= or factors=")
    given = covariances if covariances is not None else factors
    if len(given) != len(shape):
        raise ValueError(f"need one factor per mode ({len(shape)}), got {len(given)}")
    if covariances is not None:
        return [None if s is None else square_root(check_covariance(s, f"covariances[{k}]", n))
                for k, (s, n) in enumerate(zip(covariances, shape))]
    out = []
    for k, (u, n) in enumerate(zip(factors, shape)):
        if u is None:
            out.append(None)
            continue
        u = np.asarray(u, dtype=float)
        if u.shape != (n, n):
            raise ValueError(f"factors[{k}] must be {n} × {n}, got {u.shape}")
        if not np.all(np.isfinite(u)) or abs(np.linalg.det(u)) == 0.0:
            raise ValueError(f"factors[{k}] must be finite and invertible")
        out.append(u)
    return out


def sample_tvg(shape, *, rng, covariances=None, factors=None, size: int | None = None,
               mean=None) -> np.ndarray:
    """Draw ``Z ~ TVG(mean, Σ₁, …, Σ_N)`` by mode-n products (Eq. 8).

    Parameters
    ----------
    shape : tuple of int
        ``(I₁, …, I_N)``.
    rng : numpy.random.Generator
    covariances, factors : sequence of (Iₖ × Iₖ) arrays or ``None``
        Exactly one of them: the covariances ``Σₖ`` (positive definite; factored by Cholesky)
        or the factors ``Uₖ`` themselves. ``None`` for a mode means the identity.
    size : int, optional
        Number of independent draws; the result then has shape ``(size, *shape)``.
    mean : array_like, optional
        Added to every draw (default 0).
    """
    shape = tuple(int(s) for s in shape)
    us = _factors(shape, covariances, factors)
    rng = check_rng(rng)
    batched = size is not None
    draw = rng.standard_normal(((int(size),) if size is not None else ()) + shape)
    z = multi_mode_product(draw, us, batched=batched)
    return z if mean is None else z + np.asarray(mean, dtype=float)


def tvg_logpdf(z, covariances, mean=None) -> float:
    """Log-density of Eq. 9:
    ``−½ I ln 2π − Σₖ (I/Iₖ) ln|det Uₖ| − ½ ‖(Z − M) ×₁ U₁⁻¹ ⋯ ×_N U_N⁻¹‖²``."""
    z = np.asarray(z, dtype=float)
    if len(covariances) != z.ndim:
        raise ValueError(f"need one covariance per mode ({z.ndim}), got {len(covariances)}")
    us = [square_root(check_covariance(s, f"covariances[{k}]", n))
          for k, (s, n) in enumerate(zip(covariances, z.shape))]
    centred = z if mean is None else z - np.asarray(mean, dtype=float)
    white = multi_mode_product(centred, [np.linalg.inv(u) for u in us])
    size = z.size
    log_det = sum(size / n * np.log(abs(np.linalg.det(u))) for u, n in zip(us, z.shape))
    return float(-0.5 * size * math.log(2 * math.pi) - log_det - 0.5 * np.sum(white**2))
