"""Lemmas 8–9 and Fig. 15 of chapter 3: the discretized mechanisms (Alg. 5) checked through
their exact output pmfs and by Monte Carlo.

``record_*`` functions take the chapter's ledger and what the page computed and record the
claims; the ledger computes each verdict.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ldp_companion.auditing.montecarlo import bonferroni_z, moment_check
from ldp_companion.mechanisms import get_mechanism
from ldp_companion.page.plotting import tick_text
from ldp_companion.pm.discretize import discretized, worst_case_by_outputs
from ldp_companion.pm.references import discretized_reference
from ldp_companion.validation import check_positive_int, check_rng

__all__ = ["worst_case_tables", "record_disc_table", "record_lemma9", "pmf_table",
           "record_lemma8", "three_outputs_worst_case", "record_fig15", "disc_moment_table",
           "record_disc_mc", "HALF_UNIT"]

#: Half a unit of the last digit the reconstructed table prints (4 decimals).
HALF_UNIT = 5e-5


def worst_case_tables() -> tuple[pd.DataFrame, pd.DataFrame]:
    """The reconstructed worst case of PM-SUB by number of outputs and the package's
    (:func:`~ldp_companion.pm.discretize.worst_case_by_outputs`), ε down, outputs across."""
    ref = discretized_reference()
    ours = worst_case_by_outputs("pm_sub", ref.index,
                                 [c for c in ref.columns if c != "continuous"])
    return ref, ours


def record_disc_table(ledger, ref: pd.DataFrame, disc: pd.DataFrame) -> None:
    """Claim ``disc-table``: the worst cases match the reconstructed table to ± half a unit
    of its last digit (:data:`HALF_UNIT`)."""
    err = (disc - ref).abs().to_numpy()
    ledger.compare(
        "disc-table",
        "Worst-case variance of discretized PM-SUB by number of outputs "
        f"matches the reconstructed table to its last digit (±{tick_text(HALF_UNIT)})",
        err, "<=", HALF_UNIT, rtol=1e-9, names=("|ours − reconstructed|", "half a unit"),
        ours=f"max deviation {err.max():.1e}", section="pm-discretization")


def record_lemma9(ledger, disc: pd.DataFrame) -> None:
    """Claim ``lemma9``: no number of outputs lowers the continuous worst case."""
    ledger.compare("lemma9", "Discretization never lowers the worst-case variance (Lemma 9)",
                   disc.drop(columns="continuous").to_numpy(), ">=",
                   disc[["continuous"]].to_numpy(), rtol=1e-12,
                   names=("discretized", "continuous"), section="pm-discretization")


def pmf_table(eps_grid, outputs_grid, xs=(-1.0, 0.3, 1.0)) -> pd.DataFrame:
    """Lemma 8 for PM-SUB rounded to each number of outputs: the pmf's mass error, its bias
    at each input of ``xs``, and the largest probability ratio over e^ε."""
    rows = []
    for e in eps_grid:
        for k in outputs_grid:
            dm = discretized("pm_sub", e, k)
            for x in xs:
                law = dm.output_law(x)
                rows.append({"eps": e, "outputs": k, "x": x, "mass error": abs(law.mass() - 1),
                             "bias": abs(law.mean() - x),
                             "ratio / e^ε": dm.privacy_ratio() / np.exp(e)})
    return pd.DataFrame(rows)


def record_lemma8(ledger, pmf: pd.DataFrame) -> None:
    """Claim ``lemma8``: mass 1 and no bias to 1e-12, ratio at most e^ε."""
    ok = ((pmf["mass error"] < 1e-12) & (pmf["bias"] < 1e-12)
          & (pmf["ratio / e^ε"] <= 1 + 1e-12)).to_numpy()
    ledger.condition(
        "lemma8",
        "The discretized output is unbiased, its pmf sums to 1 (Lemma 8), and it stays ε-LDP",
        ok=ok,
        evidence={"max mass error (< 1e-12)": pmf["mass error"].max(),
                  "max |bias| (< 1e-12)": pmf["bias"].max(),
                  "max ratio / e^ε (≤ 1)": pmf["ratio / e^ε"].max()},
        ours=f"max bias {pmf['bias'].max():.1e}, max ratio/e^ε {pmf['ratio / e^ε'].max():.4f}",
        section="pm-discretization")


def three_outputs_worst_case(eps_grid) -> pd.Series:
    """Three-Outputs' worst-case variance at each ε of ``eps_grid``."""
    return pd.Series({e: get_mechanism("three_outputs", e).worst_case_variance()
                      for e in eps_grid})


def record_fig15(ledger, disc: pd.DataFrame, epsilon: float) -> None:
    """Claim ``fig15``: at ``epsilon``, PM-SUB with the most outputs beats Three-Outputs
    (the other ε of ``disc`` say from how many outputs it does)."""
    three = three_outputs_worst_case(disc.index)
    beats = disc.drop(columns="continuous").lt(three, axis=0)
    most = beats.columns[-1]
    ledger.compare(
        "fig15",
        "Fig. 15: PM-SUB beats Three-Outputs when the number of outputs is large "
        f"(worst case, at the largest number of outputs, ε = {epsilon:g}; the figure's "
        "ε is lost, the other ε are shown for comparison)",
        disc.loc[epsilon, most], "<", three[epsilon],
        names=(f"PM-SUB with {most} outputs", "Three-Outputs"),
        ours="; ".join(
            f"ε={e:g}: " + (f"from {beats.columns[beats.loc[e].to_numpy().argmax()]} outputs"
                            if beats.loc[e].any() else "never")
            for e in beats.index),
        section="pm-discretization")


def disc_moment_table(eps_grid, outputs, xs, n: int, rng: np.random.Generator) -> pd.DataFrame:
    """Monte Carlo moments of Alg. 5's sampler for PM-SUB and HM-TP rounded to each number
    of ``outputs`` (:func:`~ldp_companion.auditing.montecarlo.moment_check`, draws in the order
    mechanism, ε, outputs)."""
    n, rng = check_positive_int(n, "n"), check_rng(rng)
    return pd.concat([moment_check(discretized(name, e, k), xs, n, rng).assign(outputs=k)
                      for name in ("pm_sub", "hm_tp") for e in eps_grid for k in outputs],
                     ignore_index=True)


def record_disc_mc(ledger, disc_mc: pd.DataFrame, outputs, n: int) -> None:
    """Claim ``disc-mc``: every |z| of the mean and the variance below the Bonferroni bound
    (family-wise error 1e-3)."""
    z = bonferroni_z(2 * len(disc_mc), family_error=1e-3)
    ledger.compare(
        "disc-mc",
        f"Alg. 5's sampler (PM-SUB and HM-TP rounded to {outputs[0]} and {outputs[1]}"
        " outputs) is unbiased with the variance of its exact law: |z| of the mean and of"
        f" the variance < {z:.2f} ({len(disc_mc)} cells of n = {n:,})",
        disc_mc[["z", "z_var"]].abs().to_numpy(), "<", z,
        names=("|z| (mean, variance)", "z*"), section="pm-discretization")
