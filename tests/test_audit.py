"""Tests of ldp_companion.auditing.audit: exact and empirical epsilon audits, mutation checks.

Every random draw is seeded; seeds and sample sizes are stated where they matter.
"""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy import stats

from ldp_companion.auditing.audit import (
    EmpiricalAudit,
    ExactAudit,
    Region,
    additive_laplace_sampler,
    allowed_exceedances,
    best_test_accuracy,
    clopper_pearson,
    empirical_audit,
    exact_audit,
    law_log_ratio,
    ldp_accuracy_bound,
    loop_sampler,
    mechanism_sampler,
    plot_audit,
    projection_statistic,
)
from ldp_companion.mechanisms import OutputLaw, ScalarMechanism, get_mechanism, mechanism_names
from ldp_companion.mechanisms.duchi import Duchi
from ldp_companion.mechanisms.laplace import Laplace
from ldp_companion.mechanisms.mutants import MUTANTS, DuchiSignError

EPSILONS = [0.5, 1.0, 2.0]
N_BIG = 10**6          # samples per input for the scalar empirical audits
SEED = 20240611


# --------------------------------------------------------------------------------------
# Mutants: deliberately broken mechanisms, and two hand-built correct ones
# --------------------------------------------------------------------------------------



class _LawOnly(ScalarMechanism):
    """A mechanism known only through its output law (enough for the exact audit)."""

    def _privatize(self, x, rng):
        raise NotImplementedError

    def _variance(self, x):
        raise NotImplementedError

    def worst_case_variance(self):
        raise NotImplementedError


class PiecewiseLaw(_LawOnly):
    """Wang et al.'s Piecewise Mechanism: density p on [l(x), r(x)], p / e^eps elsewhere
    on [-C, C]. Piecewise constant, with breakpoints that move with x."""

    def _output_law(self, x):
        t = np.exp(self.epsilon / 2)
        C = (t + 1) / (t - 1)
        p = t * (t - 1) / (2 * (t + 1))
        lo = max(-C, (C + 1) * x / 2 - (C - 1) / 2)
        hi = min(C, lo + C - 1)
        return OutputLaw.piecewise_constant([-C, lo, hi, C], [p / t**2, p, p / t**2])


class HybridLaw(_LawOnly):
    """Mixture: Duchi atoms with probability 1/3, the piecewise density otherwise."""

    def _output_law(self, x):
        pm = PiecewiseLaw(self.epsilon).output_law(x)
        d = Duchi(self.epsilon).output_law(x)
        dens = np.exp(pm.logpdf(0.5 * (pm.breakpoints[:-1] + pm.breakpoints[1:])))
        return OutputLaw.piecewise_constant(pm.breakpoints, dens * 2 / 3,
                                            atoms=d.atoms, masses=d.masses / 3)


def laplace_law(center, b):
    """Hand-built Laplace output law (not through the Laplace class)."""
    return OutputLaw(breakpoints=np.array([center]), support=(-np.inf, np.inf),
                     logpdf=lambda y: -np.log(2 * b) - np.abs(np.asarray(y) - center) / b)


# --------------------------------------------------------------------------------------
# Exact audit
# --------------------------------------------------------------------------------------

@pytest.mark.parametrize("eps", [0.1, 0.5, 1.0, 2.0, 4.0])
@pytest.mark.parametrize("name", mechanism_names())
def test_exact_audit_registered_mechanisms(name, eps):
    result = exact_audit(get_mechanism(name, eps))
    assert isinstance(result, ExactAudit)
    assert result.epsilon == pytest.approx(eps, rel=1e-9)
    assert result.claimed_epsilon == eps and not result.flagged
    m = get_mechanism(name, eps)               # the reported pair attains the value
    val, _ = law_log_ratio(m.output_law(result.x), m.output_law(result.x_prime))
    assert val == result.epsilon
    if name in ("laplace", "duchi"):           # worst pair unique for these two
        assert {result.x, result.x_prime} == {-1.0, 1.0}


@pytest.mark.parametrize("eps", [0.5, 1.0, 3.0])
@pytest.mark.parametrize("cls", [PiecewiseLaw, HybridLaw])
def test_exact_audit_piecewise_and_mixed_laws(cls, eps):
    """Piecewise-constant and atoms-plus-density laws whose breakpoints move with x."""
    result = exact_audit(cls(eps))
    assert result.epsilon == pytest.approx(eps, rel=1e-9)


def test_exact_audit_custom_grid_and_pair():
    m = Laplace(1.0)
    result = exact_audit(m, x_grid=[-0.5, 0.0, 0.25])
    assert result.epsilon == pytest.approx(0.75 / m.scale, rel=1e-12)
    assert (result.x, result.x_prime) in [(-0.5, 0.25), (0.25, -0.5)]


def test_law_log_ratio_discrete():
    p = OutputLaw.discrete([0.0, 1.0], [0.8, 0.2])
    q = OutputLaw.discrete([0.0, 1.0], [0.4, 0.6])
    assert law_log_ratio(p, q) == pytest.approx((np.log(2.0), 0.0))
    assert law_log_ratio(q, p) == pytest.approx((np.log(3.0), 1.0))


def test_law_log_ratio_piecewise_constant():
    p = OutputLaw.piecewise_constant([0, 1, 2, 3], [0.5, 0.25, 0.25])
    q = OutputLaw.piecewise_constant([0, 1.5, 3], [0.2, 1 / 1.5 - 0.2])
    val, y = law_log_ratio(p, q)
    assert val == pytest.approx(np.log(2.5), rel=1e-12) and 0 < y < 1
    val, y = law_log_ratio(q, p)
    assert val == pytest.approx(np.log((1 / 1.5 - 0.2) / 0.25), rel=1e-12) and 1.5 < y < 3


def test_law_log_ratio_atoms_and_density():
    p = OutputLaw.piecewise_constant([-1, 1], [0.25], atoms=[2.0], masses=[0.5])
    q = OutputLaw.piecewise_constant([-1, 1], [0.4], atoms=[2.0], masses=[0.2])
    assert law_log_ratio(p, q) == pytest.approx((np.log(2.5), 2.0))
    assert law_log_ratio(q, p)[0] == pytest.approx(np.log(1.6))


@settings(max_examples=60, deadline=None)
@given(x=st.floats(-1, 1), x2=st.floats(-1, 1), b=st.floats(0.05, 50))
def test_law_log_ratio_shifted_laplace(x, x2, b):
    val, _ = law_log_ratio(laplace_law(x, b), laplace_law(x2, b))
    assert val == pytest.approx(abs(x - x2) / b, rel=1e-9, abs=1e-12)


def test_law_log_ratio_infinite_cases():
    # an atom of p absent from q
    val, y = law_log_ratio(OutputLaw.discrete([0, 1], [0.5, 0.5]), OutputLaw.discrete([0], [1]))
    assert val == np.inf and y == 1.0
    # ... but an atom of q absent from p costs nothing
    assert law_log_ratio(OutputLaw.discrete([0], [1]),
                         OutputLaw.discrete([0, 1], [0.5, 0.5]))[0] == pytest.approx(np.log(2))
    # an atom against a density
    dens = OutputLaw.piecewise_constant([-1, 1], [0.5])
    assert law_log_ratio(OutputLaw.discrete([0.0], [1.0]), dens)[0] == np.inf
    # a density against atoms only
    assert law_log_ratio(dens, OutputLaw.discrete([0.0], [1.0]))[0] == np.inf
    # supports: p's reaches outside q's; q's strictly contains p's
    wide = OutputLaw.piecewise_constant([-2, 2], [0.25])
    assert law_log_ratio(wide, dens) == (np.inf, pytest.approx(-1.5))
    assert law_log_ratio(dens, wide)[0] == pytest.approx(np.log(2.0))
    # Laplace laws of different scales: the log ratio grows without bound in a tail
    assert law_log_ratio(laplace_law(0.0, 2.0), laplace_law(0.0, 1.0))[0] == np.inf


@pytest.mark.parametrize("eps", EPSILONS)
@pytest.mark.parametrize("mutant, true_eps", MUTANTS)
def test_exact_audit_flags_mutants(mutant, true_eps, eps):
    result = exact_audit(mutant(eps))
    assert result.flagged
    assert result.epsilon == pytest.approx(true_eps(eps), rel=1e-9)


def test_exact_audit_validation():
    with pytest.raises(TypeError):
        exact_audit(lambda x, rng: x)
    with pytest.raises(ValueError, match="two distinct"):
        exact_audit(Laplace(1.0), x_grid=[0.5, 0.5])
    with pytest.raises(ValueError, match=r"\[-1, 1\]"):
        exact_audit(Laplace(1.0), x_grid=[0.0, 2.0])
    with pytest.raises(TypeError):
        law_log_ratio(Laplace(1.0), Laplace(1.0))


# --------------------------------------------------------------------------------------
# Empirical audit: correct mechanisms and mutants, scalar, n = 10^6 per input
# --------------------------------------------------------------------------------------

@pytest.mark.parametrize("eps", EPSILONS)
@pytest.mark.parametrize("cls", [Laplace, Duchi])
def test_empirical_audit_correct_mechanisms(cls, eps):
    """x = 1, x' = -1 (the worst pair); seed SEED, n = 10^6 per input."""
    result = empirical_audit(cls(eps), 1.0, -1.0, N_BIG, np.random.default_rng(SEED))
    assert result.epsilon_lower < eps and not result.flagged
    assert result.epsilon_lower > 0.97 * eps        # and the bound is nearly tight
    assert result.n == N_BIG and result.n_holdout == N_BIG // 2


@pytest.mark.parametrize("eps", EPSILONS)
@pytest.mark.parametrize("mutant, true_eps", MUTANTS)
def test_empirical_audit_flags_mutants(mutant, true_eps, eps):
    """Seed SEED, n = 10^6 per input, x = 1, x' = -1; the lower bound exceeds the claim
    and stays below the mutant's true epsilon."""
    result = empirical_audit(mutant(eps), 1.0, -1.0, N_BIG, np.random.default_rng(SEED))
    assert result.flagged and result.epsilon_lower > eps
    assert result.epsilon_lower < true_eps(eps)


def test_empirical_audit_deterministic_and_result_fields():
    run = lambda: empirical_audit(Duchi(1.0), 1.0, -1.0, 2000, np.random.default_rng(7))  # noqa: E731
    a, b = run(), run()
    assert a == b and isinstance(a, EmpiricalAudit) and isinstance(a.region, Region)
    assert a.claimed_epsilon == 1.0 and a.confidence == 0.95
    assert a.stat_x.shape == a.stat_x_prime.shape == (1000,)
    num, den = (a.count_x_prime, a.count_x) if a.swapped else (a.count_x, a.count_x_prime)
    assert a.epsilon_hat == pytest.approx(np.log(num / den))
    assert a.count_x == a.region.contains(a.stat_x).sum()


def test_loop_sampler_matches_batched_mechanism():
    """A one-draw function wrapped by loop_sampler draws exactly what the batched mechanism
    draws (Duchi takes one uniform per output either way), so both audits agree."""
    m = Duchi(1.0)
    one = lambda x, rng: m.privatize(x, rng)  # noqa: E731
    loop = loop_sampler(one)(1.0, 4000, np.random.default_rng(3))
    batched = mechanism_sampler(m)(1.0, 4000, np.random.default_rng(3))
    np.testing.assert_array_equal(loop, batched)
    a = empirical_audit(loop_sampler(one), 1.0, -1.0, 4000, np.random.default_rng(3),
                        claimed_epsilon=1.0)
    b = empirical_audit(m, 1.0, -1.0, 4000, np.random.default_rng(3))
    assert a.epsilon_lower == b.epsilon_lower and 0.3 < a.epsilon_lower < 1.0
    assert mechanism_sampler(m)(np.float64(0.5), 5, np.random.default_rng(0)).shape == (5,)


# --------------------------------------------------------------------------------------
# Empirical audit of an image mechanism (28 x 28)
# --------------------------------------------------------------------------------------

PIXEL_EPS = 0.25                       # per pixel; whole-image budget 784 * 0.25 = 196
SHAPE = (28, 28)


def image_sampler(scale_factor=1.0):
    """Per-pixel Laplace noise on an image in [0, 1]^(28x28): scale 1 / PIXEL_EPS (pixel
    sensitivity 1), i.e. the image budget is split evenly over the 784 pixels. Two images
    differing by 1 on a set S of pixels have privacy loss exactly |S| * PIXEL_EPS.
    ``scale_factor=0.5`` is the halved-scale mutant (loss doubled)."""
    return additive_laplace_sampler(scale_factor / PIXEL_EPS)


def block_lr_statistic(mask, x, x2, b):
    """Log-likelihood ratio of the pixels in ``mask`` at the claimed scale ``b``."""
    def statistic(y):
        ys = y[:, mask]
        return (np.abs(ys - x[mask]) - np.abs(ys - x2[mask])).sum(axis=1) / -b
    return statistic


@pytest.mark.parametrize("case", ["one pixel, projection", "2x2 block, likelihood ratio"])
def test_empirical_audit_image_mechanism(case):
    """Images differing in a known set S of pixels (all 784 differing would put the
    pair's loss at 196, far beyond what any sample can certify). Seed SEED, n = 20000 per
    input. The correct mechanism's bound stays below |S| * PIXEL_EPS; the halved-scale
    mutant's exceeds it (the claim for this pair)."""
    x = np.zeros(SHAPE)
    x2 = x.copy()
    mask = np.zeros(SHAPE, bool)
    if case.startswith("one"):
        mask[14, 14] = True
        statistic = None                                   # <y, x - x'>: exact LR here
    else:
        mask[10:12, 10:12] = True
        statistic = block_lr_statistic(mask, x, np.where(mask, 1.0, x), 1 / PIXEL_EPS)
    x2[mask] = 1.0
    claimed = mask.sum() * PIXEL_EPS
    kw = dict(statistic=statistic, claimed_epsilon=claimed)
    good = empirical_audit(image_sampler(), x, x2, 20000, np.random.default_rng(SEED), **kw)
    bad = empirical_audit(image_sampler(0.5), x, x2, 20000, np.random.default_rng(SEED), **kw)
    assert good.epsilon_lower < claimed and not good.flagged
    assert bad.epsilon_lower > claimed and bad.flagged
    assert bad.epsilon_lower < 2 * claimed


# --------------------------------------------------------------------------------------
# Coverage of the lower bound
# --------------------------------------------------------------------------------------

@pytest.mark.parametrize("conf", [0.8, 0.95])
def test_coverage_of_lower_bound(conf):
    """Duchi at eps = 1, x = 1, x' = -1: the region {Y = +C} has ratio exactly e^eps, so
    the bound is tight. 500 audits, n = 1000 per input, seeds 0..499. The exceedance
    count must be at most the 99.9 % quantile of Binomial(500, 1 - conf), i.e. the
    nominal rate plus a binomial margin (false-failure chance < 0.1 % for a bound with
    exactly nominal coverage; Clopper--Pearson with Bonferroni is conservative: over
    2000 seeds we saw 4.7 % exceedances at conf 0.8 and 0.55 % at conf 0.95)."""
    eps, reps = 1.0, 500
    bounds = np.array([empirical_audit(Duchi(eps), 1.0, -1.0, 1000, np.random.default_rng(s),
                                       confidence=conf).epsilon_lower for s in range(reps)])
    limit = stats.binom.ppf(0.999, reps, 1 - conf)
    assert np.sum(bounds > eps) <= limit
    assert np.median(bounds) > 0.6 * eps                   # the bound is not vacuous


def test_clopper_pearson_bounds():
    lo, up = clopper_pearson(np.array([0, 5, 10]), 10, 0.025)
    assert lo[0] == 0 and up[2] == 1
    assert lo[1] == pytest.approx(stats.beta.ppf(0.025, 5, 6))
    assert up[1] == pytest.approx(stats.beta.ppf(0.975, 6, 5))


# --------------------------------------------------------------------------------------
# Distinguishing-attack view and plotting
# --------------------------------------------------------------------------------------

def test_ldp_accuracy_bound():
    assert ldp_accuracy_bound(0.0) == 0.5
    assert ldp_accuracy_bound(np.inf) == 1.0
    assert ldp_accuracy_bound(1.0) == pytest.approx(np.e / (1 + np.e))
    np.testing.assert_allclose(ldp_accuracy_bound([0.5, 2.0]),
                               np.exp([0.5, 2.0]) / (1 + np.exp([0.5, 2.0])))
    with pytest.raises(ValueError):
        ldp_accuracy_bound(-0.1)


def test_best_test_accuracy():
    """Duchi is randomized response: the best test attains e^eps / (1 + e^eps). Laplace
    stays below it; the sign-error mutant is perfectly distinguishable. Seed SEED,
    n = 10^5 per input (5 * 10^4 held out; 4 standard errors is about 0.009)."""
    rng = np.random.default_rng(SEED)
    acc = best_test_accuracy(empirical_audit(Duchi(1.0), 1.0, -1.0, 10**5, rng))
    assert acc == pytest.approx(ldp_accuracy_bound(1.0), abs=0.009)
    lap = empirical_audit(Laplace(1.0), 1.0, -1.0, 10**5, rng)
    assert lap.test_accuracy < ldp_accuracy_bound(1.0)
    assert best_test_accuracy(lap.stat_x, lap.stat_x_prime) == lap.test_accuracy
    assert empirical_audit(DuchiSignError(1.0), 1.0, -1.0, 1000, rng).test_accuracy == 1.0
    assert best_test_accuracy([0.0, 0.0], [0.0, 0.0]) == 0.5


def test_plot_audit():
    fig, ax = plt.subplots()
    out = plot_audit([0.5, 1.0, 2.0], [0.49, 2.0, np.inf], ax=ax, labels=["a", "b", "c"])
    assert out is ax
    assert ax.get_xlabel() and ax.get_ylabel()
    # the diagonal; then within claim (0.49), above claim (2.0 > 1.0), infinite
    assert len(ax.lines) == 1 and len(ax.collections) == 3
    assert [len(c.get_offsets()) for c in ax.collections] == [1, 1, 1]
    assert ax.collections[1].get_offsets()[0].tolist() == [1.0, 2.0]
    assert len(ax.texts) == 3
    plt.close(fig)
    ax2 = plot_audit(1.0, 0.9)
    assert ax2.figure is not None
    plt.close(ax2.figure)
    with pytest.raises(ValueError):
        plot_audit([1.0, 2.0], [1.0])


# --------------------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------------------

def _tiny(x, n, rng):
    return np.asarray(x, float) + rng.laplace(size=(n,) + np.shape(x))


RNG = np.random.default_rng(0)


@settings(max_examples=40, deadline=None)
@given(conf=st.one_of(st.floats(max_value=0.0), st.floats(min_value=1.0), st.just(np.nan)))
def test_bad_confidence(conf):
    with pytest.raises(ValueError, match="confidence"):
        empirical_audit(_tiny, 1.0, -1.0, 10, RNG, confidence=conf)


def test_confidence_wrong_type():
    with pytest.raises(TypeError, match="confidence"):
        empirical_audit(_tiny, 1.0, -1.0, 10, RNG, confidence="0.9")
    with pytest.raises(TypeError, match="confidence"):
        empirical_audit(_tiny, 1.0, -1.0, 10, RNG, confidence=True)


@settings(max_examples=20, deadline=None)
@given(n=st.integers(max_value=1))
def test_n_too_small(n):
    with pytest.raises(ValueError, match="n must be >= 2"):
        empirical_audit(_tiny, 1.0, -1.0, n, RNG)


def test_n_wrong_type():
    with pytest.raises(TypeError, match="n must be an integer"):
        empirical_audit(_tiny, 1.0, -1.0, 10.0, RNG)


@pytest.mark.parametrize("rng", [None, 0, np.random.RandomState(0), np.random])
def test_rng_must_be_generator(rng):
    with pytest.raises(TypeError, match="Generator"):
        empirical_audit(_tiny, 1.0, -1.0, 10, rng)


@settings(max_examples=30, deadline=None)
@given(shapes=st.tuples(hnp.array_shapes(min_dims=0, max_dims=3, max_side=4),
                        hnp.array_shapes(min_dims=0, max_dims=3, max_side=4))
       .filter(lambda s: s[0] != s[1]))
def test_mismatched_input_shapes(shapes):
    with pytest.raises(ValueError, match="same shape"):
        empirical_audit(_tiny, np.zeros(shapes[0]), np.ones(shapes[1]), 10, RNG)


def test_bad_inputs_sampler_and_statistic():
    with pytest.raises(ValueError, match="finite"):
        empirical_audit(_tiny, np.nan, 1.0, 10, RNG)
    with pytest.raises(TypeError, match="real numbers"):
        empirical_audit(_tiny, "a", "b", 10, RNG)
    with pytest.raises(TypeError, match="sampler"):
        empirical_audit("laplace", 1.0, -1.0, 10, RNG)
    with pytest.raises(ValueError, match="rows"):
        empirical_audit(lambda x, n, rng: np.zeros(n + 1), 1.0, -1.0, 10, RNG)
    with pytest.raises(ValueError, match="shape"):
        empirical_audit(_tiny, 1.0, -1.0, 10, RNG, statistic=lambda y: y[:, None])
    with pytest.raises(ValueError, match="differ"):
        empirical_audit(_tiny, 0.5, 0.5, 10, RNG)
    with pytest.raises(ValueError, match="pass a statistic"):
        empirical_audit(lambda x, n, rng: np.zeros((n, 3)), 1.0, -1.0, 10, RNG)
    with pytest.raises(ValueError, match=r"\[-1, 1\]"):     # a ScalarMechanism validates x
        empirical_audit(Laplace(1.0), 2.0, -1.0, 10, RNG)
    with pytest.raises(TypeError):
        mechanism_sampler(_tiny)
    assert projection_statistic([1.0, 0.0], [0.0, 0.0])(np.eye(2)).tolist() == [1.0, 0.0]


def test_allowed_exceedances():
    # Binomial(21, 0.05): P(K <= 3) = 0.9811, P(K <= 4) = 0.99676, P(K <= 5) = 0.99956
    assert allowed_exceedances(21) == 5
    assert allowed_exceedances(21, level=0.99) == 4
    assert allowed_exceedances(1, confidence=0.999, level=0.5) == 0
    with pytest.raises(ValueError):
        allowed_exceedances(0)
    with pytest.raises(ValueError):
        allowed_exceedances(5, confidence=1.5)


def test_chapter_sampler_check_fails_on_a_mutant():
    """The chapter-3 check (audit_samplers, judged per mechanism) turns to 'fails' for a
    sampler that breaks its claim, and stays 'holds' for correct ones."""
    from ldp_companion.auditing.audit import audit_samplers, largest_excess
    from ldp_companion.mechanisms.mutants import LaplaceHalfScale
    from ldp_companion.verdicts.ledger import Ledger

    def verdict(mechs):
        emp = audit_samplers(mechs, [0.5, 1.0], 200_000, np.random.default_rng(11))
        return Ledger("t").compare("ldp-empirical", "s", largest_excess(emp), "<=", 0.0,
                                   ref="Definition 1").verdict

    correct = {"laplace": lambda e: get_mechanism("laplace", e),
               "duchi": lambda e: get_mechanism("duchi", e)}
    assert verdict(correct) == "holds"
    assert verdict({"mutant": LaplaceHalfScale}) == "fails"
    assert verdict({**correct, "mutant": LaplaceHalfScale}) == "partly"
