"""Experiment grids of chapter 3: shapes, determinism, and agreement with the analytic MSE."""
from __future__ import annotations

import numpy as np
import pytest

from ldp_companion.pm.experiments import LearningTask, MeanTask, fedsgd_grid, mean_estimation_grid
from ldp_companion.pm.synthetic import classification_task, gaussian


def test_mean_estimation_grid_matches_the_analytic_mse():
    # n = 20,000 users, d = 5, 200 runs per cell: the mean of 200 squared errors has a relative
    # sd of about sqrt(2 / (200 d)) = 4.5%, so 15% is more than 3 sd.
    rng = np.random.default_rng(7)
    task = MeanTask("gauss", gaussian(20_000, 5, rng=rng))
    df = mean_estimation_grid([task], {"PM-SUB": "pm_sub", "Duchi-md": "duchi_md"}, [1.0, 4.0],
                              runs=200, seed=3)
    assert len(df) == 2 * 2 * 200
    cell = df.groupby(["mechanism", "epsilon"]).agg(mse=("mse", "mean"),
                                                    exp=("expected_mse", "first"))
    np.testing.assert_allclose(cell["mse"], cell["exp"], rtol=0.15)


def test_mean_estimation_grid_is_deterministic_and_respects_the_budget_share():
    X = gaussian(2_000, 3, rng=np.random.default_rng(0))
    a = mean_estimation_grid([MeanTask("t", X, 0.5)], {"PM": "pm"}, [2.0], runs=3, seed=1)
    b = mean_estimation_grid([MeanTask("t", X, 0.5)], {"PM": "pm"}, [2.0], runs=3, seed=1)
    assert a.equals(b)
    full = mean_estimation_grid([MeanTask("t", X)], {"PM": "pm"}, [1.0], runs=1, seed=1)
    assert a["expected_mse"].iloc[0] == pytest.approx(full["expected_mse"].iloc[0])


def test_each_run_has_its_own_generator_whatever_the_number_of_runs():
    """A cell holds every run of one (data set, mechanism, ε), and run r still draws from the
    generator of its own key: the first runs of a longer grid are those of a shorter one, and
    equal a run computed alone with that key's generator (runs sharing one generator would
    differ from it from the second run on)."""
    from ldp_companion.execution.grid import cell_rng
    from ldp_companion.pm.multidim import estimate_mean

    X = gaussian(1_000, 3, rng=np.random.default_rng(2))
    short = mean_estimation_grid([MeanTask("t", X)], {"PM": "pm"}, [2.0], runs=2, seed=4)
    long = mean_estimation_grid([MeanTask("t", X)], {"PM": "pm"}, [2.0], runs=3, seed=4)
    assert long["mse"].iloc[:2].tolist() == short["mse"].tolist()
    key = {"dataset": "t", "mechanism": "PM", "epsilon": 2.0, "run": 2}
    alone = np.mean((estimate_mean(X, 2.0, "pm", cell_rng(4, key)) - X.mean(axis=0)) ** 2)
    assert long["mse"].iloc[2] == alone
    rng = np.random.default_rng(5)
    Xc, yc, _ = classification_task(3_000, 4, rng=rng)
    task = LearningTask("c", "logistic", Xc[:2_500], yc[:2_500], Xc[2_500:], yc[2_500:])
    one, two = (fedsgd_grid([task], {"PM": "pm"}, [1.0], seeds=s, seed=0, group_size=100)
                for s in (1, 2))
    assert two["error"].iloc[0] == one["error"].iloc[0]


def test_fedsgd_grid_nonprivate_beats_laplace():
    rng = np.random.default_rng(5)
    X, y, _ = classification_task(24_000, 10, rng=rng)
    task = LearningTask("logit", "logistic", X[:20_000], y[:20_000], X[20_000:], y[20_000:])
    df = fedsgd_grid([task], {"non-private": None, "Laplace": "laplace_split"}, [0.5], seeds=2,
                     seed=0, group_size=500)
    err = df.groupby("mechanism")["error"].mean()
    assert err["non-private"] < 0.35 < err["Laplace"]
    assert set(df.columns) == {"task", "mechanism", "epsilon", "seed", "error"}


def test_grids_validate():
    X = gaussian(100, 2, rng=np.random.default_rng(0))
    with pytest.raises(ValueError):
        mean_estimation_grid([MeanTask("t", X)], {"PM": "pm"}, [0.0], runs=1, seed=0)
    with pytest.raises(ValueError):
        mean_estimation_grid([MeanTask("t", X)], {"PM": "pm"}, [1.0], runs=0, seed=0)


def test_split_task_holds_out_the_fraction():
    from ldp_companion.pm.experiments import split_task

    X, y = np.arange(60.0).reshape(30, 2), np.arange(30.0)
    t = split_task("t", "linear", X, y, np.random.default_rng(0), 1 / 6)
    assert len(t.y_test) == 5 and len(t.y_train) == 25
    assert sorted(np.r_[t.y_train, t.y_test]) == list(y)
    np.testing.assert_array_equal(t.X_train[:, 1], 2 * t.y_train + 1)  # rows stay together
    with pytest.raises(ValueError, match="test_fraction"):
        split_task("t", "linear", X, y, np.random.default_rng(0), 1.0)


def test_mean_grid_checks_each_table_once_at_the_door():
    from ldp_companion.pm.experiments import MeanTask, mean_estimation_grid

    bad = MeanTask("bad", np.full((10, 2), 1.5))
    with pytest.raises(ValueError, match="X"):
        mean_estimation_grid([bad], {"pm": "pm"}, [1.0], 2, 0, n_jobs=1)
    with pytest.raises(ValueError, match="budget_share"):
        mean_estimation_grid([MeanTask("neg", np.zeros((10, 2)), -0.5)], {"pm": "pm"}, [1.0],
                             2, 0, n_jobs=1)
