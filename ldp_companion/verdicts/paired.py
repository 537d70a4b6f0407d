"""Run-by-run comparisons of mechanisms in an experiment grid (shared by the chapters).

A grid (:func:`ldp_companion.execution.grid.run_grid`) gives one row per (task, mechanism, ε, run);
the papers' claims compare two mechanisms in each (task, ε) cell, run by run (the same run index
means the same data split, so differences are paired). The verdicts come from
:meth:`ldp_companion.verdicts.ledger.Ledger.difference` (sign) and :func:`equivalent` (closeness).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

__all__ = ["within_margin", "wide", "gain", "equivalent", "off_chance"]


def wide(runs: pd.DataFrame, metric: str = "f1") -> pd.DataFrame:
    """``metric`` with one column per mechanism, indexed by (task, epsilon, run); the
    ``"none"`` rows (no noise) are left out."""
    missing = {"task", "epsilon", "run", "mechanism", metric} - set(runs.columns)
    if missing:
        raise ValueError(f"runs lacks the columns {sorted(missing)}")
    keep = runs[runs["mechanism"] != "none"]
    return keep.pivot_table(index=["task", "epsilon", "run"], columns="mechanism", values=metric)


def gain(table: pd.DataFrame, method: str, over, *, where=None) -> np.ndarray:
    """Run-by-run ``metric(method) − metric(over)`` per (task, ε) cell, shape (cells, runs).

    ``over`` is a mechanism, or a list of mechanisms (their best value in each run); ``where``
    selects cells by a boolean function of the (task, epsilon) index."""
    other = table[list(over)].max(axis=1) if isinstance(over, (list, tuple)) else table[over]
    diff = (table[method] - other).rename("d").reset_index()
    if where is not None:
        diff = diff[[bool(where(t, e)) for t, e in zip(diff["task"], diff["epsilon"])]]
    return diff.pivot_table(index=["task", "epsilon"], columns="run", values="d").to_numpy()


def equivalent(diffs, margin: float, level: float = 0.95) -> np.ndarray:
    """Per cell, whether the mean of run-by-run differences is shown to lie within
    ``±margin`` (two one-sided t-tests, Bonferroni over the cells at family-wise ``level``):
    ``|mean| + t · s.e. ≤ margin``. False means "not shown equal", not "shown different".

    Parameters
    ----------
    diffs : array_like, shape (cells, runs)
    margin : float
        The largest difference counted as equal (e.g. 0.1 of weighted F1).
    """
    d = np.atleast_2d(np.asarray(diffs, float))
    if d.shape[1] < 2 or margin <= 0:
        raise ValueError("diffs needs at least 2 runs per cell and margin must be > 0")
    se = d.std(axis=1, ddof=1) / np.sqrt(d.shape[1])
    t = stats.t.ppf(1.0 - (1.0 - level) / d.shape[0], d.shape[1] - 1)
    return np.abs(d.mean(axis=1)) + t * se <= margin


def within_margin(diffs, margin: float) -> np.ndarray:
    """Per run, how far inside ``±margin`` a difference lies, on the side of its cell's mean:
    ``margin - sign(mean) · d``. :meth:`~ldp_companion.verdicts.ledger.Ledger.difference` on it
    decides per cell "shown inside the margin" (holds), "shown outside" (fails) or neither
    (inconclusive), where :func:`equivalent` only tells "shown inside" from the rest.

    Parameters
    ----------
    diffs : array_like, shape (cells, runs)
    margin : float
        The largest difference counted as equal (> 0).
    """
    d = np.atleast_2d(np.asarray(diffs, float))
    if margin <= 0:
        raise ValueError(f"margin must be > 0, got {margin!r}")
    side = np.where(d.mean(axis=1, keepdims=True) < 0, -1.0, 1.0)
    return margin - side * d


def off_chance(runs: pd.DataFrame, mechanisms, floor: float, metric: str = "f1"):
    """A ``where`` for :func:`gain`: the ε whose best mean ``metric`` among ``mechanisms``
    (over tasks and runs) is above ``floor``, i.e. where the curves can differ at all (below
    it every one of them sits at chance). ``None`` (every cell) when there is no such ε."""
    sel = runs[runs["mechanism"].isin(list(mechanisms))]
    best = sel.groupby(["epsilon", "mechanism"])[metric].mean().groupby("epsilon").max()
    keep = set(best[best > floor].index)
    return (lambda task, eps: eps in keep) if keep else None
