"""One thread count for every computation whose numbers the book shows.

A BLAS sums a long dot product in pieces, one per thread, and adds the pieces: two thread
counts give two summation orders and results that differ in the last bits. A grid cell that
runs in the chapter's own process would use every core's thread, the same cell in a joblib
worker one thread (loky limits its workers), so a table would depend on ``n_jobs``, on the
machine and on ``OPENBLAS_NUM_THREADS``. The book fixes the count instead:

- a chapter's kernel starts with :func:`kernel_env` (the BLAS, OpenMP and torch read it when
  they load): :mod:`ldp_companion.execution.runner` passes it to papermill's kernel;
- every grid cell, in process, in a worker or on a Dask cluster, runs inside
  :func:`fixed` (threadpoolctl, and torch's intra-op threads when torch is loaded).

The count is 1, or ``$LDP_COMPANION_THREADS``. Results are bit-identical on one machine and
one set of package versions whatever ``n_jobs``, the scheduler and the machine's own thread
settings, as long as this count stays the same: a run with another count computes the same
verdicts, but its numbers may differ in the last bits.
"""
from __future__ import annotations

import os
import sys
from contextlib import contextmanager

__all__ = ["THREADS_ENV", "count", "kernel_env", "fixed"]

#: Threads of every BLAS/OpenMP call in a chapter's kernel and in a grid cell (default 1).
THREADS_ENV = "LDP_COMPANION_THREADS"

#: The variables the numerical libraries read when they load.
_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
              "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")


def count() -> int:
    """The thread count in force: :data:`THREADS_ENV` when set, else 1."""
    text = os.environ.get(THREADS_ENV, "1").strip() or "1"
    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"{THREADS_ENV} must be a positive integer, got {text!r}")
    return int(text)


def kernel_env() -> dict[str, str]:
    """The environment variables that start a chapter's kernel at :func:`count` threads."""
    n = str(count())
    return {name: n for name in _VARIABLES}


_CONTROLLER: dict = {}


def _controller():
    """threadpoolctl's view of the loaded thread pools, found again only when modules were
    imported since (finding them takes milliseconds, limiting them microseconds)."""
    from threadpoolctl import ThreadpoolController

    if _CONTROLLER.get("modules") != len(sys.modules):
        _CONTROLLER.update(modules=len(sys.modules), controller=ThreadpoolController())
    return _CONTROLLER["controller"]


@contextmanager
def fixed(threads: int | None = None):
    """Run the block with ``threads`` BLAS/OpenMP threads (default :func:`count`), and as
    many torch intra-op threads when torch is loaded; the previous settings come back after.
    """
    n = count() if threads is None else threads
    torch = sys.modules.get("torch")
    before = torch.get_num_threads() if torch is not None else None
    if torch is not None and before != n:
        torch.set_num_threads(n)
    try:
        with _controller().limit(limits=n):
            yield n
    finally:
        if torch is not None and before != n:
            torch.set_num_threads(before)
