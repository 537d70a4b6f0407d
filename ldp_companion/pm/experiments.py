"""Experiment grids of Zhao et al. (2020): mean estimation (Figs. 6, 7, 11) and LDP-FedSGD
(Figs. 8–10, 12–14), with the Monte Carlo checks of Lemma 13 and of Alg. 1's server step.

Every run has its own generator, keyed by (data set, mechanism, ε, run) as
:func:`~ldp_companion.execution.grid.cell_rng` keys a grid cell, so each run is reproducible on its
own and the tables are identical whatever order, process or machine the runs go to. A cell of
:func:`~ldp_companion.execution.grid.run_grid` holds all the runs of one (data set, mechanism, ε):
a worker receives the data set once for all of them, not once per run (at the paper's 10⁶
users, sending the table to a worker cost more than the run itself).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd

from ldp_companion.execution.grid import cell_rng, run_grid
from ldp_companion.pm import fedsgd as fl
from ldp_companion.pm.multidim import (
    _check_tuples,
    _estimate_mean,
    _expected_mse,
    _per_coordinate_variance,
    lemma13_scale,
)
from ldp_companion.validation import (
    check_epsilon,
    check_positive_int,
    check_rng,
    check_unit_interval,
)

__all__ = ["MeanTask", "LearningTask", "mean_estimation_grid", "fedsgd_grid", "paper_tasks",
           "split_task", "DATA_SOURCES", "check_data", "first_group_gradients",
           "server_mean_check", "lemma13_errors",
           "lemma13_slopes", "lemma13_growth"]

#: Values of the chapter's ``data`` parameter: the offline stand-ins, or the paper's files.
DATA_SOURCES = ("stand-ins", "paper")


def check_data(data) -> str:
    """Return ``data`` after checking it is one of :data:`DATA_SOURCES`."""
    if data not in DATA_SOURCES:
        raise ValueError(f"data must be one of {DATA_SOURCES}, got {data!r}")
    return data


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


def _eps_list(eps_grid) -> list[float]:
    return [check_epsilon(float(e), "eps_grid entries") for e in eps_grid]


def _by_name(tasks) -> dict:
    named = {t.name: t for t in tasks}
    if len(named) != len(tasks):
        raise ValueError("tasks must have distinct names")
    return named


def _checked_task(task: MeanTask) -> MeanTask:
    """``task`` with its table checked (:func:`~ldp_companion.pm.multidim.estimate_mean`'s
    rules) and a positive budget share."""
    share = check_epsilon(task.budget_share, "budget_share")
    return MeanTask(task.name, _check_tuples(task.X), share)


def _mean_cell(dataset, mechanism, epsilon, rng, *, task, mechanisms, runs: int,
               seed: int) -> list[float]:
    """Every run of one (data set, mechanism, ε): the squared error of the column means,
    averaged over columns (``task``: the cell's own data set; a worker receives no other).
    Run ``r`` draws from the generator of the key with ``run = r`` (``rng`` is not used)."""
    key = {"dataset": dataset, "mechanism": mechanism, "epsilon": epsilon}
    truth, eps, mech = task.X.mean(axis=0), epsilon * task.budget_share, mechanisms[mechanism]
    return [float(np.mean((_estimate_mean(task.X, eps, mech, cell_rng(seed, {**key, "run": r}))
                           - truth) ** 2)) for r in range(runs)]


def mean_estimation_grid(tasks, mechanisms, eps_grid, runs: int, seed: int, *,
                         n_jobs: int | None = None, scheduler: str | None = None,
                         progress: bool | None = None) -> pd.DataFrame:
    """Squared error of the estimated column means, every (task, mechanism, ε, run).

    Parameters
    ----------
    tasks : list of MeanTask
        Distinct names.
    mechanisms : dict
        Label -> anything :func:`~ldp_companion.pm.multidim.estimate_mean` accepts (a name of
        ``multidim_names()`` or a factory ``epsilon -> ScalarMechanism``).
    eps_grid : list of float
        Total budget per user; the numeric columns get ``budget_share`` of it.
    runs : int
    seed : int
        Each run has its own generator (a cell of :func:`~ldp_companion.execution.grid.run_grid`
        holds the runs of one data set, mechanism and ε).
    n_jobs, scheduler, progress
        Workers (None: every core), a Dask scheduler's address, progress bar
        (:func:`~ldp_companion.execution.grid.run_grid`): the table does not depend on them.

    Returns
    -------
    DataFrame with columns ``dataset, n, mechanism, epsilon, run, mse, expected_mse`` (``n``
    users; the MSE averaged over columns, and its analytic expectation, Lemma 14).
    """
    runs = check_positive_int(runs, "runs")
    tasks = [_checked_task(t) for t in tasks]  # once here: the cells trust them
    eps_grid, named = _eps_list(eps_grid), _by_name(tasks)
    cells = [{"dataset": t.name, "mechanism": m, "epsilon": e}
             for t in tasks for m in mechanisms for e in eps_grid]
    fn = partial(_mean_cell, mechanisms=mechanisms, runs=runs, seed=seed)
    mse = run_grid(fn, cells, seed, n_jobs=n_jobs, scheduler=scheduler, progress=progress,
                   description="mean estimation", inputs=lambda c: {"task": named[c["dataset"]]})
    rows = []
    for c, values in zip(cells, mse):
        t = named[c["dataset"]]
        expected = _expected_mse(t.X, c["epsilon"] * t.budget_share, mechanisms[c["mechanism"]])
        rows += [{**c, "n": t.X.shape[0], "run": r, "mse": v, "expected_mse": expected}
                 for r, v in enumerate(values)]
    return pd.DataFrame(rows, columns=["dataset", "n", "mechanism", "epsilon", "run", "mse",
                                       "expected_mse"])


def _error(task: LearningTask, theta) -> float:
    if task.task == "linear":
        return fl.mse(theta, task.X_test, task.y_test)
    return fl.misclassification_rate(theta, task.X_test, task.y_test)


def _fedsgd_cell(task, mechanism, rng, epsilon=None, *, data, mechanisms, options,
                 seeds: int, seed: int) -> list[float]:
    """Test errors of every LDP-FedSGD repetition of one (task, mechanism, ε) (``epsilon``
    None for the non-private baseline; ``data``: the cell's own task, a worker receives no
    other). Repetition ``s`` draws from the generator of the key with ``seed = s`` (``rng``
    is not used)."""
    t, mech = data, mechanisms[mechanism]
    key = {"task": task, "mechanism": mechanism} | ({} if epsilon is None
                                                    else {"epsilon": epsilon})
    return [_error(t, fl.fedsgd(t.X_train, t.y_train, t.task, cell_rng(seed, {**key, "seed": s}),
                                epsilon=epsilon, mechanism=mech, **options).theta)
            for s in range(seeds)]


def fedsgd_grid(tasks, mechanisms, eps_grid, seeds: int, seed: int, *, group_size: int = 1000,
                eta0: float = 1.0, lam: float = 1e-4, n_jobs: int | None = None,
                scheduler: str | None = None, progress: bool | None = None) -> pd.DataFrame:
    """Test error of LDP-FedSGD (Alg. 1) for every (task, mechanism, ε, seed).

    Parameters
    ----------
    tasks : list of LearningTask
        Distinct names.
    mechanisms : dict
        Label -> mechanism for :func:`~ldp_companion.pm.fedsgd.fedsgd`; the value ``None`` is the
        non-private baseline (run once per seed, reported at every ε).
    eps_grid : list of float
    seeds : int
        Repetitions (fresh groups and noise each time).
    seed : int
        Each repetition has its own generator (a cell of
        :func:`~ldp_companion.execution.grid.run_grid` holds the repetitions of one task,
        mechanism and ε).
    group_size, eta0, lam
        Alg. 1's group size, step size ``eta_t = eta0 / sqrt(t)`` and L2 factor.
    n_jobs, scheduler, progress
        As in :func:`mean_estimation_grid`.

    Returns
    -------
    DataFrame with columns ``task, mechanism, epsilon, seed, error`` (test MSE for "linear",
    misclassification rate otherwise).
    """
    seeds = check_positive_int(seeds, "runs")
    eps_grid, named = _eps_list(eps_grid), _by_name(tasks)
    cells = []
    for t in tasks:
        for label, mech in mechanisms.items():
            eps_keys = [{}] if mech is None else [{"epsilon": e} for e in eps_grid]
            cells += [{"task": t.name, "mechanism": label, **k} for k in eps_keys]
    fn = partial(_fedsgd_cell, mechanisms=mechanisms, seeds=seeds, seed=seed,
                 options={"group_size": group_size, "eta0": eta0, "lam": lam})
    errors = run_grid(fn, cells, seed, n_jobs=n_jobs, scheduler=scheduler, progress=progress,
                      description="LDP-FedSGD", inputs=lambda c: {"data": named[c["task"]]})
    rows = []
    for c, errs in zip(cells, errors):
        at = [c["epsilon"]] if "epsilon" in c else eps_grid
        rows += [{"task": c["task"], "mechanism": c["mechanism"], "epsilon": e,
                  "seed": s, "error": err} for s, err in enumerate(errs) for e in at]
    order = {(t.name, m, e): i for i, (t, m, e) in enumerate(
        (t, m, e) for t in tasks for m in mechanisms for e in eps_grid)}
    rows.sort(key=lambda r: (order[r["task"], r["mechanism"], r["epsilon"]], r["seed"]))
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
    raises one :class:`~ldp_companion.data.datasets.DataError` naming every missing file.

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
    from ldp_companion.data.datasets import scale_to_unit_interval
    from ldp_companion.pm import external_data as ext

    ext.require(["wisdm", "ipums_br", "ipums_mx", "vehicle"])
    wisdm = ext.load_wisdm()
    mean_tasks = [MeanTask("WISDM", scale_to_unit_interval(wisdm[["x", "y", "z"]].to_numpy()),
                           3 / 5)]
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


def first_group_gradients(task: LearningTask, group_size: int, lam: float) -> np.ndarray:
    """The clipped gradients that the first ``group_size`` training vehicles of ``task``
    upload in Alg. 1's first round (at ``theta = 0``), shape ``(group_size, d)``."""
    G = check_positive_int(group_size, "group_size")
    if G > task.X_train.shape[0]:
        raise ValueError(f"group_size must be <= {task.X_train.shape[0]}, got {G}")
    theta0 = np.zeros(task.X_train.shape[1])
    grads = fl.gradients(theta0, task.X_train[:G], task.y_train[:G], task.task, lam)
    return np.clip(grads, -1.0, 1.0)


def server_mean_check(grads, mechanisms: dict, eps_grid, rng: np.random.Generator, *,
                      reps: int = 200) -> pd.DataFrame:
    """Monte Carlo of Alg. 1's server step (:func:`~ldp_companion.pm.fedsgd.server_mean`) on one
    group's gradients: ``reps`` independent rounds per (mechanism, ε).

    The average is unbiased for ``grads.mean(axis=0)``, and its expected squared error per
    coordinate is :func:`~ldp_companion.pm.multidim.expected_mse` (each vehicle's report has
    the per-coordinate variance of Lemma 12/14, the ``G`` reports are independent).

    Parameters
    ----------
    grads : array_like, shape (G, d)
        Clipped gradients, entries in [-1, 1].
    mechanisms : dict
        Label -> mechanism for :func:`~ldp_companion.pm.fedsgd.server_mean`.
    eps_grid : list of float
    rng : numpy.random.Generator
    reps : int
        Rounds per cell.

    Returns
    -------
    DataFrame, one row per (mechanism, ε): ``z_max`` (the largest over the ``d`` coordinates of
    ``|mean - truth| / sqrt(Var / reps)``, ``Var`` the closed form), ``coordinates`` (``d``),
    ``mse`` and ``sd`` (mean and standard deviation over the rounds of the squared error
    averaged over coordinates), ``expected`` and ``reps``.
    """
    grads = check_unit_interval(grads, "grads")
    if grads.ndim != 2 or grads.shape[0] < 1 or grads.shape[1] < 1:
        raise ValueError(f"grads must be a 2-D array (G, d), got shape {grads.shape}")
    rng, reps = check_rng(rng), check_positive_int(reps, "reps")
    if reps < 2:
        raise ValueError(f"reps must be at least 2, got {reps}")
    truth, G = grads.mean(axis=0), grads.shape[0]
    rows = []
    for label, mech in mechanisms.items():
        for e in _eps_list(eps_grid):
            server = fl._aggregator(e, mech, grads.shape[1], None, "split")  # Alg. 1, step 3
            est = np.stack([server(grads, rng) for _ in range(reps)])
            var = _per_coordinate_variance(grads, e, mech).sum(axis=0) / G**2
            sq = ((est - truth) ** 2).mean(axis=1)
            rows.append({"mechanism": label, "epsilon": e,
                         "z_max": float(np.max(np.abs(est.mean(axis=0) - truth)
                                               / np.sqrt(var / reps))),
                         "coordinates": grads.shape[1], "mse": float(sq.mean()),
                         "sd": float(sq.std(ddof=1)),
                         "expected": _expected_mse(grads, e, mech), "reps": reps})
    return pd.DataFrame(rows)


def lemma13_errors(n_grid, d_grid, mechanisms, eps_grid, runs: int,
                   rng: np.random.Generator) -> pd.DataFrame:
    """The largest error of the estimated column means (Lemma 13), run by run.

    For each ``n`` users and ``d`` attributes one Gaussian table
    (:func:`~ldp_companion.pm.synthetic.gaussian`) is drawn; each (mechanism, ε) estimates its
    column means ``runs`` times by Alg. 6 (:func:`~ldp_companion.pm.multidim.estimate_mean`).

    Returns
    -------
    DataFrame with columns ``n, d, mechanism, epsilon, run, error`` (``max_j |mean_j(y) -
    mean_j(x)|``) and ``ratio`` (the error over Lemma 13's rate
    :func:`~ldp_companion.pm.multidim.lemma13_scale`).
    """
    from ldp_companion.pm.synthetic import gaussian

    runs, rng = check_positive_int(runs, "runs"), check_rng(rng)
    eps_grid = _eps_list(eps_grid)
    rows = []
    for d in d_grid:
        for n in n_grid:
            X = gaussian(int(n), int(d), rng=rng)
            truth = X.mean(axis=0)
            for name in mechanisms:
                for e in eps_grid:
                    for r in range(runs):
                        err = float(np.abs(_estimate_mean(X, e, name, rng) - truth).max())
                        rows.append({"n": int(n), "d": int(d), "mechanism": name,
                                     "epsilon": e, "run": r, "error": err,
                                     "ratio": err / lemma13_scale(int(n), int(d), e)})
    return pd.DataFrame(rows)


def lemma13_slopes(errors: pd.DataFrame) -> pd.DataFrame:
    """Per (mechanism, ε, d) and run, the least-squares slope of log error against log n
    (Lemma 13's rate in ``n`` is a slope of -1/2); one column per run."""
    if errors["n"].nunique() < 2:
        raise ValueError("the slope needs at least two values of n")

    def slope(g):
        return np.polyfit(np.log(g["n"]), np.log(g["error"]), 1)[0]

    return errors.groupby(["mechanism", "epsilon", "d", "run"]).apply(
        slope, include_groups=False).unstack("run")


def lemma13_growth(errors: pd.DataFrame, margin: float) -> pd.DataFrame:
    """Per (mechanism, ε) and run, at the largest ``n``: ``(1 + margin) ratio(d_min) -
    ratio(d_max)``, positive where the error at the most attributes has not outgrown Lemma
    13's rate ``sqrt(d ln d)`` by more than ``margin`` relative to the fewest; one column per
    run (what :meth:`~ldp_companion.verdicts.ledger.Ledger.difference` judges)."""
    if not margin > 0:
        raise ValueError(f"margin must be > 0, got {margin!r}")
    if errors["d"].nunique() < 2:
        raise ValueError("the growth in d needs at least two values of d")
    top = errors[errors["n"] == errors["n"].max()]
    ratio = top.pivot_table(index=["mechanism", "epsilon", "run"], columns="d", values="ratio")
    diff = (1.0 + margin) * ratio[ratio.columns.min()] - ratio[ratio.columns.max()]
    return diff.unstack("run")
