"""The chapter's figures: Figs. 4–5 (the noisy-input analysis), Fig. 6 (sensitivities against
the expansion point), Fig. 3 (accuracy against ε) and Fig. 2 (accuracy against c). Each
function draws from values the chapter computed and returns the figure and a caption built
from them, for :func:`ldp_companion.page.plotting.show`.
"""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ldp_companion.page.plotting import (
    PAGE_WIDTH_PX,
    SERIES_COLORS,
    color,
    epsilon_axis,
    label,
    legend_below,
    marker,
    plot_vs_epsilon,
    tick_text,
)
from ldp_companion.spof import noisy
from ldp_companion.spof.accuracy_claims import mean_accuracy, mean_at_c
from ldp_companion.spof.noisy_claims import FIG4_H

__all__ = ["fig4_5", "fig6", "fig3", "fig2", "FIG3_GROUPS"]

_WIDTH = PAGE_WIDTH_PX / 100          # figure inches that fill the page's text column
#: Fig. 3's methods in two groups of four curves (the non-private reference in both).
FIG3_GROUPS = {
    "as the paper writes them": ["nonprivate", "spof", "fm", "dpsgd_logit"],
    "corrected, and the authors' code": ["nonprivate", "spof_exact", "dpsgd_param",
                                         "authors_v1"],
}
#: Fig. 3's panel titles per group (short enough for a half-page panel).
_FIG3_TITLES = {
    "as the paper writes them": "as the paper writes them",
    "corrected, and the authors' code": "corrected, authors' code",
}
_BASELINES = (("all zeros", ":"), ("column means", "--"))


def fig4_5(fig5: pd.DataFrame, med: np.ndarray, l: int):
    """Figs. 4–5: the authors' Fig. 4 curves (Eq. 53 at b/l, normalised to the peak), the
    medians of ``b_max`` under the exact law (one point per h, log axis) and the authors'
    Fig. 5 curve against σ.

    Parameters
    ----------
    fig5 : DataFrame
        :func:`~ldp_companion.spof.noisy_claims.fig5_table`.
    med : ndarray
        :func:`~ldp_companion.spof.noisy_claims.fig4_medians`, one per h of ``FIG4_H``.
    l : int
        Code units.

    Returns
    -------
    (Figure, str)
        The figure and its caption.
    """
    b = noisy.FIG4_GRID
    fig, axes = plt.subplots(1, 3, figsize=(_WIDTH, 3.2))
    rows = np.arange(len(FIG4_H))
    for k, (h, c, m) in enumerate(zip(FIG4_H, SERIES_COLORS, med)):
        axes[0].plot(b, noisy.fig4_authors(b, h, l=l), color=c, label=f"h = {h:g}")
        axes[1].plot([m], [k], marker="o", color=c, ls="none", gid=f"median, h = {h:g}")
        axes[1].annotate(tick_text(float(f"{m:.3g}")), (m, k), xytext=(0, 6),
                         textcoords="offset points",
                         ha="center", fontsize="small")
    axes[0].set(xlabel="b", ylabel="density / peak", title="Fig. 4 (authors)")
    axes[1].axvspan(b.min(), b.max(), color="0.85", label="Fig. 4's range of b")
    axes[1].set(xscale="log", xlabel="median of b_max", ylabel="h",
                title="Eq. 54, exact", yticks=rows, yticklabels=[f"{h:g}" for h in FIG4_H],
                ylim=(-0.6, len(FIG4_H) - 0.2), xlim=(0.05, 30 * med.max()))
    axes[2].plot(fig5.index, fig5.iloc[:, 0], color=SERIES_COLORS[3], marker="o",
                 label="Fig. 5")
    axes[2].axhline(0.5, color="black", ls=":", lw=1, label="0.5")
    axes[2].set(xscale="log", xlabel="σ", ylabel="probability", title="Fig. 5 (authors)")
    legend_below(fig, ncol=3)
    caption = (
        "Left: the authors' Fig. 4, Eq. 53 at b/l normalised to its peak, nearly the same"
        " for every h. Middle: the median of the largest of D = 100 draws of b under the exact"
        f" law, {med[1]:.1f} at h = ½ and {med[0]:.1e} at h = 0 (log axis; grey: the range"
        " of b the left panel shows): nothing like the left panel. Right: the authors'"
        f" Fig. 5 curve rises to {fig5.iloc[-1, 0]:.4f} at σ = {fig5.index[-1]:g}, below"
        " Remark 2's “at least 0.5”.")
    return fig, caption


def fig6(fig6: pd.DataFrame, facts: dict):
    """Fig. 6: per-feature sensitivities against the expansion point ``a`` (log scale), with
    DP-SGD's clipped bound 2C; ``fig6`` and ``facts`` from
    :mod:`~ldp_companion.spof.sensitivity_claims`. Returns the figure and its caption."""
    fig, ax = plt.subplots(figsize=(5.6, 3.8))
    for col, c, ls in zip(fig6.columns, SERIES_COLORS, ["-", "-", "--", "--"]):
        ax.plot(fig6.index, fig6[col], color=c, ls=ls, label=col)
    ax.axhline(facts["two_c"], color="black", ls=":", lw=1, label="DP-SGD clipped, 2C")
    ax.set_yscale("log")
    ax.set_xlabel("expansion point a")
    ax.set_ylabel("per-feature sensitivity")
    legend_below(fig, ncol=2)
    lo, hi = facts["below_2c"]
    caption = (
        "Per-feature sensitivity against the expansion point a (log scale). Eq. 58 is"
        f" smallest at a = {facts['a_min_paper']:.3f}, the corrected expression at a = 0;"
        f" SPOF's is above the unclipped DP-SGD bound everywhere ({facts['spof_min']:.2f} at"
        f" best, against at most {facts['sgd_max']:.2f}) and below"
        f" 2C = {facts['two_c']:g} only for a in [{lo:.2f}, {hi:.2f}] (Eq. 58).")
    return fig, caption


def _baselines(ax, base: dict) -> None:
    for name, ls in _BASELINES:
        ax.axhline(base[name], color="black", ls=ls, lw=1, label=name)


def fig3(runs: pd.DataFrame, conditions, base: dict, runs_per_point: int):
    """Fig. 3: accuracy against ε, one row of panels per input condition and one column per
    group of :data:`FIG3_GROUPS` (four curves a panel), mean ± sd over runs, with the
    all-zeros and column-means baselines ``base``. Returns the figure and its caption."""
    spread = runs.groupby(["condition", "method", "epsilon"])["accuracy"].agg(["mean", "std"])
    bottom = max(0.0, (spread["mean"] - spread["std"].fillna(0)).min() - 0.03)
    fig, axes = plt.subplots(len(conditions), len(FIG3_GROUPS), sharey=True, squeeze=False,
                             figsize=(_WIDTH, 2.9 * len(conditions)))
    for row, cond in zip(axes, conditions):
        for ax, (group, methods) in zip(row, FIG3_GROUPS.items()):
            sel = runs[(runs["condition"] == cond) & runs["method"].isin(methods)]
            plot_vs_epsilon(sel.rename(columns={"method": "mechanism", "run": "seed"}),
                            "accuracy", ax=ax, ylabel="accuracy (1 − MSE)",
                            title=f"{cond} inputs\n{_FIG3_TITLES[group]}", legend=False)
            _baselines(ax, base)
            ax.set_ylim(bottom, 1.0)
            # half-width panels: 10 and 20 touched at the page's factor 1.45; decades first
            epsilon_axis(ax, runs["epsilon"].unique(), min_ratio=2.5)
            if ax is not row[0]:
                ax.set_ylabel("")
            if cond != conditions[-1]:
                ax.set_xlabel("")
    legend_below(fig, ncol=3)
    lo = min(runs["epsilon"])
    caption = (
        f"Accuracy against ε (mean ± sd over {runs_per_point} runs; dotted: all zeros,"
        f" {base['all zeros']:.3f}; dashed: column means, {base['column means']:.3f}; left:"
        " the methods as the paper writes them, right: the corrected ones and the authors'"
        " code, with the non-private autoencoder in both). Noiseless, SPOF as written"
        f" reaches {mean_accuracy(runs, 'spof'):.3f} on average over ε, below the all-zeros"
        f" line; the authors' code sits on it ({mean_accuracy(runs, 'authors_v1'):.4f}); at"
        f" ε = {lo:g} DP-SGD reaches {mean_accuracy(runs, 'dpsgd_param', eps=lo):.3f} and"
        f" the exact-coefficient SPOF {mean_accuracy(runs, 'spof_exact', eps=lo):.3f}.")
    return fig, caption


def fig2(runs: pd.DataFrame, base: dict, eps: float, runs_per_point: int):
    """Fig. 2: accuracy against the stabilization constant ``c`` (mean ± sd over runs) for
    SPOF as written and the authors' code, with the baselines ``base``. Returns the figure
    and its caption."""
    fig, ax = plt.subplots(figsize=(5.6, 3.8))
    for m in ["spof", "authors_v1"]:
        s = runs[runs["method"] == m].groupby("c")["accuracy"].agg(["mean", "std"])
        ax.errorbar(s.index, s["mean"], yerr=s["std"], marker=marker(m), color=color(m),
                    label=label(m), capsize=2)
    _baselines(ax, base)
    ax.set_xlabel("stabilization constant c")
    ax.set_ylabel("accuracy (1 − MSE)")
    legend_below(fig, ncol=2)
    c_top = runs["c"].max()
    caption = (
        f"Accuracy against c at ε = {eps:g} (mean ± sd over {runs_per_point} runs). With the"
        f" authors' code the accuracy at c = {c_top:g} is"
        f" {mean_at_c(runs, 'authors_v1', c_top):.4f}, against {base['all zeros']:.4f} for"
        f" all zeros: the plateau is the all-zeros output. SPOF as written moves from"
        f" {mean_at_c(runs, 'spof', 0.0):.3f} at c = 0 to {mean_at_c(runs, 'spof', c_top):.3f}.")
    return fig, caption
