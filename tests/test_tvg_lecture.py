"""Chapter 2 (TVG): the package functions the chapter page calls (checks of the derivations,
Table IV, the run summaries, the figures and the claims' recording), on small inputs."""
from __future__ import annotations

import math
from types import SimpleNamespace

import matplotlib
import numpy as np
import pandas as pd
import pytest

from ldp_companion.page.tables import raw_labels
from ldp_companion.tvg import (
    alg1_checks,
    algebra_checks,
    bounds,
    covariance,
    figure_claims,
    figures,
    noise,
    release,
    results,
    setting_tables,
    table4,
)
from ldp_companion.tvg import calibration_checks as cal
from ldp_companion.tvg import theorem_checks as thm
from ldp_companion.tvg.items import CLAIM_KINDS, CLAIM_REFS
from ldp_companion.verdicts.ledger import Ledger

matplotlib.use("Agg")
DELTA = 1e-5


def _ledger():
    return Ledger("02-tvg", refs=CLAIM_REFS, kinds=CLAIM_KINDS)


def _verdicts(ledger):
    return dict(zip(ledger.table()["claim_id"], ledger.table()["verdict"]))


# --- derivations -------------------------------------------------------------------------

def test_algebra_checks_find_round_off_only():
    rng = np.random.default_rng(0)
    alg = algebra_checks.lemma1_check(rng)
    assert max(alg["lemma1_err"]) < 1e-12 and alg["index_err"] == 0
    assert alg["eq9"] == pytest.approx(alg["ref9"], abs=1e-9)
    mode = algebra_checks.mode_covariance_check(rng, alg["shape"], alg["spd"], 4000)
    assert max(mode["mode_err"]) < 6 * math.sqrt(2 / 4000) and mode["same"] < 1e-12
    lemma2 = algebra_checks.lemma2_check(rng, 50)
    assert max(lemma2["ratios"]) <= 1 + 1e-12
    lhs = algebra_checks.reshape_check(rng)
    assert np.ptp(lhs) < 1e-12 * lhs[0]
    led = _ledger()
    algebra_checks.record_lemma1(led, alg)
    algebra_checks.record_lemma3(led, algebra_checks.lemma3_table(DELTA), DELTA)
    assert set(_verdicts(led).values()) == {"holds"}


def test_lemma3_table_tail_is_below_delta_at_every_size():
    table = algebra_checks.lemma3_table(DELTA, sizes=(1, 100, 10_000))
    assert list(table.index) == [1, 100, 10_000]
    assert (table["Pr[‖N‖² > ζ²]"] <= DELTA).all() and (table["ζ(δ)² / I"] > 1).all()


def test_theorem_checks_audit_sound_but_loose_noise():
    rng = np.random.default_rng(1)
    audit = thm.boundary_audit(rng, DELTA, shapes=[(2, 3)], epsilons=(1.0,))
    assert audit["Π tr Σₖ⁻¹"].iloc[0] == pytest.approx(audit["B"].iloc[0], rel=1e-12)
    assert 0 < audit["true ε"].iloc[0] <= 1.0
    tight = thm.tightness_table(DELTA, sizes=(1, 1000))
    assert tight["TVG (isotropic) / Gaussian"].iloc[-1] > 10          # grows like I
    assert (thm.flattened_epsilon_ratios(DELTA, shapes=[(4, 4)], epsilons=(1.0,)) > 1).all()
    assert thm.uneven_udn_epsilon(DELTA) <= 1.0
    idn = thm.idn_audit(DELTA)
    assert idn["true_eps"][("consistent", "whole tensor")] <= 1.0
    assert idn["true_eps"][("literal", "one record")] > 100            # the printed ŝ₂
    assert list(thm.idn_audit_table(idn).columns)[0] == "σ per entry"


def test_mvg_ratio_and_renyi_checks():
    mvg = thm.mvg_ratio_table(DELTA, shapes=[(28, 10)])
    assert mvg.iloc[0, 0] == pytest.approx(mvg.iloc[0, 1], rel=0.01)
    check = thm.renyi_check(np.random.default_rng(2))
    assert np.all(check["exact"] <= check["paper"])
    assert check["exact"] == pytest.approx(check["orders"] * check["mu"] ** 2 / 2, rel=1e-6)


def test_udn_and_idn_cases_draw_from_the_calibration_generator():
    a = thm.udn_cases(np.random.default_rng([0, 2]))
    b = thm.udn_cases(np.random.default_rng([0, 2]))
    assert np.array_equal(a[2][1], b[2][1]) and a[2][1].shape == (60, 40)
    assert thm.idn_cases(np.random.default_rng(0))[2][1].shape == (120, 400)


def test_alg1_checks_reach_the_optimum_and_eq29():
    rng = np.random.default_rng(3)
    opt = alg1_checks.optimum_check(rng)
    assert opt["computed"] == pytest.approx(opt["expected"], rel=1e-6)
    assert alg1_checks.idn_udn_worst_ratio(rng, 30) <= 1 + 1e-12
    eq29 = alg1_checks.eq29_check(rng, opt["w5"], 4000)
    assert eq29["with_factor"] == pytest.approx(12 * eq29["formula"])   # I/I₁ = 12
    assert abs(eq29["mc"] - eq29["with_factor"]) < 4 * eq29["se"]     # Eq. 29 lacks it
    general = alg1_checks.reshape_errors(rng)
    udn = alg1_checks.udn_shape_errors(DELTA)
    assert np.ptp(general) < 1e-9 * general[0]
    assert udn[0] / udn[-1] == pytest.approx(60)     # UDN's error grows with I₁: not shape-free


def test_private_budgets_are_the_public_ones_and_public_ones_refuse():
    assert bounds._budget(105, 2.0, 1.0, DELTA) == bounds.budget(105, 2.0, 1.0, DELTA)
    assert bounds._idn_budget((5, 7, 3), 2.0, 1.0, DELTA) == bounds.idn_budget(
        (5, 7, 3), 2.0, 1.0, DELTA)
    with pytest.raises(ValueError, match="convention"):
        bounds.idn_budget((5, 7), 2.0, 1.0, DELTA, "printed")
    with pytest.raises(ValueError, match="convention"):
        noise.entry_std("idn", (5, 7), 1.0, DELTA, value_range=2.0, shat="printed")
    with pytest.raises(ValueError):
        release.directional_release("udn", np.zeros((4, 3)), np.eye(4), -1.0,
                                    rng=np.random.default_rng(0), value_range=2.0)


# --- Table IV ----------------------------------------------------------------------------

def test_error_sweeps_measure_table4_orders():
    sweeps = {"I₁ = I₂": [(2**k, 2**k) for k in range(3, 7)]}
    curves, slopes = table4.error_sweeps(DELTA, sweeps=sweeps)
    assert 2.5 < slopes.loc["idn", "I₁ = I₂"] < 3.0      # O(I³), approached from below
    assert slopes.loc["gauss_paper", "I₁ = I₂"] == pytest.approx(3.0, abs=1e-9)
    assert list(slopes.index[:3]) == ["tvg", "udn", "udn claimed"]
    assert len(curves[("I₁ = I₂", "idn")][0]) == 4
    fig, caption = figures.table4_figure(curves, slopes, sweeps, table4.MECHANISMS)
    assert f"IDN {slopes.loc['idn'].mean():.2f}" in caption and len(fig.axes) == 1


def test_paper_shape_stds_and_their_table():
    stds = table4.paper_shape_stds(DELTA)
    assert list(stds.index) == table4.STD_ORDER and list(stds.columns) == list(
        table4.PAPER_SHAPES)
    led = _ledger()
    over = table4.record_paper_shapes(led, stds)
    assert _verdicts(led) == {"table4-idn-gauss": "holds", "tvg-vs-gaussian": "fails"}
    assert 1 < over["over_min"] <= over["over_max"] and over["shapes"] == 7
    html = table4.std_table(stds, "noise at the paper's shapes").to_html()
    assert "4.38e6" in html and "padding" in html and not raw_labels(stds.rename(
        index=table4.std_labels()).index)


@pytest.mark.parametrize("x, text", [(4.3812e6, "4.38e6"), (0.012345, "0.0123"),
                                     (12.0, "12"), (2.5e-7, "2.5e-7")])
def test_short_number(x, text):
    assert table4.short_number(x) == text


# --- runs, figures and claims ------------------------------------------------------------

def _runs(metric="accuracy", gap=0.3):
    """A fake grid: IDN above the Gaussian above UDN above MVG by ``gap`` at ε = 100."""
    rows = []
    score = {"idn": 0.9, "idn_iid": 0.8, "gauss_paper": 0.9 - gap, "udn": 0.9 - 2 * gap,
             "mvg": 0.9 - 2.5 * gap, "gauss_analytic": 0.95}
    for run in range(3):
        rows.append({"task": "t", "mechanism": "none", "epsilon": math.inf, "run": run,
                     metric: 0.97})
        for m, s in score.items():
            for eps in (1.0, 100.0):
                value = s if eps == 100.0 else 0.1
                rows.append({"task": "t", "mechanism": m, "epsilon": eps, "run": run,
                             metric: value + 0.001 * run})
    return pd.DataFrame(rows)


def test_results_summaries():
    runs = _runs()
    table = results.mean_table(runs, "accuracy", ["udn", "idn"])
    assert list(table.index) == ["udn", "idn"] and list(table.columns) == [1.0, 100.0]
    assert results.clean_score(runs, "accuracy") == pytest.approx(0.97)
    assert results.mean_at(runs, "idn", 100.0) == pytest.approx(0.901)
    assert results.best_mean(runs, 100.0) == pytest.approx(0.951)
    assert results.first_off_chance(runs, 0.15) == "ε = 100"
    assert results.first_off_chance(runs[runs["epsilon"] < 10], 0.15) == "none"
    assert "IDN" in results.means_view(runs, "accuracy", ["idn"], "means").to_html()


def test_figure_claims_read_the_runs():
    runs = _runs()
    led = _ledger()
    figure_claims.record_fig5(led, runs, results.best_mean(runs, 100.0), 100.0)
    figure_claims.record_fig4(led, runs, [1.0, 100.0], 100.0)
    verdicts = _verdicts(led)
    assert verdicts["fig5-idn-best"] == "holds" and verdicts["fig5-udn-mvg"] == "holds"
    assert verdicts["fig5-chance"] == "holds" and verdicts["fig4-fair-gauss"] == "fails"
    led = _ledger()
    figure_claims.record_paper_sgd(led, None, {"mnist": ["a", "b"]})
    figure_claims.record_paper_networks(led, None, {})
    notes = led.table().set_index("claim_id")["note"]
    assert "mnist (2)" in notes["fig3-other-data"]
    assert "paper_tasks" in notes["fig45-other-data"]


def test_ctg_grid_and_figure():
    x = np.random.default_rng(4).uniform(-1, 1, size=(200, 4))
    runs = covariance.ctg_grid(x, covariance.CTG_MECHANISMS, [1.0, 10.0], 2, DELTA,
                               rng=np.random.default_rng(5))
    again = covariance.ctg_grid(x, covariance.CTG_MECHANISMS, [1.0, 10.0], 2, DELTA,
                                rng=np.random.default_rng(5))
    assert len(runs) == 7 * 2 * 2 and runs.equals(again) and (runs["rss"] > 0).all()
    fig, caption = figures.ctg_figure(runs, [1.0, 10.0])
    assert len(fig.axes) == 2 and "over 2 draws" in caption and "of 2 ε" in caption
    led = _ledger()
    figure_claims.record_ctg(led, runs, DELTA, np.random.default_rng(6))
    assert set(_verdicts(led)) == {"fig5-ctg-idn", "fig5-ctg-jl-mm", "fig5-ctg-fair-gauss",
                                   "fig5-jl-unbiased"}


def _jl_mutant(power: int, sign: int):
    """``jl_covariance`` with its bias correction ``− w²I`` turned to ``+ sign·w^power I``:
    ``(2, +1)`` and ``(4, −1)`` are the generated mutants ``covariance:100:30:swap`` and
    ``covariance:100:33:x2`` (``w`` as Blocki et al. and the function compute it)."""
    original = covariance.jl_covariance

    def jl_covariance(x, epsilon, delta=1e-5, *, rng, rows):
        n, d = np.shape(x)
        w = 16 * math.sqrt(rows * math.log(2 / delta)) * math.log(16 * rows / delta) / epsilon
        out = original(x, epsilon, delta, rng=rng, rows=rows)
        return out + d / n * (w**2 + sign * w**power) * np.eye(d)
    return jl_covariance


def test_the_jl_baseline_s_mean_is_the_covariance_it_estimates():
    """fig5-jl-unbiased: the mean of 2,000 JL releases per ε matches XᵀX/N on the code as
    written; with the correction's sign swapped (+w²I) or written w⁴I, the two generated
    mutants no claim caught, every ε fails."""
    def verdict():
        led = _ledger()
        cal.record_jl_unbiased(led, cal.jl_mean([1.0, 1e3], DELTA, np.random.default_rng(8)))
        return _verdicts(led)["fig5-jl-unbiased"]

    assert verdict() == "holds"
    for power, sign in ((2, 1), (4, -1)):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(covariance, "jl_covariance", _jl_mutant(power, sign))
            assert verdict() == "fails"


def test_jl_mean_checks_its_arguments():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=r"\(N, d\)"):
        cal.jl_mean([1.0], DELTA, rng, shape=(12, 4, 1))
    with pytest.raises(ValueError, match="N >= d"):
        cal.jl_mean([1.0], DELTA, rng, shape=(3, 4))
    with pytest.raises(ValueError, match="draws"):
        cal.jl_mean([1.0], DELTA, rng, draws=1)
    with pytest.raises(ValueError, match="eps_grid"):
        cal.jl_mean([0.0], DELTA, rng)
    with pytest.raises(TypeError, match="rng"):
        cal.jl_mean([1.0], DELTA, 0)


def test_setting_tables_follow_the_parameters():
    cfg = SimpleNamespace(mnist_images="test", n_train_3=10, n_test_3=20, n_public_2=30,
                          n_private_2=40, clip_1=1.0, lot_1=64, epochs_1=5, epochs_3=1,
                          head_epochs_2=2, n_jobs=1)
    mnist, sizes, message = setting_tables.mnist_setup(cfg)
    assert mnist == "test" and message is None and sizes["n_private_2"] == 40
    kw = setting_tables.grid_options(cfg, mnist, sizes)
    assert kw["III"]["n_train"] == 10 and kw["II"]["n_private"] == 40 and kw["I"]["lot"] == 64
    # one type's options read that type's parameters only: a timing record charges the cell
    # that runs Type III's grid what it reads (Type II's head epochs made chapter 2's paper
    # projection 6x too long)
    read = []

    class Recording(SimpleNamespace):
        def __getattribute__(self, name):
            read.append(name)
            return super().__getattribute__(name)

    assert setting_tables.grid_options(Recording(**vars(cfg)), mnist, sizes, "III") == kw["III"]
    assert set(read) == {"epochs_3", "n_jobs"}
    table = setting_tables.settings_table(cfg, mnist, sizes)
    assert "30 public images" in table.loc["Type II (Fig. 4)", "this chapter"]
