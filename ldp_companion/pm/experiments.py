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

from ldp_companion.pm import fedsgd as fl
from ldp_companion.pm.multidim import estimate_mean, expected_mse
from ldp_companion.validation import check_epsilon, check_positive_int

__all__ = ["MeanTask", "LearningTask", "mean_estimation_grid", "fedsgd_grid", "paper_tasks",
           "split_task"]


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


def _cells(tasks, mechanisms, eps_grid, reps: int, seed: int):
    """Yield ``(task, label, eps, generators)`` for every cell, ``reps`` generators each,
    all spawned from ``seed`` in a fixed order."""
    reps = check_positive_int(reps, "runs")
    eps_grid = [check_epsilon(float(e), "eps_grid entries") for e in eps_grid]
    cells = [(t, m, e) for t in tasks for m in mechanisms for e in eps_grid]
    seqs = np.random.SeedSequence(seed).spawn(len(cells) * reps)
    for c, (task, label, eps) in enumerate(cells):
        yield task, label, eps, [np.random.default_rng(q) for q in seqs[c * reps:(c + 1) * reps]]


def mean_estimation_grid(tasks, mechanisms, eps_grid, runs: int, seed: int) -> pd.DataFrame:
    """Squared error of the estimated column means, every (task, mechanism, ε, run).

    Parameters
    ----------
    tasks : list of MeanTask
    mechanisms : dict
        Label -> anything :func:`~ldp_companion.pm.multidim.estimate_mean` accepts (a name of
        ``multidim_names()`` or a factory ``epsilon -> ScalarMechanism``).
    eps_grid : list of float
        Total budget per user; the numeric columns get ``budget_share`` of it.
    runs : int
    seed : int

    Returns
    -------
    DataFrame with columns ``dataset, n, mechanism, epsilon, run, mse, expected_mse`` (``n``
    users; the MSE averaged over columns, and its analytic expectation, brief §3.9).
    """
    rows = []
    for task, label, eps, rngs in _cells(tasks, mechanisms, eps_grid, runs, seed):
        budget = eps * task.budget_share
        truth = task.X.mean(axis=0)
        expected = expected_mse(task.X, budget, mechanisms[label])
        for r, rng in enumerate(rngs):
            est = estimate_mean(task.X, budget, mechanisms[label], rng)
            rows.append({"dataset": task.name, "n": task.X.shape[0], "mechanism": label,
                         "epsilon": eps, "run": r, "mse": float(np.mean((est - truth) ** 2)),
                         "expected_mse": expected})
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
        Label -> mechanism for :func:`~ldp_companion.pm.fedsgd.fedsgd`; the value ``None`` is the
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
    rows = []
    for task, label, eps, rngs in _cells(tasks, mechanisms, eps_grid, seeds, seed):
        mech = mechanisms[label]
        for s, rng in enumerate(rngs):
            res = fl.fedsgd(task.X_train, task.y_train, task.task, rng,
                            epsilon=None if mech is None else eps, mechanism=mech,
                            group_size=group_size, eta0=eta0, lam=lam)
            rows.append({"task": task.name, "mechanism": label, "epsilon": eps, "seed": s,
                         "error": _error(task, res.theta)})
    return pd.DataFrame(rows)


def split_task(name: str, task: str, X, y, rng: np.random.Generator,
               test_fraction: float = 0.2) -> LearningTask:
    """A :class:`LearningTask` from one table, with a random ``test_fraction`` held out."""
    if not 0 < test_fraction < 1:
        raise ValueError(f"test_fraction must be in (0, 1), got {test_fraction!r}")
    X, y = np.asarray(X, float), np.asarray(y, float)
    order = rng.permutation(len(y))
    n_test = max(1, int(round(test_fraction * len(y))))
    test, train = order[:n_test], order[n_test:]
    return LearningTask(name, task, X[train], y[train], X[test], y[test])


def paper_tasks(rng: np.random.Generator, *, vehicle_last: int = 20,
                test_fraction: float = 0.2):
    """The paper's real data sets as mean-estimation and learning tasks (``paper`` profile).

    Needs the files of :mod:`ldp_companion.pm.external_data` (WISDM, IPUMS BR and MX, Vehicle);
    raises one :class:`~ldp_companion.datasets.DataError` naming every missing file.

    Mean estimation (Fig. 6): WISDM's 3 accelerations (budget share 3/5: 2 categorical
    attributes), BR's 6 and MX's 5 numeric attributes with income (shares 6/16 and 5/19), and
    the last ``vehicle_last`` of Vehicle's 100 features (share 100/101). Learning (Figs. 8–10):
    linear regression of BR's scaled income on its binarised attributes, logistic regression of
    MX's income above its mean, and an SVM on Vehicle's binary label.

    Returns
    -------
    mean_tasks : list of MeanTask
    learn_tasks : list of LearningTask
    """
    from ldp_companion.pm import external_data as ext
    from ldp_companion.datasets import scale_to_unit_interval

    ext.require(["wisdm", "ipums_br", "ipums_mx", "vehicle"])
    wisdm = ext.load_wisdm()
    mean_tasks = [MeanTask("WISDM", scale_to_unit_interval(wisdm[["x", "y", "z"]].to_numpy()), 3 / 5)]
    learn = []
    for country, n_cat, task in (("BR", 10, "linear"), ("MX", 14, "logistic")):
        numeric, categorical, income = ext.load_ipums(country)
        with_income = numeric.assign(income=income)
        d_num = with_income.shape[1]
        mean_tasks.append(MeanTask(country, scale_to_unit_interval(with_income.to_numpy(float)),
                                   d_num / (d_num + n_cat)))
        X = ext.preprocess_for_ldp(numeric, categorical).to_numpy()
        scaled = scale_to_unit_interval(income.to_numpy(float)[:, None])[:, 0]
        y = scaled if task == "linear" else np.where(scaled > scaled.mean(), 1.0, -1.0)
        learn.append(split_task(f"{country} ({task})", task, X, y, rng, test_fraction))
    Xv, yv = ext.load_vehicle()
    mean_tasks.append(MeanTask(f"Vehicle (last {vehicle_last})", Xv[:, -vehicle_last:],
                               ext.VEHICLE_N_FEATURES / (ext.VEHICLE_N_FEATURES + 1)))
    learn.append(split_task("Vehicle (svm)", "svm", Xv, yv, rng, test_fraction))
    return mean_tasks, learn
