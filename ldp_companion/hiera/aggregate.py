"""HierA's aggregation (Alg. 5, collection side): pools, compensation copies, debiasing.

Two pool rules:

* ``"paper"`` (Alg. 5; the paper's text garbles step 5, rebuilt here): pool ``j`` holds
  ``m_j = max(1, mu - k + j)`` copies of ``V_j`` (the original plus the "compensation"
  copies) and one PLC conversion ``V_{l->j}`` of every ``V_l`` with
  ``max(1, j - mu + 1) <= l < j``. Every report then counts exactly ``mu`` times.
  ``compensation=False`` keeps one copy of ``V_j``: users who report high levels then weigh
  less and the estimate is biased (as the sentence closing Alg. 5 warns).
* ``"block"`` (the authors' prototype): levels form consecutive blocks of ``mu``, the last
  one ending at ``k``; every report is converted once to its block's top level
  ``h(i) = min(k, mu * ceil(i / mu))``.

Each pool is debiased with its own ``p_j`` (step 6), its counts clipped to ``[0, N_j]`` (the
paper; ``clip=False`` is exactly unbiased, Thm 3), and ``m* = sum_j S_j / sum_j N_j`` (step 7).
Everything works on counts per (level, sign), so the cost after LHP is ``O(k^2)``.
"""
from __future__ import annotations

import numpy as np

from ldp_companion.hiera.grr import _check_levels_array
from ldp_companion.hiera.levels import Levels
from ldp_companion.hiera.protocol import (
    FLIP_RULES,
    _check_levels,
    _keep_probability,
    _plc_counts,
    lhp,
)
from ldp_companion.mechanisms.harmony import _check_bits
from ldp_companion.validation import check_positive_int, check_rng

__all__ = ["POOL_RULES", "check_mu", "block_top", "pool_plan", "report_counts", "pool_sums",
           "aggregate_counts", "aggregate", "estimate_mean"]

POOL_RULES = ("paper", "block")


def check_mu(mu, k: int) -> int:
    """Return ``mu`` after checking it is an integer in 1..k (Table 1: ``mu in {1..k}``)."""
    mu = check_positive_int(mu, "mu")
    if mu > k:
        raise ValueError(f"mu must be in 1..k = 1..{k}, got {mu}")
    return mu


def _check_rule(rule: str) -> str:
    if rule not in POOL_RULES:
        raise ValueError(f"rule must be one of {POOL_RULES}, got {rule!r}")
    return rule


def block_top(k: int, mu: int) -> np.ndarray:
    """``h(i) = min(k, mu * ceil(i / mu))`` for ``i = 1..k``: the block rule's target level."""
    i = np.arange(1, k + 1)
    return np.minimum(k, mu * (-(-i // mu)))


def pool_plan(k: int, mu: int, rule: str = "paper", compensation: bool = True) -> np.ndarray:
    """``W[l - 1, j - 1]``: how many times the level-``l`` reports enter pool ``j``.

    The diagonal counts identical copies of ``V_j`` (original plus compensation copies);
    above it, each unit is an independent PLC conversion ``V_{l->j}``. With compensation (or
    the block rule) every row sums to ``mu`` (resp. 1): each user counts equally.

    Parameters
    ----------
    k : int
        Number of levels.
    mu : int
        Number of data reuses, 1..k.
    rule : {"paper", "block"}
    compensation : bool
        Add the ``m_j - 1`` compensation copies (paper rule only; the block rule has none).
    """
    k = check_positive_int(k, "k")
    mu = check_mu(mu, k)
    _check_rule(rule)
    return _pool_plan(k, mu, rule, compensation)


def _pool_plan(k: int, mu: int, rule: str, compensation: bool) -> np.ndarray:
    """:func:`pool_plan` on checked arguments."""
    W = np.zeros((k, k), dtype=np.int64)
    if rule == "block":
        W[np.arange(k), block_top(k, mu) - 1] = 1
        return W
    for j in range(1, k + 1):
        W[j - 1, j - 1] = max(1, mu - k + j) if compensation else 1
        W[max(1, j - mu + 1) - 1:j - 1, j - 1] = 1
    return W


def report_counts(t_star, bits, k: int) -> np.ndarray:
    """``(k, 2)`` report counts: ``[t - 1, 0] = #(t* = t, y = +1)``, ``[t - 1, 1]`` those with -1.

    Alg. 5 step 2 (grouping by reported level), as a single :func:`numpy.bincount`.
    """
    k = check_positive_int(k, "k")
    t_star = _check_levels_array(t_star, k)
    bits = _check_bits(bits)
    if t_star.shape != bits.shape:
        raise ValueError(f"t_star and bits must have the same shape, got {t_star.shape} "
                         f"and {bits.shape}")
    idx = 2 * (t_star.ravel() - 1) + (bits.ravel() < 0)
    return np.bincount(idx, minlength=2 * k).reshape(k, 2)


def _check_counts(counts, k: int) -> np.ndarray:
    arr = np.asarray(counts)
    if arr.ndim < 2 or arr.shape[-2:] != (k, 2):
        raise ValueError(f"counts must have shape (..., {k}, 2), got {arr.shape}")
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"counts must hold integers, got dtype {arr.dtype}")
    if arr.size and arr.min() < 0:
        raise ValueError("counts must be >= 0")
    return arr.astype(np.int64, copy=False)


def pool_sums(counts, levels: Levels, mu: int, rng: np.random.Generator, *,
              rule: str = "paper", clip: bool = True, compensation: bool = True,
              flip_rule: str = "correct"):
    """Alg. 5 steps 3-6 on counts: the debiased sum ``S_j`` and size ``N_j`` of every pool.

    Parameters
    ----------
    counts : array_like of int, shape ``(..., k, 2)``
        Report counts (:func:`report_counts`); leading axes are independent batches
        (repetitions, gradient coordinates), each with its own PLC coins.
    levels : Levels
    mu : int
        Number of data reuses, 1..k.
    rng : numpy.random.Generator
    rule : {"paper", "block"}
    clip : bool
        Clip the debiased counts ``n1*``, ``n2*`` to ``[0, N_j]`` (step 6, the paper).
    compensation : bool
        Add the compensation copies of the paper rule.
    flip_rule : {"correct", "paper"}
        PLC keep probability, see :func:`~ldp_companion.hiera.protocol.plc_keep_probability`.

    Returns
    -------
    S, N : ndarray of shape ``(..., k)``
        ``S_j = n1* - n2*`` and ``N_j = n1 + n2`` of pool ``j`` (at position ``j - 1``).
    """
    levels = _check_levels(levels)
    counts = _check_counts(counts, levels.k)
    mu = check_mu(mu, levels.k)
    _check_rule(rule)
    _check_flip_rule(flip_rule)
    return _pool_sums(counts, levels, mu, check_rng(rng), rule=rule, clip=clip,
                      compensation=compensation, flip_rule=flip_rule)


def _check_flip_rule(flip_rule: str) -> str:
    if flip_rule not in FLIP_RULES:
        raise ValueError(f"flip_rule must be one of {FLIP_RULES}, got {flip_rule!r}")
    return flip_rule


def _pool_sums(counts: np.ndarray, levels: Levels, mu: int, rng: np.random.Generator, *,
               rule: str, clip: bool, compensation: bool, flip_rule: str):
    """:func:`pool_sums` on checked arguments (int64 counts of shape ``(..., k, 2)``)."""
    k = levels.k
    W = _pool_plan(k, mu, rule, compensation)
    plus, minus = counts[..., 0], counts[..., 1]
    pool_plus = plus * np.diag(W)
    pool_minus = minus * np.diag(W)
    eps = levels.epsilons
    for j in range(k):                      # steps 3-5: conversions into pool j
        for src in range(j):
            for _ in range(W[src, j]):
                q = _keep_probability(eps[src], eps[j], flip_rule)
                cp, cm = _plc_counts(plus[..., src], minus[..., src], q, rng)
                pool_plus[..., j] += cp
                pool_minus[..., j] += cm
    N = pool_plus + pool_minus
    p = levels.p
    n1_star = (p * N - pool_minus) / (2.0 * p - 1.0)     # step 6
    n2_star = (p * N - pool_plus) / (2.0 * p - 1.0)
    if clip:
        n1_star = np.clip(n1_star, 0.0, N)
        n2_star = np.clip(n2_star, 0.0, N)
    return n1_star - n2_star, N


def aggregate_counts(counts, levels: Levels, mu: int, rng: np.random.Generator, *,
                     rule: str = "paper", clip: bool = True, compensation: bool = True,
                     flip_rule: str = "correct") -> np.ndarray:
    """HierA's mean estimate (Alg. 5) from report counts: ``m* = sum_j S_j / sum_j N_j``.

    Arguments as in :func:`pool_sums`. Returns an array of shape ``counts.shape[:-2]`` (a
    0-d array for one ``(k, 2)`` table). With compensation ``sum_j N_j = mu n`` (paper
    rule) or ``n`` (block rule).

    Raises
    ------
    ValueError
        If a batch holds no reports.
    """
    S, N = pool_sums(counts, levels, mu, rng, rule=rule, clip=clip,
                     compensation=compensation, flip_rule=flip_rule)
    total = N.sum(axis=-1)
    if np.any(total == 0):
        raise ValueError("counts must hold at least one report per batch")
    return S.sum(axis=-1) / total


def aggregate(t_star, bits, levels: Levels, mu: int, rng: np.random.Generator,
              **options) -> float:
    """HierA's mean estimate (Alg. 5 steps 2-7) from the reports ``<t*, y>`` of :func:`lhp`.

    ``options`` are those of :func:`pool_sums` (``rule``, ``clip``, ``compensation``,
    ``flip_rule``).
    """
    levels = _check_levels(levels)
    counts = report_counts(t_star, bits, levels.k)
    return float(aggregate_counts(counts, levels, mu, rng, **options))


def estimate_mean(v, levels: Levels, mu: int, rng: np.random.Generator, **options) -> float:
    """End-to-end HierA (Alg. 5): LHP on every value, then :func:`aggregate`."""
    t_star, bits = lhp(v, levels, rng)
    return aggregate(t_star, bits, levels, mu, rng, **options)
