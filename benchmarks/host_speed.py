"""How fast this host is right now: one fixed workload on one thread, in seconds.

The fast-loop goals (chapters, tests) are wall-clock seconds on 2 cores, and the same commit's
``.ci/run`` times on this kind of machine have differed by a factor of 1.6 from one day to the
next (install 80-140 s, chapters 260-479 s). ``.ci/run`` prints this probe before and after
its work, so that a time can be read against the host that produced it: a slow probe with a
slow build is the host, a quick probe with a slow build is the code.

The workload: NumPy's sort, FFT and matrix products (the BLAS at one thread) and a pure-Python
loop, a few hundred milliseconds each on a quiet 2-core x86 host.

The workload runs once alone and then once in each of two processes at the same time: the
chapters and the tests keep both cores busy, and a host whose second core is slow or shared
shows it only in the second figure.

Usage: ``python benchmarks/host_speed.py`` (prints ``host speed: X s for the reference
workload on one core, Y s on each of 2 at once``).
"""
from __future__ import annotations

import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np
from threadpoolctl import threadpool_limits


def workload() -> float:
    """Seconds of the fixed workload (the best of three, so a single hiccup does not count)."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((384, 384))
    x = rng.standard_normal(1_000_000)
    best = float("inf")
    with threadpool_limits(1):
        for _ in range(3):
            start = time.perf_counter()
            for _ in range(120):
                a @ a
            np.sort(x)
            np.fft.rfft(x)
            total = 0
            for i in range(4_000_000):
                total += i % 7
            best = min(best, time.perf_counter() - start)
    return best


def _one(_) -> float:
    return workload()


def both_cores(processes: int = 2) -> float:
    """Seconds of the workload in each of ``processes`` processes running it at once (the
    slowest)."""
    with ProcessPoolExecutor(processes) as pool:
        return max(pool.map(_one, range(processes)))


if __name__ == "__main__":
    print(f"host speed: {workload():.2f} s for the reference workload on one core, "
          f"{both_cores():.2f} s on each of 2 at once (benchmarks/host_speed.py)")
