"""Duchi et al.'s one-dimensional mechanism (brief of the PM/Three-Outputs paper, §2.2)."""
from __future__ import annotations

import numpy as np

from ldp_companion.mechanisms.base import OutputLaw, ScalarMechanism

__all__ = ["Duchi"]


class Duchi(ScalarMechanism):
    """Outputs ``±C`` with ``C = (e^eps + 1) / (e^eps - 1)``.

    ``P(Y = C | x) = 1/2 + (e^eps - 1) x / (2 (e^eps + 1))``; ``Var[Y | x] = C**2 - x**2``,
    largest at ``x = 0``.
    """

    name = "duchi"

    @property
    def C(self) -> float:
        """Output magnitude ``(e^eps + 1) / (e^eps - 1)``."""
        return 1.0 / np.tanh(self.epsilon / 2.0)

    def prob_plus(self, x):
        """``P(Y = +C | x)``."""
        return 0.5 + 0.5 * np.asarray(x, float) / self.C

    def _privatize(self, x, rng):
        plus = rng.random(x.shape) < self.prob_plus(x)
        return np.where(plus, self.C, -self.C)

    def _variance(self, x):
        return self.C**2 - x**2

    def worst_case_variance(self) -> float:
        return self.C**2

    def _output_law(self, x):
        p = float(self.prob_plus(x))
        return OutputLaw.discrete([-self.C, self.C], [1.0 - p, p])
