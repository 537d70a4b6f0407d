"""Mean estimation over 10^7, 10^8 and 10^9 simulated users, streamed in blocks.

For PM (ε = 1) and HierA (paper levels at base ε = 1, μ = 2): users uniform on [-1, 1] are
drawn, privatized and summed block by block
(:func:`ldp_companion.execution.streaming.simulate_mean`). Prints, per size: wall time on
``--n-jobs`` workers, the cost per user, the peak memory of the blocks (tracemalloc, in-process with
one worker over four blocks: it does not grow with n) and the error against its standard error.

Usage: ``python benchmarks/streaming.py [--sizes 1e7 1e8 1e9] [--n-jobs -1] [--block 1048576]``
"""
from __future__ import annotations

import argparse
import os
import time
import tracemalloc

from ldp_companion import get_mechanism
from ldp_companion import hiera as H
from ldp_companion.execution.streaming import BLOCK, ScalarSummary, simulate_mean
from ldp_companion.hiera.streaming import HierASummary


def summaries() -> dict:
    """Name -> (summary, the estimate's standard deviation for n uniform users)."""
    levels = H.paper_levels(1.0)
    var_hiera = H.mean_user_variance(H.uniform_summary(levels), levels, "hiera", 2)
    return {"PM": (ScalarSummary(get_mechanism("pm", 1.0)), None),
            "HierA mu=2": (HierASummary(levels, mu=2), lambda n: (var_hiera / n) ** 0.5)}


def peak_mib(summary, n: int, block: int) -> float:
    """Peak traced allocation (MiB) of a one-worker run over ``n`` users."""
    tracemalloc.start()
    simulate_mean(summary, n, seed=0, block=block, n_jobs=1)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[1e7, 1e8, 1e9])
    parser.add_argument("--n-jobs", type=int, default=-1)
    parser.add_argument("--block", type=int, default=BLOCK)
    args = parser.parse_args(argv)
    workers = os.cpu_count() if args.n_jobs == -1 else args.n_jobs
    print(f"blocks of {args.block:,} users, {workers} worker(s)")
    print(f"{'estimator':<12} {'users':>8} {'seconds':>8} {'ns/user':>8} {'peak MiB':>9} "
          f"{'error/se':>9}")
    for name, (summary, sd) in summaries().items():
        for size in args.sizes:
            n = int(size)
            peak = peak_mib(summary, min(n, 4 * args.block), args.block)
            start = time.perf_counter()
            out = simulate_mean(summary, n, seed=1, block=args.block, n_jobs=args.n_jobs)
            seconds = time.perf_counter() - start
            se = out["se"] if sd is None else sd(n)
            z = f"{(out['estimate'] - out['truth']) / se:9.2f}"
            print(f"{name:<12} {n:8.0e} {seconds:8.1f} {seconds / n * 1e9 * workers:8.1f} "
                  f"{peak:9.1f} {z}  estimate {out['estimate']:+.2e}, truth {out['truth']:+.2e}",
                  flush=True)
    print("ns/user is CPU time per user (wall time x workers / users); error/se is the "
          "estimate's error over its standard error (PM: sample; HierA: predicted, Sec. 4).")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
