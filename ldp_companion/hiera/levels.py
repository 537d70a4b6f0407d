"""Privacy levels: the sub-intervals ``D_1..D_k`` of [-1, 1] and their budgets (Sec. 3.2, 4.1).

Level 1 is the *least* protected (largest budget) and level ``k`` the most:
``eps_1 > eps_2 > ... > eps_k`` (Sec. 4.1; PLC, Alg. 4, can only move data towards smaller
budgets). The intervals are listed in level order but may lie anywhere in [-1, 1]: Sec. 4.1
says levels that are not increasing from left to right are re-indexed so that their budgets
decrease, e.g. a middle interval as level 1 and the tails as higher levels.

Every interval is half-open ``[lo, hi)`` except the one ending at 1, which is closed, so the
levels partition [-1, 1] exactly.
"""
from __future__ import annotations

import numbers

import numpy as np

from ldp_companion.validation import check_epsilon, check_positive_int, check_unit_interval

__all__ = ["Levels", "paper_levels"]


def _check_intervals(intervals) -> np.ndarray:
    """Return the intervals as a ``(k, 2)`` float array after checking they partition [-1, 1]."""
    try:
        arr = np.asarray(intervals)
    except ValueError as err:  # ragged input
        raise ValueError("intervals must be a sequence of (lo, hi) pairs") from err
    if arr.ndim != 2 or arr.shape[1] != 2 or arr.shape[0] < 1:
        raise ValueError(f"intervals must be a sequence of (lo, hi) pairs, got shape {arr.shape}")
    if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.integer)
                                 or np.issubdtype(arr.dtype, np.floating)):
        raise TypeError(f"intervals must hold real numbers, got dtype {arr.dtype}")
    arr = arr.astype(np.float64)
    if not np.all(np.isfinite(arr)):
        raise ValueError("intervals must be finite")
    for t, (lo, hi) in enumerate(arr, start=1):
        if not lo < hi:
            raise ValueError(f"interval of level {t} must have lo < hi, got [{lo:g}, {hi:g})")
    srt = arr[np.argsort(arr[:, 0], kind="stable")]
    for (_, hi), (lo, _) in zip(srt[:-1], srt[1:]):
        if hi < lo:
            raise ValueError(f"intervals leave a gap [{hi:g}, {lo:g})")
        if hi > lo:
            raise ValueError(f"intervals overlap on [{lo:g}, {hi:g})")
    if srt[0, 0] != -1.0 or srt[-1, 1] != 1.0:
        raise ValueError("intervals must cover [-1, 1] exactly; they span "
                         f"[{srt[0, 0]:g}, {srt[-1, 1]:g}]")
    return arr


def _check_budgets(epsilons, k: int) -> np.ndarray:
    """Return the budgets as a float array: ``k`` of them, finite, > 0, strictly decreasing."""
    if isinstance(epsilons, numbers.Real):
        epsilons = [epsilons]
    eps = np.array([check_epsilon(e, f"epsilons[{i}]") for i, e in enumerate(epsilons)])
    if eps.size != k:
        raise ValueError(f"epsilons must have one budget per level: {k} expected, got {eps.size}")
    bad = np.flatnonzero(np.diff(eps) >= 0)
    if bad.size:
        i = bad[0]
        raise ValueError("epsilons must be strictly decreasing (eps_1 > ... > eps_k, level 1 "
                         f"least protected); got eps_{i + 1}={eps[i]:g} <= "
                         f"eps_{i + 2}={eps[i + 1]:g}")
    return eps


class Levels:
    """The ``k`` privacy levels: intervals ``D_1..D_k`` partitioning [-1, 1] and budgets.

    Levels are numbered 1..k as in the paper; arrays indexed by level (``epsilons``, ``p``,
    ``c``) hold level ``t`` at position ``t - 1``.

    Parameters
    ----------
    intervals : sequence of (lo, hi)
        ``D_1..D_k`` in level order. Together they must cover [-1, 1] with no gap and no
        overlap; each is ``[lo, hi)``, the one ending at 1 is ``[lo, 1]``.
    epsilons : sequence of float
        ``eps_1 > eps_2 > ... > eps_k > 0``, finite.

    Raises
    ------
    ValueError
        If the intervals do not partition [-1, 1] or the budgets are not finite, positive
        and strictly decreasing.
    """

    def __init__(self, intervals, epsilons):
        arr = _check_intervals(intervals)
        self._intervals = arr
        self._eps = _check_budgets(epsilons, arr.shape[0])
        order = np.argsort(arr[:, 0], kind="stable")
        self._cuts = arr[order, 0][1:]          # interior boundaries, increasing
        self._level_of_piece = order + 1        # level of the i-th interval from the left
        for a in (self._intervals, self._eps, self._cuts, self._level_of_piece):
            a.flags.writeable = False

    @classmethod
    def from_cuts(cls, cuts, epsilons) -> Levels:
        """Levels numbered left to right: ``D_1 = [-1, cuts[0])``, ..., ``D_k = [cuts[-1], 1]``."""
        edges = np.concatenate([[-1.0], np.asarray(cuts, dtype=np.float64).ravel(), [1.0]])
        return cls(np.column_stack([edges[:-1], edges[1:]]), epsilons)

    def __repr__(self) -> str:
        pieces = ", ".join(f"[{lo:g}, {hi:g}{']' if hi == 1.0 else ')'}: {e:g}"
                           for (lo, hi), e in zip(self._intervals, self._eps))
        return f"Levels({pieces})"

    def __eq__(self, other) -> bool:
        return (isinstance(other, Levels) and np.array_equal(self._intervals, other._intervals)
                and np.array_equal(self._eps, other._eps))

    __hash__ = None

    @property
    def k(self) -> int:
        """Number of levels."""
        return self._eps.size

    @property
    def intervals(self) -> np.ndarray:
        """``(k, 2)`` array: row ``t - 1`` is ``(lo, hi)`` of ``D_t``."""
        return self._intervals

    @property
    def epsilons(self) -> np.ndarray:
        """Budgets ``eps_1 > ... > eps_k``."""
        return self._eps

    @property
    def p(self) -> np.ndarray:
        """Keep probabilities of the value bit, ``p_t = e^{eps_t} / (e^{eps_t} + 1)`` (Alg. 3)."""
        return 1.0 / (1.0 + np.exp(-self._eps))

    @property
    def c(self) -> np.ndarray:
        """``c_t = 2 p_t - 1 = tanh(eps_t / 2)``: ``E[y | x] = c_t x`` for a level-``t`` bit."""
        return np.tanh(self._eps / 2.0)

    def level_of(self, v) -> np.ndarray:
        """Level ``t`` (1..k) of each value (Alg. 3 step 1); ``v`` must lie in [-1, 1]."""
        arr = check_unit_interval(v, "v")
        return self._level_of_piece[np.searchsorted(self._cuts, arr, side="right")]

    def closed_right(self, t: int) -> bool:
        """Whether ``D_t`` contains its right end (only the interval ending at 1 does)."""
        return bool(self._intervals[self._check_level(t) - 1, 1] == 1.0)

    def scaled(self, factor: float) -> Levels:
        """The same intervals with every budget multiplied by ``factor`` (> 0)."""
        return Levels(self._intervals, self._eps * check_epsilon(factor, "factor"))

    def _check_level(self, t) -> int:
        if isinstance(t, bool) or not isinstance(t, numbers.Integral) or not 1 <= t <= self.k:
            raise ValueError(f"t must be a level in 1..{self.k}, got {t!r}")
        return int(t)


def paper_levels(base_epsilon: float, k: int = 5) -> Levels:
    """The layout of Sec. 6: ``k`` equal-width intervals with budgets ``(k, ..., 1) * base``.

    For ``k = 5``: ``D_1 = [-1, -0.6)``, ..., ``D_5 = [0.6, 1]`` with budgets
    ``{5 eps, 4 eps, 3 eps, 2 eps, eps}``, so negative values are the least protected. The
    base ``eps`` (the x-axis of Figs. 1-3) is the smallest budget.

    Parameters
    ----------
    base_epsilon : float
        Smallest budget ``eps_k``, finite and > 0.
    k : int
        Number of levels, >= 1.
    """
    base = check_epsilon(base_epsilon, "base_epsilon")
    k = check_positive_int(k, "k")
    cuts = (2.0 * np.arange(1, k) - k) / k     # exact -0.6, -0.2, 0.2, 0.6 for k = 5
    return Levels.from_cuts(cuts, base * np.arange(k, 0, -1, dtype=np.float64))
