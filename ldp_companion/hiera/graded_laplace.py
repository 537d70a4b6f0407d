"""The graded Laplace baseline (Sec. 3.1): ``v + Lap(2 / eps_{t(v)})``, plain mean.

Each value gets noise at its *own* level's budget. Within one level this is
``eps_t``-LDP, but across levels the noise scale itself leaks the level: for ``x`` in level
``a`` and ``x'`` in level ``b`` the log density ratio grows like ``|eps_a - eps_b| / 2 * |y|``
without bound (the paper does not note this), so the baseline is not graded LDP (Def. 2) for
any ``r``. It is kept as the paper's baseline, with that caveat. It does not fit the
one-budget :class:`~ldp_companion.mechanisms.base.ScalarMechanism` interface, so it is not
registered.
"""
from __future__ import annotations

import numpy as np

from ldp_companion.hiera.levels import Levels
from ldp_companion.mechanisms.base import OutputLaw
from ldp_companion.mechanisms.laplace import Laplace
from ldp_companion.validation import check_rng, check_unit_interval

__all__ = ["GradedLaplace"]


class GradedLaplace:
    """Graded Laplace: ``Y = v + Lap(b(v))``, ``b(v) = 2 / eps_{t(v)}`` (sensitivity 2 on [-1, 1]).

    Parameters
    ----------
    levels : Levels
    """

    name = "graded_laplace"

    def __init__(self, levels: Levels):
        if not isinstance(levels, Levels):
            raise TypeError(f"levels must be a Levels, got {type(levels).__name__}")
        self.levels = levels

    def __repr__(self) -> str:
        return f"GradedLaplace({self.levels!r})"

    def scale(self, v) -> np.ndarray:
        """Laplace scale ``2 / eps_{t(v)}`` of each value."""
        return 2.0 / self.levels.epsilons[self.levels.level_of(v) - 1]

    def privatize(self, v, rng: np.random.Generator) -> np.ndarray:
        """One noisy report per value (same shape as ``v``)."""
        v = check_unit_interval(v, "v")
        return v + check_rng(rng).laplace(0.0, 1.0, size=v.shape) * self.scale(v)

    def variance(self, v) -> np.ndarray:
        """``Var[Y | v] = 2 b(v)^2 = 8 / eps_{t(v)}^2``."""
        return 2.0 * self.scale(v) ** 2

    def worst_case_variance(self) -> float:
        """``8 / eps_k^2``, at the most protected level."""
        return 8.0 / float(self.levels.epsilons.min()) ** 2

    def output_law(self, x: float) -> OutputLaw:
        """Exact law of ``Y | x``: Laplace at ``x`` with the budget of ``x``'s level."""
        t = int(self.levels.level_of(x))
        return Laplace(float(self.levels.epsilons[t - 1])).output_law(x)

    def log_density(self, y, x) -> np.ndarray:
        """``log f(y | x) = -log(2 b(x)) - |y - x| / b(x)``, broadcasting ``y`` against ``x``."""
        y = np.asarray(y, dtype=np.float64)
        x = check_unit_interval(x, "x")
        b = self.scale(x)
        return -np.log(2.0 * b) - np.abs(y - x) / b

    def log_density_ratio(self, y, x, x_prime) -> np.ndarray:
        """``log f(y | x) / f(y | x')``, broadcasting ``y``, ``x`` and ``x'``.

        For ``x``, ``x'`` at different levels it is unbounded in ``y``: far out it grows
        like :meth:`tail_slope` ``* |y|``, so the baseline is not graded LDP (Def. 2).
        """
        return self.log_density(y, x) - self.log_density(y, x_prime)

    def tail_slope(self, x, x_prime) -> np.ndarray:
        """``(eps_{t(x')} - eps_{t(x)}) / 2``: the slope of :meth:`log_density_ratio` in ``|y|``
        as ``|y| -> inf``.

        Positive when ``x'`` is at a less protected level than ``x``: the ratio then goes to
        ``+inf``, so no finite ``r(eps_x, eps_x')`` bounds it (Def. 2 fails).
        """
        return 1.0 / self.scale(x_prime) - 1.0 / self.scale(x)
