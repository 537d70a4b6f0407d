"""Appendix A's tables as the page shows them (:func:`ldp_companion.page.tables.show_table`):
short headers in words, formatted numbers, a caption."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ldp_companion.page.tables import show_table

__all__ = ["exact_view", "empirical_view", "tensor_view"]


def _eps(value) -> str:
    return "∞" if np.isinf(value) else f"{value:.3g}"


def exact_view(exact: pd.DataFrame):
    """:func:`~ldp_companion.appendix.audits.exact_table` as mechanisms × claimed ε."""
    wide = exact.pivot(index="mechanism", columns="claimed ε", values="audited ε")
    return show_table(wide, "Exact audit: the audited ε of each mechanism (rows) at each "
                      "claimed ε (columns), the largest privacy loss over the 41-point grid "
                      "of input pairs", formats="{:.4g}")


def empirical_view(empirical: pd.DataFrame):
    """:func:`~ldp_companion.appendix.audits.empirical_table`, one row per audit."""
    shown = empirical.drop(columns="mutant").assign(
        flagged=empirical["flagged"].map({True: "yes", False: "no"}))
    return show_table(
        shown, "Empirical audits at x = 1, x′ = −1: the lower bound on ε, whether it exceeds "
        "the claim, and the accuracy of the best threshold test beside the most an ε-LDP "
        "mechanism allows",
        labels={"audited lower bound": "lower bound", "test accuracy": "test acc.",
                "LDP accuracy bound": "acc. bound"},
        formats={"claimed ε": "{:.3g}", "true ε": _eps, "lower bound": "{:.3f}",
                 "test acc.": "{:.3f}", "acc. bound": "{:.3f}"})


def tensor_view(tensor: pd.DataFrame):
    """:func:`~ldp_companion.appendix.audits.tensor_table`, one row per noise scale."""
    return show_table(tensor, "Empirical audit of Laplace noise on a 28×28 tensor: two inputs "
                      "differing in one entry, at two noise scales",
                      labels={"true ε of the pair": "true ε"},
                      formats={"noise scale": "{:g}", "true ε": "{:.3g}",
                               "audited lower bound": "{:.3f}"})
