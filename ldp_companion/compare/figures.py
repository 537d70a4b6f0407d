"""Appendix C's figures: the decision map and the tensor release error against ε. Each
returns the figure, its caption (computed from what it plots) and its alt text, for
:func:`ldp_companion.page.plotting.show`."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.colors import ListedColormap

from ldp_companion.compare.downstream import AT_CHANCE, INCONCLUSIVE
from ldp_companion.page.plotting import (
    color,
    epsilon_axis,
    label,
    legend_below,
    marker,
    plain_log_y,
    tick_text,
)

__all__ = ["decision_figure", "tensor_figure", "f1_figure"]


def decision_figure(decisions: pd.DataFrame):
    """Rows: tasks; columns: true ε; each cell coloured by the best mechanism and labelled
    with its lead over the next ("=" for a tie)."""
    tasks = list(dict.fromkeys(decisions["task"]))
    eps = sorted(decisions["epsilon"].unique())
    named = decisions[decisions["best"] != AT_CHANCE]     # a grey cell names no winner
    names = list(dict.fromkeys(named["winner"]))
    grid = decisions.pivot(index="task", columns="epsilon", values="winner").loc[tasks, eps]
    lead = decisions.pivot(index="task", columns="epsilon", values="lead").loc[tasks, eps]
    tie = decisions.pivot(index="task", columns="epsilon", values="best").loc[tasks, eps]
    chance = (tie == AT_CHANCE).to_numpy()
    index = grid.apply(lambda col: col.map(
        lambda n: names.index(n) if n in names else np.nan)).to_numpy(float)
    cmap = ListedColormap([color(n) for n in names] or [_CHANCE_GREY]).with_extremes(
        bad=_CHANCE_GREY)
    fig, ax = plt.subplots(figsize=(6.6, 0.5 * len(tasks) + 1.2))
    ax.imshow(np.ma.masked_array(index, chance | np.isnan(index)), cmap=cmap, aspect="auto",
              vmin=-0.5, vmax=max(len(names), 1) - 0.5)
    for i in range(len(tasks)):
        for j in range(len(eps)):
            text, shade = _cell_text(str(tie.iat[i, j]), lead.iat[i, j]), 1.0
            if not chance[i, j]:
                shade = np.mean(color(grid.iat[i, j]))
            ax.text(j, i, text, ha="center", va="center", fontsize=9,
                    color="white" if shade < 0.55 else "black")
    ax.set_xticks(range(len(eps)), [tick_text(e) for e in eps])
    ax.set_yticks(range(len(tasks)), tasks)
    ax.set(xlabel="true ε (spent, not claimed)")
    ax.grid(False)
    for n in names:  # legend entries (empty lines draw nothing)
        ax.plot([], [], ls="", marker="s", markersize=10, color=color(n), label=label(n))
    if chance.any():
        ax.plot([], [], ls="", marker="s", markersize=10, color=_CHANCE_GREY,
                label="none beats chance")
    legend_below(fig, ax, ncol=min(4, len(names) + bool(chance.any())))
    ties = int(tie.apply(lambda c: c.str.startswith("tie")).to_numpy().sum())
    unsure = int((tie == INCONCLUSIVE).to_numpy().sum())
    levels = decisions.dropna(subset=["chance"]).drop_duplicates("task")
    chance_text = "; ".join(f"{t}: F1 {c:.3f}" for t, c in zip(levels["task"], levels["chance"]))
    caption = (f"the most accurate mechanism for each task at each true ε ({len(tasks)} tasks, "
               f"{len(eps)} budgets), and its lead over the next best, in percent "
               f"(\"=\": within the tie margin, {ties} cells; \"?\": the runs cannot tell, "
               f"{unsure} cells; grey \"–\": no mechanism beats a guess that ignores the input, "
               f"{int(chance.sum())} cells; chance level {chance_text or 'none'}). "
               "Scalar tasks compare the per-user variance of a mean "
               "estimate; the tensor task, the error per entry of an MNIST-sized release; the "
               "digits task, chapter 1's downstream F1 over its runs. Colours name the "
               "winner; a tie takes the colour of the first of its mechanisms in the legend's "
               "order.")
    alt = ("A grid of coloured cells: rows are tasks (worst case, uniform data, real columns, "
           "tensor release, downstream F1), columns are true ε values; each cell's colour is the "
           "best mechanism and its text the best's lead in percent.")
    return fig, caption, alt


#: The colour of a cell where no mechanism beats chance.
_CHANCE_GREY = "#d9d9d9"


def _cell_text(best: str, lead: float) -> str:
    """A decision map cell's label: "=" a tie, "?" undecided, "–" at chance, else the lead
    (a cell one mechanism alone can reach: "only")."""
    if best.startswith("tie"):
        return "="
    if best in (INCONCLUSIVE, AT_CHANCE):
        return "?" if best == INCONCLUSIVE else "–"
    return "only" if not np.isfinite(lead) else f"{lead:.0%}"


def _coinciding(true: pd.DataFrame) -> str:
    """The mechanisms whose error at the true ε equals another's at every ε (to 10⁻⁹),
    named together ("Gaussian, IDN and MVG")."""
    wide = true.pivot_table(index="epsilon", columns="mechanism", values="error").dropna(axis=1)
    groups = []
    for key in wide.columns:
        close = [k for k in wide.columns
                 if np.allclose(wide[k], wide[key], rtol=1e-9, atol=0.0)]
        if len(close) > 1 and close not in groups:
            groups.append(close)
    names = [[label(k) for k in g] for g in groups]
    return "; ".join(", ".join(g[:-1]) + " and " + g[-1] for g in names)


def tensor_figure(errors: pd.DataFrame, shape):
    """Error per entry of each tensor mechanism against ε: solid at the true ε, dashed at the
    claimed ε (the paper's axis)."""
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    eps = sorted(errors["epsilon"].unique())
    for key in dict.fromkeys(errors["mechanism"]):
        for basis, style in (("true", "-"), ("claimed", "--")):
            part = errors[(errors["mechanism"] == key) & (errors["basis"] == basis)]
            part = part.dropna(subset=["error"])
            if part.empty:
                continue
            ax.plot(part["epsilon"], part["error"], ls=style, color=color(key),
                    marker=marker(key), label=f"{label(key)} ({basis} ε)")
    epsilon_axis(ax, eps)
    ax.set(xlabel="ε", ylabel="mean squared error per entry")
    ax.set_yscale("log")
    plain_log_y(ax)
    legend_below(fig, ax, ncol=3)
    true = errors[errors["basis"] == "true"]
    unreachable = sorted({label(k) for k in true[true["error"].isna()]["mechanism"]})
    same = _coinciding(true)
    size = "×".join(str(s) for s in shape)
    caption = (f"error of each tensor mechanism on a {size} release against ε: dashed at the "
               "ε the paper claims, solid at the ε it really spends. At equal true ε, "
               f"{same or 'no two mechanisms'} add the same noise (their solid curves "
               f"coincide); {', '.join(unreachable) or 'none'} cannot spend any ε up to "
               f"{tick_text(max(eps))} at all (no solid curve).")
    alt = ("Log-log lines of error per entry against ε for the tensor mechanisms; dashed "
           "lines at the claimed ε, solid at the true ε.")
    return fig, caption, alt


def f1_figure(f1: pd.DataFrame, decisions: pd.DataFrame):
    """Chapter 1's downstream F1 against the true ε, mean ± one standard error over runs."""
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    eps = sorted(f1["epsilon"].unique())
    for key, part in f1.groupby("mechanism", sort=False):
        stats = part.groupby("epsilon")["f1"].agg(["mean", "std", "count"])
        se = stats["std"] / np.sqrt(stats["count"])
        ax.errorbar(stats.index, stats["mean"], yerr=se, color=color(key), marker=marker(key),
                    capsize=3, label=label(key) + (" (= IDN = MVG)" if key == "gaussian" else ""))
    chance = float(decisions["chance"].iloc[0])
    ax.axhline(chance, color="0.4", ls=":", lw=1.2, label="chance (a guess ignoring the image)")
    epsilon_axis(ax, eps)
    ax.set(xlabel="true ε (spent, not claimed)", ylabel="weighted F1 on clean test images")
    legend_below(fig, ax, ncol=2)
    decided = decisions[~decisions["best"].isin([INCONCLUSIVE, AT_CHANCE])]
    runs = int(f1.groupby(["mechanism", "epsilon"])["f1"].count().min())
    caption = (f"chapter 1's downstream task at equal true ε: a network trained on digits "
               f"released once each, scored on clean images (mean ± one standard error over "
               f"{runs} runs). The runs name a winner at {len(decided)} of {len(eps)} budgets"
               + (f" ({', '.join(tick_text(e) for e in decided['epsilon'])})" if len(decided)
                  else "") + f". Dotted: chance, the F1 of a guess that ignores the image "
               f"({chance:.3f}); at {int((decisions['best'] == AT_CHANCE).sum())} budgets no "
               "mechanism beats it. Each mechanism is drawn at the true ε it can spend.")
    alt = ("Lines with error bars of downstream F1 against true ε for the tensor mechanisms "
           "of chapter 1, with a dotted line at the chance level.")
    return fig, caption, alt
