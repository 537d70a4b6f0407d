"""Generalized Randomized Response for the level report (Sec. 3.1; Alg. 3 step 2)."""
from __future__ import annotations

import numpy as np

from ldp_companion.validation import check_positive_int, check_rng

__all__ = ["grr", "grr_matrix"]


def _check_levels_array(t, k: int) -> np.ndarray:
    arr = np.asarray(t)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"t must hold integer levels, got dtype {arr.dtype}")
    if arr.size and (arr.min() < 1 or arr.max() > k):
        raise ValueError(f"t must hold levels in 1..{k}; got values in [{arr.min()}, {arr.max()}]")
    return arr.astype(np.int64, copy=False)


def grr(t, epsilon, k: int, rng: np.random.Generator) -> np.ndarray:
    """Perturb levels ``t`` in 1..k with GRR: keep w.p. ``e^eps / (e^eps + k - 1)``, otherwise
    report each other level w.p. ``1 / (e^eps + k - 1)``.

    Parameters
    ----------
    t : array_like of int
        True levels in 1..k.
    epsilon : float or array_like
        Budget, broadcastable to ``t`` (LHP uses the budget of each user's true level).
    k : int
        Number of levels.
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of int64, same shape as ``t``.
    """
    k = check_positive_int(k, "k")
    rng = check_rng(rng)
    t = _check_levels_array(t, k)
    eps = np.asarray(epsilon, dtype=np.float64)
    if not np.all(np.isfinite(eps)) or np.any(eps <= 0):
        raise ValueError("epsilon must be finite and > 0")
    return _grr(t, eps, k, rng)


def _grr(t: np.ndarray, eps, k: int, rng: np.random.Generator) -> np.ndarray:
    """:func:`grr` on checked arguments: ``t`` int64 levels in 1..k, ``eps`` finite > 0."""
    if k == 1:
        return t.copy()
    # P(keep) = e^eps / (e^eps + k - 1) = 1 / (1 + (k - 1) e^-eps), no overflow for large eps
    keep = rng.random(t.shape) < 1.0 / (1.0 + (k - 1) * np.exp(-eps))
    other = rng.integers(1, k, size=t.shape)            # uniform on 1..k-1 ...
    other += other >= t                                 # ... mapped onto {1..k} \ {t}
    return np.where(keep, t, other)


def grr_matrix(epsilons) -> np.ndarray:
    """``G[a - 1, d - 1] = P(t* = d | t = a)`` when level ``a`` reports with ``epsilons[a - 1]``.

    Parameters
    ----------
    epsilons : array_like
        One budget per level (``Levels.epsilons``); ``k = len(epsilons)``.
    """
    eps = np.asarray(epsilons, dtype=np.float64)
    if eps.ndim != 1 or eps.size < 1 or not np.all(np.isfinite(eps)) or np.any(eps <= 0):
        raise ValueError("epsilons must be a non-empty 1-D array of finite budgets > 0")
    k = eps.size
    denom = np.exp(eps) + (k - 1)
    G = np.repeat((1.0 / denom)[:, None], k, axis=1)
    G[np.diag_indices(k)] = np.exp(eps) / denom
    return G
