"""Deliberate bugs in the code chapter 4's claims rest on (:mod:`ldp_companion.verdicts.mutation`).

Each mutant changes one constant, sign or factor of a function the training and the checks
both call: the sensitivities and the Laplace scale of Alg. 1 and Alg. 2
(:mod:`~ldp_companion.spof.sensitivity`), the Taylor coefficients
(:mod:`~ldp_companion.spof.taylor`), the training step's Laplace draws and its clipping
(:mod:`~ldp_companion.spof.train`). ``benchmarks/mutants.py spof`` runs the chapter at ``smoke``
with each and lists the verdicts it flips.
"""
from __future__ import annotations

from ldp_companion.verdicts.mutation import Mutant, scaled

__all__ = ["MUTANTS"]


def _alpha3_negated(original):
    """``taylor.coefficients`` with the sign of α₃ flipped (both coefficient sets)."""
    def coefficients(x, variant="paper"):
        a1, a2, a3 = original(x, variant)
        return a1, a2, -a3
    return coefficients


def _stabilization_dropped(original):
    """``Δ̂ = b_j Δ̄``: Prop. 3's stabilization term ``n c_j (c_j/2 + 2)`` left out."""
    def delta_hat(n, c_j, b_j):
        return original(n, 0.0 * c_j, b_j)
    return delta_hat


def _clip_at_twice(original):
    """Eq. 15 with the threshold ``2C`` instead of ``C``."""
    def clip(g, c):
        return original(g, 2.0 * c)
    return clip


MUTANTS = [
    Mutant("spof-scale-half", "SPOF's Laplace scale per coefficient (Alg. 1, Step 5) halved",
           "ldp_companion.spof.sensitivity:_laplace_scale", scaled(0.5)),
    Mutant("delta-bar-double", "the coefficients' sensitivity Δ̄ = 3n instead of 3n/2 (App. B.I)",
           "ldp_companion.spof.sensitivity:delta_bar", scaled(2.0)),
    Mutant("stabilization-dropped", "Prop. 3's stabilization term n c_j (c_j/2 + 2) left out "
           "of Δ̂", "ldp_companion.spof.sensitivity:_delta_hat", _stabilization_dropped),
    Mutant("delta-sgd-double", "DP-SGD's sensitivity ΔSGD doubled (2n unclipped, 4nC "
           "clipped; App. B.II)", "ldp_companion.spof.sensitivity:_delta_sgd", scaled(2.0)),
    Mutant("alpha3-sign", "the sign of the quadratic Taylor coefficient α₃ flipped (Eq. 12)",
           "ldp_companion.spof.taylor:coefficients", _alpha3_negated),
    Mutant("laplace-draws-half", "the training step's unit Laplace draws at half scale",
           "ldp_companion.spof.train:_laplace", scaled(0.5)),
    Mutant("clip-threshold-double", "DP-SGD clips the logit gradient at 2C instead of C "
           "(Eq. 15)", "ldp_companion.spof.train:_clip", _clip_at_twice),
]
