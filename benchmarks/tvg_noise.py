"""Time and extra memory of TVG noise at the paper's shapes (chapter 2's acceptance bar:
IDN noise for a 3136×512 gradient in under 1 s and under 100 MB; TVG noise for a 64×64×64
tensor by mode products, never through the 262,144² Kronecker covariance).

Run: ``OMP_NUM_THREADS=1 python benchmarks/tvg_noise.py`` (prints a table; best of 3).
"""
from __future__ import annotations

import os
import time
import tracemalloc

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np

from ldp_companion.tensor.variate import sample_tvg
from ldp_companion.tvg.release import directional_release, iid_release


def measure(fn, repeat: int = 3) -> tuple[float, float]:
    """(best wall time in s, peak extra memory traced by Python's allocator in MB)."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return min(times), peak / 2**20


def main() -> None:
    rng = np.random.default_rng(0)
    grad = rng.uniform(-1e-4, 1e-4, (3136, 512))
    w = rng.standard_normal((512, 3136)) / 56
    spd = [(lambda a: a @ a.T + 64 * np.eye(64))(rng.standard_normal((64, 64)))
           for _ in range(3)]
    cases = {
        "IDN, W = E (Alg. 1: equal σ), 3136×512 (Type I MNIST)":
            lambda: iid_release("idn", grad, 1.0, rng=rng, value_range=2e-4),
        "IDN, W 512×3136 (Alg. 1: σᵢ per row), 3136×512":
            lambda: directional_release("idn", grad, w, 1.0, rng=rng, value_range=2e-4),
        "UDN, W 512×3136, 3136×512":
            lambda: directional_release("udn", grad, w, 1.0, rng=rng, value_range=2e-4),
        "TVG, three 64×64 covariances, 64×64×64":
            lambda: sample_tvg((64, 64, 64), rng=rng, covariances=spd),
    }
    print(f"the released array itself: {grad.nbytes / 2**20:.1f} MB")
    print("| noise | best of 3 (s) | peak extra memory (MB) |")
    print("|---|---|---|")
    for name, fn in cases.items():
        t, mb = measure(fn)
        print(f"| {name} | {t:.3f} | {mb:.1f} |")


if __name__ == "__main__":
    main()
