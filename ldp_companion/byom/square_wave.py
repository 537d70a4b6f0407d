"""The package's reference Square Wave (Li et al. 2020), debiased for the mean.

Appendix B's page has the reader write Square Wave in the notebook; that class is the reader's
own code and stays there. This reference is the same mechanism written once more from the
closed forms of Sec. B.1, for the pages that need it without the notebook (appendix C's table
of true ε and its utility comparison). It is not registered: callers construct it.

On ``v = (x + 1)/2``, the raw output ``ỹ ∈ [−b, 1 + b]`` has density ``p`` on the window
``|ỹ − v| ≤ b`` and ``q`` elsewhere, ``b`` Li et al.'s half-width, ``p = e^ε/(2be^ε + 1)``,
``q = 1/(2be^ε + 1)``; the reported ``Y`` is the affine map of ``ỹ`` with ``E[Y | x] = x``.
"""
from __future__ import annotations

import numpy as np

from ldp_companion.byom.exercises import li_half_width
from ldp_companion.mechanisms.base import OutputLaw, ScalarMechanism

__all__ = ["SquareWave"]


class SquareWave(ScalarMechanism):
    """Square Wave on [-1, 1], debiased for the mean (reference implementation)."""

    name = "square_wave"
    label = "Square Wave"

    def __init__(self, epsilon: float):
        super().__init__(epsilon)
        e = np.exp(self.epsilon)
        self.b = li_half_width(self.epsilon)
        self.p = e / (2 * self.b * e + 1)
        self.q = 1 / (2 * self.b * e + 1)
        self._gain = 2 * self.b * (self.p - self.q)        # dE[ỹ]/dv
        self._offset = self.q * (1 + 2 * self.b) / 2       # E[ỹ] at v = 0

    def _to_y(self, raw):
        return 2 * (raw - self._offset) / self._gain - 1

    def _privatize(self, x, rng):
        v = (x + 1) / 2
        in_window = rng.random(x.shape) < 2 * self.b * self.p
        u = rng.random(x.shape)
        window = v - self.b + 2 * self.b * u
        t = u  # outside the window: a uniform point of the length-1 rest
        outside = np.where(t < v, t - self.b, t + self.b)
        return self._to_y(np.where(in_window, window, outside))

    def _variance(self, x):
        v = (x + 1) / 2
        b, p, q = self.b, self.p, self.q
        mean = self._offset + self._gain * v
        second = q * ((1 + b) ** 3 + b ** 3) / 3 + (p - q) * (2 * b * v ** 2 + 2 * b ** 3 / 3)
        return (2 / self._gain) ** 2 * (second - mean ** 2)

    def worst_case_variance(self) -> float:
        return float(np.max(self._variance(np.array([-1.0, 1.0]))))

    def _output_law(self, x):
        v = (x + 1) / 2
        edges = self._to_y(np.array([-self.b, v - self.b, v + self.b, 1 + self.b]))
        scale = 2 / self._gain  # dY/dỹ
        return OutputLaw.piecewise_constant(edges, np.array([self.q, self.p, self.q]) / scale)
