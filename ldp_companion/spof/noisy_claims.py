"""The chapter's checks of the noisy-input analysis: Thm. 1 (App. E's identities, the
noiseless b_j, the scaling of the coefficients), App. F.II's density of b_r (Eq. 53),
Prop. 4 and Remarks 1–2 (Pr[b_j < 1]) and Figs. 4–5; each computed here and recorded in the
chapter's ledger. The analysis itself is :mod:`~ldp_companion.spof.noisy`.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ldp_companion.spof import noisy, taylor

__all__ = ["record_thm1", "cdf_table", "record_cdf", "prob_table", "record_prop4",
           "fig5_table", "record_fig5", "fig4_medians", "record_fig4", "CDF_POINTS",
           "H_LEVELS", "FIG4_H", "SIGMA_GRID", "EQ53_MC", "record_laws", "record_b_squared"]

#: Where the law of X = b_r is compared (σ̃ = 1, h = ½): at t = 1 every law gives ½.
CDF_POINTS = [0.5, 1.0, 1.5]
#: Hidden units of the Prop. 4 table.
H_LEVELS = [0.0, 0.25, 0.5, 0.75]
#: Hidden units of the authors' Fig. 4.
FIG4_H = (0.0, 0.5, 0.99)
#: σ of the Fig. 5 table.
SIGMA_GRID = np.array([0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0])
# Thm. 1's test point: x = 0.3, b = 2, t = 0.1, |z| ≤ 0.3.
_X, _B, _T, _ZMAX = 0.3, 2.0, 0.1, 0.3


def record_thm1(ledger, rng, *, n: int, l: int, sigma: float) -> pd.Series:
    """Record ``thm1-identities``, ``thm1-noiseless-b`` and ``thm1-b-scaling``; return the
    largest error of Thm. 1's quadratic coefficient read three ways (``b·α₃`` with the
    paper's α₃ as Eq. 13 has it, ``b·α₃`` and ``b²·α₃`` with α₃ = 1/8, Eq. 42)."""
    ident = noisy.noisy_identities(rng, n=n, l=l, sigma=sigma)
    c6 = pd.Series({
        "b·α₃ (paper's α₃, Eq. 13)": noisy.coefficient_error(_X, _B, _T, _ZMAX, 1, "paper"),
        "b·α₃ (α₃ = 1/8)": noisy.coefficient_error(_X, _B, _T, _ZMAX, 1, "exact"),
        "b²·α₃ (α₃ = 1/8)": noisy.coefficient_error(_X, _B, _T, _ZMAX, 2, "exact"),
    }, name="largest error")
    ledger.compare(
        "thm1-identities",
        f"App. E: ĥ = b ⊙ h and ẑ = b_j z − t exactly (σ = {sigma:g}, 64 random"
        " models and records)",
        max(ident["hidden_err"], ident["logit_err"]), "<=", 1e-12,
        names=("largest error", "10⁻¹²"))
    ledger.close(
        "thm1-noiseless-b",
        "Prop. 4, App. F: the noiseless case is b_j = 1, so that Δ̂^[N] < Δ̂ iff b_j < 1"
        " (Thm. 1's b_j at zero noise)",
        1.0, ident["noiseless_b_j"], atol=1e-12,
        note=f"every b_r is 1 (to {ident['noiseless_b_r']:.0e}), so b_j = l")
    ledger.compare(
        "thm1-b-scaling",
        "Thm. 1, Eq. 13: the noisy loss's polynomial has coefficients b_j α₂ and b_j α₃"
        " (its error at x = 0.3, b = 2, t = 0.1, |z| ≤ 0.3, against the second-order"
        " remainder bound (|bz − t|)⁴/192)",
        c6.iloc[0], "<=", float(taylor.remainder_bound(_B * _ZMAX + _T)),
        names=("error of Eq. 13", "remainder bound"),
        note=f"with b² α₃ the error is {c6.iloc[2]:.1e}")
    return c6


def cdf_table(n_mc: int, rng, st: float = 1.0, h: float = 0.5) -> pd.DataFrame:
    """``P[X < t]`` for ``X = b_r``, ``D ~ N(0, st²)``, at :data:`CDF_POINTS`: Monte Carlo
    (``n_mc`` draws), the closed form and the paper's Eq. 53; and, from the same draws of
    ``D``, the Monte Carlo of ``(1 + h)Y/(1 + hY)``, ``Y = e^D`` (:data:`EQ53_MC`), the
    variable whose law Eq. 53 is: Eq. 50's inverse ``y = x/(1 - hx + h)`` solves for it."""
    d = rng.normal(0, st, n_mc)
    draws, y = noisy.b_of_d(d, h), np.exp(d)
    eq53_draws = (1 + h) * y / (1 + h * y)
    t = np.array(CDF_POINTS)
    return pd.DataFrame(
        {"Monte Carlo": [(draws < v).mean() for v in CDF_POINTS],
         "closed form": noisy.fx_cdf_exact(t, h, st),
         "paper (53)": noisy.fx_cdf_paper(t, h, st),
         EQ53_MC: [(eq53_draws < v).mean() for v in CDF_POINTS]},
        index=pd.Index(CDF_POINTS, name="P[X < t], t ="))


#: How the page writes the CDF points.
_FRACTION = {0.5: "½", 1.5: "3/2"}


def record_cdf(ledger, cdf: pd.DataFrame, n_mc: int) -> None:
    """Record ``appF-cdf`` from :func:`cdf_table` (at t = 1 both laws give ½: left out)."""
    off = cdf.drop(index=1.0)
    se = np.sqrt(cdf["Monte Carlo"] * (1 - cdf["Monte Carlo"]) / n_mc)
    ledger.close(
        "appF-cdf",
        "App. F.II, Eq. 53: the density of X = b_r (σ̃ = 1, h = ½; probabilities"
        f" P[X < t] at t = ½ and 3/2 against {n_mc:,} draws)",
        off["paper (53)"].to_numpy(), off["Monte Carlo"].to_numpy(), atol=5 * se.max(),
        labels=[f"P[X < {_FRACTION.get(t, f'{t:g}')}]" for t in off.index],
        note=("the closed form is within"
              f" {(np.abs(cdf['closed form'] - cdf['Monte Carlo']) / se).max():.1f} s.e."))


def prob_table(w: np.ndarray, *, l: int, sigma: float, n_mc: int, rng) -> pd.DataFrame:
    """Monte Carlo ``Pr[b_j < 1]`` and ``Pr[b_j < l]`` at each of :data:`H_LEVELS`, for the
    encoder weights ``w`` and noise s.d. ``sigma`` (``n_mc`` draws each)."""
    return pd.DataFrame(
        [noisy.mc_prob_bj_below([1.0, float(l)], sigma, h, w, n_mc, rng) for h in H_LEVELS],
        columns=["Pr[b_j < 1]", f"Pr[b_j < l = {l}]"], index=pd.Index(H_LEVELS, name="h"))


def record_prop4(ledger, prob: pd.DataFrame, *, sigma: float, n_mc: int) -> None:
    """Record ``prop4-half`` from :func:`prob_table`: every estimate plus 5 s.e. (at most
    ``sqrt(¼/n_mc)`` each) against ½."""
    se_max = math.sqrt(0.25 / n_mc)
    ledger.compare(
        "prop4-half",
        f"Prop. 4: “Pr[b_j < 1] ≥ 0.5” for large σ (σ = {sigma:g}, four h,"
        f" {n_mc:,} draws each, Monte Carlo plus 5 s.e.)",
        prob["Pr[b_j < 1]"].to_numpy() + 5 * se_max, ">=", 0.5,
        names=("Monte Carlo + 5 s.e.", "0.5"),
        note="analytically below ½ for every W, h and σ once l ≥ 2")


def fig5_table(l: int) -> pd.DataFrame:
    """Fig. 5 against σ (:data:`SIGMA_GRID`): the authors' curve and ``Pr[b_max ≤ 1]``."""
    return pd.DataFrame(
        {"authors' curve Φ(ln(1/l)/(σ‖W‖))": noisy.fig5_authors(SIGMA_GRID, l=l),
         "Pr[b_max ≤ 1] = F_X(1/l)¹⁰⁰": noisy.fig5_correct(SIGMA_GRID, l=l)},
        index=pd.Index(SIGMA_GRID, name="σ"))


def record_fig5(ledger, fig5: pd.DataFrame) -> None:
    """Record ``fig5-remark2`` from :func:`fig5_table`."""
    ledger.compare(
        "fig5-remark2",
        "Remark 2, Fig. 5: for large σ, noisy inputs need less DP noise “with probability"
        " of at least 0.5” (the authors' plotted curve, σ up to 10)",
        fig5.iloc[:, 0].max(), ">=", 0.5, names=("largest value", "0.5"),
        note=f"under the paper's definitions the value is at most {fig5.iloc[:, 1].max():.0e}")


def fig4_medians(l: int) -> np.ndarray:
    """Median of ``b_max`` (Eq. 54 with the exact law, the authors' σ = 0.5 and ‖W‖) at each
    of :data:`FIG4_H`."""
    st = noisy.SIGMA_FIG4 * noisy.WNORM_AUTHORS
    return np.array([float(noisy.fbmax_median(h, st, l=l)) for h in FIG4_H])


def record_fig4(ledger, med: np.ndarray, l: int) -> None:
    """Record ``fig4-h`` from :func:`fig4_medians`, with the spread of the authors' curves."""
    f4 = np.array([noisy.fig4_authors(noisy.FIG4_GRID, h, l=l) for h in FIG4_H])
    ledger.compare(
        "fig4-h",
        "Fig. 4: the density of b_max changes only slightly with h (largest over smallest"
        " median of b_max for h = 0, ½, 0.99; Eq. 54 with the exact law)",
        med.max() / med.min(), "<=", 2.0, names=("ratio of medians", "2"),
        note=("the authors' curves (Eq. 53 at b/l, without the order statistic) differ by"
              f" at most {np.ptp(f4, axis=0).max():.3f}"))


#: The column of :func:`cdf_table` that draws the variable Eq. 53 is the law of.
EQ53_MC = "Monte Carlo, (1+h)Y/(1+hY)"
#: Standard errors within which :func:`record_laws` takes a law to match its Monte Carlo.
_LAW_Z = 5.0


def record_laws(ledger, cdf: pd.DataFrame, n_mc: int) -> float:
    """Record ``appF-laws`` from :func:`cdf_table`: the closed-form CDF against the Monte
    Carlo of ``X = b_r`` and Eq. 53's CDF against that of ``(1 + h)Y/(1 + hY)``, at every
    ``t``, each within 5 standard errors ``sqrt(p(1 - p)/n_mc)`` of the law's ``p``.

    Returns
    -------
    float
        The largest gap, in standard errors (``inf`` for a gap where the law gives 0 or 1).
    """
    law = cdf[["closed form", "paper (53)"]].to_numpy()
    mc = cdf[["Monte Carlo", EQ53_MC]].to_numpy()
    gap, se = np.abs(law - mc), np.sqrt(law * (1 - law) / n_mc)
    ledger.compare(
        "appF-laws",
        "App. F.II: the two laws of b_r the chapter computes are those of their variables:"
        " the closed form Φ(ln(t(1 − h)/(1 − ht))/σ̃) that of X = b_r, and Eq. 53's that of"
        " (1 + h)Y/(1 + hY), Y = e^D (σ̃ = 1, h = ½; P[· < t] at t = ½, 1 and 3/2 against"
        f" {n_mc:,} draws of D, within {_LAW_Z:g} s.e.)",
        gap, "<=", _LAW_Z * se, names=("|law − Monte Carlo|", f"{_LAW_Z:g} s.e."))
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(se > 0, gap / se, np.where(gap > 0, np.inf, 0.0))
    return float(z.max())


def record_b_squared(ledger, c6: pd.Series) -> None:
    """Record ``thm1-b-squared`` from :func:`record_thm1`'s errors: with α₃ = 1/8, the
    quadratic coefficient ``b²α₃`` keeps the error within the second-order remainder bound
    ``(|bz − t|)⁴/192`` and Thm. 1's ``bα₃`` does not (Eq. 42: ``f̃⁽ʳ⁾ = bʳ f⁽ʳ⁾``)."""
    bound = float(taylor.remainder_bound(_B * _ZMAX + abs(_T)))
    one, two = c6["b·α₃ (α₃ = 1/8)"], c6["b²·α₃ (α₃ = 1/8)"]
    ledger.condition(
        "thm1-b-squared",
        "Eq. 42: in z the noisy loss's r-th derivative scales with b_jʳ, so with α₃ = 1/8"
        " the quadratic coefficient is b_j² α₃, not Thm. 1's b_j α₃ (largest error at"
        " x = 0.3, b = 2, t = 0.1, |z| ≤ 0.3: with b_j² α₃ within the second-order remainder"
        " bound (|bz − t|)⁴/192, with b_j α₃ above it)",
        np.array([two <= bound, one > bound]),
        evidence={"error with b_j² α₃": two, "error with b_j α₃": one,
                  "remainder bound": bound})
