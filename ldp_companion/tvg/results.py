"""Summaries of chapter 2's experiment runs (Figs. 3–5 of Yang et al. 2021, TVG): the mean score
per (mechanism, ε), the no-noise reference, a mechanism's mean at one ε, and where the released
features leave chance.

Every function takes the long frames the grids of :mod:`~ldp_companion.tvg.experiments`
return: one row per (mechanism, ε, run), ``"none"`` the run without noise.
"""
from __future__ import annotations

import pandas as pd

from ldp_companion.page.plotting import label
from ldp_companion.page.tables import show_table
from ldp_companion.verdicts.prose import format_value

__all__ = ["table_labels", "mean_table", "means_view", "clean_score", "mean_at", "best_mean",
           "first_off_chance"]


def table_labels(mechanisms) -> dict:
    """Readable names for a table of runs: each mechanism's label, ε for ``epsilon``."""
    return {m: label(m) for m in mechanisms} | {"epsilon": "ε"}


def _private(runs: pd.DataFrame) -> pd.DataFrame:
    return runs[runs["mechanism"] != "none"]


def mean_table(runs: pd.DataFrame, metric: str, mechanisms=None) -> pd.DataFrame:
    """Mean ``metric`` per mechanism (rows; in ``mechanisms``' order if given) and ε
    (columns), the run without noise left out."""
    table = _private(runs).groupby(["mechanism", "epsilon"])[metric].mean().unstack("epsilon")
    return table.loc[list(mechanisms)] if mechanisms is not None else table


def means_view(runs: pd.DataFrame, metric: str, mechanisms, caption: str):
    """:func:`mean_table` for the page (:func:`~ldp_companion.page.tables.show_table`): the
    mechanisms' labels as row names, ε as the columns' name."""
    return show_table(mean_table(runs, metric, mechanisms), caption,
                      labels=table_labels(mechanisms))


def clean_score(runs: pd.DataFrame, metric: str) -> float:
    """Mean ``metric`` of the runs without noise (``"none"``)."""
    return float(runs.loc[runs["mechanism"] == "none", metric].mean())


def mean_at(runs: pd.DataFrame, mechanism: str, epsilon: float, metric: str = "accuracy"
            ) -> float:
    """Mean ``metric`` of ``mechanism`` at ``epsilon`` over the runs."""
    sel = (runs["mechanism"] == mechanism) & (runs["epsilon"] == epsilon)
    return float(runs.loc[sel, metric].mean())


def best_mean(runs: pd.DataFrame, eps_max: float, metric: str = "accuracy") -> float:
    """The best mean ``metric`` of any mechanism at any ε ≤ ``eps_max``."""
    low = _private(runs)
    low = low[low["epsilon"] <= eps_max]
    return float(low.groupby(["mechanism", "epsilon"])[metric].mean().max())


def first_off_chance(runs: pd.DataFrame, chance: float, metric: str = "accuracy") -> str:
    """The smallest ε at which some mechanism's mean ``metric`` exceeds ``chance``, as
    ``"ε = …"`` (``"none"`` if no ε does)."""
    best = _private(runs).groupby(["epsilon", "mechanism"])[metric].mean()
    best = best.groupby("epsilon").max()
    off = best[best > chance].index
    if not len(off):
        return "none"
    low = float(min(off))
    return f"ε = {format_value(int(low) if low.is_integer() else low)}"
