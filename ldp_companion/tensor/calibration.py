"""Noise scales for tensor-valued releases.

Sensitivities of a tensor of ``I`` entries, each in a range of width ``Δ``: ℓ1 ``IΔ``, ℓ2
``Δ√I`` (TLDP Eqs. 17–18; TVG's ``s₂`` with ``b − a = Δ``).

Gaussian calibrations (:func:`gaussian_sigma`):

* ``"zcdp"``: ``σ = s₂ / √(2ε)``, the calibration of TLDP's Thm. 2 (Eq. 8, ``σ₁² = IΔ²/2ε``
  for ``s₂ = Δ√I``); it is ``ρ = ε`` zero-concentrated DP, not ``(ε, δ)``-DP at the same ε;
* ``"classic"``: ``σ = s₂ √(2 ln(1.25/δ)) / ε`` (Dwork & Roth, Thm. A.1; valid for ε < 1);
* ``"analytic"``: the smallest σ whose exact privacy profile meets ``(ε, δ)`` (Balle & Wang
  2018, Thm. 8), found by root finding on the exact profile.
"""
from __future__ import annotations

import math
import numbers

import numpy as np
from scipy.optimize import brentq
from scipy.special import log_ndtr

from ldp_companion.validation import check_epsilon

__all__ = ["tensor_size", "check_value_range", "check_delta", "laplace_scale",
           "gaussian_sigma", "gaussian_delta", "zeta", "idn_c", "idn_sigma", "mvg_budget",
           "mvg_iid_sigma", "GAUSSIAN_CALIBRATIONS", "harmonic", "gaussian_epsilon"]

GAUSSIAN_CALIBRATIONS = ("zcdp", "classic", "analytic")


def tensor_size(shape) -> int:
    """``I = I₁ · I₂ ⋯ I_N``, the number of entries of a tensor of this shape."""
    dims = tuple(int(d) for d in shape)
    if not dims or min(dims) < 1:
        raise ValueError(f"a tensor shape needs at least one dimension, all >= 1; got {shape}")
    return math.prod(dims)


def check_value_range(value_range, name: str = "value_range") -> float:
    """Δ, the width of the range of a tensor's entries: a finite real number > 0."""
    if isinstance(value_range, bool) or not isinstance(value_range, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value_range).__name__}")
    value = float(value_range)
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} (Δ, the range of the entries) must be finite and > 0, "
                         f"got {value_range!r}")
    return value


def check_delta(delta, name: str = "delta") -> float:
    """δ of (ε, δ)-DP: a real number in (0, 1)."""
    if isinstance(delta, bool) or not isinstance(delta, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(delta).__name__}")
    value = float(delta)
    if not 0.0 < value < 1.0:
        raise ValueError(f"{name} must be in (0, 1), got {delta!r}")
    return value


def laplace_scale(l1_sensitivity, epsilon) -> float:
    """``b = s₁ / ε``: the Laplace mechanism with ℓ1 sensitivity ``s₁`` is ε-DP."""
    return check_value_range(l1_sensitivity, "l1_sensitivity") / check_epsilon(epsilon)


def gaussian_delta(sigma, l2_sensitivity, epsilon) -> float:
    """Exact δ(ε) of the Gaussian mechanism (Balle & Wang 2018, Thm. 8):
    ``Φ(s/2σ − εσ/s) − e^ε Φ(−s/2σ − εσ/s)``, in log space so large ε does not overflow
    (``log Φ`` by :func:`scipy.special.log_ndtr`, which ``scipy.stats.norm.logcdf`` calls
    after a per-call overhead several hundred times its cost: the exact-ε searches call this
    some 10⁵ times)."""
    a = l2_sensitivity / (2.0 * sigma)
    b = epsilon * sigma / l2_sensitivity
    return float(np.exp(log_ndtr(a - b)) - np.exp(epsilon + log_ndtr(-a - b)))


def gaussian_epsilon(mu, delta=1e-5) -> float:
    """The true ε at ``δ`` of a Gaussian mechanism whose sensitivity is ``μ`` noise standard
    deviations (μ-GDP): the root of ``Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ) = δ`` (Balle & Wang
    2018, Thm. 8; Dong, Roth & Su 2022, Cor. 2.13); 0 when even ε = 0 meets ``δ``."""
    mu = check_value_range(mu, "mu")
    delta = check_delta(delta)
    f = lambda e: gaussian_delta(1.0 / mu, 1.0, e) - delta  # noqa: E731
    if f(0.0) <= 0.0:
        return 0.0
    return float(brentq(f, 0.0, mu * mu + 50.0 * mu + 50.0, xtol=1e-12, rtol=1e-12))


def gaussian_sigma(l2_sensitivity, epsilon, delta=1e-5, method: str = "zcdp") -> float:
    """Standard deviation of Gaussian noise for a release of ℓ2 sensitivity ``s₂``.

    Parameters
    ----------
    l2_sensitivity : float
        ``s₂ = sup ‖f(X) − f(X′)‖_F`` (``Δ√I`` for a tensor of I entries of range Δ).
    epsilon : float
    delta : float
        Used by ``"classic"`` and ``"analytic"``.
    method : {"zcdp", "classic", "analytic"}
        See the module's docstring.
    """
    s2 = check_value_range(l2_sensitivity, "l2_sensitivity")
    eps = check_epsilon(epsilon)
    if method == "zcdp":
        return s2 / math.sqrt(2.0 * eps)
    delta = check_delta(delta)
    if method == "classic":
        return s2 * math.sqrt(2.0 * math.log(1.25 / delta)) / eps
    if method == "analytic":
        f = lambda log_sigma: gaussian_delta(math.exp(log_sigma), s2, eps) - delta  # noqa: E731
        lo, hi = math.log(s2) - 30.0, math.log(s2) + 30.0
        return math.exp(brentq(f, lo, hi, xtol=1e-13))
    raise ValueError(f"method must be one of {GAUSSIAN_CALIBRATIONS}, got {method!r}")


def zeta(size, delta) -> float:
    """``ζ(δ) = √(−2 ln δ + 2√(−I ln δ) + I)`` (TVG Thm. 1, with ``I`` entries)."""
    n = tensor_size([size])
    log_d = math.log(check_delta(delta))
    return math.sqrt(-2.0 * log_d + 2.0 * math.sqrt(-n * log_d) + n)


def idn_c(size, epsilon, delta) -> float:
    """``c = −ζ + √(ζ² + 2ε) = 2ε / (ζ + √(ζ² + 2ε))`` (TVG Thm. 3; the second form is the
    stable one when ζ² ≫ ε)."""
    z = zeta(size, delta)
    eps = check_epsilon(epsilon)
    return 2.0 * eps / (z + math.sqrt(z * z + 2.0 * eps))


def idn_sigma(size, l2_sensitivity, epsilon, delta=1e-5) -> float:
    """IDN's i.i.d. standard deviation with utility subspace ``W = E``: ``σ = s₂ / c``
    (TVG Thm. 3 with ``ŝ₂ = s₂``; the form TLDP's Table V uses)."""
    return check_value_range(l2_sensitivity, "l2_sensitivity") / idn_c(size, epsilon, delta)


def harmonic(r: int, power: float = 1.0) -> float:
    """``H_{r,power} = Σ_{i ≤ r} i^(−power)``."""
    return float(np.sum(np.arange(1, int(r) + 1, dtype=np.float64) ** -power))


def mvg_budget(m, n, l2_sensitivity, epsilon, delta=1e-5, gamma=None) -> float:
    """MVG's precision budget ``B = (−β + √(β² + 8αε))² / (4α²)`` (Chanyaswad et al. 2018,
    Thm. 3; TVG Eq. 30), for an ``m × n`` matrix release.

    ``α = (H_r + H_{r,1/2}) γ² + 2 H_r γ s₂``, ``β = 2 (mn)^{1/4} H_r ζ(δ) s₂``,
    ``r = min(m, n)``; ``γ = sup ‖f(X)‖_F`` defaults to ``s₂ / 2`` (data centred on 0, so
    the largest norm is half the diameter; the papers do not state it).
    """
    m, n = tensor_size([m]), tensor_size([n])
    s2 = check_value_range(l2_sensitivity, "l2_sensitivity")
    eps = check_epsilon(epsilon)
    gamma = s2 / 2.0 if gamma is None else check_value_range(gamma, "gamma")
    r = min(m, n)
    h, h_half = harmonic(r), harmonic(r, 0.5)
    alpha = (h + h_half) * gamma**2 + 2.0 * h * gamma * s2
    beta = 2.0 * (m * n) ** 0.25 * h * zeta(m * n, delta) * s2
    root = 8.0 * alpha * eps / (beta + math.sqrt(beta * beta + 8.0 * alpha * eps))
    return root**2 / (4.0 * alpha**2)


def mvg_iid_sigma(m, n, l2_sensitivity, epsilon, delta=1e-5, gamma=None) -> float:
    """MVG with isotropic covariances ``Σ = σ_r² I_m``, ``Ψ = σ_c² I_n`` (utility subspace
    ``W = E``): each entry is i.i.d. with variance ``σ_r² σ_c² = √(mn) / B`` (the budget met
    with equality); returns the standard deviation."""
    b = mvg_budget(m, n, l2_sensitivity, epsilon, delta, gamma)
    return math.sqrt(math.sqrt(tensor_size([m]) * tensor_size([n])) / b)
