"""Deliberately broken versions of correct mechanisms, for teaching and for testing audits.

Each mutant keeps the claimed ``epsilon`` of the mechanism it breaks; its docstring gives
its true epsilon. The privacy auditor (:mod:`ldp_companion.auditing.audit`) must flag every one.
"""
from __future__ import annotations

import numpy as np

from ldp_companion.mechanisms.base import OutputLaw
from ldp_companion.mechanisms.duchi import Duchi
from ldp_companion.mechanisms.laplace import Laplace

__all__ = ["DuchiWrongConstant", "DuchiSignError", "LaplaceHalfScale", "LaplaceScaleShort",
           "LaplaceOneSided", "MUTANTS"]


class DuchiWrongConstant(Duchi):
    """``e^eps`` where ``e^eps + 1`` belongs in ``P(+C | x)``; true eps = log(2 e^eps - 1)."""

    def prob_plus(self, x):
        e = np.exp(self.epsilon)
        return 0.5 + (e - 1.0) * np.asarray(x, float) / (2.0 * e)


class DuchiSignError(Duchi):
    """``e^eps - 1`` where ``e^eps + 1`` belongs: ``P(+C | x) = (1 + x) / 2``; true eps = inf."""

    def prob_plus(self, x):
        e = np.exp(self.epsilon)
        return 0.5 + (e - 1.0) * np.asarray(x, float) / (2.0 * (e - 1.0))


class LaplaceHalfScale(Laplace):
    """Noise scale halved, ``1 / eps`` -- the same as taking the sensitivity of [-1, 1]
    to be 1 instead of 2. True eps = 2 eps."""

    @property
    def scale(self):
        return 1.0 / self.epsilon


class LaplaceScaleShort(Laplace):
    """Noise scale 10 % too small (a subtle bug); true eps = eps / 0.9."""

    @property
    def scale(self):
        return 0.9 * 2.0 / self.epsilon


class LaplaceOneSided(Laplace):
    """Inverse-CDF sampling that drops ``sign(u)``: the noise is ``Exp(b) >= 0``, so the
    output is at least ``x``; true eps = inf."""

    def _privatize(self, x, rng):
        u = rng.random(x.shape) - 0.5
        return x - self.scale * np.log1p(-2.0 * np.abs(u))   # correct: * np.sign(u)

    def _output_law(self, x):
        b = self.scale

        def logpdf(y):
            y = np.asarray(y, float)
            return np.where(y >= x, -np.log(b) - (y - x) / b, -np.inf)

        return OutputLaw(breakpoints=np.array([x]), support=(x, np.inf), logpdf=logpdf)


#: (mutant class, its true epsilon as a function of the claimed one)
MUTANTS = [
    (DuchiWrongConstant, lambda e: np.log(2 * np.exp(e) - 1)),
    (DuchiSignError, lambda e: np.inf),
    (LaplaceHalfScale, lambda e: 2 * e),
    (LaplaceScaleShort, lambda e: e / 0.9),
    (LaplaceOneSided, lambda e: np.inf),
]
