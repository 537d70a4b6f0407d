"""Exact privacy of TVG noise, its Rényi divergence (Sec. VII-C, Eq. 32) and the composition
used for private SGD (Sec. VIII-B, Appendix D, missing from the text we have).

TVG noise is Gaussian with covariance ``Σ = Σ_N ⊗ ⋯ ⊗ Σ₁``, so its exact privacy is the
Gaussian mechanism's at the worst Mahalanobis sensitivity ``μ = sup ‖Σ^{−1/2} vec Δ‖``
(Balle & Wang 2018): the true ε at δ is :func:`true_epsilon` of that ``μ``, and its Rényi
divergence of order λ is exactly ``λ μ² / 2``.
"""
from __future__ import annotations

import math
import warnings

import numpy as np
from scipy import integrate, optimize

from ldp_companion.tensor.calibration import (
    check_delta,
    check_value_range,
    gaussian_epsilon,
    tensor_size,
)
from ldp_companion.tensor.variate import check_covariance
from ldp_companion.validation import check_epsilon, check_positive_int, check_probability

__all__ = ["true_epsilon", "worst_mu", "idn_mu", "renyi_exact", "renyi_quadrature",
           "renyi_paper_bound", "amplify", "kairouz_compose", "tvg_sgd_epsilon",
           "tvg_step_epsilon", "gaussian_noise_multiplier"]

true_epsilon = gaussian_epsilon


def worst_mu(covariances, l2_sensitivity) -> float:
    """``s₂ / √λ_min(Σ_N ⊗ ⋯ ⊗ Σ₁) = s₂ / √(Πₖ λ_min(Σₖ))``: the largest Mahalanobis length
    of a change of Frobenius norm at most ``s₂``."""
    lam = [np.linalg.eigvalsh(check_covariance(s, f"covariances[{k}]"))[0]
           for k, s in enumerate(covariances)]
    return check_value_range(l2_sensitivity, "l2_sensitivity") / math.sqrt(float(np.prod(lam)))


def idn_mu(sigmas, shape, value_range=None, l2_sensitivity=None) -> float:
    """Worst Mahalanobis length for IDN noise ``U₁ = diag(σᵢ)`` on ``shape``.

    With ``value_range`` (Theorem 3's element-wise bound: every entry changes by at most
    ``b − a``): ``(b − a) √((I/I₁) Σᵢ σᵢ⁻²)``. With ``l2_sensitivity`` only (any change of
    norm ``s₂``): ``s₂ / min σᵢ``.
    """
    s = np.asarray(sigmas, float)
    shape = tuple(int(d) for d in shape)
    if s.shape != (shape[0],) or np.any(s <= 0):
        raise ValueError(f"sigmas must be {shape[0]} positive numbers, got shape {s.shape}")
    if (value_range is None) == (l2_sensitivity is None):
        raise ValueError("give exactly one of value_range= or l2_sensitivity=")
    if value_range is not None:
        width = check_value_range(value_range, "value_range")
        return width * math.sqrt(tensor_size(shape) / shape[0] * float(np.sum(s**-2.0)))
    return check_value_range(l2_sensitivity, "l2_sensitivity") / float(s.min())


def renyi_exact(order, mu) -> float:
    """``D_λ(N(μ, 1) ‖ N(0, 1)) = λ μ² / 2``."""
    return float(order) * float(mu) ** 2 / 2.0


def renyi_quadrature(order, mu) -> float:
    """``D_λ = (λ − 1)⁻¹ ln ∫ p^λ q^{1−λ}`` for ``p = N(μ, 1)``, ``q = N(0, 1)`` by numerical
    integration (the check of :func:`renyi_exact` that does not use its closed form)."""
    lam, mu = float(order), float(mu)
    if lam <= 1:
        raise ValueError(f"order must be > 1, got {order}")
    log_integrand = lambda y: (-lam * (y - mu) ** 2 - (1 - lam) * y * y) / 2  # noqa: E731
    peak = lam * mu
    value, _ = integrate.quad(lambda y: math.exp(log_integrand(y) - log_integrand(peak))
                              / math.sqrt(2 * math.pi), peak - 40, peak + 40, limit=200)
    return (math.log(value) + log_integrand(peak)) / (lam - 1)


def renyi_paper_bound(order, change_norm, covariances) -> float:
    """Eq. 32's bound ``λ ‖Δ‖²_F Πₖ ‖Uₖ⁻¹‖²_F`` on the Rényi divergence of order λ."""
    lhs = float(np.prod([np.trace(np.linalg.inv(check_covariance(s))) for s in covariances]))
    return float(order) * float(change_norm) ** 2 * lhs


def amplify(epsilon, delta, q) -> tuple[float, float]:
    """Privacy amplification by Poisson sampling with rate ``q`` (Balle et al. 2018, the
    paper's [15]): ``(ln(1 + q(e^ε − 1)), qδ)``."""
    q = float(check_probability(q, "q"))
    eps = check_epsilon(epsilon)
    if q == 1.0:
        return eps, check_delta(delta)
    # ln(1 − q + q e^ε) without overflow at large ε
    return float(np.logaddexp(math.log1p(-q), math.log(q) + eps)), q * check_delta(delta)


def kairouz_compose(epsilon, k, delta_slack) -> float:
    """ε of ``k``-fold composition of an ε-DP step with extra ``δ̃`` (Kairouz, Oh & Viswanath
    2015, Thm. 3.4, the paper's [11]; the three-way minimum)."""
    e, k = check_epsilon(epsilon), check_positive_int(k, "k")
    d = check_delta(delta_slack, "delta_slack")
    head = k * e * math.tanh(e / 2.0)          # (e^ε − 1)/(e^ε + 1), no overflow
    return min(k * e,
               head + e * math.sqrt(2 * k * math.log(math.e + math.sqrt(k * e * e) / d)),
               head + e * math.sqrt(2 * k * math.log(1.0 / d)))


def tvg_sgd_epsilon(step_epsilon, q, steps, delta) -> float:
    """Total ε after ``steps`` sampled steps of an ``(ε₀, δ₀)`` TVG mechanism: amplification
    by sampling, then Kairouz composition, with δ split as ``δ̃ = δ/2``, ``δ₀ = δ/(2 steps q)``
    (so the total is ``1 − (1 − qδ₀)^steps (1 − δ̃) ≤ δ``). The split is ours: the paper's
    Appendix D, which would fix it, is not in the text we have."""
    eps_step, _ = amplify(step_epsilon, delta, q)
    return kairouz_compose(eps_step, steps, check_delta(delta) / 2.0)


def tvg_step_epsilon(target_epsilon, q, steps, delta) -> float:
    """The per-step ε₀ whose :func:`tvg_sgd_epsilon` is ``target_epsilon`` (bisection in log ε₀)."""
    target = check_epsilon(target_epsilon, "target_epsilon")
    f = lambda log_e: tvg_sgd_epsilon(math.exp(log_e), q, steps, delta) - target  # noqa: E731
    return math.exp(optimize.brentq(f, -30.0, math.log(target + math.log(1.0 / q) + 10.0),
                                    xtol=1e-12))


def gaussian_noise_multiplier(target_epsilon, q, steps, delta) -> float:
    """DP-SGD's noise multiplier (σ over the ℓ2 sensitivity) that reaches ``(ε, δ)`` after
    ``steps`` Poisson-sampled steps, by Opacus's RDP accountant (the paper's moments
    accountant [10])."""
    from opacus.accountants.utils import get_noise_multiplier

    with warnings.catch_warnings():  # "optimal order is the largest alpha": harmless here
        warnings.simplefilter("ignore", UserWarning)
        return float(get_noise_multiplier(target_epsilon=check_epsilon(target_epsilon),
                                          target_delta=check_delta(delta),
                                          sample_rate=float(check_probability(q, "q")),
                                          steps=check_positive_int(steps, "steps"),
                                          accountant="rdp", epsilon_tolerance=0.005))
