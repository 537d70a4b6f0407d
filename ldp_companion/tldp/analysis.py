"""Reading the experiment grids of chapter 1: paired F1 gains, the ε each curve really
spends, and Type III's composition.

The grids (:mod:`ldp_companion.tldp.experiments`) return one row per (task, mechanism, ε,
run); the claims of Figs. 1–3 compare mechanisms run by run, in each (task, ε) cell, with
:mod:`ldp_companion.verdicts.paired`'s ``wide``, ``gain`` and ``equivalent`` (re-exported here).
"""
from __future__ import annotations

import functools

import numpy as np
import pandas as pd

from ldp_companion.tldp.privacy import gaussian_mu, gdp_epsilon_exact, laplace_true_epsilon
from ldp_companion.verdicts.paired import equivalent, gain, wide

__all__ = ["wide", "gain", "equivalent", "eps_to_reach", "true_epsilon", "composed_epsilon",
           "BASELINES", "clean_f1", "mean_f1", "tensor_sizes", "with_true_epsilon",
           "laplace_at_i_gap", "composed_table", "REACH_SHARE"]

BASELINES = ("laplace", "gaussian", "idn", "mvg")
#: The share of the no-noise F1 a curve must reach for :func:`eps_to_reach` (our criterion of
#: "the same utility").
REACH_SHARE = 0.9


def eps_to_reach(runs: pd.DataFrame, clean: pd.Series, mechanism: str,
                 share: float = REACH_SHARE) -> dict:
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


def clean_f1(runs: pd.DataFrame) -> pd.Series:
    """Per task, the mean F1 of the model trained without noise (mechanism ``"none"``)."""
    return runs[runs["mechanism"] == "none"].groupby("task")["f1"].mean()


def mean_f1(runs: pd.DataFrame, mechanism: str, task: str, epsilon: float) -> float:
    """The mean F1 over the runs of one (mechanism, task, ε) cell."""
    sel = ((runs["mechanism"] == mechanism) & (runs["task"] == task)
           & (runs["epsilon"] == epsilon))
    return float(runs.loc[sel, "f1"].mean())


def tensor_sizes(runs: pd.DataFrame) -> dict:
    """Per task, the size I of the tensors a Type I or II grid perturbed."""
    return {t: int(s) for t, s in runs.groupby("task", sort=False)["tensor_size"].first().items()}


def with_true_epsilon(runs: pd.DataFrame, mechanisms) -> pd.DataFrame:
    """The rows of ``mechanisms`` with a column ``"true ε"``: the ε each really spends on one
    tensor (:func:`true_epsilon`)."""
    sizes = tensor_sizes(runs)
    out = runs[runs["mechanism"].isin(mechanisms)].copy()
    out["true ε"] = [true_epsilon(m, e, sizes[t])
                     for m, e, t in zip(out["mechanism"], out["epsilon"], out["task"])]
    return out


def laplace_at_i_gap(type1: pd.DataFrame, at_i_eps: pd.DataFrame) -> np.ndarray:
    """Run by run, TLDP-L's F1 at ε minus the Laplace baseline's at Iε (Theorem 2), one row
    per (task, ε) cell: ``at_i_eps`` is the Laplace baseline's grid run at ``I·ε``."""
    sizes = tensor_sizes(type1)
    nominal = {(t, sizes[t] * e): e for t in sizes for e in type1["epsilon"].unique()}
    back = at_i_eps.assign(
        epsilon=[nominal[(t, e)] for t, e in zip(at_i_eps["task"], at_i_eps["epsilon"])],
        mechanism="laplace_at_I")
    return gain(wide(pd.concat([type1, back])), "tldp_l", "laplace_at_I")


def composed_table(type3: pd.DataFrame, eps_grid, rounds: int) -> pd.DataFrame:
    """The ε one client of Type III spends over ``rounds`` rounds (:func:`composed_epsilon`),
    per (task, mechanism), at the smallest and largest ε of ``eps_grid``: columns
    ``"nominal ε = …"``."""
    one = type3[type3["mechanism"] != "none"].drop_duplicates(["task", "mechanism", "epsilon"])
    one = one[one["epsilon"].isin([min(eps_grid), max(eps_grid)])]
    spent = [composed_epsilon(s, rounds, e, m)
             for s, e, m in zip(one["tensor_sizes"], one["epsilon"], one["mechanism"])]
    table = one.assign(spent=spent).pivot_table(index=["task", "mechanism"],
                                                columns="epsilon", values="spent")
    return table.rename(columns=lambda e: f"nominal ε = {e:g}").rename_axis(columns=None)
