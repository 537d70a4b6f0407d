"""Chapter 1 (TLDP): Alg. 1–2 in log space, the accounting and attack helpers, Table V.
Reference values are the TLDP brief's (recomputed there with numpy/scipy); each kind of check
is also shown failing on a mutant."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from ldp_companion.data.datasets import load_digits
from ldp_companion.tensor import laplace_mechanism
from ldp_companion.tensor.calibration import gaussian_delta
from ldp_companion.tldp import algorithm as alg
from ldp_companion.tldp import error, privacy
from ldp_companion.tldp.mechanisms import NAMES, perturb

# --- Alg. 1: the retaining probability ---------------------------------------------------

@pytest.mark.parametrize("size, delta_range, eps, noise, ref, tol", [
    (784, 256, 1.0, "laplace", -342.76, 0.005), (784, 256, 1.0, "gaussian", -342.71, 0.005),
    (3072, 256, 1.0, "laplace", -1336.4, 0.05), (3072, 256, 0.5, "laplace", -669.9, 0.05),
    (1280, 2, 1.0, "laplace", -556.1, 0.05)])
def test_log10_p_matches_the_reference_values(size, delta_range, eps, noise, ref, tol):
    # tolerance: half a unit in the last printed digit of the reference value
    assert alg.log10_retain_prob(size, delta_range, eps, noise) == pytest.approx(ref, abs=tol)
    assert alg.retain_prob(size, delta_range, eps, noise) == 0.0  # it underflows in float64


@pytest.mark.parametrize("size, delta_range, noise, ref", [
    (1, 2.0, "laplace", 0.2), (1, 2.0, "gaussian", 0.2200), (4, 2.0, "laplace", 0.012290),
    (4, 2.0, "gaussian", 0.013850), (2, 2.0, "laplace", 0.0842), (2, 0.002, "laplace", 0.9892)])
def test_p_at_small_sizes(size, delta_range, noise, ref):
    assert alg.retain_prob(size, delta_range, 1.0, noise) == pytest.approx(ref, abs=6e-5)


def test_a_linear_space_p_is_caught():
    # the mutant computes p from its printed form; it gives 0/0 or 0 where log space is finite
    def mutant(size, d, eps):
        a = math.exp(eps - size * d / (d / eps))
        return a / (2 * d / eps + a)
    assert mutant(784, 256, 1.0) == 0.0
    assert np.isfinite(alg.log10_retain_prob(784, 256, 1.0))
    assert mutant(4, 2.0, 1.0) == pytest.approx(alg.retain_prob(4, 2.0, 1.0), rel=1e-12)


@pytest.mark.parametrize("size, delta_range", [(64, 17.0), (784, 256.0), (3072, 256.0)])
@pytest.mark.parametrize("noise", ["laplace", "gaussian"])
def test_ceilings_bound_the_maximum_over_epsilon(size, delta_range, noise):
    eps = np.logspace(-7, 1, 40_001)
    best = alg.retain_prob(size, delta_range, eps, noise).max()
    ceiling = alg.retain_prob_ceiling(size, delta_range, noise)
    # the ceiling drops the a in the denominator c + a: tight to 0.2 % at I = 64, less above
    assert best <= ceiling and best == pytest.approx(ceiling, rel=5e-3)


def test_the_laplace_ceiling_does_not_bound_tldp_g():
    # errata 1: applying 1/(2eΔ(I−1)) to TLDP-G is wrong (the G maximum is ~37× higher)
    eps = np.logspace(-7, 1, 40_001)
    best_g = alg.retain_prob(784, 256.0, eps, "gaussian").max()
    assert best_g > 30 * alg.retain_prob_ceiling(784, 256.0, "laplace")


def test_keep_rate_matches_p_by_monte_carlo():
    # I = 1, Δ = 2, ε = 1: p = 0.2; n = 200,000 draws, |z| < 4
    n, p = 200_000, alg.retain_prob(1, 2.0, 1.0)
    _, keep = alg.tldp(np.zeros((n, 1)), 1.0, 2.0, rng=np.random.default_rng(0), batched=True,
                       return_mask=True)
    assert abs(keep.mean() - p) / math.sqrt(p * (1 - p) / n) < 4
    # weighted: kept with (1 − w) p
    w = np.full((n, 1), 0.75)
    _, keep_w = alg.tldp(np.zeros((n, 1)), 1.0, 2.0, rng=np.random.default_rng(1),
                         batched=True, weights=w, return_mask=True)
    q = 0.25 * p
    assert abs(keep_w.mean() - q) / math.sqrt(q * (1 - q) / n) < 4
    assert abs(keep_w.mean() - p) / math.sqrt(p * (1 - p) / n) > 20  # a mutant ignoring w


# --- Theorem 2: TLDP-L at ε is per-entry Laplace at Iε --------------------------------------

def test_tldp_l_equals_the_laplace_baseline_at_i_eps_for_a_shared_seed():
    x = np.random.default_rng(9).uniform(-1, 1, (50, 28, 28))
    for eps in (1.0, 1 / 3, 0.1):
        y = alg.tldp(x, eps, 2.0, rng=np.random.default_rng(4), batched=True)
        b = laplace_mechanism(x, 784 * eps, 2.0, rng=np.random.default_rng(4), batched=True)
        assert np.allclose(y, b, rtol=0, atol=1e-12)
    # a mutant baseline at ε (not Iε) is far off
    b_eps = laplace_mechanism(x, 1.0, 2.0, rng=np.random.default_rng(4), batched=True)
    assert not np.allclose(alg.tldp(x, 1.0, 2.0, rng=np.random.default_rng(4), batched=True),
                           b_eps)


def test_tldp_l_noise_has_the_law_of_laplace_at_i_eps():
    # independent seeds, n = 500 digits-size tensors (32,000 entries each side), KS level 1e-3
    x = np.zeros((500, 8, 8))
    y = alg.tldp(x, 1.0, 2.0, rng=np.random.default_rng(0), batched=True).ravel()
    b = laplace_mechanism(x, 64.0, 2.0, rng=np.random.default_rng(1), batched=True).ravel()
    assert stats.ks_2samp(y, b).pvalue > 1e-3
    b_wrong = laplace_mechanism(x, 48.0, 2.0, rng=np.random.default_rng(1), batched=True)
    assert stats.ks_2samp(y, b_wrong.ravel()).pvalue < 1e-6


# --- Alg. 2 / Theorem 3 --------------------------------------------------------------------

def test_weights_change_nothing_when_p_underflows():
    x = np.random.default_rng(3).uniform(-1, 1, (20, 28, 28))
    w = alg.intensity_weights(x, 2.0)
    for noise in ("laplace", "gaussian"):
        plain = alg.tldp(x, 1.0, 2.0, rng=np.random.default_rng(8), noise=noise, batched=True)
        weighted = alg.tldp(x, 1.0, 2.0, rng=np.random.default_rng(8), noise=noise,
                            weights=w, batched=True)
        assert np.allclose(plain, weighted, rtol=0, atol=0)


def test_weighted_bound_threshold():
    assert privacy.weighted_bound_threshold([0.1, 0.5, 1.0, 2.0]) == pytest.approx(
        [0.095, 0.393, 0.632, 0.865], abs=5e-4)


def test_binary_weights_mark_the_digit():
    X, _ = load_digits()
    w = alg.binary_weights(X[:5].reshape(5, 8, 8), batched=True)
    assert set(np.unique(w)) == {0.0, 1.0}
    assert np.all(X[:5].reshape(5, 8, 8)[w == 1].min() > X[:5].reshape(5, 8, 8)[w == 0].max()
                  - 16)


# --- torch and numpy paths ------------------------------------------------------------------

def test_torch_and_numpy_tldp_give_the_same_law():
    n = 100_000
    y_t = alg.tldp(torch.zeros(n, 1, dtype=torch.float64), 1.0, 2.0,
                   rng=torch.Generator().manual_seed(0), batched=True)
    y_n = alg.tldp(np.zeros((n, 1)), 1.0, 2.0, rng=np.random.default_rng(0), batched=True)
    assert isinstance(y_t, torch.Tensor)
    assert stats.ks_2samp(y_t.numpy().ravel(), y_n.ravel()).pvalue > 1e-3
    # the atom at the input (p = 0.2) is there in both
    assert abs((y_t == 0).double().mean().item() - (y_n == 0).mean()) < 4 * math.sqrt(
        2 * 0.16 / n)


# --- bad input -----------------------------------------------------------------------------

def test_bad_input_names_the_argument():
    rng = np.random.default_rng(0)
    x = np.zeros((2, 3, 3))
    with pytest.raises(ValueError, match="value_range"):
        alg.tldp(x, 1.0, 0.0, rng=rng)
    with pytest.raises(ValueError, match="value_range"):
        alg.log_retain_prob(4, -1.0, 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        alg.tldp(x, 0.0, 2.0, rng=rng)
    with pytest.raises(ValueError, match="weights must lie in"):
        alg.tldp(x, 1.0, 2.0, rng=rng, weights=np.full((3, 3), 1.5))
    with pytest.raises(ValueError, match="weights of shape"):
        alg.tldp(x, 1.0, 2.0, rng=rng, weights=np.zeros((4, 4)))
    with pytest.raises(ValueError, match="finite"):
        alg.tldp(np.array([[np.nan]]), 1.0, 2.0, rng=rng)
    with pytest.raises(ValueError, match="noise"):
        alg.tldp(x, 1.0, 2.0, rng=rng, noise="cauchy")
    with pytest.raises(ValueError, match="size"):
        alg.log_retain_prob(0, 2.0, 1.0)
    with pytest.raises(ValueError, match="mechanism"):
        perturb("tldp", x, 1.0, value_range=2.0, rng=rng)
    with pytest.raises(ValueError, match="max_diff"):
        privacy.laplace_true_epsilon(4, 2.0, 1.0, max_diff=3.0)


@settings(max_examples=50, deadline=None)
@given(w=st.floats(allow_nan=True, allow_infinity=True).filter(
    lambda v: not (0.0 <= v <= 1.0)))
def test_any_weight_outside_the_unit_interval_is_refused(w):
    with pytest.raises(ValueError, match="weights"):
        alg.tldp(np.zeros((2, 2)), 1.0, 2.0, rng=np.random.default_rng(0),
                 weights=np.array([[0.5, w], [0.0, 1.0]]))


@pytest.mark.parametrize("name", NAMES)
def test_every_named_mechanism_perturbs_a_batch(name):
    x = np.random.default_rng(0).uniform(-1, 1, (5, 8, 8))
    y = perturb(name, x, 1.0, value_range=2.0, rng=np.random.default_rng(1))
    assert y.shape == x.shape and (name == "none") == np.array_equal(y, x)


# --- Theorem 1: accounting and attack --------------------------------------------------------

def test_true_epsilon_and_mu_reference_values():
    assert privacy.laplace_true_epsilon(784, 256, 1.0, max_diff=255) == pytest.approx(780.94,
                                                                                     abs=0.01)
    assert privacy.laplace_true_epsilon(784, 256, 1.0) == pytest.approx(784.0)
    assert privacy.gaussian_mu(784, 256, 1.0) == pytest.approx(39.598, abs=1e-3)
    assert privacy.gaussian_mu(784, 256, 1.0, max_diff=255) == pytest.approx(39.443, abs=1e-3)
    x, xp = np.zeros(784), np.full(784, 255.0)
    assert privacy.mean_laplace_loss(x, xp, 256.0) == pytest.approx(286.5, abs=0.05)


@pytest.mark.parametrize("mu, ref", [(math.sqrt(2.0), 6.57), (11.31, 111.35),
                                     (39.598, 951.93)])
def test_gdp_conversion_by_the_accountant(mu, ref):
    eps = privacy.gdp_epsilon(mu, 1e-5)
    # pessimistic: at most 0.2 % above the exact profile (Balle & Wang), never below it
    assert ref * (1 - 1e-4) <= eps <= ref * 1.002
    assert gaussian_delta(1.0 / mu, 1.0, eps) <= 1e-5 * (1 + 1e-6)
    # a mutant conversion (the zCDP bound ρ + 2√(ρ ln 1/δ)) is looser and is told apart
    rho = mu * mu / 2
    assert rho + 2 * math.sqrt(rho * math.log(1e5)) > eps * 1.01


def test_atom_delta():
    log_p = alg.log_retain_prob(1, 2.0, 1.0)
    assert privacy.atom_delta(1, log_p) == pytest.approx(0.2)
    assert privacy.atom_delta(784, alg.log_retain_prob(784, 256, 1.0)) == pytest.approx(
        784 * 10**-342.76, rel=1e-2)


def test_the_attack_beats_the_bound_for_tldp_and_not_for_the_baseline():
    # digits pair (first 0, first 1), Δ = 17, ε = 1, n = 20,000: brief 0.942 (TLDP-L);
    # the standard error is at most 1/(2√(2n)) = 0.0025
    X, y = load_digits()
    x0, x1 = X[np.argmax(y == 0)].reshape(8, 8), X[np.argmax(y == 1)].reshape(8, 8)
    rng = np.random.default_rng(0)
    b = alg.noise_scale(17.0, 1.0)
    acc = privacy.lr_attack_accuracy(privacy.tldp_sampler(1.0, 17.0), x0, x1,
                                     lambda o: privacy.laplace_loss(o, x0, x1, b), 20_000, rng)
    assert acc == pytest.approx(0.942, abs=0.01)
    b1 = 64 * 17.0

    baseline = privacy.copies_sampler(laplace_mechanism, 1.0, 17.0)
    acc_b = privacy.lr_attack_accuracy(baseline, x0, x1,
                                       lambda o: privacy.laplace_loss(o, x0, x1, b1), 20_000,
                                       rng)
    assert acc_b <= math.exp(1) / (1 + math.exp(1)) + 4 * 0.0025
    assert acc_b == pytest.approx(0.510, abs=0.012)


def test_window_probabilities_show_the_atom():
    px, pxp = privacy.window_probabilities(1.0, 2.0, [0.1, 1e-6], 200_000,
                                           np.random.default_rng(0))
    assert px[1] == pytest.approx(0.2, abs=0.004) and pxp[1] < 1e-4
    assert px[0] / pxp[0] == pytest.approx(9.96, rel=0.08)


# --- Table V --------------------------------------------------------------------------------

def test_table_v_reference_values():
    mnist = (28, 28)
    assert error.paper_error("tldp_g", mnist, 256, 1.0) == pytest.approx(3584, rel=1e-3)
    assert error.implemented_error("tldp_g", mnist, 256, 1.0) == pytest.approx(5068.5, rel=1e-4)
    assert error.paper_error("tldp_g", mnist, 256, 0.5) == pytest.approx(
        error.implemented_error("tldp_g", mnist, 256, 0.5), rel=1e-12)  # agree only at ε = ½
    assert error.paper_error("gaussian", mnist, 256, 1.0) == pytest.approx(2.81e6, rel=2e-3)
    assert error.implemented_error("gaussian", mnist, 256, 1.0) == pytest.approx(1.42e5,
                                                                                rel=2e-3)
    assert error.paper_error("laplace", mnist, 256, 0.1) == pytest.approx(7.95e7, rel=1e-3)
    assert error.paper_approximation("mvg", mnist, 256, 0.1) == pytest.approx(1.26e10, rel=5e-3)
    assert error.paper_approximation("idn", mnist, 256, 1.0) == pytest.approx(3.97e6, rel=2e-3)
    ratio = [error.implemented_error("tldp_l", mnist, 256, e)
             / error.implemented_error("tldp_g", mnist, 256, e) for e in (0.5, 1, 2, 8)]
    assert ratio == pytest.approx([2.828, 2.0, 1.414, 0.707], abs=1e-3)


@pytest.mark.parametrize("mech", error.ORDER)
def test_monte_carlo_agrees_with_the_implemented_error(mech):
    # n = 2,000 MNIST-size tensors; Jensen's gap ≤ 1 % at I = 784
    mc, se = error.monte_carlo_error(mech, (28, 28), 256, 1.0, 2000, np.random.default_rng(0))
    impl = error.implemented_error(mech, (28, 28), 256, 1.0)
    assert abs(mc - impl) <= 4 * se + 0.01 * impl
    if mech in ("tldp_g", "gaussian", "mvg"):  # the paper's column is told apart
        assert abs(error.paper_error(mech, (28, 28), 256, 1.0) - mc) > 20 * se + 0.01 * mc


# --- reading the experiment grids ----------------------------------------------------------

def test_gain_pairs_runs_and_takes_the_best_of_a_group():
    import pandas as pd

    from ldp_companion.tldp import analysis as an

    rows = [{"task": "t", "mechanism": m, "epsilon": 1.0, "run": r, "f1": f + 0.01 * r}
            for r in range(3) for m, f in [("tldp_g", 0.9), ("laplace", 0.2), ("idn", 0.3)]]
    w = an.wide(pd.DataFrame(rows))
    assert an.gain(w, "tldp_g", "laplace") == pytest.approx(np.full((1, 3), 0.7))
    assert an.gain(w, "tldp_g", ["laplace", "idn"]) == pytest.approx(np.full((1, 3), 0.6))
    assert an.gain(w, "tldp_g", "idn", where=lambda t, e: e > 2).size == 0


def test_true_epsilon_of_each_mechanism():
    from ldp_companion.tldp import analysis as an

    assert an.true_epsilon("tldp_l", 0.5, 64) == pytest.approx(32.0)
    assert an.true_epsilon("tldp_l_w", 0.5, 64) == an.true_epsilon("tldp_l", 0.5, 64)
    assert an.true_epsilon("tldp_g", 1.0, 784) == pytest.approx(951.93, abs=0.01)
    assert an.true_epsilon("gaussian", 1.0, 784) == pytest.approx(6.5730, abs=1e-3)  # μ = √2
    assert an.true_epsilon("laplace", 3.0, 784) == 3.0
    assert an.composed_epsilon("4096,64,640,10", 10, 1.0, "tldp_l") == pytest.approx(48_100)
    assert an.composed_epsilon("4096,64,640,10", 10, 1.0, "laplace") == pytest.approx(40)
    with pytest.raises(ValueError, match="unknown mechanism"):
        an.true_epsilon("tldp", 1.0, 4)


def test_gdp_epsilon_refuses_a_mu_the_accountant_cannot_discretize():
    with pytest.raises(ValueError, match="gdp_epsilon_exact"):
        privacy.gdp_epsilon(1000.0)
    assert privacy.gdp_epsilon_exact(1000.0) > 1000.0**2 / 2


def test_equivalence_needs_a_tight_interval_inside_the_margin():
    from ldp_companion.tldp import analysis as an

    rng = np.random.default_rng(0)
    same = rng.normal(0.0, 0.01, (4, 10))
    assert an.equivalent(same, 0.1).all()
    shifted = same + 0.2  # a mutant: the curves are 0.2 apart
    assert not an.equivalent(shifted, 0.1).any()
    noisy = rng.normal(0.0, 0.5, (4, 3))  # too few, too noisy runs: not shown equal
    assert not an.equivalent(noisy, 0.1).any()


def test_eps_to_reach_finds_the_first_grid_point_over_the_share():
    import pandas as pd

    from ldp_companion.tldp import analysis as an

    runs = pd.DataFrame({"task": "t", "mechanism": "tldp_l", "epsilon": [1.0, 10.0, 100.0],
                         "run": 0, "f1": [0.1, 0.85, 0.95]})
    clean = pd.Series({"t": 1.0})
    assert an.eps_to_reach(runs, clean, "tldp_l") == {"t": 100.0}
    assert an.eps_to_reach(runs, clean, "tldp_l", share=0.8) == {"t": 10.0}
    assert an.eps_to_reach(runs, clean, "tldp_l", share=0.99) == {"t": np.inf}
