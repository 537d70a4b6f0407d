"""What chapter 1's page calls: the derivation checks (tldp.checks), their claims
(tldp.claims, tldp.experiment_claims), the tables (tldp.views) and the figures (tldp.figures).

The chapter's smoke run exercises all of it end to end; these tests pin the pieces against
closed forms and small hand-made grids."""
from __future__ import annotations

import math

import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")

from ldp_companion.tldp import algorithm as alg
from ldp_companion.tldp import analysis as an
from ldp_companion.tldp import checks, claims, error, figures, privacy, views
from ldp_companion.tldp import experiment_claims as fig_claims
from ldp_companion.tldp.items import CLAIM_KINDS, CLAIM_REFS
from ldp_companion.verdicts.ledger import Ledger


def _ledger():
    return Ledger("01-tldp", refs=CLAIM_REFS, kinds=CLAIM_KINDS)


def _verdicts(ledger):
    t = ledger.table()
    return dict(zip(t["claim_id"], t["verdict"]))


def test_ceilings_bound_the_dense_grid_and_hold_in_the_ledger():
    table = checks.ceiling_table()
    assert len(table) == 6 and (table["max p over ε"] <= table["ceiling"]).all()
    # the argmax of p_L is near the closed form 1/(I − 1) (digits: I = 64)
    row = table[(table["tensor"] == "digits 8×8") & (table["noise"] == "laplace")].iloc[0]
    assert row["at ε"] == pytest.approx(1 / 63, rel=2e-3)
    ledger = _ledger()
    claims.record_ceilings(ledger, table)
    assert set(_verdicts(ledger).values()) == {"holds"}
    assert checks.images_per_kept_pixel(table) == pytest.approx(
        1 / (784 * table["max p over ε"].iloc[2]))


def test_first_zero_is_where_p_underflows():
    e = checks.first_zero_epsilon(784)
    assert alg.retain_prob(784, 256.0, e) == 0.0
    assert alg.retain_prob(784, 256.0, e / 1.01) > 0.0


def test_proof_steps_match_the_closed_forms():
    steps = checks.proof_steps(1.0)
    # ln of the bound at t = 0 is IΔ/b = Iε; at t = 1 it is ε (the proof's own algebra)
    assert steps["log_bound_t0"] == pytest.approx(784.0)
    assert steps["log_bound_t1"] == pytest.approx(1.0, abs=1e-6)
    assert steps["log_all_kept"] < steps["log_none_kept"] == 0.0
    ledger = _ledger()
    claims.record_proof_steps(ledger, steps)
    assert _verdicts(ledger) == {"thm1-unperturbed": "fails", "thm1-t0": "fails"}


def test_accounting_is_i_epsilon_for_tldp_l():
    acct = checks.accounting_table([0.5, 1.0])
    assert acct["tldp_l"].tolist() == pytest.approx([392.0, 784.0])
    assert acct["tldp_l_int"].tolist() == pytest.approx([392.0 * 255 / 256, 784 * 255 / 256])
    assert acct["tldp_g_mu"].tolist() == pytest.approx(np.sqrt(2 * 784 * np.array([0.5, 1])))
    glued = checks.mnist_at_eps1()
    assert glued["tldp-true-l-mnist"] == pytest.approx(784 * 255 / 256)


def test_attack_of_the_baseline_stays_under_the_ceiling():
    pair = checks.image_pairs()["digits (Δ = 17)"]
    attack = checks.attack_table(pair, [1.0], 2_000, np.random.default_rng(0))
    assert list(attack["mechanism"]) == list(checks.ATTACK_MECHANISMS)
    se = checks.attack_standard_error(2_000)
    assert se == pytest.approx(1 / (2 * math.sqrt(4_000)))
    ledger = _ledger()
    claims.record_attack(ledger, attack, se)
    assert _verdicts(ledger) == {"thm1-attack": "fails", "thm2-baseline-attack": "holds"}


def test_keep_rates_follow_alg2():
    q, rates = checks.keep_rates(50_000, np.random.default_rng(1))
    assert q[-1] == 0.0 and rates[-1] == 0.0
    assert np.abs(np.array(rates) - q).max() < 4 * np.sqrt(q[0] / 50_000)


def test_same_outputs_and_weights_on_images():
    images = checks.mnist_unit_images(5)
    assert images.min() >= -1 and images.max() <= 1
    assert checks.same_outputs(images, [0.5, 2.0], seed=3) == [True, True]
    assert checks.weights_change_outputs(images).all()


def test_noise_ratio_is_two_over_root_epsilon():
    tv = pd.DataFrame({"epsilon": [0.5, 0.5, 2.0, 2.0],
                       "mechanism": ["tldp_l", "tldp_g", "tldp_l", "tldp_g"],
                       "monte carlo": [2 / math.sqrt(0.5), 1.0, 2 / math.sqrt(2.0), 1.0]})
    table = checks.noise_ratio_table(tv)
    assert table["Monte Carlo"].to_numpy() == pytest.approx(table["corrected: 2/√ε"])


def _grid(mechanisms, eps, f1, runs=3, task="digits", size=64):
    rows = [{"task": task, "mechanism": m, "epsilon": e, "run": r, "f1": f1(m, e, r),
             "tensor_size": size, "value_range": 2.0}
            for m in mechanisms for e in ([math.inf] if m == "none" else eps)
            for r in range(runs)]
    return pd.DataFrame(rows)


def _f1(m, e, r):
    base = {"none": 0.9, "tldp_l": 0.8, "tldp_g": 0.85, "tldp_l_w": 0.8, "tldp_g_w": 0.85}
    return base.get(m, 0.1) + 0.001 * r


def test_experiment_claims_on_a_made_up_grid():
    mechs = ["none", "tldp_l", "tldp_g", "tldp_l_w", "tldp_g_w", *an.BASELINES]
    type1 = _grid(mechs, [0.3, 3.0], _f1)
    ledger = _ledger()
    fig_claims.record_fig1(ledger, type1, [0.3, 3.0], ["digits"])
    v = _verdicts(ledger)
    assert v["fig1-tldp-beats"] == "holds" and v["fig1-g-beats-l"] == "holds"
    assert v["fig1-baselines-low"] == "holds"
    assert v["fig1-mnist-90"] == "not checked offline"
    assert an.clean_f1(type1)["digits"] == pytest.approx(0.901)
    assert an.mean_f1(type1, "tldp_g", "digits", 0.3) == pytest.approx(0.851)


def test_laplace_at_i_gap_matches_runs_back_to_nominal_epsilon():
    type1 = _grid(["tldp_l"], [0.5, 1.0], lambda m, e, r: 0.5 + r / 10)
    at_i = _grid(["laplace"], [64 * 0.5, 64 * 1.0], lambda m, e, r: 0.5 + r / 10)
    gap = an.laplace_at_i_gap(type1, at_i)
    assert gap.shape == (2, 3) and np.all(gap == 0)
    ledger = _ledger()
    fig_claims.record_fig1_true(ledger, gap)
    assert _verdicts(ledger)["fig1-true-eps"] == "holds"


def test_composed_table_orders_columns_by_epsilon():
    type3 = _grid(["tldp_l", "laplace"], [30.0, 1000.0], lambda m, e, r: 0.5, runs=1)
    type3["tensor_sizes"] = "10,2"
    table = an.composed_table(type3, [30.0, 1000.0], rounds=3)
    assert list(table.columns) == ["nominal ε = 30", "nominal ε = 1000"]
    assert table.loc[("digits", "laplace"), "nominal ε = 30"] == pytest.approx(3 * 2 * 30)
    assert table.loc[("digits", "tldp_l"), "nominal ε = 30"] == pytest.approx(3 * 12 * 30)


def test_views_show_readable_headers():
    html = views.f1_means(_grid(["none", "tldp_l", "tldp_l_w"], [0.5, 1.0], _f1),
                          "Fig. 1").to_html()
    assert "TLDP-L-w" in html and "tldp_l_w" not in html and "0.500000" not in html
    assert "no noise: digits 0.901" in html
    assert "TLDP-L, integers" in views.accounting(checks.accounting_table([1.0])).to_html()
    assert ">MobileNetV2 weights (ImageNet)</th>" in views.assets().to_html()


def test_figures_return_a_figure_with_caption_and_alt():
    table = checks.ceiling_table()
    shown = figures.retain_prob_curves(table, checks.first_zero_epsilon())
    assert shown.fig.axes and "MNIST" in shown.caption and shown.alt
    mechs = ["none", "tldp_l", "tldp_g", "tldp_l_w", "tldp_g_w", *an.BASELINES]
    shown = figures.fig1_panels(_grid(mechs, [0.3, 3.0], _f1), runs=3)
    assert len(shown.fig.axes) == 2  # one task: the baselines row and the weights row
    assert max(len(ax.get_legend_handles_labels()[1]) for ax in shown.fig.axes) <= 6
    matplotlib.pyplot.close("all")


# --- Issue 44: independent checks of numbers the generated mutants found unread --------------

def _gap_claims(acct, glued, brute, ratio=None, tv=None):
    ledger = _ledger()
    claims.record_integer_epsilon(ledger, acct, glued, brute)
    claims.record_atom_delta(ledger, glued, checks.atom_delta_exact(epsilon=1.0))
    if ratio is not None:
        claims.record_noise_ratio(ledger, ratio, tv, 300)
    return _verdicts(ledger)


def test_the_brute_force_true_epsilon_is_the_integer_column():
    # the all-0 against the all-255 MNIST image: I(Δ − 1)ε/Δ, to rounding, from 100 outputs
    brute = checks.integer_pair_epsilon([0.5, 1.0], checks.PAIR_DRAWS, np.random.default_rng(3))
    assert brute == pytest.approx(784 * 255 / 256 * np.array([0.5, 1.0]), rel=1e-12)
    with pytest.raises(TypeError, match="n must be an integer"):
        checks.integer_pair_epsilon([1.0], 1.5, np.random.default_rng(3))
    with pytest.raises(ValueError, match="epsilon"):
        checks.integer_pair_epsilon([0.0], 10, np.random.default_rng(3))


def test_the_integer_column_with_the_range_s_width_fails_the_brute_force():
    """The generated mutant checks:120:74:x0.5 (``max_diff = Δ − 1`` written ``Δ − 0``) made
    the table's integer column Iε, the continuous one; the brute force tells it (the prose's
    number at ε = 1, still right, keeps the verdict at partly)."""
    eps = [0.1, 1.0, 10.0]
    acct, glued = checks.accounting_table(eps), checks.mnist_at_eps1()
    brute = checks.integer_pair_epsilon([*eps, 1.0], checks.PAIR_DRAWS,
                                        np.random.default_rng(0))
    assert _gap_claims(acct, glued, brute)["thm1-true-eps-l-brute"] == "holds"
    mutated = acct.assign(tldp_l_int=privacy.laplace_true_epsilon(784, 256.0, eps,
                                                                  max_diff=256.0))
    assert _gap_claims(mutated, glued, brute)["thm1-true-eps-l-brute"] == "partly"
    with pytest.raises(ValueError, match="brute must hold 4 values"):
        _gap_claims(acct, glued, brute[:-1])


def test_the_atom_delta_is_exact_and_tells_another_epsilon(monkeypatch):
    """log₁₀ δ of an MNIST image at ε = 1 is log₁₀ 784 − 342.76 (the brief's log₁₀ p); the
    generated mutant checks:133:53:x0.5 (the glued δ computed at ε = 0.5) fails the claim."""
    assert checks.atom_delta_exact(1.0) == pytest.approx(math.log10(784) - 342.76, abs=0.01)
    with pytest.raises(ValueError, match="epsilon"):
        checks.atom_delta_exact(-1.0)
    acct = checks.accounting_table([1.0])
    brute = np.full(2, 784 * 255 / 256)
    assert _gap_claims(acct, checks.mnist_at_eps1(), brute)["thm1-atom-delta"] == "holds"
    original = alg.log_retain_prob
    monkeypatch.setattr(alg, "log_retain_prob",
                        lambda size, d, eps, noise="laplace": original(size, d, eps / 2, noise))
    glued = checks.mnist_at_eps1()
    assert glued["tldp-log10-atom-delta"] < -170
    assert _gap_claims(acct, glued, brute)["thm1-atom-delta"] == "fails"


def test_the_noise_ratio_claim_tells_a_halved_or_constant_ratio():
    """The corrected 2/√ε against the Monte Carlo ratio (300 MNIST-shaped tensors per cell)
    holds; halved (the generated mutant checks:305:47:x0.5) or Table V's constant 2√2 (at
    ε ≠ ½) it fails."""
    rng = np.random.default_rng(5)
    tv = pd.DataFrame([
        {"epsilon": e, "mechanism": m,
         **dict(zip(["monte carlo", "mc s.e."],
                    error.monte_carlo_error(m, (28, 28), 256.0, e, 300, rng)))}
        for e in (1.0, 2.0, 8.0) for m in ("tldp_l", "tldp_g")])
    ratio = checks.noise_ratio_table(tv)
    acct, glued = checks.accounting_table([1.0]), checks.mnist_at_eps1()
    brute = np.full(2, 784 * 255 / 256)

    def verdict(table):
        return _gap_claims(acct, glued, brute, table, tv)["table5-l-over-g"]

    assert verdict(ratio) == "holds"
    corrected = "corrected: 2/√ε"
    assert verdict(ratio.assign(**{corrected: ratio[corrected] / 2})) == "fails"
    assert verdict(ratio.assign(**{corrected: ratio["Table V: 2√2"]})) == "fails"
