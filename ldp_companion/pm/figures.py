"""The figures of chapter 3, drawn with the book's style (:mod:`ldp_companion.page.plotting`).

Each function draws one figure from what the page computed and returns ``dict(caption=...,
alt=..., fig=...)`` for :func:`~ldp_companion.page.plotting.show`; captions are built from the
plotted values. Figures with many mechanisms split them into the existing mechanisms and the
paper's own, one panel each, so that no panel carries more than five curves.
"""
from __future__ import annotations

import textwrap

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ldp_companion.mechanisms import get_mechanism
from ldp_companion.page.plotting import (
    PAGE_WIDTH_PX,
    color,
    label,
    legend_below,
    marker,
    plot_vs_epsilon,
)
from ldp_companion.pm.mechanism_checks import PIECEWISE
from ldp_companion.pm.worst_case import MECHS, NEW

__all__ = ["piecewise_densities", "worst_case_figure", "lemma3_figure", "k_rule_figure",
           "split_panels", "mse_figure", "fedsgd_figure", "fedsgd_disc_figure"]

_WIDTH = PAGE_WIDTH_PX / 100  # inches: the page's text column at the book's 100 dpi
#: The two panels of a split figure: existing mechanisms and the paper's own.
GROUPS = {"existing mechanisms": ["laplace", "laplace_split", "duchi_md", "duchi", "pm", "hm"],
          "the paper's mechanisms": ["three_outputs", "pm_opt", "pm_sub", "hm_tp"]}


def piecewise_densities(epsilon: float, x: float) -> dict:
    """Fig. 4: the output densities of PM, PM-SUB and PM-OPT at ``epsilon`` for input ``x``."""
    fig, ax = plt.subplots(figsize=(6.8, 3.4))
    mechs = {n: get_mechanism(n, epsilon) for n in PIECEWISE}
    for n, m in mechs.items():
        ys = np.linspace(-m.A, m.A, 2001)
        ax.plot(ys, np.exp(m.output_law(x).logpdf(ys)), color=color(n), label=label(n))
    ax.axvline(x, color="0.5", ls=":", lw=1, gid="input x")
    ax.set(xlabel="output y", ylabel=f"density f(y | x = {x:g})",
           title=f"Fig. 4: the piecewise mechanisms at ε = {epsilon:g}")
    ax.legend()
    widths = ", ".join(f"{label(n)} {m.A:.2f}" for n, m in mechs.items())
    caption = (f"each density is high (p) on a band around the input x = {x:g} (dotted) and"
               f" p/e^ε outside it, up to ±A (A: {widths}). PM-SUB and PM-OPT use a smaller t"
               " than PM: their band is wider and lower and their range wider, which lowers"
               " the variance at |x| = 1, the worst case of the family.")
    alt = (f"Three step-shaped densities over the output y at ε = {epsilon:g}, one per"
           " piecewise mechanism (PM, PM-SUB, PM-OPT), each a high plateau around the"
           " input and a low one outside it.")
    return {"caption": caption, "alt": alt, "fig": fig}


def _fig1_caption(wc: pd.DataFrame, ratio: pd.DataFrame, gaps: pd.DataFrame, top: float):
    beat = [f"{label(r.best)} (ε = {r.eps_from:.2f}"
            + (f"–{r.eps_to:.2f})" if r.eps_to > r.eps_from else ")")
            for r in gaps.itertuples()]
    above = [f"{label(n)} "
             + ("everywhere" if (ratio[n] > top).all()
                else f"from ε = {ratio.index[ratio[n] > top].min():.2f}")
             + f" (ratio up to {ratio[n].max():.3g})"
             for n in MECHS if (ratio[n] > top).any()]
    tied = ratio.index[(ratio.drop(columns="hm_tp") - 1).abs().min(axis=1) < 1e-9]
    ties = [label(n) for n in MECHS
            if n != "hm_tp" and (ratio.loc[tied, n] - 1).abs().max() < 1e-9]
    return ("top, the paper's Fig. 1 recomputed from the closed forms on a dense ε grid"
            " (left: the baselines, dashed; right: the paper's four mechanisms, solid). Bottom,"
            " each mechanism relative to HM-TP, which makes gaps of a few percent visible:"
            " wherever a curve dips below 1, that mechanism beats HM-TP — here "
            + (", ".join(beat) or "none") + ". "
            + (f"For ε ≤ {tied.max():.2f}, {', '.join(ties)} equal HM-TP exactly (the curves"
               " lie on the 1.0 line; their markers are staggered). " if ties else "")
            + "Above the bottom panels: " + "; ".join(above) + ". The intervals are computed"
            " below.")


def worst_case_figure(wc: pd.DataFrame, gaps: pd.DataFrame, top: float = 1.35) -> dict:
    """Fig. 1: worst-case variance against ε (top) and relative to HM-TP (bottom, clipped at
    ``top``), baselines left and the paper's mechanisms right; ``gaps`` are the intervals
    where HM-TP is not lowest (:func:`~ldp_companion.pm.worst_case.record_hmtp_lowest`)."""
    ratio, floor = wc.div(wc["hm_tp"], axis=0), 0.97  # floor: the bottom panels' lower end
    fig, axes = plt.subplots(2, 2, figsize=(_WIDTH, 6.0), sharex=True, sharey="row")
    groups = [[n for n in MECHS if n not in NEW], NEW]
    for col, names in enumerate(groups):
        for n in names:
            i = MECHS.index(n)
            style = dict(ls="-" if n in NEW else "--", color=color(n), lw=1.5,
                         marker=marker(n), markevery=(i * 7, 60), ms=4)  # staggered: ties
            axes[0, col].plot(wc.index, wc[n], label=label(n), **style)
            # the same label as above: the legend shows it once, the figure's CSV names
            # the ratio panels' rows too
            axes[1, col].plot(ratio.index, ratio[n], label=label(n), **style)
        axes[0, col].set(xscale="log", yscale="log",
                         title=("Fig. 1, baselines" if col == 0 else "Fig. 1, the paper's"))
        axes[1, col].set(xlabel="privacy budget ε", ylim=(floor, top))
        axes[1, col].axhline(1.0, color="0.3", lw=0.8, gid="HM-TP (ratio 1)")
    axes[0, 0].set_ylabel("max_x Var[Y | x]")
    axes[1, 0].set_ylabel("ratio to HM-TP")
    legend_below(fig)
    alt = ("Four panels against ε on a log axis. Top: worst-case variance, falling with ε, of"
           " the four baselines (left) and of the paper's four mechanisms (right). Bottom: the"
           f" same curves divided by HM-TP's, from {floor:g} to {top:.2f}.")
    return {"caption": _fig1_caption(wc, ratio, gaps, top), "alt": alt, "fig": fig}


def lemma3_figure(vb: pd.DataFrame, increasing: bool) -> dict:
    """Lemma 3: the worst-case variance of a three-output mechanism at ε = 1 against
    b = P(0 | 1) at fixed a = a* (:func:`~ldp_companion.pm.theory.lemma3_variance_vs_b`)."""
    feasible = vb.loc[vb["feasible"]]
    fig, ax = plt.subplots(figsize=(5.5, 3.2))
    ax.plot(feasible["b"], feasible["worst_variance"], color=color("three_outputs"),
            label=f"{label('three_outputs')}, ε = 1")  # names the CSV's rows (no legend)
    ax.set(xlabel="b = P(0 | x = 1) at fixed a = a*(ε = 1)", ylabel="worst-case variance",
           title="Lemma 3: the variance against b")
    caption = ("the worst-case variance of a three-output mechanism at ε = 1 over the feasible"
               f" b ({feasible['b'].min():.3f} to {feasible['b'].max():.3f}), a = a* fixed: it "
               + ("increases in b at every step, and the variance at every input x does too, so"
                  " the smallest feasible b is best, as Eq. (24) takes it." if increasing
                  else "does not increase in b everywhere.")
               + f" It runs from {feasible['worst_variance'].min():.3f}"
               + f" to {feasible['worst_variance'].max():.3f}.")
    alt = "One rising curve: worst-case variance of the three-output mechanism against b."
    return {"caption": caption, "alt": alt, "fig": fig}


def k_rule_figure(e1, h: dict, arg: pd.DataFrame, k_rule: float, proposed) -> dict:
    """Appendix S: h(ε1) = ε1 max_x E[Y² | x] per mechanism (``h``: name -> values on
    ``e1``), with Eq. (36)'s ``k_rule`` dotted; ``arg`` is
    :func:`~ldp_companion.pm.multiattribute_checks.k_rule_table`."""
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    for n, values in h.items():
        ax.plot(e1, values, color=color(n), label=label(n), marker=marker(n), markevery=25,
                ms=4)
    ax.axvline(k_rule, color="0.5", ls=":", lw=1, gid="the rule's ε1")
    ax.set(xlabel="per-attribute budget ε1", ylabel="h(ε1) = ε1 · max_x E[Y² | x]",
           ylim=(3, 8), title=f"Appendix S: the best ε1 per mechanism (dotted: {k_rule:g})")
    ax.legend(ncol=2)
    argmins = ", ".join(f"{n} {v:.2f}" for n, v in arg["argmin ε1"].items())
    cost = arg.loc[[label(n) for n in proposed], "h(2.5) / min h"].max() - 1
    caption = ("Alg. 6 gives each of k attributes ε1 = ε/k; the worst-case variance per unit of"
               f" budget is h(ε1), so the best ε1 minimises h. The minima (argmin ε1):"
               f" {argmins}."
               f" The paper's rule uses ε1 = {k_rule:g} (dotted) for its three mechanisms,"
               f" within {cost:.2%} of their minima.")
    alt = ("Curves of h(ε1) against the per-attribute budget, each with one minimum, and a"
           f" dotted vertical line at {k_rule:g}.")
    return {"caption": caption, "alt": alt, "fig": fig}


def split_panels(data: pd.DataFrame, metric: str, row: str, *, expected: str | None = None,
                 logy=False, ylabel=None, always=(), title: str = "",
                 panel_height: float = 2.4):
    """One row of two panels per value of column ``row`` (named above both): the existing
    mechanisms (left) and the paper's (right) of :data:`GROUPS`, sharing the row's y axis,
    one legend below.

    ``logy`` and ``ylabel`` are one value or a function of the row's value; ``always`` names
    mechanisms drawn in both panels (a non-private reference). ``expected`` names a column
    drawn dashed (the analytic prediction). Returns the figure.
    """
    rows = list(pd.unique(data[row]))
    fig, axes = plt.subplots(len(rows), 2, figsize=(_WIDTH, panel_height * len(rows)),
                             sharey="row", squeeze=False)
    for r, name in enumerate(rows):
        sub = data[data[row] == name]
        for c, members in enumerate(GROUPS.values()):
            part = sub[sub["mechanism"].isin([*members, *always])]
            ax = axes[r, c]
            plot_vs_epsilon(part, metric, ax=ax, logy=logy(name) if callable(logy) else logy,
                            spread="bars", legend=False, title=textwrap.fill(str(name), 32))
            ax.set_ylabel((ylabel(name) if callable(ylabel) else ylabel) if c == 0 else "")
            if expected is not None:
                pred = part.groupby(["mechanism", "epsilon"])[expected].first()
                for mech in pd.unique(part["mechanism"]):
                    ax.plot(pred.loc[mech].index, pred.loc[mech].to_numpy(), ls="--", lw=0.8,
                            color=color(mech), zorder=2, gid=f"{label(mech)}, expected")
            if r < len(rows) - 1:
                ax.set_xlabel("")
    head = "left: the existing mechanisms; right: the paper's"
    fig.suptitle(textwrap.fill(title, 70) + "\n" + head if title else head)
    legend_below(fig)
    return fig


def mse_figure(df: pd.DataFrame, title: str, runs: int, what: str, note: str = "") -> dict:
    """Figs. 6, 7 and 11: mean-estimation MSE against ε, one row per data set
    (:func:`split_panels`); the caption names the lowest and highest expected MSE."""
    fig = split_panels(df, "mse", "dataset", expected="expected_mse", logy=True,
                       ylabel="MSE of the mean", title=title)
    e = df.groupby(["epsilon", "mechanism"])["expected_mse"].mean().unstack()
    lo, hi = e.index.min(), e.index.max()
    caption = (f"Points: mean MSE over {runs} runs, error bars ×/÷ one standard deviation of"
               " log MSE; dashed: the expectation of Lemma 14. Left, the existing mechanisms;"
               " right, the paper's. Averaged over the panels, the lowest expected MSE is"
               f" {label(e.loc[lo].idxmin())}'s at ε = {lo:g} and {label(e.loc[hi].idxmin())}'s"
               f" at ε = {hi:g}; the highest is {label(e.loc[lo].idxmax())}'s at ε = {lo:g}."
               " The comparison cell by cell follows." + note)
    n = df["dataset"].nunique()
    alt = (f"{n} rows of two panels, one row per {what}, of the MSE of the mean against ε on"
           " log axes, one falling curve per mechanism: the existing ones left, the paper's"
           " right.")
    return {"caption": caption, "alt": alt, "fig": fig}


def _lowest_private(fed: pd.DataFrame) -> str:
    """Per task, the private mechanism with the lowest mean error at the largest ε."""
    top = fed[(fed["epsilon"] == fed["epsilon"].max()) & (fed["mechanism"] != "non_private")]
    best = top.groupby(["task", "mechanism"])["error"].mean().groupby("task").idxmin()
    return "; ".join(f"{t}: {label(best[t][1])}" for t in pd.unique(top["task"]))


def fedsgd_figure(fed: pd.DataFrame, linear_tasks, seeds: int) -> dict:
    """Figs. 8–10: LDP-FedSGD's test error against ε, one row per task (:func:`split_panels`),
    non-private training in both panels; ``linear_tasks`` get a log axis, an MSE label and no
    Laplace (as in Fig. 9)."""
    linear = set(linear_tasks)
    shown = fed[~(fed["task"].isin(linear) & (fed["mechanism"] == "laplace_split"))]
    fig = split_panels(
        shown, "error", "task", always=("non_private",), logy=lambda t: t in linear,
        ylabel=lambda t: "test MSE" if t in linear else "misclassification rate")
    caption = (f"Figs. 8–10: test error of LDP-FedSGD against ε ({seeds} seeds; error bars:"
               " the spread over seeds; Laplace left out of the MSE panel, as in Fig. 9;"
               " left, the existing mechanisms, right, the paper's, both with non-private"
               f" training). Lowest private error at ε = {fed['epsilon'].max():g}: "
               + _lowest_private(shown)
               + ". Whether the differences exceed the seed spread is decided in the next cell.")
    alt = (f"{fed['task'].nunique()} rows of two panels, one row per learning task, of test"
           " error against ε, one curve per mechanism and one for non-private training.")
    return {"caption": caption, "alt": alt, "fig": fig}


def fedsgd_disc_figure(fed_disc: pd.DataFrame, linear_tasks, seeds: int, n_outputs: int,
                       rel_gap: pd.Series) -> dict:
    """Figs. 12–13: LDP-FedSGD's test error with discretized outputs, one row per task;
    ``rel_gap`` is :func:`~ldp_companion.pm.fedsgd_checks.record_fig12_13`'s."""
    linear = set(linear_tasks)
    fig = split_panels(
        fed_disc, "error", "task", logy=lambda t: t in linear,
        ylabel=lambda t: "test MSE" if t in linear else "misclassification rate")
    caption = ("Figs. 12–13: test error of LDP-FedSGD against ε with PM, HM, PM-SUB and HM-TP"
               f" discretized to {n_outputs} outputs ({seeds} seeds; error bars: the spread"
               " over seeds; left, the existing mechanisms, right, the paper's). Largest"
               " relative change of a mean error against the continuous run of the same"
               f" mechanism: {rel_gap.abs().max():.1%}.")
    alt = ("Two rows of two panels, linear and logistic regression, of test error against ε,"
           " one curve per mechanism, discretized.")
    return {"caption": caption, "alt": alt, "fig": fig}
