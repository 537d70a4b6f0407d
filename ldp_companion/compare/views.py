"""Appendix C's tables as the page shows them (:func:`ldp_companion.page.tables.show_table`)."""
from __future__ import annotations

import pandas as pd

from ldp_companion.compare.catalogue import PAPERS
from ldp_companion.compare.downstream import AT_CHANCE, INCONCLUSIVE
from ldp_companion.page.plotting import label, tick_text
from ldp_companion.page.tables import show_table

__all__ = ["true_epsilon_view", "validation_view", "coverage_view", "decision_view",
           "flagged_text", "underspent_text", "absent_text"]


def _names(frame: pd.DataFrame) -> pd.DataFrame:
    out = frame.copy()
    out["mechanism"] = out["mechanism"].map(lambda n: label(n) if n != "hiera"
                                            else "HierA report ⟨t*, y⟩ (LHP)")
    if "paper" in out:
        out["paper"] = out["paper"].map(PAPERS)
    return out


def true_epsilon_view(table: pd.DataFrame, caption: str):
    """The true-ε table: one row per mechanism and budget."""
    shown = _names(table).drop(columns=["kind", "largest bound"], errors="ignore")
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
        "mechanism": "mechanism", "status": "kind", "classifier": "classifier",
        "budget": "claimed ε", "true": "true ε", "bound": "ε ≥ (black box)",
        "flagged": "flagged"},
        formats={"claimed ε": "{:g}", "true ε": "{:.4g}", "ε ≥ (black box)": "{:.3f}"})


def coverage_view(coverage, caption: str):
    """The auditor's coverage test (:class:`ldp_companion.auditing.blackbox.Coverage`): per
    mechanism of known ε, its audits and how many bounds exceed the exact ε."""
    shown = coverage.table().drop(columns=["cap"])
    return show_table(shown, caption, labels={
        "mechanism": "mechanism", "exact": "exact ε", "audits": "audits",
        "above exact": "bounds above the exact ε", "mean bound": "mean bound",
        "largest": "largest bound"},
        formats={"exact ε": "{:g}", "mean bound": "{:.3f}", "largest bound": "{:.3f}"})


def decision_view(decisions: pd.DataFrame, caption: str):
    """The decision map as a table: per task and true ε, the best and its lead."""
    shown = decisions.copy()
    shown["best"] = shown["best"].map(
        lambda b: "tie: " + " / ".join(label(n) for n in b[5:].split(" / "))
        if b.startswith("tie: ") else b if b in (INCONCLUSIVE, AT_CHANCE) else label(b))
    shown["next"] = shown["next"].map(label)
    shown["chance"] = shown["chance"].map(_chance)   # text: a missing level would show "–"
    lead = "lead (next's extra error; best's extra F1)"
    return show_table(shown.drop(columns=["winner", "p_chance", "p_lead"], errors="ignore"),
                      caption, labels={
                          "task": "task", "epsilon": "true ε", "best": "best",
                          "next": "next best", "lead": lead, "chance": "chance level"},
                      formats={"true ε": "{:g}", lead: _percent, "chance level": "{}"})


def _percent(value) -> str:
    return "—" if pd.isna(value) else f"{value:.1%}"


def _chance(value) -> str:
    """A task's chance level: F1 of a blind guess; an error task has none (its mean's error
    falls as 1/n)."""
    return "none (error ∝ 1/n)" if pd.isna(value) else f"F1 {value:.3f}"


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


def absent_text(f1: pd.DataFrame, candidates) -> str:
    """Which of the ``candidates`` run at only some, or none, of the downstream task's true ε:
    "TLDP-G at none of them; TLDP-L from true ε 6 on", or "every one at every ε"."""
    eps = sorted(f1["epsilon"].unique())
    parts = []
    for key in candidates:
        reached = sorted(f1.loc[f1["mechanism"] == key, "epsilon"].unique())
        if not reached:
            parts.append(f"{label(key)} at none of them")
        elif len(reached) < len(eps):
            parts.append(f"{label(key)} only at true ε {', '.join(map(tick_text, reached))}")
    return "; ".join(parts) or "every one at every ε"
