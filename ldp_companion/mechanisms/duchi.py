"""Duchi et al.'s one-dimensional mechanism (PM/Three-Outputs paper, introduction, Table I)."""
from __future__ import annotations

import numpy as np

from ldp_companion.mechanisms.base import OutputLaw, ScalarMechanism, sample_from_uniform

__all__ = ["Duchi", "plus_minus"]


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
        return sample_from_uniform(self._from_uniform, x, rng)

    def _from_uniform(self, x, u):
        """``+C`` if ``u < P(Y = +C | x)``, else ``-C``."""
        return plus_minus(u < self.prob_plus(x), self.C)


    def _variance(self, x):
        return self.C**2 - x**2

    def worst_case_variance(self) -> float:
        return self.C**2

    def _output_law(self, x):
        p = float(self.prob_plus(x))
        return OutputLaw.discrete([-self.C, self.C], [1.0 - p, p])


def plus_minus(plus: np.ndarray, c: float) -> np.ndarray:
    """``+c`` where ``plus`` is True, ``-c`` elsewhere (float64; faster than ``np.where``)."""
    y = plus.astype(np.float64)
    y *= 2.0 * c
    y -= c
    return y
