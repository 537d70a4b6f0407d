"""Tests of :mod:`ldp_companion.pm.theory` against the brief of the
PM/Three-Outputs paper (``shared/papers/pm-three-outputs-hmtp.brief.md``, §3.3, §3.4, §6).

Reduced sizes, to keep the file fast: the Lemma 2–3 grid search runs at ``n = 121`` for
every eps and at the brief's ``n = 241`` for two of them; the Lemma 1 LP uses 41 grid
points. The "beyond the paper" LP runs at the brief's 201 points.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from ldp_companion.mechanisms.hybrid import HM
from ldp_companion.mechanisms.three_outputs import EPS_CAP, ThreeOutputs, p00
from ldp_companion.pm import theory as T

LN2 = math.log(2.0)


def assert_printed(value, printed: str):
    """``value`` rounds to ``printed`` at the printed number of decimals."""
    decimals = len(printed.split(".")[1]) if "." in printed else 0
    tol = 0.5 * 10.0**-decimals * (1 + 1e-9) + 1e-15
    assert abs(value - float(printed)) <= tol, f"{value!r} does not round to {printed}"


# --------------------------------------------------------------------------- helpers


def test_symmetric_x_grid_is_exactly_antisymmetric():
    x = T.symmetric_x_grid(41)
    assert np.array_equal(x[::-1], -x)
    assert x[0] == -1.0 and x[-1] == 1.0 and x[20] == 0.0


@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0, 4.0])
def test_generic_helpers_on_three_outputs(eps):
    mech = ThreeOutputs(eps)
    x = T.symmetric_x_grid(41)
    P = np.array(mech.probabilities(x))
    assert T.three_output_violation(P, x, mech.C, eps) <= 1e-12
    np.testing.assert_allclose(T.three_output_variance(P, x, mech.C), mech.variance(x),
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(T.symmetrise(P), P, atol=1e-15)  # already symmetric


def test_violation_detects_broken_mechanisms():
    eps, x = 1.0, T.symmetric_x_grid(41)
    mech = ThreeOutputs(eps)
    P = np.array(mech.probabilities(x))
    assert T.three_output_violation(P, x, 0.99 * mech.C, eps) > 1e-3  # biased
    Q = P.copy()
    Q[1, 20] *= 1.5  # the 0 output too likely at x = 0: not a pmf, ratio above E
    Q[2, 20] -= 0.5 * P[1, 20]
    assert T.three_output_violation(Q, x, mech.C, eps) > 1e-3
    assert T.three_output_violation(P, x, mech.C, 0.9 * eps) > 1e-3  # LDP at a smaller eps


# --------------------------------------------------------------------------- Lemma 1


@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0, 4.0])
def test_lemma1_symmetrisation(eps):
    decreased, asymmetric = 0, 0
    for seed in range(6):
        r = T.symmetrisation_check(eps, np.random.default_rng(seed))
        assert r.violation <= 1e-9
        assert r.violation_sym <= 1e-9
        assert r.worst_variance_sym <= r.worst_variance + 1e-12
        assert r.identity_error <= 1e-12
        np.testing.assert_array_equal(T.symmetrise(r.P_sym), r.P_sym)
        asymmetric += r.asymmetry > 1e-3
        decreased += r.worst_variance_sym < r.worst_variance - 1e-6
    if eps >= 1.0:  # the check is not vacuous
        assert asymmetric >= 4 and decreased >= 1


def test_lemma1_lp_at_duchi_constant_is_duchi():
    eps = 1.0
    E = math.exp(eps)
    c_d = (E + 1) / (E - 1)
    x, P = T.random_three_output_mechanism(eps, np.random.default_rng(0), 21, C=c_d)
    np.testing.assert_allclose(P[1], 0.0, atol=1e-9)
    np.testing.assert_allclose(P[2], 0.5 + x / (2 * c_d), atol=1e-9)


def test_lemma1_rejects_bad_arguments():
    with pytest.raises(TypeError):
        T.symmetrisation_check(1.0, 0)
    with pytest.raises(ValueError):
        T.symmetrisation_check(-1.0, np.random.default_rng(0))


# --------------------------------------------------------------------------- Lemmas 2-3


@pytest.mark.parametrize("eps", [0.8, 1.0, 1.5, 2.0, 4.0])
def test_pl_family_contains_three_outputs(eps):
    E = math.exp(eps)
    cap = E / (E + 2)
    for a in [0.0, 0.3 * cap, p00(eps), cap]:
        b, l = a / E, (E - a) / (E * (E + 1))
        assert T.pl_feasible(eps, a, b, l)
        assert float(T.pl_worst_case_variance(a, b, l)) == pytest.approx(
            ThreeOutputs(eps, a=float(a)).worst_case_variance(), rel=1e-12)
    a = 1.01 * cap  # beyond the cap of Eq. (83)
    assert not T.pl_feasible(eps, a, a / E, (E - a) / (E * (E + 1)))


def _pl_on_grid(a, b, l, x):
    """The family member ``(a, b, l)`` written out on the grid ``x`` (Eqs. (13)–(18))."""
    s, m, h = np.abs(x), 0.5 * (1 - a), 1 - b - l
    p_minus, p_plus = m + (l - m) * s, m + (h - m) * s
    return np.array([np.where(x < 0, p_plus, p_minus), a + (b - a) * s,
                     np.where(x < 0, p_minus, p_plus)])


@pytest.mark.parametrize("eps", [0.5, 1.0, 3.0])
def test_pl_feasible_and_variance_against_brute_force(eps):
    rng = np.random.default_rng(1)
    x = T.symmetric_x_grid(201)
    n_feasible = 0
    for a, b, l in zip(rng.random(1500), rng.random(1500), 0.5 * rng.random(1500)):
        if 1 - b - 2 * l <= 0:
            assert not T.pl_feasible(eps, a, b, l)
            continue
        if 1 - b - 2 * l < 1e-3:  # C > 1000: the unbiasedness check loses digits
            continue
        C = 1 / (1 - b - 2 * l)
        P = _pl_on_grid(a, b, l, x)
        ok = bool(T.pl_feasible(eps, a, b, l))
        assert ok == (T.three_output_violation(P, x, C, eps) <= 1e-12)
        n_feasible += ok
        v_grid = T.three_output_variance(P, x, C).max()
        v = float(T.pl_worst_case_variance(a, b, l))
        assert v_grid <= v * (1 + 1e-12) and v <= v_grid + 1e-4 * max(C**2, 1)
    assert n_feasible >= 10


@pytest.mark.parametrize("eps", T.LEMMA_EPS)
def test_lemma23_grid_search_never_beats_eq5(eps):
    g = T.pl_grid_search(eps, n=121)  # reduced from the brief's 241^3
    assert g.n_feasible > 0
    assert g.eq5_variance == pytest.approx(ThreeOutputs(eps).worst_case_variance(), rel=1e-15)
    assert g.worst_variance >= g.eq5_variance * (1 - 1e-12)
    assert g.worst_variance <= g.eq5_variance * 1.1
    assert T.pl_feasible(eps, g.a, g.b, g.l)


@pytest.mark.parametrize("eps", [1.0, 4.0])
def test_lemma23_grid_search_full_size(eps):
    g = T.pl_grid_search(eps)  # 241^3 points
    assert g.eq5_variance * (1 - 1e-12) <= g.worst_variance <= g.eq5_variance * 1.03


@pytest.mark.parametrize("eps", T.LEMMA_EPS)
def test_lemma23_local_optimum_is_eq5_with_tight_constraints(eps):
    r = T.pl_local_optimum(eps)
    E = math.exp(eps)
    assert r.worst_variance == pytest.approx(r.eq5_variance, rel=1e-8)
    assert r.h_over_l == pytest.approx(E, rel=1e-6)  # Lemma 2
    if eps > LN2:
        assert r.bE_over_a == pytest.approx(1.0, abs=1e-6)  # Lemma 3
        assert r.a == pytest.approx(p00(eps), abs=1e-5)
    else:
        assert r.a <= 1e-8 and r.b <= 1e-8  # Duchi


@pytest.mark.parametrize("eps", [0.5, 1.0, 1.5, 2.0, 4.0])
def test_lemma3_variance_increases_with_b(eps):
    E = math.exp(eps)
    for a in [None, float(p00(eps)) or 0.1 * E / (E + 2)]:
        df = T.lemma3_variance_vs_b(eps, a=a)
        ok = df[df.feasible]
        assert len(ok) >= 10 and bool(df.feasible.iloc[0])
        assert df.increasing_all_x.iloc[:-1].all()  # pointwise in x, not "decreasing"
        assert (np.diff(df.worst_variance) > 0).all()
        a_used = 0.5 * E / (E + 2) if a is None else a
        assert ok.b.iloc[int(np.argmin(ok.worst_variance))] == pytest.approx(a_used / E)


# --------------------------------------------------------------------------- Lemma 4


LEMMA4_EPS = [0.5, 0.75, 1.0, 1.25, 1.5, EPS_CAP, 2.0, 3.0, 4.0, 6.0, 8.0]
LEMMA4_REF = {  # brief §3.3: a*, C, x*, V_3O
    "a_closed": "0 0.07526 0.28608 0.45127 0.60661 0.73444 0.78699 0.90944 0.96466 0.99507 "
                "0.99933",
    # the brief prints C = 1.00746 at eps = 6; (E + 2)/(E - 1) there is 1.0074547
    "C": "4.08299 2.89337 2.41848 2.07085 1.82090 1.66209 1.46955 1.15719 1.05597 1.00745 "
         "1.00101",
    "x_star": "0 0.1662 0.5289 0.6904 0.7813 0.8310 0.7348 0.5786 0.5280 0.5037 0.5005",
    "V_3O": "16.6708 7.7692 4.4555 2.8298 1.9147 1.4243 0.99992 0.45603 0.31817 0.25875 "
            "0.25118",
}


def test_lemma4_table_matches_brief():
    df = T.lemma4_table(LEMMA4_EPS)
    for col, printed in LEMMA4_REF.items():
        for value, p in zip(df[col], printed.split()):
            assert_printed(value, p)
    assert (df.a_abs_diff <= 1e-7).all()


@pytest.mark.parametrize("eps", [0.1, 0.5, LN2, 0.7, 0.9, 1.0, 1.3, 1.6, 1.7, EPS_CAP, 1.72,
                                 2.0, 3.0, 5.0, 8.0])
def test_p00_bounded_min_matches_closed_form(eps):
    a = T.p00_bounded_min(eps)
    assert a == pytest.approx(float(p00(eps)), abs=1e-7)
    E = math.exp(eps)
    if eps > EPS_CAP:  # the endpoints are tried, so the cap comes out exactly
        assert a == E / (E + 2)
    elif eps < LN2:
        assert a == 0.0


def test_lemma4_thresholds_by_root_finding():
    th = T.lemma4_thresholds()
    assert th.eps_duchi == pytest.approx(LN2, abs=1e-12)
    assert th.eps_cap == pytest.approx(math.log((3 + math.sqrt(65)) / 2), abs=1e-12)
    assert th.eps_cap_factor == pytest.approx(th.eps_cap, abs=1e-12)
    assert_printed(th.eps_duchi, "0.693147")
    assert_printed(th.eps_cap, "1.710392")
    assert_printed(math.exp(th.eps_cap), "5.531129")


def test_cubic_at_cap_factorises():
    product, quotient, remainder = T.cubic_at_cap()
    np.testing.assert_array_equal(remainder.trim().coef, [0.0])
    np.testing.assert_array_equal(quotient.coef, [0, 0, 1, 2, 1])  # E^2 (E + 1)^2
    E = np.linspace(1.1, 20, 50)
    cubic = T.cubic_dv_da(E / (E + 2), np.log(E)) * (E + 2) ** 3
    np.testing.assert_allclose(cubic, product(E), rtol=1e-10)


@pytest.mark.parametrize("eps", [0.8, 1.2, 1.6, 2.5])
def test_cubic_is_the_numerator_of_dv_da(eps):
    """``dV/da = -K^2 cubic(a) / (2 (E - a)^5)``, by central differences, where the
    worst case is interior (``x* < 1``, Eq. (76); the other branch is Eq. (86b))."""
    E = math.exp(eps)
    K = E * (E + 1) / (E - 1)
    n_checked = 0
    for a in np.linspace(0.05, 0.95, 7) * E / (E + 2):
        if 0.5 * ThreeOutputs(eps, a=a + 1e-5).c1 >= 1:
            continue
        n_checked += 1
        h = 1e-6
        dv = (ThreeOutputs(eps, a=a + h).worst_case_variance()
              - ThreeOutputs(eps, a=a - h).worst_case_variance()) / (2 * h)
        expected = -K**2 * float(T.cubic_dv_da(a, eps)) / (2 * (E - a) ** 5)
        assert dv == pytest.approx(expected, rel=1e-5, abs=1e-7)
    assert n_checked >= 3


# --------------------------------------------------------------------------- Lemma 5


def test_lemma5_worst_case_variance():
    df = T.lemma5_table(LEMMA4_EPS)
    np.testing.assert_allclose(df.V_closed, df.V_class, rtol=1e-13)
    assert (df.V_grid <= df.V_class * (1 + 1e-13)).all()
    assert (df.V_grid >= df.V_class - 1e-8).all()
    assert (df.x_star <= 1).all()
    cap = df[df.eps > EPS_CAP]
    assert len(cap) == 5 and cap.V_cap.notna().all() and df[df.eps <= EPS_CAP].V_cap.isna().all()
    np.testing.assert_allclose(cap.V_cap, cap.V_class, rtol=1e-14)
    for value, p in zip(df.V_closed, LEMMA4_REF["V_3O"].split()):
        assert_printed(value, p)


# --------------------------------------------------------------------------- beyond the paper


@pytest.mark.parametrize("eps", T.LEMMA_EPS)
def test_lp_over_all_three_output_mechanisms(eps):
    r = T.lp_optimal_three_outputs(eps)  # 201-point grid, as in the brief
    assert_printed(r.worst_variance, f"{T.LP_REFERENCE[eps]:.4f}")
    assert r.worst_variance == pytest.approx(T.LP_REFERENCE[eps], rel=2e-3)
    assert T.three_output_violation(r.P, r.x, r.C, eps) <= 1e-7
    assert T.three_output_variance(r.P, r.x, r.C).max() <= r.worst_variance + 1e-7
    h = r.x[1] - r.x[0]
    assert r.worst_variance - 1e-9 <= r.worst_variance_interpolated
    assert r.worst_variance_interpolated <= r.worst_variance + h**2 / 4 + 1e-9
    assert r.worst_variance <= r.three_outputs_variance * (1 + 1e-9)
    if eps == 0.5:
        assert abs(r.gap) <= 1e-7  # Duchi (= Three-Outputs) is optimal
    else:
        assert r.gap < -0.005


def test_lp_gap_matches_brief_and_beats_hm_at_eps1():
    gaps = {1.0: "-0.056", 1.5: "-0.085", 2.0: "-0.057", 3.0: "-0.022", 4.0: "-0.009"}
    for eps, printed in gaps.items():
        r = T.lp_optimal_three_outputs(eps, n_x=101)  # coarser grid: gap to 3 decimals
        assert_printed(r.gap, printed)
    assert T.lp_optimal_three_outputs(1.0).worst_variance < HM(1.0).worst_case_variance()


def test_lp_infeasible_below_duchi_constant():
    E = math.exp(1.0)
    value, P = T.lp_worst_variance(1.0, 0.99 * (E + 1) / (E - 1), n_x=21)
    assert value == math.inf and P is None


# --------------------------------------------------------------------------- Lemma 7


LEMMA7_REF = {  # brief §3.4
    "t_brentq": "1.025319 1.133693 1.288757 1.690646 2.267097 3.091759 5.907015 11.444715 "
                "22.259946",
    "t_over_sub": "0.9917 0.9597 0.9234 0.8680 0.8340 0.8150 0.7994 0.7952 0.7941",
}


def test_lemma7_table():
    df = T.lemma7_table()
    for col, printed in LEMMA7_REF.items():
        for value, p in zip(df[col], printed.split()):
            assert_printed(value, p)
    np.testing.assert_allclose(df.t_ferrari, df.t_brentq, rtol=1e-9)
    np.testing.assert_allclose(df.t_minimize, df.t_brentq, rtol=1e-7)
    assert not df.ferrari_singular.any()
    ratio = df.set_index("eps").sub_over_opt
    for eps, p in {1.0: "1.0033", 2.0: "1.0113", 4.0: "1.0289", 8.0: "1.0451",
                   10.0: "1.0475"}.items():
        assert_printed(ratio[eps], p)
    assert (ratio > 1).all() and (ratio <= 1.05).all() and (np.diff(ratio) > 0).all()
    assert (ratio < 5 / (3 * 2 ** (2 / 3))).all()  # the large-eps limit 1.04993
    # V_SUB / V_PM: the brief lists 0.9931 (1), 0.9730 (2), 0.8998 (4), 0.6900 (8), but these
    # are the values at eps = 0.5, 1, 2, 4 (its §3.5 table agrees with that reading)
    vs_pm = df.set_index("eps").sub_over_pm
    for eps, p in {0.5: "0.9931", 1.0: "0.9730", 2.0: "0.8998", 4.0: "0.6900"}.items():
        assert_printed(vs_pm[eps], p)
    assert (vs_pm < 1).all()


def test_lemma7_ferrari_singularity_is_flagged():
    half = 0.5 * LN2
    df = T.lemma7_table([half, half + 1e-4, half + 2e-3])
    assert df.ferrari_singular.tolist() == [True, True, False]
    np.testing.assert_allclose(df.t_minimize, df.t_brentq, rtol=1e-7)
    bad = df.t_ferrari.iloc[0]
    assert not np.isfinite(bad) or abs(bad / df.t_brentq.iloc[0] - 1) > 1e-12
    assert df.t_ferrari.iloc[2] == pytest.approx(df.t_brentq.iloc[2], rel=1e-9)


# --------------------------------------------------------------------------- HM-TP★


@pytest.mark.parametrize("eps, ref, hm", [(1.0, "4.2673", "4.2890"), (1.5, "1.8481", "1.8922")])
def test_hm_tp_star_beats_hm_where_brief_says(eps, ref, hm):
    r = T.hm_tp_star(eps)
    assert_printed(r.worst_variance, ref)
    assert r.worst_variance == pytest.approx(float(ref), rel=1e-3)
    assert_printed(r.hm_variance, hm)
    assert r.a == pytest.approx(0.0, abs=1e-6)  # Duchi + PM-SUB
    assert r.worst_variance < r.hm_variance < r.hm_tp_variance


@pytest.mark.parametrize("eps", [2.0, 3.0, 4.0, 6.0])
def test_hm_tp_star_is_hm_tp_from_eps2(eps):
    r = T.hm_tp_star(eps)
    assert r.worst_variance == pytest.approx(r.hm_tp_variance, rel=1e-9)
    assert r.a == pytest.approx(float(p00(eps)), abs=1e-4)


@pytest.mark.parametrize("eps", [0.3, 0.65, 0.8, 1.2, 1.7])
def test_hm_tp_star_never_worse_than_hm_tp(eps):
    r = T.hm_tp_star(eps)
    assert r.worst_variance <= r.hm_tp_variance * (1 + 1e-9)
