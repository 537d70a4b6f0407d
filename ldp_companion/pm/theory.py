"""Numerical checks of the Three-Outputs derivation (Lemmas 1–5) and of PM-OPT (Lemma 7).

Secs. V-A to V-C of the PM/Three-Outputs paper and its Appendices A–F. Notation:
``E = e^eps``; a 3-output mechanism has outputs ``{-C, 0, C}`` and is stored on an input grid
``x`` as a ``(3, n)`` array ``P`` whose rows are ``P(-C | x)``, ``P(0 | x)``, ``P(C | x)``.
The requirements (9a)–(9c) are: ``eps``-LDP (``max_x P(o|x) <= E min_x P(o|x)`` for each
output ``o``), unbiasedness ``C (P(C|x) - P(-C|x)) = x`` and a pmf for every ``x``.

* Lemma 1: :func:`symmetrisation_check` (LP with a random objective, then Eqs. (11)–(12)).
* Lemmas 2–3: the symmetric piecewise-linear family :func:`pl_feasible`,
  :func:`pl_worst_case_variance`, :func:`pl_grid_search`, :func:`pl_local_optimum`,
  :func:`lemma3_variance_vs_b`.
* Lemma 4: :func:`p00_bounded_min`, :func:`lemma4_thresholds`, :func:`cubic_at_cap`,
  :func:`lemma4_table`. Lemma 5: :func:`lemma5_table`.
* Beyond the paper: :func:`lp_optimal_three_outputs` (best 3-output mechanism of all).
* Lemma 7: :func:`lemma7_table`. Extension HM-TP★: :func:`hm_tp_star`.
* Tables I–II: :func:`crossing` (a threshold, or NaN where the two curves do not cross).
* Fig. 4 / Eq. (26b): :func:`paper_t`, :func:`piecewise_density`, :func:`density_gap` (the
  three-piece density typed from the paper, against a mechanism's output law).

The mechanisms themselves are those of :mod:`ldp_companion.mechanisms`; nothing here is
used to privatize data.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.polynomial import Polynomial
from scipy import optimize, sparse

from ldp_companion.mechanisms.hybrid import HM, HMTP, Mixture
from ldp_companion.mechanisms.piecewise import PM, Piecewise, PMSub, pm_opt_t, pm_opt_t_ferrari
from ldp_companion.mechanisms.three_outputs import EPS_CAP, ThreeOutputs, p00
from ldp_companion.validation import check_epsilon, check_positive_int, check_rng

__all__ = [
    "symmetric_x_grid", "three_output_variance", "three_output_violation", "symmetrise",
    "random_three_output_mechanism", "SymmetrisationCheck", "symmetrisation_check",
    "pl_feasible", "pl_worst_case_variance", "PLOptimum", "pl_grid_search",
    "pl_local_optimum", "lemma3_variance_vs_b",
    "cubic_dv_da", "p00_bounded_min", "Lemma4Thresholds", "lemma4_thresholds",
    "cubic_at_cap", "lemma4_table", "lemma5_table",
    "LPOptimum", "lp_worst_variance", "lp_optimal_three_outputs",
    "lemma7_table", "HMTPStar", "hm_tp_star",
    "paper_t", "piecewise_density", "density_gap", "crossing",
    "LEMMA_EPS", "LP_REFERENCE",
]

#: The ``eps`` values of our Lemma 2–3 and LP checks (our choice; the paper has no grid).
LEMMA_EPS = (0.5, 1.0, 1.5, 2.0, 3.0, 4.0)
#: Beyond the paper (computed here): LP optimum over all 3-output mechanisms (201-point grid).
LP_REFERENCE = {0.5: 16.6708, 1.0: 4.2062, 1.5: 1.7520, 2.0: 0.9427, 3.0: 0.4459,
                4.0: 0.3154}


# --------------------------------------------------------------------------- Lemma 1


def symmetric_x_grid(n_x: int) -> np.ndarray:
    """``n_x`` equispaced inputs on [-1, 1] with ``x[::-1] == -x`` exactly."""
    x = np.linspace(-1.0, 1.0, check_positive_int(n_x, "n_x"))
    return 0.5 * (x - x[::-1])


def three_output_variance(P, x, C: float) -> np.ndarray:
    """``Var[Y | x] = C^2 (1 - P(0|x)) - E[Y|x]^2`` of a 3-output mechanism on a grid."""
    P = np.asarray(P, float)
    mean = C * (P[2] - P[0])
    return C**2 * (1.0 - P[1]) - mean**2


def three_output_violation(P, x, C: float, epsilon: float) -> float:
    """Largest violation of the requirements (9a)–(9c) by ``P`` on the grid ``x``.

    The maximum of: ``|sum_o P(o|x) - 1|``, ``-P(o|x)`` (negativity),
    ``|C (P(C|x) - P(-C|x)) - x|`` and, per output, ``max_x P - E min_x P`` (LDP). A
    feasible mechanism gives a value <= 0 up to rounding.
    """
    P, x = np.asarray(P, float), np.asarray(x, float)
    E = np.exp(check_epsilon(epsilon))
    return float(max(np.abs(P.sum(axis=0) - 1.0).max(), -P.min(),
                     np.abs(C * (P[2] - P[0]) - x).max(),
                     (P.max(axis=1) - E * P.min(axis=1)).max()))


def symmetrise(P) -> np.ndarray:
    """Lemma 1, Eqs. (11)–(12): ``P'(o | x) = [P(o | x) + P(-o | -x)] / 2``.

    ``P`` must live on a grid with ``x[::-1] == -x`` (:func:`symmetric_x_grid`); reversing
    the rows maps ``o`` to ``-o`` and reversing the columns maps ``x`` to ``-x``.
    """
    P = np.asarray(P, float)
    return 0.5 * (P + P[::-1, ::-1])


def _lp_constraints(E: float, C: float, x: np.ndarray, epigraph: bool):
    """``(A_ub, b_ub, A_eq, b_eq, bounds)`` of the 3-output LP on the grid ``x``.

    Variables: ``P`` (3n, output-major), the per-output minima ``m`` and maxima ``M`` (LDP
    is ``m_o <= P(o|x) <= M_o <= E m_o``), and with ``epigraph`` a last variable ``v`` with
    ``Var(x_i) = C^2 (1 - P(0|x_i)) - x_i^2 <= v`` (unbiasedness makes the mean ``x_i``).
    """
    n = x.size
    k = 7 if epigraph else 6
    eye_n, zeros_n = sparse.identity(n), sparse.csr_matrix((n, n))
    a_eq = sparse.vstack([sparse.hstack([eye_n, eye_n, eye_n, sparse.csr_matrix((n, k))]),
                          sparse.hstack([-C * eye_n, zeros_n, C * eye_n,
                                         sparse.csr_matrix((n, k))])])
    b_eq = np.concatenate([np.ones(n), x])
    eye_p = sparse.identity(3 * n)
    block = sparse.kron(sparse.identity(3), np.ones((n, 1)))  # P(o|x_i) -> column o
    zeros_3 = sparse.csr_matrix((3 * n, 3))
    extra = sparse.csr_matrix((3 * n, k - 6))
    rows = [sparse.hstack([eye_p, zeros_3, -block, extra]),           # P - M <= 0
            sparse.hstack([-eye_p, block, zeros_3, extra]),           # m - P <= 0
            sparse.hstack([sparse.csr_matrix((3, 3 * n)), -E * sparse.identity(3),
                           sparse.identity(3), sparse.csr_matrix((3, k - 6))])]  # M <= E m
    b_ub = [np.zeros(6 * n + 3)]
    if epigraph:
        rows.append(sparse.hstack([zeros_n, -C**2 * eye_n, zeros_n,
                                   sparse.csr_matrix((n, 6)), -np.ones((n, 1))]))
        b_ub.append(x**2 - C**2)
    bounds = [(0.0, 1.0)] * (3 * n + 6) + [(None, None)] * (k - 6)
    return (sparse.vstack(rows).tocsr(), np.concatenate(b_ub), a_eq.tocsr(), b_eq, bounds)


def _default_lp_C(eps: float) -> float:
    """``1.25 C_D``: room for asymmetric mechanisms (at ``C_D`` only Duchi is feasible)."""
    return 1.25 * (np.exp(eps) + 1.0) / np.expm1(eps)


def random_three_output_mechanism(epsilon: float, rng: np.random.Generator, n_x: int = 41,
                                  C: float | None = None):
    """A random (generally asymmetric) feasible 3-output mechanism, for Lemma 1.

    A vertex of the feasible polytope of (9a)–(9c) on :func:`symmetric_x_grid`, found by
    :func:`scipy.optimize.linprog` (HiGHS) with a standard-normal random objective.

    Parameters
    ----------
    epsilon : float
        Privacy budget.
    rng : numpy.random.Generator
        Draws the objective.
    n_x : int
        Grid size (odd sizes include ``x = 0``).
    C : float, optional
        Output magnitude; default ``1.25 C_D`` with Duchi's ``C_D = (E + 1)/(E - 1)``. Any
        ``C >= C_D`` is feasible (Duchi's mechanism with magnitude ``C``); at ``C = C_D``
        the polytope is the single point Duchi, which is symmetric.

    Returns
    -------
    x : ndarray, shape (n_x,)
    P : ndarray, shape (3, n_x)
    """
    eps, rng = check_epsilon(epsilon), check_rng(rng)
    C = _default_lp_C(eps) if C is None else check_epsilon(C, "C")
    x = symmetric_x_grid(n_x)
    a_ub, b_ub, a_eq, b_eq, bounds = _lp_constraints(np.exp(eps), C, x, epigraph=False)
    res = optimize.linprog(rng.standard_normal(3 * x.size + 6), A_ub=a_ub, b_ub=b_ub,
                           A_eq=a_eq, b_eq=b_eq, bounds=bounds, method="highs")
    if res.status != 0:
        raise RuntimeError(f"3-output LP failed at eps={eps}, C={C}: {res.message}")
    return x, res.x[:3 * x.size].reshape(3, x.size)


@dataclass(frozen=True)
class SymmetrisationCheck:
    """Result of :func:`symmetrisation_check` (Lemma 1).

    ``asymmetry`` is ``max |P - P'|`` (> 0 means the LP mechanism was asymmetric);
    ``violation``/``violation_sym`` are :func:`three_output_violation` of ``P``/``P'``;
    ``worst_variance``/``worst_variance_sym`` are the max over the grid of ``Var``/``Var'``;
    ``identity_error`` is ``max |Var'(x) - (Var(x) + Var(-x))/2|``.
    """

    epsilon: float
    C: float
    x: np.ndarray
    P: np.ndarray
    P_sym: np.ndarray
    asymmetry: float
    violation: float
    violation_sym: float
    worst_variance: float
    worst_variance_sym: float
    identity_error: float


def symmetrisation_check(epsilon: float, rng: np.random.Generator, n_x: int = 41,
                         C: float | None = None) -> SymmetrisationCheck:
    """Lemma 1: symmetrising a feasible 3-output mechanism keeps it feasible and does not
    increase its worst-case variance, because ``Var'(x) = [Var(x) + Var(-x)] / 2``.

    The mechanism is :func:`random_three_output_mechanism` (same arguments); the caller
    asserts ``violation_sym <= tol`` and ``worst_variance_sym <= worst_variance``. The worst
    case is over the grid points.
    """
    eps = check_epsilon(epsilon)
    C = _default_lp_C(eps) if C is None else check_epsilon(C, "C")
    x, P = random_three_output_mechanism(eps, rng, n_x, C)
    P_sym = symmetrise(P)
    var, var_sym = three_output_variance(P, x, C), three_output_variance(P_sym, x, C)
    return SymmetrisationCheck(
        epsilon=eps, C=C, x=x, P=P, P_sym=P_sym,
        asymmetry=float(np.abs(P - P_sym).max()),
        violation=three_output_violation(P, x, C, epsilon),
        violation_sym=three_output_violation(P_sym, x, C, epsilon),
        worst_variance=float(var.max()), worst_variance_sym=float(var_sym.max()),
        identity_error=float(np.abs(var_sym - 0.5 * (var + var[::-1])).max()))


# --------------------------------------------------------------------------- Lemmas 2-3


def _pl_parts(a, b, l):
    """``h = P_{C<-1} = 1 - b - l``, ``m = P_{+-C<-0} = (1 - a)/2`` and ``C = 1/(h - l)``."""
    a, b, l = np.broadcast_arrays(*(np.asarray(v, float) for v in (a, b, l)))
    h = 1.0 - b - l
    m = 0.5 * (1.0 - a)
    with np.errstate(divide="ignore"):
        C = np.where(h > l, 1.0 / (h - l), np.inf)
    return h, m, C


def pl_feasible(epsilon: float, a, b, l, rtol: float = 1e-12) -> np.ndarray:
    """Feasibility of the symmetric piecewise-linear mechanism ``(a, b, l)``; vectorized.

    The family (Eqs. (13)–(18), Sec. V-A): for ``x`` in [0, 1], ``P(0|x) = a + (b - a) x``,
    ``P(-C|x) = m + (l - m) x``, ``P(C|x) = m + (h - m) x`` with ``m = (1 - a)/2`` and
    ``h = 1 - b - l``, negative ``x`` by symmetry (Eqs. (10a)–(10b)); unbiasedness fixes
    ``C = 1/(h - l)``. Each probability is piecewise linear in ``x`` with its extremes at
    ``x`` in ``{-1, 0, 1}``, so (9a)–(9c) reduce to: ``a, b, l >= 0``, ``h > l``,
    ``a <= E b``, ``b <= E a`` (output 0) and ``u <= E v`` for ``u, v`` in ``{l, m, h}``
    (outputs ``+-C``). The LDP ratios get a relative slack ``rtol`` so that points built
    on a tight constraint (such as ``b = a/E``) are not lost to rounding.
    """
    E = np.exp(check_epsilon(epsilon)) * (1.0 + rtol)
    a, b, l = np.broadcast_arrays(*(np.asarray(v, float) for v in (a, b, l)))
    h, m, _ = _pl_parts(a, b, l)
    lo = np.minimum(np.minimum(l, m), h)
    hi = np.maximum(np.maximum(l, m), h)
    return ((a >= 0) & (a <= 1) & (b >= 0) & (l >= 0) & (h > l)
            & (a <= E * b) & (b <= E * a) & (hi <= E * lo))


def pl_worst_case_variance(a, b, l) -> np.ndarray:
    """``max_x Var[Y | x]`` of the family member ``(a, b, l)`` in closed form; vectorized.

    ``Var = C^2 (1 - P(0|x)) - x^2 = C^2 (1 - a + (a - b) s) - s^2`` with ``s = |x|``: a
    concave quadratic in ``s``, largest at ``s* = clip(C^2 (a - b)/2, 0, 1)`` (Eq. (54);
    with ``b = a/E`` this is Eqs. (25), (76)). Infinite where ``h <= l``.
    """
    a, b, l = np.broadcast_arrays(*(np.asarray(v, float) for v in (a, b, l)))
    _, _, C = _pl_parts(a, b, l)
    C2 = C**2
    with np.errstate(invalid="ignore"):
        s = np.clip(0.5 * C2 * (a - b), 0.0, 1.0)
        v = C2 * (1.0 - a) + C2 * (a - b) * s - s**2
    return np.where(np.isfinite(C), v, np.inf)


@dataclass(frozen=True)
class PLOptimum:
    """Best point ``(a, b, l)`` of the family found by :func:`pl_grid_search` or
    :func:`pl_local_optimum`, with ``C = 1/(1 - b - 2l)``, its worst-case variance
    ``worst_variance``, that of Eq. (5)'s Three-Outputs (``eq5_variance``), the Lemma 2–3
    ratios ``b E / a`` and ``h / l`` (nan where ``a = 0`` or ``l = 0``) and ``n_feasible``
    (grid points that are feasible; 0 for the local search)."""

    epsilon: float
    a: float
    b: float
    l: float
    C: float
    worst_variance: float
    eq5_variance: float
    bE_over_a: float
    h_over_l: float
    n_feasible: int


def _pl_optimum(eps, a, b, l, n_feasible) -> PLOptimum:
    E = np.exp(eps)
    h, _, C = _pl_parts(a, b, l)
    return PLOptimum(epsilon=eps, a=float(a), b=float(b), l=float(l), C=float(C),
                     worst_variance=float(pl_worst_case_variance(a, b, l)),
                     eq5_variance=ThreeOutputs(eps).worst_case_variance(),
                     bE_over_a=float(b * E / a) if a > 1e-9 else np.nan,
                     h_over_l=float(h / l) if l > 1e-9 else np.nan, n_feasible=int(n_feasible))


def pl_grid_search(epsilon: float, n: int = 241) -> PLOptimum:
    """Lemmas 2–3: grid search of the family over ``a, b`` in [0, 1] and ``l`` in [0, 1/2].

    ``n^3`` points (241^3 by default, our choice), one ``a`` slice at a time; the best feasible
    point (:func:`pl_feasible`) by :func:`pl_worst_case_variance`. No feasible point should
    beat Eq. (5), whose optimum is not on the grid, so ``worst_variance >= eq5_variance``.
    """
    eps, n = check_epsilon(epsilon), check_positive_int(n, "n")
    b, l = np.meshgrid(np.linspace(0.0, 1.0, n), np.linspace(0.0, 0.5, n), indexing="ij")
    best, arg, count = np.inf, None, 0
    for a in np.linspace(0.0, 1.0, n):
        ok = pl_feasible(eps, a, b, l)
        count += int(ok.sum())
        v = np.where(ok, pl_worst_case_variance(a, b, l), np.inf)
        i = np.unravel_index(np.argmin(v), v.shape)
        if v[i] < best:
            best, arg = v[i], (a, b[i], l[i])
    if arg is None:
        raise RuntimeError(f"no feasible grid point at eps={eps}, n={n}")
    return _pl_optimum(eps, *arg, count)


def pl_local_optimum(epsilon: float, start=None) -> PLOptimum:
    """Lemmas 2–3: local minimisation (SLSQP) of the family's worst-case variance.

    The feasible set of :func:`pl_feasible` is a polytope (all constraints are linear in
    ``(a, b, l)``), so SLSQP gets it as linear inequalities. Starts from ``start`` (default
    :func:`pl_grid_search` with ``n = 61``). It should converge to the tight constraints
    ``b E / a = 1`` (Lemma 3) and ``h / l = E`` (Lemma 2), at Eq. (5).
    """
    eps = check_epsilon(epsilon)
    E = np.exp(eps)
    if start is None:
        g = pl_grid_search(eps, n=61)
        start = (g.a, g.b, g.l)
    pairs = [(i, j) for i in range(3) for j in range(3) if i != j]

    def constraints(z):  # all >= 0 at a feasible point
        a, b, l = z
        lmh = (l, 0.5 * (1.0 - a), 1.0 - b - l)
        return np.array([E * b - a, E * a - b, 1.0 - b - 2.0 * l - 1e-9]
                        + [E * lmh[j] - lmh[i] for i, j in pairs])

    res = optimize.minimize(lambda z: float(pl_worst_case_variance(*z)), np.asarray(start),
                            method="SLSQP", bounds=[(0, 1), (0, 1), (0, 0.5)],
                            constraints=[{"type": "ineq", "fun": constraints}],
                            options={"ftol": 1e-15, "maxiter": 500})
    return _pl_optimum(eps, *res.x, 0)


def lemma3_variance_vs_b(epsilon: float, a: float | None = None, n_b: int = 101,
                         n_x: int = 201) -> pd.DataFrame:
    """Lemma 3 (Appendix C): for fixed ``a``, the variance *increases* with ``b``.

    With Lemma 2's tight constraint ``h = E l`` (so ``l = (1 - b)/(E + 1)`` and
    ``C = (E + 1)/((E - 1)(1 - b))``), ``Var(x)`` is evaluated on ``n_x`` points of
    ``|x|`` in [0, 1] for ``n_b`` values of ``b`` from ``a/E`` (the LDP bound of output 0)
    to ``min(E a, 0.99)``. The paper's wording says "strictly decreasing"; the data show the
    opposite, so the minimum is at the smallest feasible ``b = a/E`` — the paper's
    conclusion (Eq. (24)) stands.

    Parameters
    ----------
    a : float, optional
        ``P_{0<-0}``; default half the cap ``E / (E + 2)``.

    Returns
    -------
    DataFrame
        One row per ``b``: ``b``, ``feasible`` (:func:`pl_feasible`), ``worst_variance``
        and ``increasing_all_x`` (``Var(x)`` at the next ``b`` is larger for every ``x``;
        False on the last row).
    """
    eps = check_epsilon(epsilon)
    E = np.exp(eps)
    a = 0.5 * E / (E + 2.0) if a is None else float(a)
    b = np.linspace(a / E, min(E * a, 0.99), check_positive_int(n_b, "n_b"))
    l = (1.0 - b) / (E + 1.0)
    s = np.linspace(0.0, 1.0, check_positive_int(n_x, "n_x"))
    C2 = ((E + 1.0) / ((E - 1.0) * (1.0 - b)))[:, None] ** 2
    var = C2 * (1.0 - a + (a - b)[:, None] * s) - s**2
    increasing = np.append(np.all(np.diff(var, axis=0) > 0, axis=1), False)
    return pd.DataFrame({"b": b, "feasible": pl_feasible(eps, a, b, l),
                         "worst_variance": pl_worst_case_variance(a, b, l),
                         "increasing_all_x": increasing})


# --------------------------------------------------------------------------- Lemmas 4-5


def cubic_dv_da(a, epsilon):
    """The cubic ``2a^3 - (E^2+4E+5) a^2 - (E^3+4E^2-7E) a + 2E^3 - 4E^2`` (Lemma 4).

    ``dV/da = -K^2 cubic(a) / (2 (E - a)^5)`` with ``K = E (E + 1)/(E - 1)``, for the
    worst-case variance ``V(a) = C^2 (1 - a) + x*^2`` of Eq. (76): the optimal ``a`` is 0
    while the cubic is < 0 at ``a = 0``, its root while that is inside the cap, the cap
    after. Vectorized.
    """
    a = np.asarray(a, float)
    E = np.exp(np.asarray(epsilon, float))
    return (2 * a**3 - (E**2 + 4 * E + 5) * a**2 - (E**3 + 4 * E**2 - 7 * E) * a
            + 2 * E**3 - 4 * E**2)


def p00_bounded_min(epsilon: float) -> float:
    """Optimal ``a = P_{0<-0}`` by bounded scalar minimisation (Lemma 4 cross-check).

    :func:`scipy.optimize.minimize_scalar` (bounded) of
    ``ThreeOutputs(eps, a=a).worst_case_variance()`` over ``a`` in ``[0, E/(E+2)]`` (Eq. (83)),
    then the two endpoints are tried too (Brent's search never evaluates them). Compare
    with the closed form :func:`~ldp_companion.mechanisms.three_outputs.p00` (Eq. (5)):
    the minimum is flat, so expect agreement to about 1e-8.
    """
    eps = check_epsilon(epsilon)
    E = np.exp(eps)
    cap = E / (E + 2.0)

    def worst(a):
        return ThreeOutputs(eps, a=min(max(float(a), 0.0), cap)).worst_case_variance()

    res = optimize.minimize_scalar(worst, bounds=(0.0, cap), method="bounded",
                                   options={"xatol": 1e-12})
    return float(min([res.x, 0.0, cap], key=worst))


@dataclass(frozen=True)
class Lemma4Thresholds:
    """Thresholds of Eq. (5) found by root finding: ``eps_duchi`` (the cubic vanishes at
    ``a = 0``; ``ln 2``), ``eps_cap`` (it vanishes at the cap ``E/(E+2)``;
    ``eps' = ln((3 + sqrt 65)/2)``) and ``eps_cap_factor`` (the positive root of
    ``E^2 - 3E - 14``, as ``ln E``)."""

    eps_duchi: float
    eps_cap: float
    eps_cap_factor: float


def lemma4_thresholds() -> Lemma4Thresholds:
    """The two switch points of Eq. (5) by :func:`scipy.optimize.brentq` on the cubic."""
    def at_cap(eps):
        E = np.exp(eps)
        return float(cubic_dv_da(E / (E + 2.0), eps))

    roots = Polynomial([-14.0, -3.0, 1.0]).roots()
    return Lemma4Thresholds(
        eps_duchi=optimize.brentq(lambda e: float(cubic_dv_da(0.0, e)), 0.1, 1.5, xtol=1e-15),
        eps_cap=optimize.brentq(at_cap, 1.0, 3.0, xtol=1e-15),
        eps_cap_factor=float(np.log(roots.real.max())))


def cubic_at_cap():
    """The cubic at the cap, ``(E + 2)^3 cubic(E/(E + 2))``, divided by ``E^2 - 3E - 14``.

    Exact polynomial arithmetic in ``E`` (:class:`numpy.polynomial.Polynomial`, small
    integer coefficients). A zero remainder shows that at the cap the cubic vanishes where
    ``E^2 - 3E - 14 = 0``, i.e. at Eq. (5)'s threshold ``eps' = ln((3 + sqrt(65)) / 2)``
    (Lemma 4, Appendix E).

    Returns
    -------
    product, quotient, remainder : Polynomial
        ``product = quotient (E^2 - 3E - 14) + remainder``.
    """
    E, two = Polynomial([0.0, 1.0]), Polynomial([2.0, 1.0])  # E and E + 2
    product = (2 * E**3 - (E**2 + 4 * E + 5) * E**2 * two
               - (E**3 + 4 * E**2 - 7 * E) * E * two**2 + (2 * E**3 - 4 * E**2) * two**3)
    quotient, remainder = divmod(product, Polynomial([-14.0, -3.0, 1.0]))
    return product, quotient, remainder


def _three_outputs_closed_form(eps: float, a: float):
    """``(C, x*, V)`` of Three-Outputs with ``P_{0<-0} = a`` (Eqs. (2), (25), (76), (86b))."""
    E = np.exp(eps)
    C = E * (E + 1.0) / ((E - 1.0) * (E - a))
    x_star = 0.5 * C**2 * a * (1.0 - 1.0 / E)
    V = C**2 * (1.0 - a) + x_star**2 if x_star <= 1.0 else C**2 * (1.0 - a / E) - 1.0
    return C, x_star, V


def lemma4_table(eps_grid=(0.5, 0.75, 1.0, 1.25, 1.5, EPS_CAP, 2.0, 3.0, 4.0, 6.0, 8.0)
                 ) -> pd.DataFrame:
    """Lemma 4 (Appendix E; the paper prints no table): ``a*`` by Eq. (5) (:func:`p00`) and by
    :func:`p00_bounded_min`, with ``C``, ``x*`` and ``V_3O`` at the closed-form ``a*``."""
    rows = []
    for eps in eps_grid:
        a = float(p00(eps))
        C, x_star, V = _three_outputs_closed_form(float(eps), a)
        rows.append({"eps": float(eps), "a_closed": a, "a_bounded_min": p00_bounded_min(eps),
                     "C": C, "x_star": x_star, "V_3O": V})
    df = pd.DataFrame(rows)
    df["a_abs_diff"] = (df.a_closed - df.a_bounded_min).abs()
    return df


def lemma5_table(eps_grid=(0.5, 0.75, 1.0, 1.25, 1.5, EPS_CAP, 2.0, 3.0, 4.0, 6.0, 8.0),
                 n_x: int = 20001) -> pd.DataFrame:
    """Lemma 5: worst-case variance of Three-Outputs three ways.

    Columns: ``V_closed`` (``C^2 (1 - a) + x*^2``, written out here), ``V_class``
    (``ThreeOutputs(eps).worst_case_variance()``), ``V_grid`` (max of
    ``ThreeOutputs(eps).variance`` over ``n_x`` inputs, a lower bound), ``V_cap``
    (``(E + 2)(E + 10)/(4 (E - 1)^2)`` for ``eps > eps'``, nan below) and ``x_star``.
    """
    x = np.linspace(0.0, 1.0, check_positive_int(n_x, "n_x"))
    rows = []
    for eps in eps_grid:
        eps = float(eps)
        E, mech = np.exp(eps), ThreeOutputs(eps)
        _, x_star, V = _three_outputs_closed_form(eps, mech.a)
        rows.append({"eps": eps, "x_star": x_star, "V_closed": V,
                     "V_class": mech.worst_case_variance(),
                     "V_grid": float(mech.variance(x).max()),
                     "V_cap": (E + 2) * (E + 10) / (4 * (E - 1) ** 2) if eps > EPS_CAP
                     else np.nan})
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- beyond the paper


def lp_worst_variance(epsilon: float, C: float, n_x: int = 201):
    """Smallest worst-case variance over *all* ``eps``-LDP unbiased mechanisms with outputs
    ``{-C, 0, C}`` on :func:`symmetric_x_grid` (``n_x`` points); LP with an epigraph
    variable, HiGHS.

    Returns
    -------
    value : float
        The LP optimum (inf if infeasible, i.e. ``C < C_D``).
    P : ndarray, shape (3, n_x) or None
        The optimal mechanism on the grid.
    """
    eps = check_epsilon(epsilon)
    x = symmetric_x_grid(n_x)
    a_ub, b_ub, a_eq, b_eq, bounds = _lp_constraints(np.exp(eps), C, x, epigraph=True)
    cost = np.zeros(3 * x.size + 7)
    cost[-1] = 1.0
    res = optimize.linprog(cost, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=b_eq, bounds=bounds,
                           method="highs")
    if res.status != 0:
        return np.inf, None
    return float(res.fun), res.x[:3 * x.size].reshape(3, x.size)


@dataclass(frozen=True)
class LPOptimum:
    """Result of :func:`lp_optimal_three_outputs`.

    ``worst_variance`` is the LP optimum: the max of ``Var`` over the ``n_x`` grid points
    only. ``worst_variance_interpolated`` is the exact worst case over all of [-1, 1] of
    the mechanism that interpolates ``P`` linearly between grid points (a valid
    ``eps``-LDP unbiased mechanism: pmf, unbiasedness and the LDP bounds survive convex
    combinations), at most ``h^2/4`` above it for grid step ``h``. ``three_outputs_variance``
    is Eq. (5)'s mechanism and ``gap`` = ``worst_variance / three_outputs_variance - 1``.
    """

    epsilon: float
    n_x: int
    C: float
    worst_variance: float
    worst_variance_interpolated: float
    three_outputs_variance: float
    gap: float
    x: np.ndarray
    P: np.ndarray


def _interpolated_worst_variance(P, x, C) -> float:
    """Exact ``max_x Var`` of the mechanism linear in ``x`` between grid points.

    On a segment ``Var(x) = C^2 (1 - P0(x)) - x^2`` is a concave quadratic; its
    stationary point is ``x = -C^2 P0'/2`` (P0' the segment slope), if inside.
    """
    var = three_output_variance(P, x, C)
    slope = np.diff(P[1]) / np.diff(x)
    xs = np.clip(-0.5 * C**2 * slope, x[:-1], x[1:])
    p0 = P[1, :-1] + slope * (xs - x[:-1])
    return float(max(var.max(), (C**2 * (1.0 - p0) - xs**2).max()))


def lp_optimal_three_outputs(epsilon: float, n_x: int = 201) -> LPOptimum:
    """Beyond the paper (our extension of Lemmas 4–5): the best 3-output mechanism of all.

    Outer bounded scalar minimisation over ``C`` in ``[C_D, 1.5 C_D]`` of
    :func:`lp_worst_variance` (the LP optimum is unimodal in ``C`` there for the ``eps``
    of :data:`LEMMA_EPS`; ``C < C_D`` is infeasible), plus the endpoint ``C_D``. The worst
    case is over the grid points (see :class:`LPOptimum`). Reference
    (:data:`LP_REFERENCE`, 201 points): it beats Three-Outputs by up to 8.5 % (eps = 1.5),
    so Eq. (5) is optimal only within the paper's symmetric piecewise-linear family.
    """
    eps = check_epsilon(epsilon)
    E = np.exp(eps)
    c_d = (E + 1.0) / np.expm1(eps)
    res = optimize.minimize_scalar(lambda C: lp_worst_variance(eps, C, n_x)[0],
                                   bounds=(c_d, 1.5 * c_d), method="bounded",
                                   options={"xatol": 1e-8 * c_d})
    C = min([float(res.x), c_d], key=lambda c: lp_worst_variance(eps, c, n_x)[0])
    value, P = lp_worst_variance(eps, C, n_x)
    x = symmetric_x_grid(n_x)
    v3 = ThreeOutputs(eps).worst_case_variance()
    return LPOptimum(epsilon=eps, n_x=int(n_x), C=C, worst_variance=value,
                     worst_variance_interpolated=_interpolated_worst_variance(P, x, C),
                     three_outputs_variance=v3, gap=value / v3 - 1.0, x=x, P=P)


# --------------------------------------------------------------------------- Lemma 7


def lemma7_table(eps_grid=(0.1, 0.5, 1.0, 2.0, 3.0, 4.0, 6.0, 8.0, 10.0)) -> pd.DataFrame:
    """Lemma 7: PM-OPT's ``t*`` three ways and PM-SUB's closeness to PM-OPT (Sec. V-C).

    Columns: ``t_brentq`` (:func:`pm_opt_t`, root of ``t^4 + 2E t^3 - 2E t - E^2`` in
    ``(1, e^{eps/2})``), ``t_ferrari`` (:func:`pm_opt_t_ferrari`, Eqs. (59)–(71)),
    ``t_minimize`` (bounded :func:`scipy.optimize.minimize_scalar` of ``V(t)``, Eq. (32), on
    ``[1, e^{eps/2}]``; a flat minimum, so it agrees to about 1e-8 relative only),
    ``t_over_sub`` (``t* / e^{eps/3}``), ``sub_over_opt`` (``V_SUB / V_OPT``, claimed <= 1.05),
    ``sub_over_pm`` and ``ferrari_singular``: True within 1e-3 of ``eps = ln(2)/2``, where
    the Ferrari form is 0/0 (nan or inf exactly there, inaccurate nearby).
    """
    rows = []
    for eps in eps_grid:
        eps = check_epsilon(eps)
        t = pm_opt_t(eps)
        res = optimize.minimize_scalar(lambda u, eps=eps: Piecewise(eps, u).worst_case_variance(),
                                       bounds=(1.0, np.exp(eps / 2.0)), method="bounded",
                                       options={"xatol": 1e-14})
        v_sub = PMSub(eps).worst_case_variance()
        rows.append({"eps": eps, "t_brentq": t, "t_ferrari": float(pm_opt_t_ferrari(eps)),
                     "t_minimize": float(res.x), "t_over_sub": t / np.exp(eps / 3.0),
                     "sub_over_opt": v_sub / Piecewise(eps, t).worst_case_variance(),
                     "sub_over_pm": v_sub / PM(eps).worst_case_variance(),
                     "ferrari_singular": abs(eps - 0.5 * np.log(2.0)) < 1e-3})
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- HM-TP★


@dataclass(frozen=True)
class HMTPStar:
    """Result of :func:`hm_tp_star`: the jointly optimal ``a`` and ``beta``, the worst-case
    variance ``worst_variance`` and, for comparison, HM-TP's (``hm_tp_variance``, the
    standalone optimal ``a`` of Eq. (5)) and HM's (``hm_variance``)."""

    epsilon: float
    a: float
    beta: float
    worst_variance: float
    hm_tp_variance: float
    hm_variance: float


def _best_beta(sub: PMSub, three: ThreeOutputs):
    """``min over beta`` of the mixture's worst case (convex in ``beta``): ``(beta, V)``."""
    def worst(beta):
        return Mixture(sub, three, min(max(float(beta), 0.0), 1.0)).worst_case_variance()

    res = optimize.minimize_scalar(worst, bounds=(0.0, 1.0), method="bounded",
                                   options={"xatol": 1e-10})
    beta = min([float(res.x), 0.0, 1.0], key=worst)
    return beta, worst(beta)


def hm_tp_star(epsilon: float, n_a: int = 41) -> HMTPStar:
    """HM-TP★ (our extension of Sec. V-E, not in the paper): PM-SUB w.p. ``beta`` and
    Three-Outputs with a free ``a`` otherwise, ``(a, beta)`` minimising the worst case.

    For each ``a`` on ``n_a`` points of ``[0, E/(E+2)]`` the best ``beta`` is a bounded
    scalar minimisation (the worst case is a max of functions affine in ``beta``, hence
    convex); the best ``a`` is then refined by a bounded search between its grid
    neighbours. Reference (computed here): 4.2673 at eps = 1 and 1.8481 at 1.5 (``a = 0``,
    i.e. Duchi + PM-SUB; HM: 4.2890, 1.8922); equal to HM-TP for eps >= 2.
    """
    eps = check_epsilon(epsilon)
    E, sub = np.exp(eps), PMSub(eps)
    cap = E / (E + 2.0)

    def profile(a):
        return _best_beta(sub, ThreeOutputs(eps, a=min(max(float(a), 0.0), cap)))[1]

    grid = np.linspace(0.0, cap, check_positive_int(n_a, "n_a"))
    i = int(np.argmin([profile(a) for a in grid]))
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]
    res = optimize.minimize_scalar(profile, bounds=(lo, hi), method="bounded",
                                   options={"xatol": 1e-10})
    a = min([float(res.x), float(grid[i])], key=profile)
    beta, value = _best_beta(sub, ThreeOutputs(eps, a=a))
    return HMTPStar(epsilon=eps, a=a, beta=beta, worst_variance=value,
                    hm_tp_variance=HMTP(eps).worst_case_variance(),
                    hm_variance=HM(eps).worst_case_variance())


# --------------------------------------------------------------------------- Fig. 4, Eq. (26b)

def paper_t(name: str, epsilon: float) -> float:
    """``t`` of a piecewise mechanism as the paper states it, typed here independently of
    :mod:`ldp_companion.mechanisms.piecewise`.

    PM (Wang et al.): ``e^{eps/2}``; PM-SUB (Alg. 4): ``e^{eps/3}``; PM-OPT (Alg. 3, Lemma 7,
    Eq. (30)): the one real root above 1 of the quartic ``t^4 + 2E t^3 - 2E t - E^2``, here
    from the companion matrix's eigenvalues (:func:`numpy.roots`), not by bracketing.

    Parameters
    ----------
    name : {"pm", "pm_sub", "pm_opt"}
    epsilon : float
        Privacy budget, finite and > 0 (PM-OPT: at most 30, where ``E^2`` still fits the
        quartic's coefficients to double precision).
    """
    eps = check_epsilon(epsilon)
    if name == "pm":
        return float(np.exp(eps / 2.0))
    if name == "pm_sub":
        return float(np.exp(eps / 3.0))
    if name != "pm_opt":
        raise ValueError(f"name must be 'pm', 'pm_sub' or 'pm_opt', got {name!r}")
    if eps > 30.0:
        raise ValueError(f"epsilon must be <= 30 for PM-OPT's quartic, got {eps!r}")
    E = np.exp(eps)
    roots = np.roots([1.0, 2.0 * E, 0.0, -2.0 * E, -(E**2)])
    real = roots[np.abs(roots.imag) <= 1e-9 * np.abs(roots)].real
    return float(real[real > 1.0].max())


def piecewise_density(y, x: float, epsilon: float, t: float) -> np.ndarray:
    """The output density of the piecewise mechanism with parameter ``t`` (Eq. (26b)).

    With ``E = e^eps``: ``p = t E (E - 1) / (2 (t + E)^2)`` on
    ``[L(x), R(x)] = [(t + E)(t x - 1), (t + E)(t x + 1)] / (t (E - 1))``, ``p / E`` on the rest
    of ``[-A, A]``, ``A = (t + E)(t + 1) / (t (E - 1))``, and 0 outside (Fig. 4's three pieces).

    Parameters
    ----------
    y : array_like
        Output values.
    x : float
        Input in [-1, 1].
    epsilon, t : float
        Finite and > 0.
    """
    eps, t = check_epsilon(epsilon), check_epsilon(t, "t")
    if not -1.0 <= x <= 1.0:
        raise ValueError(f"x must lie in [-1, 1], got {x!r}")
    E = np.exp(eps)
    y = np.asarray(y, float)
    p = t * E * (E - 1.0) / (2.0 * (t + E) ** 2)
    left = (t + E) * (t * x - 1.0) / (t * (E - 1.0))
    right = (t + E) * (t * x + 1.0) / (t * (E - 1.0))
    A = (t + E) * (t + 1.0) / (t * (E - 1.0))
    return np.where((y >= left) & (y <= right), p, np.where(np.abs(y) <= A, p / E, 0.0))


def density_gap(mechanism, t: float, x: float, n_y: int = 2000) -> float:
    """Largest relative gap between ``mechanism``'s output density at input ``x`` and
    :func:`piecewise_density` with parameter ``t``, on ``n_y`` outputs spread over (and a
    tenth beyond) the paper's range ``[-A, A]``.

    The outputs are cell midpoints, away from the density's jumps; a point where one density
    is 0 and the other is not counts as a gap of 1.
    """
    n_y = check_positive_int(n_y, "n_y")
    eps = mechanism.epsilon
    E = np.exp(eps)
    A = (t + E) * (t + 1.0) / (t * (E - 1.0))
    ys = 1.1 * A * (2.0 * (np.arange(n_y) + 0.5) / n_y - 1.0)
    paper = piecewise_density(ys, x, eps, t)
    with np.errstate(divide="ignore"):
        ours = np.exp(mechanism.output_law(x).logpdf(ys))
    scale = np.maximum(np.abs(paper), np.abs(ours))
    gap = np.where(scale > 0, np.abs(ours - paper) / np.where(scale > 0, scale, 1.0), 0.0)
    return float(gap.max())


# --------------------------------------------------------------------------- Tables I-II

def crossing(name_a: str, name_b: str, lo: float, hi: float) -> float:
    """The ε in ``[lo, hi]`` where the worst-case variances of two mechanisms are equal, or
    NaN when they do not cross there (the difference has one sign at both ends).

    :func:`ldp_companion.mechanisms.compare.crossover` raises in that case; a threshold the
    paper states but the closed forms do not have is a finding (a failed claim), not an error.
    """
    from ldp_companion.mechanisms import get_mechanism
    from ldp_companion.mechanisms.compare import crossover

    lo, hi = check_epsilon(lo, "lo"), check_epsilon(hi, "hi")
    ends = [get_mechanism(name_a, e).worst_case_variance()
            - get_mechanism(name_b, e).worst_case_variance() for e in (lo, hi)]
    if np.sign(ends[0]) == np.sign(ends[1]):
        return float("nan")
    return crossover(name_a, name_b, lo, hi)
