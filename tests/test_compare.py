"""Appendix C: the catalogue's exact ε, the inverse budgets, the closed-form errors, the
decision map and the verdicts, each against an independent value or a broken input."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from ldp_companion.auditing import blackbox
from ldp_companion.compare import catalogue, claims, true_epsilon, utility
from ldp_companion.mechanisms import get_mechanism
from ldp_companion.tensor.calibration import gaussian_delta
from ldp_companion.verdicts.ledger import Ledger

SHAPE, RANGE, DELTA = (28, 28), 256.0, 1e-5


def test_verdicts_follow_the_exact_epsilon_and_the_bound():
    assert true_epsilon.verdict(1.0, 1.0 + 1e-12, 0.9) == "holds"
    assert true_epsilon.verdict(1.0, 1.01, 0.9) == "fails"
    assert true_epsilon.verdict(1.0, None, 1.2) == "fails"   # the bound alone proves it
    assert true_epsilon.verdict(1.0, None, 0.9) == "inconclusive"


def test_tensor_exact_epsilon_matches_the_gaussian_profile_it_inverts():
    """For each Gaussian tensor mechanism, δ(ε_exact) of its noise is the δ it is judged at."""
    s2 = RANGE * math.sqrt(784)
    for key in ("gaussian", "idn", "mvg"):
        eps = catalogue.tensor_exact(key, 1.0, SHAPE, RANGE, DELTA)
        sigma = catalogue.noise_sigma(key, 1.0, SHAPE, RANGE, DELTA)
        assert gaussian_delta(sigma, s2, eps) == pytest.approx(DELTA, rel=1e-6)
    assert catalogue.tensor_exact("laplace", 2.0, SHAPE, RANGE, 0.0) == pytest.approx(2.0)
    # TLDP-L keeps an entry with p ≈ 10⁻³⁴³ at ε = 1: its pure ε is infinite (no underflow)
    assert catalogue.tensor_exact("tldp_l", 1.0, SHAPE, RANGE, 0.0) == math.inf
    assert catalogue.tensor_exact("tldp_l", 0.005, SHAPE, RANGE, DELTA) == math.inf  # I p > δ
    assert catalogue.tensor_exact("tldp_l", 0.01, SHAPE, RANGE, DELTA) < 1.2         # I p < δ


def _laplace_losses(b: float, size: int, draws: int, seed: int) -> np.ndarray:
    """Privacy losses ln p(y | 0)/p(y | Δ·1) of ``draws`` outputs y ~ 0 + Lap(b) on ``size``
    entries (in chunks of 10,000 draws)."""
    rng, out = np.random.default_rng(seed), []
    for n in np.diff(np.r_[0:draws:10_000, draws]):
        y = rng.laplace(0.0, b, (n, size))
        out.append(((np.abs(y - RANGE) - np.abs(y)) / b).sum(axis=1))
    return np.concatenate(out)


def test_laplace_epsilon_at_delta_is_its_privacy_loss_distribution():
    """Monte Carlo through the privacy loss L of the extreme pair (64 entries of Lap(b)
    noise, each shifted by Δ; 1,000,000 draws, as the tail needs): δ(ε) = E[(1 − e^(ε − L))₊]
    at the PLD's ε is δ within 4 standard errors, and at 0.8 of that ε it is far above δ (the
    ε is not loose). On 784 entries the share of the pure ε is about 0.12."""
    assert 0.1 < catalogue.laplace_epsilon(RANGE * 784 / 2, RANGE, 784, DELTA) / 2 < 0.15
    size, b = 64, RANGE * 64 / 2.0                   # an 8×8 baseline at pure ε = 2
    eps = catalogue.laplace_epsilon(b, RANGE, size, DELTA)
    assert 0.4 * 2.0 < eps < 0.5 * 2.0               # about 0.45 of the pure ε at 8×8
    loss = _laplace_losses(b, size, 1_000_000, 5)
    for at, expect in ((eps, "equal"), (0.8 * eps, "above")):
        terms = np.maximum(0.0, -np.expm1(at - loss))
        mean, se = terms.mean(), terms.std() / math.sqrt(terms.size)
        if expect == "equal":
            assert abs(mean - DELTA) < 4 * se
        else:
            assert mean > DELTA + 4 * se
    assert catalogue.laplace_epsilon(b, RANGE, size, 0.0) == pytest.approx(2.0)
    # a wrong scale (half the noise) doubles each loss: the ε at δ more than doubles
    assert catalogue.laplace_epsilon(b / 2, RANGE, size, DELTA) > 1.8 * eps


@pytest.mark.parametrize("key", ["gaussian", "idn", "mvg", "laplace"])
@pytest.mark.parametrize("target", [0.5, 4.0])
def test_the_budget_found_spends_the_target(key, target):
    budget = utility.budget_for(key, target, SHAPE, RANGE, DELTA)
    assert catalogue.tensor_exact(key, budget, SHAPE, RANGE, DELTA) == pytest.approx(target,
                                                                                    rel=1e-8)


def test_tldp_reaches_only_large_true_epsilon():
    """TLDP-G keeps entries too often for any ε ≤ 8 at δ = 10⁻⁵; TLDP-L, read at δ, spends
    ε = 4 at a budget of about 0.033 (its kept entries' probability I p below δ)."""
    assert math.isnan(utility.budget_for("tldp_g", 8.0, SHAPE, RANGE, DELTA))
    assert math.isnan(utility.budget_for("tldp_l", 1.0, SHAPE, RANGE, DELTA))
    budget = utility.budget_for("tldp_l", 4.0, SHAPE, RANGE, DELTA)
    assert 0.02 < budget < 0.05
    assert catalogue.tensor_exact("tldp_l", budget, SHAPE, RANGE, DELTA) == \
        pytest.approx(4.0, rel=1e-8)


@pytest.mark.parametrize("key", list(catalogue.TENSOR))
def test_closed_form_release_error_matches_the_code_s_noise(key):
    """Monte Carlo: 400 releases of a 28×28 tensor (313,600 entries); the mean squared error
    is within 5 standard errors of the closed form (the noise's fourth moment bounds it)."""
    entry = next(e for e in catalogue.tensor_entries(1.0, SHAPE, RANGE, DELTA) if e.key == key)
    x = np.full(SHAPE, 100.0)
    y = entry.sampler(x, 400, np.random.default_rng(11))
    sq = ((y - x) ** 2).ravel()
    expected = utility.tensor_error(key, 1.0, SHAPE, RANGE, DELTA)
    assert abs(sq.mean() - expected) < 5 * sq.std() / math.sqrt(sq.size)


def test_scalar_errors_are_the_mechanisms_own_variances():
    columns = {"two points": np.array([-1.0, 0.5])}
    errors = utility.scalar_errors([1.0], 5, columns).set_index(["task", "mechanism"])["error"]
    pm = get_mechanism("pm", 1.0)
    assert errors[("worst case", "pm")] == pytest.approx(pm.worst_case_variance(), rel=1e-12)
    assert errors[("uniform", "pm")] == pytest.approx(
        pm.variance(np.linspace(-1, 1, 5)).mean(), rel=1e-12)
    assert errors[("two points", "pm")] == pytest.approx(
        pm.variance(np.array([-1.0, 0.5])).mean(), rel=1e-12)


def test_decision_map_names_ties_and_leads():
    errors = pd.DataFrame({"task": ["t"] * 3 + ["u"] * 3, "epsilon": [1.0] * 6,
                           "mechanism": ["a", "b", "c"] * 2,
                           "error": [1.0, 1.005, 2.0, 3.0, 1.0, 1.5]})
    d = utility.decision_map(errors, tie=0.01).set_index("task")
    assert d.loc["t", "best"] == "tie: a / b" and d.loc["t", "winner"] == "a"
    assert d.loc["t", "next"] == "c" and d.loc["t", "lead"] == pytest.approx(1.0)  # not b
    assert d.loc["u", "best"] == "b" and d.loc["u", "lead"] == pytest.approx(0.5)
    assert d["chance"].isna().all()


def _verdicts(table) -> dict:
    ledger = Ledger("C-compare", refs=dict.fromkeys(
        list(claims._PAPER_CLAIMS) + ["blackbox-agrees"], ["Sec. C.2"]))
    claims.record_true_epsilon(ledger, table)
    return ledger.table().set_index("claim_id")["verdict"].to_dict()


def test_a_broken_mechanism_changes_the_verdict_on_the_page(monkeypatch):
    """Square Wave and PM run at twice their claimed ε (noise and output law both too small, as
    a constant off by 2 would make them): the table's exact ε doubles, the auditor sees it
    from samples, and the claim that Square Wave is ε-LDP turns from holds to fails. PM's row
    fails too; its claim is chapter 3's (ldp-pm), not repeated in appendix C."""
    from ldp_companion.byom.square_wave import SquareWave
    from ldp_companion.mechanisms import piecewise

    def table():  # tensors on 2×2, not the page's 28×28: their rows are not this test's
        return true_epsilon.true_epsilon_table([1.0], n_audit=20_000, n_tensor=1_000,
                                               shape=(2, 2), value_range=RANGE, delta=DELTA,
                                               rng=np.random.default_rng(3))

    assert _verdicts(table())["true-eps-square-wave"] == "holds"
    assert "true-eps-pm" not in claims._PAPER_CLAIMS
    real = catalogue.get_mechanism
    monkeypatch.setattr(catalogue, "get_mechanism", lambda name, eps: piecewise.PM(2 * eps)
                        if name == "pm" else real(name, eps))
    monkeypatch.setattr(catalogue, "SquareWave", lambda eps: SquareWave(2 * eps))
    broken = table()
    for name in ("pm", "square_wave"):
        row = broken[(broken["mechanism"] == name)].iloc[0]
        assert row["exact"] == pytest.approx(2.0) and row["verdict"] == "fails"
        assert row["black-box lower bound"] > 1.0  # the auditor sees it from samples too
    assert _verdicts(broken)["true-eps-square-wave"] == "fails"


def test_the_reference_square_wave_matches_appendix_b_s_closed_forms():
    """Worst-case variance against byom.exercises' independent closed form; exact ε from its
    law; mean and variance of 2,000,000 draws within 5 standard errors."""
    from ldp_companion.auditing import audit
    from ldp_companion.byom.exercises import square_wave_worst_case_variance
    from ldp_companion.byom.square_wave import SquareWave

    for eps in (0.5, 2.0):
        sw = SquareWave(eps)
        assert sw.worst_case_variance() == pytest.approx(square_wave_worst_case_variance(eps),
                                                         rel=1e-12)
        assert audit.exact_audit(sw).epsilon == pytest.approx(eps, rel=1e-9)
        n, x = 2_000_000, 0.3
        y = sw.privatize(np.full(n, x), np.random.default_rng(12))
        var = float(sw.variance(np.array(x)))
        assert abs(y.mean() - x) < 5 * math.sqrt(var / n)
        m4 = float(np.mean((y - y.mean()) ** 4))  # the sample variance's standard error
        assert abs(y.var() - var) < 5 * math.sqrt((m4 - y.var() ** 2) / n)


def test_the_prose_lists_follow_the_table():
    from ldp_companion.compare import views

    table = pd.DataFrame({"paper": ["hiera", "pm", "tvg"], "mechanism": ["hiera", "pm", "idn"],
                          "claimed": [5.0, 1.0, 1.0], "exact": [8.0, 1.0, 0.1],
                          "black-box lower bound": [6.0, 0.9, 0.0]})
    assert views.flagged_text(table) == "HierA report ⟨t*, y⟩ (LHP), from Hao et al. (ch. 5)"
    assert views.underspent_text(table) == "IDN"
    fine = table.assign(**{"black-box lower bound": 0.0, "exact": 1.0, "claimed": 1.0})
    assert views.flagged_text(fine) == "none" and views.underspent_text(fine) == "none"


def test_the_tensor_caption_names_only_curves_that_coincide():
    from ldp_companion.compare import figures

    true = pd.DataFrame({"epsilon": [1.0, 2.0] * 3, "mechanism": ["gaussian"] * 2
                         + ["idn"] * 2 + ["mvg"] * 2,
                         "error": [4.0, 1.0, 4.0, 1.0, 4.0, 1.5]})
    assert figures._coinciding(true) == "Gaussian and IDN"
    assert figures._coinciding(true.assign(error=[4.0, 1.0, 5.0, 1.0, 6.0, 1.0])) == ""


# --- chapter 4's releases -------------------------------------------------------------------

def _record_rows(eps=1.0):
    from ldp_companion.compare import records
    return {e.key: e for e in records.record_entries(eps)}


def test_chapter_4_releases_spend_their_closed_forms():
    """Alg. 1 with the literal c_j: ∞ (its scale depends on the record); FM's √2 split: √2 ε;
    Prop. 2: ε/3 (sensitivity 7, scale from 21); Alg. 2 at a = 0, the exact-coefficient SPOF
    and the current-logit DP-SGD: ε; the parameter DP-SGD: under ε at δ (the RDP accountant is
    loose) but above 0.8 ε."""
    for eps in (0.5, 2.0):
        rows = _record_rows(eps)
        assert rows["spof_alg1"].exact == math.inf
        assert rows["spof_fm"].exact == pytest.approx(math.sqrt(2) * eps, rel=1e-12)
        assert rows["spof_prop2"].exact == pytest.approx(eps / 3, rel=1e-12)
        for key in ("spof_alg2", "spof_exact", "dpsgd_logit"):
            assert rows[key].exact == pytest.approx(eps, rel=1e-12), key
        assert 0.8 * eps < rows["dpsgd_param"].exact <= eps
        assert rows["dpsgd_param"].delta == 1e-5


def test_chapter_4_samplers_draw_the_releases_noise():
    """Monte Carlo, 40,000 draws per record: each coordinate's mean and mean absolute
    deviation (Laplace: the scale) within 5 standard errors of the release's."""
    from ldp_companion.compare import records
    rng = np.random.default_rng(5)
    releases = records._releases(1.0, records.train.Setup())
    for key in ("spof_fm", "spof_exact", "dpsgd_logit"):
        sampler = records._laplace_sampler(releases[key])
        for x, mean, scale in ((np.zeros(14), releases[key].mean_a, releases[key].scale_a),
                               (np.ones(14), releases[key].mean_b, releases[key].scale_b)):
            y = sampler(x, 40_000, rng)
            assert np.all(np.abs(y.mean(0) - mean) < 5 * np.sqrt(2) * scale / 200), key
            mad = np.abs(y - mean).mean(0)
            assert np.all(np.abs(mad - scale) < 5 * scale / 200), key


_CH4_CLAIMS = ("true-eps-spof", "true-eps-spof-alg2", "true-eps-book-baselines")


def _record_verdicts(table) -> dict:
    """The verdicts of chapter 4's claims only (the table holds only chapter 4's rows)."""
    ledger = Ledger("C-compare", refs=dict.fromkeys(_CH4_CLAIMS + ("blackbox-agrees",),
                                                    ["Sec. C.2"]))
    kept = {k: claims._PAPER_CLAIMS[k] for k in _CH4_CLAIMS}
    real, claims._PAPER_CLAIMS = claims._PAPER_CLAIMS, kept
    try:
        claims.record_true_epsilon(ledger, table)
    finally:
        claims._PAPER_CLAIMS = real
    return ledger.table().set_index("claim_id")["verdict"].to_dict()


def _book_verdict():
    table = pd.DataFrame([true_epsilon._row(e, 20_000, np.random.default_rng(4))
                          for e in _record_rows(1.0).values()])
    return table, _record_verdicts(table)["true-eps-book-baselines"]


def test_chapter_4_s_old_calibrations_fail_the_book_s_claim(monkeypatch):
    """The calibrations chapter 4 used before this appendix (App. B.II's n for a gradient at
    the current logit; Opacus's add/remove σ for a replaced record) each turn the book's
    claim from holds to fails (a guarantee broken by one row), and the row's exact ε to 2 ε
    and 1.8 ε."""
    from ldp_companion.spof import train
    from ldp_companion.verdicts.mutation import Mutant, applied, scaled

    assert _book_verdict()[1] == "holds"
    with applied(Mutant("at-a", "ΔSGD = n", "ldp_companion.spof.sensitivity:"
                        "_delta_sgd_current", scaled(0.5))):
        table, verdict = _book_verdict()
    assert verdict == "fails"
    assert table.set_index("mechanism").loc["dpsgd_logit", "exact"] == pytest.approx(2.0)
    monkeypatch.setattr(train, "REPLACEMENT", 1.0)
    table, verdict = _book_verdict()
    assert verdict == "fails"
    assert table.set_index("mechanism").loc["dpsgd_param", "exact"] > 1.7


def test_chapter_4_paper_claims_fail_where_chapter_4_says():
    table = pd.DataFrame([true_epsilon._row(e, 20_000, np.random.default_rng(6))
                          for e in _record_rows(1.0).values()])
    verdicts = _record_verdicts(table)
    # Alg. 1 at c = 2.5 and FM fail: a guarantee broken
    assert verdicts["true-eps-spof"] == "fails"
    assert verdicts["true-eps-spof-alg2"] == "holds"
    row = table.set_index("mechanism").loc["spof_alg1"]
    assert row["black-box lower bound"] > 1.0          # the record-dependent scale, from samples


# --- the downstream task and its decisions ----------------------------------------------------

def _f1_cells():
    return pd.DataFrame({"task": "t", "mechanism": ["a"] * 4 + ["b"] * 4 + ["a"] * 4 + ["b"] * 4,
                         "epsilon": [1.0] * 8 + [2.0] * 8, "run": list(range(4)) * 4,
                         "f1": [0.50, 0.52, 0.48, 0.50, 0.10, 0.12, 0.08, 0.10,    # a far ahead
                                0.20, 0.30, 0.10, 0.25, 0.22, 0.12, 0.28, 0.18]})  # overlapping


def test_f1_decisions_name_a_winner_only_past_both_tests():
    from ldp_companion.compare import downstream
    f1 = _f1_cells()
    d = downstream.f1_decisions(f1, 0.95, chance=0.0).set_index("epsilon")
    assert d.loc[1.0, "best"] == "a" and d.loc[1.0, "lead"] == pytest.approx(4.0)
    assert d.loc[2.0, "best"] == downstream.INCONCLUSIVE and d.loc[2.0, "next"] == "b"
    # the overlapping cell's best (mean 0.21 over 4 runs) does not clear a chance of 0.1
    assert downstream.f1_decisions(f1, 0.95, chance=0.1).set_index("epsilon").loc[
        2.0, "best"] == downstream.AT_CHANCE
    # a broken input: b's runs at ε = 1 shifted up to a's level turn the cell inconclusive
    shifted = f1.copy()
    shifted.loc[(shifted["mechanism"] == "b") & (shifted["epsilon"] == 1.0), "f1"] += 0.4
    assert downstream.f1_decisions(shifted, 0.95, 0.0).set_index("epsilon").loc[1.0, "best"] \
        == downstream.INCONCLUSIVE
    with pytest.raises(ValueError):
        downstream.f1_decisions(f1.iloc[::4], 0.95, 0.1)      # one run each: no spread
    with pytest.raises(ValueError):
        downstream.f1_decisions(f1, 2.0, 0.1)


def test_a_lead_below_chance_names_no_winner():
    """The referee's case: a lead of 97 % between two F1s under chance (0.063 against 0.032,
    chance 0.10) names no winner; the same runs against a chance of 0.01 do."""
    from ldp_companion.compare import downstream
    f1 = pd.DataFrame({"task": "t", "mechanism": ["gaussian"] * 5 + ["laplace"] * 5,
                       "epsilon": 1.0, "run": list(range(5)) * 2,
                       "f1": [0.060, 0.065, 0.062, 0.066, 0.062, 0.030, 0.034, 0.031, 0.033,
                              0.032]})
    cell = downstream.f1_decisions(f1, 0.95, chance=0.10).iloc[0]
    assert cell["best"] == downstream.AT_CHANCE and cell["winner"] == "gaussian"
    assert downstream.f1_decisions(f1, 0.95, chance=0.01).iloc[0]["best"] == "gaussian"


def test_the_lead_test_is_corrected_for_the_number_of_budgets():
    """A lead that one t-test at 5 % names (p ≈ 0.02) is not named among 10 budgets' tests."""
    from ldp_companion.compare import downstream
    rows = []
    for i, eps in enumerate(np.arange(1.0, 11.0)):
        gap = 0.02 if i == 0 else 0.0
        rows += [("t", "a", eps, r, 0.5 + gap + 0.01 * (r % 3 - 1)) for r in range(5)]
        rows += [("t", "b", eps, r, 0.5 + 0.01 * ((r + 1) % 3 - 1)) for r in range(5)]
    f1 = pd.DataFrame(rows, columns=["task", "mechanism", "epsilon", "run", "f1"])
    one = downstream.f1_decisions(f1[f1["epsilon"] == 1.0], 0.95, 0.1).iloc[0]
    assert 0.001 < one["p_lead"] < 0.05 and one["best"] == "a"
    assert downstream.f1_decisions(f1, 0.95, 0.1).iloc[0]["best"] == downstream.INCONCLUSIVE


def test_chance_f1_of_a_blind_guess():
    """Ten balanced classes: 0.1; a Monte Carlo of uniform guesses scored by scikit-learn's
    weighted F1 agrees within its spread (100,000 labels)."""
    from sklearn.metrics import f1_score

    from ldp_companion.compare import downstream
    y = np.random.default_rng(2).integers(0, 10, 100_000)
    assert downstream.chance_f1(y) == pytest.approx(0.1, abs=1e-3)
    guess = np.random.default_rng(3).integers(0, 10, y.size)
    assert f1_score(y, guess, average="weighted") == pytest.approx(downstream.chance_f1(y),
                                                                   abs=0.005)
    skewed = np.r_[np.zeros(900, int), np.ones(100, int)]       # guessing by shares: 0.82
    assert downstream.chance_f1(skewed) == pytest.approx(0.82)


def test_type3_release_carries_almost_nothing_a_classifier_could_use():
    """Monte Carlo: the best test between the two records farthest apart (all features −1
    against all +1, 400 features) on 400,000 noisy releases; its accuracy on both, minus 1,
    is the total variation the bound gives, within 4 standard errors."""
    from ldp_companion.compare import downstream
    gain = downstream.type3_accuracy_gain(8.0, DELTA)
    assert 0 < gain < 0.05
    sigma, n = downstream.type3_sigma(8.0, DELTA), 200_000
    rng = np.random.default_rng(4)
    # the sufficient statistic of a release of x = ±1 (400 features): the mean of its entries
    low = -1.0 + rng.standard_normal(n) * sigma / 20.0
    high = 1.0 + rng.standard_normal(n) * sigma / 20.0
    measured = np.mean(high > 0) + np.mean(low < 0) - 1.0
    assert abs(measured - gain) < 4 * math.sqrt(0.5 / n)
    assert downstream.type3_accuracy_gain(500.0, DELTA) > 10 * gain


def test_downstream_runs_each_mechanism_at_the_budget_of_its_true_epsilon():
    from ldp_companion.compare import downstream
    from ldp_companion.tldp import experiments as ex

    f1 = downstream.downstream_f1([1.0, 16.0], 2, 0, delta=DELTA, epochs=1)
    # TLDP-G reaches neither ε; TLDP-L, read at δ, only 16; Laplace and Gaussian both
    assert f1.groupby("mechanism")["epsilon"].unique().map(list).to_dict() == {
        "tldp_l": [16.0], "laplace": [1.0, 16.0], "gaussian": [1.0, 16.0]}
    assert len(f1) == 10
    task = ex.cached_task("digits", 0)
    for row in f1.itertuples():
        spent = catalogue.tensor_exact(row.mechanism, row.budget, task.tensor_shape,
                                       task.value_range, DELTA)
        assert spent == pytest.approx(row.epsilon, rel=1e-6)
    assert f1["f1"].between(0, 1).all()
    with pytest.raises(ValueError):
        downstream.downstream_f1([1.0], 1, 0, delta=DELTA, epochs=1)


def test_type3_sigma_spends_the_true_epsilon_on_one_batch_of_chapter_2():
    """s₂ = 2√(400 · 256) = 640: the noise that spends ε = 8 exactly; a mechanism of chapter 2
    that spends some ε adds at least that ε's noise in its least noisy direction."""
    from ldp_companion.compare import downstream
    from ldp_companion.tensor.calibration import gaussian_epsilon
    from ldp_companion.tvg.privacy import true_epsilon as tvg_eps
    from ldp_companion.tvg.privacy import worst_mu
    from ldp_companion.tvg.release import directional_noise

    assert downstream.TYPE3_SHAPE == (400, 256)
    sigma = downstream.type3_sigma(8.0, DELTA)
    assert gaussian_epsilon(640.0 / sigma, DELTA) == pytest.approx(8.0, rel=1e-6)
    assert gaussian_epsilon(320.0 / sigma, DELTA) < 5.0   # a range of 1, not 2: far off
    w = np.random.default_rng(3).standard_normal((120, 400))
    basis, s = directional_noise("mvg", w, downstream.TYPE3_SHAPE, 500.0, DELTA, value_range=2.0)
    spent = tvg_eps(worst_mu([(basis * s**2) @ basis.T, np.eye(256)], 640.0), DELTA)
    assert s.min() >= downstream.type3_sigma(spent, DELTA) * (1 - 1e-6)
    with pytest.raises(ValueError):
        downstream.type3_sigma(0.0, DELTA)
    assert downstream.type3_texts(8.0, DELTA) == {"shape": "400 × 256", "eps": "8",
                                                  "sigma": f"{sigma:.0f}", "paper": "100",
                                                  "gain": "4.2%"}


def test_the_table_s_bounds_hold_together(monkeypatch):
    """Bonferroni: m audits at 1 - 5 %/m each, so that all m bounds hold with 95 %; the table
    passes that confidence to every audit (a table at 95 % each had a correct mechanism's bound
    over its exact ε: Harmony, 2.00014 against 2)."""
    assert true_epsilon.family_confidence(1) == pytest.approx(blackbox.CONFIDENCE)
    assert true_epsilon.family_confidence(10) == pytest.approx(1 - (1 - blackbox.CONFIDENCE) / 10)
    seen = []
    real = blackbox.dp_sniper

    def spy(*args, confidence, **kwargs):
        seen.append(confidence)
        return real(*args, confidence=confidence, **kwargs)

    monkeypatch.setattr(blackbox, "dp_sniper", spy)
    table = true_epsilon.true_epsilon_table([1.0], n_audit=2_000, n_tensor=200, shape=(2, 2),
                                            value_range=RANGE, delta=DELTA,
                                            rng=np.random.default_rng(0))
    assert set(seen) == {true_epsilon.family_confidence(len(table))}


# --- chapter 3's multi-attribute mechanisms ----------------------------------------------------

def test_multi_attribute_mechanisms_spend_their_budget_exactly():
    """Lemma 12 (Alg. 6), Laplace at ε/d on d attributes, Duchi et al.'s split ties: ε each,
    from their exact laws (enumerated for Three-Outputs and Duchi)."""
    from ldp_companion.compare import multiattribute
    for eps in (0.5, 2.0, 6.0):                       # 6: Alg. 6 samples k = 2 of 4
        for entry in multiattribute.tuple_entries(eps):
            assert entry.exact == pytest.approx(eps, rel=1e-9), (entry.key, eps)
            assert entry.kind == "tuple" and entry.paper == "pm"


def test_a_multi_attribute_sampler_at_half_its_noise_is_flagged(monkeypatch):
    """Laplace at ε/d with half its scale spends 2 ε: the black-box bound on its own samples
    tops the claim, and the row fails."""
    from ldp_companion.compare import multiattribute
    from ldp_companion.pm import multidim

    def entry():
        return next(e for e in multiattribute.tuple_entries(1.0) if e.key == "laplace_split")

    assert true_epsilon._row(entry(), 200_000, np.random.default_rng(8))["verdict"] == "holds"
    monkeypatch.setattr(multidim, "_laplace_split", lambda X, eps, rng: X + rng.laplace(
        0.0, X.shape[1] / eps, size=X.shape))
    row = true_epsilon._row(entry(), 200_000, np.random.default_rng(8))
    assert row["black-box lower bound"] > 1.0 and row["verdict"] == "fails"


def test_the_decision_map_colours_no_winner_at_chance():
    """A row at chance is grey, labelled "–", and its best-by-mean mechanism gets no legend
    entry (it wins nothing); a row of only such cells still draws."""
    import matplotlib.pyplot as plt

    from ldp_companion.compare import downstream, figures
    rows = []
    for eps in (0.5, 1.0):
        rows.append({"task": "worst case", "epsilon": eps, "best": "pm", "winner": "pm",
                     "next": "hm", "lead": 0.05, "chance": np.nan})
        rows.append({"task": "digits", "epsilon": eps, "best": downstream.AT_CHANCE,
                     "winner": "laplace", "next": "gaussian", "lead": 0.3, "chance": 0.1})
    fig, caption, _ = figures.decision_figure(pd.DataFrame(rows))
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.texts]
    legend = [t.get_text() for lg in fig.legends for t in lg.get_texts()]
    assert labels.count("–") == 2 and labels.count("5%") == 2
    assert "none beats chance" in legend and "Laplace" not in legend
    assert "chance level digits: F1 0.100" in caption
    plt.close(fig)
    fig, _, _ = figures.decision_figure(pd.DataFrame([r for r in rows if r["task"] == "digits"]))
    plt.close(fig)


def test_the_dpsgd_row_s_exact_epsilon_is_its_sampler_s():
    """The row's exact ε lies in the range its sampler's measured noise gives (200,000 outputs
    per record); computed for a sensitivity of C instead of 2C (μ halved, the generated mutant
    that no claim caught), it falls outside and the claim fails."""
    from ldp_companion.compare import records, row_checks

    def verdict():
        table = row_checks.gaussian_record_rows([1.0], row_checks.RECORD_DRAWS,
                                                np.random.default_rng(7))
        led = Ledger("C-compare", refs={"true-eps-record-noise": ["Sec. C.2"]})
        row_checks.record_gaussian_record_rows(led, table, row_checks.RECORD_DRAWS)
        return led.table().iloc[0]["verdict"]

    assert verdict() == "holds"
    original = records.gaussian_epsilon
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(records, "gaussian_epsilon", lambda mu, delta: original(mu / 2, delta))
        assert verdict() == "fails"


def test_the_f1_row_s_false_winners_follow_bonferroni_s_law():
    """In simulated maps where no mechanism beats chance, the F1 decisions name a false winner
    as often as the exact law of their tests says (250 maps of each kind); with a cell of two
    mechanisms counted as one test (the generated mutant ``nunique() > 1`` → ``> 2`` that no
    claim caught), the two-mechanism maps' share doubles and the claim fails there."""
    from ldp_companion.compare import decision_checks
    from ldp_companion.verdicts.mutation_generated import applied_generated, describe

    def run():
        table = decision_checks.null_maps(0.1, np.random.default_rng(7))
        led = Ledger("C-compare", refs={"f1-null-maps": ["Sec. C.4"]})
        decision_checks.record_null_maps(led, table)
        return table.set_index("configuration"), led.table().iloc[0]["verdict"]

    table, verdict = run()
    assert verdict == "holds" and (table["largest p_lead"] < 1e-3).all()
    assert table["law"].to_numpy() == pytest.approx([1 - 0.8 ** 2, 0.2], rel=1e-12)
    mutant = "ldp_companion.compare.downstream:162:51:x2"
    assert "nunique() > 1" in describe(mutant)["code"]
    with applied_generated(mutant):
        broken, verdict = run()
    assert verdict == "partly"
    two = "one cell of two mechanisms"
    assert broken.loc[two, "z"] > 5 and broken.loc[two, "measured"] > 0.3


def test_null_f1_draws_the_maps_it_names():
    from ldp_companion.compare import decision_checks
    f1 = decision_checks.null_f1(2, 3, 4, 5, 0.1, np.random.default_rng(0))
    assert len(f1) == 2 * 3 * 4 * 5 and sorted(f1["mechanism"].unique()) == ["m0", "m1", "m2"]
    means = f1.groupby("mechanism")["f1"].mean()     # at chance, then at half of it
    assert means.to_numpy() == pytest.approx([0.1, 0.05, 0.05], abs=0.002)
    with pytest.raises(ValueError, match="chance"):
        decision_checks.null_f1(1, 1, 1, 2, 1.5, np.random.default_rng(0))
    with pytest.raises(ValueError):
        decision_checks.null_f1(0, 1, 1, 2, 0.1, np.random.default_rng(0))


# --- the pair of 8-bit images: chapter 1's, all 0 against all Δ − 1 ---------------------------

def test_the_largest_difference_of_8_bit_pixels_is_delta_minus_1():
    assert catalogue.largest_difference(RANGE) == 255.0
    assert catalogue.largest_difference(2) == 1.0
    for bad in (255.5, 1.0, 0.0, -3.0, math.nan, math.inf):
        with pytest.raises(ValueError, match="value_range"):
            catalogue.largest_difference(bad)
    with pytest.raises(ValueError, match="max_diff"):   # a pair wider than the calibration
        catalogue.tensor_exact("laplace", 1.0, SHAPE, RANGE, 0.0, RANGE + 1)


def test_c_judges_tensors_on_chapter_1_s_integer_pair():
    """8-bit pixels take the Δ = 256 levels 0, …, 255 (TLDP Table I); the noise is calibrated
    with Δ, the pair is chapter 1's: every black-box pair (the table's and the broken tensor's)
    has its entries in {0, …, 255}, and the exact ε is chapter 1's integer column
    (``laplace_true_epsilon`` with ``max_diff = Δ − 1``; TLDP-L on 28×28 at ε = 1: 781, not
    784): the Laplace baseline's pure ε (Lap(IΔ/ε) is TLDP-L's noise at budget ε/I), the
    budget that makes it spend a true ε, and TLDP-L's own where its privacy-loss
    distribution gives the pure ε (a loss over 30 per entry, ε ≥ 31, its kept entries far
    below δ)."""
    from ldp_companion.tldp import privacy

    d, size = catalogue.largest_difference(RANGE), 784
    assert privacy.laplace_true_epsilon(size, RANGE, 1.0, max_diff=d) == pytest.approx(781.0,
                                                                                       abs=0.5)
    broken = true_epsilon.broken_entries(1.0, RANGE, d)
    for eps in (0.5, 2.0):
        entries = {e.key: e for e in catalogue.tensor_entries(eps, SHAPE, RANGE, DELTA, d)}
        for entry in [*entries.values(), broken[0]]:
            for pair in entry.pairs:
                values = np.unique(np.concatenate([np.ravel(x) for x in pair]))
                assert set(values) <= set(range(256)) and values.max() == 255
        ch1 = privacy.laplace_true_epsilon(size, RANGE, eps / size, max_diff=d)
        assert entries["laplace"].delta == 0 and entries["laplace"].exact == pytest.approx(
            ch1, rel=1e-12)
        budget = utility.budget_for("laplace", eps, SHAPE, RANGE, 0.0, d)
        assert privacy.laplace_true_epsilon(size, RANGE, budget / size, max_diff=d) == \
            pytest.approx(eps, rel=1e-8)
    for eps in (31.0, 40.0):
        assert catalogue.tensor_exact("tldp_l", eps, SHAPE, RANGE, DELTA, d) == pytest.approx(
            privacy.laplace_true_epsilon(size, RANGE, eps, max_diff=d), rel=1e-12)
    assert broken[0].exact == pytest.approx(true_epsilon.NOISE_CUT * d / RANGE, rel=1e-12)
    # the pair all 0 / all Δ (a continuous range, the default; C's pair before) fails both
    old = next(e for e in catalogue.tensor_entries(1.0, SHAPE, RANGE, DELTA) if e.key == "laplace")
    assert old.pairs[0][1].max() == RANGE and old.exact == pytest.approx(1.0)
    assert old.exact != pytest.approx(privacy.laplace_true_epsilon(size, RANGE, 1.0 / size,
                                                                   max_diff=d), rel=1e-6)


def test_the_row_checks_use_the_same_pair():
    """The row checks judge the table's exact column on chapter 1's pair: TLDP-G's predicted ε
    is chapter 1's μ-GDP for entries differing by Δ − 1 (``gaussian_mu`` with ``max_diff``),
    and each Gaussian row's ε on it is below its ε for a continuous range of width Δ."""
    from ldp_companion.compare import row_checks
    from ldp_companion.tldp import privacy
    from ldp_companion.tvg import reference

    d = catalogue.largest_difference(RANGE)
    rows = row_checks.tensor_rows([1.0], SHAPE, RANGE, DELTA, np.random.default_rng(0), n=2,
                                  max_diff=d).drop_duplicates("mechanism").set_index("mechanism")
    np.testing.assert_allclose(rows["exact"], rows["predicted"], rtol=1e-6)
    mu = float(privacy.gaussian_mu(784, RANGE, 1.0, max_diff=d))
    assert rows.loc["tldp_g", "exact"] == pytest.approx(reference.gaussian_epsilon(mu, DELTA),
                                                        rel=1e-6)
    for key in row_checks.GAUSSIAN_ROWS:
        assert rows.loc[key, "exact"] < catalogue.tensor_exact(key, 1.0, SHAPE, RANGE, DELTA)


def test_the_page_passes_the_pair_to_every_tensor_call():
    """Every call of the page that judges or inverts a tensor mechanism's ε names the pair
    (``max_diff``): one left out would judge that part on a pair outside the 8-bit domain."""
    import re

    from ldp_companion.execution import runner

    source = runner.find_chapter("C-compare").read_text()
    calls = re.findall(r"\.(?:auditor_validation|true_epsilon_table|tensor_rows|tensor_errors|"
                       r"laplace_share)\((.*?)\)\n", source, re.S)
    assert len(calls) == 5
    assert all("max_diff" in call for call in calls), calls
    assert "max_diff = catalogue.largest_difference(cfg.value_range)" in source
