"""Independent references for the checks of chapter 2 (TVG, Yang et al. 2021): the paper's
printed formulas typed again from the paper and evaluated in 50-digit arithmetic (mpmath), and
the exact privacy profile of the Gaussian mechanism solved in the same arithmetic.

Nothing here calls the package's bounds, noise, calibration, optimisation or audit code, so a
slip in those (a constant, a dropped term, a factor in a noise scale) shows as a mismatch
between the function a mechanism calls and the value computed here. The formulas are the
printed ones, not the cancellation-free forms the package computes:

* Lemma 3: ``ζ(δ)² = −2 ln δ + 2√(−I ln δ) + I``;
* Table I, Eq. 14 (Theorems 1–2): ``B = (−β + √(β² + 8αε))² / (4α²)``, ``α = s₂²``,
  ``β = 2ζ(δ)s₂``;
* Eq. 21 (Theorem 3): ``B_IDN = I₁ (−ζ + √(ζ² + 2ε))² / ŝ₂²`` with ``ŝ₂ = (b − a)√I`` (the
  reading the chapter uses; the paper prints ``(b − a)/√I``);
* Eq. 28 (Alg. 1): ``σᵢ² = Σⱼ √Pⱼ / (√Pᵢ B)``;
* Eq. 30 (Theorem 4, MVG): ``B_MVG = (−β₀ + √(β₀² + 8α₀ε))² / (4α₀²)``,
  ``α₀ = (H_r + H_{r,1/2})γ² + 2H_rγs₂``, ``β₀ = 2(mn)^{1/4}H_r ζ(δ) s₂``, ``r = min(m, n)``,
  the harmonic numbers summed term by term and ζ over ``I = mn``;
* the Gaussian baseline of Sec. VIII as the chapter reconstructs it,
  ``σ = √(2 ln(1.25/δ)) (b − a) I / ε``, and the classical Gaussian mechanism
  ``σ = √(2 ln(1.25/δ)) s₂ / ε`` (Dwork & Roth 2014, Thm. A.1);
* the exact privacy profile of a Gaussian mechanism whose sensitivity is ``μ`` noise standard
  deviations (Balle & Wang 2018, Thm. 8): ``δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ)``.
"""
from __future__ import annotations

import mpmath as mp

__all__ = ["DIGITS", "zeta2", "budget", "idn_budget", "alg1_variances", "mvg_budget",
           "gauss_paper_sigma", "gauss_classic_sigma", "gaussian_delta", "gaussian_epsilon"]

#: Decimal digits of every evaluation.
DIGITS = 50


def _mpf(x):
    return mp.mpf(float(x)) if not isinstance(x, mp.mpf) else x


def zeta2(size, delta) -> float:
    """Lemma 3's ``ζ(δ)² = −2 ln δ + 2√(−I ln δ) + I`` for ``I = size`` entries."""
    with mp.workdps(DIGITS):
        return float(_zeta2(size, delta))


def _zeta2(size, delta):
    i, d = mp.mpf(int(size)), _mpf(delta)
    return -2 * mp.log(d) + 2 * mp.sqrt(-i * mp.log(d)) + i


def budget(size, l2_sensitivity, epsilon, delta) -> float:
    """Table I's ``B = (−β + √(β² + 8αε))² / (4α²)``, ``α = s₂²``, ``β = 2ζ(δ)s₂`` (Eq. 14,
    Theorems 1–2), evaluated as printed in 50 digits."""
    with mp.workdps(DIGITS):
        return float(_budget(size, l2_sensitivity, epsilon, delta))


def _budget(size, l2_sensitivity, epsilon, delta):
    s2, eps = _mpf(l2_sensitivity), _mpf(epsilon)
    alpha, beta = s2**2, 2 * mp.sqrt(_zeta2(size, delta)) * s2
    return (-beta + mp.sqrt(beta**2 + 8 * alpha * eps)) ** 2 / (4 * alpha**2)


def idn_budget(shape, value_range, epsilon, delta) -> float:
    """Eq. 21's ``B_IDN = I₁ (−ζ(δ) + √(ζ(δ)² + 2ε))² / ŝ₂²`` with ``ŝ₂ = (b − a)√I``
    (Theorem 3), in 50 digits; ``shape[0]`` is ``I₁``."""
    shape = [int(s) for s in shape]
    size = 1
    for s in shape:
        size *= s
    with mp.workdps(DIGITS):
        z = mp.sqrt(_zeta2(size, delta))
        shat = _mpf(value_range) * mp.sqrt(size)
        return float(shape[0] * (-z + mp.sqrt(z * z + 2 * _mpf(epsilon))) ** 2 / shat**2)


def alg1_variances(p, bound) -> list[float]:
    """Eq. 28 (Alg. 1, line 5): ``σᵢ² = Σⱼ √Pⱼ / (√Pᵢ B)`` for ``Pᵢ > 0``."""
    with mp.workdps(DIGITS):
        roots = [mp.sqrt(_mpf(v)) for v in p]
        total = mp.fsum(roots)
        return [float(total / (r * _mpf(bound))) for r in roots]


def mvg_budget(m, n, l2_sensitivity, epsilon, delta, gamma) -> float:
    """Eq. 30's right side (Theorem 4, quoted from Chanyaswad et al. 2018), as printed, in 50
    digits: ``(−β₀ + √(β₀² + 8α₀ε))² / (4α₀²)`` with ``α₀ = (H_r + H_{r,1/2})γ² + 2H_rγs₂``,
    ``β₀ = 2(mn)^{1/4} H_r ζ(δ) s₂``, ``r = min(m, n)``, ``H_r = Σ_{i ≤ r} 1/i`` and
    ``H_{r,1/2} = Σ_{i ≤ r} 1/√i`` summed term by term, ``ζ(δ)`` over ``I = mn`` entries;
    ``γ = sup ‖f‖_F``."""
    m, n = int(m), int(n)
    with mp.workdps(DIGITS):
        r = min(m, n)
        h = mp.fsum(mp.mpf(1) / i for i in range(1, r + 1))
        h_half = mp.fsum(1 / mp.sqrt(i) for i in range(1, r + 1))
        s2, g, eps = _mpf(l2_sensitivity), _mpf(gamma), _mpf(epsilon)
        alpha = (h + h_half) * g**2 + 2 * h * g * s2
        beta = 2 * mp.root(mp.mpf(m * n), 4) * h * mp.sqrt(_zeta2(m * n, delta)) * s2
        return float((-beta + mp.sqrt(beta**2 + 8 * alpha * eps)) ** 2 / (4 * alpha**2))


def gauss_paper_sigma(size, value_range, epsilon, delta) -> float:
    """The paper's Gaussian baseline as the chapter reconstructs it (Sec. VIII: "ℓ2-sensitivity
    computed for each element", Table IV's ``O(I³)``): ``σ = √(2 ln(1.25/δ)) (b − a) I / ε``."""
    with mp.workdps(DIGITS):
        c = mp.sqrt(2 * mp.log(mp.mpf(5) / 4 / _mpf(delta)))
        return float(c * _mpf(value_range) * int(size) / _mpf(epsilon))


def gauss_classic_sigma(l2_sensitivity, epsilon, delta) -> float:
    """The classical Gaussian mechanism on ``vec f``: ``σ = √(2 ln(1.25/δ)) s₂ / ε``."""
    with mp.workdps(DIGITS):
        c = mp.sqrt(2 * mp.log(mp.mpf(5) / 4 / _mpf(delta)))
        return float(c * _mpf(l2_sensitivity) / _mpf(epsilon))


def gaussian_delta(mu, epsilon) -> float:
    """``δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ)`` of a Gaussian mechanism whose sensitivity is
    ``μ`` noise standard deviations (Balle & Wang 2018, Thm. 8), in 50 digits."""
    with mp.workdps(DIGITS):
        return float(_delta(_mpf(mu), _mpf(epsilon)))


def _delta(mu, eps):
    return mp.ncdf(mu / 2 - eps / mu) - mp.exp(eps) * mp.ncdf(-mu / 2 - eps / mu)


def gaussian_epsilon(mu, delta) -> float:
    """The smallest ε with ``δ(ε) ≤ δ`` for the profile of :func:`gaussian_delta` (the true ε
    of the mechanism at ``δ``), by bisection in 50 digits; 0 when ``δ(0) ≤ δ``."""
    with mp.workdps(DIGITS):
        mu, target = _mpf(mu), _mpf(delta)
        if mu <= 0 or not 0 < target < 1:
            raise ValueError(f"need mu > 0 and delta in (0, 1), got {mu}, {delta}")
        if _delta(mu, mp.mpf(0)) <= target:
            return 0.0
        lo, hi = mp.mpf(0), mu * mu + 50 * mu + 50   # δ(hi) < δ for any δ of interest
        while _delta(mu, hi) > target:
            hi *= 2
        for _ in range(200):                        # δ(ε) decreases in ε
            mid = (lo + hi) / 2
            if _delta(mu, mid) > target:
                lo = mid
            else:
                hi = mid
            if hi - lo <= mp.mpf(10) ** (-30) * hi:
                break
        return float(hi)
