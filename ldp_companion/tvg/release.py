"""Releases of a tensor by every mechanism the paper's experiments compare (Sec. VIII).

* :func:`iid_release`: utility subspace ``W = E`` (Types I–II, the CTG task): i.i.d. Gaussian
  noise of :func:`~ldp_companion.tvg.noise.entry_std`'s standard deviation;
* :func:`directional_release`: Type III's utility subspace ``W`` (the weights that read the
  released features): UDN and IDN by Algorithm 1 (UDN with ``W_{U₁}`` = right singular vectors
  of ``W``, IDN with ``W_{U₁} = E``, as in Sec. VIII-D) and MVG with the binary precision
  allocation of Chanyaswad et al. 2018 on the same directions.

The released tensor is a matrix ``x`` of shape ``(I₁, n)`` whose first mode is the directional
one (Type III reshapes the batch of features to features × records, Cor. 1). ``ζ`` and the
sensitivity always count the whole tensor, ``I = I₁ n``.
"""
from __future__ import annotations

import math

import numpy as np

from ldp_companion.tensor.algebra import mode_product
from ldp_companion.tensor.calibration import check_delta, check_value_range, mvg_budget
from ldp_companion.tvg.bounds import _budget, _idn_budget
from ldp_companion.tvg.noise import MECHANISMS, entry_std
from ldp_companion.tvg.optimal import alg1_variances, directions, right_singular_basis
from ldp_companion.validation import check_epsilon, check_rng

__all__ = ["iid_release", "directional_release", "directional_noise", "mvg_binary_precisions",
           "DIRECTIONAL"]

#: Mechanisms of :func:`directional_release` (the others fall back to :func:`iid_release`).
DIRECTIONAL = ("udn", "idn", "mvg")


def iid_release(mechanism: str, x, epsilon, delta=1e-5, *, rng, value_range: float,
                l2_sensitivity: float | None = None, gamma: float | None = None,
                shat: str = "consistent") -> np.ndarray:
    """``x + Z``, ``Z`` i.i.d. ``N(0, σ²)`` with ``σ = entry_std(mechanism, x.shape, …)``;
    ``mechanism="none"`` returns ``x`` unchanged."""
    x = np.asarray(x, float)
    if mechanism == "none":
        return x.copy()
    sigma = entry_std(mechanism, x.shape, epsilon, delta, value_range=value_range,
                      l2_sensitivity=l2_sensitivity, gamma=gamma, shat=shat)
    return x + sigma * check_rng(rng).standard_normal(x.shape)


def mvg_binary_precisions(m: int, k: int, total: float, tau: float = 0.9) -> np.ndarray:
    """MVG's binary allocation: precisions ``pᵢ = 1/σᵢ²`` with ``‖p‖₂ = total``, a share ``τ``
    of ``‖p‖²`` on the first ``k`` (important) directions and the rest spread evenly (our
    reading: [5] leaves ``k`` and ``τ`` to the user and the TVG paper does not state them)."""
    if not 1 <= k <= m:
        raise ValueError(f"k must be in 1..{m}, got {k}")
    if not 0 < tau <= 1 or (k == m and tau != 1):
        raise ValueError(f"tau must be in (0, 1] (1 when k = m), got {tau}")
    p = np.empty(m)
    p[:k] = total * math.sqrt(tau / k)
    if k < m:
        p[k:] = total * math.sqrt((1 - tau) / (m - k))
    return p


def directional_noise(mechanism: str, w, shape, epsilon, delta=1e-5, *, value_range: float,
                      tau: float = 0.9) -> tuple[np.ndarray | None, np.ndarray]:
    """The mode-1 factor ``U₁ = W_{U₁} diag(σ)`` that :func:`directional_release` applies, as
    ``(W_{U₁}, σ)`` (``W_{U₁}`` is ``None`` for IDN, i.e. ``E``).

    UDN: Alg. 1 with ``W_{U₁}`` = right singular vectors of ``W`` and Theorem 2's ``B``; IDN:
    Alg. 1 with ``W_{U₁} = E`` and Theorem 3's ``B_IDN``; MVG: the binary precision allocation
    on the right singular vectors, ``rank(W)`` of them important, with ``Ψ = E``.

    Parameters
    ----------
    mechanism : {"udn", "idn", "mvg"}
    w : array_like, shape (J, I₁)
        The utility subspace.
    shape : tuple of int
        ``(I₁, n)``, the released matrix's shape (``ζ`` and ``s₂ = (b − a)√I`` count it all).
    value_range : float
        ``b − a`` of an entry.
    tau : float
        MVG's share of precision on the ``rank(W)`` directions.
    """
    if mechanism not in DIRECTIONAL:
        raise ValueError(f"mechanism must be one of {DIRECTIONAL}, got {mechanism!r}")
    w = np.asarray(w, float)
    shape = tuple(int(s) for s in shape)
    if len(shape) != 2 or w.ndim != 2 or w.shape[1] != shape[0]:
        raise ValueError(f"shape must be (I₁, n) and W (J, I₁); got {shape}, W {w.shape}")
    return _sigmas(mechanism, w, shape, check_epsilon(epsilon), check_delta(delta),
                   check_value_range(value_range, "value_range"), tau)


def _sigmas(mechanism, w, shape, epsilon, delta, width, tau):
    """:func:`directional_noise` for arguments already checked."""
    i1, n = shape
    size = i1 * n
    s2 = width * math.sqrt(size)
    if mechanism == "idn":      # W_U = E: no basis to apply
        return None, np.sqrt(alg1_variances(directions(w), _idn_budget(shape, width, epsilon,
                                                                          delta)))
    basis = right_singular_basis(w)
    if mechanism == "udn":
        return basis, np.sqrt(alg1_variances(directions(w, basis), _budget(size, s2, epsilon,
                                                                            delta)))
    rank = int(np.linalg.matrix_rank(w))
    total = mvg_budget(i1, n, s2, epsilon, delta, gamma=s2 / 2.0) / math.sqrt(n)  # Ψ = E_n
    p = mvg_binary_precisions(i1, rank, total, tau if rank < i1 else 1.0)
    return basis, p**-0.5


def directional_release(mechanism: str, x, w, epsilon, delta=1e-5, *, rng,
                        value_range: float, tau: float = 0.9) -> np.ndarray:
    """``x + N ×₁ W_{U₁} diag(σ)`` for ``mechanism`` in :data:`DIRECTIONAL`, other names by
    :func:`iid_release`.

    Parameters
    ----------
    x : array_like, shape (I₁, n)
        The released matrix, directional mode first.
    w : array_like, shape (J, I₁)
        The utility subspace (Type III: the first layer that reads the features).
    value_range : float
        ``b − a`` of an entry (2 for tanh features); ``s₂ = (b − a)√I``.
    tau : float
        MVG's share of precision on the ``rank(W)`` directions.
    """
    x = np.asarray(x, float)
    if mechanism not in DIRECTIONAL:
        if mechanism != "none" and mechanism not in MECHANISMS:
            raise ValueError(f"mechanism must be 'none' or one of {DIRECTIONAL + MECHANISMS}, "
                             f"got {mechanism!r}")
        return iid_release(mechanism, x, epsilon, delta, rng=rng, value_range=value_range)
    w = np.asarray(w, float)
    if x.ndim != 2 or w.ndim != 2 or w.shape[1] != x.shape[0]:
        raise ValueError(f"x must be (I₁, n) and W (J, I₁); got x {x.shape}, W {w.shape}")
    basis, sigmas = _sigmas(mechanism, w, x.shape, check_epsilon(epsilon), check_delta(delta),
                            check_value_range(value_range, "value_range"), tau)
    draw = check_rng(rng).standard_normal(x.shape)
    if basis is None:
        return x + sigmas[:, None] * draw
    return x + mode_product(draw, basis * sigmas, 0)
