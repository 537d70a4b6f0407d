"""The chapter's checks of the Taylor expansion: Eqs. 7–12 (the coefficients) and Prop. 1 (the
error bound), each computed here and recorded in the chapter's ledger.

The references are independent of :mod:`~ldp_companion.spof.taylor`: the sympy series of
``sp(z) - x z`` and central differences of ``f₂ = (1 - x) sp(z)``.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import sympy

from ldp_companion.spof import taylor

__all__ = ["sympy_coefficients", "f2_second_difference", "record_eq12", "prop1_table",
           "record_prop1", "record_prop1_factor"]

_FD_STEP = 1e-4   # step of the central differences of f₂


def sympy_coefficients(x: np.ndarray):
    """``α₂(x)`` and ``α₃(x)`` of the sympy series of ``sp(z) - x z`` around ``z = 0``.

    Parameters
    ----------
    x : ndarray
        Targets in [0, 1].

    Returns
    -------
    (ndarray, ndarray)
        The linear and quadratic coefficients, each shaped like ``x``.
    """
    zs, xs = sympy.symbols("z x")
    series = sympy.series(sympy.log(1 + sympy.exp(zs)) - xs * zs, zs, 0, 5).removeO()
    a2, a3 = (sympy.lambdify(xs, series.coeff(zs, k)) for k in (1, 2))
    return a2(x), np.broadcast_to(a3(x), x.shape)


def f2_second_difference(x: np.ndarray, h: float = _FD_STEP) -> np.ndarray:
    """Central second difference of ``f₂(z) = (1 - x) sp(z)`` at ``a = 0`` (Sec. IV, Eq. 9)."""
    def f2(z):
        return (1 - x) * np.logaddexp(0, z)
    return (f2(h) - 2 * f2(0) + f2(-h)) / h**2


def record_eq12(ledger, x: np.ndarray, sym_a2: np.ndarray, sym_a3: np.ndarray) -> None:
    """Record ``eq12-coefficients``, ``eq9-f2-second`` and ``eq12-exact``: the paper's and
    the corrected coefficients (Eq. 12) and ``f₂''`` (Eq. 9) against the references on the
    grid ``x``."""
    _, pap_a2, pap_a3 = taylor.coefficients(x, "paper")
    _, ex_a2, ex_a3 = taylor.coefficients(x, "exact")
    paper_f2pp = taylor.paper_derivatives(x)[3]
    k = len(x)
    ledger.compare(
        "eq12-coefficients",
        "Eq. 12: the second-order coefficient of the loss is α₃ = 0.5x − 0.25 (largest"
        f" difference from the sympy series over {k} values of x in [0, 1])",
        np.abs(pap_a3 - sym_a3).max(), "<=", 1e-9, names=("largest difference", "10⁻⁹"),
        note="the two agree only at x = 0.75; the true α₃ is the constant 1/8")
    ledger.compare(
        "eq9-f2-second",
        "Sec. IV: f₂''(0) = −(1 − x)e⁰/(1 + e⁰)² (largest difference from central"
        f" differences of (1 − x) sp(z), {k} values of x)",
        np.abs(paper_f2pp - f2_second_difference(x)).max(), "<=", 1e-6,
        names=("largest difference", "10⁻⁶"), note="the sign is wrong: f₂'' = +(1 − x)σ'(a)")
    ledger.compare(
        "eq12-exact",
        "The corrected coefficients the training uses (α₂ = ½ − x, α₃ = 1/8) are the sympy"
        f" series' (largest difference over {k} values of x, both coefficients)",
        max(np.abs(ex_a2 - sym_a2).max(), np.abs(ex_a3 - sym_a3).max()), "<=", 1e-12,
        names=("largest difference", "10⁻¹²"),
        note=f"the paper's linear term agrees to {np.abs(pap_a2 - sym_a2).max():.0e}")


def prop1_table(deltas) -> pd.DataFrame:
    """Prop. 1 at each radius ``δ``: the largest error of the paper's polynomial (12) and of
    the exact second-order one over ``|z| ≤ δ`` (at the worst ``x``), the remainder bound
    ``δ⁴/192``, Prop. 1's factor ``e^δ - 1 - δ - δ²/2`` and the smallest ``G`` for which
    Prop. 1's bound ``2G(e^δ - 1 - δ - δ²/2)`` covers the paper polynomial's error."""
    deltas = np.asarray(deltas, dtype=float)
    out = pd.DataFrame(
        {"paper polynomial (12)": [taylor.max_error(d, "paper") for d in deltas],
         "exact 2nd order": [taylor.max_error(d, "exact") for d in deltas],
         "δ⁴/192": taylor.remainder_bound(deltas),
         "e^δ − 1 − δ − δ²/2": np.expm1(deltas) - deltas - deltas**2 / 2},
        index=pd.Index(deltas, name="δ"))
    out["G needed (paper)"] = out["paper polynomial (12)"] / (2 * out["e^δ − 1 − δ − δ²/2"])
    return out


def _peak(derivs, r_max: int) -> float:
    """The largest ``|sp⁽ʳ⁾(0)|`` for ``3 ≤ r ≤ r_max``."""
    return max(abs(float(d)) for d in derivs[3: r_max + 1])


def record_prop1(ledger, prop1: pd.DataFrame, derivs) -> None:
    """Record ``prop1-G``, ``prop1-bound`` and ``taylor-remainder`` from :func:`prop1_table`
    (its first three radii are 10⁻³, 10⁻² and 0.1) and the exact derivatives
    ``sp⁽ʳ⁾(0)``, ``r ≤ 20`` (:func:`~ldp_companion.spof.taylor.softplus_derivatives`)."""
    g_needed = prop1["G needed (paper)"]
    ledger.compare(
        "prop1-G",
        "Prop. 1: one G bounds |f⁽ʳ⁾(0)| for every r ≥ 3 (largest |sp⁽ʳ⁾(0)| for"
        " r ≤ 20 against r ≤ 10, exact rationals)",
        _peak(derivs, 20), "<=", _peak(derivs, 10),
        names=("largest for r ≤ 20", "largest for r ≤ 10"), note=f"sp⁽²⁰⁾(0) = {derivs[20]}")
    ledger.compare(
        "prop1-bound",
        "Prop. 1: a fixed G bounds the error of the polynomial (12) by 2G(e^δ − 1 − δ −"
        " δ²/2) (the G that δ = 10⁻³ and 10⁻² need, against the G at δ = 0.1)",
        g_needed.iloc[:2].to_numpy(), "<=", g_needed.iloc[2],
        names=("G needed", "G at δ = 0.1"),
        note="the needed G grows like 1/δ: the error is of order δ², the bound of order δ³")
    ledger.compare(
        "taylor-remainder",
        "A valid replacement for Prop. 1: the exact second-order polynomial's error is at"
        " most δ⁴/192 (δ from 10⁻³ to 3, up to float round-off)",
        prop1["exact 2nd order"].to_numpy(), "<=", prop1["δ⁴/192"].to_numpy(), atol=1e-15,
        names=("largest error", "δ⁴/192"))


def record_prop1_factor(ledger, prop1: pd.DataFrame) -> None:
    """Record ``prop1-factor`` from :func:`prop1_table`: its column ``e^δ − 1 − δ − δ²/2``
    (Prop. 1's factor, from which the G each δ needs is read) between ``δ³/6`` and
    ``δ³e^δ/6``, at each ``δ > 0`` of the table: Taylor's remainder of ``e^δ`` after the
    quadratic term is ``e^ξ δ³/6`` for some ``0 < ξ < δ`` (Lagrange's form)."""
    delta = prop1.index.to_numpy(dtype=float)
    factor = prop1["e^δ − 1 − δ − δ²/2"].to_numpy()
    low, high = delta**3 / 6, delta**3 * np.exp(delta) / 6
    ok = (low <= factor) & (factor <= high)
    ledger.condition(
        "prop1-factor",
        "Prop. 1's factor e^δ − 1 − δ − δ²/2, from which the table reads the G each δ needs,"
        " is of order δ³: between δ³/6 and δ³e^δ/6 (Taylor's remainder of e^δ in"
        f" Lagrange's form; δ from {delta.min():g} to {delta.max():g})",
        ok, ours=f"{int(ok.sum())} of {ok.size} values of δ within both bounds",
        evidence={"δ": delta, "e^δ − 1 − δ − δ²/2": factor, "δ³/6": low, "δ³e^δ/6": high})
