"""The figures of chapter 1, each with the caption and alt text written from what it plots.

Every function returns a :class:`Shown` ``(fig, caption, alt)``; the page passes it to
:func:`ldp_companion.page.plotting.show`. Colours, markers and names are the book's
(:func:`~ldp_companion.page.plotting.color`, :func:`~ldp_companion.page.plotting.marker`,
:func:`~ldp_companion.page.plotting.label`).
"""
from __future__ import annotations

from typing import NamedTuple

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ldp_companion.auditing.audit import ldp_accuracy_bound
from ldp_companion.page.plotting import (
    color,
    epsilon_axis,
    label,
    legend_below,
    marker,
    plot_panels_vs_epsilon,
)
from ldp_companion.tldp import algorithm as alg
from ldp_companion.tldp import analysis as an
from ldp_companion.tldp import paper
from ldp_companion.tldp.checks import DELTA_PAPER, EPS_DENSE, SIZES

__all__ = ["Shown", "TASK_NAMES", "retain_prob_curves", "attack_accuracy", "fig1_panels",
           "fig2_panels", "fig3_panels", "fig1_true_epsilon", "paper_networks"]

#: Panel titles of the tasks.
TASK_NAMES = {"digits": "scikit-learn digits (I = 64)", "mnist": "MNIST test split (I = 784)"}
_TINY = np.log10(np.finfo(float).tiny)


class Shown(NamedTuple):
    """A figure with its caption and alt text (the arguments of ``plotting.show``)."""

    fig: object
    caption: str
    alt: str


def retain_prob_curves(ceilings: pd.DataFrame, first_zero: float) -> Shown:
    """log₁₀ p of TLDP-L against ε for the tensor sizes of
    :data:`~ldp_companion.tldp.checks.SIZES` (Δ = 256), with float64's smallest number."""
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    for (name, n), style in zip(SIZES.items(), ["-", "--", "-.", ":", (0, (5, 1))]):
        ax.plot(EPS_DENSE, alg.log10_retain_prob(n, DELTA_PAPER, EPS_DENSE), ls=style,
                color="black", label=f"{name} (I = {n})")
    ax.axhline(_TINY, color="grey", lw=0.8, gid="smallest float64")
    ax.annotate("smallest float64", (1e-6, _TINY), va="bottom", fontsize=9)
    ax.set(xscale="log", xlabel="nominal ε", ylabel="log₁₀ p", ylim=(-1400, 10),
           xlim=(1e-6, 10))
    legend_below(fig, ncol=3)
    big = (ceilings["noise"] == "laplace") & ceilings["tensor"].isin(
        ["MNIST 28×28", "CIFAR 32×32×3"])
    caption = (
        "Alg. 1's retaining probability p of TLDP-L against the nominal ε, for tensors of"
        " I entries and Δ = 256 (TLDP-G is within a few units of log₁₀ p). Above the grey"
        " line p is a representable number; for an MNIST or CIFAR-sized tensor log₁₀ p is"
        f" at most {np.log10(ceilings.loc[big, 'max p over ε'].max()):.1f} at any ε, and"
        f" for MNIST p is zero in double precision from ε ≈ {first_zero:.2f}.")
    sunk = [n for n in SIZES.values() if alg.log10_retain_prob(n, DELTA_PAPER, 1.0) < _TINY]
    alt = (f"Line chart of log10 p against epsilon on a log axis for {len(SIZES)} tensor"
           " sizes, falling as epsilon approaches 1; the curves for"
           f" {' and '.join(map(str, sunk))} entries fall below {_TINY:.0f}, the smallest"
           " float64.")
    return Shown(fig, caption, alt)


def attack_accuracy(attack: pd.DataFrame, n: int, se: float) -> Shown:
    """The distinguishing attack's accuracy per mechanism against ε (bars ± 2 ``se``), under
    the ε-LDP ceiling ``e^ε/(1 + e^ε)`` (``attack`` from
    :func:`~ldp_companion.tldp.checks.attack_table`, ``n`` outputs per input)."""
    eps = sorted(attack["nominal ε"].unique())
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    line = np.linspace(min(eps), max(eps), 200)
    ax.plot(line, ldp_accuracy_bound(line), color="black", lw=1.5, label="e^ε/(1+e^ε)")
    for name, part in attack.groupby("mechanism", sort=False):
        ax.errorbar(part["nominal ε"], part["accuracy"], yerr=2 * se, color=color(name),
                    marker=marker(name), label=label(name))
    ax.set(xscale="log", xlabel="nominal ε", ylabel="attack accuracy", ylim=(0.45, 1.02))
    ax.set_xticks(eps, [f"{e:g}" for e in eps])
    legend_below(fig, ncol=4)
    tl = attack[attack["mechanism"] == "tldp_l"].set_index("nominal ε")["accuracy"]
    caption = (
        "How often the likelihood-ratio test names the right digit (first 0 against first"
        f" 1 of scikit-learn's digits) from one output, over {n:,} outputs per"
        " input (bars: ± 2 standard errors). Any ε-LDP mechanism stays under the black"
        " line. TLDP-L and TLDP-G are far above it (TLDP-L:"
        f" {tl.get(1.0, float('nan')):.3f} at ε = 1, where the line is"
        f" {ldp_accuracy_bound(1.0):.3f}); the Laplace baseline is near a coin flip.")
    alt = ("Attack accuracy against nominal epsilon: TLDP-L and TLDP-G curves well above"
           " the e^eps/(1+e^eps) line, Laplace baseline flat near a coin flip.")
    return Shown(fig, caption, alt)


def _panels(data: pd.DataFrame, clean: pd.Series, title: str):
    """One panel per value of ``data["panel"]`` (F1 against the nominal ε), the no-noise F1
    of the panel's task dashed, one legend below for every curve."""
    fig = plot_panels_vs_epsilon(data, "f1", "panel", ylabel="weighted F1", title=title)
    grid = sorted(data["epsilon"].unique())
    tasks = data.drop_duplicates("panel")["task"]
    for ax, task in zip(fig.axes, tasks):
        ax.axhline(clean[task], color="black", ls="--", lw=1, gid="without noise")
        ax.set(ylim=(0, 1), xlabel="nominal ε (the paper's)")
        epsilon_axis(ax, grid, min_ratio=3.5 if max(grid) >= 1000 else 1.45)
    fig.legends.clear()
    legend_below(fig)
    return fig


def _noisy(runs: pd.DataFrame) -> pd.DataFrame:
    data = runs[runs["mechanism"] != "none"].rename(columns={"run": "seed"})
    return data.assign(panel=data["task"].map(TASK_NAMES))


def fig1_panels(type1: pd.DataFrame, runs: int) -> Shown:
    """Fig. 1 (Type I): F1 against the nominal ε, a row per reading: TLDP against the four
    baselines, then TLDP against its weighted variants (Alg. 2), one column per task."""
    data = _noisy(type1)
    main = data[~data["mechanism"].str.endswith("_w")]
    weighted = data[data["mechanism"].str.startswith("tldp")]
    data = pd.concat([main.assign(panel=main["panel"] + ": against the baselines"),
                      weighted.assign(panel=weighted["panel"] + ": weighted (Alg. 2)")])
    clean = an.clean_f1(type1)
    fig = _panels(data, clean, "Fig. 1 (Type I): perturbed training images")
    means = type1.groupby(["mechanism", "task", "epsilon"])["f1"].mean()
    w_gap = max((means[f"{m}_w"] - means[m]).abs().max() for m in ("tldp_l", "tldp_g"))
    task, lo = type1["task"].iloc[-1], min(type1["epsilon"])
    caption = (
        "Weighted F1 of a model trained on perturbed images against the paper's nominal ε"
        f" (mean ± one standard deviation over {runs} runs; dashed: no noise); top row:"
        " TLDP against the baselines, bottom row: TLDP against its weighted variants. At"
        f" ε = {lo:g} TLDP-G reaches {an.mean_f1(type1, 'tldp_g', task, lo):.2f} on"
        f" {TASK_NAMES[task]} and TLDP-L {an.mean_f1(type1, 'tldp_l', task, lo):.2f}; over"
        " the whole grid Laplace, IDN and MVG reach at most"
        f" {means.loc[['laplace', 'idn', 'mvg']].max():.2f}, the Gaussian baseline"
        f" {means.loc['gaussian'].max():.2f}. The -w curves lie on the unweighted ones"
        f" (mean F1 {w_gap:.3f} apart at most).")
    alt = ("Four panels of weighted F1 against nominal epsilon on a log axis, one column per"
           " data set: the top row compares TLDP-L and TLDP-G with four baselines, the TLDP"
           " curves rising to the no-noise line while the baselines stay near zero except"
           " the Gaussian at the largest epsilon; the bottom row shows the weighted TLDP"
           " curves on top of the unweighted ones.")
    return Shown(fig, caption, alt)


def fig2_panels(type2: pd.DataFrame, runs: int) -> Shown:
    """Fig. 2 (Type II): F1 of the linear head against the nominal ε, one panel per task."""
    clean = an.clean_f1(type2)
    fig = _panels(_noisy(type2), clean, "Fig. 2 (Type II): perturbed training features")
    task, lo = type2["task"].iloc[-1], min(type2["epsilon"])
    base = type2[type2["mechanism"].isin(an.BASELINES)].groupby(
        ["task", "mechanism", "epsilon"])["f1"].mean().loc[task]
    caption = (
        "Weighted F1 of a linear head trained on perturbed features against the nominal ε"
        f" (mean ± one standard deviation over {runs} runs; dashed: no noise). TLDP-G"
        f" reaches {an.mean_f1(type2, 'tldp_g', task, lo):.2f} on {TASK_NAMES[task]} already"
        f" at ε = {lo:g}; the best baseline there reaches {base.max():.2f}"
        f" ({label(base.idxmax()[0])} at ε = {base.idxmax()[1]:g}), against"
        f" {clean[task]:.2f} without noise.")
    alt = ("Two panels of weighted F1 against nominal epsilon for six mechanisms on"
           " perturbed features; TLDP curves high, baselines low.")
    return Shown(fig, caption, alt)


def fig3_panels(type3: pd.DataFrame, runs: int, rounds: int) -> Shown:
    """Fig. 3 (Type III): F1 of the federated model against the nominal ε per released
    tensor, one panel per task; the caption says where each curve first reaches 90 % of the
    no-noise F1 (:func:`~ldp_companion.tldp.analysis.eps_to_reach`)."""
    clean = an.clean_f1(type3)
    fig = _panels(_noisy(type3), clean, "Fig. 3 (Type III): perturbed FedAvg parameters")
    mechs = [m for m in type3["mechanism"].unique() if m != "none"]
    first = {m: min(an.eps_to_reach(type3, clean, m).values()) for m in mechs}
    base_first = min(first[m] for m in an.BASELINES)
    first_eps = type3.loc[type3["mechanism"] != "none", "epsilon"]
    caption = (
        "Weighted F1 of the federated model against the nominal ε per released parameter"
        f" tensor ({rounds} rounds, 3 clients; mean ± one standard deviation over"
        f" {runs} runs; dashed: no noise). TLDP-L first reaches {an.REACH_SHARE:.0%} of the"
        " no-noise F1"
        f" (on either task) at ε = {first['tldp_l']:g} and TLDP-G at ε ="
        f" {first['tldp_g']:g};"
        + (f" the first baseline to get there needs ε = {base_first:g}."
           if np.isfinite(base_first)
           else f" no baseline gets there up to ε = {max(first_eps):g}."))
    alt = ("Two panels of weighted F1 against nominal epsilon from"
           f" {min(first_eps):g} to {max(first_eps):g} for {len(mechs)} mechanisms in"
           " federated averaging.")
    return Shown(fig, caption, alt)


def fig1_true_epsilon(type1: pd.DataFrame, at_i_eps: pd.DataFrame, gap: np.ndarray) -> Shown:
    """Fig. 1 against the ε each mechanism really spends on one image
    (:func:`~ldp_companion.tldp.analysis.with_true_epsilon`), with the Laplace baseline run
    at Iε as crosses; ``gap`` is TLDP-L's run-by-run F1 minus that baseline's."""
    mechs = ["tldp_l", "tldp_g", "laplace", "gaussian", "idn", "mvg"]
    true1 = an.with_true_epsilon(type1, mechs)
    tasks = list(type1["task"].unique())
    fig, axes = plt.subplots(1, len(tasks), figsize=(6.88, 3.2), squeeze=False, sharey=True)
    for ax, task in zip(axes.flat, tasks):
        sub = true1[true1["task"] == task].groupby(["mechanism", "true ε"])["f1"].mean()
        for mech in mechs:
            s = sub.loc[mech]
            ax.plot(s.index, s.to_numpy(), color=color(mech), marker=marker(mech),
                    label=label(mech))
        extra = at_i_eps[at_i_eps["task"] == task].groupby("epsilon")["f1"].mean()
        ax.plot(extra.index, extra.to_numpy(), ls="none", marker="x", ms=9, mew=2,
                color=color("laplace"), label="Laplace run at Iε")
        ax.set(xscale="log", title=TASK_NAMES[task], xlabel="ε really spent", ylim=(0, 1))
    axes.flat[0].set_ylabel("weighted F1")
    legend_below(fig, ncol=4)
    caption = (
        "Fig. 1 re-plotted against the ε each mechanism really spends on one image (mean"
        " F1 over the runs). TLDP-L sits I times to the right of its nominal ε, on top of"
        " the Laplace baseline run there (crosses; mean F1 gap"
        f" {np.abs(gap.mean(axis=1)).max():.3f} at most). Read at the privacy really"
        " spent, TLDP's lead disappears: TLDP-L is the Laplace baseline, and on digits"
        " TLDP-G continues the Gaussian baseline's curve where their ranges meet.")
    alt = ("Two panels of weighted F1 against the true epsilon on a log axis; the TLDP-L"
           " line passes through crosses marking the Laplace baseline run at I times"
           " epsilon.")
    return Shown(fig, caption, alt)


def paper_networks(paper_runs: pd.DataFrame, runs: int) -> Shown:
    """F1 of the paper's own networks against the nominal ε, one panel per (type, data
    set) that ran."""
    data = paper_runs[paper_runs["mechanism"] != "none"].rename(columns={"run": "seed"})
    data = data.assign(
        panel="Type " + data["type"] + ", " + data["task"].map(paper.TASK_LABELS))
    fig = plot_panels_vs_epsilon(data, "f1", "panel", ylabel="weighted F1",
                                 title="The paper's networks")
    for ax in fig.axes:
        ax.set(ylim=(0, 1), xlabel="nominal ε (the paper's)")
    best = data.groupby(["panel", "mechanism", "epsilon"])["f1"].mean()
    caption = (
        "Weighted F1 of the paper's networks against the nominal ε, mean and spread"
        f" over {runs} seeds, for the data sets whose files were present; the"
        f" best mean is {best.max():.2f} ({label(best.idxmax()[1])} in"
        f" {best.idxmax()[0]}).")
    alt = ("Line charts of weighted F1 against nominal epsilon on a log axis, one"
           " panel per experiment type and data set"
           f" ({', '.join(data['panel'].unique())}), one line per mechanism.")
    return Shown(fig, caption, alt)
