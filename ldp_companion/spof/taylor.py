"""The binary cross-entropy of Eq. 6 and its second-order Taylor polynomial (Eqs. 7–12).

The loss of one feature is ``x log(1 + e^{-z}) + (1 - x) log(1 + e^{z}) = sp(z) - x z`` with
``sp`` the softplus; the identity is exact. Around ``a = 0`` its exact expansion is
``log 2 + (1/2 - x) z + z²/8 - z⁴/192 + ...``. The paper prints ``α₃ = 0.5 x - 0.25`` (Eq. 12):
a sign error on ``f₂''`` and a missing factor ½ in Eqs. 9–11. Both coefficient sets are here.
"""
from __future__ import annotations

import math

import numpy as np

from ldp_companion.validation import check_unit_interval

__all__ = ["VARIANTS", "bce", "coefficients", "polynomial", "softplus_derivatives",
           "paper_derivatives", "max_error", "remainder_bound"]

#: Coefficient sets: ``"paper"`` (Eq. 12) and ``"exact"`` (the true Taylor coefficients).
VARIANTS = ("paper", "exact")


def _variant(variant: str) -> str:
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
    return variant


def bce(x, z):
    """Binary cross-entropy of Eq. 6 per feature, ``sp(z) - x z`` (overflow-free).

    Parameters
    ----------
    x : array_like
        Targets in [0, 1].
    z : array_like
        Logits (broadcast against ``x``).

    Returns
    -------
    ndarray
        ``x log(1 + e^{-z}) + (1 - x) log(1 + e^{z})``.
    """
    x = check_unit_interval(x, "x", low=0.0)
    z = np.asarray(z, dtype=float)
    return np.logaddexp(0.0, z) - x * z


def coefficients(x, variant: str = "paper"):
    """Taylor coefficients ``(α₁, α₂, α₃)`` of the loss at ``a = 0`` (Eq. 12).

    Parameters
    ----------
    x : array_like
        Targets in [0, 1].
    variant : {"paper", "exact"}
        ``"paper"``: ``α₂ = 0.5 - x``, ``α₃ = 0.5 x - 0.25`` (Eq. 12 as printed);
        ``"exact"``: ``α₂ = 0.5 - x``, ``α₃ = 1/8`` (the true second-order coefficient).

    Returns
    -------
    tuple of ndarray
        ``α₁ = log 2`` (data-independent), ``α₂``, ``α₃``, each of the shape of ``x``.
    """
    x = check_unit_interval(x, "x", low=0.0)
    a2 = 0.5 - x
    if _variant(variant) == "paper":
        a3 = 0.5 * x - 0.25
    else:
        a3 = np.full_like(x, 0.125)
    return np.full_like(x, math.log(2.0)), a2, a3


def polynomial(x, z, variant: str = "paper"):
    """The second-order polynomial ``α₁ + α₂ z + α₃ z²`` of one feature (Eq. 12)."""
    a1, a2, a3 = coefficients(x, variant)
    z = np.asarray(z, dtype=float)
    return a1 + a2 * z + a3 * z * z


def softplus_derivatives(rmax: int) -> list:
    """Exact derivatives ``sp^{(r)}(0)`` for ``r = 0..rmax`` (sympy rationals; ``r = 0`` is log 2).

    ``sp'(z) = σ(z)``, so ``sp^{(r)}(0) = σ^{(r-1)}(0)``: the series of σ has radius π, and the
    even-order derivatives grow like ``2 (r-1)! / π^r`` — no finite G bounds them all (Prop. 1).
    """
    import sympy

    if isinstance(rmax, bool) or not isinstance(rmax, int) or rmax < 1:
        raise ValueError(f"rmax must be an integer >= 1, got {rmax!r}")
    z = sympy.symbols("z")
    series = sympy.series(sympy.log(1 + sympy.exp(z)), z, 0, rmax + 1).removeO()
    poly = sympy.Poly(series, z)
    return [sympy.log(2)] + [poly.coeff_monomial(z**r) * sympy.factorial(r)
                             for r in range(1, rmax + 1)]


def paper_derivatives(x, a: float = 0.0):
    """The derivatives of ``f₁ = x log(1 + e^{-z})`` and ``f₂ = (1 - x) log(1 + e^{z})`` at ``a``
    as the paper lists them (Sec. IV, above Eq. 9), ``(f₁', f₁'', f₂', f₂'')`` — with its minus sign
    on ``f₂''``."""
    x = check_unit_interval(x, "x", low=0.0)
    e = math.exp(a)
    return (-x / (1 + e), x * e / (1 + e) ** 2, (1 - x) / (1 + 1 / e),
            -(1 - x) * (1 / e) / (1 + 1 / e) ** 2)


def max_error(delta: float, variant: str, n_grid: int = 401) -> float:
    """Largest ``|bce(x, z) - polynomial(x, z)|`` over ``x ∈ [0, 1]``, ``|z| ≤ δ`` (grid; the
    error is linear in ``x``, so the ends x = 0, 1 are on the grid)."""
    if not delta > 0:
        raise ValueError(f"delta must be > 0, got {delta!r}")
    x = np.linspace(0.0, 1.0, 11)[:, None]
    z = np.linspace(-delta, delta, n_grid)[None, :]
    return float(np.abs(bce(x, z) - polynomial(x, z, variant)).max())


def remainder_bound(delta):
    """A valid replacement for Prop. 1: ``|R₂(z)| ≤ z⁴/192`` per feature, because
    ``sp'''(0) = 0`` and ``max |σ'''| = 1/8``."""
    return np.asarray(delta, dtype=float) ** 4 / 192.0
