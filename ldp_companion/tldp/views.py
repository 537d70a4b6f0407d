"""The tables chapter 1 shows, through :func:`ldp_companion.page.tables.show_table`: readable
headers and row names, a caption, numbers with 3–4 significant digits.

Each function takes what the page computed (:mod:`ldp_companion.tldp.checks`, the grids of
:mod:`ldp_companion.tldp.experiments`) and returns the styled table.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ldp_companion.page.plotting import label
from ldp_companion.page.tables import assets_table, show_table
from ldp_companion.tldp import error, privacy
from ldp_companion.tldp import experiments as ex
from ldp_companion.tldp.analysis import clean_f1
from ldp_companion.tldp.checks import W_GRID, log10_p_table, noise_ratio_table

__all__ = ["log10_p", "ceilings", "window", "accounting", "spent", "audits", "attack",
           "theorem3", "threshold", "table5", "noise_ratio", "settings", "f1_means",
           "composed", "assets", "MECHANISM_LABELS"]

#: Readable names of the mechanisms (the book's), for row and column labels.
MECHANISM_LABELS = {m: label(m) for m in (*ex.MECHANISMS, *error.ORDER)}
#: Row names of the tasks.
TASK_LABELS = {"digits": "digits", "mnist": "MNIST"}
_NOISE = {"laplace": "Laplace (TLDP-L)", "gaussian": "Gaussian (TLDP-G)"}


def log10_p(eps_grid):
    """log₁₀ p of TLDP-L per tensor size and ε (:func:`~.checks.log10_p_table`)."""
    return show_table(log10_p_table(eps_grid), "log₁₀ p of TLDP-L (Alg. 1), Δ = 256",
                      formats="{:.2f}")


def ceilings(table: pd.DataFrame):
    """Alg. 1's largest p over ε against the ceilings (:func:`~.checks.ceiling_table`)."""
    shown = table.set_index(["tensor", "noise"])
    return show_table(shown, "Largest p of Alg. 1 over a dense ε grid against our ceiling"
                      " (Δ = 256)", labels={**_NOISE, "kept entries per tensor, at most":
                                            "kept entries per tensor"})


def window(table: pd.DataFrame):
    """Theorem 1's one-entry windows (:func:`~.checks.window_table`)."""
    return show_table(table, "Probability of a window around 0 under inputs 0 and 1"
                      " (I = 1, Δ = 2, ε = 1)", labels={"η": "half-width η"})


def accounting(acct: pd.DataFrame):
    """What TLDP and the Gaussian baseline spend on an MNIST image
    (:func:`~.checks.accounting_table`)."""
    cols = {"tldp_l_int": "TLDP-L, integers", "tldp_l": "TLDP-L, continuous",
            "tldp_g_mu": "TLDP-G: μ", "tldp_g": "TLDP-G: ε′", "gaussian": "Gaussian: ε′"}
    return show_table(acct.set_index("nominal ε")[list(cols)],
                      "True ε of TLDP-L (range Δ − 1 on the integers, or Δ continuous), μ"
                      " and ε′ at δ = 10⁻⁵ of TLDP-G and the Gaussian baseline, for an MNIST"
                      " image (Δ = 256)", labels=cols, formats="{:.4g}")


def spent(table: pd.DataFrame):
    """The ε measured from each mechanism's noise (:func:`~.checks.spent_table`)."""
    pivot = table.pivot_table(index="mechanism", columns="nominal ε", values="epsilon")
    return show_table(pivot, "ε spent on an MNIST-shaped tensor, measured from each"
                      " mechanism's noise", labels=MECHANISM_LABELS, formats="{:.4g}")


def audits(table: pd.DataFrame):
    """The auditor's lower bounds per pair, mechanism and ε (:func:`~.checks.audit_table`)."""
    pivot = table.pivot_table(index=["pair", "mechanism"], columns="nominal ε",
                              values="audited ε ≥")
    return show_table(pivot, "The auditor's 95 % lower bound on ε, per nominal ε",
                      formats="{:.2f}")


def attack(table: pd.DataFrame):
    """The attack's accuracy per mechanism and ε (:func:`~.checks.attack_table`)."""
    pivot = table.pivot_table(index="mechanism", columns="nominal ε", values="accuracy")
    return show_table(pivot, "Accuracy of the likelihood-ratio test on the digits pair, per"
                      " nominal ε", labels=MECHANISM_LABELS, formats="{:.3f}")


def theorem3(audited_w: np.ndarray):
    """Theorem 3's bound against the audited ratio per weight."""
    frame = pd.DataFrame({"audited ratio ≥": np.exp(audited_w),
                          "Theorem 3: (1 − w) e^ε": (1 - W_GRID) * math.e},
                         index=pd.Index(W_GRID, name="w"))
    return show_table(frame, "Weighted TLDP on one entry: the audited ratio against"
                      " Theorem 3's bound", formats="{:.3g}")


def threshold(eps_grid):
    """The weight above which Theorem 3's bound is below 1, per ε."""
    series = pd.Series(privacy.weighted_bound_threshold(eps_grid),
                       index=pd.Index(eps_grid, name="ε"), name="w above")
    return show_table(series, "Theorem 3's bound is impossible for every weight w above"
                      " 1 − e^(−ε)", formats="{:.3f}")


def table5(tv: pd.DataFrame):
    """Table V's values over the Monte Carlo norms (``tv`` from
    :func:`~ldp_companion.tldp.error.table_v`)."""
    ratio = tv.assign(r=tv["paper"] / tv["monte carlo"]).pivot_table(
        index="mechanism", columns="epsilon", values="r").loc[list(error.ORDER)]
    return show_table(ratio.rename_axis(index="mechanism", columns="ε"),
                      "Table V's value divided by the Monte Carlo E‖Z‖₂ (1 means the paper is"
                      " right)", labels=MECHANISM_LABELS)


def noise_ratio(tv: pd.DataFrame):
    """TLDP-L's noise over TLDP-G's (:func:`~.checks.noise_ratio_table`)."""
    return show_table(noise_ratio_table(tv), "TLDP-L's noise norm over TLDP-G's",
                      formats="{:.3f}")


def settings(tasks: dict):
    """Tables II–IV's setting for MNIST against ours per task (``tasks``: name ->
    :class:`~ldp_companion.tldp.data.Task`)."""
    ours = {t: {"model": "MLP, 64 hidden units",
                "train / test / public": (f"{len(d.y_train):,} / {len(d.y_test):,} /"
                                          f" {len(d.y_public):,}"),
                "batch": ex.BATCH_SIZE, "Δ": d.value_range,
                "tensor (Types I / II)": f"{math.prod(d.tensor_shape)} / 64 entries"}
            for t, d in tasks.items()}
    paper = {"model": "MobileNetV2 (ImageNet weights)",
             "train / test / public": "60,000 / 10,000 / —", "batch": 64, "Δ": 256,
             "tensor (Types I / II)": "784 (2,352 in the authors' code) / 1,280"}
    frame = pd.DataFrame({"MNIST (paper)": paper, **ours}).astype(str)
    return show_table(frame, "The paper's setting (Table II) and ours",
                      labels={"digits": "digits (ours)", "mnist": "MNIST test (ours)"})


def f1_means(runs: pd.DataFrame, figure: str):
    """Mean F1 per (task, mechanism) and ε of a grid; the no-noise runs' mean F1 goes in the
    caption (``figure`` names the paper's figure the grid reproduces)."""
    noisy = runs[runs["mechanism"] != "none"]
    pivot = noisy.pivot_table(index=["task", "mechanism"], columns="epsilon", values="f1",
                              sort=False)
    clean = ", ".join(f"{TASK_LABELS[t]} {v:.3f}" for t, v in clean_f1(runs).items())
    return show_table(pivot.rename_axis(columns="ε"),
                      f"{figure}: mean weighted F1 per nominal ε (no noise: {clean})",
                      labels={**MECHANISM_LABELS, **TASK_LABELS}, formats="{:.3f}")


def composed(table: pd.DataFrame, rounds: int, sizes: str):
    """Type III's composed ε of one client (:func:`~.analysis.composed_table`)."""
    return show_table(table, f"Composed ε of one client over {rounds} rounds (parameter tensors of"
                      f" sizes {sizes})", labels={**MECHANISM_LABELS, **TASK_LABELS})


def assets():
    """The files of the paper's setup and whether they are here
    (:func:`ldp_companion.data.paper_assets.status`)."""
    return assets_table()
