"""Tests of the SPOF theory modules (chapter 4): :mod:`ldp_companion.spof.taylor`,
:mod:`~ldp_companion.spof.sensitivity`, :mod:`~ldp_companion.spof.privacy` and
:mod:`~ldp_companion.spof.complexity`, against the brief (``shared/papers/spof.brief.md``,
errata, §2.2-2.9, §3 C1-C5, C10-C13, §6).

Every kind of check is written once as a ``check_*`` function and run twice: on the real
implementation (it passes) and on a mutant (it must fail), so each check is shown to be able to
fail. Random draws are seeded; draw counts are stated next to each Monte Carlo test.
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
import sympy
from conftest import assert_printed, assert_sig
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize, stats

from ldp_companion.spof import complexity as K
from ldp_companion.spof import privacy as P
from ldp_companion.spof import sensitivity as S
from ldp_companion.spof import taylor as T

N, L = 14, 7
LN2 = math.log(2.0)
X_GRID = np.linspace(0.0, 1.0, 101)
SEED = 20250401


def fd1(f, z, h=1e-5):
    return (f(z + h) - f(z - h)) / (2 * h)


def fd2(f, z, h=1e-4):
    return (f(z + h) - 2 * f(z) + f(z - h)) / (h * h)


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-np.asarray(z, float)))


# =========================================================================== taylor (C1, C2)

def _sympy_coefficients():
    """``α₂(x)``, ``α₃(x)`` of the series of ``sp(z) - x z`` at 0 (brief §2.3), lambdified."""
    x, z = sympy.symbols("x z")
    series = sympy.series(sympy.log(1 + sympy.exp(z)) - x * z, z, 0, 5).removeO().expand()
    a1 = series.coeff(z, 0)
    assert sympy.simplify(a1 - sympy.log(2)) == 0
    assert series.coeff(z, 3) == 0 and series.coeff(z, 4) == sympy.Rational(-1, 192)
    return (sympy.lambdify(x, series.coeff(z, 1), "numpy"),
            sympy.lambdify(x, series.coeff(z, 2), "numpy"))


SYMPY_A2, SYMPY_A3 = _sympy_coefficients()


def check_against_sympy(coeff_fn):
    a1, a2, a3 = coeff_fn(X_GRID)
    np.testing.assert_allclose(a1, LN2, atol=1e-15)
    np.testing.assert_allclose(a2, SYMPY_A2(X_GRID) + 0 * X_GRID, atol=1e-15)
    np.testing.assert_allclose(a3, SYMPY_A3(X_GRID) + 0 * X_GRID, atol=1e-15)


def check_eq12(coeff_fn):
    _, a2, a3 = coeff_fn(X_GRID)
    np.testing.assert_allclose(a2, 0.5 - X_GRID, atol=1e-15)
    np.testing.assert_allclose(a3, 0.5 * X_GRID - 0.25, atol=1e-15)


def test_exact_coefficients_are_the_sympy_series():
    check_against_sympy(lambda x: T.coefficients(x, "exact"))
    assert SYMPY_A3(0.3) == pytest.approx(0.125)          # data-independent 1/8


def test_paper_coefficients_are_eq12_and_not_the_series():
    check_eq12(lambda x: T.coefficients(x, "paper"))
    with pytest.raises(AssertionError):                     # the paper's α₃ is wrong
        check_against_sympy(lambda x: T.coefficients(x, "paper"))


def test_coefficient_checks_fail_on_mutants():
    def alpha3_sign_flipped(x):
        a1, a2, a3 = T.coefficients(x, "exact")
        return a1, a2, -a3

    def alpha2_sign_flipped(x):
        a1, a2, a3 = T.coefficients(x, "paper")
        return a1, -a2, a3

    with pytest.raises(AssertionError):
        check_against_sympy(alpha3_sign_flipped)
    with pytest.raises(AssertionError):
        check_eq12(alpha2_sign_flipped)
    with pytest.raises(AssertionError):
        check_eq12(lambda x: T.coefficients(x, "exact"))


def _true_f_derivatives(x, a):
    """``(f₁', f₁'', f₂', f₂'')`` at ``a`` by central finite differences."""
    f1 = lambda z: x * np.log1p(np.exp(-z))                 # noqa: E731
    f2 = lambda z: (1 - x) * np.log1p(np.exp(z))            # noqa: E731
    return fd1(f1, a), fd2(f1, a), fd1(f2, a), fd2(f2, a)


def check_derivatives(deriv_fn, a):
    for x in (0.0, 0.2, 0.5, 0.9):
        np.testing.assert_allclose(deriv_fn(x, a), _true_f_derivatives(x, a), atol=1e-6)


@pytest.mark.parametrize("a", [-1.0, 0.0, 0.7])
def test_paper_derivatives_sign_error_on_f2_second(a):
    paper = lambda x, a: T.paper_derivatives(x, a)          # noqa: E731
    corrected = lambda x, a: np.array(T.paper_derivatives(x, a)) * [1, 1, 1, -1]  # noqa: E731
    check_derivatives(corrected, a)                          # f₁', f₁'', f₂' as printed
    with pytest.raises(AssertionError):                      # f₂'' < 0 as printed: wrong
        check_derivatives(paper, a)
    assert T.paper_derivatives(0.3, a)[3] < 0 < _true_f_derivatives(0.3, a)[3]


def test_c1_derivatives_at_zero():
    for x in (0.0, 0.3, 1.0):
        d = _true_f_derivatives(x, 0.0)
        np.testing.assert_allclose(d, [-x / 2, x / 4, (1 - x) / 2, (1 - x) / 4], atol=1e-7)


def test_bce_identity_and_its_derivatives():
    z = np.linspace(-30, 30, 121)[None, :]
    x = X_GRID[::10, None]
    direct = x * np.log1p(np.exp(-z)) + (1 - x) * np.log1p(np.exp(z))
    np.testing.assert_allclose(T.bce(x, z), direct, rtol=1e-12, atol=1e-12)
    zs = np.linspace(-4, 4, 17)
    np.testing.assert_allclose(fd1(lambda t: T.bce(0.3, t), zs), sigmoid(zs) - 0.3, atol=1e-9)
    s = sigmoid(zs)
    np.testing.assert_allclose(fd2(lambda t: T.bce(0.3, t), zs), s * (1 - s), atol=1e-6)


def check_polynomial_is_taylor(variant):
    """The polynomial's value, slope and curvature at 0 are the loss's (finite differences)."""
    for x in (0.0, 0.3, 1.0):
        loss, poly = (lambda t, x=x: T.bce(x, t)), (lambda t, x=x: T.polynomial(x, t, variant))
        assert poly(0.0) == pytest.approx(loss(0.0), abs=1e-12)
        assert fd1(poly, 0.0) == pytest.approx(fd1(loss, 0.0), abs=1e-8)
        assert fd2(poly, 0.0) == pytest.approx(fd2(loss, 0.0), abs=1e-6)


def test_polynomial_derivatives_match_the_loss_only_for_exact():
    check_polynomial_is_taylor("exact")
    with pytest.raises(AssertionError):
        check_polynomial_is_taylor("paper")


def test_exact_minimiser_and_paper_concavity():
    x = X_GRID
    _, a2, a3 = T.coefficients(x, "exact")
    np.testing.assert_allclose(-a2 / (2 * a3), 4 * x - 2, atol=1e-12)   # z* = 4x - 2
    _, a2, a3 = T.coefficients(x, "paper")
    assert np.all(a3[x < 0.5] < 0)                                      # concave for x < 0.5
    upper = x > 0.5
    np.testing.assert_allclose(-a2[upper] / (2 * a3[upper]), 1.0, atol=1e-12)


# ----------------------------------------------------------------- softplus derivatives (C2)

SP_3_TO_14 = ["0", "-1/8", "0", "1/4", "0", "-17/16", "0", "31/4", "0", "-691/8", "0", "5461/4"]


def _sigma_derivatives_at_zero(kmax):
    """``σ^{(k)}(0)``, k = 0..kmax, exactly: ``σ^{(k)} = P_k(σ)`` with ``P_{k+1} = P_k' σ(1-σ)``
    (independent of sympy's series)."""
    poly, out = [Fraction(0), Fraction(1)], []           # P_0(s) = s, coefficients by power
    for _ in range(kmax + 1):
        out.append(sum(c * Fraction(1, 2) ** i for i, c in enumerate(poly)))
        deriv = [i * c for i, c in enumerate(poly)][1:]
        nxt = [Fraction(0)] * (len(deriv) + 2)
        for i, c in enumerate(deriv):                    # times s - s²
            nxt[i + 1] += c
            nxt[i + 2] -= c
        poly = nxt
    return out


SOFTPLUS_20 = T.softplus_derivatives(20)


def check_softplus_derivatives(derivs):
    sigma = _sigma_derivatives_at_zero(20)
    for r in range(1, 21):
        assert Fraction(str(derivs[r])) == sigma[r - 1], f"r = {r}"


def test_softplus_derivatives_values():
    assert SOFTPLUS_20[20] == sympy.Rational(-221930581, 8)
    assert [str(d) for d in SOFTPLUS_20[3:15]] == SP_3_TO_14
    assert SOFTPLUS_20[0] == sympy.log(2) and SOFTPLUS_20[1:3] == [sympy.Rational(1, 2),
                                                                   sympy.Rational(1, 4)]
    check_softplus_derivatives(SOFTPLUS_20)


def test_softplus_derivative_check_fails_on_off_by_one():
    sigma = _sigma_derivatives_at_zero(21)
    off_by_one = [sympy.log(2)] + [sympy.Rational(f.numerator, f.denominator)
                                   for f in sigma[1:21]]        # σ^{(r)} instead of σ^{(r-1)}
    with pytest.raises(AssertionError):
        check_softplus_derivatives(off_by_one)


def test_softplus_derivatives_by_finite_differences():
    sp = lambda z: np.logaddexp(0.0, z)                      # noqa: E731
    assert fd1(sp, 0.0) == pytest.approx(float(SOFTPLUS_20[1]), abs=1e-9)
    assert fd2(sp, 0.0) == pytest.approx(float(SOFTPLUS_20[2]), abs=1e-7)
    h = 1e-2                                                 # 4th difference, O(h²) error
    d4 = (sp(2 * h) - 4 * sp(h) + 6 * sp(0) - 4 * sp(-h) + sp(-2 * h)) / h**4
    assert d4 == pytest.approx(float(SOFTPLUS_20[4]), abs=1e-4)


def test_no_uniform_bound_g_prop1():
    """max_{3<=r<=R} |sp^{(r)}(0)| keeps growing; even orders ~ 2 (r-1)! / π^r (erratum 5)."""
    mags = np.array([abs(float(d)) for d in SOFTPLUS_20])
    running = np.maximum.accumulate(mags[3:])
    assert np.all(np.diff(running[1::2]) > 0)                     # grows at every even order
    for r in (12, 16, 20):
        assert mags[r] / (2 * math.factorial(r - 1) / math.pi**r) == pytest.approx(1, rel=1e-3)
    assert mags[20] / (math.factorial(20) / math.pi**20) == pytest.approx(1 / 10, rel=1e-2)


# ----------------------------------------------------------------- error table (C2)

DELTAS = [0.1, 0.5, 1.0, 2.0, 3.0]
C2_PAPER = ["3.749e-3", "9.343e-2", "0.3701", "1.434", "3.105"]
C2_EXACT = ["5.205e-7", "3.202e-4", "4.885e-3", "6.622e-2", "0.2696"]
C2_BOUND = ["5.208e-7", "3.255e-4", "5.208e-3", "8.333e-2", "0.4219"]


def _max_error(poly_fn, delta):
    """Independent re-implementation of ``max_error`` for a polynomial ``poly_fn(x, z)``."""
    x = np.linspace(0.0, 1.0, 11)[:, None]
    z = np.linspace(-delta, delta, 401)[None, :]
    return float(np.abs(T.bce(x, z) - poly_fn(x, z)).max())


def check_error_table(err_fn, printed):
    for delta, p in zip(DELTAS, printed):
        assert_sig(err_fn(delta), p)


def check_remainder_bound(bound_fn):
    for delta in DELTAS + [0.01, 0.3, 1.5, 2.5]:
        assert bound_fn(delta) >= T.max_error(delta, "exact", n_grid=2001)


def test_c2_error_table():
    check_error_table(lambda d: T.max_error(d, "paper"), C2_PAPER)
    check_error_table(lambda d: T.max_error(d, "exact"), C2_EXACT)
    check_error_table(T.remainder_bound, C2_BOUND)
    for d in DELTAS:
        assert T.max_error(d, "exact") == _max_error(lambda x, z: T.polynomial(x, z, "exact"), d)
    check_remainder_bound(T.remainder_bound)
    # the paper's polynomial is O(δ²), worst at x = 0: 0.375 z² to leading order
    assert T.max_error(0.01, "paper") == pytest.approx(0.375e-4, rel=1e-3)


def test_c2_checks_fail_on_mutants():
    halved = lambda x, z: np.log(2) + (0.5 - x) * z + z * z / 16     # noqa: E731
    with pytest.raises(AssertionError):
        check_error_table(lambda d: _max_error(halved, d), C2_EXACT)
    with pytest.raises(AssertionError):
        check_remainder_bound(lambda d: d**4 / 384)
    with pytest.raises(AssertionError):
        check_error_table(lambda d: T.max_error(d, "exact"), C2_PAPER)


# =========================================================================== sensitivity (C3-C5)

def _paper_alphas(x):
    return T.coefficients(x, "paper")[1:]


def check_delta_bar(coeff_fn, n=N):
    assert S.empirical_sensitivity(coeff_fn, n) == pytest.approx(S.delta_bar(n), abs=1e-12)


def test_c3_delta_bar():
    assert S.delta_bar(N) == 21.0
    check_delta_bar(_paper_alphas)
    assert S.empirical_sensitivity(_paper_alphas, N) == pytest.approx(21.0, abs=1e-12)
    sum_query = lambda x: (sum(T.coefficients(x, "paper")[1:]),)    # noqa: E731
    assert S.empirical_sensitivity(sum_query, N) == pytest.approx(7.0, abs=1e-12)
    exact = lambda x: T.coefficients(x, "exact")[1:]                 # noqa: E731
    assert S.empirical_sensitivity(exact, N) == pytest.approx(14.0, abs=1e-12)


def test_c3_bound_is_tight_over_whole_records():
    """Random record pairs never beat 21; the pair 0 / 1 attains it (independent of the grid)."""
    rng = np.random.default_rng(SEED)
    x, y = rng.uniform(size=(2, 5000, N))
    d = P.coefficient_release(x) - P.coefficient_release(y)
    assert np.abs(d).sum(axis=1).max() < 21.0
    ends = P.coefficient_release(np.stack([np.zeros(N), np.ones(N)]))
    assert np.abs(ends[0] - ends[1]).sum() == 21.0


def test_c3_check_fails_on_mutant():
    mutant = lambda x: (0.5 - x, x - 0.25)                  # noqa: E731 (α₃ slope 1: 28)
    with pytest.raises(AssertionError):
        check_delta_bar(mutant)


C_VALUES = [0.625, 1.25, 1.875, 2.5]
C5_TABLE = {"public": ["41.23", "66.94", "98.11", "134.75"],
            "half": ["115.75", "277.48", "506.21", "801.94"],
            "worst": ["277.48", "801.94", "1594.36", "2654.75"]}
C5_CJ = {"public": 1.0, "half": L / 2, "worst": float(L)}


def check_delta_hat_table(delta_hat_fn):
    for key, printed in C5_TABLE.items():
        for c, p in zip(C_VALUES, printed):
            assert_printed(float(delta_hat_fn(N, C5_CJ[key] * c)), p)
    assert float(delta_hat_fn(N, 0.0)) == 21.0


def test_c5_delta_hat_table():
    check_delta_hat_table(S.delta_hat)
    np.testing.assert_allclose(S.delta_hat(N, [2.5, 17.5]), [134.75, 2654.75])
    assert S.stabilization_shift(2.5, 3.0, L, "data") == 7.5
    assert S.stabilization_shift(2.5, 3.0, L, "public") == 2.5
    assert S.stabilization_shift(2.5, 3.0, L, "worst") == 17.5


def test_c5_check_fails_on_wrong_constant():
    wrong = lambda n, cj: S.delta_bar(n) + n * cj * (cj / 2 + 1)   # noqa: E731
    with pytest.raises(AssertionError):
        check_delta_hat_table(wrong)


def test_c5_app_d_algebra_and_true_shifted_sensitivity():
    x, z, c = sympy.symbols("x z c")
    a2, a3 = sympy.Rational(1, 2) - x, x / 2 - sympy.Rational(1, 4)
    poly = sympy.expand(a2 * (z + c) + a3 * (z + c) ** 2)
    assert sympy.simplify(poly.coeff(z, 1) - (a2 + 2 * c * a3)) == 0
    assert sympy.simplify(poly.coeff(z, 1) - (a2 * (1 + 2 * c))) != 0     # App. D's form
    assert poly.coeff(z, 1).subs({c: 2.5, x: 0}) == -0.75
    assert (a2 * (1 + 2 * c)).subs({c: 2.5, x: 0}) == 3.0
    shifted = lambda xs: tuple(P.coefficient_release(xs[:, None], shift=2.5).T)  # noqa: E731
    assert S.empirical_sensitivity(shifted, N) == pytest.approx(28.0, abs=1e-12)  # |1-c|+0.5
    const = sympy.lambdify(x, poly.coeff(z, 0).subs(c, 2.5))
    assert abs(const(0.0) - const(1.0)) == pytest.approx(0.625)


EPS_C4 = [0.01, 0.1, 0.2, 0.4, 0.8, 1, 1.6, 10, 20]
C4_SCALES = ["1484.92", "148.49", "74.25", "37.12", "18.56", "14.85", "9.28", "1.48", "0.74"]


def check_scales(split):
    scales = S.laplace_scale(21.0, np.array(EPS_C4, float), split)
    for value, p in zip(scales, C4_SCALES):
        assert_printed(float(value), p)


def test_c4_laplace_scales():
    check_scales("sqrt2")
    assert S.laplace_scale(21.0, 1.0, "none") == 21.0
    with pytest.raises(AssertionError):
        check_scales("none")


# ----------------------------------------------------------------- Fig. 6 (C10)

A_C10 = [-2, -1, 0, 0.5, 0.906, 1, 2, 5, 10]
C10 = {"spof_feature_paper": ["34.299", "10.022", "4.693", "4.132", "4.035", "4.039", "4.428",
                              "7.023", "12.000"],
       "spof_feature_corrected": ["6.225", "4.482", "2.886", "3.663", "4.325", "4.482", "6.225",
                                  "12.013", "22.000"],
       "sgd_feature_paper": ["0.238", "0.538", "1.000", "1.245", "1.424", "1.462", "1.762",
                             "1.987", "2.000"]}


def check_fig6(fn, printed):
    values = fn(np.array(A_C10, float))
    for v, p in zip(values, printed):
        assert_printed(float(v), p)


@pytest.mark.parametrize("name", sorted(C10))
def test_c10_fig6_table(name):
    check_fig6(getattr(S, name), C10[name])


def test_c10_check_fails_on_mutant():
    def no_factor_two(a):                                    # (58) without its inner 2
        sp, s = np.logaddexp(0, a), sigmoid(a)
        return sp + np.logaddexp(0, -a) / sp + 2 * s * (1 - s) + s
    with pytest.raises(AssertionError):
        check_fig6(no_factor_two, C10["spof_feature_paper"])
    with pytest.raises(AssertionError):
        check_fig6(S.sgd_feature_corrected, C10["sgd_feature_paper"])


def _eq57_brute_force(a):
    """``2 max_x Σ_k Σ_r |f^{(r)}_k(a)|`` (Eq. 57) with the correct f₂'', over a fine x grid."""
    x = np.linspace(0, 1, 1001)[:, None]
    a = np.asarray(a, float)[None, :]
    sp, spm, s = np.logaddexp(0, a), np.logaddexp(0, -a), sigmoid(a)
    terms = x * spm + x * (1 - s) + x * s * (1 - s) + (1 - x) * (sp + s + s * (1 - s))
    return 2 * terms.max(axis=0)


def test_c10_corrected_equals_eq57_and_paper_does_not():
    a = np.linspace(-2, 10, 241)
    np.testing.assert_allclose(S.spof_feature_corrected(a), _eq57_brute_force(a), rtol=1e-12)
    assert np.abs(S.spof_feature_paper(a) - _eq57_brute_force(a)).max() > 1.0


def test_c10_minima_and_the_2c_interval():
    res = optimize.minimize_scalar(S.spof_feature_paper, bounds=(-2, 10), method="bounded",
                                   options={"xatol": 1e-10})
    assert_printed(res.x, "0.906")
    assert_printed(res.fun, "4.035")
    res = optimize.minimize_scalar(S.spof_feature_corrected, bounds=(-2, 10), method="bounded",
                                   options={"xatol": 1e-10})
    assert abs(res.x) < 1e-6
    assert S.spof_feature_corrected(0.0) == pytest.approx(2 * (LN2 + 0.75), abs=1e-15)
    lo = optimize.brentq(lambda a: S.spof_feature_paper(a) - 8, -2, 0.9, xtol=1e-12)
    hi = optimize.brentq(lambda a: S.spof_feature_paper(a) - 8, 0.9, 10, xtol=1e-12)
    assert_printed(lo, "-0.78")
    assert_printed(hi, "5.99")
    a = np.linspace(-2, 10, 12001)
    below = S.spof_feature_paper(a) < 8
    np.testing.assert_array_equal(below, (a > lo) & (a < hi))
    assert not np.any(S.spof_feature_paper(a) < S.sgd_feature_paper(a))
    assert not np.any(S.spof_feature_corrected(a) < S.sgd_feature_corrected(a))


def test_sgd_sensitivities():
    assert S.delta_sgd(N) == 14.0 and S.delta_sgd(N, clipped=True) == 112.0
    assert S.delta_sgd(N, b_j=2.0) == 28.0
    a = np.linspace(-3, 3, 13)
    diff = S.sgd_feature_corrected(a) != S.sgd_feature_paper(a)
    np.testing.assert_array_equal(diff, a < 0)


# ----------------------------------------------------------------- clipping facts (C11)

def test_c11_logit_gradient_norms():
    vertices = np.array(list(itertools.product([0.0, 1.0], repeat=N)))    # all 2^14
    assert np.linalg.norm(0.5 - vertices, axis=1).max() == pytest.approx(0.5 * math.sqrt(N))
    assert_printed(0.5 * math.sqrt(N), "1.871")
    rng = np.random.default_rng(SEED)
    x = rng.uniform(size=(10000, N))
    assert np.linalg.norm(0.5 - x, axis=1).max() < 0.5 * math.sqrt(N)
    z = rng.choice([-20.0, 20.0], size=(10000, N))
    worst = np.linalg.norm(sigmoid(z) - (z < 0), axis=1)       # x = 1 where σ(z) ≈ 0, etc.
    assert worst.max() < math.sqrt(N) < 4.0
    assert_printed(math.sqrt(N), "3.742")
    b_clip = 4.0 / (0.5 * math.sqrt(N))                        # clipping binds for b_j above
    assert_printed(b_clip, "2.14")


def _l1_diameter_samples(radius, n, rng, draws=20000):
    u = rng.normal(size=(draws, n))
    u *= radius / np.linalg.norm(u, axis=1, keepdims=True)
    return np.abs(u - (-u)).sum(axis=1)                           # antipodal pairs


def check_l1_diameter(claimed, radius=4.0, n=N):
    corner = np.full(n, radius / math.sqrt(n))                    # attains C√n in L1
    assert np.abs(corner - (-corner)).sum() == pytest.approx(claimed)
    assert _l1_diameter_samples(radius, n, np.random.default_rng(SEED)).max() <= claimed


def test_c11_l1_diameter_of_the_clipping_ball():
    check_l1_diameter(2 * 4.0 * math.sqrt(N))
    assert_printed(2 * 4.0 * math.sqrt(N), "29.93")
    with pytest.raises(AssertionError):                           # the paper's 2nC = 112
        check_l1_diameter(S.delta_sgd(N, clipped=True))


# =========================================================================== privacy (C4, C13)

def test_coefficient_release_layout():
    x = np.array([0.0, 0.25, 1.0])
    np.testing.assert_allclose(P.coefficient_release(x), [0.5, 0.25, -0.5, -0.25, -0.125, 0.25])
    np.testing.assert_allclose(P.coefficient_release(x, "exact"), [0.5, 0.25, -0.5] + [0.125] * 3)
    shifted = P.coefficient_release(x, shift=2.5)
    np.testing.assert_allclose(shifted[:3], (0.5 - x) * (1 - 2.5))         # (0.5 - x)(1 - c)
    batch = P.coefficient_release(np.stack([x, x]), shift=[0.0, 2.5])
    np.testing.assert_allclose(batch, [P.coefficient_release(x), shifted])


def test_log_ratio_at_matches_scipy():
    rng = np.random.default_rng(SEED)
    ma, mb = rng.normal(size=(2, 6))
    sa, sb = rng.uniform(0.5, 2, size=(2, 6))
    q = rng.normal(size=(50, 6)) * 3
    want = (stats.laplace.logpdf(q, ma, sa) - stats.laplace.logpdf(q, mb, sb)).sum(axis=1)
    np.testing.assert_allclose(P.log_ratio_at(q, ma, mb, sa, sb), want, rtol=1e-12, atol=1e-12)


def _grid_sup(ma, mb, sa, sb, span=60.0):
    q = np.linspace(-span, span, 240001)
    return float(np.max(P.log_ratio_at(q[:, None], ma, mb, sa, sb)))


def check_sup(sup_fn):
    """``sup_fn`` agrees with a fine grid search (one coordinate) and with the shared auditor."""
    for ma, mb, sa, sb in [(0.5, -0.5, 1.0, 1.0), (0.2, 1.0, 0.7, 1.3), (1.0, 0.0, 1.0, 3.0)]:
        assert sup_fn(ma, mb, sa, sb) == pytest.approx(_grid_sup(ma, mb, sa, sb), abs=1e-3)
    rng = np.random.default_rng(SEED)
    for _ in range(5):
        ma, mb = rng.normal(size=(2, 4))
        s = rng.uniform(0.5, 2.0, size=4)
        release = P.PairRelease(ma, mb, s, s * rng.choice([1.0, 1.0, 1.5], size=4))
        want = P.audit_exact(release)
        got = max(sup_fn(ma, mb, release.scale_a, release.scale_b),
                  sup_fn(mb, ma, release.scale_b, release.scale_a))
        assert got == pytest.approx(want, rel=1e-9) or (math.isinf(got) and math.isinf(want))


def test_laplace_sup_is_exact():
    check_sup(P.laplace_log_ratio_sup)
    assert P.laplace_log_ratio_sup(0.5, -0.5, 1.0, 3.0) == pytest.approx(math.log(3) + 1 / 3)
    assert P.laplace_log_ratio_sup(0.5, -0.5, 3.0, 1.0) == math.inf
    assert P.laplace_privacy_loss([0.5, -0.25], [-0.5, 0.25], 2.0, 2.0) == 0.75


def test_laplace_sup_check_fails_on_mutant():
    def no_log_term(ma, mb, sa, sb):                            # drops log(d_b / d_a)
        sa, sb = np.broadcast_arrays(np.asarray(sa, float), np.asarray(sb, float))
        return float(np.sum(np.where(sa > sb, np.inf, np.abs(np.subtract(ma, mb)) / sb)))
    with pytest.raises(AssertionError):
        check_sup(no_log_term)


@settings(max_examples=50, deadline=None)
@given(eps=st.floats(1e-3, 50), k=st.floats(1e-3, 1e3))
def test_laplace_loss_properties(eps, k):
    r = P.alg1_release(eps)
    loss = P.laplace_privacy_loss(r.mean_a, r.mean_b, r.scale_a, r.scale_b)
    assert loss == pytest.approx(math.sqrt(2) * eps, rel=1e-12)
    assert loss == P.laplace_privacy_loss(r.mean_b, r.mean_a, r.scale_b, r.scale_a)
    scaled = P.laplace_privacy_loss(k * r.mean_a, k * r.mean_b, k * r.scale_a, k * r.scale_b)
    assert scaled == pytest.approx(loss, rel=1e-9)
    assert P.alg1_epsilon(eps) == pytest.approx(math.sqrt(2) * eps, rel=1e-12)
    assert P.prop2_epsilon(eps) == pytest.approx(eps / 3, rel=1e-12)


def check_sqrt2_claim(split):
    """Alg. 1 with c = 0 gives exactly √2 ε (brief C4)."""
    eps = np.array([0.1, 0.5, 1.0, 2.0])
    np.testing.assert_allclose(P.alg1_epsilon(eps, split=split), math.sqrt(2) * eps, rtol=1e-12)


def test_alg1_epsilon_reference_values():
    check_sqrt2_claim("sqrt2")
    assert_printed(P.alg1_epsilon(1.0), "1.414")
    assert P.alg1_epsilon(1.0, split="none") == pytest.approx(1.0, rel=1e-12)
    assert_printed(P.alg1_epsilon(1.0, 2.5, "public"), "0.22")
    assert_printed(P.alg1_epsilon(1.0, 8.75, "public"), "0.037")
    assert_printed(P.alg1_epsilon(1.0, 2.5, "worst"), "0.011")
    assert P.alg1_epsilon(1.0, 1.25, "worst") == P.alg1_epsilon(1.0, 8.75, "public")
    for cj in (2.5, 8.75, 17.5):                                 # 21 √2 ε / Δ̂(c_j)
        assert P.alg1_epsilon(0.7, cj) == pytest.approx(21 * math.sqrt(2) * 0.7
                                                        / S.delta_hat(N, cj), rel=1e-12)
    assert P.alg1_epsilon(1.0, 2.5, "data") == math.inf
    assert P.alg1_epsilon(1.0, 2.5, "data", split="none") == math.inf
    assert P.alg1_epsilon(1.0, 0.0, "data") == pytest.approx(math.sqrt(2))
    assert P.alg1_epsilon(1.0, 2.5, "data", h_sums=(3.0, 3.0)) == pytest.approx(
        P.alg1_epsilon(1.0, 7.5, "public"))
    # App. D reading (shifted coefficients, sensitivity 28); exact coefficients (sensitivity 14)
    assert P.alg1_epsilon(1.0, 2.5, shift=True) == pytest.approx(28 * math.sqrt(2) / 134.75)
    assert P.alg1_epsilon(1.0, variant="exact") == pytest.approx(14 * math.sqrt(2) / 21)


def test_alg1_checks_fail_on_mutants():
    with pytest.raises(AssertionError):                          # split "none" is not √2 ε
        check_sqrt2_claim("none")
    with pytest.raises(AssertionError):                          # the shifted release differs
        assert_printed(P.alg1_epsilon(1.0, 2.5, "public", shift=True), "0.22")


def test_alg1_release_matches_the_shared_auditor():
    for kwargs in ({}, {"c": 2.5}, {"c": 2.5, "reading": "data"}, {"split": "none"}):
        release = P.alg1_release(1.0, **kwargs)
        assert P.audit_exact(release) == pytest.approx(release.epsilon, rel=1e-9) \
            or release.epsilon == P.audit_exact(release) == math.inf


def check_unbounded_log_ratio(release):
    """The log ratio on one coordinate keeps growing with ``q`` and at ``q = 10⁵`` exceeds ten
    times the loss the pair would have if both records used record a's scale."""
    ma, mb, sa, sb = release.mean_b[0], release.mean_a[0], release.scale_b[0], release.scale_a[0]
    values = [P.log_ratio_at(q, ma, mb, sa, sb) for q in (1e3, 1e4, 1e5)]
    same_scale = P.laplace_privacy_loss(release.mean_a, release.mean_b, release.scale_a,
                                        release.scale_a)
    assert values[2] > 10 * same_scale and values[2] > values[1] > values[0]
    return values


def test_data_dependent_cj_log_ratio_grows_with_q():
    """Erratum 1: c = 2.5, c_j = c Σh with Σh = 3.0 (record a) vs 3.5 (record b), ε = 1,
    split √2: log p_b(q)/p_a(q) on one coordinate at q = 10⁵ is 49.77 (brief: 49.8)."""
    release = P.alg1_release(1.0, 2.5, "data", h_sums=(3.0, 3.5))
    assert release.scale_a[0] == pytest.approx(S.delta_hat(N, 7.5) / math.sqrt(2))
    assert release.scale_b[0] == pytest.approx(S.delta_hat(N, 8.75) / math.sqrt(2))
    assert_printed(release.scale_a[0], "441.76")
    assert_printed(release.scale_b[0], "567.06")
    same_mean = P.log_ratio_at(1e5, 0.5, 0.5, release.scale_b[0], release.scale_a[0])
    assert_printed(same_mean, "49.8")
    assert same_mean == pytest.approx(49.7652, abs=1e-4)
    values = check_unbounded_log_ratio(release)
    assert_printed(values[2], "49.8")                            # records x = 0 and x = 1
    slope = 1 / release.scale_a[0] - 1 / release.scale_b[0]
    assert values[2] - values[1] == pytest.approx(9e4 * slope, rel=1e-9)


def test_unbounded_check_fails_on_public_cj():
    with pytest.raises(AssertionError):
        check_unbounded_log_ratio(P.alg1_release(1.0, 2.5, "public"))


def check_prop2(eps_fn):
    for eps in (0.1, 1.0, 10.0):
        assert eps_fn(eps) == pytest.approx(eps / 3, rel=1e-12)


def test_prop2_epsilon():
    check_prop2(P.prop2_epsilon)
    assert_printed(P.prop2_epsilon(1.0), "0.3333")
    assert P.prop2_epsilon(1.0, variant="exact") == pytest.approx(2 / 3)
    release = P.prop2_release(1.0)
    assert release.scale_a[0] == 21.0 and release.mean_a.shape == (N,)
    assert P.audit_exact(release) == pytest.approx(1 / 3, rel=1e-9)


def test_prop2_check_fails_on_mutant():
    def scale_from_true_sensitivity(eps):                       # Lap(7/ε): loss ε, not ε/3
        r = P.prop2_release(eps)
        return P.laplace_privacy_loss(r.mean_a, r.mean_b, 7 / eps, 7 / eps)
    assert scale_from_true_sensitivity(1.0) == pytest.approx(1.0)
    with pytest.raises(AssertionError):
        check_prop2(scale_from_true_sensitivity)


# ----------------------------------------------------------------- Monte Carlo audit (C13)

def check_mc_audit(result, claimed, reach=0.99):
    """The MC maximum stays below the claimed ε and reaches ``reach`` of it."""
    assert result.max_log_ratio <= claimed + 1e-9
    assert result.max_log_ratio >= reach * claimed


def test_mc_audit_one_feature_reaches_sqrt2_eps():
    """n = 1 (2 coordinates, Δ̂ = Δ̄ = 1.5): the sup is hit with probability ~1/4 per draw;
    1000 draws per record."""
    release = P.alg1_release(1.0, n=1)
    result = P.audit_release(release, 1000, np.random.default_rng(SEED))
    check_mc_audit(result, math.sqrt(2))
    assert result.max_log_ratio == pytest.approx(math.sqrt(2), abs=1e-12)
    with pytest.raises(AssertionError):                          # the "ε-DP" claim (split none)
        check_mc_audit(result, P.alg1_epsilon(1.0, n=1, split="none"))


def test_mc_audit_fourteen_features_approaches_from_below():
    """n = 14 (28 coordinates): 2·10⁵ draws per record; the sup needs all 28 coordinates on the
    far side (probability 2^-28), so the MC maximum is below √2 but most of the way there, and
    the mean log ratio matches the exact KL divergence."""
    release = P.alg1_release(1.0)
    rng = np.random.default_rng(SEED)
    small, big = P.audit_release(release, 2000, rng), P.audit_release(release, 200000, rng)
    check_mc_audit(big, math.sqrt(2), reach=0.8)
    assert small.max_log_ratio < big.max_log_ratio < math.sqrt(2)
    kl = P.laplace_kl(release.mean_a, release.mean_b, release.scale_a, release.scale_b)
    sd = np.sqrt(28 * (1 / 14.85) ** 2 / big.n_draws)           # per-coordinate |L| <= Δ/d
    assert abs(big.mean_log_ratio - kl) < 4 * sd


def test_empirical_lower_bound_flags_the_eps_claim():
    """Clopper-Pearson lower bound (shared auditor, 95 %), n = 1, 2·10⁵ draws per record:
    above the claimed ε = 1 and below the true √2."""
    release = P.alg1_release(1.0, n=1)
    result = P.empirical_lower_bound(release, 200000, np.random.default_rng(SEED))
    assert result.epsilon_lower <= math.sqrt(2)
    assert result.epsilon_lower > 1.0                             # Alg. 1 is not 1-DP
    fair = P.alg1_release(1.0, n=1, split="none")
    result = P.empirical_lower_bound(fair, 200000, np.random.default_rng(SEED))
    assert result.epsilon_lower <= 1.0 and not result.flagged


# ----------------------------------------------------------------- shared noise (C13, §6 #29)

def check_reconstruction(release_fn, variant):
    rng = np.random.default_rng(SEED)
    x = rng.uniform(size=(200, N))
    x_hat = P.reconstruct_from_shared(release_fn(x, 14.85, rng, variant), variant)
    np.testing.assert_allclose(x_hat, x, atol=1e-10)


@pytest.mark.parametrize("variant", ["paper", "exact"])
def test_shared_noise_reveals_x(variant):
    check_reconstruction(P.release_with_shared_noise, variant)
    assert P.shared_draw_leak(np.full(N, 0.3), 1e3, np.random.default_rng(SEED), variant) < 1e-9
    q = P.coefficient_release(np.array([0.0, 1.0]), variant)
    want = {"paper": (0.75, -0.75), "exact": (0.375, -0.625)}[variant]   # d₀ + s x
    np.testing.assert_allclose(q[:2] - q[2:], want)


@pytest.mark.parametrize("variant", ["paper", "exact"])
def test_independent_noise_does_not_allow_reconstruction(variant):
    def independent(x, s, rng, v):
        return P.sample_release(x, s, rng, v, shared=False)

    with pytest.raises(AssertionError):
        check_reconstruction(independent, variant)
    assert P.shared_draw_leak(np.full(N, 0.3), 14.85, np.random.default_rng(SEED), variant,
                              shared=False) > 1.0


# ----------------------------------------------------------------- kurtosis (C4)

def check_is_laplace(draws):
    """Kolmogorov-Smirnov against the Laplace law with the sample's variance (p > 1e-3)."""
    b = np.sqrt(np.var(draws) / 2)
    assert stats.kstest(draws, "laplace", args=(0.0, b)).pvalue > 1e-3


def test_kurtosis_facts_and_monte_carlo():
    """10⁶ draws: excess kurtosis s.d. ≈ 0.05 (one Laplace) and ≈ 0.02 (sum of two)."""
    assert P.kurtosis_facts() == {"laplace": 3.0, "sum_of_two_laplace": 1.5}
    np.testing.assert_allclose(P.excess_kurtosis_of_sum(np.arange(1, 5)), [3, 1.5, 1, 0.75])
    rng = np.random.default_rng(SEED)
    one, two = P.sample_excess_kurtosis(1, 10**6, rng), P.sample_excess_kurtosis(2, 10**6, rng)
    assert abs(one - 3.0) < 0.15 and abs(two - 1.5) < 0.06


def test_sum_of_two_laplace_is_not_laplace():
    rng = np.random.default_rng(SEED)
    check_is_laplace(rng.laplace(size=20000))
    with pytest.raises(AssertionError):                           # M_{i,1} + M_{i,2}
        check_is_laplace(rng.laplace(size=(20000, 2)).sum(axis=1))


# =========================================================================== complexity (C12)

def check_complexity(ops):
    assert K.c_spof(N, L, ops) == 364
    assert K.c_dpsgd(N, ops) == 1403
    assert_printed(100 * K.reduction(N, L, ops), "74.06")


def test_c12_complexity_reference_values():
    check_complexity(K.K7_OPS)
    assert K.noise_fetch_cost() == 6
    assert K.spof_terms(N, L) == {"perturbation": 196, "coefficients": 70, "stabilization": 98}
    assert K.dpsgd_terms(N) == {"perturbation": 98, "clip_divisions": 480, "norm_additions": 13,
                                "squaring": 84, "sqrt": 252, "gradient_terms": 476}
    for n in range(1, 40):
        assert K.c_dpsgd(n) == K.dpsgd_closed_form(n) == 80 * n + 283
        for l in range(1, 12):
            assert K.c_spof(n, l) == K.spof_closed_form(n, l) == (19 + l) * n


@pytest.mark.parametrize("key, value", [("DIV", 16), ("MUL", 4), ("ADD", 2), ("OR", 0),
                                        ("SQRT_ITERS", 8), ("EXP", 1)])
def test_c12_check_fails_when_an_op_cost_changes(key, value):
    ops = dict(K.K7_OPS, **{key: value})
    with pytest.raises(AssertionError):
        check_complexity(ops)


def test_c12_div_cost_changes_the_reduction():
    cheap_div = dict(K.K7_OPS, DIV=16)
    assert K.c_dpsgd(N, cheap_div) == 1403 - 16 * (N + 1 + N + 7)
    assert K.reduction(N, L, cheap_div) < K.reduction(N, L)


# =========================================================================== validation

BAD_EPS = st.one_of(st.floats(max_value=0.0, allow_nan=False), st.just(float("nan")),
                    st.just(float("inf")), st.just(-float("inf")))
BAD_X = st.one_of(st.floats(min_value=-1.0, max_value=-1e-9), st.floats(min_value=1 + 1e-9,
                                                                       max_value=1e6))
NAMES = st.text(min_size=0, max_size=8)


@settings(max_examples=40, deadline=None)
@given(eps=BAD_EPS)
def test_bad_epsilon_raises(eps):
    for fn in (P.alg1_epsilon, P.prop2_epsilon, P.alg1_release, P.prop2_release):
        with pytest.raises(ValueError, match="epsilon"):
            fn(eps)
    with pytest.raises(ValueError, match="epsilon"):
        P.alg1_epsilon(np.array([1.0, eps]))


@settings(max_examples=40, deadline=None)
@given(value=BAD_X)
def test_x_outside_unit_interval_raises(value):
    x = np.full(N, 0.5)
    x[3] = value
    with pytest.raises(ValueError, match=r"x must lie in \[0, 1\]"):
        P.coefficient_release(x)
    with pytest.raises(ValueError, match="x must"):
        P.release_with_shared_noise(x, 1.0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="x must"):
        P.coefficient_release(np.where(np.arange(N) == 3, np.nan, 0.5))


@settings(max_examples=40, deadline=None)
@given(name=NAMES)
def test_unknown_names_raise(name):
    if name in P.VARIANTS + P.SPLITS + P.READINGS:
        return
    with pytest.raises(ValueError, match="variant must be one of"):
        P.coefficient_release(np.zeros(3), name)
    with pytest.raises(ValueError, match="variant must be one of"):
        P.reconstruct_from_shared(np.zeros(4), name)
    with pytest.raises(ValueError, match="variant must be one of"):
        T.coefficients(0.5, name)
    with pytest.raises(ValueError, match="split must be one of"):
        P.alg1_epsilon(1.0, split=name)
    with pytest.raises(ValueError, match="split must be one of"):
        S.laplace_scale(21.0, 1.0, name)
    with pytest.raises(ValueError, match="reading must be one of"):
        P.alg1_epsilon(1.0, 2.5, name)
    with pytest.raises(ValueError, match="reading must be one of"):
        S.stabilization_shift(2.5, 3.0, L, name)


@settings(max_examples=40, deadline=None)
@given(value=st.one_of(st.floats(max_value=-1e-9), st.just(float("nan"))))
def test_other_bad_inputs_raise(value):
    with pytest.raises(ValueError, match="shift"):
        P.coefficient_release(np.zeros(3), shift=value)
    with pytest.raises(ValueError, match="c must"):
        P.alg1_epsilon(1.0, value)
    with pytest.raises(ValueError, match="scale"):
        P.release_with_shared_noise(np.zeros(3), value, np.random.default_rng(0))
    with pytest.raises(ValueError, match="Laplace scales|finite"):
        P.laplace_privacy_loss(0.0, 1.0, value, 1.0)
    with pytest.raises(ValueError, match="ops"):
        K.c_dpsgd(N, dict(K.K7_OPS, DIV=value))


def test_misc_validation():
    with pytest.raises(ValueError, match="h_sums"):
        P.alg1_epsilon(1.0, 2.5, "data", h_sums=(3.0, 9.0))
    with pytest.raises(ValueError, match="keys"):
        K.c_spof(N, L, {"ADD": 1})
    with pytest.raises(ValueError, match=">= 1"):
        K.c_spof(0, L)
    with pytest.raises(ValueError, match="k must"):
        P.excess_kurtosis_of_sum(0)
    with pytest.raises(TypeError, match="Generator"):
        P.audit_release(P.alg1_release(1.0), 10, 0)
    with pytest.raises(ValueError, match="which"):
        P.alg1_release(1.0).sample("c", 3, np.random.default_rng(0))
    with pytest.raises(ValueError, match="release"):
        P.reconstruct_from_shared(np.zeros(3))


def test_taylor_rejects_negative_x():
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        T.coefficients(-0.5)


def test_check_epsilons_takes_grids_and_refuses_what_check_epsilon_refuses():
    from ldp_companion.validation import check_epsilons

    assert np.array_equal(check_epsilons([0.01, 1, 20]), [0.01, 1.0, 20.0])
    assert check_epsilons(2).shape == ()
    for bad in ([1.0, 0.0], [np.nan], -1.0, [1.0, np.inf]):
        with pytest.raises(ValueError, match="epsilon"):
            check_epsilons(bad)
    with pytest.raises(TypeError, match="real"):
        check_epsilons([True, False])
