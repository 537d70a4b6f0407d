"""The chapter's checks of the sensitivities, recorded in its ledger: SPOF's Δ̄ and Δ̂ (App. B.I,
Prop. 3, App. D), DP-SGD's ΔSGD, clipping and noise (App. B.II, Alg. 2, Eq. 15) and Fig. 6's.

Brute force (Def. 2) is the reference throughout: the coefficients are linear in each
feature, so a fine grid of values per feature reaches the supremum
(:func:`~ldp_companion.spof.sensitivity.empirical_sensitivity`).
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy.optimize import minimize_scalar

from ldp_companion.auditing.montecarlo import estimated_scale
from ldp_companion.page.plotting import tick_text
from ldp_companion.spof import sensitivity, taylor, train

__all__ = ["shifted_coefficients", "brute_sensitivities", "prop3_table", "record_delta",
           "record_alg2", "clipping_properties", "eq57", "fig6_table", "fig6_facts", "record_fig6",
           "A_GRID", "FIG6_ROWS", "APP_H", "record_clip_looseness", "record_app_h"]

#: App. H's range of expansion points a.
A_GRID = np.linspace(-2, 10, 1201)
#: The expansion points the Fig. 6 table shows.
FIG6_ROWS = [-2.0, -1.0, 0.0, 0.5, 1.0, 2.0, 5.0, 10.0]
_CLIP_SAMPLE = 1000     # random gradients of the Eq. 15 check
_CLIP_ATOL = 1e-9       # how exactly each property of the clipping must hold
_X_POINTS = 101         # values of x Eq. 57 is maximised over


def _paper_coef(x):
    return taylor.coefficients(x, "paper")[1:]


def shifted_coefficients(c: float):
    """The coefficients of the paper's polynomial in the shifted logit ``z + c`` (App. D,
    corrected): ``(α₂ c + α₃ c², α₂ + 2cα₃, α₃)`` as a function of the record ``x``."""
    def coef(x):
        a2, a3 = _paper_coef(x)
        return a2 * c + a3 * c**2, a2 + 2 * c * a3, a3
    return coef


def brute_sensitivities(n: int, c: float) -> dict:
    """Brute-force L1 sensitivities (Def. 2) of one record's released coefficients, ``n``
    features: ``"paper"`` (α₂, α₃ of Eq. 12), ``"sum"`` (α₂ + α₃, Prop. 2), ``"exact"``
    (α₂, α₃ = 1/8) and ``"shifted"`` (the polynomial shifted by ``c``)."""
    es = sensitivity.empirical_sensitivity
    return {"paper": es(_paper_coef, n),
            "sum": es(lambda x: (sum(_paper_coef(x)),), n),
            "exact": es(lambda x: taylor.coefficients(x, "exact")[1:], n),
            "shifted": es(shifted_coefficients(c), n)}


def prop3_table(n: int, l: int, c_grid) -> pd.DataFrame:
    """Prop. 3's ``Δ̂`` at three readings of ``c_j`` (``c``, ``c·l/2`` at ``h = ½``, the worst
    ``l·c``) and the brute-force sensitivity of the shifted coefficients, per ``c``."""
    c = np.asarray(c_grid, dtype=float)
    return pd.DataFrame(
        {"c_j = c": sensitivity.delta_hat(n, list(c_grid)),
         "c_j = c·l/2 (h = ½)": sensitivity.delta_hat(n, c * l / 2),
         "c_j = l·c (worst)": sensitivity.delta_hat(n, c * l),
         "brute force, c_j = c": [sensitivity.empirical_sensitivity(shifted_coefficients(v), n)
                                  for v in c_grid]},
        index=pd.Index(c_grid, name="c"))


def record_delta(ledger, brute: dict, prop3: pd.DataFrame, n: int, c: float) -> None:
    """Record ``appB-delta-bar``, ``prop3-bound`` and ``appD-linear`` from
    :func:`brute_sensitivities` and :func:`prop3_table` (its last row is ``c``)."""
    ledger.close(
        "appB-delta-bar",
        f"App. B.I: the coefficients' L1 sensitivity is Δ̄ = 3n/2 = 21 (brute force over"
        f" records, n = {n})",
        sensitivity.delta_bar(n), brute["paper"], atol=1e-9)
    ledger.compare(
        "prop3-bound",
        "Prop. 3: Δ̂ = Δ̄ + n c_j (c_j/2 + 2) bounds the sensitivity of the stabilized"
        " coefficients (brute force, c from 0 to 2.5)",
        prop3["brute force, c_j = c"].to_numpy(), "<=", prop3["c_j = c"].to_numpy(),
        rtol=1e-12, names=("brute force", "Δ̂"),
        note=f"at c = {c:g}: {brute['shifted']:.2f} against Δ̂ = {prop3.iloc[-1, 0]:.2f}")
    x01 = np.array([0.0, 1.0])
    ledger.close(
        "appD-linear",
        "App. D: the linear coefficient of α₂(z + c) + α₃(z + c)² is α₂(1 + 2c) (x = 0"
        f" and 1, c = {c:g})",
        _paper_coef(x01)[0] * (1 + 2 * c),        # App. D's linear coefficient
        shifted_coefficients(c)(x01)[1],
        atol=1e-12, note="it is α₂ + 2cα₃; the bound Δ̂ built on it stays valid")


def _random_gradients(n: int, clip: float, rng) -> np.ndarray:
    """Random gradients with norms uniform on [0, 3C] (two draws from ``rng``)."""
    g = rng.normal(size=(_CLIP_SAMPLE, n))
    g *= rng.uniform(0, 3 * clip, (_CLIP_SAMPLE, 1)) / np.linalg.norm(g, axis=1, keepdims=True)
    return g


def clipping_properties(g: np.ndarray, clipped: np.ndarray, clip: float) -> dict[str, float]:
    """The properties that make ``clipped`` the projection of each row of ``g`` onto the ℓ2
    ball of radius ``clip`` (Eq. 15), each as a largest violation (0 when it holds): norm
    above C, angle off g (1 − cosine), change of a row inside the ball, and norm short of C
    for a row outside it (relative to C)."""
    norm, out = np.linalg.norm(g, axis=1), np.linalg.norm(clipped, axis=1)
    inside = norm <= clip
    cos = np.einsum("ij,ij->i", g, clipped) / np.maximum(norm * out, 1e-300)
    return {"norm above C": float(np.max(out - clip, initial=0.0) / clip),
            "1 − cosine": float(np.max(1 - cos[norm > 0], initial=0.0)),
            "change inside the ball": float(np.abs(clipped - g)[inside].max(initial=0.0) / clip),
            "norm short of C outside": float(np.max(clip - out[~inside], initial=0.0) / clip)}


def record_alg2(ledger, n: int, clip: float, setup, eps: float, draws: int, rng) -> None:
    """Record ``appB2-delta-sgd``, ``appB2-delta-sgd-clipped``, ``alg2-clip-eq15`` and
    ``alg2-noise-scale``: the training's ΔSGD, clipping (Eq. 15) and noise against brute
    force and the paper's values typed in (App. B.II), ``draws`` noisy releases each."""
    sig0 = 1 / (1 + math.exp(-0.0))  # σ(a) at the expansion point a = 0 (Eq. 14)
    ledger.close(
        "appB2-delta-sgd",
        "App. B.II: DP-SGD's sensitivity is n unclipped at a = 0 (the training's ΔSGD"
        " against brute force over records of Eq. 14's gradient σ(0) − x)",
        sensitivity.empirical_sensitivity(lambda x: (sig0 - x,), n), sensitivity.delta_sgd(n),
        rtol=1e-12)
    ends = train.clip_gradients(np.array([[10 * clip] * n, [-10 * clip] * n]), clip)
    ledger.compare(
        "appB2-delta-sgd-clipped",
        "App. B.II: 2nC bounds the L1 distance of two clipped gradients (the training's"
        " Eq. 15 and ΔSGD; opposite gradients along (1, …, 1), the largest distance)",
        np.abs(ends[0] - ends[1]).sum(), "<=", sensitivity.delta_sgd(n, clipped=True, clip=clip),
        rtol=1e-12, names=("largest L1 distance", "2nC"),
        note=f"valid but loose, by a factor √n = {math.sqrt(n):.3g}")
    g = _random_gradients(n, clip, rng)
    found = clipping_properties(g, train.clip_gradients(g, clip), clip)
    ledger.condition(
        "alg2-clip-eq15",
        "The training's clipping is Eq. 15's projection onto the ball of radius C: every"
        " clipped gradient has norm ≤ C, points where the gradient points, and is the"
        f" gradient itself when its norm is ≤ C, of norm C otherwise ({_CLIP_SAMPLE:,} random"
        f" gradients with norms up to 3C; each property to {tick_text(_CLIP_ATOL)})",
        np.array(max(found.values()) <= _CLIP_ATOL), evidence=found)
    b_big = 4 * clip / math.sqrt(n)  # b_j·σ(0)·√n = 2C: clipped
    nu = [train.gradient_noise(eps, draws, rng, setup=setup, b=b) for b in (1.0, b_big)]
    est, se = np.array([estimated_scale(v) for v, _ in nu]).T
    ledger.close(
        "alg2-noise-scale",
        "The training's DP-SGD step adds Lap(ΔSGD/ε) per feature, 2n/ε below C (twice"
        " App. B.II's n: the book takes the gradient at the current logit, which moves with"
        " the record) and 2nC/ε above (mean |noise| of"
        f" {draws:,} releases of a gradient at a = 0, unclipped and clipped; ε = 1)",
        np.array([2 * n * 2 * sig0, 2 * n * clip]) / eps,  # 2 Σᵢ 2e⁰/(1 + e⁰) = 2n; 2nC
        est, rtol=5 * (se / est).max(),
        note=f"share clipped: {nu[0][1].mean():g} and {nu[1][1].mean():g}")


def eq57(a: np.ndarray) -> np.ndarray:
    """Eq. 57 maximised over :data:`_X_POINTS` values of ``x``: twice the largest |value| +
    |slope| + |curvature| of one feature's expansion around ``a``."""
    xs = np.linspace(0, 1, _X_POINTS)[:, None]
    return 2 * (
        np.abs(xs * np.logaddexp(0, -a) + (1 - xs) * np.logaddexp(0, a))
        + np.abs(1 / (1 + np.exp(-a)) - xs)
        + np.abs(np.exp(a) / (1 + np.exp(a)) ** 2)
    ).max(axis=0)


def fig6_table(a: np.ndarray = A_GRID) -> pd.DataFrame:
    """Fig. 6's curves against the expansion point ``a``: SPOF's per-feature sensitivity as
    printed (Eq. 58) and corrected, DP-SGD's unclipped (Eq. 64) and corrected."""
    return pd.DataFrame(
        {"paper (58)": sensitivity.spof_feature_paper(a),
         "corrected": sensitivity.spof_feature_corrected(a),
         "DP-SGD unclipped (64)": sensitivity.sgd_feature_paper(a),
         "DP-SGD unclipped, corrected": sensitivity.sgd_feature_corrected(a)},
        index=pd.Index(a, name="a"))


def fig6_facts(fig6: pd.DataFrame, clip: float) -> dict:
    """What Fig. 6's text reads off :func:`fig6_table`: the minimisers of Eq. 58 and of the
    corrected expression (bounded search on App. H's range), SPOF's smallest corrected value,
    DP-SGD's largest unclipped one, and the range of ``a`` where Eq. 58 is below ``2C``."""
    lo, hi = float(fig6.index.min()), float(fig6.index.max())
    below = fig6.index.to_numpy()[fig6["paper (58)"] < 2 * clip]
    return {"a_min_paper": minimize_scalar(sensitivity.spof_feature_paper, bounds=(lo, hi)).x,
            "a_min_corrected": minimize_scalar(sensitivity.spof_feature_corrected,
                                               bounds=(lo, hi)).x,
            "spof_min": fig6["corrected"].min(),
            "sgd_max": fig6["DP-SGD unclipped, corrected"].max(),
            "below_2c": (below.min(), below.max()), "two_c": 2 * clip}


def record_fig6(ledger, fig6: pd.DataFrame, facts: dict) -> None:
    """Record ``fig6-eq58``, ``fig6-minimum`` and ``fig6-vs-sgd`` from :func:`fig6_table`
    and :func:`fig6_facts`."""
    a = fig6.index.to_numpy()
    ref = eq57(a)
    lo, hi = facts["below_2c"]
    ledger.compare(
        "fig6-eq58",
        "App. H, Eq. 58: SPOF's per-feature sensitivity as a function of a (largest"
        f" relative difference from Eq. 57 maximised over {_X_POINTS} values of x, a from"
        f" {A_GRID[0]:g} to {A_GRID[-1]:g})",
        (np.abs(fig6["paper (58)"] - ref) / ref).max(), "<=", 1e-3,
        names=("largest relative difference", "10⁻³"),
        note=(f"at a = 0: (58) gives {sensitivity.spof_feature_paper(0.0):.3f}, the maximum"
              f" {ref[np.argmin(np.abs(a))]:.3f}; the corrected closed form matches it"
              f" to {np.abs(fig6['corrected'] - ref).max():.0e}"))
    ledger.compare(
        "fig6-minimum",
        "Fig. 6, App. H: SPOF's sensitivity is smallest near a = 0 (minimiser of the"
        " corrected expression, which equals Eq. 57's maximum)",
        abs(facts["a_min_corrected"]), "<=", 0.01, names=("|minimiser|", "0.01"),
        note=f"Eq. 58 as printed is smallest at a = {facts['a_min_paper']:.3f}")
    ledger.condition(
        "fig6-vs-sgd",
        "Fig. 6: SPOF's per-feature sensitivity is below DP-SGD's in some settings of a"
        " (corrected expressions, a from −2 to 10; against DP-SGD unclipped and clipped)",
        np.array([facts["spof_min"] < facts["sgd_max"], facts["spof_min"] < facts["two_c"]]),
        evidence={"SPOF's smallest": facts["spof_min"],
                  "DP-SGD unclipped, largest": facts["sgd_max"],
                  "DP-SGD clipped, 2C": facts["two_c"]},
        note=f"(58) is below the clipped 2C for a in [{lo:.2f}, {hi:.2f}]; never below the"
             " unclipped bound")


def record_clip_looseness(ledger, n: int, clip: float) -> float:
    """Record ``appB2-clipped-loose``: App. B.II's clipped ΔSGD = 2nC, as the training's
    :func:`~ldp_companion.spof.sensitivity.delta_sgd` gives it, over the largest L1 distance
    of two gradients clipped by the training's Eq. 15 (opposite gradients along
    ``(1, …, 1)``: ``2C√n``, the most Cauchy–Schwarz allows) is ``√n``.

    Returns
    -------
    float
        The measured ratio.
    """
    ends = train.clip_gradients(np.array([[10 * clip] * n, [-10 * clip] * n]), clip)
    largest = np.abs(ends[0] - ends[1]).sum()
    bound = sensitivity.delta_sgd(n, clipped=True, clip=clip)
    ratio = float(bound / largest)
    ledger.condition(
        "appB2-clipped-loose",
        f"App. B.II's clipped ΔSGD = 2nC is loose by exactly √n (n = {n}): over the largest"
        " L1 distance of two clipped gradients (the training's ΔSGD and Eq. 15; opposite"
        " gradients along (1, …, 1), 2C√n by Cauchy–Schwarz) it is √n",
        np.isclose(ratio, math.sqrt(n), rtol=1e-12, atol=0.0),
        evidence={"2nC": bound, "largest L1 distance": largest, "ratio": ratio,
                  "√n": math.sqrt(n)})
    return ratio


#: App. H's numbers for Eq. 58 as printed (its paragraph on Fig. 6, four decimals): within
#: Fig. 6's range of a, its minimiser and minimum, and its value at a = 0.
APP_H = {"a at the minimum": 0.9057, "minimum": 4.0348, "value at a = 0": 4.6931}


def record_app_h(ledger, facts: dict) -> None:
    """Record ``fig6-app-h`` from :func:`fig6_facts`: App. H's minimiser, minimum and value
    at ``a = 0`` of Eq. 58 (:data:`APP_H`) against Eq. 58 as the package prints it, within
    half a unit of the fourth decimal."""
    a_min = facts["a_min_paper"]
    ours = [a_min, *sensitivity.spof_feature_paper(np.array([a_min, 0.0]))]
    ledger.close(
        "fig6-app-h",
        f"App. H: within Fig. 6's range of a, Eq. 58 is smallest, ≈ {APP_H['minimum']:.4f},"
        f" at a ≈ {APP_H['a at the minimum']:.4f}, and ≈ {APP_H['value at a = 0']:.4f} at"
        " a = 0 (Eq. 58 as printed, minimised by a bounded search on a from −2 to 10)",
        np.array(list(APP_H.values())), np.array(ours, dtype=float), atol=5e-5,
        note="Eq. 58 itself is not the sensitivity (fig6-eq58); these are its values")
