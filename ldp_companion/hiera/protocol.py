"""LHP (Alg. 3, user side) and PLC (Alg. 4, aggregator side).

LHP sends ``<t*, y>``: the level ``t*`` by GRR at the budget of the *true* level, and the
discretised value bit by randomized response at the budget of the *reported* level ``t*``
(the dump writes ``e^{eps_{t_i^*}}``; the authors' prototype does the same). The aggregator
sees only ``t*`` and so can debias with ``c_{t*}``.

PLC re-randomises a level-``i`` bit so that it is distributed exactly like a level-``j``
bit, ``j > i``: keep it w.p. ``q = (p_i + p_j - 1) / (2 p_i - 1)``, i.e. ``2q - 1 = c_j / c_i``.
The text prints the flip probability as ``(p_i + p_j - 1) / (2 p_i - 1)``, which is ``q``
itself; used as printed, the converted bit agrees with ``x`` only w.p. ``1 - p_j``.
``flip_rule="paper"`` reproduces that, ``flip_rule="correct"`` (default) uses ``q``.
"""
from __future__ import annotations

import numpy as np

from ldp_companion.hiera.grr import _check_levels_array, _grr, grr_matrix
from ldp_companion.hiera.levels import Levels
from ldp_companion.mechanisms.harmony import _check_bits, randomized_response
from ldp_companion.validation import (
    check_epsilon,
    check_probability,
    check_rng,
    check_unit_interval,
)

__all__ = ["FLIP_RULES", "lhp", "report_probabilities", "plc_keep_probability", "plc",
           "plc_counts"]

FLIP_RULES = ("correct", "paper")


def _check_levels(levels) -> Levels:
    if not isinstance(levels, Levels):
        raise TypeError(f"levels must be a Levels, got {type(levels).__name__}")
    return levels


def _true_levels(v: np.ndarray, levels: Levels, level) -> np.ndarray:
    """Level of each value, or the explicit ``level`` array (same shape as ``v``)."""
    if level is None:
        return levels.level_of(v)
    t = _check_levels_array(level, levels.k)
    if t.shape != v.shape:
        raise ValueError(f"level must have the shape of v {v.shape}, got {t.shape}")
    return t


def lhp(v, levels: Levels, rng: np.random.Generator, level=None):
    """Local hierarchical perturbation (Alg. 3), vectorized over users.

    1. ``t = level(v)``; 2. ``t* = GRR(t)`` at ``eps_t``; 3. ``x = ±1`` with ``E[x] = v``;
    4. ``y = x`` w.p. ``p_{t*}``, else ``-x``; 5. send ``<t*, y>`` (no calibration).

    Parameters
    ----------
    v : array_like
        Values in [-1, 1].
    levels : Levels
    rng : numpy.random.Generator
    level : array_like of int, optional
        Levels to use instead of ``level(v)``, e.g. the level of the attribute behind a
        gradient component (Sec. 5).

    Returns
    -------
    t_star : ndarray of int64
        Reported levels in 1..k.
    bits : ndarray of int8
        Reported bits ±1.
    """
    levels = _check_levels(levels)
    v = check_unit_interval(v, "v")
    rng = check_rng(rng)
    return _lhp(v, _true_levels(v, levels, level), levels, rng)


def _lhp(v: np.ndarray, t: np.ndarray, levels: Levels, rng: np.random.Generator):
    """:func:`lhp` on checked arguments: ``v`` float values in [-1, 1], ``t`` their int64
    levels in 1..k. Steps 3-4 draw exactly as
    :func:`~ldp_companion.mechanisms.harmony.discretise` and
    :func:`~ldp_companion.mechanisms.harmony.randomized_response` do, without their checks."""
    t_star = _grr(t, levels.epsilons[t - 1], levels.k, rng)
    x = np.where(rng.random(v.shape) < 0.5 * (1.0 + v), 1, -1).astype(np.int8)
    keep = rng.random(x.shape) < levels.p[t_star - 1]
    return t_star, np.where(keep, x, -x).astype(np.int8)


def report_probabilities(v, levels: Levels, level=None) -> np.ndarray:
    """Exact law of LHP's output: ``P(t* = d, y = ±1 | v) = G[t, d] (1 ± v c_d) / 2``.

    Returns
    -------
    ndarray of shape ``v.shape + (k, 2)``: ``[..., d - 1, 0]`` is ``y = +1`` and
    ``[..., d - 1, 1]`` is ``y = -1``.
    """
    levels = _check_levels(levels)
    v = check_unit_interval(v, "v")
    t = _true_levels(v, levels, level)
    G = grr_matrix(levels.epsilons)[t - 1]                 # v.shape + (k,)
    vc = v[..., None] * levels.c
    return np.stack([G * (1.0 + vc) / 2.0, G * (1.0 - vc) / 2.0], axis=-1)


def plc_keep_probability(eps_i: float, eps_j: float, flip_rule: str = "correct") -> float:
    """Probability that PLC (Alg. 4) keeps a level-``i`` bit when converting it to level ``j``.

    * ``"correct"``: ``q = (p_i + p_j - 1) / (2 p_i - 1) = (1 + c_j / c_i) / 2``, the solution
      of ``p_i q + (1 - p_i)(1 - q) = p_j``;
    * ``"paper"``: ``1 - (p_i + p_j - 1) / (2 p_i - 1) = (1 - c_j / c_i) / 2``, the printed flip
      probability taken literally (the paper's error: Sec. 4.2 prints ``1 - q`` equal to
      ``q``).

    Parameters
    ----------
    eps_i, eps_j : float
        Budgets of the source and target levels; PLC needs ``eps_j <= eps_i``.
    flip_rule : {"correct", "paper"}

    Raises
    ------
    ValueError
        If ``eps_j > eps_i``: converting towards a larger budget would need ``q > 1``.
    """
    eps_i, eps_j = check_epsilon(eps_i, "eps_i"), check_epsilon(eps_j, "eps_j")
    if eps_j > eps_i:
        raise ValueError("PLC converts only to a more protected level: need eps_j <= eps_i, "
                         f"got eps_i={eps_i:g}, eps_j={eps_j:g}")
    if flip_rule not in FLIP_RULES:
        raise ValueError(f"flip_rule must be one of {FLIP_RULES}, got {flip_rule!r}")
    return _keep_probability(eps_i, eps_j, flip_rule)


def _keep_probability(eps_i: float, eps_j: float, flip_rule: str) -> float:
    """:func:`plc_keep_probability` on checked arguments (``0 < eps_j <= eps_i``)."""
    ratio = np.tanh(eps_j / 2.0) / np.tanh(eps_i / 2.0)
    return float(0.5 * (1.0 + ratio) if flip_rule == "correct" else 0.5 * (1.0 - ratio))


def plc(bits, eps_i: float, eps_j: float, rng: np.random.Generator,
        flip_rule: str = "correct") -> np.ndarray:
    """Convert level-``i`` bits to level-``j`` bits (Alg. 4 step 3), one fresh coin per bit.

    With the correct rule, a bit from randomized response at ``p_i`` becomes a bit from
    randomized response at ``p_j``: ``E[y_{i->j} | x] = c_j x``.
    """
    q = plc_keep_probability(eps_i, eps_j, flip_rule)
    return randomized_response(_check_bits(bits), q, check_rng(rng))


def plc_counts(n_plus, n_minus, q: float, rng: np.random.Generator):
    """PLC on counts: ``(#+1, #-1)`` after keeping each bit w.p. ``q``; vectorized.

    Same law as :func:`plc` on the bits, with two binomials: ``Bin(n_plus, q)`` of the
    ``+1`` and ``Bin(n_minus, q)`` of the ``-1`` are kept.
    """
    n_plus, n_minus = np.asarray(n_plus), np.asarray(n_minus)
    q = float(check_probability(q, "q"))
    return _plc_counts(n_plus, n_minus, q, check_rng(rng))


def _plc_counts(n_plus, n_minus, q: float, rng: np.random.Generator):
    """:func:`plc_counts` on checked arguments (integer counts, ``q`` in [0, 1])."""
    kept_plus = rng.binomial(n_plus, q)
    kept_minus = rng.binomial(n_minus, q)
    return kept_plus + (n_minus - kept_minus), (n_plus - kept_plus) + kept_minus
