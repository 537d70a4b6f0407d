"""Per-entry noise of every mechanism the paper compares, with utility subspace ``W = E``
(all of them are then i.i.d. Gaussian), and Table IV's expected errors ``E‖Z‖² = I σ²``.

Standard deviations per entry for a tensor of shape ``(I₁, …, I_N)``, ``I = Π Iₖ``, ℓ2
sensitivity ``s₂`` and entry range ``b − a``:

=================  ==========================================================================
``tvg``            isotropic Theorem 1 noise: ``σ² = I / B`` (``Πₖ Iₖ/σₖ² = B``)
``udn``            Theorem 2 with ``U₁ = σI``: ``σ² = I₁ / B``
``idn``            Theorem 3 with ``U₁ = σI``: ``σ² = I₁ / B_IDN = ŝ₂² / c²``
``mvg``            Table IV's convention ``σ² = I₁ / B_MVG`` (MVG read like UDN)
``mvg_true``       MVG itself with ``Σ = σ_r²I``, ``Ψ = σ_c²I``: ``σ² = √(I₁ · I/I₁) / B_MVG``
``gauss_paper``    ``σ = c (b − a) I / ε``, ``c = √(2 ln(1.25/δ))``: per-element sensitivity and
                   basic composition over the I entries. The paper never writes it down; it is
                   the one reading that gives Table IV's ``O(I³)`` (inferred)
``gauss_l2``       the standard Gaussian mechanism on ``vec f``: ``σ = c s₂ / ε``
``gauss_analytic`` the smallest σ with exact ``(ε, δ)`` (Balle & Wang 2018)
=================  ==========================================================================
"""
from __future__ import annotations

import math

import numpy as np

from ldp_companion.tensor.calibration import (
    check_delta,
    check_value_range,
    gaussian_sigma,
    mvg_budget,
    tensor_size,
)
from ldp_companion.tvg.bounds import SHAT_CONVENTIONS, _budget, _idn_budget
from ldp_companion.validation import check_epsilon

__all__ = ["MECHANISMS", "entry_std", "expected_error", "loglog_slope"]

MECHANISMS = ("tvg", "udn", "idn", "mvg", "mvg_true", "gauss_paper", "gauss_l2",
              "gauss_analytic")


def entry_std(mechanism: str, shape, epsilon, delta=1e-5, *, value_range: float,
              l2_sensitivity: float | None = None, gamma: float | None = None,
              shat: str = "consistent") -> float:
    """Per-entry standard deviation of ``mechanism`` (see the module table) with ``W = E``.

    Parameters
    ----------
    shape : tuple of int
        The released tensor's shape; its first mode is the directional one (``I₁``).
    value_range : float
        ``b − a``, the largest change of one entry (Thm. 3's element-wise bound).
    l2_sensitivity : float, optional
        ``s₂``; defaults to ``(b − a)√I`` (every entry may change: Eqs. 35–36).
    gamma : float, optional
        MVG's ``sup ‖f‖_F``; defaults to ``s₂/2`` (entries centred on 0).
    shat : {"consistent", "literal"}
        Theorem 3's ŝ₂ reading (IDN only).
    """
    shape = tuple(int(s) for s in shape)
    size = tensor_size(shape)
    eps, delta = check_epsilon(epsilon), check_delta(delta)
    width = check_value_range(value_range, "value_range")
    s2 = width * math.sqrt(size) if l2_sensitivity is None else check_value_range(
        l2_sensitivity, "l2_sensitivity")
    if gamma is not None:
        gamma = check_value_range(gamma, "gamma")
    if shat not in SHAT_CONVENTIONS:
        raise ValueError(f"convention must be one of {SHAT_CONVENTIONS}, got {shat!r}")
    return _entry_std(mechanism, shape, eps, delta, width, s2, gamma, shat)


def _entry_std(mechanism: str, shape: tuple, eps: float, delta: float, width: float,
               s2: float, gamma: float | None, shat: str) -> float:
    """:func:`entry_std` for arguments already checked."""
    size, i1 = math.prod(shape), shape[0]
    if mechanism == "tvg":
        return math.sqrt(size / _budget(size, s2, eps, delta))
    if mechanism == "udn":
        return math.sqrt(i1 / _budget(size, s2, eps, delta))
    if mechanism == "idn":
        return math.sqrt(i1 / _idn_budget(shape, width, eps, delta, shat))
    if mechanism in ("mvg", "mvg_true"):
        b = mvg_budget(i1, size // i1, s2, eps, delta, gamma)
        return math.sqrt((i1 if mechanism == "mvg" else math.sqrt(size)) / b)
    if mechanism == "gauss_paper":
        return math.sqrt(2.0 * math.log(1.25 / delta)) * width * size / eps
    if mechanism == "gauss_l2":
        return gaussian_sigma(s2, eps, delta, "classic")
    if mechanism == "gauss_analytic":
        return gaussian_sigma(s2, eps, delta, "analytic")
    raise ValueError(f"mechanism must be one of {MECHANISMS}, got {mechanism!r}")


def expected_error(mechanism: str, shape, epsilon, delta=1e-5, **kw) -> float:
    """Table IV's ``E‖Z‖²_F = I σ²`` for :func:`entry_std`'s mechanism."""
    return tensor_size(shape) * entry_std(mechanism, shape, epsilon, delta, **kw) ** 2


def loglog_slope(sizes, values) -> float:
    """Least-squares slope of ``log value`` against ``log size``: the measured growth order."""
    x, y = np.log(np.asarray(sizes, float)), np.log(np.asarray(values, float))
    if x.size < 2 or np.ptp(x) == 0:
        raise ValueError("need at least two distinct sizes to fit a slope")
    return float(np.polyfit(x, y, 1)[0])
