"""Exact privacy of LHP's output against Theorem 2's claim (Sec. 4.3).

Theorem 2 claims ``P(M(x) = y) / P(M(x') = y) <= e^{max(eps_a, eps_b)}`` for ``x`` in level
``a`` and ``x'`` in level ``b`` (graded LDP, Def. 2, with ``r = max``). Its proof bounds the
level report and the value report *separately*, with the budgets of the *reported* levels.
The object that matters is the joint output ``<t*, y>``:

    P(t* = d, y | v) = G[t(v), d] (1 + y v c_d) / 2.

For a fixed output it is linear in ``v`` within a level, so the supremum over an interval
is reached at its ends (the closure's, for an open end; there the supremum is a limit).
The level report alone always stays within the claim (the GRR step of the proof is right);
at the paper's layouts the value report alone does too, but the joint output does not
(8.067 against 5 at base 1, computed here).
"""
from __future__ import annotations

import numpy as np

from ldp_companion.hiera.levels import Levels
from ldp_companion.hiera.protocol import _check_levels, report_probabilities
from ldp_companion.validation import check_unit_interval

__all__ = ["PARTS", "joint_log_ratio", "privacy_matrix", "claimed_bound", "composed_bound"]

#: What the adversary sees: the level report, the value report (``t*`` marginalised
#: out), or both.
PARTS = ("joint", "level", "value")


def _output_law(v, levels: Levels, part: str, level=None) -> np.ndarray:
    """``P(output | v)`` flattened over the outputs of ``part``: shape ``v.shape + (m,)``."""
    probs = report_probabilities(v, levels, level)               # (..., k, 2)
    if part == "joint":
        return probs.reshape(probs.shape[:-2] + (-1,))
    if part == "level":
        return probs.sum(axis=-1)
    return probs.sum(axis=-2)


def joint_log_ratio(x, x_prime, levels: Levels, part: str = "joint") -> np.ndarray:
    """``max_output log P(output | x) / P(output | x')`` for given inputs (broadcast).

    Parameters
    ----------
    x, x_prime : array_like
        Inputs in [-1, 1].
    levels : Levels
    part : {"joint", "level", "value"}
    """
    levels = _check_levels(levels)
    _check_part(part)
    x, x_prime = np.broadcast_arrays(check_unit_interval(x, "x"),
                                     check_unit_interval(x_prime, "x_prime"))
    num = _output_law(x, levels, part)
    den = _output_law(x_prime, levels, part)
    return np.max(np.log(num) - np.log(den), axis=-1)


def _check_part(part: str) -> str:
    if part not in PARTS:
        raise ValueError(f"part must be one of {PARTS}, got {part!r}")
    return part


def privacy_matrix(levels: Levels, part: str = "joint") -> np.ndarray:
    """``M[a - 1, b - 1] = sup_{x in D_a, x' in D_b, output} log P(output | x) / P(output | x')``.

    Exact (no sampling). Rows are the level of ``x`` (numerator), columns that of ``x'``.
    Compare with :func:`claimed_bound` (Thm 2) and :func:`composed_bound`.

    Parameters
    ----------
    levels : Levels
    part : {"joint", "level", "value"}
        ``"level"``: ``t*`` alone (within the claim); ``"value"``: ``y`` alone
        (within the claim); ``"joint"``: ``<t*, y>`` (exceeds it).
    """
    levels = _check_levels(levels)
    _check_part(part)
    k = levels.k
    ends = levels.intervals                                       # (k, 2) closure ends
    owner = np.repeat(np.arange(1, k + 1)[:, None], 2, axis=1)   # level of each end's interval
    law = _output_law(ends, levels, part, level=owner)            # (k, 2, m)
    # linear in v within a level: sup of the numerator and inf of the denominator at the ends
    log_hi = np.log(law.max(axis=1))                              # (k, m)
    log_lo = np.log(law.min(axis=1))
    return np.max(log_hi[:, None, :] - log_lo[None, :, :], axis=-1)


def claimed_bound(levels: Levels, r: str = "max") -> np.ndarray:
    """``r(eps_a, eps_b)`` of Def. 2 for every pair of levels.

    ``r = "max"`` is what Theorem 2's proof uses (and claims); ``"min"``, the usual choice
    of ID-LDP (Gu et al. 2020), is stronger: the level report alone already exceeds it.
    """
    eps = _check_levels(levels).epsilons
    if r not in ("max", "min"):
        raise ValueError(f"r must be 'max' or 'min', got {r!r}")
    pick = np.maximum if r == "max" else np.minimum
    return pick(eps[:, None], eps[None, :])


def composed_bound(levels: Levels) -> np.ndarray:
    """A bound that does hold for the joint output: ``max(eps_a, eps_b) + eps_1``.

    Not in the paper; derived here. The level report costs at most ``max(eps_a, eps_b)``
    (the GRR step of Theorem 2's proof) and the value bit at most
    ``eps_1``, the largest budget it can be perturbed with; sequential composition (Thm 1)
    adds them.
    """
    levels = _check_levels(levels)
    return claimed_bound(levels) + levels.epsilons.max()
