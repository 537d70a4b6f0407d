"""Closed-form variances, predicted errors and expected estimates (not in the paper).

HierA's variance does not appear in the paper; it is derived here. With
compensation every user contributes ``Z = (1/R) sum over its R copies of y / c`` to
``m* = mean_u Z_u`` (``R = mu`` for the paper rule, 1 for the block rule). A converted copy
is ``y s`` with an independent ``s = ±1``, ``E[s] = c_j / c_i``, so for a user reporting
level ``i``

    E[Z^2 | t* = i] = 1 / c_i^2 + (1 / R^2) sum_{j > i} W[i, j] (1 / c_j^2 - 1 / c_i^2),

and ``Var_u = sum_i G[t_u, i] E[Z^2 | t* = i] - v_u^2``; ``Var(m*) = sum_u Var_u / n^2``
(unclipped). The extra terms are >= 0, so ``mu > 1`` never lowers the variance, against
Fig. 1's claim (Sec. 6.1).

Every per-user variance here depends on the data only through the level of ``v`` and
``v^2``, so a :class:`LevelSummary` (level fractions, per-level means, ``E[v^2]``) gives
exact population averages.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ldp_companion.hiera.aggregate import _check_rule, check_mu, pool_plan
from ldp_companion.hiera.graded_laplace import GradedLaplace
from ldp_companion.hiera.grr import grr_matrix
from ldp_companion.hiera.levels import Levels
from ldp_companion.hiera.protocol import FLIP_RULES, _check_levels
from ldp_companion.mechanisms.harmony import Harmony
from ldp_companion.mechanisms.piecewise import PM
from ldp_companion.validation import check_positive_int, check_unit_interval

__all__ = ["METHODS", "LevelSummary", "summarize", "uniform_summary",
           "reported_level_second_moment", "user_variance", "mean_user_variance",
           "predicted_mae", "expected_estimate"]

#: Mean estimators compared in Fig. 2. Harmony and PM run at the smallest budget (Sec. 6.2).
METHODS = ("hiera", "harmony", "pm", "graded_laplace")


@dataclass(frozen=True)
class LevelSummary:
    """What the variance formulas need from a data set.

    Attributes
    ----------
    probs : ndarray
        Fraction of users in each true level (position ``t - 1``).
    means : ndarray
        Mean of ``v`` within each level (0 for an empty level).
    second_moment : float
        ``E[v^2]`` over all users.
    """

    probs: np.ndarray
    means: np.ndarray
    second_moment: float

    @property
    def mean(self) -> float:
        """``E[v]`` over all users."""
        return float(self.probs @ self.means)


def summarize(v, levels: Levels) -> LevelSummary:
    """The :class:`LevelSummary` of a sample ``v`` (exact for that finite population)."""
    levels = _check_levels(levels)
    v = check_unit_interval(v, "v").ravel()
    if v.size == 0:
        raise ValueError("v must hold at least one value")
    t = levels.level_of(v)
    counts = np.bincount(t - 1, minlength=levels.k)
    sums = np.bincount(t - 1, weights=v, minlength=levels.k)
    means = np.divide(sums, counts, out=np.zeros(levels.k), where=counts > 0)
    return LevelSummary(counts / v.size, means, float(np.mean(v * v)))


def uniform_summary(levels: Levels) -> LevelSummary:
    """Exact :class:`LevelSummary` of ``U[-1, 1]``: widths / 2, midpoints, ``E[v^2] = 1/3``."""
    iv = _check_levels(levels).intervals
    return LevelSummary((iv[:, 1] - iv[:, 0]) / 2.0, iv.mean(axis=1), 1.0 / 3.0)


def reported_level_second_moment(levels: Levels, mu: int = 1, rule: str = "paper") -> np.ndarray:
    """``E[Z^2 | t* = i]`` for ``i = 1..k`` (derived here), with compensation.

    ``mu = 1`` gives ``1 / c_i^2``; the block rule gives ``1 / c_{h(i)}^2``.
    """
    levels = _check_levels(levels)
    W = pool_plan(levels.k, mu, rule, compensation=True)
    R = W.sum(axis=1)
    inv = 1.0 / levels.c**2
    extra = np.triu(W, 1) * (inv[None, :] - inv[:, None])
    return inv + extra.sum(axis=1) / R**2


def _check_summary(summary, levels: Levels) -> LevelSummary:
    if not isinstance(summary, LevelSummary):
        raise TypeError(f"summary must be a LevelSummary, got {type(summary).__name__}")
    if np.shape(summary.probs) != (levels.k,) or np.shape(summary.means) != (levels.k,):
        raise ValueError(f"summary must have one entry per level ({levels.k}), got "
                         f"{np.shape(summary.probs)}")
    return summary


def _method_check(method: str) -> str:
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    return method


def user_variance(v, levels: Levels, method: str = "hiera", mu: int = 1,
                  rule: str = "paper") -> np.ndarray:
    """Per-user variance of each method's unbiased contribution, same shape as ``v``.

    Not given in the paper; derived here.

    * ``"hiera"``: ``sum_i G[t, i] E[Z^2 | t* = i] - v^2`` (unclipped, with compensation);
    * ``"harmony"``: ``coth^2(eps_k / 2) - v^2``;
    * ``"pm"``: PM's variance at ``eps_k``;
    * ``"graded_laplace"``: ``8 / eps_{t(v)}^2``.

    ``mu`` and ``rule`` are used by ``"hiera"`` only.
    """
    levels = _check_levels(levels)
    v = check_unit_interval(v, "v")
    method = _method_check(method)
    eps_min = float(levels.epsilons.min())
    if method == "harmony":
        return Harmony(eps_min).variance(v)
    if method == "pm":
        return PM(eps_min).variance(v)
    if method == "graded_laplace":
        return GradedLaplace(levels).variance(v)
    check_mu(mu, levels.k)
    _check_rule(rule)
    per_level = grr_matrix(levels.epsilons) @ reported_level_second_moment(levels, mu, rule)
    return per_level[levels.level_of(v) - 1] - v * v


def mean_user_variance(summary: LevelSummary, levels: Levels, method: str = "hiera",
                       mu: int = 1, rule: str = "paper") -> float:
    """Population average of :func:`user_variance`; ``Var(m*) = mean_user_variance / n``."""
    levels = _check_levels(levels)
    summary = _check_summary(summary, levels)
    method = _method_check(method)
    eps_min = float(levels.epsilons.min())
    m2 = summary.second_moment
    if method == "harmony":
        return float(Harmony(eps_min).variance(0.0)) - m2
    if method == "pm":
        pm = PM(eps_min)
        return float(pm.variance(0.0) + m2 * (pm.variance(1.0) - pm.variance(0.0)))
    if method == "graded_laplace":
        return float(summary.probs @ (8.0 / levels.epsilons**2))
    check_mu(mu, levels.k)
    _check_rule(rule)
    per_level = grr_matrix(levels.epsilons) @ reported_level_second_moment(levels, mu, rule)
    return float(summary.probs @ per_level - m2)


def predicted_mae(summary: LevelSummary, levels: Levels, n: int, method: str = "hiera",
                  mu: int = 1, rule: str = "paper") -> float:
    """``E|m* - m| ~ sqrt(2 Var(m*) / pi)`` with ``Var(m*) = mean_user_variance / n``.

    Normal approximation, no clipping (not in the paper); accurate when pools are large.
    """
    n = check_positive_int(n, "n")
    var = mean_user_variance(summary, levels, method, mu, rule) / n
    return float(np.sqrt(2.0 * var / np.pi))


def expected_estimate(summary: LevelSummary, levels: Levels, mu: int, rule: str = "paper",
                      compensation: bool = True, flip_rule: str = "correct") -> float:
    """Large-``n`` limit of HierA's unclipped estimate, ``E[sum S] / E[sum N]``.

    A level-``i`` report lands in ``R_i`` pools (row sums of :func:`pool_plan`), each copy
    debiased to ``x`` in expectation, so the limit is
    ``sum_t P_t m_t (G R)_t / sum_t P_t (G R)_t``. With compensation ``R_i = mu`` for every
    ``i`` and this is the true mean (Thm 3); without, users with high reported levels are
    under-weighted (computed here: -0.0982 on uniform data, base 0.5, ``mu = 5``). With
    ``flip_rule="paper"`` every PLC conversion debiases to ``-x`` instead of ``x``.
    """
    levels = _check_levels(levels)
    summary = _check_summary(summary, levels)
    if flip_rule not in FLIP_RULES:
        raise ValueError(f"flip_rule must be one of {FLIP_RULES}, got {flip_rule!r}")
    W = pool_plan(levels.k, mu, rule, compensation)
    sign = 1 if flip_rule == "correct" else -1
    signed = np.diag(W) + sign * np.triu(W, 1).sum(axis=1)
    G = grr_matrix(levels.epsilons)
    num = summary.probs * summary.means @ (G @ signed)
    den = summary.probs @ (G @ W.sum(axis=1))
    return float(num / den)
