"""Synthetic data on [-1, 1] for Figs. 1-2 (Sec. 6) and the [L, U] -> [-1, 1] scaling (Sec. 4.1).

The paper gives a Gaussian with mean 0.3 and sd 0.2 and an exponential with "sd 0.3" on
[-1, 1], but not how they are confined to [-1, 1]. Default: truncation (the law conditioned
on [-1, 1], sampled exactly by the inverse CDF, which is the law rejection sampling gives);
``mode="clip"`` piles the outside mass on the ends instead. The exponential starts at 0, so
its support is [0, 1] (our reading: the paper gives no location).
"""
from __future__ import annotations

import numpy as np
from scipy import special

from ldp_companion.validation import check_epsilon, check_positive_int, check_rng

__all__ = ["MODES", "uniform", "truncated_gaussian", "truncated_exponential", "scale_to_unit"]

MODES = ("truncate", "clip")


def _check_mode(mode: str) -> str:
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    return mode


def uniform(n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` draws from ``U[-1, 1]``."""
    n = check_positive_int(n, "n")
    return check_rng(rng).uniform(-1.0, 1.0, size=n)


def truncated_gaussian(n: int, rng: np.random.Generator, mean: float = 0.3, sd: float = 0.2,
                       mode: str = "truncate") -> np.ndarray:
    """``n`` draws from ``N(mean, sd^2)`` confined to [-1, 1] (Sec. 6: mean 0.3, sd 0.2).

    Parameters
    ----------
    n : int
    rng : numpy.random.Generator
    mean : float
        Must lie in [-1, 1].
    sd : float
        Finite and > 0.
    mode : {"truncate", "clip"}
    """
    n = check_positive_int(n, "n")
    rng = check_rng(rng)
    sd = check_epsilon(sd, "sd")
    if not -1.0 <= float(mean) <= 1.0:
        raise ValueError(f"mean must lie in [-1, 1], got {mean!r}")
    _check_mode(mode)
    if mode == "clip":
        return np.clip(rng.normal(mean, sd, size=n), -1.0, 1.0)
    lo, hi = special.ndtr((-1.0 - mean) / sd), special.ndtr((1.0 - mean) / sd)
    v = mean + sd * special.ndtri(lo + rng.random(n) * (hi - lo))
    return np.clip(v, -1.0, 1.0)  # clip only removes rounding at the ends


def truncated_exponential(n: int, rng: np.random.Generator, scale: float = 0.3,
                          mode: str = "truncate") -> np.ndarray:
    """``n`` draws from an exponential with scale (= sd) ``scale`` confined to [0, 1].

    Truncated: inverse CDF ``-s log(1 - u (1 - e^{-1/s}))``, mean ``s - 1 / (e^{1/s} - 1)``
    (0.2630 for ``s = 0.3``). Clipped: ``min(X, 1)``, mean ``s (1 - e^{-1/s})`` (0.2893).
    """
    n = check_positive_int(n, "n")
    rng = check_rng(rng)
    s = check_epsilon(scale, "scale")
    _check_mode(mode)
    if mode == "clip":
        return np.minimum(rng.exponential(s, size=n), 1.0)
    return -s * np.log1p(-rng.random(n) * -np.expm1(-1.0 / s))


def scale_to_unit(x, lower=None, upper=None) -> np.ndarray:
    """Map values in ``[L, U]`` to [-1, 1] by ``v' = 2 (v - L) / (U - L) - 1`` (Sec. 4.1).

    ``L`` and ``U`` default to the data's min and max; values outside ``[L, U]`` are refused.
    """
    x = np.asarray(x, dtype=np.float64)
    if x.size == 0 or not np.all(np.isfinite(x)):
        raise ValueError("x must be non-empty and finite")
    lo = float(x.min()) if lower is None else float(lower)
    hi = float(x.max()) if upper is None else float(upper)
    if not hi > lo:
        raise ValueError(f"need upper > lower, got lower={lo:g}, upper={hi:g}")
    if x.min() < lo or x.max() > hi:
        raise ValueError(f"x must lie in [lower, upper] = [{lo:g}, {hi:g}]")
    return np.clip(2.0 * (x - lo) / (hi - lo) - 1.0, -1.0, 1.0)  # clip only removes rounding
