"""Deliberate bugs in the code chapter 2's claims rest on (see
:mod:`ldp_companion.verdicts.mutation`): each must change at least one verdict on the chapter's page
(``benchmarks/mutants.py tvg``)."""
from __future__ import annotations

import math

import numpy as np

from ldp_companion.verdicts.mutation import Mutant, scaled

__all__ = ["MUTANTS"]


def _zeta_without_cross_term(original):
    """Lemma 3's ζ(δ) with the term ``2√(−I ln δ)`` dropped."""
    def zeta(size, delta):
        return math.sqrt(-2.0 * math.log(delta) + int(size))
    return zeta


def _gauss_paper_quarter(original):
    """``entry_std`` with the paper's Gaussian baseline at a quarter of its σ."""
    def entry_std(mechanism, *args, **kwargs):
        out = original(mechanism, *args, **kwargs)
        return 0.25 * out if mechanism == "gauss_paper" else out
    return entry_std


def _alg1_exponent_flipped(original):
    """Alg. 1's ``σᵢ² ∝ 1/√Pᵢ`` with the sign of the exponent flipped (``∝ √Pᵢ``), still
    meeting ``Σ σᵢ⁻² = B``."""
    def alg1_variances(p, bound, p_floor=1e-12):
        inv = 1.0 / np.sqrt(np.maximum(np.asarray(p, float), p_floor * np.max(p)))
        return inv.sum() / (inv * bound)
    return alg1_variances


def _analytic_double(original):
    """``gaussian_sigma`` with the analytic calibration's σ doubled (the others untouched)."""
    def gaussian_sigma(l2_sensitivity, epsilon, delta=1e-5, method="zcdp"):
        out = original(l2_sensitivity, epsilon, delta, method)
        return 2.0 * out if method == "analytic" else out
    return gaussian_sigma


def _iid_release_half(original):
    """``iid_release`` drawing half the noise its calibration states (a release that ignores
    its σ)."""
    def iid_release(mechanism, x, *args, **kwargs):
        x = np.asarray(x, float)
        return x + 0.5 * (original(mechanism, x, *args, **kwargs) - x)
    return iid_release


MUTANTS = [
    Mutant("idn-scale-half", "IDN's noise standard deviation halved (Theorem 3's B_IDN × 4)",
           "ldp_companion.tvg.bounds:_idn_budget", scaled(4.0)),
    Mutant("budget-times-4", "Theorems 1–2's bound B four times too large (TVG and UDN noise "
           "std halved)", "ldp_companion.tvg.bounds:_budget", scaled(4.0)),
    Mutant("zeta-no-cross-term", "Lemma 3's ζ(δ)² without its 2√(−I ln δ) term",
           "ldp_companion.tensor.calibration:zeta", _zeta_without_cross_term),
    Mutant("gauss-paper-quarter", "the paper's Gaussian baseline at a quarter of its σ",
           "ldp_companion.tvg.noise:entry_std", _gauss_paper_quarter),
    Mutant("alg1-exponent-sign", "Alg. 1's variances σᵢ² ∝ √Pᵢ instead of 1/√Pᵢ (sign of the "
           "exponent)", "ldp_companion.tvg.optimal:alg1_variances", _alg1_exponent_flipped),
    Mutant("mvg-sigma-tenth", "The i.i.d. MVG's σ = (√(mn)/B_MVG)^½ ten times too small (the "
           "MVG of chapters 1 and C)", "ldp_companion.tensor.calibration:mvg_iid_sigma",
           scaled(0.1)),
    Mutant("mvg-budget-times-4", "Eq. 30's B_MVG four times too large (every MVG noise std "
           "halved)", "ldp_companion.tensor.calibration:mvg_budget", scaled(4.0)),
    Mutant("mvg-precision-double", "Type III MVG's binary allocation with every precision "
           "doubled (σᵢ divided by √2)", "ldp_companion.tvg.release:mvg_binary_precisions",
           scaled(2.0)),
    Mutant("gauss-analytic-double", "The analytic Gaussian calibration's σ doubled",
           "ldp_companion.tensor.calibration:gaussian_sigma", _analytic_double),
    Mutant("iid-release-half", "iid_release draws half the noise its calibration states",
           "ldp_companion.tvg.release:iid_release", _iid_release_half),
]
