"""Experiment grids of Zhao et al. (2020): mean estimation (Figs. 6, 7, 11) and LDP-FedSGD
(Figs. 8–10, 12–14).

Every run draws from its own generator, spawned from the caller's seed, so each
(dataset, mechanism, ε, run) cell is reproducible on its own and the tables are identical
whatever order the cells run in.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ldp_companion import fedsgd as fl
from ldp_companion.multidim import estimate_mean, expected_mse
from ldp_companion.validation import check_epsilon, check_positive_int

__all__ = ["MeanTask", "LearningTask", "mean_estimation_grid", "fedsgd_grid"]


@dataclass(frozen=True)
class MeanTask:
    """A table whose column means are estimated.

    ``budget_share`` is the share of the user's ε spent on these numeric columns (the paper
    gives numeric attributes ``ε d_num / d`` when categorical ones share the tuple, §VII-A).
    """

    name: str
    X: np.ndarray
    budget_share: float = 1.0


@dataclass(frozen=True)
class LearningTask:
    """A train/test split for LDP-FedSGD; ``task`` is "linear", "logistic" or "svm"."""

    name: str
    task: str
    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray


def _generators(seed: int, n: int) -> list[np.random.Generator]:
    return [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(n)]


def mean_estimation_grid(tasks, mechanisms, eps_grid, runs: int, seed: int) -> pd.DataFrame:
    """Squared error of the estimated column means, every (task, mechanism, ε, run).

    Parameters
    ----------
    tasks : list of MeanTask
    mechanisms : dict
        Label -> anything :func:`~ldp_companion.multidim.estimate_mean` accepts (a name of
        ``multidim_names()`` or a factory ``epsilon -> ScalarMechanism``).
    eps_grid : list of float
        Total budget per user; the numeric columns get ``budget_share`` of it.
    runs : int
    seed : int

    Returns
    -------
    DataFrame with columns ``dataset, mechanism, epsilon, run, mse, expected_mse`` (the MSE
    averaged over columns, and its analytic expectation, brief §3.9).
    """
    runs = check_positive_int(runs, "runs")
    eps_grid = [check_epsilon(float(e), "eps_grid entries") for e in eps_grid]
    cells = [(t, m, e) for t in tasks for m in mechanisms for e in eps_grid]
    rngs = _generators(seed, len(cells) * runs)
    rows = []
    for c, (task, label, eps) in enumerate(cells):
        budget = eps * task.budget_share
        truth = task.X.mean(axis=0)
        expected = expected_mse(task.X, budget, mechanisms[label])
        for r in range(runs):
            est = estimate_mean(task.X, budget, mechanisms[label], rngs[c * runs + r])
            rows.append({"dataset": task.name, "mechanism": label, "epsilon": eps, "run": r,
                         "mse": float(np.mean((est - truth) ** 2)), "expected_mse": expected})
    return pd.DataFrame(rows)


def _error(task: LearningTask, theta) -> float:
    if task.task == "linear":
        return fl.mse(theta, task.X_test, task.y_test)
    return fl.misclassification_rate(theta, task.X_test, task.y_test)


def fedsgd_grid(tasks, mechanisms, eps_grid, seeds: int, seed: int, *, group_size: int = 1000,
                eta0: float = 1.0, lam: float = 1e-4) -> pd.DataFrame:
    """Test error of LDP-FedSGD (Alg. 1) for every (task, mechanism, ε, seed).

    Parameters
    ----------
    tasks : list of LearningTask
    mechanisms : dict
        Label -> mechanism for :func:`~ldp_companion.fedsgd.fedsgd`; the value ``None`` is the
        non-private baseline (run once per seed, reported at every ε).
    eps_grid : list of float
    seeds : int
        Repetitions (fresh groups and noise each time).
    seed : int
    group_size, eta0, lam
        Alg. 1's group size, step size ``eta_t = eta0 / sqrt(t)`` and L2 factor.

    Returns
    -------
    DataFrame with columns ``task, mechanism, epsilon, seed, error`` (test MSE for "linear",
    misclassification rate otherwise).
    """
    seeds = check_positive_int(seeds, "seeds")
    eps_grid = [check_epsilon(float(e), "eps_grid entries") for e in eps_grid]
    cells = [(t, m, e) for t in tasks for m in mechanisms for e in eps_grid]
    rngs = _generators(seed, len(cells) * seeds)
    rows = []
    for c, (task, label, eps) in enumerate(cells):
        mech = mechanisms[label]
        for s in range(seeds):
            res = fl.fedsgd(task.X_train, task.y_train, task.task, rngs[c * seeds + s],
                            epsilon=None if mech is None else eps, mechanism=mech,
                            group_size=group_size, eta0=eta0, lam=lam)
            rows.append({"task": task.name, "mechanism": label, "epsilon": eps, "seed": s,
                         "error": _error(task, res.theta)})
    return pd.DataFrame(rows)
