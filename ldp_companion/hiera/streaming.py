"""HierA over a stream of users (Alg. 5 on counts that add up over blocks).

LHP reports are summarised by their ``(k, 2)`` report counts, which add up over any split of
the users; Alg. 5 (pools, PLC, the estimate) then runs once on the sum. So
:func:`ldp_companion.execution.streaming.stream_mean` and
:func:`~ldp_companion.execution.streaming.simulate_mean` estimate a mean over 10^9 users with one
block of users in memory at a time.
"""
from __future__ import annotations

import numpy as np

from ldp_companion.hiera.aggregate import aggregate_counts, check_mu, report_counts
from ldp_companion.hiera.levels import Levels
from ldp_companion.hiera.protocol import lhp
from ldp_companion.validation import check_rng

__all__ = ["HierASummary"]


class HierASummary:
    """Streaming HierA: ``block`` returns ``[n, sum v, counts (k x 2, flattened)]``.

    Parameters
    ----------
    levels : Levels
    mu : int
        Pool size of Alg. 5.
    **options
        Of :func:`~ldp_companion.hiera.aggregate.pool_sums` (``rule``, ``clip``, ...).
    """

    def __init__(self, levels: Levels, mu: int = 2, **options):
        if not isinstance(levels, Levels):
            raise TypeError(f"levels must be a Levels, got {type(levels).__name__}")
        self.levels, self.mu, self.options = levels, check_mu(mu, levels.k), options

    def __repr__(self) -> str:
        return f"HierASummary(k={self.levels.k}, mu={self.mu})"

    def block(self, v: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        counts = report_counts(*lhp(v, self.levels, rng), self.levels.k)
        return np.concatenate([[v.size, v.sum()], counts.ravel()]).astype(np.float64)

    def finish(self, total: np.ndarray, rng: np.random.Generator) -> dict:
        n, sv = total[:2]
        counts = np.rint(total[2:]).astype(np.int64).reshape(self.levels.k, 2)
        est = aggregate_counts(counts, self.levels, self.mu, check_rng(rng), **self.options)
        return {"n": int(n), "truth": sv / n, "estimate": float(est)}
