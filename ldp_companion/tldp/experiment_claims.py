"""The claims of chapter 1's experiments (Figs. 1–3, Tables II–IV, the paper's own networks),
recorded in the ledger from the grids of :mod:`ldp_companion.tldp.experiments`.

The figures' claims compare mechanisms run by run in each (task, ε) cell
(:mod:`ldp_companion.tldp.analysis`); the ledger decides the verdicts.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ldp_companion.data import paper_assets
from ldp_companion.tldp import analysis as an
from ldp_companion.tldp import paper
from ldp_companion.tldp.checks import DELTA_PAPER
from ldp_companion.verdicts.paired import within_margin

__all__ = ["record_fig1", "record_fig1_true", "record_fig2", "record_fig3",
           "record_settings", "record_paper_levels", "PAPER_CLAIMS"]

_TLDP = ("tldp_l", "tldp_g")

#: The paper's levels in words (Sec. V-C, quoted) on the data sets only its own networks run.
PAPER_CLAIMS = {
    "fig1-other-data": ("Fig. 1: on CIFAR-10 TLDP's F1 “eventually stabilizes around 70%”, on"
                        " SVHN it “reaches approximately 90% when ε is below 1”"),
    "fig2-other-data": ("Fig. 2: on MNIST the F1 “reaches a maximum of about 80%”, on CIFAR-10"
                        " and SVHN it is “hovering around 40%”"),
    "fig3-other-data": ("Fig. 3: on IMDB both TLDP methods “consistently achieve accuracy levels"
                        " of around 80%”"),
}
#: Fig. 1's MNIST level, "approximately 90%" (Sec. V-C), and the band "about" allows.
MNIST_LEVEL, ABOUT = 0.9, 0.05
#: Two F1 that differ by less than this are the same (TLDP-L at ε against Laplace at Iε).
SAME_F1 = 0.1


def _below_4(task, eps):
    """Where TLDP-G's noise is below TLDP-L's (ε < 4, Table V corrected)."""
    return eps < 4


def _mid(task, eps):
    """The range where the paper sees TLDP-L ahead of TLDP-G (10 ≤ ε ≤ 100)."""
    return 10 <= eps <= 100


def _beats_baselines(w: pd.DataFrame) -> np.ndarray:
    return np.vstack([an.gain(w, m, list(an.BASELINES)) for m in _TLDP])


def record_fig1(ledger, type1: pd.DataFrame, eps_12, tasks) -> None:
    """Fig. 1's claims on the Type I grid: TLDP beats the baselines, TLDP-G beats TLDP-L, the
    weights change little, the baselines stay low, and MNIST's "about 90 %" below ε = 1."""
    w1, clean1 = an.wide(type1), an.clean_f1(type1)
    ledger.difference(
        "fig1-tldp-beats",
        "Fig. 1: TLDP-L and TLDP-G surpass every baseline by a significant margin (each"
        " task and ε; F1 minus the best baseline's, run by run)", _beats_baselines(w1))
    ledger.difference(
        "fig1-g-beats-l", "Fig. 1: TLDP-G scores higher than TLDP-L (each task, ε < 4)",
        an.gain(w1, "tldp_g", "tldp_l", where=_below_4))
    ledger.difference("fig1-w-same", "Fig. 1: TLDP-G-w scores slightly below TLDP-G",
                      an.gain(w1, "tldp_g", "tldp_g_w"))
    base = type1[type1["mechanism"].isin(an.BASELINES)]
    best = base.groupby(["task", "epsilon", "mechanism"])["f1"].mean().groupby(
        ["task", "epsilon"]).max()
    ledger.compare(
        "fig1-baselines-low",
        "Fig. 1: the baselines' F1 remains consistently low as ε grows (every baseline"
        " below half the no-noise F1, each task and ε)",
        best.to_numpy(), "<", 0.5 * clean1.loc[best.index.get_level_values("task")].to_numpy(),
        names=("best baseline's mean F1", "half the no-noise F1"))
    _record_mnist_90(ledger, type1, clean1, eps_12, tasks)


def _record_mnist_90(ledger, type1, clean1, eps_12, tasks) -> None:
    below_1 = [e for e in eps_12 if e < 1]
    if "mnist" not in tasks or not below_1:
        for cid in ("fig1-mnist-90", "fig1-mnist-90-ours"):
            ledger.not_checked(
                cid, "Fig. 1: on MNIST the F1 of TLDP “reaches approximately 90% when ε is"
                " below 1”",
                "this run has no MNIST task or no ε below 1 (parameters tasks, eps_12)")
        return
    best = max(an.mean_f1(type1, m, "mnist", e) for m in _TLDP for e in below_1)
    ledger.close(
        "fig1-mnist-90",
        "Fig. 1: on MNIST the F1 of TLDP “reaches approximately 90% when ε is below 1”"
        f" (TLDP's best mean F1 at ε < 1, within {ABOUT * 100:g} points; here our MLP on the"
        " MNIST test split)",
        MNIST_LEVEL, best, atol=ABOUT,  # as for the paper's networks
        note=f"our no-noise F1 on MNIST: {clean1['mnist']:.3f}")
    ledger.compare(
        "fig1-mnist-90-ours",
        "Fig. 1 at our scale: TLDP's best mean F1 at ε < 1 on MNIST is at least"
        f" {MNIST_LEVEL:.0%} of our no-noise model's",
        best, ">=", MNIST_LEVEL * clean1["mnist"],
        names=("best TLDP mean F1 at ε < 1", f"{MNIST_LEVEL:g} × no-noise F1"))


def record_fig1_true(ledger, gap: np.ndarray) -> None:
    """TLDP-L at ε against the Laplace baseline at Iε, run by run
    (``gap`` from :func:`~ldp_companion.tldp.analysis.laplace_at_i_gap`)."""
    ledger.difference(
        "fig1-true-eps",
        "TLDP-L at ε and the Laplace baseline at Iε reach the same F1 (each task and ε: the"
        f" run-by-run difference inside ±{SAME_F1:g} of F1)", within_margin(gap, SAME_F1))


def record_fig2(ledger, type1: pd.DataFrame, type2: pd.DataFrame) -> None:
    """Fig. 2's claims on the Type II grid, and Type II against Type I."""
    w1, w2 = an.wide(type1), an.wide(type2)
    ledger.difference(
        "fig2-tldp-beats",
        "Fig. 2: TLDP-L and TLDP-G significantly outperform the baselines (each task"
        " and ε)", _beats_baselines(w2))
    ledger.difference(
        "fig2-g-beats-l", "Fig. 2: TLDP-G generally outperforms TLDP-L (each task, ε < 4)",
        an.gain(w2, "tldp_g", "tldp_l", where=_below_4))
    diff = (w1[list(_TLDP)] - w2[list(_TLDP)]).dropna()
    ledger.difference(
        "fig2-below-type1",
        "Fig. 2: TLDP does worse on features (Type II) than on images (Type I) (each task,"
        " ε, TLDP-L and TLDP-G)",
        np.vstack([diff[m].unstack("run").to_numpy() for m in _TLDP]))


def record_fig3(ledger, type1: pd.DataFrame, type3: pd.DataFrame, tasks) -> None:
    """Fig. 3's claims on the Type III grid, and the ε Type III needs against Type I's."""
    w3 = an.wide(type3)
    ledger.difference("fig3-tldp-beats",
                      "Fig. 3: TLDP is superior to the baselines (each task and ε)",
                      _beats_baselines(w3))
    ledger.difference(
        "fig3-l-beats-g",
        "Fig. 3: as ε increases, TLDP-L temporarily surpasses TLDP-G (each task, 10 ≤ ε ≤"
        " 100)", an.gain(w3, "tldp_l", "tldp_g", where=_mid))
    reach3 = an.eps_to_reach(type3, an.clean_f1(type3), "tldp_l")
    reach1 = an.eps_to_reach(type1, an.clean_f1(type1), "tldp_l")
    ledger.compare(
        "fig3-larger-eps",
        "Fig. 3: Type III needs a larger ε than Type I for the same utility (smallest ε"
        f" where TLDP-L reaches {an.REACH_SHARE:.0%} of the no-noise F1, each task)",
        [reach3[t] for t in tasks], ">", [reach1[t] for t in tasks],
        names=("ε needed in Type III", "ε needed in Type I"))


def record_settings(ledger, *grids: pd.DataFrame) -> None:
    """Tables II–IV's Δ = 256 against the Δ each experiment type passed to the mechanisms."""
    used = [frame["value_range"].unique() for frame in grids]
    ledger.close(
        "settings-delta",
        "Tables II–IV: the experiments run on data of range Δ = 256 (the Δ each experiment"
        " type, I, II and III, passed to the mechanisms in this run, following Eqs. 17–19)",
        DELTA_PAPER, np.concatenate(used), rtol=1e-9, section="tldp-settings")


def record_paper_levels(ledger, paper_runs: pd.DataFrame | None) -> None:
    """The paper's F1 levels in words (:data:`PAPER_CLAIMS`) against TLDP's best mean F1 of
    the paper networks' runs, within 5 points, or "not checked offline" naming what is
    missing."""
    for claim, statement in PAPER_CLAIMS.items():
        levels = paper.reported_levels(paper_runs, claim)
        if not levels.empty:
            ledger.close(
                claim, statement, levels["paper"].to_numpy(float),
                levels["ours"].to_numpy(float), atol=0.05,
                note="TLDP's best mean F1: "
                + ", ".join(f"{i} {r.ours:.3f}" for i, r in levels.iterrows()))
            continue
        gaps = paper_assets.missing(paper.claim_assets(claim))
        reason = ("not run here: files of "
                  + ", ".join(f"{a} ({len(f)})" for a, f in gaps.items())
                  + " are missing (table above)" if gaps
                  else "this run leaves these data sets out (paper_types, paper_tasks)")
        ledger.not_checked(claim, statement, reason)
