"""TLDP (Alg. 1) and weighted TLDP (Alg. 2) of Yuan et al.

Each entry of a tensor of ``I`` entries is kept exactly with the *retaining probability* ``p``
and otherwise gets additive noise: Laplace with ``b = Δ/ε`` (TLDP-L) or Gaussian with
``σ² = Δ²/(2ε)`` (TLDP-G). Alg. 1, line 2 sets

    p_L = e^{ε − IΔ/b} / (2b + e^{ε − IΔ/b}),   p_G = e^{ε − IΔ²/2σ²} / (σ√(2π) + e^{ε − IΔ²/2σ²}),

and since ``IΔ/b = IΔ²/2σ² = Iε``, with ``a = e^{ε(1−I)}``: ``p_L = a / (2Δ/ε + a)``,
``p_G = a / (Δ√(π/ε) + a)``. ``p`` underflows to 0 in float64 for every realistic tensor
(MNIST, ε = 1: ``log₁₀ p = −342.76``), so it is computed in log space here and the noise is
drawn *before* the keep mask: with ``p = 0`` TLDP-L at ε returns exactly the per-entry Laplace
noise ``Lap(Δ/ε)``, i.e. the whole-tensor Laplace baseline at ``Iε`` (Thm. 2).

Weighted TLDP (Alg. 2, line 4) keeps entry ``i`` with ``(1 − wᵢ) p`` for weights in [0, 1].
"""
from __future__ import annotations

import math

import numpy as np

from ldp_companion.tensor.additive import per_tensor_shape
from ldp_companion.tensor.backend import check_tensor, draw_noise, is_torch
from ldp_companion.tensor.calibration import check_value_range, gaussian_sigma, tensor_size
from ldp_companion.validation import check_epsilon

__all__ = ["NOISES", "noise_scale", "log_retain_prob", "log10_retain_prob", "retain_prob",
           "retain_prob_ceiling", "tldp", "intensity_weights", "binary_weights",
           "check_weights"]

NOISES = ("laplace", "gaussian")
_LN10 = math.log(10.0)


def _check_noise(noise: str) -> str:
    if noise not in NOISES:
        raise ValueError(f"noise must be one of {NOISES}, got {noise!r}")
    return noise


def noise_scale(value_range, epsilon, noise: str = "laplace") -> float:
    """Alg. 1, line 2: ``b = Δ/ε`` (Laplace scale) or ``σ = Δ/√(2ε)`` (Gaussian std)."""
    return _noise_scale(check_value_range(value_range), check_epsilon(epsilon),
                        _check_noise(noise))


def _noise_scale(value_range: float, epsilon: float, noise: str = "laplace") -> float:
    """:func:`noise_scale` on checked arguments."""
    if noise == "laplace":
        return value_range / epsilon
    return gaussian_sigma(value_range, epsilon, method="zcdp")


def log_retain_prob(size, value_range, epsilon, noise: str = "laplace"):
    """Natural log of Alg. 1's retaining probability ``p``, computed in log space.

    Parameters
    ----------
    size : int or array_like of int
        ``I``, the number of entries of the tensor (≥ 1).
    value_range : float
        ``Δ``, the range of the entries.
    epsilon : float or array_like
        The nominal budget (> 0).
    noise : {"laplace", "gaussian"}

    Returns
    -------
    float or ndarray
        ``ln p = ln a − ln(c + a)`` with ``ln a = ε(1 − I)`` and ``c = 2b`` (Laplace) or
        ``σ√(2π)`` (Gaussian), via ``logaddexp``: finite however small ``p`` is.
    """
    n = np.asarray(size)
    if n.dtype.kind not in "iu" or np.any(n < 1):
        raise ValueError(f"size (I, the number of entries) must be integers >= 1, got {size!r}")
    eps = np.asarray(epsilon, dtype=np.float64)
    if not np.all(np.isfinite(eps)) or np.any(eps <= 0):
        raise ValueError(f"epsilon must be finite and > 0, got {epsilon!r}")
    return _log_retain_prob(n, check_value_range(value_range), eps, _check_noise(noise))


def _log_retain_prob(n, value_range: float, eps, noise: str):
    """:func:`log_retain_prob` on checked arguments (``n`` ≥ 1, ``eps`` > 0)."""
    log_a = eps * (1.0 - n)
    if noise == "laplace":
        log_c = np.log(2.0 * value_range / eps)
    else:
        log_c = np.log(value_range * np.sqrt(np.pi / eps))
    out = log_a - np.logaddexp(log_c, log_a)
    return float(out) if np.ndim(out) == 0 else out


def log10_retain_prob(size, value_range, epsilon, noise: str = "laplace"):
    """``log₁₀ p`` (what the chapter reports: ``p`` itself is 0.0 in float64)."""
    return log_retain_prob(size, value_range, epsilon, noise) / _LN10


def retain_prob(size, value_range, epsilon, noise: str = "laplace"):
    """``p`` in float64 (0.0 once it underflows; see :func:`log_retain_prob`)."""
    return np.exp(log_retain_prob(size, value_range, epsilon, noise))


def retain_prob_ceiling(size, value_range, noise: str = "laplace") -> float:
    """The largest ``p`` over all ε for ``I ≥ 2`` entries.

    ``p_L < ε e^{−ε(I−1)} / (2Δ) ≤ 1 / (2eΔ(I−1))`` (maximum at ``ε = 1/(I−1)``) and
    ``p_G < √ε e^{−ε(I−1)} / (Δ√π) ≤ 1 / (Δ√(2πe(I−1)))`` (at ``ε = 1/(2(I−1))``).
    """
    n = int(size)
    if n < 2:
        raise ValueError(f"the ceiling needs I >= 2 entries (p -> 1 as ε grows for I = 1), "
                         f"got {size!r}")
    delta_range = check_value_range(value_range)
    if _check_noise(noise) == "laplace":
        return 1.0 / (2.0 * math.e * delta_range * (n - 1))
    return 1.0 / (delta_range * math.sqrt(2.0 * math.pi * math.e * (n - 1)))


def check_weights(weights, shape) -> np.ndarray:
    """Alg. 2's weights as a float array broadcastable to ``shape``, every entry in [0, 1]."""
    w = np.asarray(weights.detach().cpu() if is_torch(weights) else weights)
    if w.dtype == bool or w.dtype.kind not in "iuf":
        raise TypeError(f"weights must hold real numbers, got dtype {w.dtype}")
    w = w.astype(np.float64)
    if not np.all(np.isfinite(w)) or w.min() < 0.0 or w.max() > 1.0:
        raise ValueError("weights must lie in [0, 1] (Alg. 2 keeps an entry with (1 − w) p; "
                         "a weight above 1 would make it negative)")
    try:
        np.broadcast_shapes(w.shape, tuple(shape))
    except ValueError:
        raise ValueError(f"weights of shape {w.shape} do not match the tensor's shape "
                         f"{tuple(shape)} (they must broadcast to it)") from None
    return w


def tldp(x, epsilon, value_range, *, rng, noise: str = "laplace", weights=None,
         batched: bool = False, return_mask: bool = False):
    """TLDP-L / TLDP-G (Alg. 1), or their weighted forms (Alg. 2) when ``weights`` is given.

    Parameters
    ----------
    x : array_like or torch.Tensor
        One tensor, or a batch of tensors (first axis) with ``batched=True``; ``I`` is the
        size of one tensor.
    epsilon : float
        The paper's (nominal) budget; see the chapter for what it really spends.
    value_range : float
        ``Δ``, the range of the entries (Table I).
    rng : numpy.random.Generator or torch.Generator
    noise : {"laplace", "gaussian"}
    weights : array_like, optional
        Alg. 2's weights in [0, 1], broadcast against ``x`` (e.g. one per pixel, shared by the
        channels); entry ``i`` is kept with ``(1 − wᵢ) p``.
    batched : bool
    return_mask : bool
        Also return the boolean mask of kept entries.

    Returns
    -------
    y : same type as ``x``
        ``x + Z`` with ``Zᵢ = 0`` for kept entries and the noise otherwise (no clipping).
    keep : ndarray of bool, only with ``return_mask``
    """
    x = check_tensor(x, batched=batched)
    delta_range = check_value_range(value_range)
    eps = check_epsilon(epsilon)
    noise = _check_noise(noise)
    w = None if weights is None else check_weights(weights, tuple(x.shape))
    return _tldp(x, eps, delta_range, rng, noise, w, batched, return_mask)


def _tldp(x, epsilon: float, value_range: float, rng, noise: str, w, batched: bool,
          return_mask: bool = False):
    """:func:`tldp` on checked arguments: ``x`` a checked tensor (batch), ``w`` checked
    weights or None."""
    log_p = _log_retain_prob(tensor_size(per_tensor_shape(x, batched)), value_range, epsilon,
                             noise)
    z = draw_noise(x, noise, _noise_scale(value_range, epsilon, noise), rng)  # noise first
    keep = np.zeros(tuple(x.shape), dtype=bool)
    if math.exp(log_p) > 0.0:  # draw the coin only when some entry can be kept
        u = draw_noise(x, "uniform", 1.0, rng)
        u = np.asarray(u.detach().cpu()) if is_torch(u) else u
        p = math.exp(log_p) if w is None else _weighted_retain_prob(math.exp(log_p), w)
        keep = u <= p
        if is_torch(x):
            import torch

            z = z.masked_fill(torch.as_tensor(keep, device=x.device), 0.0)
        else:
            z = np.where(keep, 0.0, z).astype(x.dtype, copy=False)
    y = x + z
    return (y, keep) if return_mask else y


def _weighted_retain_prob(p: float, w: np.ndarray) -> np.ndarray:
    """Alg. 2, line 4: entry ``i`` is kept with ``(1 − wᵢ) p``."""
    return (1.0 - w) * p


def intensity_weights(x, value_range, low: float = -1.0) -> np.ndarray:
    """Sec. V-B1's weights for MNIST, "higher grayscale values correspond to higher
    weights": the intensity rescaled to [0, 1], ``w = (x − low) / Δ``, clipped to [0, 1]."""
    return _intensity_weights(check_tensor(x, "x"), check_value_range(value_range), low)


def _intensity_weights(x, value_range: float, low: float) -> np.ndarray:
    """:func:`intensity_weights` on a checked tensor and range."""
    return np.clip((np.asarray(x, dtype=np.float64) - low) / value_range, 0.0, 1.0)


def binary_weights(x, *, batched: bool = False) -> np.ndarray:
    """Binary weights: 1 on the pixels above Otsu's threshold (the digit), 0 elsewhere, one
    threshold per tensor (the authors' public code uses an Otsu mask; the paper does not
    say how its weights are made)."""
    arr = np.asarray(check_tensor(x, "x", batched=batched), dtype=np.float64)
    flat = arr.reshape(arr.shape[0], -1) if batched else arr.reshape(1, -1)
    t = np.array([_otsu(row) for row in flat])  # one threshold per image
    w = (flat > t[:, None]).astype(np.float64)
    return w.reshape(arr.shape)


def _otsu(values: np.ndarray, bins: int = 64) -> float:
    """Otsu's threshold: the cut of a 64-bin histogram with the largest between-class
    variance."""
    hist, edges = np.histogram(values, bins=bins)
    centres = (edges[:-1] + edges[1:]) / 2.0
    w0 = np.cumsum(hist)
    w1 = w0[-1] - w0
    m0 = np.cumsum(hist * centres)
    mu0 = m0 / np.maximum(w0, 1)
    mu1 = (m0[-1] - m0) / np.maximum(w1, 1)
    between = w0 * w1 * (mu0 - mu1) ** 2
    return float(centres[np.argmax(between)])
