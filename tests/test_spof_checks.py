"""Chapter 4 (SPOF): the checks that tie the chapter's verdicts to the code its training runs.

Each kind of check the chapter records is run here twice: on the package as written (it passes)
and with one of the chapter's mutants (:mod:`ldp_companion.spof.mutants`) in place (it fails), so
a wrong constant in a mechanism changes a verdict. Every mutant is also shown to change the
output of the function it targets. Monte Carlo draws are seeded, with their counts stated.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import sympy

from ldp_companion.auditing.montecarlo import estimated_scale
from ldp_companion.edition import book
from ldp_companion.spof import experiments as ex
from ldp_companion.spof import items, privacy, reconstructions, sensitivity, taylor, train
from ldp_companion.spof.mutants import MUTANTS
from ldp_companion.spof.params import PARAMS
from ldp_companion.spof.train import Setup
from ldp_companion.verdicts.coverage import normalise_ref
from ldp_companion.verdicts.ledger import Ledger
from ldp_companion.verdicts.mutation import Mutant, applied, scaled
from ldp_companion.verdicts.paired import within_margin

N, L, C = 14, 7, 4.0
MUTANT = {m.name: m for m in MUTANTS}
DRAWS = 2000                  # releases per noise-scale check: 28 000 Laplace draws per entry


def _paper_delta_hat(cj, b=1.0):
    """Prop. 3 (with Thm. 1's b_j), typed from the paper, apart from the package."""
    return b * 3 * N / 2 + N * cj * (cj / 2 + 2)


# --- the mutants -------------------------------------------------------------------------

def test_there_are_at_least_four_mutants_with_distinct_names():
    assert len(MUTANTS) >= 4 and len(MUTANT) == len(MUTANTS)


def _target_output(name):
    """The output of the function a mutant targets, on fixed arguments."""
    import torch

    out = {
        "spof-scale-half": lambda: sensitivity.laplace_scale(134.75, 1.0),
        "delta-bar-double": lambda: sensitivity.delta_bar(N),
        "stabilization-dropped": lambda: sensitivity.delta_hat(N, 2.5),
        "delta-sgd-double": lambda: np.array([sensitivity.delta_sgd(N),
                                              sensitivity.delta_sgd(N, clipped=True)]),
        "alpha3-sign": lambda: np.concatenate(taylor.coefficients(np.array([0.2, 0.9]), "exact")),
        "laplace-draws-half": lambda: train._laplace((5,), torch.Generator().manual_seed(0),
                                                     "cpu").numpy(),
        "clip-threshold-double": lambda: train.clip_gradients(np.full((1, N), 3.0), C),
    }[name]
    return np.asarray(out(), dtype=float)


@pytest.mark.parametrize("name", list(MUTANT))
def test_each_mutant_changes_its_target_and_is_undone(name):
    before = _target_output(name)
    with applied(MUTANT[name]):
        during = _target_output(name)
    assert not np.allclose(before, during)
    assert np.array_equal(before, _target_output(name))


# --- eq12-exact: the training's exact coefficients against sympy ----------------------------

def _max_sympy_gap():
    x, z = sympy.symbols("x z")
    series = sympy.series(sympy.log(1 + sympy.exp(z)) - x * z, z, 0, 4).removeO()
    grid = np.linspace(0, 1, 101)
    _, a2, a3 = taylor.coefficients(grid, "exact")
    ref2 = sympy.lambdify(x, series.coeff(z, 1))(grid)
    ref3 = float(series.coeff(z, 2))
    return max(np.abs(a2 - ref2).max(), np.abs(a3 - ref3).max())


def test_exact_coefficients_check_passes_and_fails_on_a_sign_mutant():
    assert _max_sympy_gap() <= 1e-12
    with applied(MUTANT["alpha3-sign"]):
        assert _max_sympy_gap() > 0.2


# --- alg1-eps-predicted: the auditor's ε against the paper's formulas -----------------------

def _eps_gaps(eps=1.0, c=2.5):
    """Relative gap between the audited ε and the paper's prediction, for each calibration."""
    sens = sensitivity.empirical_sensitivity(lambda x: taylor.coefficients(x, "paper")[1:], N)
    sens_sum = sensitivity.empirical_sensitivity(
        lambda x: (sum(taylor.coefficients(x, "paper")[1:]),), N)
    s2 = math.sqrt(2)
    predicted = np.array([sens_sum / (3 * N / 2), sens * s2 / (3 * N / 2),
                          sens * s2 / _paper_delta_hat(c), sens * s2 / _paper_delta_hat(L * c)])
    audited = np.array([privacy.audit_exact(r) for r in (
        privacy.prop2_release(eps), privacy.alg1_release(eps),
        privacy.alg1_release(eps, c), privacy.alg1_release(eps, c, "worst", l=L))]) / eps
    return np.abs(audited / predicted - 1)


def test_audited_epsilon_matches_the_paper_prediction_and_a_mutant_breaks_it():
    assert np.all(_eps_gaps() < 1e-9)
    for name, broken in [("spof-scale-half", [1, 2, 3]), ("delta-bar-double", [0, 1, 2, 3]),
                         ("stabilization-dropped", [2, 3])]:
        with applied(MUTANT[name]):
            gaps = _eps_gaps()
        assert np.all(gaps[broken] > 1e-3), (name, gaps)         # the ledger: 1e-9


# --- alg1-noise-scale: the noise the training step adds -------------------------------------

def _coefficient_scale_z(method, **kw):
    """z-scores of the measured mean |noise| against the paper's Δ̂/(√2 ε) (α₂ and α₃)."""
    setup = Setup(c=2.5)
    h_sum = 3.5
    nu = train.coefficient_noise(method, 1.0, DRAWS, np.random.default_rng(7), setup=setup,
                                 h_sum=h_sum, **kw)
    b = kw.get("b", 1.0)
    cj = 2.5 * h_sum if method == "spof" else 0.0
    want = _paper_delta_hat(cj, b) / math.sqrt(2)
    return np.array([(lambda e, s: (e - want) / s)(*estimated_scale(nu[:, k]))
                     for k in (0, 1)])


def test_training_noise_has_the_paper_scale_and_mutants_do_not():
    for method in ("spof", "fm"):
        assert np.all(np.abs(_coefficient_scale_z(method)) < 5), method
    assert np.all(np.abs(_coefficient_scale_z("spof", b=2.0)) < 5)   # Thm. 1's b_j Δ̄
    for name in ("spof-scale-half", "laplace-draws-half", "stabilization-dropped"):
        with applied(MUTANT[name]):
            assert np.all(np.abs(_coefficient_scale_z("spof")) > 20), name
    with applied(MUTANT["delta-bar-double"]):
        assert np.all(np.abs(_coefficient_scale_z("fm")) > 20)


def test_exact_spof_noise_is_on_alpha2_only_with_scale_n_over_eps():
    nu = train.coefficient_noise("spof_exact", 2.0, DRAWS, np.random.default_rng(8))
    est, se = estimated_scale(nu[:, 0])
    assert abs(est - N / 2.0) < 5 * se and np.all(nu[:, 1] == 0)


def test_shared_noise_puts_one_draw_on_both_coefficients():
    nu = train.coefficient_noise("fm", 1.0, 50, np.random.default_rng(9),
                                 setup=Setup(shared_noise=True))
    assert np.allclose(nu[:, 0], nu[:, 1], rtol=0, atol=1e-9)   # round-off of α ± draw
    assert np.abs(nu[:, 0] - nu[:, 1]).max() < 1e-6 * np.abs(nu).mean()


# --- alg2-noise-scale, appB2-delta-sgd, alg2-clip-eq15 ---------------------------------------

def _gradient_scale_z(b):
    nu, clipped = train.gradient_noise(1.0, DRAWS, np.random.default_rng(11), setup=Setup(),
                                       b=b)
    want = 2 * N * C if clipped.all() else 2 * N * b      # Δ_SGD/ε, ε = 1 (current logit)
    est, se = estimated_scale(nu)
    return (est - want) / se, clipped


def test_dpsgd_noise_has_the_paper_scale_below_and_above_c():
    z, clipped = _gradient_scale_z(1.0)
    assert abs(z) < 5 and not clipped.any()               # ‖g‖ = √n/2 < C
    z, clipped = _gradient_scale_z(4 * C / math.sqrt(N))
    assert abs(z) < 5 and clipped.all()                   # ‖g‖ = 2C
    # App. B.II's n at a = 0, half what a logit that moves with the record needs
    paper_scale = Mutant("delta-sgd-at-a", "ΔSGD = n", "ldp_companion.spof.sensitivity:"
                         "_delta_sgd_current", scaled(0.5))
    with applied(paper_scale):
        assert abs(_gradient_scale_z(1.0)[0]) > 20
    with applied(MUTANT["laplace-draws-half"]):
        assert abs(_gradient_scale_z(1.0)[0]) > 20


def test_delta_sgd_is_the_brute_force_sensitivity_and_a_mutant_is_not():
    brute = sensitivity.empirical_sensitivity(lambda x: (0.5 - x,), N)
    assert sensitivity.delta_sgd(N) == pytest.approx(brute, rel=1e-12) and brute == N
    with applied(MUTANT["delta-sgd-double"]):
        assert sensitivity.delta_sgd(N) != pytest.approx(brute, rel=0.1)


def test_clipping_is_eq15_and_a_mutant_threshold_is_not():
    """The projection's properties hold to round-off for the training's clipping; clipping at
    2C, no clipping, or a clip that shrinks every gradient each break one of them."""
    from ldp_companion.spof.sensitivity_claims import clipping_properties

    rng = np.random.default_rng(12)
    g = rng.normal(size=(500, N))
    g *= rng.uniform(0, 3 * C, (500, 1)) / np.linalg.norm(g, axis=1, keepdims=True)
    assert max(clipping_properties(g, train.clip_gradients(g, C), C).values()) <= 1e-12
    with applied(MUTANT["clip-threshold-double"]):
        assert clipping_properties(g, train.clip_gradients(g, C), C)["norm above C"] > 0.5
    assert clipping_properties(g, g, C)["norm above C"] > 1.0                # no clipping
    assert clipping_properties(g, g / 2, C)["change inside the ball"] > 0.1   # shrinks all
    flipped = train.clip_gradients(g, C) * np.where(rng.random((500, 1)) < 0.1, -1, 1)
    assert clipping_properties(g, flipped, C)["1 − cosine"] > 1.0            # a sign
    far = train.clip_gradients(np.array([[10 * C] * N, [-10 * C] * N]), C)
    assert np.abs(far[0] - far[1]).sum() == pytest.approx(2 * C * math.sqrt(N), rel=1e-12)


def test_noise_functions_refuse_bad_input():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="method"):
        train.coefficient_noise("dpsgd_logit", 1.0, 10, rng)
    with pytest.raises(ValueError, match="h_sum"):
        train.coefficient_noise("spof", 1.0, 10, rng, h_sum=8.0)
    with pytest.raises(ValueError, match="b"):
        train.gradient_noise(1.0, 10, rng, b=0.0)
    with pytest.raises(ValueError, match="epsilon"):
        train.gradient_noise(0.0, 10, rng)
    with pytest.raises(ValueError, match="clip"):
        train.clip_gradients(np.ones((2, 3)), 0.0)
    with pytest.raises(ValueError, match="finite"):
        train.clip_gradients(np.array([[np.nan]]), 1.0)
    with pytest.raises(ValueError, match="two"):
        estimated_scale([1.0])
    with pytest.raises(ValueError, match="b_j"):
        sensitivity.delta_sgd(N, b_j=-1.0)


# --- alg2-clipping: the share of records the training clips --------------------------------

def test_training_counts_the_records_eq15_clips():
    rng = np.random.default_rng(3)
    xt, xs = rng.uniform(0, 1, (40, 5)), rng.uniform(0, 1, (10, 5))
    kw = dict(setup=Setup(code=3), device="cpu")
    quiet = train.train("dpsgd_logit", xt, xs, [1.0, 2.0], rng=np.random.default_rng(0), **kw)
    assert np.array_equal(quiet["clipped_fraction"], [0.0, 0.0])     # ‖σ(z) − x‖ < √5 < 4
    tight = train.train("dpsgd_logit", xt, xs, [1.0], rng=np.random.default_rng(0),
                        setup=Setup(code=3, clip=1e-3), device="cpu")
    assert tight["clipped_fraction"][0] == 1.0
    xt, xs = rng.uniform(0, 1, (40, N)), rng.uniform(0, 1, (10, N))   # Sec. VIII: n, l, σ
    noisy = train.train("dpsgd_logit", xt, xs, [1.0], condition="noisy",
                        rng=np.random.default_rng(0), setup=Setup(), device="cpu")
    assert 0.5 < noisy["clipped_fraction"][0] <= 1                   # b_j ‖σ(z) − x‖ > C
    other = train.train("spof", xt, xs, [1.0], rng=np.random.default_rng(0), **kw)
    assert np.isnan(other["clipped_fraction"]).all()


# --- the three-way equivalence tests (time-57, headline-gain) --------------------------------

@pytest.mark.parametrize("runs, expected", [
    (np.array([[57.0, 58.0, 56.5, 57.5]]), "holds"),          # inside ±10 of 57.2, tight
    (np.array([[5.0, 4.0, 6.0, 5.5]]), "fails"),              # far outside, tight
    (np.array([[50.0, 75.0]]), "inconclusive"),               # too few, too spread
    (np.array([[57.0]]), "inconclusive"),                     # one repeat: no spread
])
def test_equivalence_to_the_papers_number_is_three_way(runs, expected):
    claim = Ledger("x", refs={"t": "Sec. VIII"}).difference(
        "t", "57.2% less", within_margin(runs - 57.2, ex.TIME_MARGIN))
    assert claim.verdict == expected


def test_timing_reverses_the_order_every_other_repeat():
    rng = np.random.default_rng(5)
    xt, xs = rng.uniform(0, 1, (20, 4)), rng.uniform(0, 1, (6, 4))
    t = ex.timing(["spof", "dpsgd_logit", "nonprivate"], 1.0, 2, 0, x_train=xt, x_test=xs,
                  setup=Setup(code=2), device="cpu")
    assert list(t["method"]) == ["spof", "dpsgd_logit", "nonprivate",
                                 "nonprivate", "dpsgd_logit", "spof"]
    assert list(t["repeat"]) == [0, 0, 0, 1, 1, 1]


# --- items, coverage and reconstructions -----------------------------------------------------

def _cfg(profile):
    return PARAMS.resolve({"profile": profile, "seed": 0, **dict.fromkeys(PARAMS.names)})


def test_figures_resolve_to_reduced_offline_and_reproduced_at_the_paper_setup():
    default = items.ITEMS.resolve(_cfg("default"))
    paper = items.ITEMS.resolve(_cfg("paper"))
    for ref in ("Fig. 2", "Fig. 3"):
        assert default.item(ref).status == "reduced" and "expand 20" in default.item(ref).differs
        assert paper.item(ref).status == "reproduced"
    for ref in ("Fig. 5", "Fig. 6"):
        assert paper.item(ref).status == default.item(ref).status == "reproduced"
    # Fig. 4 uses W's expected norm, not the authors' one draw: reduced at every setup
    assert paper.item("Fig. 4").status == default.item("Fig. 4").status == "reduced"


def test_remarks_are_items_with_claims_whose_first_ref_they_are():
    for ref, claim in [("Remark 1", "remark1-noise-helps"), ("Remark 2", "fig5-remark2")]:
        assert claim in items.ITEMS.item(ref).claims
        assert normalise_ref(items.CLAIM_REFS[claim][0]) == ref
    assert "TODO" not in "".join(it.differs for it in items.ITEMS.items)


def test_reconstructed_values_are_registered_and_name_claims():
    assert book.RECONSTRUCTIONS["04-spof"] is reconstructions
    assert set(reconstructions.RECONSTRUCTED) <= set(items.CLAIM_REFS)
    assert "fig3-published-zeros" in reconstructions.RECONSTRUCTED
    assert "0.9076" in reconstructions.RECONSTRUCTED["fig3-published-zeros"]


def test_noise_effect_pairs_noisy_with_noiseless_runs():
    rows = [{"method": "spof", "condition": c, "epsilon": e, "run": r,
             "accuracy": 0.5 + 0.1 * (c == "noisy") + 0.01 * r + e}
            for c in ("noisy", "noiseless") for e in (1.0, 2.0) for r in range(3)]
    runs = pd.DataFrame(rows)
    np.testing.assert_allclose(ex.noise_effect(runs, "spof"), np.full((2, 3), 0.1))
    np.testing.assert_allclose(ex.noise_effect(runs, "spof", sign=-1), np.full((2, 3), -0.1))
    with pytest.raises(ValueError, match="noiseless"):
        ex.noise_effect(runs[runs.condition == "noisy"], "spof")


def test_delta_sgd_current_covers_a_logit_that_moves_with_the_record():
    """σ(z) − x over logits z in [−30, 30] and records x in {0, 1}: the per-feature range
    approaches 2, so n records' features differ by up to 2n in L1, the training's ΔSGD; App.
    B.II's n (a = 0) is exceeded once the two records' logits differ."""
    z = np.linspace(-30, 30, 601)[:, None]
    g = 1 / (1 + np.exp(-z)) - np.array([0.0, 1.0])
    brute = N * (g.max() - g.min())
    assert brute <= sensitivity.delta_sgd_current(N) and brute > 0.999 * 2 * N
    assert brute > 1.9 * sensitivity.delta_sgd(N)
    assert sensitivity.delta_sgd_current(N, clipped=True, clip=C) == 2 * N * C
    with pytest.raises(ValueError):
        sensitivity.delta_sgd_current(N, b_j=-1.0)
