"""Fig. 1 and Tables I–II of chapter 3: the worst-case variance of the eight mechanisms by ε,
the thresholds where they cross, and the orderings the paper states.

``record_*`` functions take the chapter's ledger and the worst-case table the page computed
(:func:`~ldp_companion.mechanisms.compare.worst_case_table`: ε down, mechanisms across) and
record the claims; the ledger computes each verdict.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ldp_companion.mechanisms.compare import not_lowest, worst_case_table
from ldp_companion.page.plotting import label, tick_text
from ldp_companion.pm import theory
from ldp_companion.pm.references import CROSSINGS, FIG1_MECHS, fig1_printed

__all__ = ["MECHS", "NEW", "TIE_RTOL", "record_fig1_values", "record_crossings",
           "record_three_outputs_leaves_duchi", "record_orderings", "record_hmtp_lowest",
           "intervals_text", "gaps_table"]

#: The eight mechanisms of Fig. 1, in the paper's order.
MECHS = list(FIG1_MECHS)
#: The paper's own mechanisms.
NEW = ["three_outputs", "pm_opt", "pm_sub", "hm_tp"]
#: Relative slack for ties: the closed forms agree to rounding.
TIE_RTOL = 1e-12


def record_fig1_values(ledger) -> list[str]:
    """Claim ``fig1-values``: every worst case matches the reconstructed Fig. 1 value to half
    a unit of its last printed digit.

    Returns
    -------
    list of str
        One line per mismatch (empty when all match).
    """
    printed = fig1_printed()
    half_unit = printed.map(lambda s: 0.5 * 10.0 ** -len(s.split(".")[1])).to_numpy()
    ref = printed.astype(float)
    ours = worst_case_table(MECHS, ref.index)
    gap = np.abs(ours.to_numpy() - ref.to_numpy())
    misses = [f"{label(MECHS[j])} at ε={ref.index[i]:g}: printed {printed.iat[i, j]}, "
              f"ours {ours.iat[i, j]:.6g}"
              for i, j in zip(*np.nonzero(gap > half_unit * (1 + 1e-9)))]
    ledger.compare(
        "fig1-values",
        "Worst-case variances of all eight mechanisms match the "
        "reconstructed Fig. 1 values (the figure prints none; see Reconstructions below), "
        "to the last digit given",
        gap, "<=", half_unit, rtol=1e-9,
        names=("|ours − reconstructed|", "half a unit of the last digit"),
        note=("mismatches (the closed forms confirm ours): " + "; ".join(misses)) if misses
        else "",
        section="pm-fig1")
    return misses


def record_crossings(ledger) -> pd.DataFrame:
    """Claims ``cross-<a>-<b>`` (each threshold of :data:`~ldp_companion.pm.references.
    CROSSINGS` to 6 decimals) and ``cross-<a>-<b>-paper`` (at the paper's rounding, where it
    prints one); returns the table of thresholds (NaN where the paper prints none)."""
    rows = []
    for c in CROSSINGS:
        root = theory.crossing(c.a, c.b, *c.bracket)  # NaN where they do not cross there
        rows.append({"crossing": f"{label(c.a)} = {label(c.b)}", "claim": c.claim,
                     "reconstructed": c.rebuilt,
                     "paper (rounded)": np.nan if c.stated is None else c.stated,
                     "ours": root})
        ledger.close(f"cross-{c.a}-{c.b}",
                     f"{label(c.a)} and {label(c.b)} cross at ε ≈ {c.rebuilt:.6f} ({c.claim})",
                     paper=c.rebuilt, ours=root, atol=5e-7, section="pm-crossovers")
        if c.stated is not None:
            ledger.close(f"cross-{c.a}-{c.b}-paper",
                         f"{c.claim} (the paper's rounded threshold)",
                         paper=c.stated, ours=root, atol=5e-3, section="pm-crossovers")
    return pd.DataFrame(rows)


def record_three_outputs_leaves_duchi(ledger, wc: pd.DataFrame) -> None:
    """Claim ``three-outputs-leaves-duchi``: equal to Duchi for ε ≤ ln 2, lower above."""
    grid = wc.index.to_numpy(float)
    below = grid <= np.log(2)
    same = np.isclose(wc["three_outputs"], wc["duchi"], rtol=TIE_RTOL, atol=0)
    lower = (wc["three_outputs"] < wc["duchi"]).to_numpy()
    ledger.condition(
        "three-outputs-leaves-duchi",
        "Three-Outputs equals Duchi for ε ≤ ln 2 and is strictly better above (Table II)",
        ok=np.where(below, same, lower),
        evidence={"ε grid": grid, "Three-Outputs": wc["three_outputs"], "Duchi": wc["duchi"]},
        ours=(f"equal to {tick_text(TIE_RTOL)} on {int(same[below].sum())} of"
              f" {int(below.sum())} ε ≤"
              f" ln 2; lower on {int(lower[~below].sum())} of {int((~below).sum())} above"),
        section="pm-crossovers")


def _cross_three_outputs_pm() -> float:
    """Table II's end of Three-Outputs' window: the crossing with PM, or the paper's value
    where the two do not cross on the bracket."""
    c = next(c for c in CROSSINGS if (c.a, c.b) == ("three_outputs", "pm"))
    root = theory.crossing(c.a, c.b, *c.bracket)
    return c.stated if np.isnan(root) else root


def record_orderings(ledger, wc: pd.DataFrame) -> None:
    """Claims of Tables I–II on the dense grid ``wc``: ``laplace-worse-pm``,
    ``pmsub-beats-pm``, ``pm-family-order``, ``3out-beats-duchi-pm`` and ``hmtp-le-parts``."""
    ledger.compare("laplace-worse-pm", "Laplace is worse than PM for any ε (§I, Table I)",
                   wc["laplace"], ">", wc["pm"], names=("Laplace", "PM"),
                   section="pm-superiority")
    ledger.compare("pmsub-beats-pm", "PM-SUB beats PM for any ε (Table II)",
                   wc["pm_sub"], "<", wc["pm"], names=("PM-SUB", "PM"),
                   section="pm-superiority")
    ledger.compare("pm-family-order", "PM-OPT ≤ PM-SUB ≤ PM for every ε",
                   wc[["pm_opt", "pm_sub"]].to_numpy(), "<=", wc[["pm_sub", "pm"]].to_numpy(),
                   rtol=TIE_RTOL, names=("PM-OPT, PM-SUB", "PM-SUB, PM"),
                   section="pm-superiority")
    end = _cross_three_outputs_pm()
    grid = wc.index.to_numpy(float)
    window = (grid > np.log(2)) & (grid < end)
    ledger.compare("3out-beats-duchi-pm",
                   f"Three-Outputs beats Duchi and PM on (ln 2, {end:.2f}) (Table II)",
                   wc["three_outputs"][window], "<",
                   np.minimum(wc["duchi"], wc["pm"])[window],
                   names=("Three-Outputs", "min(Duchi, PM)"), section="pm-superiority")
    ledger.compare("hmtp-le-parts", "HM-TP is never worse than its two parts",
                   wc["hm_tp"], "<=", np.minimum(wc["three_outputs"], wc["pm_sub"]),
                   rtol=TIE_RTOL, names=("HM-TP", "min(Three-Outputs, PM-SUB)"),
                   section="pm-superiority")


def record_hmtp_lowest(ledger, wc: pd.DataFrame) -> pd.DataFrame:
    """Claim ``hmtp-lowest`` (Fig. 1, §V-E: HM-TP below every other mechanism); returns the
    ε intervals where it is not (:func:`~ldp_companion.mechanisms.compare.not_lowest`)."""
    others = wc.drop(columns="hm_tp").min(axis=1)
    lowest = (wc["hm_tp"] <= others * (1 + TIE_RTOL)).to_numpy()
    gaps = not_lowest(wc, "hm_tp", rtol=TIE_RTOL)
    ledger.compare(
        "hmtp-lowest",
        "HM-TP has a lower worst-case variance than all other mechanisms (Fig. 1, §V-E)",
        wc["hm_tp"], "<=", others, rtol=TIE_RTOL, names=("HM-TP", "lowest of the others"),
        ours=f"lowest on {lowest.mean():.0%} of the ε grid",
        note="not lowest on " + "; ".join(
            f"[{r.eps_from:.3f}, {r.eps_to:.3f}] ({label(r.best)} up to {r.max_excess:.2%}"
            " lower)" for r in gaps.itertuples()),
        section="pm-superiority")
    return gaps


def intervals_text(gaps: pd.DataFrame) -> str:
    """The intervals of :func:`record_hmtp_lowest` in words ("none" when there are none)."""
    return "; ".join(f"{label(r.best)} on [{r.eps_from:.2f}, {r.eps_to:.2f}]"
                     for r in gaps.itertuples()) or "none"


def gaps_table(gaps: pd.DataFrame) -> pd.DataFrame:
    """:func:`record_hmtp_lowest`'s intervals for the page: readable column names, the
    mechanism's display name."""
    return gaps.assign(best=gaps["best"].map(label)).rename(columns={
        "eps_from": "from ε", "eps_to": "to ε", "best": "lowest there",
        "max_excess": "HM-TP above it by"})
