"""The grid store: finished cells kept on disk, a resumed run equal to an uninterrupted one."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from functools import partial

import numpy as np
import pandas as pd
import pytest
from test_grid import CELLS, mean_error

from ldp_companion.execution import grid_store
from ldp_companion.execution.grid import GridStore, run_grid
from ldp_companion.execution.grid_store import STORE_ENV, fingerprint

pytestmark = pytest.mark.determinism  # .ci/run runs these again at one BLAS thread


def _cells(folder):
    return sorted(folder.rglob("*.pkl"))


def test_a_second_run_reads_every_cell_back(tmp_path):
    store = GridStore(tmp_path)
    first = run_grid(mean_error, CELLS, seed=7, n_jobs=1, store=store)
    assert (store.reused, store.computed) == (0, len(CELLS))
    assert len(_cells(tmp_path)) == len(CELLS)
    again = run_grid(mean_error, CELLS, seed=7, n_jobs=2, store=store)
    assert (store.reused, store.computed) == (len(CELLS), len(CELLS))
    assert again == first
    manifest = json.loads(next(tmp_path.glob("*/grid.json")).read_text())
    assert manifest["cells"] == len(CELLS) and manifest["seed"] == 7


def test_the_store_holds_what_was_computed_not_a_stand_in(tmp_path):
    """A cell's file is its result: replace one with another value and the run returns it;
    corrupt one and the cell runs again (with a warning)."""
    store = GridStore(tmp_path)
    first = run_grid(mean_error, CELLS[:2], seed=7, n_jobs=1, store=store)
    path = grid_store.cell_file(next(tmp_path.glob("mean_error-*")), CELLS[0])
    assert path.exists()
    grid_store.save_cell(path, "planted")
    assert run_grid(mean_error, CELLS[:2], seed=7, n_jobs=1, store=store)[0] == "planted"
    path.write_bytes(b"not a pickle")
    with pytest.warns(UserWarning, match="unreadable"):
        assert run_grid(mean_error, CELLS[:2], seed=7, n_jobs=1, store=store) == first


def test_seed_arguments_and_inputs_start_afresh(tmp_path):
    store = GridStore(tmp_path)
    run_grid(mean_error, CELLS, seed=7, n_jobs=1, store=store)
    run_grid(mean_error, CELLS, seed=8, n_jobs=1, store=store)               # another seed
    run_grid(partial(mean_error, n=100), CELLS, seed=7, n_jobs=1, store=store)  # argument
    assert store.reused == 0 and len(list(tmp_path.iterdir())) == 3
    run_grid(partial(mean_error, n=100), CELLS, seed=7, n_jobs=1, store=store)
    assert store.reused == len(CELLS)
    data = {"a": np.zeros(3), "b": np.ones(3)}

    def total(name, rng, values):
        return float(values.sum())

    cells = [{"name": "a"}, {"name": "b"}]
    got = run_grid(total, cells, 0, n_jobs=1, store=store,
                   inputs=lambda c: {"values": data[c["name"]]})
    assert got == [0.0, 3.0]
    data["b"] = np.full(3, 2.0)  # one cell's inputs change: that cell runs again
    before = store.computed
    assert run_grid(total, cells, 0, n_jobs=1, store=store,
                    inputs=lambda c: {"values": data[c["name"]]}) == [0.0, 6.0]
    assert store.computed == before + 1


def test_functions_hash_by_their_code():
    one, two = (lambda e: e + 1), (lambda e: e + 2)
    assert fingerprint(one) != fingerprint(two)
    assert fingerprint(partial(mean_error, n=3)) != fingerprint(partial(mean_error, n=4))
    assert fingerprint({"x": np.arange(4.0)}) != fingerprint({"x": np.arange(1.0, 5.0)})
    assert grid_store.code_digest(mean_error) == grid_store.code_digest(lambda: 0)
    from ldp_companion.hiera import experiments as hx
    from ldp_companion.pm import experiments as px
    assert grid_store.code_digest(hx.sgd_grid) != grid_store.code_digest(px.fedsgd_grid)


def test_a_grid_hashes_what_it_can_run_and_not_the_floors_above():
    """A chapter's grid hashes the floors below and its own package; appendix C's every
    chapter package (it reads them); none hashes the edition or the command line."""
    pkg = grid_store._PACKAGE
    files = grid_store.package_files(pkg, {"hiera"})
    assert pkg / "hiera" / "sgd.py" in files and pkg / "mechanisms" / "piecewise.py" in files
    assert pkg / "pm" / "theory.py" not in files and pkg / "compare" / "utility.py" not in files
    assert not any(f.parts[-2] == "edition" or f.name == "__main__.py" for f in files)
    compare = grid_store.package_files(pkg, {"compare"})
    assert pkg / "pm" / "theory.py" in compare and pkg / "compare" / "utility.py" in compare
    assert pkg / "edition" / "cards.py" not in compare


def test_environment_store_and_bad_arguments(tmp_path, monkeypatch):
    monkeypatch.setenv(STORE_ENV, str(tmp_path / "env"))
    run_grid(mean_error, CELLS[:3], seed=1, n_jobs=1)
    assert len(_cells(tmp_path / "env")) == 3
    assert grid_store.open_store().computed == 3   # one object per folder: counters add up
    run_grid(mean_error, CELLS[:3], seed=1, n_jobs=1, store=False)
    assert grid_store.open_store().computed == 3
    unhashable = (i for i in [1])  # a generator cannot be hashed
    with pytest.warns(UserWarning, match="without the store"):
        run_grid(lambda **kw: 0, CELLS[:1], seed=1, n_jobs=1, inputs=lambda c: {"g": unhashable})
    with pytest.raises(ValueError, match="cannot be stored"):
        run_grid(lambda **kw: 0, CELLS[:1], seed=1, n_jobs=1, store=tmp_path,
                 inputs=lambda c: {"g": unhashable})
    with pytest.raises(ValueError, match="not in the cell's key"):
        run_grid(mean_error, CELLS[:1], seed=1, n_jobs=1, inputs=lambda c: {"run": 1})
    with pytest.raises(TypeError, match="function of a cell"):
        run_grid(mean_error, CELLS[:1], seed=1, n_jobs=1, inputs={"n": 3})
    with pytest.raises(TypeError, match="folder path"):
        GridStore(3)


# --------------------------------------------------------------------------- kill and resume

#: Chapter 5's Fig. 3 grid (HierA's private SGD, cross-validated), small: 20 cells of ~0.1 s.
_SCRIPT = textwrap.dedent("""
    import json, pickle, sys
    from ldp_companion.execution import grid_store
    from ldp_companion.hiera.experiments import regression_tasks, sgd_grid

    def table(n_jobs):
        tasks = regression_tasks({"401ksubs": 2000, "census2000": 2000}, seed=0)
        return sgd_grid(tasks, ["none", "hiera", "harmony"], [0.5, 1.0, 2.0], folds=5,
                        repeats=1, seed=4, n_jobs=n_jobs)

    if __name__ == "__main__":
        df = table(int(sys.argv[1]))
        df.to_pickle(sys.argv[2])
        store = grid_store.open_store()
        print(json.dumps({"reused": store.reused, "computed": store.computed}))
""")
_N_CELLS = 2 * 3 * 3 + 2


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_a_killed_run_resumes_where_it_stopped(tmp_path, n_jobs):
    script = tmp_path / "fig3.py"
    script.write_text(_SCRIPT)
    store = tmp_path / "store"
    env = {**os.environ, STORE_ENV: str(store), "OMP_NUM_THREADS": "1"}
    command = [sys.executable, str(script), str(n_jobs), str(tmp_path / "table.pkl")]
    run = subprocess.Popen(command, env=env, start_new_session=True,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 240
    while len(_cells(store)) < 4 and run.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    os.killpg(run.pid, signal.SIGKILL)  # the run and its workers, mid-grid
    _, stderr = run.communicate()  # waits, reads and closes the pipes
    time.sleep(1.0)  # a worker that outlived its parent would still be writing now
    done = len(_cells(store))
    assert run.returncode == -signal.SIGKILL and 4 <= done < _N_CELLS, stderr

    resumed = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    counts = json.loads(resumed.stdout.strip().splitlines()[-1])
    assert counts == {"reused": done, "computed": _N_CELLS - done}

    sys.path.insert(0, str(tmp_path))
    try:
        import fig3
        whole = fig3.table(1)  # uninterrupted, no store
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("fig3", None)
    pd.testing.assert_frame_equal(pd.read_pickle(tmp_path / "table.pkl"), whole,
                                  check_exact=True)


def test_dask_workers_store_their_cells_and_a_rerun_reads_them(tmp_path):
    distributed = pytest.importorskip("distributed")
    store = GridStore(tmp_path)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1",
                                  dashboard_address=None, processes=True) as cluster:
        first = run_grid(mean_error, CELLS, seed=3, scheduler=cluster.scheduler_address,
                         store=store)
        assert len(_cells(tmp_path)) == len(CELLS)  # written by the workers
        again = run_grid(mean_error, CELLS, seed=3, scheduler=cluster.scheduler_address,
                         store=store)
    assert again == first == run_grid(mean_error, CELLS, seed=3, n_jobs=1, store=False)
    assert (store.reused, store.computed) == (len(CELLS), len(CELLS))
