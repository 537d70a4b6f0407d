"""Chapter 4 (SPOF): the modules the page calls to compute, record, tabulate and draw its
checks (``*_claims``, ``figures``, ``tables``). Cheap: the chapter's smoke run exercises them
end to end; these pin what each computes on small inputs."""
from __future__ import annotations

import types

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest

from ldp_companion.spof import (
    accuracy_claims,
    complexity,
    cost_claims,
    figures,
    noisy_claims,
    privacy_claims,
    sensitivity_claims,
    tables,
    taylor,
    taylor_claims,
)
from ldp_companion.spof import experiments as ex
from ldp_companion.spof.items import CLAIM_KINDS, CLAIM_REFS
from ldp_companion.spof.train import Setup
from ldp_companion.verdicts.ledger import Ledger

N, L = 14, 7


def _verdicts(ledger):
    return {c.claim_id: c.verdict for c in ledger.claims()}


def _ledger():
    led = Ledger("04-spof", refs=CLAIM_REFS, kinds=CLAIM_KINDS)
    led.section("spof-test")
    return led


# --- taylor_claims ---------------------------------------------------------------------------

def test_sympy_reference_is_the_exact_expansion():
    x = np.linspace(0, 1, 11)
    a2, a3 = taylor_claims.sympy_coefficients(x)
    assert np.allclose(a2, 0.5 - x, atol=1e-15) and np.allclose(a3, 0.125, atol=1e-15)


def test_f2_second_difference_is_plus_one_quarter_of_one_minus_x():
    x = np.array([0.0, 0.4, 1.0])
    assert np.allclose(taylor_claims.f2_second_difference(x), (1 - x) / 4, atol=1e-6)


def test_taylor_claims_give_the_expected_verdicts():
    led = _ledger()
    x = np.linspace(0, 1, 101)
    taylor_claims.record_eq12(led, x, *taylor_claims.sympy_coefficients(x))
    prop1 = taylor_claims.prop1_table([0.001, 0.01, 0.1, 1.0])
    taylor_claims.record_prop1(led, prop1, taylor.softplus_derivatives(20))
    assert _verdicts(led) == {"eq12-coefficients": "fails", "eq9-f2-second": "fails",
                              "eq12-exact": "holds", "prop1-G": "fails",
                              "prop1-bound": "fails", "taylor-remainder": "holds"}
    g = prop1["G needed (paper)"].to_numpy()
    assert g[0] / g[1] == pytest.approx(10, rel=1e-2)       # the needed G grows like 1/δ


# --- sensitivity_claims ----------------------------------------------------------------------

def test_brute_sensitivities_are_21_7_14():
    brute = sensitivity_claims.brute_sensitivities(N, 2.5)
    assert brute["paper"] == pytest.approx(21) and brute["sum"] == pytest.approx(7)
    assert brute["exact"] == pytest.approx(14)
    assert brute["shifted"] < sensitivity_claims.prop3_table(N, L, [2.5]).iloc[0, 0]


def test_shifted_coefficients_expand_the_shifted_polynomial():
    x, z, c = np.array([0.2, 0.7]), 0.3, 1.5
    a2, a3 = taylor.coefficients(x, "paper")[1:]
    const, lin, quad = sensitivity_claims.shifted_coefficients(c)(x)
    assert np.allclose(const + lin * z + quad * z**2, a2 * (z + c) + a3 * (z + c) ** 2)


def test_fig6_facts_put_the_corrected_minimum_at_zero():
    facts = sensitivity_claims.fig6_facts(sensitivity_claims.fig6_table(), clip=4.0)
    assert abs(facts["a_min_corrected"]) < 0.01 and facts["spof_min"] > facts["sgd_max"]
    lo, hi = facts["below_2c"]
    assert lo < 0 < hi


def test_eq57_matches_the_corrected_closed_form():
    a = np.linspace(-2, 10, 61)
    ref = sensitivity_claims.eq57(a)
    table = sensitivity_claims.fig6_table(a)
    assert np.allclose(table["corrected"], ref, rtol=1e-3)


# --- privacy_claims --------------------------------------------------------------------------

def test_predicted_epsilon_matches_the_auditor():
    cases = privacy_claims.calibrations(1.0, 2.5, L)
    alg1 = privacy_claims.epsilon_table(cases)
    brute = {"paper": 21.0, "sum": 7.0}
    alg1["predicted"] = privacy_claims.predicted_epsilon(brute, n=N, l=L, c=2.5, eps=1.0)
    assert np.allclose(alg1["predicted"].iloc[:5], alg1["exact auditor"].iloc[:5], rtol=1e-9)
    assert np.isinf(alg1["predicted"].iloc[5]) and np.isinf(alg1.iloc[5, 0])
    led = _ledger()
    privacy_claims.record_predicted(led, alg1)
    assert _verdicts(led) == {"alg1-eps-predicted": "holds"}


def test_paper_delta_hat_is_typed_from_prop3():
    assert privacy_claims._paper_delta_hat(N, 2.5) == pytest.approx(134.75)


def test_kurtosis_blocks_estimate_one_and_a_half():
    blocks = privacy_claims.kurtosis_blocks(100_000, np.random.default_rng(1))
    led = _ledger()
    se = privacy_claims.record_sum_laplace(led, blocks, 100_000)
    assert abs(blocks.mean() - 1.5) < 5 * se and _verdicts(led)["alg1-sum-laplace"] == "fails"


# --- noisy_claims ----------------------------------------------------------------------------

def test_cdf_table_gives_one_half_at_one():
    cdf = noisy_claims.cdf_table(20_000, np.random.default_rng(2))
    assert cdf.loc[1.0, "closed form"] == pytest.approx(0.5)
    assert cdf.loc[1.0, "paper (53)"] == pytest.approx(0.5)
    assert abs(cdf.loc[1.0, "Monte Carlo"] - 0.5) < 0.02


def test_prob_table_stays_below_one_half():
    w = np.random.default_rng(0).uniform(-10, 10, (N, L))
    prob = noisy_claims.prob_table(w, l=L, sigma=5.0, n_mc=5000, rng=np.random.default_rng(3))
    assert prob.shape == (4, 2) and (prob["Pr[b_j < 1]"] < 0.5).all()


def test_fig4_medians_differ_by_orders_of_magnitude():
    med = noisy_claims.fig4_medians(L)
    assert med[1] == pytest.approx(14.0, rel=1e-2) and med.max() / med.min() > 1e6


# --- cost_claims -----------------------------------------------------------------------------

def test_savings_are_percent_less_time_per_repeat():
    per_epoch = pd.DataFrame({"spof": [1.0, 2.0], "dpsgd_logit": [2.0, 4.0],
                              "dpsgd_param": [4.0, 8.0]})
    assert np.allclose(cost_claims.savings(per_epoch), [[50, 50], [75, 75]])


def test_operation_table_sums_to_the_counts():
    ops = cost_claims.operation_table(N, L)
    assert ops["SPOF"].sum() == complexity.c_spof(N, L)
    assert ops["DP-SGD"].sum() == complexity.c_dpsgd(N)


# --- accuracy_claims -------------------------------------------------------------------------

def _runs(methods=accuracy_claims.METHODS, conditions=("noiseless", "noisy"), eps=(0.1, 1.0),
          runs=3, seed=0):
    rng = np.random.default_rng(seed)
    rows = [{"method": m, "condition": k, "epsilon": e, "run": r, "c": 2.5,
             "accuracy": 0.85 + 0.05 * rng.random(), "clipped": 0.5 * (k == "noisy"),
             "mean_output": 0.0}
            for m in methods for k in conditions for e in eps for r in range(runs)]
    return pd.DataFrame(rows)


def test_c_differences_are_paired_by_run():
    fig2 = pd.DataFrame({"method": "spof", "c": [0.0, 0.0, 1.0, 1.0, 2.0, 2.0],
                         "run": [0, 1] * 3, "accuracy": [0.5, 0.6, 0.7, 0.6, 0.5, 0.9]})
    assert np.allclose(accuracy_claims.c_differences(fig2, "spof"), [[0.2, 0.0], [0.0, 0.3]])


def test_gain_table_has_a_row_per_condition_and_pair():
    table = accuracy_claims.gain_table(_runs(), ["noiseless", "noisy"])
    assert len(table) == 2 * len(accuracy_claims.GAIN_PAIRS)
    assert set(table["paper (%)"]) == set(accuracy_claims.GAINS.values())


def test_accuracy_claims_record_every_id():
    runs, led = _runs(), _ledger()
    accuracy_claims.record_fig3(led, runs, zeros=0.87)
    accuracy_claims.record_noise(led, runs, sigma=5.0)
    accuracy_claims.record_headline(led, runs, ["noiseless", "noisy"])
    assert set(_verdicts(led)) == {
        "fig3-nonprivate", "fig3-spof-dpsgd", "fig3-spof-fm", "fig3-exact-dpsgd",
        "fig3-authors-dpsgd", "fig3-authors-zeros", "remark1-noise-helps",
        "fig3-dpsgd-degrades", "alg2-clipping", "headline-gain"}
    assert _verdicts(led)["alg2-clipping"] == "holds"


def test_mean_accuracy_selects_method_condition_and_eps():
    runs = _runs()
    sel = runs[(runs.method == "fm") & (runs.condition == "noisy") & (runs.epsilon == 1.0)]
    assert accuracy_claims.mean_accuracy(runs, "fm", "noisy", 1.0) == sel.accuracy.mean()


# --- experiments.setup_from ------------------------------------------------------------------

def test_setup_from_copies_the_chapter_parameters():
    cfg = types.SimpleNamespace(users=2, code=5, c=1.0, clip=3.0, sigma_env=2.0, delta=1e-6,
                                lr=0.01, epochs=2)
    setup = ex.setup_from(cfg)
    assert isinstance(setup, Setup) and (setup.code, setup.clip, setup.epochs) == (5, 3.0, 2)


# --- figures and tables ----------------------------------------------------------------------

def test_figures_return_a_figure_and_a_caption_with_its_values():
    fig5 = noisy_claims.fig5_table(L)
    med = noisy_claims.fig4_medians(L)
    fig, caption = figures.fig4_5(fig5, med, L)
    assert len(fig.axes) == 3 and f"{med[1]:.1f}" in caption
    assert fig.axes[1].get_ylabel() == "h" and fig.axes[1].get_xscale() == "log"
    runs = _runs()
    fig, caption = figures.fig3(runs, ["noiseless", "noisy"],
                                {"all zeros": 0.87, "column means": 0.97}, 3)
    assert len(fig.axes) == 4 and "mean ± sd over 3 runs" in caption
    for ax in fig.axes:                        # four methods and two baselines a panel
        assert len(set(ax.get_legend_handles_labels()[1])) == 6


def test_tables_show_readable_labels():
    runs = _runs()
    for styled in (tables.fig3(runs), tables.gains(accuracy_claims.gain_table(
            runs, ["noiseless", "noisy"])), tables.operations(cost_claims.operation_table(N, L)),
            tables.prop1(taylor_claims.prop1_table([0.01, 0.1, 1.0])),
            tables.timing(pd.DataFrame({"spof": [0.2, 0.3], "dpsgd_logit": [0.4, 2.406334]}))):
        html = styled.to_html()
        headers = "".join(map(str, styled.data.columns.to_flat_index()))
        assert "<caption>" in html and "_" not in headers
    assert "2.41" in tables.timing(pd.DataFrame({"dpsgd_logit": [2.406334]})).to_html()


# --- issue 44: the checks added for generated mutants that no claim caught -------------------

def test_both_laws_are_their_variables_and_a_halved_denominator_fails():
    """appF-laws: the closed form and Eq. 53 each within 5 s.e. of the Monte Carlo of its
    variable (20,000 draws); with the denominator of ln y's argument halved both laws move
    by far more (at t = ½ the closed form gives ½ instead of 0.136)."""
    from ldp_companion.verdicts.mutation_generated import applied_generated

    def verdict(n=20_000):
        cdf = noisy_claims.cdf_table(n, np.random.default_rng(5))
        led = _ledger()
        z = noisy_claims.record_laws(led, cdf, n)
        return _verdicts(led)["appF-laws"], z, cdf

    ok, z, cdf = verdict()
    assert ok == "holds" and z < 5
    assert cdf.loc[1.0, noisy_claims.EQ53_MC] == pytest.approx(0.5, abs=0.02)
    with applied_generated("ldp_companion.spof.noisy:456:10:x0.5"):  # den's 1.0 halved
        bad, z_bad, _ = verdict()
    assert bad == "fails" and z_bad > 20


def test_the_b_squared_scaling_holds_and_fails_when_the_b_row_uses_b_squared():
    """thm1-b-squared: with α₃ = 1/8, b²α₃ within the remainder bound, bα₃ above it; the
    generated mutant noisy_claims:38:77:x2 computes the bα₃ row with power 2, and the claim
    no longer holds."""
    from ldp_companion.spof import noisy

    def verdict():
        led = _ledger()
        c6 = noisy_claims.record_thm1(led, np.random.default_rng(0), n=N, l=L, sigma=5.0)
        noisy_claims.record_b_squared(led, c6)
        return _verdicts(led)["thm1-b-squared"], c6

    ok, c6 = verdict()
    assert ok == "holds"
    assert c6.iloc[1] == pytest.approx(2.941e-2, rel=1e-3)      # noisy.coefficient_error's
    assert c6.iloc[2] == pytest.approx(1.211e-3, rel=1e-3)      # reference values
    original = noisy.coefficient_error
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(noisy, "coefficient_error",
                   lambda x, b, t, zmax, power=2, coeffs="exact", num=20001: original(
                       x, b, t, zmax, 2 if coeffs == "exact" else power, coeffs, num))
        bad, _ = verdict()
    assert bad == "partly"


def test_prop1_factor_is_between_the_lagrange_bounds_and_a_quarter_fails():
    """prop1-factor: the column e^δ − 1 − δ − δ²/2 between δ³/6 and δ³e^δ/6; written with
    δ²/4 (the generated mutant taylor_claims:86:77:x2) it is of order δ² and leaves the
    bounds at every δ ≤ 1."""
    deltas = [0.001, 0.01, 0.1, 0.5, 1.0, 2.0, 3.0]
    prop1 = taylor_claims.prop1_table(deltas)
    led = _ledger()
    taylor_claims.record_prop1_factor(led, prop1)
    assert _verdicts(led) == {"prop1-factor": "holds"}
    d = np.array(deltas)
    bad = prop1.assign(**{"e^δ − 1 − δ − δ²/2": np.expm1(d) - d - d**2 / 4})
    led = _ledger()
    taylor_claims.record_prop1_factor(led, bad)
    claim = led.claims()[0]
    assert claim.verdict == "partly" and claim.ours.startswith("2 of 7")


def test_the_clipped_bound_is_loose_by_root_n_and_a_halved_bound_fails():
    """appB2-clipped-loose: 2nC over the largest distance 2C√n is √n; with ΔSGD = nC (the
    generated mutant sensitivity:170:15:x0.5) the ratio is √n/2 and the claim fails, though
    nC still bounds the distance (appB2-delta-sgd-clipped holds with it)."""
    from ldp_companion.spof import sensitivity

    led = _ledger()
    assert sensitivity_claims.record_clip_looseness(led, N, 4.0) == pytest.approx(
        np.sqrt(N), rel=1e-12)
    assert _verdicts(led) == {"appB2-clipped-loose": "holds"}
    original = sensitivity._delta_sgd
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(sensitivity, "_delta_sgd", lambda n, clipped, clip, b_j, a: (
            0.5 * original(n, clipped, clip, b_j, a) if clipped else
            original(n, clipped, clip, b_j, a)))
        led = _ledger()
        ratio = sensitivity_claims.record_clip_looseness(led, N, 4.0)
        assert sensitivity.delta_sgd(N, clipped=True) > 2 * 4.0 * np.sqrt(N)
    assert ratio == pytest.approx(np.sqrt(N) / 2) and _verdicts(led)["appB2-clipped-loose"] \
        == "fails"


def _eq58_sign_swapped(a):
    """Eq. 58 with its ``+`` before ``2(...)`` turned to ``-`` (the generated mutant
    sensitivity:126:46:swap)."""
    a = np.asarray(a, dtype=float)
    s, e = 1 / (1 + np.exp(-a)), np.exp(a)
    sp = np.logaddexp(0.0, a)
    return sp - 2.0 * (np.logaddexp(0.0, -a) / sp + 2.0 * e / (1.0 + e) ** 2 + s)


def test_app_h_numbers_of_eq58_hold_and_a_swapped_sign_fails():
    """fig6-app-h: Eq. 58 as the package prints it gives App. H's minimum 4.0348 at
    a ≈ 0.9057 and 4.6931 at a = 0; with the sign swapped it does not."""
    from ldp_companion.spof import sensitivity

    def verdict():
        led = _ledger()
        facts = sensitivity_claims.fig6_facts(sensitivity_claims.fig6_table(), 4.0)
        sensitivity_claims.record_app_h(led, facts)
        return _verdicts(led)["fig6-app-h"]

    assert verdict() == "holds"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(sensitivity, "spof_feature_paper", _eq58_sign_swapped)
        assert verdict() == "fails"


def test_the_new_claims_are_registered():
    new = {"appF-laws", "thm1-b-squared", "prop1-factor", "appB2-clipped-loose"}
    assert new <= set(CLAIM_REFS) and all(CLAIM_KINDS[c] == "beyond the paper" for c in new)
    assert CLAIM_REFS["fig6-app-h"] == ["Fig. 6"] and "fig6-app-h" not in CLAIM_KINDS
