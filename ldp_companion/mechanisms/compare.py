"""Comparing scalar mechanisms by worst-case variance (Fig. 1 and Tables I–II of Zhao et al.)."""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import optimize

from ldp_companion.mechanisms import get_mechanism
from ldp_companion.validation import check_epsilon

__all__ = ["worst_case_table", "crossover", "not_lowest"]


def worst_case_table(names, eps_grid) -> pd.DataFrame:
    """Worst-case variance ``max_x Var[Y | x]`` of each mechanism on an ε grid.

    Returns a DataFrame indexed by ε with one column per mechanism name.
    """
    eps = np.asarray(eps_grid, float)
    for e in eps:
        check_epsilon(float(e), "eps_grid entries")
    data = {n: [get_mechanism(n, float(e)).worst_case_variance() for e in eps] for n in names}
    return pd.DataFrame(data, index=pd.Index(eps, name="epsilon"))


def crossover(name_a: str, name_b: str, lo: float, hi: float, xtol: float = 1e-12) -> float:
    """The ε in ``[lo, hi]`` where two mechanisms' worst-case variances are equal.

    Raises ``ValueError`` if the difference does not change sign on the bracket.
    """
    def diff(e):
        return (get_mechanism(name_a, e).worst_case_variance()
                - get_mechanism(name_b, e).worst_case_variance())

    lo, hi = check_epsilon(lo, "lo"), check_epsilon(hi, "hi")
    if np.sign(diff(lo)) == np.sign(diff(hi)):
        raise ValueError(f"{name_a} and {name_b} do not cross on [{lo}, {hi}]")
    return optimize.brentq(diff, lo, hi, xtol=xtol)


def not_lowest(table: pd.DataFrame, name: str, rtol: float = 1e-12) -> pd.DataFrame:
    """The ε intervals of a :func:`worst_case_table` where ``name`` is *not* the lowest.

    Returns one row per maximal run of grid points where another mechanism is lower by more
    than ``rtol`` (relative): its ends, the mechanism lowest there on average, and the largest
    excess ``V_name / V_best - 1``.
    """
    if name not in table.columns:
        raise ValueError(f"{name!r} is not a column of the table")
    others = table.drop(columns=name)
    best = others.min(axis=1)
    mask = (table[name] > best * (1 + rtol)).to_numpy()
    edges = np.flatnonzero(np.diff(np.r_[0, mask.astype(int), 0]))
    eps = table.index.to_numpy(float)
    rows = []
    for i, j in zip(edges[::2], edges[1::2]):
        run = slice(i, j)
        rows.append({"eps_from": eps[i], "eps_to": eps[j - 1],
                     "best": others.iloc[run].mean().idxmin(),
                     "max_excess": float((table[name].iloc[run] / best.iloc[run]).max() - 1)})
    return pd.DataFrame(rows, columns=["eps_from", "eps_to", "best", "max_excess"])
