"""Chapter 1's offline task at equal true ε, and the decision it allows.

Chapter 1's Type I task (Sec. V-B1 of Yuan et al.; :func:`ldp_companion.tldp.experiments.type1_grid`):
every training image of scikit-learn's 8×8 digits is released once by a tensor mechanism, a
small network is trained on the releases and scored (weighted F1) on clean test images. Here
each mechanism runs at the budget that makes it spend a given *true* ε
(:func:`ldp_companion.compare.utility.budget_for`).

Only two noises can be compared: TLDP cannot spend a true ε of 8 or less (C.3), and IDN and MVG
add exactly the Gaussian mechanism's noise at equal true ε (C.3), so their F1 is Gaussian's.
F1 is a Monte Carlo result: :func:`f1_decisions` names a winner only where its lead passes a
z-test over the runs, and says ``"inconclusive"`` elsewhere.

Chapter 2's tasks are not compared: :func:`type3_sigma` gives the noise one of its releases
needs at a true ε of this range, far above the features' range.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ldp_companion.compare.utility import budget_for
from ldp_companion.plotting import tick_text
from ldp_companion.tldp import experiments as tldp_experiments
from ldp_companion.tvg import experiments as tvg_experiments
from ldp_companion.tvg.noise import entry_std
from ldp_companion.validation import check_epsilon, check_positive_int

__all__ = ["DOWNSTREAM", "TASK", "INCONCLUSIVE", "downstream_f1", "f1_decisions", "type3_sigma",
           "type3_texts", "TYPE3_SHAPE", "TYPE3_PAPER_EPS"]

#: The tensor mechanisms whose noises differ at equal true ε (IDN and MVG: Gaussian's).
DOWNSTREAM = ("laplace", "gaussian")
#: The task's name in the decision map.
TASK = "digits F1 (ch. 1)"
#: A cell whose runs cannot tell the best from the next.
INCONCLUSIVE = "inconclusive"
#: One batch of chapter 2's Type III release: features × records (Sec. VIII-D, Cor. 1).
TYPE3_SHAPE = (math.prod(tvg_experiments.FEATURE_SHAPE), tvg_experiments.BATCH)
#: The largest ε of chapter 2's Fig. 5 (our reading of the paper's axis).
TYPE3_PAPER_EPS = tvg_experiments.PAPER_EPS_MAX


def type3_sigma(eps_true, delta: float) -> float:
    """Standard deviation per entry of the Gaussian noise that spends exactly ``eps_true`` at
    ``delta`` on one batch of chapter 2's Type III release (:data:`TYPE3_SHAPE`, tanh features
    of range ``b − a = 2``, so ``s₂ = 2√I``, Eqs. 34–36). Every mechanism of chapter 2 that
    spends this true ε adds at least this much noise in some direction
    (:func:`~ldp_companion.tvg.privacy.worst_mu`)."""
    return entry_std("gauss_analytic", TYPE3_SHAPE, check_epsilon(eps_true, "eps_true"), delta,
                     value_range=2.0)


def downstream_f1(eps_true, runs: int, seed: int, *, delta: float, epochs: int,
                  progress: bool | None = None) -> pd.DataFrame:
    """Weighted F1 of chapter 1's Type I task on digits, per mechanism of :data:`DOWNSTREAM`,
    true ε and run.

    Parameters
    ----------
    eps_true : list of float
        True ε (at ``delta`` for the Gaussian mechanism).
    runs : int
        Runs per (mechanism, ε): their own noise and initialisation.
    seed : int
        Seed of the split and of every run (chapter 1's grid).
    delta : float
        δ at which the Gaussian mechanism's ε is read.
    epochs : int
        Training epochs.

    Returns
    -------
    DataFrame
        Columns ``task, mechanism, epsilon`` (true), ``budget`` (the ε passed to the
        mechanism), ``run, f1``.
    """
    runs, epochs = _check_runs(runs), check_positive_int(epochs, "epochs")
    task = tldp_experiments.cached_task("digits", int(seed))
    frames = []
    for key in DOWNSTREAM:
        budgets = np.array([budget_for(key, float(t), task.tensor_shape, task.value_range,
                                       delta) for t in eps_true])
        grid = tldp_experiments.type1_grid(["digits"], [key], list(budgets), runs, seed,
                                           epochs=epochs, n_jobs=1, progress=progress)
        nearest = np.abs(grid["epsilon"].to_numpy()[:, None] - budgets[None, :]).argmin(1)
        frames.append(pd.DataFrame({
            "task": TASK, "mechanism": key, "epsilon": np.asarray(eps_true, float)[nearest],
            "budget": grid["epsilon"].to_numpy(), "run": grid["run"].to_numpy(),
            "f1": grid["f1"].to_numpy()}))
    return pd.concat(frames, ignore_index=True)


def f1_decisions(f1: pd.DataFrame, z: float) -> pd.DataFrame:
    """Per ε: the mechanism with the highest mean F1 and the next, the best's lead (its mean
    over the next's, minus 1), and ``best = "inconclusive"`` unless the gap of the means
    exceeds ``z`` standard errors (Welch) of the gap. Columns as
    :func:`~ldp_companion.compare.utility.decision_map`'s, plus ``z`` (the gap's z-score)."""
    z = float(z)
    if not math.isfinite(z) or z <= 0:
        raise ValueError(f"z must be a finite number > 0, got {z!r}")
    stats = f1.groupby(["task", "epsilon", "mechanism"], sort=False)["f1"].agg(
        ["mean", "std", "count"]).reset_index()
    if (stats["count"] < 2).any():
        raise ValueError("every (mechanism, ε) needs at least 2 runs to estimate its spread")
    stats["se"] = stats["std"] / np.sqrt(stats["count"])
    rows = []
    for (task, eps), cell in stats.groupby(["task", "epsilon"], sort=False):
        ranked = cell.sort_values("mean", ascending=False, kind="stable")
        first, second = ranked.iloc[0], ranked.iloc[1]
        score = (first["mean"] - second["mean"]) / max(math.hypot(first["se"], second["se"]),
                                                       1e-12)
        best = first["mechanism"] if score > z else INCONCLUSIVE
        rows.append({"task": task, "epsilon": eps, "best": best, "winner": best,
                     "next": second["mechanism"],
                     "lead": float(first["mean"] / second["mean"] - 1.0), "z": float(score)})
    return pd.DataFrame(rows)


def type3_texts(eps_true: float, delta: float) -> dict[str, str]:
    """The numbers the page says of chapter 2's Type III release: ``shape`` (one batch),
    ``eps`` (``eps_true``), ``sigma`` (:func:`type3_sigma` there, rounded) and ``paper``
    (the largest ε of Fig. 5)."""
    return {"shape": " × ".join(map(str, TYPE3_SHAPE)), "eps": tick_text(eps_true),
            "sigma": f"{type3_sigma(eps_true, delta):.0f}", "paper": tick_text(TYPE3_PAPER_EPS)}


def _check_runs(runs) -> int:
    """``runs`` as an integer >= 2 (a spread needs two)."""
    runs = check_positive_int(runs, "runs")
    if runs < 2:
        raise ValueError(f"runs must be >= 2 to estimate a spread, got {runs}")
    return runs
