"""The Laplace mechanism on [-1, 1] (baseline; brief of the PM/Three-Outputs paper, §2.1)."""
from __future__ import annotations

import numpy as np

from ldp_companion.mechanisms.base import OutputLaw, ScalarMechanism

__all__ = ["Laplace"]


class Laplace(ScalarMechanism):
    """``Y = x + Lap(2 / epsilon)``: the sensitivity of [-1, 1] is 2.

    ``Var[Y | x] = 8 / epsilon**2`` for every ``x``.
    """

    name = "laplace"

    @property
    def scale(self) -> float:
        """Laplace scale ``b = 2 / epsilon``."""
        return 2.0 / self.epsilon

    def _privatize(self, x, rng):
        return x + rng.laplace(0.0, self.scale, size=x.shape)

    def _variance(self, x):
        return np.full_like(x, 2.0 * self.scale**2)

    def worst_case_variance(self) -> float:
        return 2.0 * self.scale**2

    def _output_law(self, x):
        b = self.scale

        def logpdf(y):
            return -np.log(2.0 * b) - np.abs(np.asarray(y, float) - x) / b

        return OutputLaw(breakpoints=np.array([x]), support=(-np.inf, np.inf), logpdf=logpdf)
