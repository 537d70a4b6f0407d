"""Appendix C's exercise and its answer, computed by the package (see
:mod:`ldp_companion.page.exercises`). Labels are the ``{exercise}`` labels of the page."""
from __future__ import annotations

import math

from ldp_companion.compare.catalogue import noise_sigma
from ldp_companion.page.exercises import ExerciseSet
from ldp_companion.tensor.calibration import gaussian_epsilon

__all__ = ["EXERCISES"]

EXERCISES = ExerciseSet("C-compare")


def _idn_true() -> dict:
    """IDN at ε = 1, δ = 10⁻⁵ on a CIFAR-sized (32×32×3) tensor of range 256: the ratio μ of
    its ℓ2 sensitivity to its noise's standard deviation, and the ε it spends at that δ."""
    shape, value_range, delta = (32, 32, 3), 256.0, 1e-5
    mu = value_range * math.sqrt(3072) / noise_sigma("idn", 1.0, shape, value_range, delta)
    return {"mu": mu, "eps_true": gaussian_epsilon(mu, delta)}


EXERCISES.add("compare-ex-idn", "audit", _idn_true, rtol=1e-6)
