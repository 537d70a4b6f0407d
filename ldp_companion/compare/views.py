"""Appendix C's tables as the page shows them (:func:`ldp_companion.tables.show_table`)."""
from __future__ import annotations

import pandas as pd

from ldp_companion.compare.catalogue import PAPERS
from ldp_companion.plotting import label, tick_text
from ldp_companion.tables import show_table

__all__ = ["true_epsilon_view", "validation_view", "decision_view", "flagged_text",
           "underspent_text"]


def _names(frame: pd.DataFrame) -> pd.DataFrame:
    out = frame.copy()
    out["mechanism"] = out["mechanism"].map(lambda n: label(n) if n != "hiera"
                                            else "HierA report ⟨t*, y⟩ (LHP)")
    if "paper" in out:
        out["paper"] = out["paper"].map(PAPERS)
    return out


def true_epsilon_view(table: pd.DataFrame, caption: str):
    """The true-ε table: one row per mechanism and budget."""
    shown = _names(table).drop(columns=["kind"])
    return show_table(shown, caption, labels={
        "paper": "paper", "mechanism": "mechanism", "budget": "run at ε", "delta": "δ",
        "claimed": "ε claimed", "exact": "ε exact", "black-box lower bound": "ε ≥ (black box)",
        "verdict": "verdict"}, formats={"run at ε": "{:g}", "δ": tick_text, "ε claimed": "{:.4g}",
                                        "ε exact": "{:.4g}", "ε ≥ (black box)": "{:.3f}"})


def validation_view(validation: pd.DataFrame, caption: str):
    """The auditor on known mechanisms (a mutant by its class name)."""
    shown = validation.assign(mechanism=validation["mechanism"].map(label),
                              flagged=validation["flagged"].map({True: "yes", False: "no"}))
    return show_table(shown, caption, labels={
        "mechanism": "mechanism", "status": "kind", "budget": "claimed ε",
        "true": "true ε", "bound": "ε ≥ (black box)", "flagged": "flagged"},
        formats={"claimed ε": "{:g}", "true ε": "{:.4g}", "ε ≥ (black box)": "{:.3f}"})


def decision_view(decisions: pd.DataFrame, caption: str):
    """The decision map as a table: per task and true ε, the best and its lead."""
    shown = decisions.copy()
    shown["best"] = shown["best"].map(
        lambda b: "tie: " + " / ".join(label(n) for n in b[5:].split(" / "))
        if b.startswith("tie: ") else label(b))
    shown["next"] = shown["next"].map(label)
    return show_table(shown.drop(columns=["winner", "z"], errors="ignore"), caption, labels={
        "task": "task", "epsilon": "true ε", "best": "best", "next": "next best",
        "lead": "lead (next's extra error; best's extra F1)"},
        formats={"true ε": "{:g}", "lead (next's extra error; best's extra F1)": "{:.1%}"})


def _listed(names) -> str:
    names = list(dict.fromkeys(names))
    if not names:
        return "none"
    return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else names[0]


def flagged_text(table: pd.DataFrame) -> str:
    """The mechanisms whose black-box bound exceeds their claim at some budget, with their
    papers: "graded Laplace and ..., from Hao et al. (ch. 5); TLDP-L, ..., from Yuan et al."."""
    over = _names(table[table["black-box lower bound"] > table["claimed"]])
    parts = [f"{_listed(part['mechanism'])}, from {paper}"
             for paper, part in over.groupby("paper", sort=False)]
    return "; ".join(parts) or "none"


def underspent_text(table: pd.DataFrame, share: float = 0.5) -> str:
    """The mechanisms whose exact ε is below ``share`` of their claim at every budget."""
    ratio = (table["exact"] / table["claimed"]).groupby(table["mechanism"]).max()
    return _listed(_names(pd.DataFrame({"mechanism": ratio[ratio < share].index}))["mechanism"])
