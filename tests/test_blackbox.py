"""The black-box auditor (DP-Sniper): it catches broken mechanisms and never flags a correct one.

Seeded runs; ``n`` outputs per input are stated in each test. The exact ε (from the output
law, :func:`ldp_companion.auditing.audit.exact_audit`) is the ceiling a correct bound stays under.
"""
from __future__ import annotations

import numpy as np
import pytest

from ldp_companion.auditing import audit, blackbox
from ldp_companion.mechanisms import get_mechanism, mechanism_names
from ldp_companion.mechanisms.mutants import MUTANTS

PAIRS = [(1.0, -1.0), (-1.0, 1.0), (0.0, 1.0), (1.0, 0.0)]
N = 200_000


@pytest.mark.parametrize("name", [m for m in mechanism_names() if m != "harmony"])
@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_a_correct_mechanism_is_not_flagged_and_the_bound_is_tight(name, eps):
    mechanism = get_mechanism(name, eps)
    exact = audit.exact_audit(mechanism).epsilon
    found = blackbox.dp_sniper(mechanism, PAIRS, N, np.random.default_rng(1))
    assert not found.flagged
    assert found.epsilon_lower <= exact + 1e-9
    assert found.epsilon_lower >= 0.8 * exact  # power: it finds most of the true ε


@pytest.mark.parametrize("mutant,true_eps", MUTANTS, ids=lambda m: getattr(m, "__name__", ""))
def test_every_mutant_of_appendix_a_is_caught(mutant, true_eps):
    found = blackbox.dp_sniper(mutant(1.0), PAIRS, N, np.random.default_rng(2))
    assert found.flagged and found.epsilon_lower > 1.0
    assert found.epsilon_lower <= true_eps(1.0) + 1e-9  # and the bound is a lower bound


def _tldp_sampler(noise):
    from ldp_companion.tldp.algorithm import tldp

    def sample(x, n, rng):
        return tldp(np.broadcast_to(x, (n,) + x.shape).copy(), 1.0, 1.0, rng=rng,
                    batched=True, noise=noise)

    return sample


@pytest.mark.parametrize("noise", ["laplace", "gaussian"])
@pytest.mark.parametrize("classifier", ["histogram", "logistic"])
def test_tldp_theorem_1_violation_is_found_from_samples_alone(noise, classifier):
    """TLDP claims ε = 1 on a 2×2 tensor with entries in [0, 1]; it spends far more."""
    x, x_prime = np.zeros((2, 2)), np.ones((2, 2))
    found = blackbox.dp_sniper(_tldp_sampler(noise), [(x, x_prime)], 100_000,
                               np.random.default_rng(3), claimed_epsilon=1.0,
                               classifier=classifier)
    assert found.flagged and found.epsilon_lower > 2.0


def test_a_tensor_mechanism_with_known_epsilon_stays_under_it():
    """Laplace noise of scale 4 on every entry of a 2×2 tensor, inputs 0 and 1 everywhere:
    the privacy loss is exactly 4 · 1 / 4 = 1."""
    sampler = audit.additive_laplace_sampler(4.0)
    found = blackbox.dp_sniper(sampler, [(np.zeros((2, 2)), np.ones((2, 2)))], N,
                               np.random.default_rng(4), claimed_epsilon=1.0)
    assert not found.flagged and 0.6 < found.epsilon_lower <= 1.0


def test_the_pair_is_chosen_on_screening_samples_and_reported():
    mechanism = get_mechanism("duchi", 1.0)
    found = blackbox.dp_sniper(mechanism, [(0.0, 0.0), (1.0, -1.0)], 50_000,
                               np.random.default_rng(5))
    assert (float(found.x), float(found.x_prime)) == (1.0, -1.0)
    assert [(i, kind) for i, kind, _ in found.screened] == [(0, "histogram"), (1, "histogram")]


def test_several_classifiers_are_screened_and_the_better_one_audits():
    """On Gaussian noise over a 4×4 tensor, logistic regression (a linear score, the exact
    likelihood ratio here) beats per-coordinate histograms in the screening."""
    sampler = lambda x, n, rng: x + rng.standard_normal((n,) + x.shape)  # noqa: E731
    found = blackbox.dp_sniper(sampler, [(np.zeros((4, 4)), np.full((4, 4), 0.5))], 40_000,
                               np.random.default_rng(8), classifier=("histogram", "logistic"))
    kinds = {kind: est for _, kind, est in found.screened}
    assert set(kinds) == {"histogram", "logistic"}
    assert kinds["logistic"] > kinds["histogram"]


def test_histogram_ratio_gives_atoms_their_own_bins():
    rng = np.random.default_rng(6)
    yx = np.where(rng.random(10_000) < 0.5, 0.0, rng.normal(size=10_000))
    yxp = rng.normal(size=10_000)
    ratio = blackbox.HistogramRatio(yx, yxp)
    assert ratio.atoms[0].tolist() == [0.0]
    assert ratio(np.array([0.0]))[0] > 5  # the atom: only x produces it


@pytest.mark.parametrize("bad,match", [
    (dict(pairs=[]), "at least one"),
    (dict(pairs=[(np.zeros(2), np.zeros(3))]), "one shape"),
    (dict(n=4), "n must be"),
    (dict(classifier="forest"), "classifier must be"),
])
def test_bad_arguments_are_refused(bad, match):
    args = dict(sampler=get_mechanism("pm", 1.0), pairs=PAIRS[:2], n=1000,
                rng=np.random.default_rng(0))
    args.update(bad)
    with pytest.raises(ValueError, match=match):
        blackbox.dp_sniper(**args)


def test_a_gaussian_mechanism_is_judged_at_its_delta():
    """Gaussian noise calibrated (analytic, Balle & Wang 2018) to (1, 10⁻³)-DP for a
    sensitivity-1 scalar: the pure-ε bound exceeds 1 (its pure ε is infinite), the bound at
    δ = 10⁻³ stays under 1."""
    from ldp_companion.tensor import gaussian_sigma

    sigma = gaussian_sigma(1.0, 1.0, 1e-3, method="analytic")

    def sample(x, n, rng):
        return np.asarray(x, float) + sigma * rng.standard_normal((n,) + np.shape(x))

    pair = [(np.zeros(1), np.ones(1))]
    pure = blackbox.dp_sniper(sample, pair, 2_000_000, np.random.default_rng(7),
                              claimed_epsilon=1.0)
    at_delta = blackbox.dp_sniper(sample, pair, 2_000_000, np.random.default_rng(7),
                                  claimed_epsilon=1.0, delta=1e-3)
    assert pure.flagged
    assert not at_delta.flagged and at_delta.epsilon_lower > 0.5
    assert at_delta.audit.delta == 1e-3
