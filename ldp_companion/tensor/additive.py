"""Additive-noise mechanisms for a tensor or a batch of tensors, numpy or torch.

Each mechanism adds i.i.d. noise to every entry with a scale computed from the tensor's size
``I`` (one tensor, or each ``x[i]`` of a batch with ``batched=True``), the range ``Δ`` of its
entries and the budget. They are the baselines of TLDP (Sec. V, Table V) and the shared noise
of the TVG chapter:

=============  ==============================================  ==========================
mechanism      scale                                            calibration
=============  ==============================================  ==========================
Laplace        ``b = IΔ/ε`` (ℓ1 sensitivity; TLDP Eq. 6)        ``"l1"`` (default)
               ``b = Δ/ε`` per entry (the noise of TLDP-L)      ``"entry"``
Gaussian       ``σ = Δ√(I/2ε)`` (TLDP Eq. 8, ρ = ε zCDP)        ``"zcdp"`` (default)
               ``σ = Δ/√(2ε)`` per entry (noise of TLDP-G)      ``"entry"``
               classical / analytic (ε, δ) with ``s₂ = Δ√I``    ``"classic"``, ``"analytic"``
IDN            ``σ = s₂/c`` (TVG Thm. 3, W = E)
MVG            ``σ² = √(mn)/B_MVG`` (TVG Eq. 30, W = E)
=============  ==============================================  ==========================
"""
from __future__ import annotations

import math

from ldp_companion.tensor.backend import add_noise, check_tensor
from ldp_companion.tensor.calibration import (
    check_delta,
    check_value_range,
    gaussian_sigma,
    idn_sigma,
    laplace_scale,
    mvg_iid_sigma,
    tensor_size,
)
from ldp_companion.validation import check_epsilon

__all__ = ["laplace_mechanism", "gaussian_mechanism", "idn_mechanism", "mvg_mechanism",
           "MECHANISMS", "per_tensor_shape"]


def per_tensor_shape(x, batched: bool) -> tuple:
    """The shape of one tensor: ``x.shape`` or, for a batch, ``x.shape[1:]``."""
    shape = tuple(x.shape)
    return shape[1:] if batched else shape


def laplace_mechanism(x, epsilon, value_range, *, rng, calibration: str = "l1",
                      batched: bool = False):
    """Add i.i.d. Laplace noise to every entry.

    Parameters
    ----------
    x : array_like or torch.Tensor
        One tensor, or a batch (first axis) with ``batched=True``.
    epsilon : float
        Budget.
    value_range : float
        Δ, the width of the range of each entry.
    rng : numpy.random.Generator or torch.Generator
    calibration : {"l1", "entry"}
        ``"l1"``: ``b = IΔ/ε``, ε-DP for the whole tensor (TLDP's Laplace baseline, Thm. 2
        Eq. 6). ``"entry"``: ``b = Δ/ε``, ε-DP for one entry only (``Iε`` for the tensor).
    batched : bool

    Returns
    -------
    Same type, shape, dtype and device as ``x``.
    """
    x = check_tensor(x, batched=batched)
    size = tensor_size(per_tensor_shape(x, batched))
    delta_range = check_value_range(value_range)
    if calibration == "l1":
        scale = laplace_scale(size * delta_range, epsilon)
    elif calibration == "entry":
        scale = laplace_scale(delta_range, epsilon)
    else:
        raise ValueError(f"calibration must be 'l1' or 'entry', got {calibration!r}")
    return add_noise(x, "laplace", scale, rng)


def gaussian_mechanism(x, epsilon, value_range, *, rng, calibration: str = "zcdp",
                       delta: float = 1e-5, batched: bool = False):
    """Add i.i.d. Gaussian noise to every entry.

    Parameters
    ----------
    calibration : {"zcdp", "entry", "classic", "analytic"}
        ``"zcdp"``: ``σ = Δ√(I/2ε)`` (TLDP Thm. 2 Eq. 8; ``ρ = ε`` zCDP for the tensor).
        ``"entry"``: ``σ = Δ/√(2ε)`` (the noise TLDP-G adds; ``ρ = Iε`` for the tensor).
        ``"classic"`` / ``"analytic"``: (ε, δ)-DP with ``s₂ = Δ√I``.
    delta : float
        δ for ``"classic"`` and ``"analytic"``.

    Other parameters as :func:`laplace_mechanism`.
    """
    x = check_tensor(x, batched=batched)
    size = tensor_size(per_tensor_shape(x, batched))
    delta_range = check_value_range(value_range)
    if calibration == "entry":
        sigma = gaussian_sigma(delta_range, epsilon, method="zcdp")
    else:
        sigma = gaussian_sigma(delta_range * math.sqrt(size), epsilon, delta, calibration)
    return add_noise(x, "gaussian", sigma, rng)


def idn_mechanism(x, epsilon, value_range, *, rng, delta: float = 1e-5,
                  batched: bool = False):
    """Independent Directional Noise with utility subspace ``W = E`` (TVG Thm. 3, Alg. 1):
    i.i.d. Gaussian with ``σ = s₂/c``, ``s₂ = Δ√I``, ``c = −ζ(δ) + √(ζ(δ)² + 2ε)``.

    Other parameters as :func:`laplace_mechanism`.
    """
    x = check_tensor(x, batched=batched)
    size = tensor_size(per_tensor_shape(x, batched))
    s2 = check_value_range(value_range) * math.sqrt(size)
    return add_noise(x, "gaussian", idn_sigma(size, s2, epsilon, check_delta(delta)), rng)


def mvg_mechanism(x, epsilon, value_range, *, rng, delta: float = 1e-5, gamma=None,
                  batched: bool = False):
    """Matrix-variate Gaussian mechanism with utility subspace ``W = E`` (Chanyaswad et al.
    2018; TVG Eq. 30): the tensor read as an ``m × n`` matrix, ``m = I₁``, ``n = I/I₁``
    (a vector is ``I × 1``), isotropic row and column covariances, so each entry gets i.i.d.
    Gaussian noise of variance ``√(mn)/B_MVG``. ``gamma`` (``sup ‖f(X)‖_F``) defaults to
    ``s₂/2``.

    Other parameters as :func:`laplace_mechanism`.
    """
    x = check_tensor(x, batched=batched)
    shape = per_tensor_shape(x, batched)
    size = tensor_size(shape)
    m = shape[0]
    s2 = check_value_range(value_range) * math.sqrt(size)
    sigma = mvg_iid_sigma(m, size // m, s2, check_epsilon(epsilon), delta, gamma)
    return add_noise(x, "gaussian", sigma, rng)


#: The baselines by name: ``MECHANISMS[name](x, epsilon, value_range, rng=..., batched=...)``.
MECHANISMS = {"laplace": laplace_mechanism, "gaussian": gaussian_mechanism,
              "idn": idn_mechanism, "mvg": mvg_mechanism}
