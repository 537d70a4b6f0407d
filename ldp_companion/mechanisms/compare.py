"""Comparing scalar mechanisms by worst-case variance (Fig. 1 and Tables I–II of Zhao et al.)."""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import optimize

from ldp_companion.mechanisms import get_mechanism
from ldp_companion.validation import check_epsilon

__all__ = ["worst_case_table", "crossover"]


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
