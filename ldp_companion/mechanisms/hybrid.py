"""Mixtures of a piecewise mechanism and Three-Outputs: HM and HM-TP.

PM/Three-Outputs paper: HM of Wang et al. [8] (introduction) and HM-TP (Sec. V-E, Lemmas 10–11,
Eqs. (150)–(151)). With probability ``w`` the mixture runs a member of the piecewise family,
otherwise Three-Outputs; Duchi's mechanism is Three-Outputs with ``a = 0``. Both parts are
unbiased, so ``Var = w Var_pw + (1 - w) Var_3O``; the output law has the Three-Outputs atoms
(weighted by ``1 - w``) and the piecewise-constant density (weighted by ``w``), and it is
``eps``-LDP (tightly) because each part is.
"""
from __future__ import annotations

import numpy as np
from scipy import optimize

from ldp_companion.mechanisms.base import OutputLaw, ScalarMechanism, sample_from_uniform
from ldp_companion.mechanisms.piecewise import PM, Piecewise, PMSub
from ldp_companion.mechanisms.three_outputs import ThreeOutputs
from ldp_companion.validation import check_epsilon, check_probability

__all__ = ["Mixture", "HM", "HMTP", "hm_alpha", "hm_tp_beta", "hm_tp_beta_minimax",
           "HM_EPS_STAR", "HMTP_EPS_BETA"]


class Mixture(ScalarMechanism):
    """``piecewise`` with probability ``weight``, ``three_outputs`` otherwise.

    Parameters
    ----------
    piecewise : Piecewise
        The continuous part (any member of the family of Eqs. (26)–(32)).
    three_outputs : ThreeOutputs
        The discrete part, at the same ``epsilon``.
    weight : float
        Probability of the continuous part, in [0, 1].
    """

    name = "mixture"

    def __init__(self, piecewise: Piecewise, three_outputs: ThreeOutputs, weight: float):
        if not isinstance(piecewise, Piecewise) or not isinstance(three_outputs, ThreeOutputs):
            raise TypeError("Mixture takes a Piecewise and a ThreeOutputs mechanism")
        super().__init__(piecewise.epsilon)
        if three_outputs.epsilon != self.epsilon:
            raise ValueError("both parts of a Mixture must have the same epsilon")
        self.piecewise = piecewise
        self.three_outputs = three_outputs
        self.weight = float(check_probability(weight, "weight"))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(epsilon={self.epsilon:g}, weight={self.weight:.6g})"

    def _privatize(self, x, rng):
        return sample_from_uniform(self._from_uniform, x, rng)

    def _from_uniform(self, x, u):
        """One uniform per entry: ``u < w`` picks the piecewise part and also drives it."""
        w = self.weight
        if w == 0.0:
            return self.three_outputs._from_uniform(x, u)
        if w == 1.0:
            return self.piecewise._from_uniform(x, u)
        y = self.three_outputs._from_uniform(x, u, w)
        np.copyto(y, self.piecewise._from_uniform(x, u, w), where=u < w)
        return y

    def _variance(self, x):
        w = self.weight
        return w * self.piecewise._variance(x) + (1.0 - w) * self.three_outputs._variance(x)

    def worst_case_variance(self) -> float:
        """Max over ``s = |x|`` in [0, 1] of the quadratic ``k0 + k1 s + k2 s^2``.

        ``k0 = w b_P + (1 - w) c0``, ``k1 = (1 - w) c1``, ``k2 = w a_P - (1 - w)`` with the
        piecewise part's ``Var = a_P x^2 + b_P`` (Eq. (31)) and Three-Outputs'
        ``Var = c0 + c1 |x| - x^2`` (Eq. (25)).
        """
        k0, k1, k2 = self._quadratic()
        cands = [k0, k0 + k1 + k2]
        if k2 < 0 and 0.0 < -k1 / (2 * k2) < 1.0:
            cands.append(k0 - k1**2 / (4 * k2))
        return float(max(cands))

    def _quadratic(self):
        w, pw, to = self.weight, self.piecewise, self.three_outputs
        b_p = float(pw._variance(np.float64(0.0)))
        a_p = float(pw._variance(np.float64(1.0))) - b_p
        return w * b_p + (1 - w) * to.c0, (1 - w) * to.c1, w * a_p - (1 - w)

    def _output_law(self, x):
        w = self.weight
        law3 = self.three_outputs._output_law(x)
        if w == 0.0:
            return law3
        edges, dens = self.piecewise.density_pieces(x)
        if w == 1.0:
            return OutputLaw.piecewise_constant(edges, dens)
        return OutputLaw.piecewise_constant(edges, w * dens, law3.atoms,
                                            (1.0 - w) * law3.masses)


class HM(Mixture):
    """Wang et al.'s Hybrid Mechanism [8]: PM w.p. :func:`hm_alpha`, Duchi otherwise.

    For ``eps > eps* = 0.609352`` the variance is flat in ``x``:
    ``(s + 3) / (3 s (s - 1)) + (E + 1)^2 / (s (E - 1)^2)`` with ``s = e^{eps/2}``.
    """

    name = "hm"
    max_epsilon = PM.max_epsilon

    def __init__(self, epsilon: float):
        eps = self.check_budget(epsilon)
        super().__init__(PM(eps), ThreeOutputs(eps, a=0.0), hm_alpha(eps))


class HMTP(Mixture):
    """HM-TP: PM-SUB w.p. :func:`hm_tp_beta`, optimal Three-Outputs otherwise (Sec. V-E)."""

    name = "hm_tp"
    max_epsilon = PMSub.max_epsilon

    def __init__(self, epsilon: float):
        eps = self.check_budget(epsilon)
        super().__init__(PMSub(eps), ThreeOutputs(eps), hm_tp_beta(eps))


def _var0_minus_duchi(piecewise_cls, eps):
    """``Var_pw(0) - C_D^2``: positive below the mixing threshold, negative above."""
    return float(piecewise_cls(eps).variance(0.0)) - ThreeOutputs(eps, a=0.0).C ** 2


#: HM's threshold ``eps*``: ``Var_PM(0) = C_D^2`` (Wang et al. [8]).
HM_EPS_STAR = optimize.brentq(lambda e: _var0_minus_duchi(PM, e), 0.3, 1.0, xtol=1e-15)
#: HM-TP's threshold ``eps_beta``: ``Var_SUB(0) = C_D^2``; ``beta* = 0`` below it (derived
#: here; the paper's Eq. (150), Lemma 10, is lost from its text).
HMTP_EPS_BETA = optimize.brentq(lambda e: _var0_minus_duchi(PMSub, e), 0.3, 1.0, xtol=1e-15)


def hm_alpha(epsilon: float) -> float:
    """Wang et al.'s mixing weight [8]: ``1 - e^{-eps/2}`` if ``eps > eps*``, else 0.

    ``eps > eps*`` is tested as ``Var_PM(0) < C_D^2``, its definition.
    """
    eps = check_epsilon(epsilon)
    return -np.expm1(-eps / 2.0) if _var0_minus_duchi(PM, eps) < 0 else 0.0


def hm_tp_beta(epsilon: float) -> float:
    """HM-TP's ``beta* = argmin_beta max_x Var_HT`` (Lemma 10) by a quadratic derived here.

    The paper's Eq. (150) (Lemma 10, Appendix M) is lost from its text.

    With PM-SUB's ``Var = a_P x^2 + b_P``, Three-Outputs' ``Var = c0 + c1 |x| - x^2`` and
    ``gamma = 1 + a_P``, the worst case for ``beta < 1/gamma`` is at the interior point
    ``x_v = (1 - beta) c1 / (2 (1 - gamma beta))``, and ``dV/dbeta = 0`` is
    ``4 (b_P - c0)(1 - gamma beta)^2 + c1^2 (1 - beta)(gamma beta + gamma - 2) = 0``.
    In ``u = 1 - gamma beta`` it reads ``(c1^2 - 4 gamma (b_P - c0)) u^2 = c1^2 a_P^2``, so
    ``beta = (1 - c1 a_P / sqrt(c1^2 - 4 gamma (b_P - c0))) / gamma``, clipped at 0 (and 0 if
    the root does not exist, where ``V`` increases in ``beta``). This covers three
    regimes: ``beta = 0`` for ``eps <= eps_beta``, ``beta = 1 / gamma``
    (``c1 = 0``) on ``(eps_beta, ln 2]``, the quadratic's root above. Cross-checked against
    :func:`hm_tp_beta_minimax`.
    """
    eps = check_epsilon(epsilon)
    sub, three = PMSub(eps), ThreeOutputs(eps)
    b_p = float(sub.variance(0.0))
    a_p = float(sub.variance(1.0)) - b_p
    gamma = 1.0 + a_p
    disc = three.c1**2 - 4.0 * gamma * (b_p - three.c0)
    if disc <= 0.0:
        return 0.0
    return max(0.0, (1.0 - three.c1 * a_p / np.sqrt(disc)) / gamma)


def hm_tp_beta_minimax(epsilon: float, full_output: bool = False):
    """HM-TP's ``beta*`` by direct numeric minimax (cross-check of :func:`hm_tp_beta`).

    :func:`scipy.optimize.minimize_scalar` (bounded, on [0, 1]) over ``beta`` of
    ``max_x Var_HT(x)``; the inner max is taken on a grid of 2001 points of ``|x|`` in [0, 1]
    and refined by a bounded scalar search around the best grid point.

    Returns
    -------
    beta : float
        The minimising weight; with ``full_output``, ``(beta, worst-case variance)``.
    """
    eps = check_epsilon(epsilon)
    sub, three = PMSub(eps), ThreeOutputs(eps)
    grid = np.linspace(0.0, 1.0, 2001)
    v_sub, v_3o = sub.variance(grid), three.variance(grid)

    def var(beta, s):
        return beta * sub._variance(s) + (1.0 - beta) * three._variance(s)

    def worst(beta):
        i = int(np.argmax(beta * v_sub + (1.0 - beta) * v_3o))
        lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]
        res = optimize.minimize_scalar(lambda s: -var(beta, np.float64(s)), bounds=(lo, hi),
                                       method="bounded", options={"xatol": 1e-12})
        return max(-res.fun, var(beta, grid[i]))

    res = optimize.minimize_scalar(worst, bounds=(0.0, 1.0), method="bounded",
                                   options={"xatol": 1e-12})
    beta = float(res.x)
    return (beta, float(res.fun)) if full_output else beta
