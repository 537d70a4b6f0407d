"""Tensor algebra of TVG Sec. III (Defs. 3–5, Lemma 1), in Kolda & Bader's conventions.

Mode-n products come from ``tensorly.tenalg.mode_dot``. The unfolding is written here because
the paper uses Kolda's index map (Def. 5, Eq. 4: earlier modes vary fastest, i.e. Fortran
order), while ``tensorly.unfold`` uses C order; both give the same rows, in other column orders.

Modes are counted from 0 in code (the paper's mode 1 is ``mode=0``).
"""
from __future__ import annotations

import math
from functools import reduce

import numpy as np
from tensorly import tenalg

__all__ = ["check_mode", "mode_product", "multi_mode_product", "unfold", "fold",
           "kolda_column", "inner", "kron_covariance", "vec"]


def check_mode(mode, ndim: int) -> int:
    """A mode index in ``0 .. ndim − 1`` (an ``int``, not a bool)."""
    if isinstance(mode, bool) or not isinstance(mode, (int, np.integer)):
        raise TypeError(f"mode must be an int, got {type(mode).__name__}")
    if not 0 <= int(mode) < ndim:
        raise ValueError(f"mode must be in 0..{ndim - 1} for a tensor of order {ndim}, "
                         f"got {mode}")
    return int(mode)


def mode_product(x, matrix, mode: int, *, batched: bool = False) -> np.ndarray:
    """The n-mode product ``X ×ₙ U`` (Def. 3, Eq. 2): ``(X ×ₙ U)_{…j…} = Σ_{iₙ} x_{…iₙ…} u_{j iₙ}``.

    Parameters
    ----------
    x : array_like
        A tensor of order N, or a batch of them (``batched=True``: the first axis indexes
        tensors and ``mode`` counts the tensor's own modes).
    matrix : array_like, shape (J, Iₙ)
    mode : int
        ``n − 1`` in the paper's numbering.
    """
    x = np.asarray(x, dtype=float)
    offset = int(batched)
    mode = check_mode(mode, x.ndim - offset)
    u = np.asarray(matrix, dtype=float)
    if u.ndim != 2 or u.shape[1] != x.shape[mode + offset]:
        raise ValueError(f"mode {mode}: the matrix must have shape (J, {x.shape[mode + offset]}), "
                         f"got {u.shape}")
    return tenalg.mode_dot(x, u, mode + offset)


def multi_mode_product(x, matrices, *, batched: bool = False) -> np.ndarray:
    """``X ×₁ U₁ ×₂ U₂ ⋯ ×_N U_N`` (one matrix per mode, in mode order; ``None`` skips a mode)."""
    x = np.asarray(x, dtype=float)
    if len(matrices) != x.ndim - int(batched):
        raise ValueError(f"need one matrix per mode ({x.ndim - int(batched)}), "
                         f"got {len(matrices)}")
    for mode, u in enumerate(matrices):
        if u is not None:
            x = mode_product(x, u, mode, batched=batched)
    return x


def unfold(x, mode: int) -> np.ndarray:
    """Mode-n matricization ``X₍ₙ₎`` (Def. 5, Kolda's Eq. 4): shape ``(Iₙ, I/Iₙ)``, column
    ``j = Σ_{k≠n} i_k J_k`` with ``J_k = Π_{m<k, m≠n} I_m`` (0-based), i.e. Fortran order."""
    x = np.asarray(x)
    mode = check_mode(mode, x.ndim)
    return np.reshape(np.moveaxis(x, mode, 0), (x.shape[mode], -1), order="F")


def fold(matrix, mode: int, shape) -> np.ndarray:
    """The inverse of :func:`unfold`: the tensor of ``shape`` whose mode-n unfolding is
    ``matrix``."""
    shape = tuple(int(s) for s in shape)
    mode = check_mode(mode, len(shape))
    moved = (shape[mode],) + shape[:mode] + shape[mode + 1:]
    matrix = np.asarray(matrix)
    if matrix.size != math.prod(shape) or matrix.shape[0] != shape[mode]:
        raise ValueError(f"a mode-{mode} unfolding of shape {shape} has shape "
                         f"({shape[mode]}, {math.prod(shape) // shape[mode]}), got {matrix.shape}")
    return np.moveaxis(np.reshape(matrix, moved, order="F"), 0, mode)


def kolda_column(index, mode: int, shape) -> int:
    """Column of entry ``index`` in ``X₍ₙ₎`` by Eq. 4 written out (0-based), for checking
    :func:`unfold` against the paper's formula rather than against numpy."""
    mode = check_mode(mode, len(shape))
    column, stride = 0, 1
    for k, (i, size) in enumerate(zip(index, shape)):
        if k != mode:
            column += i * stride
            stride *= size
    return column


def inner(x, y) -> float:
    """``⟨X, Y⟩ = Σ x_{i₁…i_N} y_{i₁…i_N}`` (Def. 4); ``⟨X, X⟩ = ‖X‖²_F``."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.shape != y.shape:
        raise ValueError(f"inner product of tensors of shapes {x.shape} and {y.shape}")
    return float(np.vdot(x, y))


def kron_covariance(covariances) -> np.ndarray:
    """``Σ_N ⊗ ⋯ ⊗ Σ₁``, the covariance of ``vec_F(Z)`` for ``Z ~ TVG(0, Σ₁, …, Σ_N)``.

    Size ``I × I``: for checks on small shapes only (the samplers never form it).
    """
    return reduce(lambda acc, s: np.kron(np.asarray(s, dtype=float), acc), covariances[1:],
                  np.asarray(covariances[0], dtype=float))


def vec(x) -> np.ndarray:
    """``vec_F(X)``: the entries with the first mode varying fastest (Kolda's vec)."""
    return np.reshape(np.asarray(x), -1, order="F")
