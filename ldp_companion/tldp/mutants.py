"""Deliberate bugs in what chapter 1's claims rest on (see :mod:`ldp_companion.verdicts.mutation`).

``benchmarks/mutants.py tldp`` runs the chapter at ``smoke`` once as written and once per
mutant; each must flip at least one verdict of the page: a claim about the paper, or a check of
the package against a value derived independently of it (the paper's formulas, a Monte Carlo).
"""
from __future__ import annotations

import math

from ldp_companion.verdicts.mutation import Mutant, scaled

__all__ = ["MUTANTS"]


def _one_noise(which: str, factor: float):
    """``make`` for :func:`ldp_companion.tldp.algorithm._noise_scale` (behind
    :func:`~ldp_companion.tldp.algorithm.noise_scale` and TLDP itself) returning ``factor``
    times the scale of one noise type only."""
    def make(original):
        def mutant(value_range, epsilon, noise: str = "laplace"):
            scale = original(value_range, epsilon, noise)
            return factor * scale if noise == which else scale
        return mutant
    return make


def _plus_weight(original):
    """Alg. 2 with the weight's sign flipped: ``(1 + w) p`` for ``(1 − w) p``."""
    def mutant(p, w):
        return (1.0 + w) * p
    return mutant


def _per_entry_baseline(original):
    """The Laplace baseline calibrated to one entry (``b = Δ/ε``) instead of the whole
    tensor (``b₁ = IΔ/ε``, Thm. 2 Eq. 6)."""
    def mutant(x, epsilon, value_range, *, rng, calibration: str = "l1", batched: bool = False):
        return original(x, epsilon, value_range, rng=rng, batched=batched,
                        calibration="entry" if calibration == "l1" else calibration)
    return mutant


def _gaussian_at_4eps(original):
    """The Gaussian baseline calibrated at 4ε: ``σ₁ = Δ√(I/2ε)`` halved (Thm. 2 Eq. 8)."""
    def mutant(x, epsilon, value_range, *, rng, calibration: str = "zcdp", delta: float = 1e-5,
               batched: bool = False):
        return original(x, 4.0 * epsilon, value_range, rng=rng, calibration=calibration,
                        delta=delta, batched=batched)
    return mutant


def _tldp_l_error_without_sqrt2(original):
    """Table V's TLDP-L entry typed as ``(Δ/ε)√((1 − p)I)``: Eq. 22's factor √2 dropped."""
    def mutant(mechanism, shape, value_range, epsilon, delta=1e-5):
        value = original(mechanism, shape, value_range, epsilon, delta)
        return value / math.sqrt(2.0) if mechanism == "tldp_l" else value
    return mutant


MUTANTS = [
    Mutant("tldp-laplace-scale-half", "TLDP-L's Laplace scale b = Δ/ε halved (Alg. 1)",
           "ldp_companion.tldp.algorithm:_noise_scale", _one_noise("laplace", 0.5)),
    Mutant("tldp-gauss-sigma-half", "TLDP-G's Gaussian σ = Δ/√(2ε) halved (Alg. 1)",
           "ldp_companion.tldp.algorithm:_noise_scale", _one_noise("gaussian", 0.5)),
    Mutant("alg2-weight-sign", "Alg. 2 keeps an entry with (1 + w)p instead of (1 − w)p",
           "ldp_companion.tldp.algorithm:_weighted_retain_prob", _plus_weight),
    Mutant("laplace-baseline-per-entry",
           "The Laplace baseline's scale Δ/ε (one entry) instead of IΔ/ε (the whole tensor)",
           "ldp_companion.tensor.additive:laplace_mechanism", _per_entry_baseline),
    Mutant("gaussian-baseline-sigma-half",
           "The Gaussian baseline's σ₁ = Δ√(I/2ε) halved (calibrated at 4ε)",
           "ldp_companion.tensor.additive:gaussian_mechanism", _gaussian_at_4eps),
    Mutant("idn-c-half", "IDN's c = −ζ + √(ζ² + 2ε) halved, so its noise σ = s₂/c doubles",
           "ldp_companion.tensor.calibration:idn_c", scaled(0.5)),
    Mutant("table5-tldp-l-no-sqrt2", "Table V's TLDP-L error typed without Eq. 22's factor √2",
           "ldp_companion.tldp.error:paper_error", _tldp_l_error_without_sqrt2),
    Mutant("tldp-g-mu-half", "The accounting of TLDP-G with μ = √(2Iε)·d/Δ halved",
           "ldp_companion.tldp.privacy:gaussian_mu", scaled(0.5)),
    Mutant("mvg-sigma-tenth", "The MVG baseline's σ = (√(mn)/B_MVG)^½ ten times too small",
           "ldp_companion.tensor.calibration:mvg_iid_sigma", scaled(0.1)),
]
