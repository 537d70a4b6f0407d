"""Chapter 3's newer checks (Fig. 4's density, Alg. 1's server step, Lemma 13's rates) and its
mutants: each check agrees with an independent value on correct code and fails on broken code."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import integrate

from ldp_companion import get_mechanism
from ldp_companion.auditing.montecarlo import bonferroni_z
from ldp_companion.mechanisms.piecewise import Piecewise, pm_opt_t
from ldp_companion.pm import theory as T
from ldp_companion.pm.experiments import (
    LearningTask,
    check_data,
    first_group_gradients,
    lemma13_errors,
    lemma13_growth,
    lemma13_slopes,
    server_mean_check,
)
from ldp_companion.pm.fedsgd import server_mean
from ldp_companion.pm.mutants import MUTANTS
from ldp_companion.verdicts.ledger import Ledger
from ldp_companion.verdicts.mutation import applied
from ldp_companion.verdicts.paired import within_margin

# --------------------------------------------------------------------------- Fig. 4, Eq. (26b)

@pytest.mark.parametrize("eps", [0.1, 0.5, 1.0, 2.0, 8.0, 20.0])
def test_paper_t_of_pm_opt_is_the_root_of_the_quartic(eps):
    t, E = T.paper_t("pm_opt", eps), np.exp(eps)
    assert t == pytest.approx(pm_opt_t(eps), rel=1e-11)
    assert abs(t**4 + 2 * E * t**3 - 2 * E * t - E**2) <= 1e-12 * E**2 * max(1.0, t**2)
    assert T.paper_t("pm", eps) == pytest.approx(np.exp(eps / 2), rel=1e-15)
    assert T.paper_t("pm_sub", eps) == pytest.approx(np.exp(eps / 3), rel=1e-15)


def test_paper_t_refuses_other_names_and_large_budgets():
    with pytest.raises(ValueError, match="name must be"):
        T.paper_t("hm", 1.0)
    with pytest.raises(ValueError, match="<= 30"):
        T.paper_t("pm_opt", 40.0)


@pytest.mark.parametrize("x", [-1.0, -0.3, 0.0, 0.5, 1.0])
def test_eq26b_density_is_a_density_with_mean_x(x):
    eps, t = 1.0, 1.3
    E = np.exp(eps)
    A = (t + E) * (t + 1) / (t * (E - 1))
    cuts = sorted({-A, A, (t + E) * (t * x - 1) / (t * (E - 1)),
                   (t + E) * (t * x + 1) / (t * (E - 1))})
    mass = sum(integrate.quad(lambda y: T.piecewise_density(y, x, eps, t), a, b)[0]
               for a, b in zip(cuts[:-1], cuts[1:]))
    mean = sum(integrate.quad(lambda y: y * T.piecewise_density(y, x, eps, t), a, b)[0]
               for a, b in zip(cuts[:-1], cuts[1:]))
    assert mass == pytest.approx(1.0, abs=1e-10)
    assert mean == pytest.approx(x, abs=1e-10)
    heights = T.piecewise_density(np.array([-A + 1e-9, t * x * (t + E) / (t * (E - 1)), 2 * A]),
                                  x, eps, t)
    p = t * E * (E - 1) / (2 * (t + E) ** 2)
    if x > -1.0:
        assert heights[0] == pytest.approx(p / E, rel=1e-15)
    assert heights[1] == pytest.approx(p, rel=1e-15) and heights[2] == 0.0


@pytest.mark.parametrize("name", ["pm", "pm_sub", "pm_opt"])
def test_density_gap_is_rounding_for_the_mechanisms(name):
    for eps in (0.5, 1.0, 4.0):
        m = get_mechanism(name, eps)
        assert T.density_gap(m, T.paper_t(name, eps), 0.5) < 1e-12


def test_density_gap_fails_a_mechanism_with_the_wrong_t():
    eps = 1.0
    wrong = Piecewise(eps, np.exp(eps / 2))  # PM's t where PM-SUB's belongs
    gap = T.density_gap(wrong, T.paper_t("pm_sub", eps), 0.5)
    assert gap > 0.1
    ledger = Ledger("t", refs={"fig4-density": "Fig. 4"})
    claim = ledger.compare("fig4-density", "s", [gap], "<", 1e-9)
    assert claim.verdict == "fails"


def test_crossing_is_the_root_or_nan_where_the_curves_do_not_cross():
    from ldp_companion.mechanisms.compare import crossover

    root = T.crossing("duchi", "pm", 0.8, 2.0)
    assert root == crossover("duchi", "pm", 0.8, 2.0)
    assert root == pytest.approx(1.289785, abs=5e-7)  # Table I's 1.29
    assert np.isnan(T.crossing("duchi", "pm", 2.0, 4.0))  # PM is below Duchi throughout
    ledger = Ledger("t", refs={"c": "Table I"})
    assert ledger.close("c", "s", paper=1.29, ours=T.crossing("duchi", "pm", 2.0, 4.0),
                        atol=5e-3).verdict == "fails"


# --------------------------------------------------------------------------- Alg. 1, step 3

def _group(G=500, d=8, seed=0):
    return np.random.default_rng(seed).uniform(-1, 1, (G, d))


def test_server_mean_is_unbiased_with_the_expected_error():
    # 400 rounds of G = 500 vehicles, d = 8: |z| of each coordinate's mean below the
    # Bonferroni bound at family-wise 1e-3, and the mean squared error within 4 standard
    # errors of the closed form (a factor 2 in the variance is ~14 standard errors away).
    grads = _group()
    mechs = {"PM-SUB": "pm_sub", "Duchi-md": "duchi_md", "Laplace": "laplace_split"}
    df = server_mean_check(grads, mechs, [0.5, 4.0], np.random.default_rng(1), reps=400)
    assert len(df) == 6 and (df["coordinates"] == 8).all()
    assert (df["z_max"] < bonferroni_z(6 * 8, family_error=1e-3)).all()
    se = df["sd"] / np.sqrt(df["reps"])
    assert (np.abs(df["mse"] - df["expected"]) < 4 * se).all()


def test_server_mean_check_fails_a_server_that_sums():
    grads = _group()
    mutant = next(m for m in MUTANTS if m.name == "fedsgd-sum-not-mean")
    with applied(mutant):
        df = server_mean_check(grads, {"PM-SUB": "pm_sub"}, [1.0], np.random.default_rng(1),
                               reps=50)
    assert (df["z_max"] > 100).all()


def test_first_group_gradients_are_the_clipped_gradients_at_zero():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (50, 4))
    y = 3.0 * rng.uniform(-1, 1, 50)  # large targets: some gradients clip
    task = LearningTask("t", "linear", X, y, X, y)
    g = first_group_gradients(task, 20, 0.0)
    np.testing.assert_allclose(g, np.clip(-y[:20, None] * X[:20], -1, 1), rtol=0, atol=0)
    assert np.abs(-y[:20, None] * X[:20]).max() > 1.0 and np.abs(g).max() <= 1.0
    with pytest.raises(ValueError, match="group_size"):
        first_group_gradients(task, 51, 0.0)


def test_server_mean_validates_its_arguments():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="grads"):
        server_mean(np.full((3, 2), 2.0), 1.0, "pm", rng)
    with pytest.raises(ValueError, match="2-D"):
        server_mean(np.zeros(4), 1.0, "pm", rng)
    with pytest.raises(ValueError, match="mechanism and epsilon"):
        server_mean(np.zeros((4, 2)), 1.0, None, rng)
    with pytest.raises(ValueError, match="reps"):
        server_mean_check(np.zeros((4, 2)), {"pm": "pm"}, [1.0], rng, reps=1)


# --------------------------------------------------------------------------- Lemma 13

def _errors(slope, d_power, runs=30, seed=0):
    """Synthetic Lemma 13 errors ``n^slope d^d_power`` times a log-normal run factor."""
    rng = np.random.default_rng(seed)
    rows = []
    for d in (5, 40):
        for n in (1_000, 10_000, 100_000):
            for r in range(runs):
                err = n**slope * d**d_power * np.exp(0.1 * rng.standard_normal())
                rate = np.sqrt(d * np.log(d)) / np.sqrt(n)
                rows.append({"n": n, "d": d, "mechanism": "m", "epsilon": 1.0, "run": r,
                             "error": err, "ratio": err / rate})
    return pd.DataFrame(rows)


def test_lemma13_slope_check_holds_at_the_rate_and_fails_off_it():
    ledger = Ledger("t", refs={"a": "Lemma 13", "b": "Lemma 13"})
    good = lemma13_slopes(_errors(-0.5, 0.5))
    assert good.shape == (2, 30) and np.allclose(good.mean(axis=1), -0.5, atol=0.02)
    assert ledger.difference("a", "s", within_margin(good.to_numpy() + 0.5, 0.1)).verdict \
        == "holds"
    bad = lemma13_slopes(_errors(-1.0 / 3.0, 0.5))
    assert ledger.difference("b", "s", within_margin(bad.to_numpy() + 0.5, 0.1)).verdict \
        == "fails"


def test_lemma13_growth_holds_at_sqrt_d_log_d_and_fails_at_d():
    ledger = Ledger("t", refs={"a": "Lemma 13", "b": "Lemma 13"})
    # error ∝ sqrt(d log d): the ratio to the rate is the same at d = 5 and d = 40
    rows = _errors(-0.5, 0.0)
    rows["error"] *= np.sqrt(rows["d"] * np.log(rows["d"]))
    rows["ratio"] *= np.sqrt(rows["d"] * np.log(rows["d"]))
    assert ledger.difference("a", "s", lemma13_growth(rows, 0.25).to_numpy()).verdict == "holds"
    # error ∝ d: the ratio at d = 40 is 1.9 times that at d = 5
    assert ledger.difference("b", "s", lemma13_growth(_errors(-0.5, 1.0), 0.25).to_numpy()
                             ).verdict == "fails"
    with pytest.raises(ValueError, match="margin"):
        lemma13_growth(rows, 0.0)


def test_lemma13_errors_table_and_its_rate():
    df = lemma13_errors([500, 2_000], [5, 10], ["pm_sub"], [1.0], 2, np.random.default_rng(0))
    assert len(df) == 2 * 2 * 2
    rate = np.sqrt(df["d"] * np.log(df["d"])) / (df["epsilon"] * np.sqrt(df["n"]))
    np.testing.assert_allclose(df["ratio"], df["error"] / rate, rtol=1e-12)
    assert (df["error"] > 0).all()


def test_check_data():
    assert check_data("paper") == "paper" and check_data("stand-ins") == "stand-ins"
    with pytest.raises(ValueError, match="data must be one of"):
        check_data("real")


# --------------------------------------------------------------------------- mutants

def _probe(name):
    """What each mutant breaks, evaluated afresh (a new mechanism, a generator of fixed seed)."""
    from ldp_companion.mechanisms import hybrid, three_outputs
    from ldp_companion.pm import discretize

    rng = np.random.default_rng(3)
    return {
        "pm-sub-t-of-pm": lambda: get_mechanism("pm_sub", 1.0).t,
        "three-outputs-a-half": lambda: (get_mechanism("three_outputs", 1.5).a,
                                         float(three_outputs.p00(1.5))),
        "piecewise-variance-no-x2": lambda: float(get_mechanism("pm", 1.0).variance(1.0)),
        "hm-tp-beta-half": lambda: (hybrid.hm_tp_beta(2.0), get_mechanism("hm_tp", 2.0).weight),
        "discretize-nearest": lambda: discretize.discretize(np.linspace(-1.9, 1.9, 40), 2.0, 5,
                                                            rng).tolist(),
        "fedsgd-sum-not-mean": lambda: server_mean(_group(10, 3), 1.0, "pm_sub", rng).tolist(),
    }[name]()


def test_the_chapter_lists_mutants_with_unique_names():
    names = [m.name for m in MUTANTS]
    assert len(names) >= 4 and len(set(names)) == len(names)


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.name)
def test_each_mutant_changes_what_it_targets_and_is_undone(mutant):
    before = _probe(mutant.name)
    with applied(mutant):
        during = _probe(mutant.name)
    assert during != before
    assert _probe(mutant.name) == before
