"""Reading the experiment grids of chapter 1: paired F1 gains, the ε each curve really
spends, and Type III's composition.

The grids (:mod:`ldp_companion.tldp.experiments`) return one row per (task, mechanism, ε,
run); the claims of Figs. 1–3 compare mechanisms run by run, in each (task, ε) cell.
"""
from __future__ import annotations

import functools

import numpy as np
import pandas as pd
from scipy import stats

from ldp_companion.tldp.privacy import gaussian_mu, gdp_epsilon_exact, laplace_true_epsilon

__all__ = ["wide", "gain", "equivalent", "eps_to_reach", "true_epsilon", "composed_epsilon", "BASELINES"]

BASELINES = ("laplace", "gaussian", "idn", "mvg")


def wide(runs: pd.DataFrame) -> pd.DataFrame:
    """F1 with one column per mechanism, indexed by (task, epsilon, run)."""
    keep = runs[runs["mechanism"] != "none"]
    return keep.pivot_table(index=["task", "epsilon", "run"], columns="mechanism", values="f1")


def gain(table: pd.DataFrame, method: str, over, *, where=None) -> np.ndarray:
    """Run-by-run ``F1(method) − F1(over)`` per (task, ε) cell, shape (cells, runs).

    ``over`` is a mechanism, or a list of mechanisms (their best F1 in each run); ``where``
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


def eps_to_reach(runs: pd.DataFrame, clean: pd.Series, mechanism: str,
                 share: float = 0.9) -> dict:
    """Per task, the smallest ε of the grid where ``mechanism``'s mean F1 reaches
    ``share × clean[task]`` (``inf`` if it never does)."""
    m = runs[runs["mechanism"] == mechanism].groupby(["task", "epsilon"])["f1"].mean()
    return {task: min((e for (t, e), v in m.items() if t == task and v >= share * clean[task]),
                      default=np.inf)
            for task in clean.index}


@functools.lru_cache(maxsize=256)
def _gdp(mu: float, delta: float) -> float:
    return gdp_epsilon_exact(mu, delta)


def true_epsilon(mechanism: str, epsilon: float, size: int, delta: float = 1e-5) -> float:
    """The ε a mechanism run at the paper's ``epsilon`` really spends on one tensor of
    ``size`` entries: TLDP-L(-w) ``Iε`` (p = 0, continuous range); TLDP-G(-w) and the Gaussian
    baseline as ``(ε′, δ)`` from their μ-GDP (``√(2Iε)`` and ``√(2ε)``, the exact profile, since
    μ reaches the thousands for Type III's tensors); Laplace, IDN and MVG
    spend what they claim (ε, with δ for IDN and MVG)."""
    base = mechanism.removesuffix("_w")
    if base == "tldp_l":
        return float(laplace_true_epsilon(size, 2.0, epsilon))
    if base == "tldp_g":
        return _gdp(float(gaussian_mu(size, 2.0, epsilon)), delta)
    if base == "gaussian":
        return _gdp(float(np.sqrt(2.0 * epsilon)), delta)
    if base in ("laplace", "idn", "mvg", "none"):
        return float(epsilon)
    raise ValueError(f"unknown mechanism {mechanism!r}")


def composed_epsilon(tensor_sizes, rounds: int, epsilon: float, mechanism: str) -> float:
    """Basic composition of Type III's releases by one client: every round uploads every
    parameter tensor, so ``rounds · Σₜ ε_true(tensor t)`` (pure ε for the Laplace-type
    mechanisms; for the Gaussian ones the sum of the per-release ε′ is an upper bound)."""
    sizes = [int(s) for s in str(tensor_sizes).split(",")]
    return float(rounds * sum(true_epsilon(mechanism, epsilon, s) for s in sizes))
