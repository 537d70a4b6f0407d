"""How fast each registered mechanism's ``privatize`` runs, against numpy's own samplers.

The yardstick is ``rng.laplace`` on the same number of values (the issue's target: no
mechanism slower); the floor is one uniform draw per value (``rng.random``), which every
mechanism here needs at least.
"""
from __future__ import annotations

import time

import numpy as np
import pandas as pd

from ldp_companion.mechanisms import get_mechanism, mechanism_names
from ldp_companion.validation import check_epsilon, check_positive_int

__all__ = ["best_time", "throughput_table"]


def best_time(fn, repeats: int) -> float:
    """Smallest wall-clock time (s) of ``repeats`` calls of ``fn``."""
    times = []
    for _ in range(check_positive_int(repeats, "repeats")):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def throughput_table(n: int = 10**7, repeats: int = 3, epsilon: float = 1.0,
                     seed: int = 0, names=None) -> pd.DataFrame:
    """Values per second of each mechanism's ``privatize`` on ``n`` inputs uniform in [-1, 1].

    Returns
    -------
    DataFrame indexed by mechanism (plus the rows ``rng.laplace`` and ``rng.random``) with
    columns ``values/s``, ``vs laplace`` (time ratio to ``rng.laplace``, target <= 1) and
    ``vs floor`` (time ratio to ``rng.random``).
    """
    n = check_positive_int(n, "n")
    eps = check_epsilon(epsilon)
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1.0, 1.0, size=n)
    times = {"rng.laplace": best_time(lambda: rng.laplace(0.0, 1.0, size=n), repeats),
             "rng.random": best_time(lambda: rng.random(n), repeats)}
    for name in names or mechanism_names():
        mech = get_mechanism(name, eps)
        times[name] = best_time(lambda mech=mech: mech.privatize(x, rng), repeats)
    t = pd.Series(times)
    return pd.DataFrame({"values/s": n / t, "vs laplace": t / times["rng.laplace"],
                         "vs floor": t / times["rng.random"]}).rename_axis("sampler")
