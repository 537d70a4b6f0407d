"""Argument checks shared by the package.

Every public function validates its inputs here so that bad input gets one kind of error:
a ``TypeError`` for the wrong kind of object, a ``ValueError`` naming the argument and the
allowed range otherwise. Nothing is silently clipped, cast or dropped.
"""
from __future__ import annotations

import numbers

import numpy as np

__all__ = ["check_epsilon", "check_epsilons", "check_unit_interval", "check_rng",
           "check_probability", "check_positive_int"]


def check_epsilon(epsilon, name: str = "epsilon") -> float:
    """Return ``epsilon`` as a float after checking it is a finite real number > 0."""
    if isinstance(epsilon, bool) or not isinstance(epsilon, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(epsilon).__name__}")
    value = float(epsilon)
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be finite and > 0, got {epsilon!r}")
    return value


def check_epsilons(epsilon, name: str = "epsilon") -> np.ndarray:
    """Return ``epsilon`` (a scalar or an array, e.g. an ε grid) as a float array after
    checking every entry is a finite real number > 0."""
    arr = np.asarray(epsilon)
    if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.integer)
                                 or np.issubdtype(arr.dtype, np.floating)):
        raise TypeError(f"{name} must hold real numbers, got dtype {arr.dtype}")
    arr = arr.astype(np.float64)
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ValueError(f"{name} must be finite and > 0, got {epsilon!r}")
    return arr


def check_unit_interval(x, name: str = "x", clip: bool = False, low: float = -1.0) -> np.ndarray:
    """Return ``x`` as a float array with every entry in [low, 1] (default [-1, 1]).

    Parameters
    ----------
    x : array_like
        Real numbers (any shape). Booleans, strings and complex numbers are refused.
    name : str
        Argument name used in error messages.
    clip : bool
        If True, values outside [low, 1] are clipped instead of refused. NaN and inf are
        refused either way.
    low : {-1.0, 0.0}
        Lower end of the interval: -1 (the scalar mechanisms' domain) or 0 (data in [0, 1]).
    """
    arr = np.asarray(x)
    if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.integer)
                                 or np.issubdtype(arr.dtype, np.floating)):
        raise TypeError(f"{name} must hold real numbers, got dtype {arr.dtype}")
    arr = arr.astype(np.float64, copy=False)
    if not arr.size:
        return arr
    lo, hi = arr.min(), arr.max()  # NaN propagates into both, inf shows at an end
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    if clip:
        return np.clip(arr, low, 1.0)
    if lo < low or hi > 1.0:
        raise ValueError(f"{name} must lie in [{low:g}, 1]; got values in "
                         f"[{lo:.6g}, {hi:.6g}] (pass clip=True to clip)")
    return arr


def check_rng(rng) -> np.random.Generator:
    """Require an explicit ``numpy.random.Generator`` (the book's determinism contract)."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError("rng must be a numpy.random.Generator "
                        f"(e.g. numpy.random.default_rng(seed)), got {type(rng).__name__}")
    return rng


def check_probability(p, name: str = "p") -> np.ndarray:
    """Return ``p`` as a float array after checking every entry is in [0, 1]."""
    arr = np.asarray(p, dtype=np.float64)
    if not np.all(np.isfinite(arr)) or arr.min(initial=0.0) < 0 or arr.max(initial=0.0) > 1:
        raise ValueError(f"{name} must be probabilities in [0, 1]")
    return arr


def check_positive_int(n, name: str = "n") -> int:
    """Return ``n`` as an int after checking it is an integer >= 1."""
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(n).__name__}")
    if n < 1:
        raise ValueError(f"{name} must be >= 1, got {n}")
    return int(n)
