"""numpy and torch tensors alike: noise drawn with an explicit generator, returned as the
input's type.

A numpy input needs a ``numpy.random.Generator``. A torch input takes either a numpy generator
(the noise is drawn in numpy, float64, and moved to the tensor's device and dtype: the same
draws as for the numpy input) or a ``torch.Generator`` on the tensor's device (drawn by torch,
e.g. on the GPU: the same law, other draws).
"""
from __future__ import annotations

import numpy as np

__all__ = ["is_torch", "check_tensor", "draw_noise", "add_noise", "NOISE_KINDS"]

NOISE_KINDS = ("laplace", "gaussian", "uniform")


def is_torch(x) -> bool:
    """True for a ``torch.Tensor`` (without importing torch when it is not loaded)."""
    return type(x).__module__.startswith("torch") and hasattr(x, "detach")


def check_tensor(x, name: str = "x", *, batched: bool = False):
    """Validate a tensor (numpy array-like or ``torch.Tensor``) of real, finite entries.

    Returns ``x`` as a float numpy array (float64 unless it was float32) or, for torch, the
    floating tensor itself. With ``batched`` the first axis indexes tensors and must hold at
    least one; each tensor must have at least one entry.
    """
    if is_torch(x):
        import torch

        if x.is_complex() or x.dtype == torch.bool:
            raise TypeError(f"{name} must hold real numbers, got {x.dtype}")
        if not x.is_floating_point():
            x = x.to(torch.float64)
        finite = bool(torch.isfinite(x).all())
        shape = tuple(x.shape)
    else:
        arr = np.asarray(x)
        if arr.dtype == bool or arr.dtype.kind not in "iuf":
            raise TypeError(f"{name} must hold real numbers, got dtype {arr.dtype}")
        x = arr if arr.dtype in (np.float32, np.float64) else arr.astype(np.float64)
        finite = bool(np.isfinite(x).all())
        shape = x.shape
    if not finite:
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    if batched and len(shape) < 2:
        raise ValueError(f"{name}: a batch needs shape (n, *tensor_shape), got {shape}")
    if 0 in shape:
        raise ValueError(f"{name} is empty (shape {shape})")
    return x


def _numpy_draw(kind, shape, rng):
    if kind == "laplace":
        return rng.laplace(0.0, 1.0, size=shape)
    if kind == "gaussian":
        return rng.standard_normal(size=shape)
    return rng.random(size=shape)


def _torch_draw(kind, x, gen):
    import torch

    if kind == "gaussian":
        return torch.randn(x.shape, generator=gen, device=x.device, dtype=x.dtype)
    u = torch.rand(x.shape, generator=gen, device=x.device, dtype=x.dtype)
    if kind == "uniform":
        return u
    # inverse CDF of the standard Laplace law on a uniform in [0, 1): u - 1/2 in [-1/2, 1/2)
    v = u - 0.5
    return -torch.sign(v) * torch.log1p(-2.0 * v.abs())


def draw_noise(x, kind: str, scale, rng):
    """Noise shaped like ``x``: ``scale`` times standard Laplace, Gaussian or uniform [0, 1)
    draws (``scale`` is ignored for ``"uniform"``).

    Parameters
    ----------
    x : ndarray or torch.Tensor
        Gives the shape, and the type, dtype and device of the result.
    kind : {"laplace", "gaussian", "uniform"}
    scale : float or array_like
        Laplace scale ``b`` or Gaussian standard deviation ``σ``, broadcast against ``x``.
    rng : numpy.random.Generator or torch.Generator
        A ``torch.Generator`` only for a torch ``x`` on the generator's device.
    """
    if kind not in NOISE_KINDS:
        raise ValueError(f"kind must be one of {NOISE_KINDS}, got {kind!r}")
    if is_torch(x):
        import torch

        if isinstance(rng, torch.Generator):
            if rng.device.type != x.device.type:
                raise ValueError(f"rng is a torch.Generator on {rng.device}, x is on "
                                 f"{x.device}: use a generator on the tensor's device")
            z = _torch_draw(kind, x, rng)
        elif isinstance(rng, np.random.Generator):
            z = torch.as_tensor(_numpy_draw(kind, tuple(x.shape), rng), dtype=x.dtype,
                                device=x.device)
        else:
            raise TypeError("rng must be a numpy.random.Generator or a torch.Generator, got "
                            f"{type(rng).__name__}")
        if kind == "uniform":
            return z
        return z * torch.as_tensor(scale, dtype=x.dtype, device=x.device)
    if not isinstance(rng, np.random.Generator):
        raise TypeError("rng must be a numpy.random.Generator (e.g. numpy.random."
                        f"default_rng(seed)) for a numpy input, got {type(rng).__name__}")
    z = _numpy_draw(kind, np.shape(x), rng)
    z = z if kind == "uniform" else z * np.asarray(scale, dtype=np.float64)
    return z.astype(np.asarray(x).dtype, copy=False)


def add_noise(x, kind: str, scale, rng):
    """``x + scale · Z`` with ``Z`` standard Laplace or Gaussian, as ``x``'s type."""
    if kind == "uniform":
        raise ValueError("add_noise adds Laplace or Gaussian noise, not 'uniform'")
    return x + draw_noise(x, kind, scale, rng)
