"""The DP conditions of Yang et al. 2021 (TVG): Lemma 3's ζ(δ), the budget ``B`` of
Theorems 1–2 (Eqs. 14, 19) and Theorem 3's ``B_IDN`` (Eq. 21), with the calibration recipe.

Table I's constants: ``ζ(δ)² = −2 ln δ + 2√(−I ln δ) + I`` over the *whole* tensor size ``I``,
``α = s₂²``, ``β = 2 ζ s₂`` and

``B = (−β + √(β² + 8αε))² / (4α²) = (2ε / (s₂ (ζ + √(ζ² + 2ε))))²``;

the last form is the one computed (the others lose digits when ``ζ² ≫ ε``).
"""
from __future__ import annotations

import math

import numpy as np
from scipy.stats import chi2

from ldp_companion.tensor.calibration import (
    check_delta,
    check_value_range,
    idn_c,
    tensor_size,
    zeta,
)
from ldp_companion.tensor.variate import check_covariance
from ldp_companion.validation import check_epsilon

__all__ = ["zeta2", "lemma3_tail", "budget", "budget_forms", "eq18_budget", "shat2",
           "idn_budget", "condition_lhs", "calibrate", "SHAT_CONVENTIONS"]

#: Readings of Theorem 3's ŝ₂: ``"consistent"`` ``(b − a)√I`` (the one its proof, the
#: "I₁ times" claim and Table IV need) and ``"literal"`` ``(b − a)/√I`` (as printed; not DP).
SHAT_CONVENTIONS = ("consistent", "literal")


def zeta2(size, delta) -> float:
    """``ζ(δ)²`` of Lemma 3 for a tensor of ``size`` entries."""
    return zeta(size, delta) ** 2


def lemma3_tail(size, delta) -> float:
    """``Pr[‖N‖² > ζ(δ)²]`` for ``N`` i.i.d. standard normal with ``size`` entries (χ²_I tail);
    Lemma 3 claims it is at most δ."""
    return float(chi2.sf(zeta2(size, delta), tensor_size([size])))


def budget(size, l2_sensitivity, epsilon, delta=1e-5) -> float:
    """``B`` of Theorem 1 (and Theorem 2, UDN): TVG noise is (ε, δ)-DP if
    ``Πₖ ‖Uₖ⁻¹‖²_F ≤ B`` (Eq. 14)."""
    return _budget(tensor_size([size]), check_value_range(l2_sensitivity, "l2_sensitivity"),
                   check_epsilon(epsilon), check_delta(delta))


def _budget(size: int, s2: float, eps: float, delta: float) -> float:
    """:func:`budget` for arguments already checked."""
    return (idn_c(size, eps, delta) / s2) ** 2


def budget_forms(size, l2_sensitivity, epsilon, delta=1e-5) -> dict[str, float]:
    """The four algebraically equal forms of ``B`` (Table I; Eq. 17's positive root squared),
    for checking that the computed one is the same number."""
    z, s2, eps = zeta(size, delta), float(l2_sensitivity), float(epsilon)
    alpha, beta = s2**2, 2.0 * z * s2
    root = math.sqrt(beta**2 + 8.0 * alpha * eps)
    return {"(-β + √(β² + 8αε))² / 4α²": (-beta + root) ** 2 / (4.0 * alpha**2),
            "16ε² / (β + √(β² + 8αε))²": 16.0 * eps**2 / (beta + root) ** 2,
            "((-ζ + √(ζ² + 2ε)) / s₂)²": ((-z + math.sqrt(z * z + 2 * eps)) / s2) ** 2,
            "(2ε / s₂(ζ + √(ζ² + 2ε)))²": (2 * eps / (s2 * (z + math.sqrt(z * z + 2 * eps)))) ** 2}


def eq18_budget(shape, l2_sensitivity, epsilon, delta=1e-5) -> float:
    """Eq. 18: what Theorem 1 gives UDN directly, ``B / (I₂ ⋯ I_N)``; Theorem 2 drops the
    factor."""
    shape = tuple(shape)
    size = tensor_size(shape)
    return budget(size, l2_sensitivity, epsilon, delta) / (size // shape[0])


def shat2(size, value_range, convention: str = "consistent") -> float:
    """Theorem 3's ``ŝ₂`` for entries whose change is at most ``b − a``: ``(b − a)√I``
    (``"consistent"``) or the printed ``(b − a)/√I`` (``"literal"``)."""
    return _shat2(tensor_size([size]), check_value_range(value_range, "value_range"),
                  _check_convention(convention))


def _check_convention(convention: str) -> str:
    if convention not in SHAT_CONVENTIONS:
        raise ValueError(f"convention must be one of {SHAT_CONVENTIONS}, got {convention!r}")
    return convention


def _shat2(size: int, width: float, convention: str) -> float:
    """:func:`shat2` for arguments already checked."""
    return width * math.sqrt(size) if convention == "consistent" else width / math.sqrt(size)


def idn_budget(shape, value_range, epsilon, delta=1e-5, convention: str = "consistent") -> float:
    """``B_IDN = I₁ (−ζ + √(ζ² + 2ε))² / ŝ₂²`` (Theorem 3, Eq. 21): IDN noise
    ``U₁ = diag(σᵢ)`` is (ε, δ)-DP if ``Σᵢ σᵢ⁻² ≤ B_IDN``."""
    shape = tuple(int(s) for s in shape)
    tensor_size(shape)
    return _idn_budget(shape, check_value_range(value_range, "value_range"),
                       check_epsilon(epsilon), check_delta(delta),
                       _check_convention(convention))


def _idn_budget(shape: tuple, width: float, eps: float, delta: float,
                convention: str = "consistent") -> float:
    """:func:`idn_budget` for arguments already checked (``shape`` a tuple of ints ≥ 1)."""
    size = math.prod(shape)
    return shape[0] * (idn_c(size, eps, delta) / _shat2(size, width, convention)) ** 2


def condition_lhs(covariances) -> float:
    """``Πₖ ‖Uₖ⁻¹‖²_F = Πₖ tr Σₖ⁻¹``, the left side of Eq. 14."""
    return float(np.prod([np.trace(np.linalg.inv(check_covariance(s, f"covariances[{k}]")))
                          for k, s in enumerate(covariances)]))


def calibrate(covariances, bound: float) -> list[np.ndarray]:
    """Theorem 1's recipe: scale the shape matrices ``Σₖ⁰`` by one common factor so that
    ``Πₖ tr Σₖ⁻¹ = B`` exactly (only the product of the scales matters, Sec. 2.2)."""
    covs = [check_covariance(s, f"covariances[{k}]") for k, s in enumerate(covariances)]
    c = (condition_lhs(covs) / check_value_range(bound, "bound")) ** (1.0 / len(covs))
    return [c * s for s in covs]
