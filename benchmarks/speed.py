"""Wall-clock timings that used to be asserted in tests: one empirical audit at 10^6 samples per
input, and HierA's LHP + Alg. 5 (mu = 1..5) for 10^6 users. Prints seconds; run with
``OMP_NUM_THREADS=1`` for one-core numbers.

Usage: ``python benchmarks/speed.py``
"""
from __future__ import annotations

import time

import numpy as np

from ldp_companion import hiera as H
from ldp_companion.auditing.audit import empirical_audit
from ldp_companion.mechanisms.laplace import Laplace


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    rng = np.random.default_rng(0)
    audit = timed(lambda: empirical_audit(Laplace(1.0), 1.0, -1.0, 1_000_000, rng))
    print(f"empirical audit, Laplace eps=1, n=10^6 per input: {audit:.3f} s (target < 10 s)")
    L = H.paper_levels(0.5)
    v = H.truncated_gaussian(1_000_000, rng)

    def hiera():
        t_star, bits = H.lhp(v, L, rng)
        for mu in range(1, 6):
            H.aggregate(t_star, bits, L, mu, rng)

    print(f"HierA, 10^6 users, LHP + Alg. 5 for mu = 1..5: {timed(hiera):.3f} s (target < 2 s)")


if __name__ == "__main__":
    main()
