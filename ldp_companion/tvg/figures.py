"""Chapter 2's figures (Yang et al. 2021, TVG): Table IV's error orders, the CTG covariance
panel and the accuracy panels of Figs. 3–5, each drawn with the book's palette and markers
(:mod:`ldp_companion.page.plotting`). Each function returns the figure and, where the caption states
numbers the figure shows, the caption built from the same data.
"""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ldp_companion.page.plotting import (
    color,
    epsilon_axis,
    label,
    legend_below,
    marker,
    plot_panels_vs_epsilon,
    plot_vs_epsilon,
)
from ldp_companion.tvg import paper as tvg_paper
from ldp_companion.tvg import paper_sgd
from ldp_companion.tvg.results import clean_score, mean_at

__all__ = ["table4_figure", "CTG_PANELS", "ctg_figure", "accuracy_figure", "accuracy_at",
           "paper_sgd_figure", "paper_networks_figure"]

#: The CTG panel's two halves: the paper's TVG mechanisms, and the baselines; IDN, the
#: paper's best, is drawn in both as the common reference.
CTG_PANELS = {"TVG mechanisms": ["idn", "udn", "tvg", "mvg"],
              "baselines against IDN": ["idn", "gauss_paper", "jl", "gauss_analytic"]}


def table4_figure(curves: dict, slopes: pd.DataFrame, sweeps, mechanisms):
    """Table IV's expected errors against ``I``, one log–log panel per sweep.

    Parameters
    ----------
    curves, slopes
        What :func:`~ldp_companion.tvg.table4.error_sweeps` returns.

    Returns
    -------
    (Figure, str)
        The figure and its caption, with the mean slopes it shows.
    """
    fig, axes = plt.subplots(1, len(sweeps), figsize=(7.4, 3.4), sharey=True, squeeze=False)
    axes = axes[0]
    for ax, sweep in zip(axes, sweeps):
        for m in mechanisms:
            sizes, err = curves[(sweep, m)]
            ax.loglog(sizes, err, marker=marker(m), ms=4, color=color(m), label=label(m))
        ax.set(title=sweep, xlabel="tensor size I")
    axes[0].set_ylabel("E‖Z‖² (ε = 1)")
    legend_below(fig, ncol=3)
    mean = slopes.mean(axis=1)
    caption = (
        "Table IV's expected errors E‖Z‖² against the tensor size I along three sweeps (W"
        " = E, ε = 1, δ = 10⁻⁵, entries in (−1, 1)). Mean log–log slopes: IDN"
        f" {mean['idn']:.2f}, the paper's Gaussian {mean['gauss_paper']:.2f}, the"
        f" standard Gaussian on vec f {mean['gauss_l2']:.2f}, isotropic TVG"
        f" {mean['tvg']:.2f}; MVG {slopes.loc['mvg'].min():.2f}–"
        f"{slopes.loc['mvg'].max():.2f} where the printed order I₁I³ln²(I₁+1) gives"
        f" {slopes.loc['mvg claimed'].min():.2f}–{slopes.loc['mvg claimed'].max():.2f}.")
    return fig, caption


def _largest_spread(runs: pd.DataFrame, metric: str) -> float:
    """The largest multiplicative spread ``exp(sd of log metric) − 1`` over the cells."""
    sd = runs.assign(_log=np.log(runs[metric])).groupby(["mechanism", "epsilon"])["_log"].std()
    return float(np.expm1(sd.max())) if sd.notna().any() else 0.0


def ctg_figure(runs: pd.DataFrame, eps_grid, panels=CTG_PANELS):
    """Fig. 5's CTG panel: RSS (Eq. 33) against ε, mean and spread over the draws, split in
    two panels of four curves (IDN in both).

    Returns
    -------
    (Figure, str)
        The figure and its caption: the draws per cell, the largest spread of a cell
        (:func:`_largest_spread`), at how many ε IDN has the smallest mean RSS of the paper's
        mechanisms (the analytic Gaussian aside) and at how many the analytic Gaussian is
        below IDN.
    """
    data = runs.rename(columns={"run": "seed"})
    fig, axes = plt.subplots(1, len(panels), figsize=(6.88, 3.4), sharey=True)
    for ax, (title, mechs) in zip(axes, panels.items()):
        plot_vs_epsilon(data[data["mechanism"].isin(mechs)], "rss", ax=ax, logy=True,
                        ylabel="RSS (Eq. 33)", title=title, legend=False, spread="bars")
        epsilon_axis(ax, eps_grid)
    axes[1].set_ylabel("")
    legend_below(fig, ncol=3)
    mean = runs.groupby(["mechanism", "epsilon"])["rss"].mean().unstack("mechanism")
    others = mean.drop(columns=["idn", "gauss_analytic"]).min(axis=1)
    idn_lowest = int((mean["idn"] < others).sum())
    fair_below = int((mean["gauss_analytic"] < mean["idn"]).sum())
    n_runs = int(runs.groupby(["mechanism", "epsilon"]).size().min())
    spread = _largest_spread(runs, "rss")
    span = max(np.log10(ax.get_ylim()[1] / ax.get_ylim()[0]) for ax in axes)
    hidden = np.log10(1 + spread) < 0.02 * span   # bars under 2 % of the axis' height
    caption = (
        "CTG covariance task: RSS of the released covariance against ε, the paper's TVG"
        " mechanisms (left) and the baselines (right), IDN in both. Points: mean over"
        f" {n_runs} draws; bars: ×/÷ one standard deviation of log RSS over the draws, a"
        f" factor of at most {1 + spread:.2f}"
        + (", too short to show on an axis of this many decades" if hidden else "")
        + f". IDN has the smallest mean RSS of the paper's mechanisms at {idn_lowest} of"
        f" {len(eps_grid)} ε; the standard (analytic) Gaussian on vec f is below IDN at"
        f" {fair_below} of {len(eps_grid)}.")
    return fig, caption


def accuracy_figure(runs: pd.DataFrame, metric: str, grid, title: str,
                    ylabel: str = "test accuracy"):
    """Mean ± sd of ``metric`` against ε, one line per mechanism, the run without noise
    dashed (Figs. 3–5's MNIST and breast cancer panels)."""
    data = runs[runs["mechanism"] != "none"].rename(columns={"run": "seed"})
    fig, ax = plt.subplots(figsize=(5.6, 3.8))
    plot_vs_epsilon(data, metric, ax=ax, ylabel=ylabel, title=title, legend=False)
    ax.axhline(clean_score(runs, metric), color="black", ls="--", lw=1, gid="without noise")
    epsilon_axis(ax, grid, min_ratio=3.5 if max(grid) >= 1000 else 1.45)
    legend_below(fig, ncol=2)
    return fig


def accuracy_at(runs: pd.DataFrame, mechanisms, epsilon: float, metric: str = "accuracy"
                ) -> str:
    """``"IDN 0.52, UDN 0.31, …"``: each mechanism's mean ``metric`` at ``epsilon``, for a
    caption."""
    return ", ".join(f"{label(m)} {mean_at(runs, m, epsilon, metric):.2f}" for m in mechanisms)


def paper_sgd_figure(runs: pd.DataFrame):
    """Fig. 3 with the paper's networks (Table II): test score against ε, one panel per data
    set, the same clipped SGD without noise dashed."""
    data = runs[runs["mechanism"] != "none"].rename(columns={"run": "seed"})
    metric = data["task"].map(paper_sgd.METRICS).map({"auc": "AUC", "accuracy": "accuracy"})
    data = data.assign(panel="Fig. 3, " + data["task"].map(paper_sgd.TASK_LABELS) + " ("
                       + data["task"].map(paper_sgd.MODELS) + ", " + metric + ")")
    fig = plot_panels_vs_epsilon(data, "score", "panel", ylabel="test score",
                                 title="Private SGD, the paper's setup")
    clean = runs[runs["mechanism"] == "none"].groupby("task")["score"].mean()
    for ax, task in zip(fig.axes, data["task"].unique()):
        ax.axhline(clean[task], color="0.4", ls="--", lw=0.8, gid="without noise")
        ax.set(ylim=(0, 1))
    return fig


def paper_networks_figure(runs: pd.DataFrame):
    """Figs. 4–5 with the paper's networks (Table III): test accuracy against ε, one panel per
    figure and data set.

    Returns
    -------
    (Figure, list of str)
        The figure and its panels' titles.
    """
    data = runs[runs["mechanism"] != "none"].rename(columns={"run": "seed"})
    data = data.assign(panel="Fig. " + data["type"].map({"II": "4", "III": "5"}) + ", "
                       + data["task"].map(tvg_paper.TASK_LABELS) + " ("
                       + data["task"].map(tvg_paper.MODELS) + ")")
    fig = plot_panels_vs_epsilon(data, "accuracy", "panel", ylabel="test accuracy",
                                 title="The paper's networks")
    for ax in fig.axes:
        ax.set(ylim=(0, 1))
    return fig, list(data["panel"].unique())
