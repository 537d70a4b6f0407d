"""Time to perturb a batch of 10,000 MNIST-sized (28×28) images with every mechanism of
``ldp_companion.tensor`` and TLDP, on one core (the acceptance bar of chapter 1: under 1 s).

Run: ``OMP_NUM_THREADS=1 python benchmarks/tensor_noise.py`` (prints a table; best of 3).
"""
from __future__ import annotations

import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np

from ldp_companion.tldp.mechanisms import perturb

NAMES = ["tldp_l", "tldp_g", "tldp_l_w", "tldp_g_w", "laplace", "gaussian", "idn", "mvg"]


def best_of(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (10_000, 28, 28))
    floor = best_of(lambda: rng.laplace(0.0, 1.0, x.shape))
    print(f"numpy rng.laplace on the same {x.size:,} values: {floor:.3f} s")
    print("| mechanism | ε = 1 (p = 0) s | ε = 0.001 (p > 0) s |")
    print("|---|---|---|")
    for name in NAMES:
        t1 = best_of(lambda name=name: perturb(name, x, 1.0, value_range=2.0, rng=rng))
        t2 = best_of(lambda name=name: perturb(name, x, 1e-3, value_range=2.0, rng=rng))
        print(f"| {name} | {t1:.3f} | {t2:.3f} |")


if __name__ == "__main__":
    main()
