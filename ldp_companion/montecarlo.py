"""Monte Carlo checks of a scalar mechanism's mean and variance."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ldp_companion.validation import check_positive_int, check_rng

__all__ = ["moment_check"]


def moment_check(mechanism, xs, n: int, rng: np.random.Generator) -> pd.DataFrame:
    """Compare the empirical mean and variance of ``n`` outputs per input with the closed forms.

    For each input ``x`` the z-score of the sample mean is ``(mean - x) / sqrt(Var(x) / n)``
    (``Var`` the closed form), and the relative variance error is ``s^2 / Var(x) - 1``.

    Parameters
    ----------
    mechanism : ScalarMechanism
    xs : array_like
        Inputs in [-1, 1].
    n : int
        Samples per input.
    rng : numpy.random.Generator

    Returns
    -------
    DataFrame with columns ``x, mean, var, var_closed_form, z, rel_var_error``.
    """
    n = check_positive_int(n, "n")
    rng = check_rng(rng)
    xs = np.atleast_1d(np.asarray(xs, float))
    rows = []
    for x in xs:  # one vectorized draw of n outputs per input
        y = mechanism.privatize(np.full(n, x), rng)
        v = float(mechanism.variance(x))
        rows.append({"x": x, "mean": y.mean(), "var": y.var(ddof=1), "var_closed_form": v,
                     "z": (y.mean() - x) / np.sqrt(v / n),
                     "rel_var_error": y.var(ddof=1) / v - 1.0})
    return pd.DataFrame(rows)
