"""The scalar mechanisms checked one by one (chapter 3, Sec. "Derivations checked numerically").

Fig. 4's densities against Eq. (26b), the exact and empirical ε-LDP audits (Definition 1,
Lemmas 6 and 10), unbiasedness and the closed-form variances (exact laws and Monte Carlo), and
the reconstructed variances at ε = 1. Each ``record_*`` function takes the chapter's ledger and
what the page computed and records the claim; the verdict comes from the ledger's comparison.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ldp_companion.auditing.audit import exact_audit, largest_excess
from ldp_companion.auditing.montecarlo import bonferroni_z, moment_check
from ldp_companion.mechanisms import get_mechanism
from ldp_companion.mechanisms.hybrid import hm_tp_beta
from ldp_companion.page.plotting import label, tick_text
from ldp_companion.pm import theory
from ldp_companion.pm.references import VARIANCE_EPS1
from ldp_companion.validation import check_epsilon, check_positive_int, check_rng

__all__ = ["PIECEWISE", "constants_table", "density_gaps", "record_fig4", "exact_audit_table",
           "record_exact_ldp", "record_empirical_ldp", "moment_table", "record_moments",
           "moment_summary", "variance_at_eps1", "record_variance_eps1"]

#: The piecewise family of Fig. 4 (Eqs. (26)–(32)).
PIECEWISE = ("pm", "pm_sub", "pm_opt")
#: How far an exact output law's mean and variance may be from the closed forms (round-off).
LAW_ATOL = 1e-9


def constants_table(epsilon: float) -> pd.DataFrame:
    """The mechanisms' constants at ``epsilon``: Duchi's C, the piecewise family's t and A,
    Three-Outputs' a = P(0←0) and C (Eq. (5)), HM-TP's β (Lemmas 10–11)."""
    eps = check_epsilon(epsilon)
    pw = {n: get_mechanism(n, eps) for n in PIECEWISE}
    three = get_mechanism("three_outputs", eps)
    rows = {"Duchi C": get_mechanism("duchi", eps).C,
            **{f"{label(n)} t": m.t for n, m in pw.items()},
            **{f"{label(n)} A": m.A for n, m in pw.items()},
            "Three-Outputs a = P(0←0)": three.a, "Three-Outputs C": three.C,
            "HM-TP β": hm_tp_beta(eps)}
    return pd.Series(rows, name=f"ε = {eps:g}").to_frame()


def density_gaps(epsilon: float, x: float) -> list[float]:
    """Largest relative gap between each piecewise mechanism's output law and Eq. (26b) typed
    from the paper with its own t (:func:`~ldp_companion.pm.theory.paper_t`)."""
    return [theory.density_gap(get_mechanism(n, epsilon), theory.paper_t(n, epsilon), x)
            for n in PIECEWISE]


def record_fig4(ledger, gaps, epsilon: float, x: float):
    """Claim ``fig4-density``: the three densities are Eq. (26b)'s to 1e-9; returns it."""
    return ledger.compare(
        "fig4-density",
        "Fig. 4: PM, PM-SUB and PM-OPT have density p on [L(x), R(x)] and p/e^ε on the rest"
        f" of [−A, A] (Eq. (26b); ε = {epsilon:g}, x = {x:g})",
        gaps, "<", 1e-9,
        names=("largest relative gap to Eq. (26b), per mechanism", "1e-9"),
        section="pm-mechanisms")


def exact_audit_table(mechanisms, eps_grid) -> pd.DataFrame:
    """The exact audit's ε (:func:`~ldp_companion.auditing.audit.exact_audit`) of every mechanism at
    every claimed ε: columns ``mechanism, claimed ε, audited ε``."""
    return pd.DataFrame([{"mechanism": n, "claimed ε": e,
                          "audited ε": exact_audit(get_mechanism(n, e)).epsilon}
                         for n in mechanisms for e in eps_grid])


def record_exact_ldp(ledger, audits: pd.DataFrame) -> None:
    """Claims ``ldp-<name>``: each mechanism's audited ε equals its claim (Definition 1)."""
    for n, sub in audits.groupby("mechanism", sort=False):
        ledger.close(f"ldp-{n}", f"{label(n)} is ε-LDP, with a tight bound (exact audit)",
                     paper=sub["claimed ε"], ours=sub["audited ε"], rtol=1e-9,
                     section="pm-check-ldp")


def record_empirical_ldp(ledger, audits: pd.DataFrame, n_audit: int) -> None:
    """Claim ``ldp-empirical``: no sampler's audited lower bound exceeds its claimed ε
    (:func:`~ldp_companion.auditing.audit.audit_samplers`' table, 5% family-wise error)."""
    excess = largest_excess(audits)
    flagged = excess > 0
    names = f": {', '.join(label(m) for m in flagged.index[flagged])}" if flagged.any() else ""
    ledger.compare(
        "ldp-empirical",
        "No mechanism's sampler exceeds its claimed ε in the empirical "
        f"audits (n = {n_audit:,} per input; 5% chance of flagging any correct one)",
        excess.to_numpy(), "<=", 0.0,
        names=("largest audited bound − claim, per mechanism", "0"),
        ours=f"{int(flagged.sum())} of {len(flagged)} flagged" + names,
        section="pm-check-ldp")


def moment_table(mechanisms, eps_grid, xs, n: int, rng: np.random.Generator) -> pd.DataFrame:
    """Monte Carlo and exact-law moments of every (mechanism, ε, x) cell.

    :func:`~ldp_companion.auditing.montecarlo.moment_check` (``n`` samples per input, drawn from
    ``rng`` in the order mechanism, ε) plus the exact law's ``law mean error`` ``|E[Y] − x|``
    and ``law var rel. error`` ``|Var / closed form − 1|``.
    """
    n, rng = check_positive_int(n, "n"), check_rng(rng)
    rows = []
    for name in mechanisms:
        for e in eps_grid:
            m = get_mechanism(name, e)
            mc = moment_check(m, xs, n, rng)
            laws = [m.output_law(x) for x in xs]
            mc["law mean error"] = [abs(L.mean() - x) for L, x in zip(laws, xs)]
            mc["law var rel. error"] = [abs(L.var() / m.variance(x) - 1)
                                        for L, x in zip(laws, xs)]
            rows.append(mc.assign(mechanism=name, epsilon=e))
    return pd.concat(rows, ignore_index=True)


def record_moments(ledger, moments: pd.DataFrame, n: int) -> float:
    """Claims ``moments-law`` (exact laws: mean x, closed-form variance) and ``moments-mc``
    (samplers: every |z| below the Bonferroni bound at family-wise error 1e-3).

    Returns
    -------
    float
        The relative variance error that reaches z* in the least precise cell (the check's
        resolution).
    """
    z_star = bonferroni_z(2 * len(moments), family_error=1e-3)  # mean and variance per cell
    ledger.compare(
        "moments-law",
        "The exact output laws have mean x and the closed-form variance "
        f"(all mechanisms, errors < {tick_text(LAW_ATOL)})",
        moments[["law mean error", "law var rel. error"]].to_numpy(), "<", LAW_ATOL,
        names=("|mean − x| and |Var / closed form − 1| per cell", tick_text(LAW_ATOL)),
        ours=(f"max errors {moments['law mean error'].max():.1e} (mean), "
              f"{moments['law var rel. error'].max():.1e} (variance)"),
        section="pm-check-moments")
    ledger.compare(
        "moments-mc",
        "Samplers are unbiased with the closed-form variance: |z| of the "
        f"mean and of the variance < {z_star:.2f} (family-wise error 1e-3), "
        f"{len(moments)} cells of n = {n:,}",
        moments[["z", "z_var"]].abs().to_numpy(), "<", z_star,
        names=("|z| (mean, variance)", "z*"),
        ours=(f"max |z| = {moments['z'].abs().max():.2f} (mean), "
              f"{moments['z_var'].abs().max():.2f} (variance); max rel. var. error "
              f"{moments['rel_var_error'].abs().max():.4f}"),
        section="pm-check-moments")
    return float(z_star * (moments["rel_var_error"] / moments["z_var"]).abs().max())


def moment_summary(moments: pd.DataFrame) -> pd.DataFrame:
    """Per mechanism (display names), the largest |z| of the mean and of the variance and the
    largest relative variance error."""
    out = moments.groupby("mechanism", sort=False)[["z", "z_var", "rel_var_error"]].agg(
        lambda s: s.abs().max())
    return out.rename(index=label, columns={"z": "max |z| mean", "z_var": "max |z| variance",
                                            "rel_var_error": "max rel. var. error"})


def variance_at_eps1() -> tuple[pd.DataFrame, pd.DataFrame]:
    """The reconstructed Var[Y | x] at ε = 1 for x = 0 and 1 (:data:`VARIANCE_EPS1`) and the
    package's closed forms, one row per mechanism."""
    ref = pd.DataFrame(VARIANCE_EPS1, index=["x = 0", "x = 1"]).T
    ours = pd.DataFrame({n: get_mechanism(n, 1.0).variance(np.array([0.0, 1.0]))
                         for n in VARIANCE_EPS1}, index=ref.columns).T
    return ref, ours


def record_variance_eps1(ledger, ref: pd.DataFrame, ours: pd.DataFrame) -> None:
    """Claim ``variance-eps1``: the closed forms match the reconstructed 4-decimal values."""
    ledger.close("variance-eps1",
                 "Closed-form variances at ε = 1 (reconstructed reference, 4 decimals)",
                 paper=ref.to_numpy(), ours=ours.to_numpy(), atol=5e-5,
                 section="pm-check-moments")
