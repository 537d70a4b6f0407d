"""Appendix B's exercise and its answers, computed by the package (see
:mod:`ldp_companion.page.exercises`). Labels are the ``{exercise}`` labels of the page.

The page's Square Wave class is the reader's own code, so the answers here come from the
closed forms of Sec. B.1 written out once more, independently of it.
"""
from __future__ import annotations

import numpy as np
from scipy import optimize

from ldp_companion.mechanisms import get_mechanism
from ldp_companion.page.exercises import ExerciseSet
from ldp_companion.validation import check_epsilon

__all__ = ["EXERCISES", "WINDOW_B", "WINDOW_EPS", "li_half_width",
           "square_wave_worst_case_variance"]

EXERCISES = ExerciseSet("B-mechanism")

#: The fixed window half-width of the exercise's variant, and the budget it is judged at.
WINDOW_B = 0.5
WINDOW_EPS = 1.0


def li_half_width(epsilon: float) -> float:
    """Li et al.'s window half-width, ``b = (ε e^ε − e^ε + 1) / (2 e^ε (e^ε − 1 − ε))``
    (Sec. B.1)."""
    eps = check_epsilon(epsilon)
    e = np.exp(eps)
    return float((eps * e - np.expm1(eps)) / (2 * e * (np.expm1(eps) - eps)))


def square_wave_worst_case_variance(epsilon: float, b: float | None = None) -> float:
    """Worst-case variance of the debiased Square Wave with window half-width ``b``.

    From Sec. B.1: ``p = e^ε / (2b e^ε + 1)``, ``q = 1 / (2b e^ε + 1)``; at ``v = 1`` (the
    variance is convex in ``v`` and symmetric about 1/2),
    ``E[ỹ] = q (1 + 2b) / 2 + 2b (p − q)``,
    ``E[ỹ²] = q ((1 + b)³ + b³) / 3 + (p − q) (2b + 2b³ / 3)``, and the debiased output's
    variance is ``(2 / (2b (p − q)))² (E[ỹ²] − E[ỹ]²)``.

    Parameters
    ----------
    epsilon : float
    b : float, optional
        Window half-width > 0 (default: :func:`li_half_width`).
    """
    eps = check_epsilon(epsilon)
    b = li_half_width(eps) if b is None else check_epsilon(b, "b")
    return _worst_case_variance(eps, b)


def _worst_case_variance(eps: float, b: float) -> float:
    e = np.exp(eps)
    p, q = e / (2 * b * e + 1), 1 / (2 * b * e + 1)
    gain = 2 * b * (p - q)
    m1 = q * (1 + 2 * b) / 2 + gain
    m2 = q * ((1 + b) ** 3 + b**3) / 3 + (p - q) * (2 * b + 2 * b**3 / 3)
    return float((2 / gain) ** 2 * (m2 - m1**2))


def _window() -> dict:
    best = optimize.minimize_scalar(lambda b: _worst_case_variance(WINDOW_EPS, b),
                                    bounds=(1e-3, 5.0), method="bounded",
                                    options={"xatol": 1e-9})
    pm = get_mechanism("pm", WINDOW_EPS).worst_case_variance()
    return {"var_wide": _worst_case_variance(WINDOW_EPS, WINDOW_B), "b_best": float(best.x),
            "beats_pm": bool(best.fun < pm)}


EXERCISES.add("byom-ex-window", "derive", _window, rtol=1e-3)
