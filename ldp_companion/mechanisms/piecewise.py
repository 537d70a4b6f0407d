"""The 3-piece "piecewise" family and its members PM, PM-SUB and PM-OPT.

Secs. V-B and V-C of the PM/Three-Outputs paper (Alg. 3, Alg. 4, Eqs. (26)–(32),
Lemmas 6–7). For a parameter ``t > 0`` and ``E = e^eps`` the output ``Y`` lies in
``[-A, A]`` and has density ``p`` on the band ``[L(x), R(x)]`` and ``p / E`` elsewhere.
Wang et al.'s PM is ``t = e^{eps/2}``, PM-SUB is ``t = e^{eps/3}`` and PM-OPT takes the
``t`` that minimises the worst-case variance (Lemma 7).
"""
from __future__ import annotations

import numpy as np
from scipy import optimize

from ldp_companion.mechanisms.base import OutputLaw, ScalarMechanism, sample_from_uniform
from ldp_companion.validation import check_epsilon

__all__ = ["Piecewise", "PM", "PMSub", "PMOpt", "pm_opt_t", "pm_opt_t_ferrari"]


class Piecewise(ScalarMechanism):
    """Member ``t`` of the 3-piece family (Eqs. (26)–(32)).

    With ``E = e^eps``:

    * range ``[-A, A]``, ``A = (t + E)(t + 1) / (t (E - 1))``;
    * band ``[L(x), R(x)] = (t + E)(t x -+ 1) / (t (E - 1))`` of half-width
      ``B = (t + E) / (t (E - 1))``;
    * density ``p = t E (E - 1) / (2 (t + E)^2)`` on the band, ``p / E`` outside, so
      ``P(Y in band) = E / (t + E)``;
    * ``Var[Y | x] = (t + 1) x^2 / (E - 1) + (t + E)((t + 1)^3 + E - 1) / (3 t^2 (E - 1)^2)``
      (Eq. (31)), largest at ``|x| = 1`` (Eq. (32)).

    Parameters
    ----------
    epsilon : float
        Privacy budget, finite and > 0.
    t : float
        Family parameter, finite and > 0.
    """

    name = "piecewise"
    max_epsilon = 200.0  # e^eps * t^2 overflows float64 near eps = 236 for PM

    def __init__(self, epsilon: float, t: float):
        super().__init__(epsilon)
        self._t = check_epsilon(t, "t")
        self._precompute()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(epsilon={self.epsilon:g}, t={self.t:.6g})"

    def _precompute(self):
        t, E = self._t, np.exp(self.epsilon)
        self._E, self._Em1 = E, np.expm1(self.epsilon)  # E - 1 without cancellation
        self._B = (t + E) / (t * self._Em1)
        self._A = self._B * (t + 1.0)
        self._p = t * E * self._Em1 / (2.0 * (t + E) ** 2)

    @property
    def t(self) -> float:
        """Family parameter ``t``."""
        return self._t

    @property
    def A(self) -> float:
        """Output bound: ``Y`` lies in ``[-A, A]``."""
        return self._A

    @property
    def B(self) -> float:
        """Half-width of the high-density band, ``(t + E) / (t (E - 1))``."""
        return self._B

    @property
    def p(self) -> float:
        """Density on the band; the density outside it is ``p / E``."""
        return self._p

    @property
    def p_band(self) -> float:
        """``P(Y in [L(x), R(x)]) = E / (t + E)`` for every ``x``."""
        return self._E / (self._t + self._E)

    def L(self, x):
        """Left end of the band, ``(t + E)(t x - 1) / (t (E - 1))``; ``L(-1) = -A``."""
        return self._B * (self._t * np.asarray(x, float) - 1.0)

    def R(self, x):
        """Right end of the band, ``(t + E)(t x + 1) / (t (E - 1))``; ``R(1) = A``."""
        return self._B * (self._t * np.asarray(x, float) + 1.0)

    def _from_uniform(self, x, u, w=1.0):
        """Inverse CDF of ``Y | x`` at ``u / w`` for ``u`` in ``[0, w)``.

        The CDF is piecewise linear with slopes ``q = p/E``, ``p``, ``q``, so
        ``F^{-1}(v) = -A + v/q - (1/q - 1/p) clip(v - F(L(x)), 0, P_band)``, where
        ``F(L(x)) = q (L(x) + A)``. ``w`` lets a mixture reuse the uniform of its choice;
        entries with ``u >= w`` give garbage that the caller discards.
        """
        q = self._p / self._E
        k = 1.0 / q - 1.0 / self._p
        # w * F(L(x)) = c0 + c1 x, affine in x
        c1 = w * q * self._B * self._t
        c0 = w * q * (self._A - self._B)
        y = np.multiply(x, -c1)
        y += u
        y -= c0
        np.clip(y, 0.0, w * self.p_band, out=y)
        y *= -k / w
        y += u * (1.0 / (w * q))
        y -= self._A
        # rounding can step past the range by an ulp
        np.clip(y, -self._A, self._A, out=y)
        return y

    def _privatize(self, x, rng):
        return sample_from_uniform(self._from_uniform, x, rng)

    def _variance(self, x):
        t, E, Em1 = self._t, self._E, self._Em1
        return ((t + 1.0) * x**2 / Em1
                + (t + E) * ((t + 1.0) ** 3 + Em1) / (3.0 * t**2 * Em1**2))

    def worst_case_variance(self) -> float:
        """``Var[Y | x = ±1]`` (Eq. (32))."""
        return float(self._variance(np.float64(1.0)))

    def density_pieces(self, x: float):
        """``(edges, densities)`` of ``f(. | x)``: ``p/E`` on ``[-A, L)``, ``p`` on ``[L, R]``,
        ``p/E`` on ``(R, A]`` (a piece has zero width at ``x = ±1``)."""
        q = self._p / self._E
        edges = np.array([-self._A, float(self.L(x)), float(self.R(x)), self._A])
        return edges, np.array([q, self._p, q])

    def _output_law(self, x):
        return OutputLaw.piecewise_constant(*self.density_pieces(x))


class PM(Piecewise):
    """Wang et al.'s Piecewise Mechanism [8]: ``t = e^{eps/2}`` (Sec. V-C of the paper).

    ``Var[Y | x] = x^2 / (s - 1) + (s + 3) / (3 (s - 1)^2)`` with ``s = e^{eps/2}``; worst
    case ``4 s / (3 (s - 1)^2)`` at ``|x| = 1``.
    """

    name = "pm"

    def __init__(self, epsilon: float):
        super().__init__(epsilon, np.exp(self.check_budget(epsilon) / 2.0))


class PMSub(Piecewise):
    """PM-SUB (Alg. 4): the family member ``t = e^{eps/3}``, close to PM-OPT's ``t``.

    Worst case ``(5 e^{4 eps/3} + 6 e^eps + 5 e^{2 eps/3}) / (3 (e^eps - 1)^2)``.
    """

    name = "pm_sub"
    max_epsilon = 250.0  # overflow near eps = 265

    def __init__(self, epsilon: float):
        super().__init__(epsilon, np.exp(self.check_budget(epsilon) / 3.0))


class PMOpt(Piecewise):
    """PM-OPT (Alg. 3, Lemma 7): ``t`` minimises the worst-case variance, see :func:`pm_opt_t`."""

    name = "pm_opt"
    max_epsilon = 250.0  # overflow near eps = 265

    def __init__(self, epsilon: float):
        super().__init__(epsilon, pm_opt_t(self.check_budget(epsilon)))


def pm_opt_t(epsilon: float) -> float:
    """PM-OPT's ``t*``: the unique positive root of ``t^4 + 2E t^3 - 2E t - E^2`` (Lemma 7).

    ``dV/dt`` at ``|x| = 1`` is ``2 (t^4 + 2E t^3 - 2E t - E^2) / (3 t^3 (E - 1)^2)`` and
    ``V`` is convex in ``t``; the root lies in ``(1, e^{eps/2})`` (the quartic is
    ``1 - E^2 < 0`` at 1 and ``2 E s (s^2 - 1) > 0`` at ``s = e^{eps/2}``), where
    :func:`scipy.optimize.brentq` brackets it. Unlike :func:`pm_opt_t_ferrari` this is
    well defined at ``eps = ln(2) / 2``.
    """
    eps = check_epsilon(epsilon)
    E = np.exp(eps)

    def quartic_over_e2(t):  # divided by E^2 to keep it in range for large eps
        return (t**4 / E + 2.0 * t**3 - 2.0 * t) / E - 1.0

    return optimize.brentq(quartic_over_e2, 1.0, np.exp(eps / 2.0),
                           xtol=1e-300, rtol=4 * np.finfo(float).eps, maxiter=500)


def pm_opt_t_ferrari(epsilon):
    """PM-OPT's ``t*`` by Ferrari's closed form (the paper's Eqs. (59)–(71)); vectorized.

    With ``t = y - E/2`` the quartic becomes ``y^4 - 3/2 E^2 y^2 + E (E^2 - 2) y - 3/16 E^4``,
    whose resolvent cubic gives ``m = (E^2 - cbrt(4 E^2 (E^2 - 1))) / 2``; with
    ``q = E (E^2 - 2)``,
    ``t* = -E/2 + (-sgn(q) sqrt(2m) + sqrt(3E^2 - 2m + sqrt(2) |q| / sqrt(m))) / 2``.

    Notes
    -----
    At ``eps = ln(2) / 2`` both ``q`` and ``m`` vanish and the formula is 0/0: it returns
    inf or nan there and loses accuracy nearby (relative error about 1e-10 at a distance of
    1e-4, 1e-5 at 1e-6, against 1e-12 or better elsewhere on (0, 15]). Kept for comparison;
    the mechanism uses :func:`pm_opt_t`.
    """
    eps = np.asarray(epsilon, float)
    E = np.exp(eps)
    E2 = E * E
    m = 0.5 * (E2 - np.cbrt(4.0 * E2 * (E2 - 1.0)))
    q = E * (E2 - 2.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        inner = 3.0 * E2 - 2.0 * m + np.sqrt(2.0) * np.abs(q) / np.sqrt(m)
        t = -0.5 * E + 0.5 * (-np.sign(q) * np.sqrt(2.0 * m) + np.sqrt(inner))
    return t[()] if t.ndim == 0 else t
