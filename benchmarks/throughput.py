"""Throughput of every registered mechanism's ``privatize`` against numpy's Laplace sampler.

For each mechanism at ``epsilon = 1``: time ``privatize`` on ``n`` inputs uniform in [-1, 1]
(float64; input validation included) and ``rng.laplace(0, 1, size=n)``, best of ``repeats``
runs each, and print values per second and the ratio of the times. Target: every ratio <= 4
on one core (run with ``OMP_NUM_THREADS=1``).

Usage: ``python benchmarks/throughput.py [--n 10000000] [--repeats 3] [--epsilon 1]``
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from ldp_companion import get_mechanism, mechanism_names

TARGET_RATIO = 4.0


def best_time(fn, repeats: int) -> float:
    """Smallest wall-clock time of ``repeats`` calls of ``fn``."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10**7)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    rng = np.random.default_rng(args.seed)
    x = rng.uniform(-1.0, 1.0, size=args.n)
    t_lap = best_time(lambda: rng.laplace(0.0, 1.0, size=args.n), args.repeats)
    print(f"n = {args.n:.0e}, epsilon = {args.epsilon:g}, best of {args.repeats}")
    print(f"{'rng.laplace':<14} {args.n / t_lap:12.3e} values/s")
    print(f"{'mechanism':<14} {'values/s':>12} {'ratio':>7}")
    worst = 0.0
    for name in mechanism_names():
        mech = get_mechanism(name, args.epsilon)
        t = best_time(lambda: mech.privatize(x, rng), args.repeats)
        worst = max(worst, t / t_lap)
        print(f"{name:<14} {args.n / t:12.3e} {t / t_lap:7.2f}")
    verdict = "meets" if worst <= TARGET_RATIO else "MISSES"
    print(f"worst ratio {worst:.2f}: {verdict} the target <= {TARGET_RATIO:g}")
    return 0 if worst <= TARGET_RATIO else 1


if __name__ == "__main__":
    raise SystemExit(main())
