"""Numbers that do not depend on threads: every grid cell runs at one BLAS thread count, in
this process or in a worker, and a chapter's kernel starts at that count whatever the
environment of the process that runs it (:mod:`ldp_companion.execution.threads`)."""
from __future__ import annotations

import contextlib
import os

import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from ldp_companion.execution import grid, threads

pytestmark = pytest.mark.determinism

#: Long enough that OpenBLAS splits the dot product over its threads.
N = 4_000_000


def _dot(part, rng):
    """A cell whose result depends on the BLAS summation order: x·x of a long vector."""
    x = np.random.default_rng(part).standard_normal(N)
    return float(np.dot(x, x))


def _blas_threads(part, rng):
    """The thread counts of the BLAS libraries loaded (numpy's and scipy's OpenBLAS)."""
    return sorted({i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"})


CELLS = [{"part": k} for k in range(2)]


def test_a_cell_runs_at_the_fixed_count_in_process_and_in_a_worker():
    with threadpool_limits(limits=2):  # the BLAS free to use two cores, as on a laptop
        serial = grid.run_grid(_blas_threads, CELLS, seed=0, n_jobs=1, store=False)
        workers = grid.run_grid(_blas_threads, CELLS, seed=0, n_jobs=2, store=False)
        after = _blas_threads(0, None)
    assert serial == workers == [[1], [1]]
    assert after == [2]  # the limit is lifted after the cell


def test_a_dot_product_is_bit_identical_in_process_and_in_a_worker():
    with threadpool_limits(limits=2):
        serial = grid.run_grid(_dot, CELLS, seed=0, n_jobs=1, store=False)
    with threadpool_limits(limits=1):
        workers = grid.run_grid(_dot, CELLS, seed=0, n_jobs=2, store=False)
    assert serial == workers


def test_without_the_cell_limit_the_dot_product_depends_on_the_threads(monkeypatch):
    """The mutant: a cell run in this process with the BLAS at two threads sums in another
    order than the same cell in a worker at one thread."""
    if (os.cpu_count() or 1) < 2:
        pytest.skip("one core: OpenBLAS runs one thread whatever the limit")
    monkeypatch.setattr(threads, "fixed", lambda *a, **k: contextlib.nullcontext())
    with threadpool_limits(limits=2):
        serial = grid.run_grid(_dot, CELLS, seed=0, n_jobs=1, store=False)
    with threadpool_limits(limits=1):
        one = grid.run_grid(_dot, CELLS, seed=0, n_jobs=1, store=False)
    assert serial != one


def test_the_kernel_starts_at_the_fixed_count(monkeypatch):
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "2")
    monkeypatch.delenv(threads.THREADS_ENV, raising=False)
    env = threads.kernel_env()
    assert env["OPENBLAS_NUM_THREADS"] == env["OMP_NUM_THREADS"] == "1"
    monkeypatch.setenv(threads.THREADS_ENV, "4")
    assert set(threads.kernel_env().values()) == {"4"}


@pytest.mark.parametrize("bad", ["0", "-1", "two", "1.5"])
def test_a_bad_thread_count_is_refused(monkeypatch, bad):
    monkeypatch.setenv(threads.THREADS_ENV, bad)
    with pytest.raises(ValueError, match=threads.THREADS_ENV):
        threads.count()


def test_a_chapter_kernel_runs_at_one_thread_whatever_the_parent(tmp_path, monkeypatch):
    """papermill's kernel inherits the runner's environment: with the parent's BLAS set to
    two threads, the kernel still computes at one."""
    from ldp_companion.execution import runner

    source = tmp_path / "99-threads.md"
    source.write_text(
        "---\njupyter:\n  kernelspec:\n    name: python3\n    display_name: Python 3\n---\n\n"
        "```python\nimport numpy\nfrom threadpoolctl import threadpool_info\n"
        "print(sorted({i['num_threads'] for i in threadpool_info()}))\n```\n")
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "2")
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    out = runner.execute(source, tmp_path / "out", record=False)
    import nbformat

    code = [c for c in nbformat.read(out, as_version=4).cells if c.cell_type == "code"]
    printed = code[-1].outputs[0]["text"]
    assert printed.strip() == "[1]"
    assert os.environ["OPENBLAS_NUM_THREADS"] == "2"  # the runner's own setting is back


def test_a_determinism_test_keeps_the_machines_thread_settings():
    """``conftest``'s one-thread limit spares these tests: here the BLAS runs at the count
    the test process started with (two on two cores with the BLAS free, where the limit
    applied here would read one)."""
    from conftest import STARTING_BLAS_THREADS

    assert _blas_threads(0, None) == STARTING_BLAS_THREADS
