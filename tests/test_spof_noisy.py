"""Tests of :mod:`ldp_companion.spof.noisy`: SPOF with noisy inputs (Sec. VI, Thm. 1, App. E-F)
against the brief (``shared/papers/spof.brief.md``: erratum 2, §2.7, §3 C6-C9, §6 rows 13-17).

Every kind of check is written once as a ``check_*`` function and run twice: on the real
implementation or reference input (it passes) and on a mutant (it must fail), so each check is
shown to be able to fail. Random draws are seeded; every Monte Carlo test states its number of
draws and compares with a z-score bound.
"""
from __future__ import annotations

import math
import warnings

import mpmath
import numpy as np
import pytest
from conftest import assert_printed, assert_sig
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy import integrate, special

from ldp_companion.spof import noisy as N

SEED = 20250401
SIGMAS = [0.1, 0.25, 0.5, 1, 2, 5, 10]
Z = 5.0  # z-score bound for every Monte Carlo comparison


def fails(check, *args, **kwargs):
    """The check raises AssertionError on this (mutant) input."""
    with pytest.raises(AssertionError):
        check(*args, **kwargs)


def mp_phi(x) -> float:
    with mpmath.workdps(40):
        return float(mpmath.ncdf(mpmath.mpf(x)))


def draw_setup(rng, n=14, l=7, w_bound=1.0, batch=32, sigma=5.0):
    W = rng.uniform(-w_bound, w_bound, size=(batch, n, l))
    Wd = rng.uniform(-w_bound, w_bound, size=(batch, l, n))
    x = rng.uniform(0, 1, size=(batch, n))
    noise = sigma * rng.standard_normal((batch, n))
    h = special.expit(np.einsum("bn,bnl->bl", x, W))
    h_hat = special.expit(np.einsum("bn,bnl->bl", x + noise, W))
    z = np.einsum("bl,bln->bn", h, Wd)
    z_hat = np.einsum("bl,bln->bn", h_hat, Wd)
    return W, Wd, h, h_hat, z, z_hat, noise


# =========================================================================== C6 identities
def check_hidden_identity(h_hat, b_r, h, tol=1e-14):
    assert np.max(np.abs(h_hat - b_r * h)) <= tol


def check_logit_identity(z_hat, b_j, z, t, tol=1e-12):
    assert np.max(np.abs(z_hat - (np.asarray(b_j)[..., None] * z - t))) <= tol


def test_identities_reference_draw():
    """Brief C6: max|ĥ - b⊙h| ~ 2e-16, max|ẑ - (b z - t)| ~ 6e-15; noiseless b_r = 1, b = l."""
    out = N.noisy_identities(np.random.default_rng(SEED), n=14, l=7, sigma=5.0, batch=64)
    assert out["hidden_err"] <= 1e-14
    assert out["logit_err"] <= 1e-12
    assert out["noiseless_b_r"] == 0.0
    assert out["noiseless_b_j"] == 7.0
    assert out["noiseless_logit_err"] <= 1e-12


def test_identities_hold_and_mutants_fail():
    W, Wd, h, h_hat, z, z_hat, noise = draw_setup(np.random.default_rng(SEED + 1))
    b_r, b_j = N.b_factors(W, h, noise)
    t = N.t_terms(b_r, Wd, h)
    check_hidden_identity(h_hat, b_r, h)
    check_logit_identity(z_hat, b_j, z, t)
    # mutant: b_r = e^D (the h-term of Eq. 34 dropped)
    fails(check_hidden_identity, h_hat, np.exp(N.noise_projection(W, noise)), h)
    # mutant: t with the s = r term kept (Σ_s b_s instead of Σ_{s≠r} b_s)
    t_bad = np.einsum("bl,bln->bn", b_j[:, None] * h, Wd)
    fails(check_logit_identity, z_hat, b_j, z, t_bad)


def test_noiseless_bj_is_l_not_one():
    """Eq. 39: n = 0 gives b_r = 1, b = l; treating the noiseless b as 1 breaks ẑ = z."""
    W, Wd, h, _, z, _, noise = draw_setup(np.random.default_rng(SEED + 2))
    b_r, b_j = N.b_factors(W, h, np.zeros_like(noise))
    assert np.all(b_r == 1.0) and np.all(b_j == 7.0)
    t = N.t_terms(b_r, Wd, h)
    np.testing.assert_allclose(t, 6.0 * z, rtol=0, atol=1e-13)   # t = (l-1) z
    check_logit_identity(z, b_j, z, t)
    fails(check_logit_identity, z, np.ones_like(b_j), z, t)     # paper's anchor b = 1


def test_batched_equals_loop():
    """Batched b_factors / t_terms agree with a per-sample loop and with broadcasting W."""
    rng = np.random.default_rng(SEED + 3)
    W, Wd, h, _, _, _, noise = draw_setup(rng, batch=5)
    b_r, b_j = N.b_factors(W, h, noise)
    t = N.t_terms(b_r, Wd, h)
    for k in range(5):
        d = W[k].T @ noise[k]
        b_ref = np.exp(d) / (1 + (np.exp(d) - 1) * h[k])
        np.testing.assert_allclose(b_r[k], b_ref, rtol=1e-13)
        t_ref = [sum((b_ref.sum() - b_ref[r]) * Wd[k, r, i] * h[k, r] for r in range(7))
                 for i in range(14)]
        np.testing.assert_allclose(t[k], t_ref, rtol=1e-12, atol=1e-13)
        assert b_j[k] == pytest.approx(b_ref.sum(), rel=1e-13)
    b_r1, _ = N.b_factors(W[0], h[0], noise)                    # one W, many noise vectors
    np.testing.assert_allclose(b_r1[0], b_r[0], rtol=1e-15)
    assert b_r1.shape == (5, 7)


def test_b_of_d_overflow_free():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        b = N.b_of_d([-1e4, -800.0, 0.0, 800.0, 1e4], 0.5)
        assert N.b_of_d(1000.0, 1.0) == 1.0 and N.b_of_d(-1000.0, 1.0) == 1.0
    np.testing.assert_allclose(b, [0.0, 0.0, 1.0, 2.0, 2.0], atol=1e-300)
    assert N.b_of_d(700.0, 0.0) == pytest.approx(math.exp(700.0), rel=1e-13)


@settings(max_examples=60, deadline=None)
@given(u=st.floats(-30, 30), d=st.floats(-60, 60), d2=st.floats(0.01, 5))
@example(u=-26.999999999999996, d=-6.0, d2=1.0)  # found by a run: 15 eps off
def test_b_of_d_is_the_hidden_ratio(u, d, d2):
    """σ(u + D) = b(D) σ(u) (Eq. 34); b increasing, b(0) = 1, b < 1/h. The tolerance is the
    conditioning of the h-parametrisation: 1 - h carries a relative error eps·h/(1 - h), and
    an exponential's argument x a relative error eps·|x| (u = -27, D = -6 erred by 15 eps)."""
    h = special.expit(u)
    b = N.b_of_d(d, h)
    rel = 2.3e-16 * (8 + abs(u) + abs(d) + 1 / (1 - h))
    assert b * h == pytest.approx(special.expit(u + d), rel=rel, abs=1e-300)
    assert 0 <= b <= 1 / h * (1 + 1e-12)
    assert N.b_of_d(d + d2, h) >= b
    assert N.b_of_d(0.0, h) == 1.0


# =========================================================================== C6 coefficients
def mp_error_at(x, b, t, z, power, a3):
    with mpmath.workdps(40):
        zh = mpmath.mpf(b) * z - t
        exact = mpmath.log1p(mpmath.exp(zh)) - x * zh
        u = mpmath.mpf(z) - mpmath.mpf(t) / b
        poly = mpmath.log(2) + b * (0.5 - x) * u + mpmath.mpf(b) ** power * a3 * u * u
        return float(abs(poly - exact))


def check_remainder_bound(err, x, b, t, zmax):
    """Second-order Taylor error of sp(ẑ) - xẑ is at most max|ẑ|⁴/192."""
    zh = max(abs(b * zmax - t), abs(-b * zmax - t))
    assert err <= zh**4 / 192 * (1 + 1e-9) + 1e-15


def test_coefficient_error_reference_values():
    """Brief C6 (x=0.3, b=2, t=0.1, |z| ≤ 0.3): b² version 1.2e-3, paper's b version 8.5e-2."""
    e2 = N.coefficient_error(0.3, 2.0, 0.1, 0.3, power=2, coeffs="exact")
    e1p = N.coefficient_error(0.3, 2.0, 0.1, 0.3, power=1, coeffs="paper")
    e1 = N.coefficient_error(0.3, 2.0, 0.1, 0.3, power=1, coeffs="exact")
    assert_sig(e2, "1.2e-3")
    assert_sig(e1p, "8.5e-2")
    # all three maxima sit at z = -0.3; independent mpmath values there
    assert e2 == pytest.approx(mp_error_at(0.3, 2, 0.1, -0.3, 2, 0.125), rel=1e-10)
    assert e1p == pytest.approx(mp_error_at(0.3, 2, 0.1, -0.3, 1, 0.5 * 0.3 - 0.25), rel=1e-10)
    assert e1 == pytest.approx(mp_error_at(0.3, 2, 0.1, -0.3, 1, 0.125), rel=1e-10)
    check_remainder_bound(e2, 0.3, 2.0, 0.1, 0.3)          # 1.211e-3 <= 0.7⁴/192 = 1.2505e-3
    fails(check_remainder_bound, e1, 0.3, 2.0, 0.1, 0.3)   # b-scaling (even with α₃ = 1/8)
    fails(check_remainder_bound, e1p, 0.3, 2.0, 0.1, 0.3)  # Thm. 1 as printed


@settings(max_examples=40, deadline=None)
@given(x=st.floats(0, 1), b=st.floats(0.05, 20), t=st.floats(-2, 2), zmax=st.floats(0.01, 0.5))
def test_b_squared_scaling_obeys_remainder_bound(x, b, t, zmax):
    err = N.coefficient_error(x, b, t, zmax, power=2, coeffs="exact", num=401)
    check_remainder_bound(err, x, b, t, zmax)


def test_curvature_scales_with_b_squared():
    """d²/dz² of the exact noisy BCE at z = t/b is b²/4 = 2 b² α₃, not 2 b α₃ (Eq. 42)."""
    x, t, hstep = 0.3, 0.1, 1e-4
    for b in (0.3, 2.0, 7.0):
        z0 = t / b
        f = [float(N.noisy_bce(x, z0 + k * hstep, b, t)) for k in (-1, 0, 1)]
        curv = (f[0] - 2 * f[1] + f[2]) / hstep**2
        assert curv == pytest.approx(2 * b**2 * 0.125, rel=1e-5)
        assert abs(curv - 2 * b * 0.125) > 1e-3 * curv
    z = np.linspace(-1, 1, 11)
    np.testing.assert_allclose(N.noisy_taylor(0.3, z, 1.0, 0.0, 2, "exact"),
                               math.log(2) + 0.2 * z + z**2 / 8, rtol=1e-15)
    np.testing.assert_allclose(N.noisy_taylor(0.3, z, 1.0, 0.0, 1, "paper"),
                               math.log(2) + 0.2 * z - 0.1 * z**2, rtol=1e-15)


def check_snr_invariant(snr_scaled, snr_plain):
    np.testing.assert_allclose(snr_scaled, snr_plain, rtol=1e-13)


def test_snr_unchanged_by_bj():
    """Brief C6 SNR remark: scaling coefficient and Laplace scale by b_j changes nothing."""
    rng = np.random.default_rng(SEED + 4)
    alpha = rng.uniform(-0.75, 0.75, 50)
    scale = 21.0 / (math.sqrt(2) * 0.5)
    b = rng.uniform(0.01, 10, 50)
    plain = N.coefficient_snr(alpha, scale)
    check_snr_invariant(N.coefficient_snr(b * alpha, b * scale), plain)
    fails(check_snr_invariant, N.coefficient_snr(b * alpha, scale), plain)  # noise not scaled
    # sd of Lap(d) is √2 d: 10⁵ draws, sd estimate se ≈ sd·sqrt((κ+2)/(4n)) with κ = 3
    m = 100_000
    sd = np.std(rng.laplace(0.0, scale, m))
    se = math.sqrt(2) * scale * math.sqrt(5 / (4 * m))
    assert abs(sd - math.sqrt(2) * scale) <= Z * se
    assert N.coefficient_snr(0.75, 1.0) == pytest.approx(0.75 / math.sqrt(2), rel=1e-15)


# =========================================================================== C7
def test_c7_reference_values():
    """st = 1, h = 0.5: P[X<0.5] 0.1798 (Eq. 53) vs 0.1360; P[X<1.5] 0.7559 vs 0.864."""
    assert_printed(float(N.fx_cdf_paper(0.5, 0.5, 1.0)), "0.1798")
    assert_printed(float(N.fx_cdf_exact(0.5, 0.5, 1.0)), "0.1360")
    assert_printed(float(N.fx_cdf_paper(1.5, 0.5, 1.0)), "0.7559")
    assert_printed(float(N.fx_cdf_exact(1.5, 0.5, 1.0)), "0.864")
    assert float(N.fx_cdf_exact(0.5, 0.5, 1.0)) == pytest.approx(mp_phi(-math.log(3)), rel=1e-13)
    assert float(N.fx_cdf_paper(0.5, 0.5, 1.0)) == pytest.approx(mp_phi(math.log(0.4)), rel=1e-13)
    h = np.linspace(0, 0.99, 34)
    np.testing.assert_array_equal(N.fx_cdf_exact(1.0, h, 1.7), 0.5)    # X < 1 ⇔ D < 0
    t = np.linspace(0.01, 20, 200)
    np.testing.assert_allclose(N.fx_cdf_paper(t, 0.0, 1.3), N.fx_cdf_exact(t, 0.0, 1.3),
                               rtol=1e-15)
    np.testing.assert_allclose(N.fx_pdf_paper(t, 0.0, 1.3), N.fx_pdf_exact(t, 0.0, 1.3),
                               rtol=1e-15)
    assert N.fx_cdf_exact(0.0, 0.5, 1) == 0 and N.fx_cdf_exact(2.0, 0.5, 1) == 1
    assert N.fx_cdf_exact(-3.0, 0.0, 1) == 0


def check_cdf_matches_mc(cdf, h, st_, thresholds, draws, seed):
    """Empirical CDF of X = b(D), D ~ N(0, st²), within Z standard errors of ``cdf``."""
    rng = np.random.default_rng(seed)
    x = N.b_of_d(st_ * rng.standard_normal(draws), h)
    for thr in thresholds:
        p_hat = np.mean(x < thr)
        p = float(cdf(thr, h, st_))
        se = math.sqrt(max(p * (1 - p), 1e-12) / draws)
        assert abs(p_hat - p) <= Z * se, (thr, p_hat, p)


def test_c7_monte_carlo():
    """10⁶ draws: P[X<0.5] ≈ 0.1363 (brief's MC); closed form passes, Eq. 53 fails."""
    check_cdf_matches_mc(N.fx_cdf_exact, 0.5, 1.0, [0.25, 0.5, 1.0, 1.5, 1.9], 10**6, SEED)
    fails(check_cdf_matches_mc, N.fx_cdf_paper, 0.5, 1.0, [0.5, 1.5], 10**6, SEED)
    rng = np.random.default_rng(SEED)
    p_hat = np.mean(N.b_of_d(rng.standard_normal(10**6), 0.5) < 0.5)
    assert abs(p_hat - 0.1363) <= Z * math.sqrt(0.1363 * 0.8637 / 10**6)


def check_inverse(inv, h):
    x = np.linspace(0.05, 0.95 / h, 50) if h > 0 else np.linspace(0.05, 30, 50)
    np.testing.assert_allclose(N.x_of_y(inv(x, h), h), x, rtol=1e-12)


def test_inverse_of_eq_49():
    """Eq. 50 is the wrong inverse: y = x(1-h)/(1-hx), not x/(1-hx+h)."""
    for h in (0.0, 0.25, 0.5, 0.99):
        check_inverse(lambda x, hh: N.y_of_x(x, hh, "exact"), h)
    for h in (0.25, 0.5, 0.99):
        fails(check_inverse, lambda x, hh: N.y_of_x(x, hh, "paper"), h)
    check_inverse(lambda x, hh: N.y_of_x(x, hh, "paper"), 0.0)     # agree at h = 0


@pytest.mark.parametrize("h", [0.0, 0.3, 0.5, 0.9, 0.99])
@pytest.mark.parametrize("st_", [0.4, 1.0, 2.5])
def test_densities_integrate_to_one(h, st_):
    """Both densities are proper; supports (0, 1/h) and (0, (1+h)/h); pdf = CDF'."""
    for pdf, cdf, upper in ((N.fx_pdf_exact, N.fx_cdf_exact, 1 / h if h else np.inf),
                            (N.fx_pdf_paper, N.fx_cdf_paper, (1 + h) / h if h else np.inf)):
        # integrate in D-space-like coordinates: split at 1 for accuracy
        total = sum(integrate.quad(lambda t, pdf=pdf: float(pdf(t, h, st_)), a, b_, limit=400)[0]
                    for a, b_ in ((0, 1), (1, upper)))
        assert total == pytest.approx(1.0, abs=1e-7)
        hi = upper if np.isfinite(upper) else 50.0
        t = np.linspace(0.02, hi * 0.98, 60)
        fd = (cdf(t + 1e-6, h, st_) - cdf(t - 1e-6, h, st_)) / 2e-6
        np.testing.assert_allclose(pdf(t, h, st_), fd, rtol=1e-5, atol=1e-9)
    if h > 0:
        t = np.linspace(1 / h + 1e-3, (1 + h) / h - 1e-3, 7)
        assert np.all(N.fx_pdf_exact(t, h, st_) == 0)
        assert np.all(N.fx_pdf_paper(t, h, st_) > 0)


def test_ppf_inverts_cdf():
    p = np.linspace(0.01, 0.99, 25)
    for h in (0.0, 0.5, 0.9):
        np.testing.assert_allclose(N.fx_cdf_exact(N.fx_ppf_exact(p, h, 1.3), h, 1.3), p,
                                   rtol=1e-12)
        np.testing.assert_allclose(N.fx_cdf_paper(N.fx_ppf_paper(p, h, 1.3), h, 1.3), p,
                                   rtol=1e-12)


# =========================================================================== C8
def test_fbmax_median_reference():
    """Brief C8(b): median of b_max = l F_X^{-1}(0.5^{1/100}) with st = 0.5·‖W‖."""
    st_ = N.SIGMA_FIG4 * N.WNORM_AUTHORS
    med = N.fbmax_median([0.0, 0.5, 0.99], st_, l=7, D=100)
    assert_sig(med[0], "2.5e12")
    assert_printed(med[1], "14.0")
    assert_printed(med[2], "7.07")
    with mpmath.workdps(40):
        q = float(mpmath.sqrt(2) * mpmath.erfinv(2 * mpmath.mpf(0.5) ** (mpmath.mpf(1) / 100) - 1))
    assert med[0] == pytest.approx(7 * math.exp(st_ * q), rel=1e-12)
    # round trip where F_X is well conditioned (at st = 10.8 the h = 0.5 median sits within
    # 4e-11 of the support end l/h = 14, where 1 - ht cancels)
    for h in (0.0, 0.5, 0.99):
        m = float(N.fbmax_median(h, 1.0, 7, 100))
        assert float(N.fbmax_cdf(m, h, 1.0, 7, 100)) == pytest.approx(0.5, rel=1e-9)


def test_fbmax_pdf_is_a_density():
    """Eq. 54 with the exact F_X integrates to 1, to 1/2 below the median, and = CDF'."""
    h, st_, l, D = 0.5, 1.0, 7, 100
    total = integrate.quad(lambda b: float(N.fbmax_pdf(b, h, st_, l, D)), 0, l / h,
                           limit=400, points=[float(N.fbmax_median(h, st_, l, D))])[0]
    assert total == pytest.approx(1.0, abs=1e-8)
    med = float(N.fbmax_median(h, st_, l, D))
    assert integrate.quad(lambda b: float(N.fbmax_pdf(b, h, st_, l, D)), 0, med,
                          limit=400)[0] == pytest.approx(0.5, abs=1e-8)
    b = np.linspace(1, 13.5, 40)
    fd = (N.fbmax_cdf(b + 1e-6, h, st_, l, D) - N.fbmax_cdf(b - 1e-6, h, st_, l, D)) / 2e-6
    np.testing.assert_allclose(N.fbmax_pdf(b, h, st_, l, D), fd, rtol=1e-5, atol=1e-9)
    paper = integrate.quad(lambda b: float(N.fbmax_pdf(b, h, st_, l, D, "paper")), 0,
                           l * (1 + h) / h, limit=400)[0]
    assert paper == pytest.approx(1.0, abs=1e-8)


def check_bmax_quantiles_match_mc(quantile_fn, h, st_, l, D, draws, seed):
    """Empirical CDF of l·max(X_1..X_D) at the model's 10/50/90% quantiles, within Z se."""
    rng = np.random.default_rng(seed)
    bmax = l * N.b_of_d(st_ * rng.standard_normal((draws, D)), h).max(axis=1)
    for q in (0.1, 0.5, 0.9):
        p_hat = np.mean(bmax <= float(quantile_fn(q)))
        assert abs(p_hat - q) <= Z * math.sqrt(q * (1 - q) / draws), (q, p_hat)


def test_fbmax_matches_monte_carlo():
    """20 000 maxima of D = 100 draws: Eq. 54 with exact F_X passes; single-variable
    quantiles (no order statistic, as in Fig. 4) and Eq. 53's F_X fail."""
    h, st_, l, D = 0.5, 1.0, 7, 100
    args = (h, st_, l, D, 20_000, SEED)
    check_bmax_quantiles_match_mc(lambda q: N.fbmax_quantile(q, h, st_, l, D), *args)
    fails(check_bmax_quantiles_match_mc, lambda q: l * N.fx_ppf_exact(q, h, st_), *args)
    fails(check_bmax_quantiles_match_mc,
          lambda q: N.fbmax_quantile(q, h, st_, l, D, density="paper"), *args)


FIG4 = {0.0: ["0.210", "0.106", "0.054", "0.028"],
        0.5: ["0.215", "0.112", "0.060", "0.034"],
        0.99: ["0.218", "0.115", "0.063", "0.039"]}
FIG4_B = [0.5, 1.0, 2.0, 3.9]


def check_fig4(values_by_h):
    for h, printed in FIG4.items():
        for v, p in zip(values_by_h[h], printed):
            assert_printed(float(v), p)


def test_fig4_authors_reference():
    """Brief C8(a): Eq. 53 at b/l, peak-normalised over linspace(0.1, 4, 50), evaluated at b."""
    check_fig4({h: N.fig4_authors(FIG4_B, h) for h in FIG4})
    for h in FIG4:
        assert int(np.argmax(N.fig4_authors(None, h))) == 0          # peak at b = 0.1
    # independent value: h = 0, b = 0.5 against b = 0.1 (lognormal pdf ratio)
    s = N.SIGMA_FIG4 * N.WNORM_AUTHORS
    ref = (0.1 / 0.5) * math.exp(-(math.log(0.5 / 7) ** 2 - math.log(0.1 / 7) ** 2) / (2 * s * s))
    assert float(N.fig4_authors(0.5, 0.0)) == pytest.approx(ref, rel=1e-13)
    # mutant: nearest grid point instead of the b values themselves (0.211 at h=0, b=0.5)
    g = N.FIG4_GRID
    near = [g[np.argmin(np.abs(g - b))] for b in FIG4_B]
    fails(check_fig4, {h: N.fig4_authors(near, h) for h in FIG4})
    # mutant: the proper max-order pdf (54), peak-normalised on the same grid
    proper = {}
    for h in FIG4:
        grid_pdf = N.fbmax_pdf(g, h, s, 7, 100)
        proper[h] = N.fbmax_pdf(FIG4_B, h, s, 7, 100) / max(grid_pdf.max(), 1e-300)
    fails(check_fig4, proper)


def test_fig4_batched_h():
    h = np.array([0.0, 0.5, 0.99])[:, None]
    out = N.fig4_authors(FIG4_B, h)
    assert out.shape == (3, 4)
    for k, hh in enumerate(FIG4):
        np.testing.assert_allclose(out[k], N.fig4_authors(FIG4_B, hh), rtol=1e-15)


# =========================================================================== C9 / Fig. 5
FIG5 = ["0.1839", "0.3593", "0.4285", "0.4641", "0.4820", "0.4928", "0.4964"]
FIG5_CORRECT = ["2.8e-74", "3.5e-45", "1.6e-37", "4.6e-34", "2.0e-32", "1.9e-31", "3.8e-31"]


def check_fig5(values, printed, assert_fn):
    for v, p in zip(values, printed):
        assert_fn(float(v), p)


def test_fig5_authors_reference():
    vals = N.fig5_authors(SIGMAS, l=7)
    check_fig5(vals, FIG5, assert_printed)
    for v, s in zip(vals, SIGMAS):
        assert v == pytest.approx(mp_phi(math.log(1 / 7) / (s * math.sqrt(1400 / 3))), rel=1e-13)
    curve = N.fig5_authors()                                # σ = linspace(0.1, 10, 50)
    assert np.all(np.diff(curve) > 0) and curve.max() < 0.5  # rises to 0.5 from below
    assert float(N.fig5_authors(1e6)) < 0.5
    # mutants: the paper's variance σ²‖W‖ (square dropped: st = σ√‖W‖); the norm rounded to 21.60
    fails(check_fig5, N.fig5_authors(SIGMAS, wnorm=math.sqrt(N.WNORM_AUTHORS)), FIG5,
          assert_printed)
    fails(check_fig5, N.fig5_authors(SIGMAS, wnorm=21.60), FIG5, assert_printed)


def test_fig5_correct_reference():
    """F_X(1/7)^100 at h = 0; < 2^-100 for every σ (and every h)."""
    vals = N.fig5_correct(SIGMAS, l=7, D=100, h=0.0)
    check_fig5(vals, FIG5_CORRECT, assert_sig)
    np.testing.assert_allclose(vals, N.fig5_authors(SIGMAS) ** 100, rtol=1e-12)
    for h in (0.0, 0.5, 0.99):
        assert np.all(N.fig5_correct(N.FIG5_SIGMAS, h=h) < 2.0**-100)
    fails(check_fig5, N.fig5_correct(SIGMAS, wnorm=math.sqrt(N.WNORM_AUTHORS)), FIG5_CORRECT,
          assert_sig)                                        # square dropped
    fails(check_fig5, N.fig5_correct(SIGMAS, D=1), FIG5_CORRECT, assert_sig)   # one draw
    fails(check_fig5, N.fig5_correct(SIGMAS, h=0.5), FIG5_CORRECT, assert_sig)  # other h


def check_mc_vs_cdf(cdf, W, sigma, h, thresholds, draws, seed):
    """l = 1: Pr[b_j < t] by mc_prob_bj_below within Z se of ``cdf(t, h, σ‖W‖)``."""
    p_hat = N.mc_prob_bj_below(thresholds, sigma, h, W, draws, np.random.default_rng(seed))
    p = cdf(np.asarray(thresholds), h, sigma * np.linalg.norm(W))
    se = np.sqrt(np.maximum(p * (1 - p), 1e-12) / draws)
    assert np.all(np.abs(p_hat - p) <= Z * se), (p_hat, p)


def test_mc_single_unit_matches_closed_form():
    """200 000 draws, l = 1: MC agrees with the closed-form F_X; Eq. 53's CDF fails."""
    W = np.random.default_rng(SEED).uniform(-1, 1, (14, 1))
    sigma = 1.0 / np.linalg.norm(W)                    # st = 1
    thr = [0.25, 0.5, 1.0, 1.5, 1.9]
    check_mc_vs_cdf(N.fx_cdf_exact, W, sigma, 0.5, thr, 200_000, SEED)
    check_mc_vs_cdf(N.fx_cdf_exact, W, 3 * sigma, 0.0, [0.1, 1.0, 10.0], 200_000, SEED)
    fails(check_mc_vs_cdf, N.fx_cdf_paper, W, sigma, 0.5, thr, 200_000, SEED)


def test_c9_table_pr_bj_below_l():
    """W ~ U(-10,10)^{14×7}, σ = 5, 100 000 draws per h. Brief: 0.008, 0.068, 0.501, 0.952
    (W-dependent); loose bounds from 30 W draws, strict ordering by > Z se."""
    W = np.random.default_rng(SEED).uniform(-10, 10, (14, 7))
    draws = 100_000
    bounds = {0.0: (0.0, 0.05), 0.25: (0.02, 0.2), 0.5: (0.45, 0.55), 0.75: (0.8, 1.0)}
    p = {h: N.mc_prob_bj_below(7, 5.0, h, W, draws, np.random.default_rng(SEED + k))
         for k, h in enumerate(bounds)}
    for h, (lo, hi) in bounds.items():
        assert lo <= p[h] <= hi, (h, p[h])
    hs = list(bounds)
    for a, b in zip(hs, hs[1:]):
        se = math.sqrt((p[a] * (1 - p[a]) + p[b] * (1 - p[b])) / draws)
        assert p[b] - p[a] > Z * se


def check_half_at_h_half(prob, draws):
    """h = 1/2: b_r = 2σ(D_r), so b_j - l = Σ tanh(D_r/2) is odd in D: Pr[b_j < l] = 1/2."""
    assert abs(prob - 0.5) <= Z * math.sqrt(0.25 / draws)


def test_pr_bj_below_l_is_half_at_h_half():
    draws = 100_000
    for seed, sigma in ((1, 0.1), (2, 1.0), (3, 5.0)):
        W = np.random.default_rng(seed).uniform(-10, 10, (14, 7))
        rng = np.random.default_rng(SEED + seed)
        check_half_at_h_half(N.mc_prob_bj_below(7, sigma, 0.5, W, draws, rng), draws)
    W = np.random.default_rng(1).uniform(-10, 10, (14, 7))
    # mutant: b_r = e^D (h ignored) — what Fig. 5's "h = 0 for simplicity" amounts to
    fails(check_half_at_h_half, N.mc_prob_bj_below(7, 0.1, 0.0, W, draws,
                                                    np.random.default_rng(SEED)), draws)


def check_below_one_under_half(probs, draws):
    """Erratum 2: Pr[b_j < 1] < Pr[D_1 < 0] = 1/2 for l ≥ 2 (MC estimate + Z se < 1/2)."""
    for p in probs:
        assert p + Z * math.sqrt(max(p * (1 - p), 0.25 / draws) / draws) < 0.5, p


def test_pr_bj_below_one_never_reaches_half():
    """20 000 draws for each σ ∈ {0.1, 0.5, 1, 5}, h ∈ {0, .25, .5, .75}: Prop. 4 fails."""
    W = np.random.default_rng(SEED).uniform(-10, 10, (14, 7))
    draws, sums, means = 20_000, [], []
    for k, (sigma, h) in enumerate((s, h) for s in (0.1, 0.5, 1.0, 5.0)
                                   for h in (0.0, 0.25, 0.5, 0.75)):
        p = N.mc_prob_bj_below([1.0, 7.0], sigma, h, W, draws, np.random.default_rng(k))
        sums.append(p[0])
        means.append(p[1])        # mutant: b_j averaged (noiseless = 1): Pr[b_j / l < 1]
    check_below_one_under_half(sums, draws)
    fails(check_below_one_under_half, means, draws)


def test_below_one_needs_every_d_negative():
    """The analytic reason: b_r < 1 ⇔ D_r < 0, and b_j < 1 ⇒ every b_r < 1 (b_r > 0)."""
    rng = np.random.default_rng(SEED)
    W = rng.uniform(-10, 10, (14, 7))
    noise = 0.1 * rng.standard_normal((50_000, 14))
    h = rng.uniform(0, 0.9, 7)
    b_r, b_j = N.b_factors(W, h, noise)
    d = N.noise_projection(W, noise)
    np.testing.assert_array_equal(b_r < 1, d < 0)
    assert np.all(np.all(d < 0, axis=1)[b_j < 1])
    assert np.all(b_r > 0)


def test_mc_chunking_and_shapes():
    W = np.random.default_rng(0).uniform(-10, 10, (14, 7))
    a = N.mc_prob_bj_below([[1, 3], [5, 7]], 5.0, 0.5, W, 5000, np.random.default_rng(5),
                           chunk=7)
    b = N.mc_prob_bj_below([[1, 3], [5, 7]], 5.0, 0.5, W, 5000, np.random.default_rng(5))
    assert a.shape == (2, 2)
    np.testing.assert_array_equal(a, b)
    p = N.mc_prob_bj_below(7.0, 5.0, np.full(7, 0.5), W, 5000, np.random.default_rng(5))
    assert isinstance(p, float) and p == b[1, 1]


# =========================================================================== validation
bad_positive = st.one_of(st.floats(max_value=0.0, allow_nan=False),
                         st.sampled_from([math.nan, math.inf, -math.inf]))
bad_h_open = st.one_of(st.floats(min_value=1.0, allow_nan=False, allow_infinity=False),
                       st.floats(max_value=-1e-12, allow_nan=False, allow_infinity=False),
                       st.sampled_from([math.nan, math.inf]))
W7 = np.random.default_rng(0).uniform(-1, 1, (14, 7))


@settings(max_examples=30, deadline=None)
@given(s=bad_positive)
def test_bad_sigma_and_st_rejected(s):
    with pytest.raises(ValueError):
        N.mc_prob_bj_below(1.0, s, 0.5, W7, 10, np.random.default_rng(0))
    with pytest.raises(ValueError):
        N.noisy_identities(np.random.default_rng(0), sigma=s)
    with pytest.raises(ValueError):
        N.fig5_authors([0.1, s])
    with pytest.raises(ValueError):
        N.fx_cdf_exact(0.5, 0.5, s)
    with pytest.raises(ValueError):
        N.fbmax_pdf(1.0, 0.5, s, 7, 100)
    with pytest.raises(ValueError):
        N.fig4_authors([1.0], 0.0, sigma=s)


@settings(max_examples=30, deadline=None)
@given(h=bad_h_open)
def test_bad_h_rejected(h):
    for fn in (N.fx_cdf_exact, N.fx_pdf_exact, N.fx_pdf_paper, N.fx_cdf_paper):
        with pytest.raises(ValueError):
            fn(0.5, h, 1.0)
    with pytest.raises(ValueError):
        N.fbmax_median(h, 1.0)
    with pytest.raises(ValueError):
        N.fig5_correct([1.0], h=h)
    if not (h == 1.0):                      # b_factors / b_of_d / MC accept h in [0, 1]
        with pytest.raises(ValueError):
            N.b_of_d(0.0, h)
        with pytest.raises(ValueError):
            N.mc_prob_bj_below(1.0, 1.0, h, W7, 10, np.random.default_rng(0))


@settings(max_examples=20, deadline=None)
@given(rng=st.one_of(st.none(), st.integers(), st.floats(allow_nan=False), st.text(max_size=3),
                     st.just(np.random.RandomState(0))))
def test_rng_must_be_generator(rng):
    with pytest.raises(TypeError):
        N.mc_prob_bj_below(1.0, 1.0, 0.5, W7, 10, rng)
    with pytest.raises(TypeError):
        N.noisy_identities(rng)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 6), l=st.integers(1, 6), dn=st.integers(1, 3), dl=st.integers(1, 3))
def test_wrong_shapes_rejected(n, l, dn, dl):
    W = np.ones((n, l))
    with pytest.raises(ValueError):
        N.b_factors(W, np.full(l + dl, 0.5), np.zeros(n))
    with pytest.raises(ValueError):
        N.b_factors(W, np.full(l, 0.5), np.zeros(n + dn))
    with pytest.raises(ValueError):
        N.b_factors(np.ones(n), np.full(l, 0.5), np.zeros(n))
    with pytest.raises(ValueError):
        N.t_terms(np.ones(l), np.ones((l + dl, n)), np.full(l, 0.5))
    with pytest.raises(ValueError):
        N.mc_prob_bj_below(1.0, 1.0, np.full(l + dl, 0.5), W, 10, np.random.default_rng(0))
    with pytest.raises(ValueError):       # leading axes that do not broadcast
        N.b_factors(np.ones((2, n, l)), np.full((3, l), 0.5), np.zeros((2, n)))


def test_type_errors_and_misc_value_errors():
    with pytest.raises(TypeError):
        N.b_factors(W7, np.full(7, 0.5), np.array(["a"] * 14))
    with pytest.raises(TypeError):
        N.fx_cdf_exact(True, 0.5, 1.0)
    with pytest.raises(TypeError):
        N.mc_prob_bj_below(1.0, True, 0.5, W7, 10, np.random.default_rng(0))
    with pytest.raises(TypeError):
        N.mc_prob_bj_below(1.0, 1.0, 0.5, W7, 10.0, np.random.default_rng(0))
    with pytest.raises(ValueError):
        N.mc_prob_bj_below(1.0, 1.0, 0.5, W7, 0, np.random.default_rng(0))
    with pytest.raises(ValueError):
        N.mc_prob_bj_below(math.nan, 1.0, 0.5, W7, 10, np.random.default_rng(0))
    with pytest.raises(ValueError):
        N.b_factors(W7, np.full(7, 0.5), np.full(14, np.nan))
    with pytest.raises(ValueError):
        N.coefficient_error(0.3, 2.0, 0.1, 0.3, power=3)
    with pytest.raises(ValueError):
        N.coefficient_error(0.3, 2.0, 0.1, 0.3, coeffs="taylor")
    with pytest.raises(ValueError):
        N.coefficient_error(1.3, 2.0, 0.1, 0.3)
    with pytest.raises(ValueError):
        N.coefficient_error(0.3, 0.0, 0.1, 0.3)
    with pytest.raises(ValueError):
        N.noisy_bce(0.3, 0.0, -1.0, 0.0)
    with pytest.raises(ValueError):
        N.y_of_x(3.0, 0.5)                 # outside (0, 1/h)
    with pytest.raises(ValueError):
        N.fx_ppf_exact(1.0, 0.5, 1.0)
    with pytest.raises(ValueError):
        N.fbmax_quantile(0.0, 0.5, 1.0)
    with pytest.raises(ValueError):
        N.fbmax_pdf(1.0, 0.5, 1.0, density="mc")
    with pytest.raises(ValueError):
        N.coefficient_snr(1.0, 0.0)
    with pytest.raises(ValueError):
        N.t_terms(-np.ones(7), np.ones((7, 14)), np.full(7, 0.5))
    with pytest.raises(TypeError):
        N.fbmax_median(0.5, 1.0, l=7.5)
    with pytest.raises(ValueError):
        N.fbmax_median(0.5, 1.0, D=0)
