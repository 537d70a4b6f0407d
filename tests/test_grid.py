"""The grid runner: the same table serially, with joblib and on a Dask cluster."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ldp_companion import get_mechanism
from ldp_companion.execution.grid import cell_rng, key_words, run_grid

pytestmark = pytest.mark.determinism  # .ci/run runs these again at one BLAS thread


def mean_error(mechanism, epsilon, run, rng, n=2_000):
    """One cell of a small mean-estimation grid (module level: workers pickle it)."""
    x = rng.uniform(-1, 1, n)
    y = get_mechanism(mechanism, epsilon).privatize(x, rng)
    return {"mechanism": mechanism, "epsilon": epsilon, "run": run,
            "error": float(y.mean() - x.mean()), "first": float(y[0])}


CELLS = [{"mechanism": m, "epsilon": e, "run": r}
         for m in ("pm", "duchi", "hm_tp") for e in (0.5, 2.0) for r in range(3)]


def test_serial_joblib_and_reversed_order_give_identical_tables():
    serial = pd.DataFrame(run_grid(mean_error, CELLS, seed=7, n_jobs=1))
    parallel = pd.DataFrame(run_grid(mean_error, CELLS, seed=7, n_jobs=2))
    backwards = pd.DataFrame(run_grid(mean_error, CELLS[::-1], seed=7, n_jobs=1)[::-1])
    pd.testing.assert_frame_equal(serial, parallel, check_exact=True)
    pd.testing.assert_frame_equal(serial, backwards.reset_index(drop=True), check_exact=True)
    other_seed = pd.DataFrame(run_grid(mean_error, CELLS, seed=8, n_jobs=1))
    assert not np.array_equal(serial["first"], other_seed["first"])  # the seed matters


def test_dask_cluster_gives_the_same_table():
    distributed = pytest.importorskip("distributed")
    serial = pd.DataFrame(run_grid(mean_error, CELLS, seed=7, n_jobs=1))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1",
                                  dashboard_address=None, processes=True) as cluster:
        dask = pd.DataFrame(run_grid(mean_error, CELLS, seed=7,
                                     scheduler=cluster.scheduler_address))
    pd.testing.assert_frame_equal(serial, dask, check_exact=True)


def test_cell_generators_are_keyed_not_ordered():
    a = cell_rng(0, {"mechanism": "pm", "epsilon": 1.0}).random(3)
    b = cell_rng(0, {"epsilon": 1.0, "mechanism": "pm"}).random(3)  # same key, other order
    c = cell_rng(0, {"mechanism": "pm", "epsilon": 2.0}).random(3)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    # the mutant: spawning by position instead of by key changes a cell's stream with its place
    by_position = [np.random.default_rng(s).random(3) for s in np.random.SeedSequence(0).spawn(2)]
    assert not np.array_equal(by_position[0], a)


def test_bad_grids_are_refused():
    with pytest.raises(ValueError, match="same key"):
        run_grid(mean_error, [CELLS[0], dict(CELLS[0])], seed=0, n_jobs=1)
    with pytest.raises(ValueError, match="n_jobs"):
        run_grid(mean_error, CELLS, seed=0, n_jobs=0)
    with pytest.raises(ValueError, match="seed"):
        cell_rng(-1, {"a": 1})
    with pytest.raises(TypeError, match="mapping"):
        key_words({})


@given(st.dictionaries(st.sampled_from("abcde"), st.integers() | st.floats(allow_nan=False),
                       min_size=1))
def test_key_words_are_four_32_bit_words(key):
    words = key_words(key)
    assert len(words) == 4 and all(0 <= w < 2**32 for w in words)


# --------------------------------------------------------------------------- the chapters' grids

def _pm_mean(**kw):
    from ldp_companion.pm.discretize import discretized
    from ldp_companion.pm.experiments import MeanTask, mean_estimation_grid

    X = np.random.default_rng(0).uniform(-1, 1, (500, 3))
    mechs = {"PM": "pm", "3 outputs": lambda e: discretized("pm_sub", e, 3)}  # a lambda
    return mean_estimation_grid([MeanTask("t", X)], mechs, [0.5, 2.0], 3, 11, **kw)


def _pm_fedsgd(**kw):
    from ldp_companion.pm.experiments import LearningTask, fedsgd_grid

    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, (600, 3)) / np.sqrt(3)
    y = np.sign(X @ np.ones(3) + 0.01)
    task = LearningTask("logit", "logistic", X[:500], y[:500], X[500:], y[500:])
    return fedsgd_grid([task], {"none": None, "PM": "pm"}, [1.0, 4.0], 2, 5, group_size=100,
                       **kw)


def _hiera_mean(**kw):
    from ldp_companion.hiera.experiments import mean_grid

    v = {"u": np.random.default_rng(2).uniform(-1, 1, 800)}
    return mean_grid(v, [0.5, 1.0], 4, 3, **kw)


def _hiera_sgd(**kw):
    from ldp_companion.hiera.experiments import regression_tasks, sgd_grid

    tasks = regression_tasks({"401ksubs": 600}, seed=0)
    return sgd_grid(tasks, ["none", "hiera"], [1.0], folds=2, repeats=1, seed=4, mu=2, **kw)


@pytest.mark.parametrize("grid", [_pm_mean, _pm_fedsgd, _hiera_mean, _hiera_sgd])
def test_chapter_grids_are_the_same_serially_and_on_two_workers(grid):
    serial = grid(n_jobs=1)
    pd.testing.assert_frame_equal(serial, grid(n_jobs=2), check_exact=True)
    assert len(serial) > 0


def test_fedsgd_baseline_runs_once_per_seed():
    df = _pm_fedsgd(n_jobs=1)
    base = df[df["mechanism"] == "none"].pivot(index="seed", columns="epsilon", values="error")
    assert (base.nunique(axis=1) == 1).all()  # the same run reported at every ε
    assert df[df["mechanism"] == "PM"]["error"].nunique() > 1


def test_progress_bar_follows_the_environment(monkeypatch, capsys):
    from ldp_companion.execution.grid import PROGRESS_ENV, progress_bar

    monkeypatch.delenv(PROGRESS_ENV, raising=False)
    assert progress_bar(3, "x") is None and progress_bar(3, "x", False) is None
    monkeypatch.setenv(PROGRESS_ENV, "1")
    bar = progress_bar(3, "x")
    assert bar is not None and bar.total == 3
    bar.close()
    monkeypatch.setenv(PROGRESS_ENV, "1")
    assert progress_bar(3, "x", False) is None


def test_book_share_of_cores_sets_the_default_workers(monkeypatch):
    """``n_jobs=None`` follows JOBS_ENV (the tests set it to 1): 1 runs in this process."""
    import joblib

    from ldp_companion.execution.grid import JOBS_ENV

    def no_parallel(*args, **kwargs):
        raise AssertionError("a worker pool was started")

    monkeypatch.setenv(JOBS_ENV, "1")
    monkeypatch.setattr(joblib, "Parallel", no_parallel)
    assert len(run_grid(mean_error, CELLS, seed=7)) == len(CELLS)
    monkeypatch.setenv(JOBS_ENV, "2")
    with pytest.raises(AssertionError, match="pool"):
        run_grid(mean_error, CELLS, seed=7)


def test_loky_worker_restart_warning_stays_off_the_page(monkeypatch):
    """loky's "A worker stopped ..." (a restarted idle or grown worker; no cell lost) is
    silenced by the grid, any other warning still reaches the caller."""
    import warnings

    import joblib

    from ldp_companion.execution import grid

    said = {"text": grid._LOKY_RESTART + " This can be caused by a too short worker timeout."}

    class Loud:
        def __init__(self, **kwargs):
            pass

        def __call__(self, jobs):
            warnings.warn(said["text"], UserWarning, stacklevel=1)
            return (fn(*args, **kw) for fn, args, kw in jobs)

    monkeypatch.setattr(joblib, "Parallel", Loud)
    cells = [{"x": float(i)} for i in range(3)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = run_grid(lambda x, rng: x, cells, 0, n_jobs=2, progress=False)
    assert list(out) == [0.0, 1.0, 2.0]
    said["text"] = "another warning"
    with pytest.warns(UserWarning, match="another warning"):
        run_grid(lambda x, rng: x, cells, 0, n_jobs=2, progress=False)
