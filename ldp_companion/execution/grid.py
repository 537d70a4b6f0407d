"""Run an experiment grid (ε × mechanism × data set × seed ...) cell by cell, on one core,
on all cores (joblib) or on a Dask cluster, with the same results every way.

Each cell's random generator is derived from the run's seed and the cell's own key, never
from the order in which cells run: ``SeedSequence(seed, spawn_key=key_words(cell))``. So a
serial run, a joblib run with any number of workers and a Dask run give bit-identical tables,
and a run interrupted and resumed from its on-disk store (:mod:`ldp_companion.execution.grid_store`)
gives the table of an uninterrupted one.
"""
from __future__ import annotations

import hashlib
import os
import pickle
import sys
import time
import warnings
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from ldp_companion.execution import threads
from ldp_companion.execution.grid_store import (
    _MISSING,
    GridStore,
    cell_file,
    fingerprint,
    load_cell,
    open_store,
    save_cell,
)
from ldp_companion.verdicts import run_records

__all__ = ["cell_rng", "key_words", "run_grid", "progress_bar", "PROGRESS_ENV", "JOBS_ENV",
           "GridStore"]

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


def _run_cell(fn, key, seed, inputs=None, path=None):
    with threads.fixed():  # the same BLAS summation order in this process and in a worker
        result = fn(**key, **(inputs or {}), rng=cell_rng(seed, key))
    if path is not None:
        save_cell(path, result)  # in the worker: a killed run keeps every finished cell
    return result


def run_grid(fn: Callable, cells: Sequence[Mapping], seed: int, *, n_jobs: int | None = None,
             scheduler: str | None = None, progress: bool | None = None,
             description: str = "grid", inputs: Callable[[dict], Mapping] | None = None,
             store: GridStore | str | os.PathLike | bool | None = None) -> list:
    """``[fn(**cell, **inputs(cell), rng=cell_rng(seed, cell)) for cell in cells]``, in
    parallel, resumable.

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
    inputs : callable, optional
        ``inputs(cell)`` gives keyword arguments for that cell only, outside its key (e.g. its
        own data set): a worker receives only its cell's inputs, not every cell's.
    store : GridStore, folder, False or None
        Where finished cells are kept (:mod:`ldp_companion.execution.grid_store`): each cell is
        written there when it finishes, and a run with the same function, arguments, code and seed
        reads the finished cells back and computes only the rest. None (default) uses the
        folder named by ``$LDP_COMPANION_GRID_STORE`` when set; False never stores.

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
    started = time.perf_counter()
    extra = _cell_inputs(inputs, cells)
    stored = open_store(store)
    paths = _cell_files(stored, store is not None, fn, seed, description, cells, extra)
    out = [load_cell(p) if p is not None else _MISSING for p in paths]
    todo = [i for i, r in enumerate(out) if r is _MISSING]
    bar = progress_bar(len(cells), description, progress)
    if bar is not None and len(todo) < len(cells):
        bar.update(len(cells) - len(todo))
        print(f"{description}: {len(cells) - len(todo)} of {len(cells)} cells read back from "
              f"{stored.folder}", file=sys.__stderr__, flush=True)
    jobs = [(fn, cells[i], seed, extra[i], paths[i]) for i in todo]
    if scheduler is None and (n_jobs == 1 or len(jobs) <= 1):
        results = []
        for job in jobs:
            results.append(_run_cell(*job))
            if bar is not None:
                bar.update()
    else:
        results = _parallel(jobs, n_jobs, scheduler, bar)
    for i, result in zip(todo, results):
        out[i] = result
        if paths[i] is not None and not paths[i].exists():  # a worker without the folder
            save_cell(paths[i], result)
    if stored is not None:
        stored.reused += len(cells) - len(todo)
        stored.computed += len(todo)
    if bar is not None:
        bar.close()
    _note_grid(description, len(cells), len(todo), n_jobs, scheduler,
               time.perf_counter() - started)
    return out


def _note_grid(description, cells, computed, n_jobs, scheduler, seconds) -> None:
    """Record the grid in the running chapter's ``<chapter>.grids.json`` (by the notebook
    cell that ran it; :mod:`ldp_companion.verdicts.run_records`)."""
    cell = run_records.current_cell()
    if cell is None:
        return
    workers = ("dask" if scheduler is not None else
               1 if n_jobs == 1 or computed <= 1 else n_jobs if n_jobs and n_jobs > 0
               else os.cpu_count() or 1)

    def add(grids: dict) -> None:
        grids.setdefault(str(cell), []).append(
            {"grid": description, "cells": cells, "computed": computed, "workers": workers,
             "seconds": round(seconds, 2)})

    run_records.update("grids", add)


def _cell_inputs(inputs, cells) -> list[dict]:
    if inputs is None:
        return [{} for _ in cells]
    if not callable(inputs):
        raise TypeError(f"inputs must be a function of a cell, got {type(inputs).__name__}")
    extra = []
    for cell in cells:
        given = inputs(cell)
        if not isinstance(given, Mapping) or set(given) & set(cell):
            raise ValueError(f"inputs(cell) must give a mapping of arguments that are not in "
                             f"the cell's key; for {cell} it gave {given!r:.80}")
        extra.append(dict(given))
    return extra


def _cell_files(stored, explicit, fn, seed, description, cells, extra) -> list:
    """Each cell's file in the store (None everywhere without a store)."""
    if stored is None:
        return [None] * len(cells)
    try:
        folder = stored.grid_folder(fn, seed, description, len(cells))
        memo: dict = {}
        digests = []
        for given in extra:  # inputs shared by cells (one data set, many ε) hash once
            ident = tuple((k, id(v)) for k, v in sorted(given.items()))
            if ident not in memo:
                memo[ident] = fingerprint(given) if given else ""
            digests.append(memo[ident])
    except (pickle.PicklingError, TypeError, AttributeError) as exc:
        if explicit:
            raise ValueError(f"grid {description!r} cannot be stored: its function or inputs "
                             f"cannot be hashed ({exc})") from exc
        warnings.warn(f"grid {description!r} runs without the store {stored.folder}: its "
                      f"function or inputs cannot be hashed ({exc})", stacklevel=3)
        return [None] * len(cells)
    return [cell_file(folder, c, d) for c, d in zip(cells, digests)]


#: The start of loky's warning when it restarts a worker (:func:`_parallel` silences it).
_LOKY_RESTART = "A worker stopped while some jobs were given to the executor"


def _parallel(jobs, n_jobs, scheduler, bar):
    import joblib

    jobs = [joblib.delayed(_run_cell)(*job) for job in jobs]
    if scheduler is not None:
        try:
            from distributed import Client
        except ImportError:
            raise ImportError("a Dask scheduler needs dask.distributed: "
                              'pip install "ldp_companion[dask]"') from None
        with Client(scheduler) as _, joblib.parallel_backend("dask"):
            out = joblib.Parallel(return_as="list")(jobs)
        if bar is not None:
            bar.update(len(jobs))
        return out
    workers = n_jobs or os.cpu_count() or 1
    out = []
    with warnings.catch_warnings():
        # loky restarts a worker it finds idle too long or grown too large between two
        # cells, and says so from its manager thread while cells wait in its queue; they run
        # on the other or the new worker, so nothing is lost, and a chapter page must not
        # show the warning with the paths of the machine that built it
        warnings.filterwarnings("ignore", message=_LOKY_RESTART, category=UserWarning)
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
