"""The grid runner: the same table serially, with joblib and on a Dask cluster."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, strategies as st

from ldp_companion import get_mechanism
from ldp_companion.grid import cell_rng, key_words, run_grid


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
        dask = pd.DataFrame(run_grid(mean_error, CELLS, seed=7, scheduler=cluster.scheduler_address))
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
