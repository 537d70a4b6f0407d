"""Chapter 1's checks of its code against values derived without it: Table V's formulas typed
from the paper, the ε each mechanism spends measured from its noise, Theorem 3's audit on one
entry, Alg. 2's keep rate; each is shown failing on a broken input. And the chapter's mutants
(:mod:`ldp_companion.tldp.mutants`): each changes what it targets, and is undone."""
from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import assert_sig

from ldp_companion.auditing.audit import empirical_audit
from ldp_companion.tensor.calibration import idn_c, mvg_budget
from ldp_companion.tldp import algorithm as alg
from ldp_companion.tldp import error, mechanisms, privacy
from ldp_companion.tldp.mutants import MUTANTS
from ldp_companion.verdicts.mutation import applied

MUTANT = {m.name: m for m in MUTANTS}


# --- Table V, typed from the paper ------------------------------------------------------------

@pytest.mark.parametrize("mech, shape, delta_range, eps, printed", [
    # the brief's C8 table (δ = 10⁻⁵, s₂ = Δ√I, γ = s₂/2), three significant digits
    ("laplace", (28, 28), 256, 1.0, "7.95e6"), ("gaussian", (28, 28), 256, 1.0, "2.81e6"),
    ("idn", (28, 28), 256, 1.0, "6.34e6"), ("idn", (28, 28), 256, 10.0, "6.37e5"),
    ("idn", (32, 32, 3), 256, 1.0, "4.63e7"), ("idn", (8, 8), 17, 1.0, "1.30e4"),
    ("mvg", (28, 28), 256, 0.1, "4.86e19"), ("mvg", (28, 28), 256, 1.0, "4.86e17"),
    ("mvg", (32, 32, 3), 256, 1.0, "6.27e19"), ("mvg", (8, 8), 17, 1.0, "7.91e10"),
    ("tldp_l", (28, 28), 256, 1.0, "1.01e4"), ("tldp_g", (28, 28), 256, 1.0, "3584"),
    ("tldp_l", (8, 8), 17, 1.0, "192.3"), ("tldp_g", (8, 8), 17, 1.0, "68")])
def test_paper_error_reference_values(mech, shape, delta_range, eps, printed):
    assert_sig(error.paper_error(mech, shape, delta_range, eps), printed)


@pytest.mark.parametrize("shape", [(8, 8), (28, 28), (32, 32, 3)])
@pytest.mark.parametrize("eps", [0.1, 1.0, 10.0])
def test_the_typed_formulas_agree_with_the_calibration_code(shape, eps):
    # two implementations of one printed formula: the paper's form (cancellation in
    # −ζ + √(ζ² + 2ε)) and the mechanisms' stable one
    size, first = math.prod(shape), shape[0]
    s2 = 256.0 * math.sqrt(size)
    assert error.paper_error("idn", shape, 256, eps) == pytest.approx(
        math.sqrt(size) * s2 / idn_c(size, eps, 1e-5), rel=1e-9)
    assert error.paper_error("mvg", shape, 256, eps) == pytest.approx(
        first * size / mvg_budget(first, size // first, s2, eps, 1e-5), rel=1e-8)


def test_the_table_v_check_tells_a_noise_scale_off_by_two():
    # the chapter's check: |paper − MC| ≤ (1 % Jensen + 4 s.e.) of the paper's value;
    # n = 300 MNIST-shaped IDN tensors
    paper = error.paper_error("idn", (28, 28), 256, 1.0)
    mc, se = error.monte_carlo_error("idn", (28, 28), 256, 1.0, 300, np.random.default_rng(0))
    tol = 0.01 + 4 * se / mc
    assert abs(mc - paper) <= tol * paper
    with applied(MUTANT["idn-c-half"]):      # σ = s₂/c doubled
        mc2, se2 = error.monte_carlo_error("idn", (28, 28), 256, 1.0, 300,
                                           np.random.default_rng(0))
    assert mc2 == pytest.approx(2 * mc, rel=0.02)
    assert abs(mc2 - paper) > (0.01 + 4 * se2 / mc2) * paper


def test_monte_carlo_error_draws_through_the_experiments_perturb(monkeypatch):
    calls = []

    def spy(name, x, epsilon, *, value_range, rng):
        calls.append(name)
        return np.zeros_like(x)

    monkeypatch.setattr(mechanisms, "perturb", spy)
    assert error.monte_carlo_error("mvg", (4, 4), 2.0, 1.0, 5, np.random.default_rng(0))[0] == 0
    assert calls == ["mvg"]
    with pytest.raises(ValueError, match="mechanism"):
        error.monte_carlo_error("tldp", (4, 4), 2.0, 1.0, 5, np.random.default_rng(0))


# --- the ε each mechanism spends, measured from its noise ------------------------------------

ACCOUNTED = {  # the chapter's accounting, from the paper's calibration (continuous range Δ)
    "tldp_l": lambda e: 784 * e, "laplace": lambda e: e,
    "tldp_g": lambda e: privacy.gdp_epsilon_exact(math.sqrt(2 * 784 * e)),
    "gaussian": lambda e: privacy.gdp_epsilon_exact(math.sqrt(2 * e))}


@pytest.mark.parametrize("mech", list(ACCOUNTED))
@pytest.mark.parametrize("eps", [0.1, 1.0, 10.0])
def test_spent_epsilon_brackets_the_accounting(mech, eps):
    # n = 300 MNIST-shaped tensors (235,200 entries); the interval is ±4 standard errors of
    # the scale, about ±1 %
    got = privacy.spent_epsilon(mech, (28, 28), 256.0, eps, 300, np.random.default_rng(1))
    assert got["low"] <= ACCOUNTED[mech](eps) <= got["high"]
    assert got["high"] - got["low"] < 0.03 * got["epsilon"]
    assert got["low"] < got["epsilon"] < got["high"]


@pytest.mark.parametrize("name, mech, factor", [
    ("tldp-laplace-scale-half", "tldp_l", 2.0), ("laplace-baseline-per-entry", "laplace", 784.0),
    ("tldp-gauss-sigma-half", "tldp_g", None), ("gaussian-baseline-sigma-half", "gaussian", None)])
def test_spent_epsilon_tells_a_wrong_noise_scale(name, mech, factor):
    with applied(MUTANT[name]):
        got = privacy.spent_epsilon(mech, (28, 28), 256.0, 1.0, 300, np.random.default_rng(1))
    assert not got["low"] <= ACCOUNTED[mech](1.0) <= got["high"]
    if factor:  # pure ε scales with 1/b
        assert got["epsilon"] == pytest.approx(factor * ACCOUNTED[mech](1.0), rel=0.02)
    else:       # σ halved: μ doubled
        assert got["epsilon"] == pytest.approx(
            privacy.gdp_epsilon_exact(2 * math.sqrt(2 * (784 if mech == "tldp_g" else 1))),
            rel=0.03)


def test_spent_epsilon_refuses_a_mechanism_without_iid_noise():
    with pytest.raises(ValueError, match="mechanism"):
        privacy.spent_epsilon("idn", (4, 4), 2.0, 1.0, 10, np.random.default_rng(0))


# --- Theorem 3 and Alg. 2 on one entry -------------------------------------------------------

def _audit(weight, rng, n=20_000):
    """The chapter's audit: weighted TLDP on one entry (Δ = 2, ε = 1), inputs 0 and 1, windows
    around the first input."""
    sampler = privacy.copies_sampler(alg.tldp, 1.0, 2.0, weights=np.full(1, weight))
    return empirical_audit(sampler, np.zeros(1), np.ones(1), n, rng,
                           statistic=lambda y: -np.abs(y[:, 0])).epsilon_lower


def test_the_theorem_3_check_passes_a_mechanism_within_the_bound():
    # w = 1 keeps nothing: Lap(2) noise, true ε = d/b = 1/2 for inputs 1 apart, so the check
    # e^(audited ε) ≤ (1 − w')e^ε passes for w' = 1/4 (bound 2.04) ...
    rng = np.random.default_rng(3)
    pure = _audit(1.0, rng)
    assert 0.0 < pure <= 0.5 and math.exp(pure) <= 0.75 * math.e
    # ... and fails for weighted TLDP at w = 1/4, whose kept entries are atoms
    assert math.exp(_audit(0.25, rng)) > 0.75 * math.e


def test_the_keep_rate_check_tells_the_weight_sign():
    # one entry, p = 0.2, w = 1/2: kept with 0.1; n = 100,000 draws, |z| < 4
    n = 100_000
    rate = alg.tldp(np.zeros((n, 1)), 1.0, 2.0, rng=np.random.default_rng(4), batched=True,
                    weights=np.full((n, 1), 0.5), return_mask=True)[1].mean()
    se = math.sqrt(0.1 * 0.9 / n)
    assert abs(rate - 0.1) <= 4 * se
    with applied(MUTANT["alg2-weight-sign"]):
        rate2 = alg.tldp(np.zeros((n, 1)), 1.0, 2.0, rng=np.random.default_rng(4), batched=True,
                         weights=np.full((n, 1), 0.5), return_mask=True)[1].mean()
    assert abs(rate2 - 0.1) > 100 * se and abs(rate2 - 0.3) <= 4 * math.sqrt(0.21 / n)


# --- the mutants -----------------------------------------------------------------------------

def _perturbed(name):
    x = np.zeros((2, 4, 4))
    return mechanisms.perturb(name, x, 1.0, value_range=2.0, rng=np.random.default_rng(5))


PROBES = {
    "tldp-laplace-scale-half": lambda: alg.noise_scale(2.0, 1.0),
    "tldp-gauss-sigma-half": lambda: alg.noise_scale(2.0, 1.0, "gaussian"),
    "alg2-weight-sign": lambda: alg.tldp(
        np.zeros((1000, 1)), 1.0, 2.0, rng=np.random.default_rng(6), batched=True,
        weights=np.full((1000, 1), 0.5), return_mask=True)[1].mean(),
    "laplace-baseline-per-entry": lambda: _perturbed("laplace"),
    "gaussian-baseline-sigma-half": lambda: _perturbed("gaussian"),
    "idn-c-half": lambda: _perturbed("idn"),
    "table5-tldp-l-no-sqrt2": lambda: error.paper_error("tldp_l", (28, 28), 256, 1.0),
    "tldp-g-mu-half": lambda: privacy.gaussian_mu(784, 256, 1.0),
    "mvg-sigma-tenth": lambda: _perturbed("mvg"),
}


def test_every_mutant_has_a_probe_and_there_are_at_least_four():
    assert set(PROBES) == set(MUTANT) and len(MUTANTS) >= 4


@pytest.mark.parametrize("name", list(PROBES))
def test_each_mutant_changes_what_it_targets_and_is_undone(name):
    before = PROBES[name]()
    with applied(MUTANT[name]):
        during = PROBES[name]()
    assert not np.allclose(during, before)
    assert np.array_equal(PROBES[name](), before)


def test_the_noise_scale_mutants_touch_one_noise_only():
    with applied(MUTANT["tldp-laplace-scale-half"]):
        assert alg.noise_scale(2.0, 1.0, "gaussian") == pytest.approx(math.sqrt(2.0))
        assert alg.noise_scale(2.0, 1.0) == pytest.approx(1.0)
    with applied(MUTANT["tldp-gauss-sigma-half"]):
        assert alg.noise_scale(2.0, 1.0) == pytest.approx(2.0)
        assert alg.noise_scale(2.0, 1.0, noise="gaussian") == pytest.approx(math.sqrt(0.5))
