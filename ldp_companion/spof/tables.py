"""The chapter's tables, as the page shows them: each function takes what the chapter
computed and returns :func:`ldp_companion.page.tables.show_table`'s styled table, with readable
headers, a caption and numbers of three or four significant digits.
"""
from __future__ import annotations

import pandas as pd

from ldp_companion.page.plotting import label
from ldp_companion.page.tables import show_table

__all__ = ["coefficients", "prop1", "prop3", "alg1", "thm1", "cdf", "prob", "operations",
           "fig6", "settings", "baselines", "fig3", "fig2", "timing", "gains"]

_G4 = "{:.4g}"


def coefficients(coef: pd.DataFrame):
    """α₂ and α₃ at a few records, the paper's and the exact (columns: the variants)."""
    return show_table(coef, "Taylor coefficients at three values of x (Eq. 12)",
                      labels={"paper": "paper (12)", "exact": "exact"}, formats=_G4)


def prop1(table: pd.DataFrame):
    """Prop. 1's errors, bounds and the G each δ needs."""
    short = {"paper polynomial (12)": "paper (12)", "exact 2nd order": "exact",
             "e^δ − 1 − δ − δ²/2": "e^δ−1−δ−δ²/2", "G needed (paper)": "G needed"}
    return show_table(table, "Prop. 1: largest error over |z| ≤ δ of the paper's polynomial"
                      " (12) and of the exact one, the bounds, and the G that Prop. 1's bound"
                      " needs to cover the paper's", labels=short)


def prop3(table: pd.DataFrame):
    """Prop. 3's Δ̂ at three readings of c_j, and brute force."""
    return show_table(table, "Prop. 3: Δ̂ at three readings of c_j, and the brute-force"
                      " sensitivity of the shifted coefficients", formats=_G4)


def alg1(table: pd.DataFrame):
    """The true ε of each release at a claimed ε = 1."""
    return show_table(table, "The true ε of each release at a claimed ε = 1: closed form,"
                      " the exact auditor and the paper's formulas' prediction",
                      labels={"true ε (closed form)": "closed form"}, formats=_G4)


def thm1(c6: pd.Series):
    """The largest error of Thm. 1's quadratic coefficient, three ways."""
    return show_table(c6.to_frame(), "Thm. 1: largest error of the noisy loss's polynomial"
                      " (x = 0.3, b = 2, t = 0.1, |z| ≤ 0.3) for three quadratic"
                      " coefficients", formats="{:.2e}")


def cdf(table: pd.DataFrame):
    """P[X < t]: Monte Carlo, the closed form and Eq. 53; and the Monte Carlo of the
    variable Eq. 53 describes."""
    return show_table(table.rename_axis("t"), "P[X < t] for X = b_r (σ̃ = 1, h = ½):"
                      " Monte Carlo, the closed form and the paper's Eq. 53; last, P[V < t]"
                      " by Monte Carlo for V = (1 + h)Y/(1 + hY), Y = e^D, whose law Eq. 53"
                      " is", formats=_G4)


def prob(table: pd.DataFrame, sigma: float):
    """Monte Carlo Pr[b_j < 1] and Pr[b_j < l] per h."""
    return show_table(table, f"Prop. 4: Monte Carlo probabilities at σ = {sigma:g} for a"
                      " random W, per hidden unit h", formats=_G4)


def operations(ops: pd.Series):
    """App. G's operation count, term by term."""
    terms = {"perturbation": "perturbation", "coefficients": "coefficients",
             "stabilization": "stabilization", "clip_divisions": "clipping divisions",
             "norm_additions": "norm additions", "squaring": "squaring",
             "sqrt": "square root", "gradient_terms": "gradient terms"}
    frame = ops.rename(index=terms, level=1).to_frame("operations")
    return show_table(frame.rename_axis(["method", "term"]), "App. G: macro-operations to"
                      " perturb one record (AMD K7 costs)", formats="{:.0f}")


def fig6(table: pd.DataFrame, rows):
    """Fig. 6's curves at a few expansion points."""
    short = {"paper (58)": "SPOF (58)", "corrected": "SPOF corrected",
             "DP-SGD unclipped (64)": "DP-SGD (64)",
             "DP-SGD unclipped, corrected": "DP-SGD corrected"}
    return show_table(table.loc[rows], "Per-feature sensitivity at a few expansion points a"
                      " (DP-SGD unclipped)", labels=short, formats=_G4)


def settings(table: pd.DataFrame):
    """The paper's settings against this run's."""
    return show_table(table, "The paper's setup and this run's")


def baselines(table: pd.DataFrame):
    """Accuracies of the three data-free predictors."""
    return show_table(table, "Accuracy (1 − MSE) of three predictors that learn nothing",
                      formats=_G4)


def fig3(runs: pd.DataFrame):
    """Fig. 3's mean accuracy per condition, method and ε."""
    order = list(dict.fromkeys(runs["method"]))        # the order the grid ran them
    table = (runs.groupby(["condition", "method", "epsilon"])["accuracy"].mean()
             .unstack("epsilon").rename(columns="ε = {:g}".format))
    table = table.reindex(order, level="method").rename(index=label, level="method")
    return show_table(table.rename_axis(columns=None), "Fig. 3: mean accuracy (1 − MSE) per"
                      " input condition, method and ε", formats="{:.3f}")


def fig2(runs: pd.DataFrame):
    """Fig. 2's mean and sd of the accuracy per c and method."""
    table = (runs.groupby(["method", "c"])["accuracy"].agg(["mean", "std"])
             .unstack("method").swaplevel(axis=1).sort_index(axis=1))
    table = table.rename(columns=label, level=0).rename(columns={"std": "sd"}, level=1)
    return show_table(table.rename_axis(columns=[None, None]), "Fig. 2: accuracy (1 − MSE)"
                      " against c, mean and sd over runs", formats=_G4)


def timing(per_epoch: pd.DataFrame):
    """Seconds per epoch per method: mean and sd over the repeats."""
    table = per_epoch.agg(["mean", "std"]).T.rename(index=label)
    return show_table(table.rename_axis("method"), "Training time per epoch (one model, one"
                      " thread), over the repeats", labels={"mean": "s per epoch", "std": "sd"},
                      formats="{:.3g}")


def gains(table: pd.DataFrame):
    """The relative accuracy gain of SPOF over DP-SGD per condition and pair."""
    return show_table(table.set_index(["condition", "SPOF", "DP-SGD"]), "Relative accuracy"
                      " gain (%) of SPOF over DP-SGD, ε-averaged, mean and se over runs",
                      formats="{:.3g}")
