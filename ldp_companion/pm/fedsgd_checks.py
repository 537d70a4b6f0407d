"""LDP-FedSGD in chapter 3 (Alg. 1, Figs. 8–10 and 12–14): the learning tasks (stand-ins
offline), the mechanisms compared, and the claims on the test error and the server's step.

The grids are :func:`~ldp_companion.pm.experiments.fedsgd_grid`'s; ``record_*`` functions take
the chapter's ledger and the grids' tables and record the claims (the ledger computes each
verdict).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ldp_companion.auditing.montecarlo import bonferroni_z, means_match, paired_differences
from ldp_companion.mechanisms import get_mechanism
from ldp_companion.mechanisms.base import ScalarMechanism
from ldp_companion.page.plotting import label
from ldp_companion.pm import fedsgd as fl
from ldp_companion.pm import synthetic
from ldp_companion.pm.discretize import discretized
from ldp_companion.pm.experiments import LearningTask, split_task
from ldp_companion.validation import check_positive_int, check_rng
from ldp_companion.verdicts.paired import within_margin

__all__ = ["FED_MECHS", "PROPOSED", "EXISTING", "TEST_FRACTION", "SIMILAR", "learning_tasks",
           "record_server", "top_epsilon_errors", "record_erm", "outputs_mechanisms",
           "record_fig14", "record_fig12_13", "CLIP_THETA0", "clip_inputs", "record_clip"]

#: The mechanisms of Figs. 8–10 (None: non-private training).
FED_MECHS = {"non_private": None, **{m: m for m in [
    "laplace_split", "duchi_md", "pm", "hm", "pm_sub", "three_outputs", "hm_tp"]}}
PROPOSED = ["pm_sub", "three_outputs", "hm_tp"]
EXISTING = ["laplace_split", "duchi_md", "pm", "hm"]
#: A test set of a fifth of the training set.
TEST_FRACTION = 1 / 6
#: "Similar" training errors (Figs. 12–13): within ±10 % of the continuous mean (our reading).
SIMILAR = 0.1


def learning_tasks(n_train: int, d: int, rng: np.random.Generator) -> list:
    """Linear and logistic regression on synthetic data with ``d`` attributes and an SVM on
    the real breast-cancer features, each split into ``n_train`` training vehicles and a test
    set (:data:`TEST_FRACTION` of all)."""
    n_train, rng = check_positive_int(n_train, "n_train"), check_rng(rng)
    n_total = round(n_train / (1 - TEST_FRACTION))
    Xl, yl, _ = synthetic.regression_task(n_total, d, rng=rng)
    Xc, yc, _ = synthetic.classification_task(n_total, d, rng=rng)
    Xs, ys = synthetic.resample_table("breast_cancer", n_total, rng=rng)
    return [split_task("linear regression (MSE)", "linear", Xl, yl, rng, TEST_FRACTION),
            split_task("logistic regression (misclassification)", "logistic", Xc, yc, rng,
                       TEST_FRACTION),
            split_task("SVM, breast cancer (misclassification)", "svm", Xs, ys, rng,
                       TEST_FRACTION)]


def record_server(ledger, srv: pd.DataFrame):
    """Claim ``fedsgd-server``: Alg. 1's server step is unbiased per coordinate and has the
    expected squared error (:func:`~ldp_companion.pm.experiments.server_mean_check`' table);
    returns the claim."""
    z = bonferroni_z(int(srv["coordinates"].sum()), family_error=1e-3)
    ok, fit = means_match(srv["mse"], srv["sd"], srv["expected"], int(srv["reps"].iloc[0]))
    return ledger.condition(
        "fedsgd-server",
        "Alg. 1's server step averages a group's perturbed gradients without bias (|z| <"
        f" {z:.2f} per coordinate, family-wise error 1e-3) and with the expected"
        " squared error of Lemma 14 (t-test per cell and pooled)",
        ok=np.r_[srv["z_max"].to_numpy() < z, ok],
        evidence={"max |z| of the mean": srv["z_max"].max(), "z bound": z,
                  "max |t| of the squared error": fit["t_max"], "pooled z": fit["z_pooled"]},
        section="pm-fedsgd")


def top_epsilon_errors(fed: pd.DataFrame) -> pd.DataFrame:
    """Mean test error at the largest ε, mechanisms (display names) down, tasks across."""
    top = fed[fed["epsilon"] == fed["epsilon"].max()]
    return (top.pivot_table(index="mechanism", columns="task", values="error", sort=False)
            .rename(index=label).rename_axis(index=None, columns=None))


def record_erm(ledger, fed: pd.DataFrame, linear_task: str) -> pd.DataFrame:
    """Claims ``erm-laplace-linear``, ``erm-improves`` and ``erm-proposed-better`` (seed by
    seed, each (task, ε) cell); returns per cell the best proposed and existing mechanism,
    their errors and their difference over its standard error."""
    F = fed.groupby(["task", "epsilon", "mechanism"])["error"].mean().reset_index()
    M = F.pivot_table(index=["task", "epsilon"], columns="mechanism", values="error")
    others = [c for c in M.columns if c not in ("laplace_split", "non_private")]
    lin = M.xs(linear_task, level="task")
    lin_seeds = fed[fed["task"] == linear_task].pivot_table(
        index=["epsilon", "seed"], columns="mechanism", values="error")
    ledger.difference(
        "erm-laplace-linear",
        "Fig. 9: Laplace's linear-regression MSE clearly exceeds "
        "every other mechanism's (against the worst of them, seed by seed, each ε)",
        paired_differences(lin_seeds, "epsilon", "laplace_split", lin[others].idxmax(axis=1)),
        section="pm-fedsgd",
        note=("ratio of means"
              f" {(lin['laplace_split'] / lin[others].max(axis=1)).min():.0f}× or more"))
    by_eps = fed[fed["mechanism"].isin(others)].pivot_table(
        index=["task", "mechanism", "seed"], columns="epsilon", values="error")
    eps = fed["epsilon"]
    ledger.difference(
        "erm-improves",
        "Every mechanism's error falls as ε grows (smallest vs largest ε, seed by seed)",
        paired_differences(by_eps, ["task", "mechanism"], eps.min(), eps.max()),
        section="pm-fedsgd")
    best_prop, best_exist = M[PROPOSED].idxmin(axis=1), M[EXISTING].idxmin(axis=1)
    per_seed = fed.pivot_table(index=["task", "epsilon", "seed"], columns="mechanism",
                               values="error")
    in_favour = paired_differences(per_seed, ["task", "epsilon"], best_exist, best_prop)
    ledger.difference(
        "erm-proposed-better",
        "Figs. 8–10: PM-SUB, Three-Outputs and HM-TP have lower "
        "error than Laplace, Duchi, PM and HM (best of each group by mean error, "
        "compared seed by seed in each (task, ε) cell)",
        in_favour, section="pm-fedsgd")
    se = (in_favour.std(axis=1, ddof=1) / np.sqrt(in_favour.shape[1])
          if in_favour.shape[1] >= 2 else np.nan)  # one seed: no spread, no standard error
    return pd.DataFrame({"best proposed": best_prop.map(label),
                         "error (proposed)": [M.loc[k, v] for k, v in best_prop.items()],
                         "best existing": best_exist.map(label),
                         "error (existing)": [M.loc[k, v] for k, v in best_exist.items()],
                         "difference / s.e.": in_favour.mean(axis=1) / se}, index=M.index)


def outputs_mechanisms(outputs_grid, name: str = "pm_sub") -> dict:
    """Fig. 14's mechanisms: ``name`` rounded to each number of outputs (Alg. 5; labels
    "3", "11", ...), then continuous."""
    mechs = {f"{k}": (lambda e, k=k: discretized(name, e, k)) for k in outputs_grid}
    mechs["continuous"] = name
    return mechs


def record_fig14(ledger, fig14: pd.DataFrame, outputs_grid, epsilon: float) -> pd.DataFrame:
    """Claim ``fig14``: the error with the fewest outputs exceeds that with the most, seed by
    seed; returns the mean error per task and number of outputs."""
    per_seed = fig14.pivot_table(index=["task", "seed"], columns="mechanism", values="error")
    ledger.difference(
        "fig14",
        "Fig. 14: error decreases as the number of outputs increases "
        f"(fewest vs most outputs, ε = {epsilon:g}, seed by seed)",
        paired_differences(per_seed, "task", str(outputs_grid[0]), str(outputs_grid[-1])),
        section="pm-fedsgd")
    order = [str(k) for k in outputs_grid] + ["continuous"]
    return fig14.groupby(["task", "mechanism"])["error"].mean().unstack()[order]


def record_fig12_13(ledger, fed: pd.DataFrame, fed_disc: pd.DataFrame, continuous,
                    n_outputs: int) -> pd.Series:
    """Claims ``fig12-13-proposed-better`` and ``fig12-13-similar`` on the discretized runs
    ``fed_disc`` against the continuous runs ``fed`` of the same cells; returns the relative
    change of each mean error (task, mechanism, ε)."""
    cont = fed[fed["task"].isin(fed_disc["task"].unique()) & fed["mechanism"].isin(continuous)]
    both = fed_disc[fed_disc["mechanism"].isin(continuous)].merge(
        cont, on=["task", "mechanism", "epsilon", "seed"], suffixes=(" disc.", " cont."))
    mean_err = both.groupby(["task", "mechanism", "epsilon"])[
        ["error disc.", "error cont."]].mean()
    rel_gap = mean_err["error disc."] / mean_err["error cont."] - 1
    per_seed = fed_disc.pivot_table(index=["task", "epsilon", "seed"], columns="mechanism",
                                    values="error")
    M = per_seed.groupby(["task", "epsilon"]).mean()
    exist = ["duchi_md", "pm", "hm"]
    ledger.difference(
        "fig12-13-proposed-better",
        f"Figs. 12–13: with {n_outputs} outputs, PM-SUB, Three-Outputs and HM-TP still"
        " have lower training error than Duchi, PM and HM (best of each group, seed by"
        " seed, each (task, ε))",
        paired_differences(per_seed, ["task", "epsilon"], M[exist].idxmin(axis=1),
                           M[PROPOSED].idxmin(axis=1)),
        section="pm-fig12")
    runs = both.set_index(["task", "mechanism", "epsilon", "seed"])
    d_rel = ((runs["error disc."] - runs["error cont."])
             .div(mean_err["error cont."], axis=0).unstack("seed"))
    ledger.difference(
        "fig12-13-similar",
        f"Figs. 12–13: with {n_outputs} outputs each mechanism's training error is within"
        f" ±{SIMILAR:.0%} of its continuous version's (each task, mechanism and ε; run by"
        " run, relative to the continuous mean error)",
        within_margin(d_rel.to_numpy(), SIMILAR),
        note=f"largest relative difference of the means {rel_gap.abs().max():.0%}",
        section="pm-fig12")
    return rel_gap


#: Every coordinate of θ₀ in the clipping check: a model far from the tasks' optimum (whose
#: coordinates are of order 1/√d), so that raw gradients pass both ends of [-1, 1].
CLIP_THETA0 = 1.0


class _Recorded(ScalarMechanism):
    """``inner`` that keeps a copy of every input it is handed (before any check)."""

    name = "recorded"

    def __init__(self, inner: ScalarMechanism):
        super().__init__(inner.epsilon)
        self.inner, self.inputs = inner, []

    def privatize(self, x, rng, clip: bool = False):
        self.inputs.append(np.array(x, dtype=np.float64))  # before the domain check
        return super().privatize(x, rng, clip=clip)

    def _privatize(self, x, rng):
        return self.inner.privatize(x, rng)

    def _variance(self, x):
        return self.inner.variance(x)

    def worst_case_variance(self) -> float:
        return self.inner.worst_case_variance()

    def _output_law(self, x):
        return self.inner.output_law(x)


def clip_inputs(task, epsilon: float, lam: float, rng: np.random.Generator,
                mechanism: str = "pm_sub") -> pd.DataFrame:
    """One round of LDP-FedSGD (Alg. 1) at ``θ₀ = CLIP_THETA0 · 1`` with every training
    vehicle of ``task`` in the group and Alg. 6 reporting all ``d`` coordinates (``k = d``):
    the values :func:`~ldp_companion.pm.fedsgd.fedsgd` hands the scalar mechanism, next to
    the raw gradients (:func:`~ldp_companion.pm.fedsgd.gradients`, Alg. 1 step 2 before
    clipping).

    Both are sorted: the inputs are the group's gradient entries in another order, and a
    coordinate-wise clip is monotone, so the ``i``-th smallest input is the clip of the
    ``i``-th smallest raw gradient.

    Returns
    -------
    DataFrame
        Columns ``raw`` and ``input``, one row per (vehicle, coordinate).
    """
    if not isinstance(task, LearningTask):
        raise TypeError(f"task must be a LearningTask, got {type(task).__name__}")
    rng = check_rng(rng)
    n, d = task.X_train.shape
    theta0 = np.full(d, CLIP_THETA0)
    mechs = []

    def factory(eps):
        mechs.append(_Recorded(get_mechanism(mechanism, eps)))
        return mechs[-1]

    fl.fedsgd(task.X_train, task.y_train, task.task, rng, epsilon=epsilon, mechanism=factory,
              group_size=n, lam=lam, theta0=theta0, k=d)
    seen = np.concatenate([a.ravel() for m in mechs for a in m.inputs])
    raw = fl.gradients(theta0, task.X_train, task.y_train, task.task, lam).ravel()
    if seen.size != raw.size:
        raise RuntimeError(f"the mechanism saw {seen.size} values, not the group's {raw.size}")
    return pd.DataFrame({"raw": np.sort(raw), "input": np.sort(seen)})


def record_clip(ledger, table: pd.DataFrame) -> float:
    """Claim ``fedsgd-clip``: what Alg. 1 hands the mechanism is each gradient coordinate
    clipped to [-1, 1] (:func:`clip_inputs`), judged by the clip's own properties: every
    input in the mechanism's domain [-1, 1], a raw value inside it unchanged, one beyond an
    end replaced by that end (the nearest point), and raw values beyond both ends present.
    Returns the share of raw gradient coordinates outside [-1, 1]."""
    raw, seen = table["raw"].to_numpy(), table["input"].to_numpy()
    above, below = raw > 1.0, raw < -1.0
    inside = ~(above | below)
    ok = np.all([np.all(np.abs(seen) <= 1.0), np.all(seen[inside] == raw[inside]),
                 np.all(seen[above] == 1.0), np.all(seen[below] == -1.0),
                 above.any() and below.any()])
    ledger.condition(
        "fedsgd-clip",
        "Alg. 1 step 2: each coordinate of a vehicle's gradient is clipped to [-1, 1] before"
        " Alg. 6 perturbs it (one round at θ₀ = 1: the values handed to the mechanism lie in"
        " [-1, 1], equal the raw gradient inside it and the nearest end outside it)",
        ok=ok,
        evidence={"raw gradients above 1": above.mean(), "raw gradients below -1": below.mean(),
                  "inputs at 1": np.mean(seen == 1.0), "inputs at -1": np.mean(seen == -1.0),
                  "smallest input": seen.min(), "largest input": seen.max()},
        section="pm-fedsgd")
    return float(np.mean(above | below))
