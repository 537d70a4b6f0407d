"""Run an experiment grid (ε × mechanism × data set × seed ...) cell by cell, on one core,
on all cores (joblib) or on a Dask cluster, with the same results every way.

Each cell's random generator is derived from the run's seed and the cell's own key, never
from the order in which cells run: ``SeedSequence(seed, spawn_key=key_words(cell))``. So a
serial run, a joblib run with any number of workers and a Dask run give bit-identical tables.
"""
from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Mapping, Sequence

import numpy as np

__all__ = ["cell_rng", "key_words", "run_grid", "progress_bar", "PROGRESS_ENV", "JOBS_ENV"]

#: Set to "1" by ``python -m ldp_companion run``: grids run with ``progress=None`` then draw
#: their bars on the terminal that runs the chapter; the built book stays quiet.
PROGRESS_ENV = "LDP_COMPANION_PROGRESS"
#: Workers of a grid run with ``n_jobs=None`` when set (e.g. 1 to keep every grid in its
#: chapter's process when several chapters run side by side).
JOBS_ENV = "LDP_COMPANION_GRID_JOBS"


def key_words(key: Mapping) -> tuple[int, ...]:
    """A cell's key as 32-bit words for ``SeedSequence.spawn_key``: a SHA-256 of the sorted
    ``name=value`` pairs, so that it does not depend on Python's string hashing or on order."""
    if not isinstance(key, Mapping) or not key:
        raise TypeError(f"a cell's key must be a non-empty mapping, got {key!r}")
    text = "\x1f".join(f"{k}={key[k]!r}" for k in sorted(key))
    digest = hashlib.sha256(text.encode()).digest()
    return tuple(int.from_bytes(digest[i:i + 4], "little") for i in range(0, 16, 4))


def cell_rng(seed: int, key: Mapping) -> np.random.Generator:
    """The generator of the grid cell ``key`` in a run with ``seed``."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return np.random.default_rng(np.random.SeedSequence(int(seed), spawn_key=key_words(key)))


def _run_cell(fn, key, seed):
    return fn(**key, rng=cell_rng(seed, key))


def run_grid(fn: Callable, cells: Sequence[Mapping], seed: int, *, n_jobs: int | None = None,
             scheduler: str | None = None, progress: bool | None = None,
             description: str = "grid") -> list:
    """``[fn(**cell, rng=cell_rng(seed, cell)) for cell in cells]``, in parallel.

    Parameters
    ----------
    fn : callable
        Called with the cell's entries as keyword arguments and ``rng``; must be picklable
        (a module-level function) when ``n_jobs != 1``.
    cells : sequence of mappings
        One key per cell, e.g. ``{"mechanism": "pm", "epsilon": 1.0, "run": 3}``; keys must be
        distinct.
    seed : int
        The run's seed.
    n_jobs : int, optional
        Worker processes (joblib); ``None`` uses :data:`JOBS_ENV` when set, else every core;
        1 runs in this process.
    scheduler : str, optional
        Address of a ``dask.distributed`` scheduler ("tcp://host:8786"): the cells run on that
        cluster through joblib's ``dask`` backend (``pip install "ldp_companion[dask]"``).
    progress : bool, optional
        Show a progress bar: True draws one where the call runs (tqdm; a widget in a
        notebook); None (default) draws one only when :data:`PROGRESS_ENV` is "1", on the
        terminal (see :func:`progress_bar`); False never.
    description : str
        The bar's label.

    Returns
    -------
    list
        The cells' results, in the order of ``cells`` whatever the order they ran in.
    """
    cells = [dict(c) for c in cells]
    words = [key_words(c) for c in cells]
    if len(set(words)) != len(words):
        raise ValueError("two cells have the same key: every cell needs its own")
    if n_jobs is not None and (isinstance(n_jobs, bool) or not isinstance(n_jobs, int)
                               or n_jobs == 0 or n_jobs < -1):
        raise ValueError(f"n_jobs must be a positive integer, -1 or None, got {n_jobs!r}")
    if n_jobs is None and os.environ.get(JOBS_ENV, "").isdigit():
        n_jobs = max(1, int(os.environ[JOBS_ENV]))
    bar = progress_bar(len(cells), description, progress)
    if scheduler is None and (n_jobs == 1 or len(cells) <= 1):
        out = []
        for cell in cells:
            out.append(_run_cell(fn, cell, seed))
            if bar is not None:
                bar.update()
    else:
        out = _parallel(fn, cells, seed, n_jobs, scheduler, bar)
    if bar is not None:
        bar.close()
    return out


def _parallel(fn, cells, seed, n_jobs, scheduler, bar):
    import joblib

    jobs = [joblib.delayed(_run_cell)(fn, cell, seed) for cell in cells]
    if scheduler is not None:
        try:
            from distributed import Client
        except ImportError:
            raise ImportError("a Dask scheduler needs dask.distributed: "
                              'pip install "ldp_companion[dask]"') from None
        with Client(scheduler) as _, joblib.parallel_backend("dask"):
            out = joblib.Parallel(return_as="list")(jobs)
        if bar is not None:
            bar.update(len(cells))
        return out
    workers = n_jobs or os.cpu_count() or 1
    out = []
    for result in joblib.Parallel(n_jobs=workers, return_as="generator")(jobs):
        out.append(result)
        if bar is not None:
            bar.update()
    return out


def progress_bar(total: int, description: str, progress: bool | None = None):
    """A tqdm bar for a loop of ``total`` steps, or None when no progress is wanted.

    ``progress=True``: ``tqdm.auto`` (a widget in a live notebook, text elsewhere).
    ``progress=None``: a text bar on the process's original standard error when the
    environment variable :data:`PROGRESS_ENV` is "1" (papermill's kernel inherits that
    stream from ``python -m ldp_companion run``, so the bar shows on the terminal and never
    in the executed notebook), otherwise none. ``progress=False``: none.
    """
    if progress is False or (progress is None and os.environ.get(PROGRESS_ENV) != "1"):
        return None
    if progress is None:
        import sys

        from tqdm import tqdm

        return tqdm(total=total, desc=description, leave=False, file=sys.__stderr__,
                    mininterval=1.0)
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=description, leave=False)
