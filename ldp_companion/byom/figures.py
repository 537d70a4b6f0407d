"""Appendix B's figures: a registered mechanism beside the papers' ones, in the worst-case
variance comparison and in the mean-estimation grid. Each function returns the figure and a
caption built from the values it plots."""
from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from ldp_companion.page.plotting import (
    PAGE_WIDTH_PX,
    color,
    epsilon_axis,
    label,
    legend_below,
    marker,
    plain_log_y,
    plot_vs_epsilon,
)

__all__ = ["EPS_TICKS", "worst_case_figure", "mean_figure"]

#: Ticks of the worst-case figure's ε axis.
EPS_TICKS = [0.1, 0.25, 0.5, 1, 2, 4, 8]
_WIDTH = PAGE_WIDTH_PX / 100  # inches at the page's 100 px per inch


def worst_case_figure(wc: pd.DataFrame, highlight: str = "square_wave"):
    """Worst-case variance against ε, one curve per column of ``wc``; ``highlight`` solid.

    Parameters
    ----------
    wc : DataFrame
        :func:`~ldp_companion.mechanisms.compare.worst_case_table`'s output (indexed by ε,
        one column per mechanism), with columns ``highlight`` and ``"pm"``.
    highlight : str
        The reader's mechanism, drawn solid and thicker; the others dashed.

    Returns
    -------
    fig, caption
        The caption gives the range of ``highlight``'s variance relative to PM's.
    """
    fig, ax = plt.subplots(figsize=(_WIDTH, 4.0))
    for n in wc.columns:
        mine = n == highlight
        ax.plot(wc.index, wc[n], color=color(n), lw=2.4 if mine else 1.4,
                ls="-" if mine else "--", marker=marker(n), markevery=25, label=label(n))
    epsilon_axis(ax, EPS_TICKS)
    ax.set(xlabel="privacy budget ε", ylabel="worst-case variance")
    plain_log_y(ax)
    legend_below(fig, ax)
    ratio = wc[highlight] / wc["pm"]
    others = [label(n) for n in wc.columns if n != highlight]
    others = ", ".join(others[:-1]) + " and " + others[-1] if len(others) > 1 else others[0]
    caption = (f"worst-case variance max_x Var[Y | x] of the debiased {label(highlight)}"
               f" (solid) and of the papers' {others} (dashed), from the closed forms."
               f" {label(highlight)}'s is {ratio.min():.3g} to {ratio.max():.3g} times PM's"
               " on this grid.")
    return fig, caption


def mean_figure(mean_df: pd.DataFrame):
    """Mean-estimation MSE against ε, one panel per data set, error bars over runs.

    Parameters
    ----------
    mean_df : DataFrame
        :func:`~ldp_companion.byom.experiments.scalar_mean_grid`'s output.

    Returns
    -------
    fig, caption
        The caption gives the runs and users per cell.
    """
    fig, axes = plt.subplots(1, 2, figsize=(_WIDTH, 3.6), sharey=False)
    for ax, (name, sub) in zip(axes, mean_df.groupby("dataset", sort=False)):
        plot_vs_epsilon(sub, "mse", seed="run", ax=ax, logy=True, legend=False, title=name,
                        ylabel="MSE of the means", spread="bars")
    legend_below(fig, axes[0])
    runs, users = mean_df["run"].nunique(), int(mean_df["n"].max())
    caption = (f"mean-estimation MSE over {runs} runs of {users:,} users (error bars: the"
               " spread over runs, ×/÷ one standard deviation of the log MSE). Square Wave,"
               " registered on this page, runs in the same grid code as the papers'"
               " mechanisms.")
    return fig, caption
