"""The Laplace mechanism on [-1, 1] (baseline; PM/Three-Outputs paper, introduction, Table I)."""
from __future__ import annotations

import numpy as np

from ldp_companion.mechanisms.base import OutputLaw, ScalarMechanism, sample_from_uniform

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
        return sample_from_uniform(self._from_uniform, x, rng)

    def _from_uniform(self, x, u):
        """Inverse CDF of ``x + Lap(b)`` at ``u``: ``x + b sgn(v) (-ln(1 - |v|))``, ``v = 2u - 1``.

        For numpy's uniforms (multiples of 2^-53) both ``v`` and ``1 - |v|`` are exact, so
        ``ln(1 - |v|)`` is ``ln(2u)`` below 1/2 and ``ln(2 - 2u)`` above, as in numpy's own
        sampler; ``u = 0`` (probability 2^-53) is mapped to ``1 - |v| = 2^-53`` where numpy
        draws again.
        """
        u *= 2.0
        u -= 1.0
        m = np.abs(u)
        np.subtract(1.0, m, out=m)
        np.maximum(m, 2.0**-53, out=m)
        np.log(m, out=m)
        np.copysign(m, u, out=m)
        m *= self.scale
        m += x
        return m

    def _variance(self, x):
        return np.full_like(x, 2.0 * self.scale**2)

    def worst_case_variance(self) -> float:
        return 2.0 * self.scale**2

    def _output_law(self, x):
        b = self.scale

        def logpdf(y):
            return -np.log(2.0 * b) - np.abs(np.asarray(y, float) - x) / b

        return OutputLaw(breakpoints=np.array([x]), support=(-np.inf, np.inf), logpdf=logpdf)
