"""Chapter 3's claim-recording and figure functions (ldp_companion.pm.*_checks, worst_case,
figures): each records the verdict a correct input deserves and the opposite one on a broken
input; the chapter's smoke run covers them end to end."""
from __future__ import annotations

import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from ldp_companion.mechanisms.compare import not_lowest, worst_case_table
from ldp_companion.page.tables import raw_labels
from ldp_companion.pm import discretization_checks as dc
from ldp_companion.pm import fedsgd_checks as fc
from ldp_companion.pm import figures
from ldp_companion.pm import lemma_checks as lc
from ldp_companion.pm import mean_checks as mean
from ldp_companion.pm import mechanism_checks as mc
from ldp_companion.pm import multiattribute_checks as mac
from ldp_companion.pm import references as refs
from ldp_companion.pm import worst_case as wcc
from ldp_companion.pm.items import CLAIM_REFS
from ldp_companion.verdicts.ledger import Ledger


def _ledger():
    return Ledger("03-pm-three-outputs", refs=CLAIM_REFS)


def _verdicts(ledger):
    return dict(zip(ledger.table()["claim_id"], ledger.table()["verdict"]))


# --------------------------------------------------------------------------- references

def test_reference_tables_have_the_paper_shapes():
    assert refs.fig1_printed().shape == (9, 8)
    assert list(refs.fig1_printed().columns) == wcc.MECHS
    assert refs.lemma4_reference().index.name == "epsilon"
    assert list(refs.discretized_reference().columns)[-1] == "continuous"
    assert all(c.bracket[0] < c.rebuilt < c.bracket[1] for c in refs.CROSSINGS)


# --------------------------------------------------------------------------- mechanisms

def test_constants_table_at_eps1():
    t = mc.constants_table(1.0)["ε = 1"]
    assert t["PM t"] == pytest.approx(np.exp(0.5))
    assert t["PM-SUB t"] == pytest.approx(np.exp(1 / 3))
    assert t["Duchi C"] == pytest.approx((np.e + 1) / (np.e - 1))
    with pytest.raises(ValueError):
        mc.constants_table(-1.0)


def test_exact_ldp_holds_and_fails_on_a_wrong_claim():
    audits = mc.exact_audit_table(["duchi", "pm"], [1.0])
    led = _ledger()
    mc.record_exact_ldp(led, audits)
    assert _verdicts(led) == {"ldp-duchi": "holds", "ldp-pm": "holds"}
    led = _ledger()
    mc.record_exact_ldp(led, audits.assign(**{"audited ε": 1.2}))
    assert set(_verdicts(led).values()) == {"fails"}


def test_empirical_ldp_flags_a_bound_above_its_claim():
    emp = pd.DataFrame({"mechanism": ["pm", "pm", "duchi"], "claimed ε": [1.0, 2.0, 1.0],
                        "audited lower bound": [0.9, 1.9, 0.8]})
    led = _ledger()
    mc.record_empirical_ldp(led, emp, 1000)
    assert _verdicts(led)["ldp-empirical"] == "holds"
    led = _ledger()
    mc.record_empirical_ldp(led, emp.assign(**{"audited lower bound": [0.9, 2.1, 0.8]}), 1000)
    assert _verdicts(led)["ldp-empirical"] != "holds"
    assert "PM" in led.table().set_index("claim_id").loc["ldp-empirical", "ours"]


def test_moments_hold_for_the_samplers():
    moments = mc.moment_table(["duchi", "pm_sub"], [1.0], np.array([0.0, 1.0]), 5000,
                              np.random.default_rng(0))
    assert len(moments) == 4 and moments["law mean error"].max() < 1e-9
    led = _ledger()
    resolution = mc.record_moments(led, moments, 5000)
    assert _verdicts(led) == {"moments-law": "holds", "moments-mc": "holds"}
    assert 0 < resolution < 1
    assert list(mc.moment_summary(moments).index) == ["Duchi", "PM-SUB"]


def test_variance_at_eps1_matches_the_reference():
    ref, ours = mc.variance_at_eps1()
    led = _ledger()
    mc.record_variance_eps1(led, ref, ours)
    mc.record_fig4(led, mc.density_gaps(1.0, 0.5), 1.0, 0.5)
    assert set(_verdicts(led).values()) == {"holds"}


# --------------------------------------------------------------------------- lemmas

def test_lemma_checks_hold_on_the_package():
    led = _ledger()
    ref4, ours4 = lc.lemma4_tables()
    lc.record_lemma4_table(led, ref4, ours4)
    lc.record_lemma4_continuity(led)
    lc.record_lemma7(led, lc.lemma7(40))
    lc.record_lemma4_thresholds(led)
    assert set(_verdicts(led).values()) == {"holds"}
    led = _ledger()
    lc.record_lemma4_table(led, ref4, ours4 * 1.01)
    assert _verdicts(led)["lemma4-table"] != "holds"  # the zero entries stay zero


def test_lemma1_fails_when_symmetrising_raises_the_variance():
    sym = lc.symmetrisation_table([1.0], np.random.default_rng(0), repeats=2)
    assert len(sym) == 2
    led = _ledger()
    lc.record_lemma1(led, sym)
    assert _verdicts(led)["lemma1"] == "holds"
    led = _ledger()
    worse = sym.assign(**{"worst Var (symmetrised)": sym["worst Var (LP mechanism)"] * 1.1})
    lc.record_lemma1(led, worse)
    assert _verdicts(led)["lemma1"] == "fails"


def test_lemma3_increasing_reads_the_table():
    vb = pd.DataFrame({"b": [0.1, 0.2, 0.3], "feasible": [True, True, False],
                       "increasing_all_x": [True, True, False],
                       "worst_variance": [1.0, 2.0, 0.5]})
    assert lc.lemma3_increasing(vb)
    assert not lc.lemma3_increasing(vb.assign(worst_variance=[2.0, 1.0, 0.5]))


# --------------------------------------------------------------------------- Fig. 1, Tables I–II

def test_worst_case_claims_hold_on_the_closed_forms():
    wc = worst_case_table(wcc.MECHS, np.geomspace(0.05, 8.0, 60))
    led = _ledger()
    assert wcc.record_fig1_values(led) == []
    table = wcc.record_crossings(led)
    assert len(table) == len(refs.CROSSINGS) and table["ours"].notna().all()
    wcc.record_three_outputs_leaves_duchi(led, wc)
    wcc.record_orderings(led, wc)
    gaps = wcc.record_hmtp_lowest(led, wc)
    v = _verdicts(led)
    assert v.pop("hmtp-lowest") == "partly" and set(v.values()) == {"holds"}
    assert len(gaps) >= 1 and wcc.intervals_text(gaps) != "none"
    assert not raw_labels(wcc.gaps_table(gaps).columns)
    assert wcc.intervals_text(gaps.iloc[:0]) == "none"


def test_orderings_fail_when_pm_sub_is_swapped_with_pm():
    wc = worst_case_table(wcc.MECHS, np.geomspace(0.05, 8.0, 30))
    led = _ledger()
    wcc.record_orderings(led, wc.rename(columns={"pm": "pm_sub", "pm_sub": "pm"}))
    assert _verdicts(led)["pmsub-beats-pm"] == "fails"


# --------------------------------------------------------------------------- Alg. 5

def test_discretization_claims():
    ref, disc = dc.worst_case_tables()
    led = _ledger()
    dc.record_disc_table(led, ref, disc)
    dc.record_lemma9(led, disc)
    dc.record_lemma8(led, dc.pmf_table([1.0], [3, 5]))
    dc.record_fig15(led, disc, 4.0)
    assert set(_verdicts(led).values()) == {"holds"}
    mcs = dc.disc_moment_table([1.0], (3, 11), np.array([0.0, 1.0]), 4000,
                               np.random.default_rng(1))
    assert len(mcs) == 2 * 2 * 2
    dc.record_disc_mc(led, mcs, (3, 11), 4000)
    assert _verdicts(led)["disc-mc"] == "holds"


# --------------------------------------------------------------------------- many attributes

def test_multiattribute_claims():
    led = _ledger()
    arg = mac.k_rule_table()
    mac.record_eq36(led, arg)
    ratios = mac.alg6_ratio_table(ds=(2,), eps_grid=(4.0,))
    assert ratios.loc[0, "k"] == 1
    mac.record_lemma12(led, ratios)
    table = mac.duchi_md_table(4)
    mac.record_duchi_md(led, table)
    v = _verdicts(led)
    assert v.pop("eq36-argmin") == "partly"  # 2.5 is not HM-TP's argmin (the chapter's finding)
    assert set(v.values()) == {"holds"}
    assert (table.loc[[2, 4], "ties in T−"] > 1).all()


# --------------------------------------------------------------------------- mean estimation

def _expected(values: dict) -> pd.DataFrame:
    idx = pd.MultiIndex.from_tuples([("A", 0.5), ("A", 4.0)], names=["dataset", "epsilon"])
    return pd.DataFrame(values, index=idx)


def test_mean_orderings_and_lowest_table():
    base = {"laplace_split": [9.0, 5.0], "duchi_md": [8.0, 4.0], "duchi": [2.0, 3.0],
            "pm": [3.0, 1.0], "hm": [2.0, 0.9], "three_outputs": [2.0, 1.5],
            "pm_sub": [2.5, 0.8], "hm_tp": [2.0, 0.7]}
    led = _ledger()
    mean.record_mse_orderings(led, _expected(base), [0.5, 4.0])
    assert set(_verdicts(led).values()) == {"holds"}
    low = mean.lowest_table(_expected(base))
    assert low.loc["A", 0.5] == "Duchi = HM = Three-Outputs = HM-TP"
    assert low.loc["A", 4.0] == "HM-TP"
    led = _ledger()
    mean.record_fig11(led, _expected({**base, "hm_tp": [2.0, 0.95]}), 11)
    assert _verdicts(led)["fig11-hmtp-all"] == "partly"


def test_mse_cells_and_the_analytic_check():
    df = pd.DataFrame({"dataset": "A", "mechanism": ["pm"] * 5 + ["hm"] * 5, "epsilon": 1.0,
                       "mse": [0.9, 1.1, 1.0, 1.05, 0.95, 0.92, 1.08, 1.0, 1.02, 0.97],
                       "expected_mse": 1.0})
    cells = mean.mse_cells(df)
    assert cells.loc[1, "mse"] == pytest.approx(1.0) and cells.loc[0, "expected"] == 1.0
    led = _ledger()
    mean.record_mse_analytic(led, cells, 5)
    mean.record_mse_analytic(led, cells.assign(expected=2.0), 5, claim_id="fig11-mse-analytic",
                             section="pm-fig12", discretized_note=True)
    assert _verdicts(led) == {"mse-analytic": "holds", "fig11-mse-analytic": "fails"}


def test_discretized_mechanism_sets():
    mechs = mean.with_discretization(mean.MEAN_MECHS, 5)
    assert mechs["duchi"] == "duchi" and callable(mechs["pm"])
    assert mechs["pm_sub"](1.0).n_outputs == 5
    assert list(mean.outputs_mechanisms([3, 5]))[-2:] == ["continuous", "Three-Outputs"]
    assert list(fc.outputs_mechanisms([3, 5])) == ["3", "5", "continuous"]


# --------------------------------------------------------------------------- LDP-FedSGD

def _fed(proposed_error=0.2):
    rows = []
    for task in ("linear regression (MSE)", "logistic"):
        for eps in (0.5, 4.0):
            for seed in range(3):
                for m in fc.FED_MECHS:
                    err = {"non_private": 0.05, "laplace_split": 50.0}.get(
                        m, proposed_error if m in fc.PROPOSED else 0.4)
                    err = err * (2.0 if eps == 0.5 else 1.0) * (1 + 0.01 * seed)
                    rows.append({"task": task, "mechanism": m, "epsilon": eps, "seed": seed,
                                 "error": err})
    return pd.DataFrame(rows)


def test_erm_claims_on_a_table_where_the_proposed_mechanisms_win_and_lose():
    led = _ledger()
    table = fc.record_erm(led, _fed(), "linear regression (MSE)")
    assert set(_verdicts(led).values()) == {"holds"}
    assert not raw_labels(table.columns) and set(table["best proposed"]) == {"PM-SUB"}
    led = _ledger()
    fc.record_erm(led, _fed(proposed_error=0.8), "linear regression (MSE)")
    assert _verdicts(led)["erm-proposed-better"] == "fails"
    top = fc.top_epsilon_errors(_fed())
    assert "PM-SUB" in top.index and top.shape[1] == 2


def test_fig12_13_similar_and_fig14():
    fed = _fed()
    disc = fed[fed["mechanism"].isin(["duchi_md", "three_outputs", *mean.CONTINUOUS])]
    led = _ledger()
    gap = fc.record_fig12_13(led, fed, disc.assign(error=disc["error"] * 1.02),
                             mean.CONTINUOUS, 11)
    assert _verdicts(led) == {"fig12-13-proposed-better": "holds", "fig12-13-similar": "holds"}
    assert gap.abs().max() == pytest.approx(0.02)
    fig14 = pd.DataFrame({"task": "t", "mechanism": ["3", "11", "continuous"] * 3,
                          "seed": np.repeat([0, 1, 2], 3),
                          "error": [0.5, 0.3, 0.29, 0.52, 0.31, 0.3, 0.49, 0.3, 0.28]})
    t14 = fc.record_fig14(led, fig14, [3, 11], 4.0)
    assert list(t14.columns) == ["3", "11", "continuous"]
    assert _verdicts(led)["fig14"] == "holds"


def test_the_budget_share_is_measured_from_the_runs():
    """fig6-budget-share holds for the stand-ins as written; the WISDM-like task's numeric
    share 3/10 instead of 3/5 (the generated mutant that no claim caught) fails it: its runs'
    MSE is several standard errors above the closed form at the paper's share."""
    from dataclasses import replace

    from ldp_companion.pm import experiments as ex

    def verdict():
        tasks = mean.stand_in_tasks(5_000, np.random.default_rng(2))[:1]  # WISDM-like
        df = ex.mean_estimation_grid(tasks, mean.MEAN_MECHS, [0.5, 4.0], runs=5, seed=3,
                                     n_jobs=1)
        led = _ledger()
        mean.record_budget_share(led, mean.budget_share_fit(df, tasks))
        return _verdicts(led)["fig6-budget-share"]

    assert verdict() == "holds"
    original = mean.stand_in_tasks
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(mean, "stand_in_tasks", lambda n, rng: [
            replace(t, budget_share=t.budget_share / 2) if t.name.startswith("WISDM") else t
            for t in original(n, rng)])
        assert verdict() == "fails"
    with pytest.raises(ValueError, match="Fig. 6 data set"):
        mean.budget_share_fit(pd.DataFrame({"dataset": ["x"]}),
                              [ex.MeanTask("x", np.zeros((2, 1)))])


def test_learning_tasks_split_off_a_test_set():
    tasks = fc.learning_tasks(600, 4, np.random.default_rng(0))
    assert [t.task for t in tasks] == ["linear", "logistic", "svm"]
    assert tasks[0].X_train.shape == (600, 4) and len(tasks[0].y_test) == 120


# --------------------------------------------------------------------------- figures

def test_figures_return_a_caption_from_their_values():
    wc = worst_case_table(wcc.MECHS, np.geomspace(0.05, 8.0, 40))
    out = [figures.piecewise_densities(1.0, 0.5),
           figures.worst_case_figure(wc, not_lowest(wc, "hm_tp")),
           figures.fedsgd_figure(_fed(), ["linear regression (MSE)"], 3)]
    df = pd.DataFrame({"dataset": np.repeat(["A", "B"], 8), "mechanism": list(mean.MEAN_MECHS) * 2,
                       "epsilon": 1.0, "mse": 1.0, "expected_mse": 1.0})
    out.append(figures.mse_figure(pd.concat([df, df.assign(epsilon=4.0, mse=0.1,
                                                           expected_mse=0.1)]), "T", 3, "set"))
    for o in out:
        assert o["caption"] and o["alt"] and o["fig"].axes
        plt.close(o["fig"])
    assert "PM-SUB" in out[0]["caption"] and "2 rows" in out[3]["alt"]
    axes = out[3]["fig"].axes
    assert len(axes) == 4 and len(axes[0].get_lines()) > len(axes[1].get_lines())
