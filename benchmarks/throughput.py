"""Throughput of every registered mechanism's ``privatize`` against numpy's Laplace sampler.

For each mechanism at ``epsilon = 1``: time ``privatize`` on ``n`` inputs uniform in [-1, 1]
(float64; input validation included) and ``rng.laplace(0, 1, size=n)``, best of ``repeats``
runs each (:func:`ldp_companion.mechanisms.throughput.throughput_table`), and print values per
second and the ratio of the times. Target: every ratio <= 1 on one core (run with
``OMP_NUM_THREADS=1``): no mechanism slower than numpy's own Laplace sampler. The floor is
one uniform draw per value (``rng.random``); the last column says how many times that floor
each mechanism takes.

Usage: ``python benchmarks/throughput.py [--n 10000000] [--repeats 3] [--epsilon 1]``
"""
from __future__ import annotations

import argparse

from ldp_companion.mechanisms.throughput import throughput_table

TARGET_RATIO = 1.0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10**7)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    table = throughput_table(args.n, args.repeats, args.epsilon, args.seed)
    print(f"n = {args.n:.0e}, epsilon = {args.epsilon:g}, best of {args.repeats}")
    print(table.to_string(float_format=lambda v: f"{v:.3g}"))
    worst = table.drop(["rng.laplace", "rng.random"])["vs laplace"].max()
    verdict = "meets" if worst <= TARGET_RATIO else "MISSES"
    print(f"worst ratio {worst:.2f}: {verdict} the target <= {TARGET_RATIO:g}")
    return 0 if worst <= TARGET_RATIO else 1


if __name__ == "__main__":
    raise SystemExit(main())
