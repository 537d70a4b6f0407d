"""Chapter 1's offline task at equal true ε, and the decision it allows.

Chapter 1's Type I task (Sec. V-B1 of Yuan et al.;
:func:`ldp_companion.tldp.experiments.type1_grid`): every training image of scikit-learn's 8×8
digits is released once by a tensor mechanism, a small network is trained on the releases and scored
(weighted F1) on clean test images. Here each mechanism runs at the budget that makes it spend a
given *true* ε (:func:`ldp_companion.compare.utility.budget_for`).

Every mechanism is read at one (ε, δ): the Laplace ones from their privacy-loss distribution.
TLDP takes part only at the true ε it can spend; IDN and MVG add exactly the Gaussian
mechanism's noise at equal true ε (C.3), so their F1 is Gaussian's. F1 is a Monte Carlo
result: :func:`f1_decisions` names a winner only where it beats a guess that ignores the image
(:func:`chance_f1`) and its lead passes a t-test over the runs, both corrected for the number
of tests; elsewhere it says ``"at chance"`` or ``"inconclusive"``.

Chapter 2's tasks are not compared: :func:`type3_sigma` gives the noise one of its releases
needs at a true ε of this range, far above the features' range, and
:func:`type3_accuracy_gain` how little any classifier can read from it.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ldp_companion.compare.utility import budget_for
from ldp_companion.page.plotting import tick_text
from ldp_companion.tldp import experiments as tldp_experiments
from ldp_companion.tvg import experiments as tvg_experiments
from ldp_companion.tvg.noise import entry_std
from ldp_companion.validation import check_epsilon, check_positive_int

__all__ = ["DOWNSTREAM", "TASK", "INCONCLUSIVE", "AT_CHANCE", "downstream_f1", "chance_f1",
           "digits_chance", "f1_decisions", "type3_sigma", "type3_accuracy_gain", "type3_texts",
           "TYPE3_SHAPE", "TYPE3_PAPER_EPS"]

#: The tensor mechanisms of chapter 1 whose noises differ at equal true ε (IDN and MVG add
#: Gaussian's); a mechanism takes part at the true ε it can spend (TLDP only at large ones).
DOWNSTREAM = ("tldp_l", "tldp_g", "laplace", "gaussian")
#: The task's name in the decision map.
TASK = "digits F1 (ch. 1)"
#: A cell whose runs cannot tell the best from the next.
INCONCLUSIVE = "inconclusive"
#: A cell whose best mechanism does not beat a guess that ignores the image.
AT_CHANCE = "at chance"
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


def type3_accuracy_gain(eps_true, delta: float) -> float:
    """How much a classifier reading one record of chapter 2's Type III release (its
    ``TYPE3_SHAPE[0]`` features, each in (−1, 1), with the Gaussian noise of
    :func:`type3_sigma`) can beat one that never looks at the record, at most: the total
    variation distance between the releases of the two records farthest apart,
    ``2Φ(‖x − x'‖₂ / 2σ) − 1`` with ``‖x − x'‖₂ = 2√I``. Any classifier's accuracy differs
    between two inputs by at most this, so it is at most the largest class share plus it."""
    from scipy.stats import norm

    features = TYPE3_SHAPE[0]
    sigma = type3_sigma(eps_true, delta)
    return float(2.0 * norm.cdf(2.0 * math.sqrt(features) / (2.0 * sigma)) - 1.0)


def downstream_f1(eps_true, runs: int, seed: int, *, delta: float, epochs: int,
                  progress: bool | None = None) -> pd.DataFrame:
    """Weighted F1 of chapter 1's Type I task on digits, per mechanism of :data:`DOWNSTREAM`,
    true ε and run, wherever the mechanism can spend that true ε.

    Parameters
    ----------
    eps_true : list of float
        True ε at ``delta`` (:func:`~ldp_companion.compare.utility.budget_for`).
    runs : int
        Runs per (mechanism, ε): their own noise and initialisation.
    seed : int
        Seed of the split and of every run (chapter 1's grid).
    delta : float
        δ at which every mechanism's ε is read (the Laplace ones' from their privacy-loss
        distribution).
    epochs : int
        Training epochs.

    Returns
    -------
    DataFrame
        Columns ``task, mechanism, epsilon`` (true), ``budget`` (the ε passed to the
        mechanism), ``run, f1``. A mechanism that cannot spend a true ε has no rows there.
    """
    runs, epochs = _check_runs(runs), check_positive_int(epochs, "epochs")
    task = tldp_experiments.cached_task("digits", int(seed))
    targets = np.asarray(eps_true, float)
    frames = []
    for key in DOWNSTREAM:
        budgets = np.array([budget_for(key, float(t), task.tensor_shape, task.value_range,
                                       delta) for t in targets])
        reached = np.isfinite(budgets)
        if not reached.any():
            continue
        grid = tldp_experiments.type1_grid(["digits"], [key], list(budgets[reached]), runs,
                                           seed, epochs=epochs, n_jobs=1, progress=progress)
        nearest = np.abs(grid["epsilon"].to_numpy()[:, None]
                         - budgets[reached][None, :]).argmin(1)
        frames.append(pd.DataFrame({
            "task": TASK, "mechanism": key, "epsilon": targets[reached][nearest],
            "budget": grid["epsilon"].to_numpy(), "run": grid["run"].to_numpy(),
            "f1": grid["f1"].to_numpy()}))
    return pd.concat(frames, ignore_index=True)


def chance_f1(labels) -> float:
    """The weighted F1 that a guess ignoring the input gets in expectation on a test set with
    these labels: the better of a uniform guess (class c: precision p_c, recall 1/K) and a
    guess drawn by the classes' shares (F1 of class c = p_c), i.e.
    ``max(Σ p_c · 2 p_c/K / (p_c + 1/K), Σ p_c²)``. About 0.10 on ten balanced classes."""
    labels = np.asarray(labels)
    if labels.ndim != 1 or labels.size == 0:
        raise ValueError("labels must be a non-empty 1-d array")
    _, counts = np.unique(labels, return_counts=True)
    p, k = counts / counts.sum(), len(counts)
    uniform = float(np.sum(p * 2 * p / k / (p + 1 / k)))
    return max(uniform, float(np.sum(p ** 2)))


def digits_chance(seed: int) -> float:
    """:func:`chance_f1` on the test labels of chapter 1's digits split for ``seed``."""
    return chance_f1(tldp_experiments.cached_task("digits", int(seed)).y_test)


def f1_decisions(f1: pd.DataFrame, level: float, chance: float) -> pd.DataFrame:
    """Per task and ε: the mechanism with the highest mean F1, the next, the best's lead (its
    mean over the next's, minus 1) and ``best``: the winner only where two tests decide it,
    each at ``(1 − level) / m`` for the ``m`` tests of the frame (Bonferroni: all of them hold
    together with probability at least ``level``):

    * the best's F1 is above ``chance`` (one-sided t-test over its runs), else ``best`` is
      :data:`AT_CHANCE`;
    * its lead over the next is not a draw of the runs (Welch's two-sided t-test, Student's
      t quantiles), else :data:`INCONCLUSIVE`. A cell that one mechanism alone can reach
      needs only the first test.

    Columns as :func:`~ldp_companion.compare.utility.decision_map`'s, plus ``chance``,
    ``p_chance`` and ``p_lead`` (the tests' p-values)."""
    from scipy import stats

    level, chance = _check_level(level), float(chance)
    cells = f1.groupby(["task", "epsilon"], sort=False)
    if (f1.groupby(["task", "epsilon", "mechanism"])["f1"].count() < 2).any():
        raise ValueError("every (mechanism, ε) needs at least 2 runs to estimate its spread")
    tests = sum(1 + (cell["mechanism"].nunique() > 1) for _, cell in cells)
    alpha = (1.0 - level) / tests
    rows = []
    for (task, eps), cell in cells:
        runs = {k: part["f1"].to_numpy() for k, part in cell.groupby("mechanism", sort=False)}
        ranked = sorted(runs, key=lambda k: -runs[k].mean())
        first = runs[ranked[0]]
        p_chance = float(stats.ttest_1samp(first, chance, alternative="greater").pvalue) \
            if first.std() > 0 else float(first.mean() <= chance)
        nxt = ranked[1] if len(ranked) > 1 else None
        p_lead = float(stats.ttest_ind(first, runs[nxt], equal_var=False).pvalue) \
            if nxt else 0.0
        best = ranked[0] if p_lead < alpha else INCONCLUSIVE
        best = AT_CHANCE if not p_chance < alpha else best
        rows.append({"task": task, "epsilon": eps, "best": best, "winner": ranked[0],
                     "next": nxt or "none",
                     "lead": float(first.mean() / runs[nxt].mean() - 1.0) if nxt else np.nan,
                     "chance": chance, "p_chance": p_chance, "p_lead": p_lead})
    return pd.DataFrame(rows)


def type3_texts(eps_true: float, delta: float) -> dict[str, str]:
    """The numbers the page says of chapter 2's Type III release: ``shape`` (one batch),
    ``eps`` (``eps_true``), ``sigma`` (:func:`type3_sigma` there, rounded), ``paper``
    (the largest ε of Fig. 5) and ``gain`` (:func:`type3_accuracy_gain` there)."""
    return {"shape": " × ".join(map(str, TYPE3_SHAPE)), "eps": tick_text(eps_true),
            "sigma": f"{type3_sigma(eps_true, delta):.0f}", "paper": tick_text(TYPE3_PAPER_EPS),
            "gain": f"{type3_accuracy_gain(eps_true, delta):.1%}"}


def _check_level(level) -> float:
    """``level`` as a float in (0.5, 1)."""
    level = float(level)
    if not 0.5 < level < 1.0:
        raise ValueError(f"level must be in (0.5, 1), got {level!r}")
    return level


def _check_runs(runs) -> int:
    """``runs`` as an integer >= 2 (a spread needs two)."""
    runs = check_positive_int(runs, "runs")
    if runs < 2:
        raise ValueError(f"runs must be >= 2 to estimate a spread, got {runs}")
    return runs
