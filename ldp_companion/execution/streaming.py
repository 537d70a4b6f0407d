"""Mean estimation over a stream of users: blocks in, bounded memory, any number of users.

A mean estimator is split into a *summary* with two steps:

* ``block(v, rng)``: the privatized statistics of one block of users, as a small float
  array that adds up over blocks (counts, sums);
* ``finish(total, rng)``: the estimate from the sum of the blocks' arrays.

:class:`ScalarSummary` does this for every scalar mechanism (sums of the outputs); HierA's
counts add up the same way (:class:`ldp_companion.hiera.streaming.HierASummary`). Two drivers
use a summary:

* :func:`stream_mean`: the users' values are given (an array, a Dask array or any iterable
  of blocks) and pass once, one block in memory at a time;
* :func:`simulate_mean`: ``n`` simulated users drawn block by block, each block a cell of
  :func:`~ldp_companion.execution.grid.run_grid`, so blocks run on every core (or a Dask cluster)
  and the estimate does not depend on how they were spread. Each worker holds a few blocks
  (16 MiB for PM, 48 MiB for HierA at the default block), never the 8 GB of an array of
  10^9 values (``benchmarks/streaming.py``).
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from functools import partial

import numpy as np

from ldp_companion.execution.grid import cell_rng, run_grid
from ldp_companion.mechanisms.base import ScalarMechanism
from ldp_companion.validation import check_positive_int

__all__ = ["BLOCK", "ScalarSummary", "iter_blocks", "stream_mean", "simulate_mean",
           "uniform_users"]

#: Users per block: 2^20 (8 MiB of float64 values).
BLOCK = 1 << 20


class ScalarSummary:
    """Streaming mean of a scalar mechanism's outputs (the estimate of ``E[v]``, unbiased).

    ``block`` returns ``[n, sum v, sum y, sum y^2]``; ``finish`` returns the estimate
    ``sum y / n``, its standard error ``sqrt((mean y^2 - mean y^2) / n)`` and the true mean
    ``sum v / n`` of the users seen.

    Parameters
    ----------
    mechanism : ScalarMechanism
    """

    size = 4

    def __init__(self, mechanism: ScalarMechanism):
        if not isinstance(mechanism, ScalarMechanism):
            raise TypeError(f"mechanism must be a ScalarMechanism, got {type(mechanism).__name__}")
        self.mechanism = mechanism

    def __repr__(self) -> str:
        return f"ScalarSummary({self.mechanism!r})"

    def block(self, v: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        y = self.mechanism.privatize(v, rng)
        return np.array([v.size, v.sum(), y.sum(), np.dot(y, y)], dtype=np.float64)

    def finish(self, total: np.ndarray, rng: np.random.Generator | None = None) -> dict:
        n, sv, sy, syy = total
        mean = sy / n
        return {"n": int(n), "truth": sv / n, "estimate": mean,
                "se": math.sqrt(max(syy / n - mean**2, 0.0) / n)}


def iter_blocks(data, block: int = BLOCK) -> Iterator[np.ndarray]:
    """The values of ``data`` as 1-d float64 blocks, in order.

    Parameters
    ----------
    data : ndarray, Dask array or iterable of array_like
        An array is cut into blocks of ``block`` entries (views, no copy); a Dask array is
        computed one of its own blocks at a time; any other iterable yields its items.
    block : int
        Block length for arrays.
    """
    block = check_positive_int(block, "block")
    if isinstance(data, np.ndarray):
        flat = data.reshape(-1)
        for start in range(0, flat.size, block):
            yield flat[start:start + block].astype(np.float64, copy=False)
    elif hasattr(data, "blocks") and hasattr(data, "numblocks"):  # a Dask array
        for idx in np.ndindex(*data.numblocks):
            yield np.asarray(data.blocks[idx].compute(), dtype=np.float64).reshape(-1)
    elif isinstance(data, Iterable) and not isinstance(data, (str, bytes)):
        for item in data:
            yield np.asarray(item, dtype=np.float64).reshape(-1)
    else:
        raise TypeError("data must be an array, a Dask array or an iterable of arrays, "
                        f"got {type(data).__name__}")


def _check_summary(summary):
    if not (callable(getattr(summary, "block", None))
            and callable(getattr(summary, "finish", None))):
        raise TypeError("summary must have block(v, rng) and finish(total, rng) "
                        f"(e.g. ScalarSummary), got {type(summary).__name__}")
    return summary


def stream_mean(summary, data, rng: np.random.Generator, block: int = BLOCK) -> dict:
    """One pass of ``summary`` over ``data`` (:func:`iter_blocks`), one block in memory.

    For the scalar mechanisms, which draw one uniform per value in order, the estimate is
    that of privatizing all the values in one call, whatever the blocks.

    Returns
    -------
    dict
        ``summary.finish`` of the blocks' sum (``n``, ``estimate``, ...).
    """
    summary = _check_summary(summary)
    total = None
    for v in iter_blocks(data, block):
        if v.size:
            part = summary.block(v, rng)
            total = part if total is None else total + part
    if total is None:
        raise ValueError("data holds no values")
    return summary.finish(total, rng)


def uniform_users(size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` users with values uniform on [-1, 1] (true mean 0)."""
    return rng.uniform(-1.0, 1.0, size)


def _simulated_block(block, rng, *, summary, law, n, size):
    m = min(size, n - block * size)
    return summary.block(law(m, rng), rng)


def simulate_mean(summary, n: int, seed: int, *,
                  law: Callable[[int, np.random.Generator], np.ndarray] = uniform_users,
                  block: int = BLOCK, n_jobs: int | None = None, scheduler: str | None = None,
                  progress: bool | None = None) -> dict:
    """Estimate the mean of ``n`` simulated users, block by block, in parallel.

    Parameters
    ----------
    summary : ScalarSummary or HierASummary
    n : int
        Users.
    seed : int
        Block ``i`` is the :func:`~ldp_companion.execution.grid.run_grid` cell ``{"block": i}``; the
        final step (HierA's PLC coins) draws from the cell ``{"finish": 0}``.
    law : callable
        ``law(size, rng)`` draws ``size`` user values in [-1, 1]; module level when
        ``n_jobs != 1`` (workers pickle it).
    block : int
        Users per block (memory per worker is a few arrays of this length).
    n_jobs, scheduler, progress
        As in :func:`~ldp_companion.execution.grid.run_grid`; the result does not depend on them.

    Returns
    -------
    dict
        ``summary.finish`` (``n``, ``truth``: the simulated users' mean, ``estimate``, ...).
    """
    summary = _check_summary(summary)
    n = check_positive_int(n, "n")
    block = check_positive_int(block, "block")
    cells = [{"block": i} for i in range(-(-n // block))]
    fn = partial(_simulated_block, summary=summary, law=law, n=n, size=block)
    parts = run_grid(fn, cells, seed, n_jobs=n_jobs, scheduler=scheduler, progress=progress,
                     description=f"{n:.0e} users")
    return summary.finish(np.sum(parts, axis=0), cell_rng(seed, {"finish": 0}))
