"""Experiment grids of chapter 5 (HierA): data, mean-estimation grid against the closed forms,
Theorem 2 witnesses and audit sampler, SGD grid."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from ldp_companion import hiera as H
from ldp_companion.hiera import experiments as X


def test_resample_subsamples_or_bootstraps():
    rng = np.random.default_rng(0)
    v = np.arange(10)
    sub = X.resample(v, 7, rng)
    assert len(sub) == 7 and len(np.unique(sub)) == 7          # without replacement
    boot = X.resample(v, 50, rng)
    assert len(boot) == 50 and set(boot) <= set(v)               # with replacement
    with pytest.raises(ValueError):
        X.resample(v, 0, rng)


def test_datasets_in_unit_interval_and_deterministic():
    a = X.mean_datasets(2_000, 3_000, seed=4)
    b = X.mean_datasets(2_000, 3_000, seed=4)
    assert list(a) == list(b) and len(a) == 5
    for name in a:
        np.testing.assert_array_equal(a[name], b[name])
        assert a[name].min() >= -1 and a[name].max() <= 1
    assert a["uniform"].size == 2_000 and a["age (401ksubs)"].size == 3_000
    assert X.age_stand_in().mean() == pytest.approx(-0.1754, abs=5e-5)   # brief §5.1
    tasks = X.regression_tasks({"401ksubs": 500, "census2000": 40_000}, seed=1)
    (Xa, ya), (Xc, yc) = tasks["401ksubs"], tasks["census2000"]
    assert Xa.shape == (500, 8) and ya.shape == (500,)
    assert Xc.shape == (40_000, 2 + 51)                         # educ, exper, 51 state dummies
    assert np.all(np.abs(Xc) <= 1) and np.all(np.abs(yc) <= 1)
    with pytest.raises(ValueError, match="unknown tasks"):
        X.regression_tasks({"nope": 10}, seed=0)


def test_mean_grid_unbiased_and_variance_matches_formula():
    # n = 4,000 uniform users, T = 400 runs, base 1: |z| < 4.5 for every configuration, and the
    # sample variance within 4 * sqrt(2 / (T - 1)) = 28% of the closed form.
    v = {"u": H.uniform(4_000, np.random.default_rng(1))}
    configs = [X.HierAConfig(mu, rule, clip=False)
               for rule in ("paper", "block") for mu in (1, 2, 5)]
    grid = X.mean_grid(v, [1.0], 400, seed=2, configs=configs)
    assert len(grid) == 400 * (len(configs) + 3)
    tab = X.mae_table(grid).merge(X.predicted_grid(v, [1.0], configs=configs),
                                  on=["dataset", "epsilon", "config", "method", "mu", "rule"])
    assert np.all(np.abs(tab["bias"] / tab["bias_se"]) < 4.5)
    assert np.all(np.abs(tab["var"] / tab["variance"] - 1) < 4 * np.sqrt(2 / 399))
    again = X.mean_grid(v, [1.0], 400, seed=2, configs=configs)
    assert grid.equals(again)


def test_broken_configs_are_biased_as_predicted():
    v = {"u": H.uniform(4_000, np.random.default_rng(3))}
    configs = [X.HierAConfig(5, "paper", clip=False, compensation=False),
               X.HierAConfig(2, "paper", clip=False, flip_rule="paper")]
    tab = X.mae_table(X.mean_grid(v, [0.5], 300, seed=0, configs=configs, baselines=()))
    pred = X.predicted_grid(v, [0.5], configs=configs, baselines=())
    limit = pred.set_index("config")["limit_bias"]
    assert limit.iloc[0] == pytest.approx(-0.0982, abs=0.01)      # brief C5 (U[-1, 1], base 0.5)
    assert limit.iloc[1] > 0.03                                     # printed flip rule
    z = (tab.set_index("config")["bias"] - limit) / tab.set_index("config")["bias_se"]
    assert np.all(np.abs(z) < 4.5)
    ok = X.predicted_grid(v, [0.5], configs=[X.HierAConfig(3)])
    assert np.all(np.abs(ok["limit_bias"]) < 1e-12)  # baselines and compensated HierA
    with pytest.raises(ValueError, match="baselines"):
        X.mean_grid(v, [0.5], 2, seed=0, baselines=("laplace",))


@pytest.mark.parametrize("base, want", [(0.5, 3.9475), (1.0, 8.0667)])
def test_worst_joint_pair_matches_privacy_matrix(base, want):
    L = H.paper_levels(base)
    w = X.worst_joint_pair(L)
    assert w["log_ratio"] == pytest.approx(want, abs=1e-4)          # brief errata
    assert w["log_ratio"] == pytest.approx(H.privacy_matrix(L).max(), rel=1e-9)
    assert w["log_ratio"] == pytest.approx(np.log(w["p_x"] / w["p_x_prime"]))
    assert int(L.level_of(w["x"])) == w["level_x"]
    assert int(L.level_of(w["x_prime"])) == w["level_x_prime"]
    for part in ("level", "value"):
        assert X.worst_joint_pair(L, part)["log_ratio"] == pytest.approx(
            H.privacy_matrix(L, part).max(), rel=1e-9)
    with pytest.raises(ValueError):
        X.worst_joint_pair(L, "both")


def test_lhp_sampler_codes_follow_the_output_law():
    L = H.paper_levels(1.0)
    rng = np.random.default_rng(5)
    codes = X.lhp_sampler(L, "joint")(-0.3, 200_000, rng)
    observed = np.bincount(codes.astype(int), minlength=10)
    expected = H.report_probabilities(-0.3, L).ravel() * codes.size
    assert stats.chisquare(observed, expected)[1] > 1e-3
    assert set(np.unique(X.lhp_sampler(L, "level")(0.0, 1000, rng))) <= set(range(1, 6))
    assert set(np.unique(X.lhp_sampler(L, "value")(0.0, 1000, rng))) <= {-1.0, 1.0}
    with pytest.raises(ValueError):
        X.lhp_sampler(L, "nope")


def test_sgd_grid_shapes_references_and_determinism():
    tasks = X.regression_tasks({"401ksubs": 1_500}, seed=0)
    kw = dict(folds=3, repeats=1, seed=7, mu=2)
    df = X.sgd_grid(tasks, ["none", "hiera", "harmony_clip"], [1.0], **kw)
    assert set(df["method"]) == {"none", "hiera", "harmony_clip", "ols"}
    assert len(df) == 4 * 3 and df["mse"].notna().all()
    ols = df.loc[df["method"] == "ols", "mse"].mean()
    assert ols < df.loc[df["method"] == "hiera", "mse"].mean()
    assert ols == pytest.approx(0.043, abs=0.02)                    # brief: OLS MSE 0.0428
    assert df.equals(X.sgd_grid(tasks, ["none", "hiera", "harmony_clip"], [1.0], **kw))
    with pytest.raises(ValueError, match="methods"):
        X.sgd_grid(tasks, ["sgd"], [1.0], **kw)
