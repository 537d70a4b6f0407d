"""Monte Carlo checks of a scalar mechanism's mean and variance, and of the scale of the noise a
mechanism draws."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ldp_companion.validation import check_positive_int, check_rng

__all__ = ["moment_check", "bonferroni_z", "means_match", "paired_differences",
           "estimated_scale"]


def bonferroni_z(cells: int, family_error: float = 1e-3) -> float:
    """Two-sided |z| bound that a correct sampler exceeds in any of ``cells`` independent cells
    with probability at most ``family_error`` (Bonferroni): ``Phi^-1(1 - family_error / 2 cells)``.
    """
    from scipy import stats

    cells = check_positive_int(cells, "cells")
    if not 0.0 < family_error < 1.0:
        raise ValueError(f"family_error must be in (0, 1), got {family_error!r}")
    return float(stats.norm.isf(family_error / (2 * cells)))


def moment_check(mechanism, xs, n: int, rng: np.random.Generator) -> pd.DataFrame:
    """Compare the empirical mean and variance of ``n`` outputs per input with the closed forms.

    For each input ``x`` the z-score of the sample mean is ``(mean - x) / sqrt(Var(x) / n)``
    (``Var`` the closed form), the relative variance error is ``s^2 / Var(x) - 1``, and its
    z-score is ``(s^2 - Var(x)) / se``, with ``se^2 = (mu4 - (n - 3) / (n - 1) Var(x)^2) / n`` the
    exact variance of the unbiased sample variance of ``n`` i.i.d. draws (``mu4`` the central
    fourth moment of the exact output law and ``Var(x)`` there the law's own variance, so heavy
    tails such as Laplace's widen it, two-point laws such as Duchi's at ``x = 0`` shrink it
    correctly, and a closed form that disagrees with the law gives a large ``z``, not NaN).

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
    DataFrame with columns ``x, mean, var, var_closed_form, z, rel_var_error, z_var``.
    """
    n = check_positive_int(n, "n")
    rng = check_rng(rng)
    xs = np.atleast_1d(np.asarray(xs, float))
    rows = []
    for x in xs:  # one vectorized draw of n outputs per input
        y = mechanism.privatize(np.full(n, x), rng)
        v = float(mechanism.variance(x))
        s2 = y.var(ddof=1)
        law = mechanism.output_law(float(x))
        mu4 = law.expect(lambda t, x=x: (t - x) ** 4)
        # the standard error under the output law (so that a wrong closed form v gives a
        # large z, not the square root of a negative number)
        se_var = np.sqrt(max(mu4 - (n - 3) / (n - 1) * law.var() ** 2, 0.0) / n)
        z_var = (s2 - v) / se_var if se_var > 0 else (0.0 if s2 == v else np.inf)
        rows.append({"x": x, "mean": y.mean(), "var": s2, "var_closed_form": v,
                     "z": (y.mean() - x) / np.sqrt(v / n),
                     "rel_var_error": s2 / v - 1.0, "z_var": z_var})
    return pd.DataFrame(rows)


def means_match(means, sds, expected, runs: int, *, family_error: float = 1e-3,
                pooled_z: float = 4.0):
    """Do Monte Carlo means over ``runs`` repetitions match their expected values?

    Each cell: ``t = (mean - expected) / (sd / sqrt(runs))`` against the Student-t bound with
    ``runs - 1`` degrees of freedom, Bonferroni over the cells (family-wise ``family_error``).
    With few runs each cell's test is weak, so the cells are also pooled: the mean relative gap
    ``mean / expected - 1`` over all cells must be within ``pooled_z`` of its standard errors,
    which a formula off by a constant factor fails.

    Returns
    -------
    ok : ndarray of bool
        One entry per cell, then one for the pooled test.
    summary : dict
        ``t_max``, ``t_bound``, ``mean_gap``, ``z_pooled``, ``largest_gap``.
    """
    from scipy import stats

    means, sds, expected = (np.asarray(a, float) for a in (means, sds, expected))
    if not means.shape == sds.shape == expected.shape or means.ndim != 1 or means.size < 2:
        raise ValueError("means, sds and expected must be 1-d arrays of one shape (>= 2 cells)")
    runs = check_positive_int(runs, "runs")
    if runs < 2:
        raise ValueError("runs must be at least 2 (a standard deviation needs two)")
    t = (means - expected) / (sds / np.sqrt(runs))
    t_bound = float(stats.t.isf(family_error / (2 * means.size), runs - 1))
    rel = means / expected - 1.0
    z = float(rel.mean() / (rel.std(ddof=1) / np.sqrt(rel.size)))
    ok = np.r_[np.abs(t) < t_bound, abs(z) < pooled_z]
    return ok, {"t_max": float(np.abs(t).max()), "t_bound": t_bound, "mean_gap": float(rel.mean()),
                "z_pooled": z, "largest_gap": float(np.abs(rel).max())}


def paired_differences(runs: pd.DataFrame, by, worse, better) -> np.ndarray:
    """Per setting, the run-by-run difference ``runs[worse] - runs[better]``.

    Parameters
    ----------
    runs : DataFrame
        One row per (setting, run), one column per method; the settings are the index levels
        ``by`` (e.g. ``["task", "epsilon"]``), the remaining levels name the run (seed, fold).
    by : str or list of str
        Index levels that define a setting.
    worse, better : column label or Series
        The method (or setting, e.g. an ε) the claim says is worse / better: a column label,
        or a Series mapping each setting to a column (e.g. the best method of a group there).

    Returns
    -------
    ndarray, shape (settings, runs)
        In sorted setting order, positive where the run agrees with the claim; what
        :meth:`ldp_companion.verdicts.ledger.Ledger.difference` judges.
    """
    def column(which, key):
        return which[key] if isinstance(which, pd.Series) else which

    return np.vstack([(g[column(worse, k)] - g[column(better, k)]).to_numpy()
                      for k, g in runs.groupby(level=by)])


def estimated_scale(draws, noise: str = "laplace") -> tuple[float, float]:
    """The scale of i.i.d. zero-mean noise estimated from its ``draws``, and the estimate's
    standard error: ``b̂ = mean |Z|`` for ``Lap(b)`` (``E|Z| = b``), ``σ̂ = √(mean Z²)`` for
    ``N(0, σ²)`` (standard error by the delta method for the square root).

    Parameters
    ----------
    draws : array_like
        Noise draws (at least 2, finite).
    noise : {"laplace", "gaussian"}
    """
    z = np.asarray(draws, float).ravel()
    if z.size < 2 or not np.all(np.isfinite(z)):
        raise ValueError("draws must hold at least two finite noise draws")
    if noise == "laplace":
        a = np.abs(z)
        return float(a.mean()), float(a.std(ddof=1) / np.sqrt(z.size))
    if noise == "gaussian":
        sq = z * z
        scale = float(np.sqrt(sq.mean()))
        return scale, float(0.5 * sq.std(ddof=1) / (scale * np.sqrt(z.size)))
    raise ValueError(f"noise must be 'laplace' or 'gaussian', got {noise!r}")
