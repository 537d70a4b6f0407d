"""A mean-estimation grid for scalar mechanisms, the papers' and the reader's side by side.

Each user holds one value in [-1, 1] and reports it once; the aggregator averages the reports.
Every run is a cell of :func:`~ldp_companion.execution.grid.run_grid` keyed by (data set, mechanism,
ε, run), so the table does not depend on the number of workers. A mechanism is given as a factory
``epsilon -> ScalarMechanism`` (a class, a lambda) or a registered name; the workers receive a
factory itself, so a mechanism registered in a notebook needs to be passed as its class.
"""
from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd

from ldp_companion.data.datasets import load_diabetes, scale_to_unit_interval
from ldp_companion.execution.grid import run_grid
from ldp_companion.mechanisms import get_mechanism
from ldp_companion.validation import (
    check_epsilons,
    check_positive_int,
    check_rng,
    check_unit_interval,
)

__all__ = ["mean_datasets", "scalar_mean_grid", "mse_matches"]


def mean_datasets(n: int, rng: np.random.Generator) -> dict:
    """The two data sets of the mean-estimation grid, ``n`` users each, in [-1, 1].

    ``"uniform"``: values drawn uniformly; ``"body-mass index (diabetes)"``: the body-mass
    index of scikit-learn's bundled diabetes table, scaled to [-1, 1]
    (:func:`~ldp_companion.data.datasets.scale_to_unit_interval`) and resampled with replacement.
    Both come from ``rng``, in that order.

    Parameters
    ----------
    n : int
        Users per data set.
    rng : numpy.random.Generator

    Returns
    -------
    dict
        Name -> 1-d array of ``n`` values.
    """
    n, rng = check_positive_int(n, "n"), check_rng(rng)
    bmi = scale_to_unit_interval(load_diabetes()[0][:, 2])
    uniform = rng.uniform(-1, 1, n)
    return {"uniform": uniform, "body-mass index (diabetes)": rng.choice(bmi, n)}


def _factory(spec):
    if isinstance(spec, str):
        get_mechanism(spec, 1.0)  # an unknown name fails here, listing the known ones
        return partial(get_mechanism, spec)
    if not callable(spec):
        raise TypeError(f"a mechanism is a name or a factory epsilon -> mechanism, got {spec!r}")
    return spec


def _cell(dataset, mechanism, epsilon, run, rng, *, data, factories) -> float:
    # the data were checked once by scalar_mean_grid: the mechanism's own sampler trusts them
    x = data[dataset]
    reports = np.asarray(factories[mechanism](epsilon)._privatize(x, rng))
    return float((reports.mean() - x.mean()) ** 2)


def scalar_mean_grid(data: dict, mechanisms: dict, eps_grid, runs: int, seed: int, *,
                     n_jobs: int | None = None, progress: bool | None = None) -> pd.DataFrame:
    """Squared error of the estimated mean, every (data set, mechanism, ε, run).

    Parameters
    ----------
    data : dict
        Name -> 1-d array of the users' values in [-1, 1].
    mechanisms : dict
        Label -> registered name or factory ``epsilon -> ScalarMechanism``.
    eps_grid : sequence of float
    runs, seed : int
    n_jobs, progress
        Workers and progress bar of :func:`~ldp_companion.execution.grid.run_grid`.

    Returns
    -------
    DataFrame with columns ``dataset, n, mechanism, epsilon, run, mse, expected_mse``; the
    expected MSE of an average of independent unbiased reports is ``mean_i Var[Y | x_i] / n``.
    """
    values = {name: check_unit_interval(x, f"data[{name!r}]") for name, x in data.items()}
    if any(x.ndim != 1 or x.size == 0 for x in values.values()):
        raise ValueError("each data set must be a non-empty 1-d array")
    factories = {label: _factory(spec) for label, spec in mechanisms.items()}
    eps_grid = [float(e) for e in check_epsilons(eps_grid, "eps_grid")]
    runs = check_positive_int(runs, "runs")
    cells = [{"dataset": d, "mechanism": m, "epsilon": e, "run": r}
             for d in values for m in factories for e in eps_grid for r in range(runs)]
    mse = run_grid(partial(_cell, data=values, factories=factories), cells, seed,
                   n_jobs=n_jobs, progress=progress, description="mean estimation")
    expected = {(d, m, e): float(np.mean(factories[m](e)._variance(x))) / x.size
                for d, x in values.items() for m in factories for e in eps_grid}
    return pd.DataFrame([{**c, "n": values[c["dataset"]].size, "mse": v,
                          "expected_mse": expected[c["dataset"], c["mechanism"], c["epsilon"]]}
                         for c, v in zip(cells, mse)])


def mse_matches(table: pd.DataFrame, family_error: float = 1e-3):
    """Does each cell's MSE over its runs match its expected MSE? An exact χ² test per cell.

    With many users the estimate's error is Gaussian (central limit theorem), so each run's
    ``mse / expected_mse`` is χ² with 1 degree of freedom and the sum over ``R`` runs is χ² with
    ``R``. A two-sided test per (data set, mechanism, ε) cell at ``family_error / cells``
    (Bonferroni) rejects a correct cell anywhere with probability at most ``family_error``;
    unlike a t-test on the mean, it is not fooled by the skew of squared errors.

    Parameters
    ----------
    table : DataFrame
        :func:`scalar_mean_grid`'s output.

    Returns
    -------
    ok : ndarray of bool
        One entry per cell.
    summary : dict
        ``smallest p`` (two-sided), ``level`` (the per-cell level) and ``cells``.
    """
    from scipy import stats

    if not 0.0 < family_error < 1.0:
        raise ValueError(f"family_error must be in (0, 1), got {family_error!r}")
    cells = table.groupby(["dataset", "mechanism", "epsilon"])
    statistic = cells.apply(lambda g: float((g["mse"] / g["expected_mse"]).sum()))
    runs = cells.size()
    p = 2 * np.minimum(stats.chi2.cdf(statistic, runs), stats.chi2.sf(statistic, runs))
    level = family_error / len(p)
    return np.asarray(p > level), {"smallest p": float(np.min(p)), "level": level,
                                   "cells": int(len(p))}
