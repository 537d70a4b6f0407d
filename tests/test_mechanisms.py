"""Tests of the eight registered scalar mechanisms against the brief of the PM/Three-Outputs
paper (``shared/papers/pm-three-outputs-hmtp.brief.md``; section numbers below are the
brief's).

* exact output laws: mass, mean, variance (§3.2) and the exact LDP ratio (§3.1);
* Monte Carlo unbiasedness, variance and CDF of ``privatize`` (§3.2);
* reference values of §2.6, §3.2, §3.3 (Lemma 4), §3.4 (Lemma 7) and §3.5 (Fig. 1);
* PM-OPT's ``t`` three ways, HM-TP's ``beta`` two ways, HM's ``alpha`` is minimax;
* argument validation and shapes (hypothesis).
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize, stats

from ldp_companion import get_mechanism, mechanism_names
from ldp_companion.auditing.montecarlo import bonferroni_z, moment_check
from ldp_companion.mechanisms import REGISTRY
from ldp_companion.mechanisms.base import sample_from_uniform
from ldp_companion.mechanisms.harmony import Harmony
from ldp_companion.mechanisms.hybrid import (
    HM_EPS_STAR,
    HMTP_EPS_BETA,
    Mixture,
    hm_alpha,
    hm_tp_beta,
    hm_tp_beta_minimax,
)
from ldp_companion.mechanisms.laplace import Laplace
from ldp_companion.mechanisms.piecewise import (
    PM,
    Piecewise,
    PMOpt,
    PMSub,
    pm_opt_t,
    pm_opt_t_ferrari,
)
from ldp_companion.mechanisms.three_outputs import EPS_CAP, ThreeOutputs, p00

NAMES = ["laplace", "duchi", "pm", "hm", "three_outputs", "pm_opt", "pm_sub", "hm_tp"]
LN2 = math.log(2.0)
HALF_LN2 = 0.5 * LN2


def W(name, eps):
    """Worst-case variance of mechanism ``name`` at ``eps``."""
    return get_mechanism(name, eps).worst_case_variance()


def assert_printed(value, printed: str):
    """``value`` rounds to ``printed`` at the printed number of decimals."""
    decimals = len(printed.split(".")[1]) if "." in printed else 0
    tol = 0.5 * 10.0**-decimals * (1 + 1e-9) + 1e-15
    assert abs(value - float(printed)) <= tol, f"{value!r} does not round to {printed}"


def test_registry_order():
    # the eight mechanisms of Zhao et al. first, then HierA's Harmony (chapter 5)
    assert mechanism_names() == NAMES + ["harmony"]
    assert list(REGISTRY) == NAMES + ["harmony"]


# --------------------------------------------------------------------------- exact laws


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0, 4.0])
def test_output_law_moments(name, eps):
    mech = get_mechanism(name, eps)
    for x in [-1.0, -0.55, 0.0, 0.3, 1.0]:
        law = mech.output_law(x)
        assert law.mass() == pytest.approx(1.0, abs=1e-9)
        assert law.mean() == pytest.approx(x, abs=1e-9)
        assert law.var() == pytest.approx(float(mech.variance(x)), rel=1e-8)


def max_privacy_ratio(mech, n_grid=41):
    """``max over x, x' on the grid and over outputs`` of ``P(y | x) / P(y | x')``.

    Atoms: the ratio of masses at each atom (the atom locations must not depend on ``x``).
    Density: for each pair the log-ratio is affine between consecutive breakpoints (of
    either law) and constant beyond them (the :class:`OutputLaw` contract), so its sup is
    attained at a breakpoint, at a midpoint (for one-sided limits of piecewise-constant
    densities) or far out; a point where one density vanishes and the other does not
    gives an infinite ratio.
    """
    laws = [mech.output_law(x) for x in np.linspace(-1.0, 1.0, n_grid)]
    log_ratio = -np.inf
    if laws[0].atoms.size:
        atoms = laws[0].atoms
        assert all(np.array_equal(law.atoms, atoms) for law in laws)
        with np.errstate(divide="ignore"):
            logm = np.log(np.array([law.masses for law in laws]))
        log_ratio = max(log_ratio, _spread(logm))
    if laws[0].has_density:
        pts = np.unique(np.concatenate([law.breakpoints for law in laws]))
        pts = pts[np.isfinite(pts)]
        ys = np.concatenate([pts, 0.5 * (pts[:-1] + pts[1:]), [pts[0] - 1.0, pts[-1] + 1.0]])
        logd = np.array([law.logpdf(ys) for law in laws])
        log_ratio = max(log_ratio, _spread(logd))
    return math.exp(log_ratio)


def _spread(logp):
    """Max over columns of ``max - min`` over rows, ignoring columns that are all ``-inf``."""
    live = np.isfinite(logp).any(axis=0)
    logp = logp[:, live]
    if np.isneginf(logp).any():
        return np.inf
    return float(np.max(logp.max(axis=0) - logp.min(axis=0)))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("eps", [0.1, 0.5, 0.65, LN2, 1.0, math.log(4.0), EPS_CAP, 2.0, 4.0,
                                 8.0])
def test_privacy_ratio_is_tight(name, eps):
    # brief §3.1: the bound e^eps is attained by every mechanism. For HM / HM-TP the atoms
    # (weight 1 - w) and the density (weight w) are disjoint in measure and each part is
    # tight on its own, so the mixture is tight too.
    assert max_privacy_ratio(get_mechanism(name, eps)) == pytest.approx(math.exp(eps),
                                                                        rel=1e-9)


@pytest.mark.parametrize("eps", [0.5, 1.0, 3.0])
@pytest.mark.parametrize("t_factor", [0.3, 1.0, 2.5])
def test_piecewise_family_geometry(eps, t_factor):
    # brief §2.6: L(-1) = -A, R(1) = A, normalisation, P(band) = E / (t + E)
    mech = Piecewise(eps, t_factor * math.exp(eps / 3))
    E, q = math.exp(eps), mech.p / math.exp(eps)
    assert float(mech.L(-1.0)) == pytest.approx(-mech.A, rel=1e-14)
    assert float(mech.R(1.0)) == pytest.approx(mech.A, rel=1e-14)
    assert 2 * mech.A * q + 2 * mech.B * (mech.p - q) == pytest.approx(1.0, rel=1e-14)
    assert 2 * mech.B * mech.p == pytest.approx(E / (mech.t + E), rel=1e-14)
    assert mech.p_band == pytest.approx(E / (mech.t + E), rel=1e-15)
    assert max_privacy_ratio(mech) == pytest.approx(E, rel=1e-9)


def test_three_outputs_explicit_a_is_private_and_a0_is_duchi():
    eps = 1.3
    E = math.exp(eps)
    for a in [0.0, 0.2, E / (E + 2)]:
        mech = ThreeOutputs(eps, a=a)
        probs = np.array(mech.probabilities(np.linspace(-1, 1, 101)))
        assert probs.min() >= 0 and np.abs(probs.sum(axis=0) - 1).max() < 1e-12
        assert max_privacy_ratio(mech) == pytest.approx(E, rel=1e-9)
    duchi, three = get_mechanism("duchi", eps), ThreeOutputs(eps, a=0.0)
    xs = np.linspace(-1, 1, 11)
    assert three.C == pytest.approx(duchi.C, rel=1e-14)
    np.testing.assert_allclose(three.probabilities(xs)[2], duchi.prob_plus(xs), rtol=1e-14)
    np.testing.assert_allclose(three.variance(xs), duchi.variance(xs), rtol=1e-13)


# --------------------------------------------------------------------------- Monte Carlo

MC_N = 200_000  # samples per (mechanism, eps, x) cell: brief §3.2's CI size
MC_EPS = [0.5, 1.0, 2.0, 4.0]
MC_X = [-1.0, -0.4, 0.0, 0.3, 1.0]


@pytest.mark.parametrize("name", NAMES)
def test_monte_carlo_mean_and_variance(name):
    """20 cells per mechanism (4 ε × 5 x), n = MC_N outputs each, one seed per cell. The mean's
    and the sample variance's z-scores must stay below the Bonferroni bound for a family-wise
XX
    whose variance is off by 5 % already exceeds it (test_montecarlo.py)."""
    bound = bonferroni_z(len(NAMES) * len(MC_EPS) * len(MC_X))
    for i, eps in enumerate(MC_EPS):
        mech = get_mechanism(name, eps)
        rng = np.random.default_rng([20240611, NAMES.index(name), i])
        mc = moment_check(mech, MC_X, MC_N, rng)
        assert (mc["z"].abs() < bound).all(), mc
        assert (mc["z_var"].abs() < bound).all(), mc


def exact_cdf(law, c):
    """``P(Y <= c)`` for a law with atoms plus a piecewise-constant or Laplace density."""
    total = float(law.masses[law.atoms <= c].sum()) if law.atoms.size else 0.0
    if law.has_density:
        lo, hi = law.support
        if np.isinf(lo):  # Laplace: affine log-density around one breakpoint
            (x,) = law.breakpoints
            b = 1.0 / (float(law.logpdf(x)) - float(law.logpdf(x + 1.0)))
            return total + stats.laplace.cdf(c, loc=x, scale=b)
        edges = law.breakpoints
        dens = np.exp(law.logpdf(0.5 * (edges[:-1] + edges[1:])))
        total += float(np.sum(dens * np.clip(c - edges[:-1], 0.0, np.diff(edges))))
    return total


@pytest.mark.parametrize("name", NAMES)
def test_monte_carlo_cdf(name):
    # The samplers invert CDFs by hand, so check the whole law, not only two moments: at 21
    # points the empirical CDF must be within 4.5 binomial standard errors of the exact one.
    eps = 1.5
    mech = get_mechanism(name, eps)
    for j, x in enumerate([-0.8, 0.0, 0.6]):
        rng = np.random.default_rng([777, NAMES.index(name), j])
        y = np.sort(mech.privatize(np.full(MC_N, x), rng))
        law = mech.output_law(x)
        for c in np.quantile(y, np.linspace(0.02, 0.98, 21)):
            f = exact_cdf(law, c)
            emp = np.searchsorted(y, c, side="right") / MC_N
            assert abs(emp - f) <= 4.5 * math.sqrt(max(f * (1 - f), 1e-6) / MC_N) + 1e-12


# --------------------------------------------------------------------------- reference values

# brief §3.2: variance at eps = 1 for x = 0 and x = 1
VAR_EPS1 = {"duchi": ("4.6827", "3.6827"), "pm": ("3.6821", "5.2236"),
            "pm_sub": ("3.6881", "5.0823"), "pm_opt": ("3.7337", "5.0657"),
            "three_outputs": ("4.1758", "4.2335"), "hm": ("4.2890", "4.2890"),
            "hm_tp": ("4.0969", "4.3707")}


@pytest.mark.parametrize("name", sorted(VAR_EPS1))
def test_variance_reference_eps1(name):
    v0, v1 = get_mechanism(name, 1.0).variance([0.0, 1.0])
    assert_printed(v0, VAR_EPS1[name][0])
    assert_printed(v1, VAR_EPS1[name][1])


def test_three_outputs_reference_eps1_and_eps2():
    mech = ThreeOutputs(1.0)
    assert_printed(mech.a, "0.286077")
    assert_printed(mech.C, "2.418478")
    for got, want in zip(mech.probabilities(1.0), ["0.240638", "0.105242", "0.654121"]):
        assert_printed(float(got), want)
    for got, want in zip(mech.probabilities(0.0), ["0.356962", "0.286077", "0.356962"]):
        assert_printed(float(got), want)
    assert_printed(float(mech.variance(0.5)), "4.454619")
    assert_printed(0.5 * mech.c1, "0.528856")  # worst input x*
    # eps = 2: a is the cap E/(E+2) and P(-C | x) = 1/(E+2) on [0, 1]
    mech2, E = ThreeOutputs(2.0), math.exp(2.0)
    assert mech2.a == pytest.approx(E / (E + 2), rel=1e-15)
    assert_printed(mech2.a, "0.786986")
    pm = mech2.probabilities(np.linspace(0, 1, 11))[0]
    np.testing.assert_allclose(pm, 1 / (E + 2), rtol=1e-13)
    assert_printed(1 / (E + 2), "0.106507")


# brief §3.3, Lemma 4: eps -> (a*, C, x*, V_3O)
LEMMA4 = {0.5: ("0", "4.08299", "0", "16.6708"),
          0.75: ("0.07526", "2.89337", "0.1662", "7.7692"),
          1.0: ("0.28608", "2.41848", "0.5289", "4.4555"),
          1.25: ("0.45127", "2.07085", "0.6904", "2.8298"),
          1.5: ("0.60661", "1.82090", "0.7813", "1.9147"),
          EPS_CAP: ("0.73444", "1.66209", "0.8310", "1.4243"),
          2.0: ("0.78699", "1.46955", "0.7348", "0.99992"),
          3.0: ("0.90944", "1.15719", "0.5786", "0.45603"),
          4.0: ("0.96466", "1.05597", "0.5280", "0.31817"),
          # C is printed as 1.00746 in the brief; (E + 2) / (E - 1) at eps = 6 is 1.0074547
          6.0: ("0.99507", "1.00745", "0.5037", "0.25875"),
          8.0: ("0.99933", "1.00101", "0.5005", "0.25118")}


@pytest.mark.parametrize("eps", sorted(LEMMA4))
def test_lemma4_table(eps):
    mech = ThreeOutputs(eps)
    for got, want in zip([mech.a, mech.C, 0.5 * mech.c1, mech.worst_case_variance()],
                         LEMMA4[eps]):
        assert_printed(got, want)
    assert 0.5 * mech.c1 <= 1.0  # the x* <= 1 branch is the active one (Lemma 5)
    if eps > EPS_CAP:  # Lemma 5 closed form at the cap
        E = math.exp(eps)
        assert mech.worst_case_variance() == pytest.approx(
            (E + 2) * (E + 10) / (4 * (E - 1) ** 2), rel=1e-13)


def test_lemma4_thresholds_and_p00():
    assert_printed(EPS_CAP, "1.710392")
    assert_printed(math.exp(EPS_CAP), "5.531129")
    eps = np.concatenate([np.linspace(0.05, 8, 160), [LN2, EPS_CAP]])
    a = p00(eps)
    np.testing.assert_allclose(a, [p00(e) for e in eps], rtol=1e-14, atol=1e-15)
    assert np.all((a >= 0) & (a <= np.exp(eps) / (np.exp(eps) + 2)))
    assert np.all(a[eps < LN2] == 0)
    E = np.exp(eps)
    np.testing.assert_allclose(a[eps > EPS_CAP], (E / (E + 2))[eps > EPS_CAP], rtol=1e-15)
    # continuity at both thresholds
    assert p00(LN2 * (1 + 1e-9)) < 1e-7
    Ec = math.exp(EPS_CAP)
    assert p00(EPS_CAP * (1 - 1e-9)) == pytest.approx(Ec / (Ec + 2), abs=1e-7)
    # Eq. (5) is the minimiser of the worst-case variance over a in [0, E/(E+2)]
    for e in [0.8, 1.0, 1.4, 1.7, 2.0, 3.0]:
        E = math.exp(e)
        res = optimize.minimize_scalar(lambda a, e=e: ThreeOutputs(e, a=a).worst_case_variance(),
                                       bounds=(0, E / (E + 2)), method="bounded",
                                       options={"xatol": 1e-12})
        assert ThreeOutputs(e).worst_case_variance() <= res.fun * (1 + 1e-13)
        assert ThreeOutputs(e).a == pytest.approx(res.x, abs=1e-6)


def test_three_outputs_rejects_bad_a():
    E = math.exp(1.0)
    for bad in [-0.01, E / (E + 2) + 1e-9, 1.0, float("nan"), float("inf")]:
        with pytest.raises(ValueError):
            ThreeOutputs(1.0, a=bad)
    for bad in [True, "0.1", [0.1]]:  # (None means "the optimal a")
        with pytest.raises(TypeError):
            ThreeOutputs(1.0, a=bad)


# brief §2.6 table: eps -> t_PM, t_SUB, t_OPT, A_PM, A_SUB, A_OPT, P_band(SUB)
TABLE_26 = {0.5: ("1.2840", "1.1814", "1.1337", "8.0416", "8.0554", "8.0724", "0.5826"),
            1.0: ("1.6487", "1.3956", "1.2888", "4.0830", "4.1097", "4.1415", "0.6608"),
            2.0: ("2.7183", "1.9477", "1.6906", "2.1640", "2.2117", "2.2617", "0.7914"),
            4.0: ("7.3891", "3.7937", "3.0918", "1.3130", "1.3766", "1.4245", "0.9350"),
            8.0: ("54.598", "14.392", "11.445", "1.0373", "1.0750", "1.0919", "0.9952")}


@pytest.mark.parametrize("eps", sorted(TABLE_26))
def test_piecewise_table(eps):
    pm, sub, opt = PM(eps), PMSub(eps), PMOpt(eps)
    got = [pm.t, sub.t, opt.t, pm.A, sub.A, opt.A, sub.p_band]
    for g, want in zip(got, TABLE_26[eps]):
        assert_printed(g, want)


def test_pm_closed_forms():
    # brief §2.3 (s = e^{eps/2}) and §2.6 (PM-SUB worst case)
    for eps in [0.3, 1.0, 2.5, 6.0]:
        s, E = math.exp(eps / 2), math.exp(eps)
        pm = PM(eps)
        C = (s + 1) / (s - 1)
        assert pm.A == pytest.approx(C, rel=1e-13)
        assert float(pm.L(0.4)) == pytest.approx((C + 1) / 2 * 0.4 - (C - 1) / 2, rel=1e-13)
        assert pm.p == pytest.approx((E - s) / (2 * s + 2), rel=1e-13)
        assert float(pm.variance(0.4)) == pytest.approx(
            0.16 / (s - 1) + (s + 3) / (3 * (s - 1) ** 2), rel=1e-13)
        assert pm.worst_case_variance() == pytest.approx(4 * s / (3 * (s - 1) ** 2), rel=1e-13)
        v_sub = (5 * math.exp(4 * eps / 3) + 6 * E + 5 * math.exp(2 * eps / 3)) / (3 * (E - 1) ** 2)
        assert PMSub(eps).worst_case_variance() == pytest.approx(v_sub, rel=1e-13)


# brief §3.4: eps -> (t*, t* / e^{eps/3})
T_STAR = {0.1: ("1.025319", "0.9917"), 0.5: ("1.133693", "0.9597"),
          1.0: ("1.288757", "0.9234"), 2.0: ("1.690646", "0.8680"),
          3.0: ("2.267097", "0.8340"), 4.0: ("3.091759", "0.8150"),
          6.0: ("5.907015", "0.7994"), 8.0: ("11.444715", "0.7952"),
          10.0: ("22.259946", "0.7941")}


@pytest.mark.parametrize("eps", sorted(T_STAR))
def test_t_star_table(eps):
    t = PMOpt(eps).t
    assert_printed(t, T_STAR[eps][0])
    assert_printed(t / math.exp(eps / 3), T_STAR[eps][1])


def test_pm_sub_ratios():
    # brief §3.4: V_SUB / V_OPT
    for eps, want in [(1, "1.0033"), (2, "1.0113"), (4, "1.0289"), (8, "1.0451"),
                      (10, "1.0475")]:
        assert_printed(W("pm_sub", eps) / W("pm_opt", eps), want)
    # V_SUB / V_PM. The brief prints "0.9931 (1), 0.9730 (2), 0.8998 (4), 0.6900 (8)"; these
    # are the values at eps = 0.5, 1, 2, 4 (the labels are shifted by one). At eps = 8 the
    # ratio is 0.3458.
    for eps, want in [(0.5, "0.9931"), (1, "0.9730"), (2, "0.8998"), (4, "0.6900"),
                      (8, "0.3458")]:
        assert_printed(W("pm_sub", eps) / W("pm", eps), want)
    eps = np.linspace(0.05, 20, 200)
    assert all(W("pm_opt", e) <= W("pm_sub", e) <= W("pm", e) for e in eps)
    assert max(W("pm_sub", e) / W("pm_opt", e) for e in eps) <= 5 / (3 * 2 ** (2 / 3))


# brief §3.5 (Fig. 1): eps -> worst-case variance of each mechanism, and beta*
FIG1_COLS = ["laplace", "duchi", "pm", "hm", "three_outputs", "pm_opt", "pm_sub", "hm_tp"]
FIG1 = {
    0.1: "800.00 400.667 533.222 400.667 400.667 533.056 533.074 400.667 0",
    0.25: "128.00 64.668 85.222 64.668 64.668 85.056 85.075 64.668 0",
    0.5: "32.000 16.6708 21.2226 16.6708 16.6708 21.0582 21.0762 16.6708 0",
    0.75: "14.222 7.7869 9.3711 7.5951 7.7692 9.2095 9.2269 7.6665 0.2436",
    1.0: "8.0000 4.6827 5.2236 4.2890 4.4555 5.0657 5.0823 4.4176 0.1617",
    1.25: "5.1200 3.2512 3.3044 2.7406 2.8298 3.1511 3.1668 2.8160 0.1259",
    1.5: "3.5556 2.4788 2.2623 1.8922 1.9147 2.1144 2.1291 1.9107 0.0895",
    2.0: "2.0000 1.7241 1.2276 1.0423 0.99992 1.0922 1.1045 0.9843 0.2397",
    2.5: "1.2800 1.3897 0.7504 0.6470 0.6290 0.6289 0.6390 0.5704 0.4834",
    3.0: "0.8889 1.2206 0.4929 0.4322 0.4560 0.3859 0.3939 0.3554 0.6451",
    4.0: "0.5000 1.0760 0.2414 0.2190 0.3182 0.1618 0.1665 0.1548 0.8290",
    5.0: "0.3200 1.0273 0.1299 0.1215 0.2741 0.07349 0.07608 0.07265 0.9164",
    # PM is printed as 0.07353 in the brief; 4 s / (3 (s - 1)^2) at s = e^3 is 0.0735213
    6.0: "0.2222 1.0100 0.07352 0.07036 0.2587 0.03484 0.03622 0.03525 0.9587",
    # PM is printed as 0.02531 in the brief; 4 s / (3 (s - 1)^2) at s = e^4 is 0.0253406
    8.0: "0.1250 1.0013 0.02534 0.02490 0.2512 0.008384 0.008762 0.008689 0.9897",
}


@pytest.mark.parametrize("eps", sorted(FIG1))
def test_worst_case_variance_table(eps):
    *values, beta = FIG1[eps].split()
    for name, want in zip(FIG1_COLS, values):
        assert_printed(W(name, eps), want)
    assert_printed(get_mechanism("hm_tp", eps).weight, beta)


@pytest.mark.parametrize("a, b, lo, hi, want", [
    ("duchi", "laplace", 1.5, 3.0, "2.324170"),
    ("duchi", "pm", 1.0, 1.6, "1.289785"),
    ("three_outputs", "pm", 3.0, 3.5, "3.269358"),
    ("three_outputs", "pm_sub", 2.3, 2.8, "2.561089"),
    ("three_outputs", "pm_opt", 2.3, 2.7, "2.499811"),
    ("pm_sub", "duchi", 1.0, 1.4, "1.193048"),
    ("pm_opt", "duchi", 1.0, 1.4, "1.183102"),
    ("hm_tp", "hm", 1.2, 2.0, "1.593378"),
    ("hm_tp", "pm_opt", 5.0, 6.0, "5.440112"),
])
def test_fig1_crossovers(a, b, lo, hi, want):
    # brief §3.5, crossovers by brentq (6 decimals)
    root = optimize.brentq(lambda e: W(a, e) - W(b, e), lo, hi, xtol=1e-12)
    assert_printed(root, want)


def test_thresholds_and_beta_list():
    assert_printed(HM_EPS_STAR, "0.609352")
    assert_printed(HMTP_EPS_BETA, "0.610986")
    # brief §2.8: beta* by eps
    for eps, want in [(0.6, "0"), (0.65, "0.2900"), (0.75, "0.2436"), (1, "0.1617"),
                      (1.5, "0.0895"), (2, "0.2397"), (2.5, "0.4834"), (3, "0.6451"),
                      (4, "0.8290"), (5, "0.9164"), (6, "0.9587"), (8, "0.9897")]:
        assert_printed(hm_tp_beta(eps), want)
    # HM: flat variance above eps*, Duchi below
    for eps in [0.7, 1.0, 3.0]:
        s, E = math.exp(eps / 2), math.exp(eps)
        hm = get_mechanism("hm", eps)
        v = (s + 3) / (3 * s * (s - 1)) + (E + 1) ** 2 / (s * (E - 1) ** 2)
        np.testing.assert_allclose(hm.variance(np.linspace(-1, 1, 9)), v, rtol=1e-12)
    assert hm_alpha(0.6) == 0.0 and get_mechanism("hm", 0.6).weight == 0.0


# --------------------------------------------------------------------------- PM-OPT's t


def test_pm_opt_t_three_ways():
    grid = np.linspace(0.05, 15.0, 60)
    grid = grid[np.abs(grid - HALF_LN2) > 0.01]  # Ferrari's 0/0 point
    t_brent = np.array([pm_opt_t(e) for e in grid])
    np.testing.assert_allclose(pm_opt_t_ferrari(grid), t_brent, rtol=1e-9)
    for eps in [0.1, 0.5, 1.0, 2.0, 4.0, 8.0, 12.0]:
        t, v = _t_by_minimize_scalar(eps)
        # minimize_scalar locates a smooth minimum only to ~sqrt(machine eps) in t (V is
        # flat there); the minimum value itself agrees to rounding
        assert t == pytest.approx(pm_opt_t(eps), rel=1e-7)
        assert v == pytest.approx(PMOpt(eps).worst_case_variance(), rel=1e-12)


def _t_by_minimize_scalar(eps):
    res = optimize.minimize_scalar(lambda t: Piecewise(eps, t).worst_case_variance(),
                                   bounds=(1.0, math.exp(eps / 2)), method="bounded",
                                   options={"xatol": 1e-14})
    return res.x, res.fun


def test_pm_opt_at_ferrari_singularity():
    # brief §2.6: Ferrari's closed form is 0/0 at eps = ln(2)/2; the class must not be
    eps = HALF_LN2
    assert not np.isfinite(pm_opt_t_ferrari(eps))
    mech = PMOpt(eps)
    assert 1.0 < mech.t < math.exp(eps / 2) and np.isfinite(mech.worst_case_variance())
    t, v = _t_by_minimize_scalar(eps)
    assert mech.t == pytest.approx(t, rel=1e-7)
    assert mech.worst_case_variance() == pytest.approx(v, rel=1e-12)
    assert max_privacy_ratio(mech) == pytest.approx(math.exp(eps), rel=1e-9)


# --------------------------------------------------------------------------- HM-TP's beta


def test_hm_tp_beta_quadratic_vs_minimax():
    grid = np.concatenate([np.linspace(0.2, 10.0, 18),
                           [HMTP_EPS_BETA + 1e-3, 0.65, LN2 - 1e-6, LN2 + 1e-6, EPS_CAP]])
    for eps in grid:
        beta, v_num = hm_tp_beta_minimax(eps, full_output=True)
        mech = get_mechanism("hm_tp", eps)
        assert mech.weight == hm_tp_beta(eps)
        v = mech.worst_case_variance()
        assert v == pytest.approx(v_num, rel=1e-6), eps
        assert v <= v_num * (1 + 1e-12)  # the closed form is the true minimax
        assert v <= min(W("three_outputs", eps), W("pm_sub", eps)) * (1 + 1e-12)


def test_hm_alpha_is_minimax():
    # brief §2.4: Wang et al.'s alpha minimises the worst-case variance of PM + Duchi
    for eps in [0.4, 0.65, 1.0, 2.0, 5.0]:
        pm, duchi = PM(eps), ThreeOutputs(eps, a=0.0)
        res = optimize.minimize_scalar(lambda w, pm=pm, duchi=duchi:
                                       Mixture(pm, duchi, w).worst_case_variance(),
                                       bounds=(0.0, 1.0), method="bounded",
                                       options={"xatol": 1e-12})
        # the optimum sits at a kink of max_x Var (the variance is flat), where the bounded
        # Brent search converges slowly: compare loosely, and require alpha to be no worse
        assert W("hm", eps) == pytest.approx(res.fun, rel=1e-7)
        assert W("hm", eps) <= res.fun * (1 + 1e-12)


def test_mixture_validation():
    with pytest.raises(ValueError):
        Mixture(PMSub(1.0), ThreeOutputs(1.0), 1.2)
    with pytest.raises(ValueError):
        Mixture(PMSub(1.0), ThreeOutputs(2.0), 0.5)
    with pytest.raises(TypeError):
        Mixture(ThreeOutputs(1.0), PMSub(1.0), 0.5)
    # the degenerate weights sample and report like their single part
    rng = np.random.default_rng(3)
    x = np.linspace(-1, 1, 5)
    only_pw = Mixture(PMSub(1.0), ThreeOutputs(1.0), 1.0)
    np.testing.assert_allclose(only_pw.variance(x), PMSub(1.0).variance(x), rtol=1e-15)
    assert np.all(np.abs(only_pw.privatize(x, rng)) <= PMSub(1.0).A)
    assert max_privacy_ratio(only_pw) == pytest.approx(math.e, rel=1e-9)


# --------------------------------------------------------------------------- validation

BAD_EPS = st.one_of(st.floats(max_value=0.0), st.sampled_from([math.nan, math.inf, -math.inf]),
                    st.booleans(), st.text(max_size=5), st.none())


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(NAMES), eps=BAD_EPS)
def test_bad_epsilon_is_refused(name, eps):
    with pytest.raises((ValueError, TypeError)):
        get_mechanism(name, eps)


def _works_without_warnings(mech) -> bool:
    """Sampling, variances and output laws are finite and consistent, with no float warning."""
    import warnings

    x = np.linspace(-1.0, 1.0, 9)
    with warnings.catch_warnings(), np.errstate(over="raise", invalid="raise",
                                                divide="raise"):
        warnings.simplefilter("error")
        y = mech.privatize(np.repeat(x, 50), np.random.default_rng(0))
        var, worst = mech.variance(x), mech.worst_case_variance()
        laws = [mech.output_law(v) for v in (-1.0, 0.0, 0.3, 1.0)]
    return bool(np.all(np.isfinite(y)) and np.all(np.isfinite(var)) and np.all(var >= 0)
                and np.isfinite(worst) and worst >= var.max() * (1 - 1e-9)
                and all(np.all(np.isfinite(law.masses)) and np.all(law.masses >= 0)
                        and np.all(np.isfinite(law.breakpoints)) for law in laws))


@settings(max_examples=120, deadline=None)
@given(name=st.sampled_from(NAMES),
       log_eps=st.floats(min_value=-6.0, max_value=3.0, allow_nan=False))
def test_every_epsilon_in_range_works_or_is_refused_by_name(name, log_eps):
    """ε in [1e-6, 1e3]: up to the mechanism's ``max_epsilon`` it works in float64;
    above it, it is refused with a message naming ε and the largest supported value."""
    eps = 10.0**log_eps
    cap = REGISTRY[name].max_epsilon
    if eps <= cap:
        assert _works_without_warnings(get_mechanism(name, eps))
    else:
        with pytest.raises(ValueError, match=rf"supports epsilon up to {cap:g}.*epsilon={eps:g}"):
            get_mechanism(name, eps)


@pytest.mark.parametrize("name", NAMES)
def test_max_epsilon_is_tight_and_the_edges_work(name):
    """At the cap and at 1e-6 every mechanism works; a cap is not far below where it breaks."""
    cap = REGISTRY[name].max_epsilon
    assert _works_without_warnings(get_mechanism(name, 1e-6))
    assert _works_without_warnings(get_mechanism(name, min(cap, 1e3)))
    if math.isfinite(cap):
        assert cap >= 200.0  # e^200 ~ 7e86: far beyond any budget a paper uses


def test_the_range_check_catches_an_overflowing_mechanism():
    """Without its cap PM overflows at ε = 300: the check above would fail."""
    class Uncapped(PM):
        max_epsilon = math.inf

    with pytest.raises(FloatingPointError), np.errstate(over="raise"):
        _works_without_warnings(Uncapped(300.0))


OUTSIDE = st.one_of(st.floats(min_value=1.0, exclude_min=True),
                    st.floats(max_value=-1.0, exclude_max=True),
                    st.sampled_from([math.nan, math.inf, -math.inf]))


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(NAMES), bad=OUTSIDE, good=st.floats(-1.0, 1.0),
       as_array=st.booleans())
def test_bad_inputs_are_refused(name, bad, good, as_array):
    mech = get_mechanism(name, 1.0)
    x = np.array([good, bad, good]) if as_array else bad
    with pytest.raises(ValueError):
        mech.privatize(x, np.random.default_rng(0))
    with pytest.raises(ValueError):
        mech.variance(x)


@settings(max_examples=20, deadline=None)
@given(name=st.sampled_from(NAMES),
       rng=st.sampled_from([None, 0, np.random.RandomState(0), "seed", np.random.SeedSequence(1)]))
def test_rng_must_be_a_generator(name, rng):
    with pytest.raises(TypeError):
        get_mechanism(name, 1.0).privatize(np.zeros(3), rng)


def _output_ok(law, y):
    """Each entry of ``y`` is an atom of ``law`` or lies in its continuous support."""
    ok = np.isin(y, law.atoms) if law.atoms.size else np.zeros(y.shape, bool)
    if law.has_density:
        lo, hi = law.support
        ok |= (y >= lo) & (y <= hi) & np.isfinite(y)
    return ok


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(NAMES), eps=st.floats(0.05, 10.0),
       shape=st.sampled_from([(), (1,), (7,), (3, 5), (28, 28)]), seed=st.integers(0, 2**32),
       edge=st.booleans())
def test_privatize_shape_and_range(name, eps, shape, seed, edge):
    mech = get_mechanism(name, eps)
    rng = np.random.default_rng(seed)
    x = rng.choice([-1.0, 0.0, 1.0], size=shape) if edge else rng.uniform(-1, 1, size=shape)
    y = mech.privatize(x, rng)
    assert np.shape(y) == np.shape(x) and np.asarray(y).dtype == np.float64
    assert isinstance(y, np.ndarray)
    # the atoms and the support do not depend on x, so the law at 0 describes every entry
    assert np.all(_output_ok(mech.output_law(0.0), y))
    assert mech.variance(x).shape == np.shape(x)


def test_privatize_scalar_and_list_inputs():
    rng = np.random.default_rng(5)
    for name in NAMES:
        mech = get_mechanism(name, 2.0)
        assert mech.privatize(0.25, rng).shape == ()
        assert mech.privatize([0.1, -1, 1], rng).shape == (3,)
        assert mech.privatize(np.zeros((0, 4)), rng).shape == (0, 4)


def test_not_lowest_finds_where_hm_tp_loses():
    from ldp_companion.mechanisms.compare import not_lowest, worst_case_table

    table = worst_case_table(NAMES, np.geomspace(0.05, 8.0, 600))
    gaps = not_lowest(table, "hm_tp")
    # brief §3.5: HM beats HM-TP on about (0.695, 1.593) by up to 3.12%, PM-OPT above 5.44
    main = gaps.loc[gaps["eps_to"].sub(1.59).abs().idxmin()]
    assert main["best"] == "hm" and abs(main["eps_to"] - 1.593) < 0.02
    assert abs(main["max_excess"] - 0.0312) < 5e-4
    last = gaps.iloc[-1]
    assert (last["best"] == "pm_opt" and abs(last["eps_from"] - 5.44) < 0.03
            and last["eps_to"] == 8.0)
    with pytest.raises(ValueError):
        not_lowest(table, "nope")


# --------------------------------------------------------------------------- block sampling


@pytest.mark.parametrize("name", NAMES)
def test_block_sampling_does_not_depend_on_the_block_length(name):
    """The samplers draw their uniforms block by block; the output is that of one block."""
    mech = get_mechanism(name, 1.3)
    x = np.random.default_rng(3).uniform(-1, 1, size=(37, 11))
    whole = mech.privatize(x, np.random.default_rng(9))
    for chunk in (1, 7, 64):
        got = sample_from_uniform(mech._from_uniform, x, np.random.default_rng(9), chunk=chunk)
        np.testing.assert_array_equal(got, whole)


def test_laplace_inverse_cdf_points():
    """u = 1/2, 3/4, 1/4 give x, x + b ln 2, x - b ln 2; u = 0 stays finite (2^-53 floor)."""
    mech = Laplace(0.8)
    b, x = mech.scale, np.full(4, 0.3)
    y = mech._from_uniform(x, np.array([0.5, 0.75, 0.25, 0.0]))
    want = [0.3, 0.3 + b * np.log(2), 0.3 - b * np.log(2), 0.3 - 53 * b * np.log(2)]
    np.testing.assert_allclose(y, want, rtol=1e-14)


def _harmony_two_steps(v, u, eps):
    """Alg. 1 spelled out: step 1 on u, step 2 on u's position inside step 1's interval."""
    q = 0.5 * (1 + v)
    bit = np.where(u < q, 1, -1)
    u2 = np.where(bit == 1, u / q, (u - q) / (1 - q))
    keep = u2 < np.exp(eps) / (np.exp(eps) + 1)
    return np.where(keep, bit, -bit) * Harmony(eps).C


def test_harmony_one_uniform_is_the_two_steps():
    rng = np.random.default_rng(5)
    v, u = rng.uniform(-1, 1, 100_000), rng.random(100_000)
    np.testing.assert_array_equal(Harmony(0.7)._from_uniform(v, u.copy()),
                                  _harmony_two_steps(v, u, 0.7))

    class StepOneOnly(Harmony):  # a mutant that forgets randomized response
        def _from_uniform(self, v, u):
            return np.where(u < 0.5 * (1 + v), self.C, -self.C)

    assert np.mean(StepOneOnly(0.7)._from_uniform(v, u) != _harmony_two_steps(v, u, 0.7)) > 0.1


def test_throughput_table_rows_and_ratios():
    from ldp_companion.mechanisms.throughput import throughput_table

    t = throughput_table(n=10_000, repeats=1, names=["pm", "harmony"])
    assert list(t.index) == ["rng.laplace", "rng.random", "pm", "harmony"]
    assert t.loc["rng.laplace", "vs laplace"] == 1 and t.loc["rng.random", "vs floor"] == 1
    ratio = t["vs laplace"] / t["vs floor"]  # the same two times, divided the other way
    np.testing.assert_allclose(ratio, t.loc["rng.random", "vs laplace"])
    with pytest.raises(ValueError, match="n"):
        throughput_table(n=0)
