"""Chapter 5's page machinery (ldp_companion.hiera: mechanism_checks, unbiasedness,
theorem2, reuse, comparison, figures): the tables the page shows, the claims it records,
and the validate-once path of a gradient estimate (Sec. 5)."""
from __future__ import annotations

import sys

import matplotlib
import numpy as np
import pandas as pd
import pytest

from ldp_companion import hiera as H
from ldp_companion.hiera import comparison, figures, reuse, theorem2
from ldp_companion.hiera import mechanism_checks as mech
from ldp_companion.hiera import reference as ref
from ldp_companion.hiera import unbiasedness as unb
from ldp_companion.hiera.experiments import dataset_summary
from ldp_companion.hiera.items import CLAIM_KINDS, CLAIM_REFS
from ldp_companion.hiera.reconstructions import RECONSTRUCTED
from ldp_companion.mechanisms.harmony import discretise, randomized_response
from ldp_companion.verdicts.ledger import Ledger

matplotlib.use("Agg")


def _ledger():
    return Ledger("05-hiera", refs=CLAIM_REFS, kinds=CLAIM_KINDS, reconstructed=RECONSTRUCTED)


def _verdicts(ledger):
    t = ledger.table()
    return dict(zip(t["claim_id"], t["verdict"]))


# --- validate once, at the door ------------------------------------------------------------

def _validation_calls(fn) -> int:
    """Calls into ldp_companion/validation.py while ``fn()`` runs."""
    calls = 0

    def profile(frame, event, arg):
        nonlocal calls
        if event == "call" and frame.f_code.co_filename.endswith("ldp_companion/validation.py"):
            calls += 1
    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return calls


def test_lhp_draws_exactly_what_grr_discretise_and_randomized_response_draw():
    """The unchecked core of LHP consumes the generator as the checked steps do."""
    L = H.paper_levels(0.7)
    v = np.linspace(-1, 1, 5_001)
    t_star, bits = H.lhp(v, L, np.random.default_rng(5))
    rng = np.random.default_rng(5)
    t = L.level_of(v)
    want_t = H.grr(t, L.epsilons[t - 1], L.k, rng)
    want_bits = randomized_response(discretise(v, rng), L.p[want_t - 1], rng)
    np.testing.assert_array_equal(t_star, want_t)
    np.testing.assert_array_equal(bits, want_bits)


def test_a_gradient_estimate_validates_once_and_sgd_steps_not_again():
    L = H.paper_levels(1.0)
    rng = np.random.default_rng(0)
    X, y = rng.uniform(-1, 1, (4_000, 3)), rng.uniform(-1, 1, 4_000)
    grads = H.sgd.clipped_gradients(np.zeros(4), X, y)
    lv = H.sgd.attribute_levels(X, y, L)
    one = _validation_calls(lambda: H.estimate_gradient(grads, lv, "hiera", L, rng, mu=2))
    assert one <= 3
    fits = [_validation_calls(lambda n=n: H.ldp_linreg(X[:n], y[:n], "hiera", L, rng, group=50))
            for n in (200, 4_000)]                       # 4 and 80 SGD steps
    assert fits[0] == fits[1]


def test_a_gradient_estimate_still_refuses_bad_input():
    L = H.paper_levels(1.0)
    rng = np.random.default_rng(0)
    grads, lv = np.zeros((10, 3)), np.ones((10, 3), dtype=int)
    with pytest.raises(ValueError, match="levels in 1..5"):
        H.estimate_gradient(grads, lv * 6, "hiera", L, rng)
    with pytest.raises(ValueError, match="mu must be"):
        H.estimate_gradient(grads, lv, "hiera", L, rng, mu=6)
    with pytest.raises(ValueError, match="rule"):
        H.estimate_gradient(grads, lv, "hiera", L, rng, rule="blocks")
    with pytest.raises(ValueError, match=r"grads must lie in \[-1, 1\]"):
        H.estimate_gradient(grads + 2, lv, "hiera", L, rng)
    with pytest.raises(ValueError, match="multidim"):
        H.ldp_linreg(np.zeros((10, 2)), np.zeros(10), "hiera", L, rng, multidim="all")
    with pytest.raises(ValueError, match="flip_rule"):
        H.pool_sums(np.ones((5, 2), dtype=int), L, 1, rng, flip_rule="printed")


# --- the mechanisms' tables ------------------------------------------------------------------

def test_levels_table_and_its_claims():
    tab = mech.levels_table()
    np.testing.assert_allclose(tab.loc[1.0, "pₜ"], ref.P[1.0], atol=5e-7)
    assert list(tab.loc[0.5, "interval"])[-1] == "[0.6, 1]"
    ledger = _ledger()
    mech.record_levels(ledger, tab)
    mech.record_pools(ledger, mech.pool_plans())
    assert set(_verdicts(ledger).values()) == {"holds"}


def test_pool_table_reads_copies_and_sources():
    table = mech.pool_table(mech.pool_plans())
    assert table.loc["paper, μ = 5", 5] == "(5; 1,2,3,4)"
    assert table.loc["block, μ = 2", 1] == "(0; –)"


def test_plc_table_identities_and_the_printed_rule():
    tab = mech.plc_table([0.5, 1.0])
    assert len(tab) == 20
    np.testing.assert_allclose(tab["agree (q)"], tab["pⱼ"], atol=1e-12)
    np.testing.assert_allclose(tab["agree (printed)"], 1 - tab["pⱼ"], atol=1e-12)
    ledger = _ledger()
    mech.record_plc(ledger, tab)
    assert _verdicts(ledger) == {"plc-identity": "holds", "plc-printed-flip": "fails",
                                 "plc-q-table": "holds", "plc-direction": "holds"}


def test_plc_sampling_separates_the_two_rules():
    tab = mech.plc_sampling(0.5, 50_000, np.random.default_rng(1))
    p5 = H.paper_levels(0.5).p[-1]
    assert abs(tab.iloc[0, 0] - p5) < 4 * np.sqrt(p5 * (1 - p5) / 50_000)
    assert abs(tab.iloc[1, 0] - (1 - p5)) < 4 * np.sqrt(p5 * (1 - p5) / 50_000)
    assert tab.iloc[1, 1] < 1e-6 and np.isnan(tab.iloc[2, 1])


# --- Theorem 3 ---------------------------------------------------------------------------------

def test_configs_and_no_compensation_limits():
    assert len(unb.unbiased_configs([1, 2])) == 4
    broken = unb.broken_configs([1, 2, 3], 2)
    assert [c.compensation for c in broken] == [False, False, True]
    assert broken[-1].flip_rule == "paper"
    limits = unb.no_compensation_limits()
    np.testing.assert_allclose(limits["ours"], limits["reconstructed"], atol=5e-4)


def test_unbiasedness_grid_small():
    configs = unb.unbiased_configs([1, 2])
    grid, tab = unb.unbiasedness_grid(500, [1.0], 40, 0, np.random.default_rng(2),
                                      configs=configs, n_jobs=1)
    assert set(grid["run"]) == set(range(40))
    assert {"z", "var MC / formula", "limit_bias"} <= set(tab.columns)
    hiera = tab[tab["method"] == "hiera"]
    np.testing.assert_allclose(hiera["limit_bias"], 0.0, atol=1e-12)


# --- Theorem 2 and graded Laplace -------------------------------------------------------------

def test_theorem2_tables_and_worst_case():
    mats = theorem2.privacy_matrices([1.0])
    tab = theorem2.theorem2_table(mats)
    assert tab.loc["joint ⟨t*, y⟩", 1.0] == pytest.approx(ref.JOINT[1.0], rel=1e-4)
    joint = theorem2.joint_matrix_table(1.0)
    np.testing.assert_allclose(joint.loc["joint − claimed"].to_numpy(),
                               joint.loc["joint"].to_numpy() - joint.loc["claimed"].to_numpy())
    w = theorem2.worst_case_factors(1.0)
    assert w["level_part"] + w["bit_part"] == pytest.approx(w["log_ratio"], abs=1e-9)
    assert w["log_ratio"] > w["claimed"]
    assert theorem2.worst_case_text(w).splitlines()[-1].endswith(f"= {w['claimed']:g}")
    ledger = _ledger()
    theorem2.record_theorem2(ledger, mats, tab)
    theorem2.record_joint_matrix(ledger, joint, 1.0)
    got = _verdicts(ledger)
    assert got["thm2-joint"] == "fails" and got["thm2-level"] == "holds"
    assert got["thm2-matrix"] == "holds" and got["thm2-composed"] == "holds"


def test_graded_laplace_ratios_and_claims():
    gl, tab = theorem2.graded_laplace_ratios(1.0)
    np.testing.assert_allclose(tab.loc["ours"], ref.GL_RATIOS, atol=5e-3)
    ledger = _ledger()
    theorem2.record_graded_laplace(ledger, gl, tab, 1.0)
    assert _verdicts(ledger) == {"graded-laplace-values": "holds", "graded-laplace-ldp": "fails"}


# --- μ and Figs. 1-3 ----------------------------------------------------------------------------

def test_second_moments_and_variance_ratios():
    tab = reuse.second_moment_table()
    np.testing.assert_allclose(tab.to_numpy(), np.array(list(ref.SECOND_MOMENTS.values())),
                               atol=1e-3)
    unb_tab = pd.DataFrame({"epsilon": 1.0, "rule": "paper", "mu": [1, 2, 3],
                            "var": [2.0, 3.0, 4.0], "variance": [1.0, 1.5, 3.0]})
    ratio = reuse.variance_ratios(unb_tab, np.ones(3, bool))
    assert ratio.loc[("Monte Carlo", 1.0, "paper")].tolist() == [1.5, 2.0]
    assert ratio.loc[("formula", 1.0, "paper")].tolist() == [1.5, 3.0]
    assert reuse.mae_relative_se(100) == pytest.approx(np.sqrt((np.pi / 2 - 1) / 100))


def test_crossovers_find_the_first_base_where_a_baseline_wins():
    bases = np.array([0.1, 0.5, 1.0])
    rows = [{"dataset": "d", "epsilon": e, "config": c, "predicted_mae": m}
            for e, h, g in zip(bases, [1.0, 1.0, 1.0], [2.0, 0.9, 0.5])
            for c, m in (("H", h), ("graded_laplace", g), ("pm", 3.0), ("harmony", 3.0))]
    cross = comparison.crossovers(pd.DataFrame(rows), "H", bases)
    assert cross.loc["d", "graded Laplace"] == 0.5 and np.isnan(cross.loc["d", "PM"])


def test_budget_explanation_at_small_base():
    why = comparison.budget_explanation(0.1)
    assert 0 < why["hiera_vs_harmony"] < 1 and 0 < why["random_level"] < 1
    assert why["joint"] < why["composed"] == pytest.approx(1.0)
    assert "Harmony and PM" in comparison.budget_text(why)


def test_the_random_level_ratio_is_harmony_s_sampler_s():
    """The table's ratio at a uniformly random level's budget lies within 4 standard errors of
    the one Harmony's sampler gives (200,000 users each way); with coth²(ε) in place of
    coth²(ε/2) for the base (``tanh(base / 2)`` → ``tanh(base)``, the generated mutant that no
    claim caught) it is several times larger and the claim fails."""
    def verdict(base):
        why = comparison.budget_explanation(base)
        draws = comparison.random_level_draws(base, 200_000, np.random.default_rng(11))
        led = _ledger()
        comparison.record_random_level(led, why, draws)
        return _verdicts(led)["random-level-variance"]

    assert [verdict(b) for b in (0.2, 1.0)] == ["holds", "holds"]
    original = comparison.budget_explanation

    def mutant(base):
        why = original(base)
        return {**why, "random_level": why["random_level"]
                * (np.tanh(base) / np.tanh(base / 2)) ** 2}

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(comparison, "budget_explanation", mutant)
        assert [verdict(b) for b in (0.2, 1.0)] == ["fails", "fails"]
    few = comparison.random_level_draws(1.0, 10, np.random.default_rng(0))
    with pytest.raises(ValueError, match="bases"):
        comparison.record_random_level(_ledger(), comparison.budget_explanation(0.2), few)
    with pytest.raises(ValueError, match="at least 2"):
        comparison.random_level_draws(1.0, 1, np.random.default_rng(0))


def test_sgd_summaries():
    sgd = pd.DataFrame([{"dataset": "t", "method": m, "epsilon": e, "mse": x}
                        for m in ("harmony", "pm", "graded_laplace", "hiera", "none")
                        for e in (0.5, 2.0) for x in (1.0, 2.0, 3.0)]
                       + [{"dataset": "t", "method": "ols", "epsilon": np.nan, "mse": 1.5}])
    q = comparison.sgd_quantiles(sgd)
    med = comparison.sgd_medians(q)
    assert med.loc[("t", 0.5), "pm"] == 2.0 and "ols" not in med.columns
    below = comparison.below_least_squares(q, med)
    assert not below.to_numpy().any()
    assert "0 of 8" in comparison.below_least_squares_summary(below)
    np.testing.assert_allclose(comparison.sgd_trend(med, 0.5, 2.0).to_numpy(), 1.0)
    assert comparison.method_labels(2)["hiera"] == "HierA (μ = 2)"


def test_dataset_summary_shares_sum_to_one():
    tab = dataset_summary({"u": H.uniform(1_000, np.random.default_rng(3))})
    assert tab.loc["u", "users"] == 1_000
    assert tab.loc["u", [f"level {t}" for t in range(1, 6)]].sum() == pytest.approx(1.0)


def test_figures_return_a_figure_and_a_caption_from_the_values():
    import matplotlib.pyplot as plt

    dense = theorem2.privacy_curves(np.geomspace(0.1, 2.0, 8))
    for fig, caption, alt in (
            figures.theorem2_curves(dense, [0.1, 1.0, 2.0]),
            figures.excess_heatmap(theorem2.joint_matrix_table(1.0).loc["joint − claimed"], 1.0),
            figures.graded_laplace_ratios_plot(theorem2.graded_laplace_ratios(1.0)[0], 1.0)):
        assert isinstance(fig, matplotlib.figure.Figure) and len(caption) > 20 and alt
        plt.close(fig)
    assert "exceeds it at 8 of 8 bases" in figures.theorem2_curves(dense, [0.1, 2.0])[1]
    plt.close("all")
