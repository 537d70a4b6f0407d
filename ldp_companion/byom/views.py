"""Appendix B's tables as the page shows them (:func:`ldp_companion.page.tables.show_table`):
short headers in words, formatted numbers, a caption."""
from __future__ import annotations

import pandas as pd

from ldp_companion.byom.checks import XS
from ldp_companion.page.plotting import label
from ldp_companion.page.tables import show_table

__all__ = ["audit_view", "moment_summary", "moments_view"]


def audit_view(result: dict, name: str):
    """The exact and empirical audits of :func:`~ldp_companion.byom.checks.check_mechanism`'s
    ``result``, one row per claimed ε."""
    both = result["exact"].merge(
        result["empirical"][["claimed ε", "audited lower bound"]], on="claimed ε")
    return show_table(
        both.set_index("claimed ε"),
        f"{label(name)}'s audits: the exact privacy loss over the 41-point grid of input pairs"
        " (and the pair attaining it), and the empirical lower bound at x = 1, x′ = −1",
        labels={"audited ε": "exact ε", "audited lower bound": "lower bound"},
        formats={"exact ε": "{:.4g}", "lower bound": "{:.3f}"})


def moment_summary(moments: pd.DataFrame) -> pd.DataFrame:
    """The largest |z| of the Monte Carlo mean and variance checks and the largest errors of
    the exact law, per ε (over the inputs of :data:`~ldp_companion.byom.checks.XS`).

    Parameters
    ----------
    moments : DataFrame
        ``result["moments"]`` of :func:`~ldp_companion.byom.checks.check_mechanism`.

    Returns
    -------
    DataFrame indexed by ``epsilon``: ``|z| mean``, ``|z| variance``, ``law mean error``,
    ``law var rel. error``.
    """
    worst = moments.assign(**{"|z| mean": moments["z"].abs(),
                              "|z| variance": moments["z_var"].abs()})
    return worst.groupby("epsilon")[["|z| mean", "|z| variance", "law mean error",
                                     "law var rel. error"]].max()


def moments_view(moments: pd.DataFrame):
    """:func:`moment_summary` with readable headers."""
    return show_table(
        moment_summary(moments),
        "Largest |z| of the sampler's mean and variance (Monte Carlo) and largest error of the"
        f" exact law's mean and variance, over the {len(XS)} inputs x, per ε",
        labels={"epsilon": "ε", "law mean error": "law: mean error",
                "law var rel. error": "law: variance error (rel.)"},
        formats={"|z| mean": "{:.2f}", "|z| variance": "{:.2f}",
                 "law: mean error": "{:.1e}", "law: variance error (rel.)": "{:.1e}"})
