"""Calibration audits of chapter 2 (TVG, Yang et al. 2021): the noise each mechanism of the
package adds, against what the paper's formulas, evaluated independently, say it should be.

A soundness claim ("mechanism X is (ε, δ)-DP") that holds with a wide margin cannot see noise
four times too small. These audits pin the noise down instead:

* :func:`calibration_audit`: the exact ε of the noise the release functions add (the σ of
  :func:`~ldp_companion.tvg.noise.entry_std` or
  :func:`~ldp_companion.tvg.release.directional_noise`, audited by
  :func:`~ldp_companion.tvg.privacy.true_epsilon` at the worst change), next to the ε that the
  paper's printed calibration predicts, computed by
  :mod:`~ldp_companion.tvg.reference` (the printed formulas and the Gaussian privacy profile in
  50 digits, none of the package's code);
* :func:`budget_ratio`: Theorems 1–3's left side ``Πₖ tr Σₖ⁻¹`` of that noise over the printed
  ``B`` of Eq. 14 (Theorem 2 says UDN may exceed Theorem 1 by ``I₂⋯I_N``, Theorem 3 that IDN's
  ``Σ σᵢ⁻²`` may reach ``I₁ B``).

The change audited is the paper's: every entry moves by ``b − a`` (``s₂ = (b − a)√I``,
Eqs. 35–36), which for IDN is also Theorem 3's element-wise bound.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ldp_companion.tensor.calibration import check_delta, check_value_range, tensor_size
from ldp_companion.tvg import reference
from ldp_companion.tvg.bounds import condition_lhs
from ldp_companion.tvg.noise import entry_std
from ldp_companion.tvg.privacy import idn_mu, true_epsilon, worst_mu
from ldp_companion.tvg.release import directional_noise
from ldp_companion.validation import check_epsilon

__all__ = ["AUDITED", "AUDIT_LABELS", "calibration_audit", "calibration_table", "budget_ratio"]

#: Mechanisms :func:`calibration_audit` knows (``w`` given: Alg. 1's UDN or IDN).
AUDITED = ("tvg", "udn", "idn", "gauss_paper", "gauss_l2", "gauss_analytic")

#: Readable headers of :func:`calibration_table`'s columns.
AUDIT_LABELS = {"mechanism": "mechanism", "shape": "shape", "sigma": "smallest σ",
                "audited": "true ε (audit)", "predicted": "ε the printed formula predicts"}


def _noise(mechanism, shape, epsilon, delta, width, w):
    """``(covariances of the noise, σ of mode 1)`` as the release functions build them."""
    if w is None:
        sigma = entry_std(mechanism, shape, epsilon, delta, value_range=width)
        if mechanism == "tvg":   # isotropic Theorem 1 noise spreads σ² over every mode
            return [sigma ** (2 / len(shape)) * np.eye(n) for n in shape], np.full(shape[0],
                                                                                   sigma)
        return [sigma**2 * np.eye(shape[0])] + [np.eye(n) for n in shape[1:]], \
            np.full(shape[0], sigma)
    basis, sigma = directional_noise(mechanism, w, shape, epsilon, delta, value_range=width)
    first = np.diag(sigma**2) if basis is None else (basis * sigma**2) @ basis.T
    return [first, np.eye(shape[1])], sigma


def _predicted_mu(mechanism, shape, epsilon, delta, width, w) -> float:
    """The worst change's length in noise standard deviations under the paper's printed
    calibration, from :mod:`~ldp_companion.tvg.reference` only."""
    size, i1 = tensor_size(shape), shape[0]
    s2 = width * math.sqrt(size)
    if mechanism == "idn":     # Σσᵢ⁻² = B_IDN and every entry moves by b − a
        return width * math.sqrt(size / i1 * reference.idn_budget(shape, width, epsilon, delta))
    if mechanism == "gauss_paper":
        return s2 / reference.gauss_paper_sigma(size, width, epsilon, delta)
    if mechanism == "gauss_l2":
        return s2 / reference.gauss_classic_sigma(s2, epsilon, delta)
    b = reference.budget(size, s2, epsilon, delta)
    if mechanism == "tvg":
        return s2 / math.sqrt(size / b)
    if w is None:              # UDN with W = E: σ² = I₁ / B
        return s2 / math.sqrt(i1 / b)
    p = np.linalg.svd(np.asarray(w, float), compute_uv=False) ** 2
    if p.size < i1 or p.min() <= 0:
        raise ValueError("the UDN audit needs a W of full column rank (every Pᵢ > 0)")
    return s2 / math.sqrt(min(reference.alg1_variances(p, b)))


def calibration_audit(mechanism: str, shape, epsilon, delta=1e-5, *, value_range: float = 2.0,
                      w=None) -> dict:
    """The exact ε of one mechanism's noise and the ε the paper's calibration predicts.

    Parameters
    ----------
    mechanism : str
        One of :data:`AUDITED`; with ``w``, ``"udn"`` or ``"idn"`` by Alg. 1.
    shape : tuple of int
        The released tensor's shape (``(I₁, n)`` with ``w``).
    value_range : float
        ``b − a``: every entry may move by it (``s₂ = (b − a)√I``).
    w : array_like, shape (J, I₁), optional
        Alg. 1's utility subspace (UDN needs full column rank: the paper's Eq. 28 gives
        ``σᵢ = ∞`` where ``Pᵢ = 0``).

    Returns
    -------
    dict
        ``sigma`` (mode 1's smallest noise standard deviation), ``audited`` (the true ε at
        ``delta`` of the package's noise for the worst change, by
        :func:`~ldp_companion.tvg.privacy.true_epsilon`) and ``predicted`` (the true ε the
        printed calibration gives, all in :mod:`~ldp_companion.tvg.reference`; for
        ``gauss_analytic``, exact by construction, ε itself).
    """
    if mechanism not in AUDITED or (w is not None and mechanism not in ("udn", "idn")):
        raise ValueError(f"mechanism must be one of {AUDITED} (with w: 'udn' or 'idn'), "
                         f"got {mechanism!r}")
    shape = tuple(int(s) for s in shape)
    size = tensor_size(shape)
    eps, delta = check_epsilon(epsilon), check_delta(delta)
    width = check_value_range(value_range, "value_range")
    s2 = width * math.sqrt(size)
    if w is None:        # i.i.d. noise: the worst change has length s₂ / σ
        sigma = np.full(shape[0], entry_std(mechanism, shape, eps, delta, value_range=width))
        mu = idn_mu(sigma, shape, value_range=width) if mechanism == "idn" else s2 / sigma[0]
    else:
        covs, sigma = _noise(mechanism, shape, eps, delta, width, w)
        mu = idn_mu(sigma, shape, value_range=width) if mechanism == "idn" else \
            worst_mu(covs, s2)
    predicted = eps if mechanism == "gauss_analytic" else reference.gaussian_epsilon(
        _predicted_mu(mechanism, shape, eps, delta, width, w), delta)
    return {"mechanism": mechanism, "shape": "×".join(map(str, shape)), "ε": eps,
            "sigma": float(np.min(sigma)), "audited": true_epsilon(mu, delta),
            "predicted": predicted}


def calibration_table(mechanism: str, shapes, epsilons, delta=1e-5, *, value_range=2.0,
                      w=None) -> pd.DataFrame:
    """:func:`calibration_audit` over ``shapes × epsilons`` (one row each)."""
    return pd.DataFrame([calibration_audit(mechanism, s, e, delta, value_range=value_range, w=w)
                         for s in shapes for e in epsilons])


def budget_ratio(mechanism: str, shape, epsilon, delta=1e-5, *, value_range: float = 2.0,
                 w=None, modes: str = "all") -> float:
    """``Πₖ tr Σₖ⁻¹`` of the noise ``mechanism`` adds (``modes="all"``: Theorem 1's left side,
    Eq. 14; ``"first"``: ``‖U₁⁻¹‖²_F`` alone, the left side of Eqs. 19 and 21) over the
    printed ``B`` of Eq. 14 at ``s₂ = (b − a)√I``, evaluated by
    :mod:`~ldp_companion.tvg.reference`.

    Theorem 2 says UDN's noise meets Eq. 19 (``"first"``: 1) while exceeding Eq. 14 by
    ``I₂⋯I_N`` (``"all"``); Theorem 3 says IDN's ``"first"`` may reach ``I₁``.
    """
    if modes not in ("all", "first"):
        raise ValueError(f"modes must be 'all' or 'first', got {modes!r}")
    shape = tuple(int(s) for s in shape)
    eps, delta = check_epsilon(epsilon), check_delta(delta)
    width = check_value_range(value_range, "value_range")
    covs, _ = _noise(mechanism, shape, eps, delta, width, w)
    size = tensor_size(shape)
    lhs = condition_lhs(covs if modes == "all" else covs[:1])
    return lhs / reference.budget(size, width * math.sqrt(size), eps, delta)
