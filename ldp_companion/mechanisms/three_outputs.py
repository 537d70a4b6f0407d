"""Three-Outputs (PM/Three-Outputs paper, Sec. V-A; Alg. 2, Eqs. (2)–(8), Lemmas 1–5).

The output is one of ``{-C, 0, C}`` (2 bits). With ``E = e^eps`` and ``a = P_{0<-0}``:

* ``C = E (E + 1) / ((E - 1)(E - a))``;
* for ``x`` in [0, 1] the probabilities are linear in ``x`` (Eqs. (13)–(15)):
  ``P_{0<-x} = a - a (1 - 1/E) x``,
  ``P_{C<-x} = (1 - a)/2 + ((E - a)/(E + 1) - (1 - a)/2) x``,
  ``P_{-C<-x} = (1 - a)/2 + ((E - a)/(E (E + 1)) - (1 - a)/2) x``;
* negative inputs by symmetry (Eqs. (10a)–(10b)): swap ``C`` and ``-C``.

Any ``a`` in ``[0, E / (E + 2)]`` is ``eps``-LDP (the cap is Eq. (83)); ``a = 0`` is Duchi et
al.'s mechanism, and the variance-optimal ``a`` is :func:`p00` (Eq. (5), Lemma 4).
"""
from __future__ import annotations

import numbers

import numpy as np

from ldp_companion.mechanisms.base import OutputLaw, ScalarMechanism, sample_from_uniform
from ldp_companion.validation import check_unit_interval

__all__ = ["ThreeOutputs", "p00", "EPS_CAP"]

#: ``eps'`` of Lemma 4: above it the optimal ``a`` is the cap ``E / (E + 2)``.
EPS_CAP = float(np.log((3.0 + np.sqrt(65.0)) / 2.0))


def p00(epsilon):
    """Optimal ``a = P_{0<-0}`` of Three-Outputs (Eq. (5), Lemma 4); vectorized over ``epsilon``.

    * ``eps < ln 2``: ``a = 0`` (Three-Outputs is Duchi's mechanism);
    * ``ln 2 <= eps <= eps' = ln((3 + sqrt(65)) / 2)``: the root of
      ``2a^3 - (E^2 + 4E + 5) a^2 - (E^3 + 4E^2 - 7E) a + 2E^3 - 4E^2 = 0`` (the numerator of
      ``dV/da``), in trigonometric form
      ``a = -[-(E^2 + 4E + 5) + 2 sqrt(D0) cos(pi/3 + arccos(-D1 / (2 D0^{3/2})) / 3)] / 6``;
    * ``eps > eps'``: the cap ``a = E / (E + 2)``.

    Parameters
    ----------
    epsilon : float or array_like
        Privacy budgets, finite and > 0.
    """
    eps = np.asarray(epsilon, dtype=np.float64)
    if not np.all(np.isfinite(eps)) or np.any(eps <= 0):
        raise ValueError("epsilon must be finite and > 0")
    E = np.exp(eps)
    # evaluate the trig root only on [2, e^eps'] so that large eps cannot overflow
    Em = np.clip(E, 2.0, np.exp(EPS_CAP))
    d0 = Em**4 + 14 * Em**3 + 50 * Em**2 - 2 * Em + 25
    d1 = (-2 * Em**6 - 42 * Em**5 - 270 * Em**4 - 404 * Em**3 - 918 * Em**2
          + 30 * Em - 250)
    arg = np.clip(-d1 / (2.0 * d0**1.5), -1.0, 1.0)
    mid = -(-(Em**2 + 4 * Em + 5)
            + 2.0 * np.sqrt(d0) * np.cos(np.pi / 3 + np.arccos(arg) / 3.0)) / 6.0
    cap = E / (E + 2.0)
    # clipping only removes rounding (about 1e-15) at the two thresholds
    a = np.where(eps < np.log(2.0), 0.0, np.where(eps > EPS_CAP, cap, np.clip(mid, 0.0, cap)))
    return a[()] if a.ndim == 0 else a


class ThreeOutputs(ScalarMechanism):
    """Three-Outputs: ``Y in {-C, 0, C}`` (Alg. 2).

    ``Var[Y | x] = C^2 (1 - a + a (1 - 1/E) |x|) - x^2`` (Eqs. (25)/(72)): concave in
    ``|x|``, largest at ``x* = C^2 a (1 - 1/E) / 2`` if that is <= 1 (Lemma 5).

    Parameters
    ----------
    epsilon : float
        Privacy budget, finite and > 0.
    a : float, optional (keyword only)
        ``P_{0<-0}`` in ``[0, E / (E + 2)]``. Defaults to the optimum :func:`p00` (Eq. (5)).
    """

    name = "three_outputs"
    max_epsilon = 350.0  # overflow near eps = 355

    def __init__(self, epsilon: float, *, a: float | None = None):
        super().__init__(epsilon)
        E = np.exp(self.epsilon)
        self._E = E
        self._a = float(p00(self.epsilon)) if a is None else _check_a(a, E)
        self._C = E * (E + 1.0) / (np.expm1(self.epsilon) * (E - self._a))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(epsilon={self.epsilon:g}, a={self.a:.6g})"

    @property
    def a(self) -> float:
        """``P_{0<-0}``."""
        return self._a

    @property
    def C(self) -> float:
        """Output magnitude ``E (E + 1) / ((E - 1)(E - a))``."""
        return self._C

    @property
    def c0(self) -> float:
        """``Var[Y | 0] = C^2 (1 - a)``."""
        return self._C**2 * (1.0 - self._a)

    @property
    def c1(self) -> float:
        """Slope ``C^2 a (1 - 1/E)`` of ``E[Y^2 | x]`` in ``|x|``."""
        return self._C**2 * self._a * (1.0 - 1.0 / self._E)

    def _linear_coefficients(self):
        """``(P_{-C<-x}, P_{0<-x}, P_{C<-x}) = base + slope * x`` for ``x`` in [0, 1]."""
        a, E = self._a, self._E
        half = 0.5 * (1.0 - a)
        base = np.array([half, a, half])
        slope = np.array([(E - a) / (E * (E + 1.0)) - half, -a * (1.0 - 1.0 / E),
                          (E - a) / (E + 1.0) - half])
        return base, slope

    def probabilities(self, x):
        """``(P(Y = -C | x), P(Y = 0 | x), P(Y = C | x))``, each with the shape of ``x``."""
        arr = check_unit_interval(x, "x")
        base, slope = self._linear_coefficients()
        s = np.abs(arr)
        pm, p0, pc = (np.asarray(b + k * s) for b, k in zip(base, slope))
        neg = arr < 0
        return np.where(neg, pc, pm), p0, np.where(neg, pm, pc)

    def _from_uniform(self, x, u, w=0.0):
        """Output for uniforms ``u``, using only ``u >= w`` (rescaled to ``[0, 1)``).

        With ``v = (u - w) / (1 - w)``: ``-C`` if ``v < P_{-C}``, ``0`` if
        ``v < P_{-C} + P_0``, ``C`` otherwise, computed for ``|x|`` and then given the sign
        of ``x`` (Eqs. (10a)–(10b)). Entries with ``u < w`` are garbage for the caller to drop.
        """
        base, slope = self._linear_coefficients()
        s = np.abs(x)
        # thresholds on u: w + (1 - w) P_{-C}(|x|) and 1 - (1 - w) P_C(|x|)
        thr = s * ((1.0 - w) * slope[0])
        thr += w + (1.0 - w) * base[0]
        y = np.empty_like(thr)
        np.greater_equal(u, thr, out=y)
        np.multiply(s, -(1.0 - w) * slope[2], out=thr)
        thr += 1.0 - (1.0 - w) * base[2]
        y += np.greater_equal(u, thr)
        y -= 1.0
        # outputs for -|x| are those for |x| negated: multiply by C sgn(x) (x = ±0 alike)
        y *= np.copysign(self._C, x, out=thr)
        return y

    def _privatize(self, x, rng):
        return sample_from_uniform(self._from_uniform, x, rng)

    def _variance(self, x):
        # at |x| = 1 and large eps the exact variance is ~0; rounding must not make it < 0
        return np.maximum(self.c0 + self.c1 * np.abs(x) - x**2, 0.0)

    def worst_case_variance(self) -> float:
        """``C^2 (1 - a) + x*^2`` if ``x* <= 1``, else ``C^2 (1 - a/E) - 1`` (Eq. (86b))."""
        x_star = 0.5 * self.c1
        return float(self.c0 + x_star**2 if x_star <= 1.0 else self.c0 + self.c1 - 1.0)

    def _output_law(self, x):
        pm, p0, pc = (float(v) for v in self.probabilities(x))
        if self._a == 0.0:  # the 0 output never occurs (Duchi)
            return OutputLaw.discrete([-self._C, self._C], [pm, pc])
        return OutputLaw.discrete([-self._C, 0.0, self._C], [pm, p0, pc])


def _check_a(a, E: float) -> float:
    """Return ``a`` as a float after checking ``0 <= a <= E / (E + 2)`` (Eq. (83))."""
    if isinstance(a, bool) or not isinstance(a, numbers.Real):
        raise TypeError(f"a must be a real number, got {type(a).__name__}")
    value = float(a)
    cap = E / (E + 2.0)
    if not (0.0 <= value <= cap):
        raise ValueError(f"a must lie in [0, E/(E+2)] = [0, {cap:.6g}], got {a!r}")
    return value
