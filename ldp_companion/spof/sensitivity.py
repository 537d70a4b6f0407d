"""Sensitivities and Laplace scales of SPOF and of the paper's DP-SGD (App. B, D, H; Eqs. 17–27,
57–66).

The paper's ``Lap(d)`` has density ``exp(-|x|/d) / (2d)`` (variance ``2 d²``).

The training (:mod:`ldp_companion.spof.train`) calibrates its noise with these functions: the
public ones validate their arguments and call the private ``_delta_hat``, ``_laplace_scale`` and
``_delta_sgd``, which trust theirs and work on numpy arrays and torch tensors alike, so the
training step and the chapter's checks compute the same numbers with the same code.
"""
from __future__ import annotations

import math

import numpy as np

from ldp_companion.validation import check_epsilons, check_positive_int

__all__ = ["SPLITS", "CJ_READINGS", "delta_bar", "delta_hat", "stabilization_shift",
           "laplace_scale", "empirical_sensitivity", "spof_feature_paper",
           "spof_feature_corrected", "sgd_feature_paper", "sgd_feature_corrected", "delta_sgd",
           "delta_sgd_current"]

#: How Alg. 1's Step 5 splits the budget over α₂ and α₃: ``"sqrt2"`` (the paper,
#: ``Lap(Δ̂/(√2 ε))`` on each) or ``"none"`` (``Lap(Δ̂/ε)`` on each: ε-DP).
SPLITS = ("sqrt2", "none")

#: Readings of the stabilization scalar ``c_j`` (Sec. V): ``"data"`` = ``c Σ_r h_{j,r}`` (the
#: literal ``c_jᵀ h_j``, data-dependent), ``"public"`` = ``c``, ``"worst"`` = ``l c``.
CJ_READINGS = ("data", "public", "worst")


def delta_bar(n: int) -> float:
    """``Δ̄_SPOF = 2 Σ_i max(|α₂| + |α₃|) = 3n/2`` (App. B.I, Eq. 21)."""
    return 1.5 * check_positive_int(n, "n")


def delta_hat(n: int, c_j, b_j=1.0):
    """``Δ̂_SPOF = b_j Δ̄ + n c_j (c_j/2 + 2)`` (Prop. 3, App. D; ``b_j`` of Thm. 1 for noisy
    inputs, 1 without).

    Parameters
    ----------
    n : int
        Features.
    c_j : float or array_like
        The stabilization scalar (>= 0), see :data:`CJ_READINGS`.
    b_j : float or array_like
        Thm. 1's factor (noiseless: 1 in the paper's formula).
    """
    c_j = np.asarray(c_j, dtype=float)
    b_j = np.asarray(b_j, dtype=float)
    if np.any(~np.isfinite(c_j)) or np.any(c_j < 0):
        raise ValueError("c_j must be finite and >= 0")
    if np.any(~np.isfinite(b_j)) or np.any(b_j < 0):
        raise ValueError("b_j must be finite and >= 0")
    return _delta_hat(check_positive_int(n, "n"), c_j, b_j)


def _delta_hat(n, c_j, b_j):
    """:func:`delta_hat` for trusted arguments (numpy or torch): what the training calls."""
    return b_j * delta_bar(n) + n * c_j * (c_j / 2.0 + 2.0)


def stabilization_shift(c: float, h_sum, l: int, reading: str = "data"):
    """The scalar ``c_j`` added to every logit of user j (Alg. 1, Step 3).

    ``reading``: ``"data"`` → ``c Σ_r h_{j,r}`` (``h_sum``), ``"public"`` → ``c``,
    ``"worst"`` → ``l c`` (see :data:`CJ_READINGS`).
    """
    if reading not in CJ_READINGS:
        raise ValueError(f"reading must be one of {CJ_READINGS}, got {reading!r}")
    if not np.isfinite(c) or c < 0:
        raise ValueError(f"c must be finite and >= 0, got {c!r}")
    if reading == "data":
        return c * np.asarray(h_sum, dtype=float)
    return np.full_like(np.asarray(h_sum, dtype=float), c if reading == "public" else l * c)


def laplace_scale(delta, epsilon, split: str = "sqrt2"):
    """Laplace scale ``d`` of each perturbed coefficient (Alg. 1, Step 5).

    ``split="sqrt2"``: ``Δ/(√2 ε)`` (the paper); ``"none"``: ``Δ/ε``.
    """
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
    eps = check_epsilons(epsilon)
    delta = np.asarray(delta, dtype=float)
    if np.any(~np.isfinite(delta)) or np.any(delta < 0):
        raise ValueError("delta (the sensitivity) must be finite and >= 0")
    return _laplace_scale(delta, eps, split)


def _laplace_scale(delta, eps, split):
    """:func:`laplace_scale` for trusted arguments (numpy or torch): what the training calls."""
    d = delta / eps
    return d / np.sqrt(2.0) if split == "sqrt2" else d


def empirical_sensitivity(coeff_fn, n: int, n_grid: int = 1001) -> float:
    """Brute-force L1 sensitivity ``max_{x, x'} Σ |coeff_fn(x) - coeff_fn(x')|`` over ``n``
    features, each on an ``n_grid``-point grid of [0, 1] (Def. 2).

    ``coeff_fn(x)`` maps an array of feature values to a tuple of coefficient arrays; the
    features are independent, so the maximum over vectors is ``n`` times the per-feature one.
    """
    n = check_positive_int(n, "n")
    grid = np.linspace(0.0, 1.0, check_positive_int(n_grid, "n_grid"))
    parts = [np.broadcast_to(np.asarray(c, dtype=float), grid.shape) for c in coeff_fn(grid)]
    per_feature = sum(np.abs(p[:, None] - p[None, :]) for p in parts).max()
    return float(n * per_feature)


def _sp(a):
    return np.logaddexp(0.0, a)


def _sig(a):
    return 0.5 * (1.0 + np.tanh(0.5 * np.asarray(a, dtype=float)))


def spof_feature_paper(a):
    """Per-feature SPOF sensitivity as the paper prints it (Eq. 58, Fig. 6)."""
    a = np.asarray(a, dtype=float)
    s, e = _sig(a), np.exp(a)
    return _sp(a) + 2.0 * (_sp(-a) / _sp(a) + 2.0 * e / (1.0 + e) ** 2 + s)


def spof_feature_corrected(a):
    """Per-feature SPOF sensitivity with the coefficients maximised at ``x ∈ {0, 1}``:
    ``2 [sp(|a|) + σ(|a|) + σ'(a)]``."""
    a = np.asarray(a, dtype=float)
    s = _sig(a)
    return 2.0 * (_sp(np.abs(a)) + _sig(np.abs(a)) + s * (1.0 - s))


def sgd_feature_paper(a):
    """``Δ_SGD(i) = 2 e^a / (1 + e^a)`` (Eq. 64, unclipped)."""
    return 2.0 * _sig(a)


def sgd_feature_corrected(a):
    """``Δ_SGD(i) = 2 max(σ(a), 1 - σ(a))``: the range of ``σ(a) - x`` over ``x ∈ [0, 1]``
    doubled, as Eq. 64 intends."""
    s = _sig(a)
    return 2.0 * np.maximum(s, 1.0 - s)


def delta_sgd(n: int, *, clipped: bool = False, clip: float = 4.0, b_j=1.0, a: float = 0.0):
    """``Δ_SGD`` of the paper's logit-space DP-SGD (Eqs. 24, 26, 27, App. B.II).

    Unclipped, Eq. 64 gives each feature ``Δ_SGD(i) = 2σ(a)``, scaled by ``b_j`` under
    noisy inputs (Eq. 27): ``Δ = b_j Σ_i 2σ(a) = b_j n`` at ``a = 0`` (14 for ``n = 14``).
    Clipped to ``C`` it is ``2 n C`` (112).
    """
    n = check_positive_int(n, "n")
    clip, a = float(clip), float(a)
    if not (math.isfinite(clip) and clip > 0) or not math.isfinite(a):
        raise ValueError(f"clip must be finite and > 0 and a finite, got {clip!r}, {a!r}")
    b_j = np.asarray(b_j, dtype=float)
    if np.any(~np.isfinite(b_j)) or np.any(b_j < 0):
        raise ValueError("b_j must be finite and >= 0")
    return _delta_sgd(n, bool(clipped), clip, b_j, a)


def _delta_sgd(n, clipped, clip, b_j, a):
    """:func:`delta_sgd` for trusted arguments (``b_j`` numpy or torch): what the training
    calls."""
    if clipped:
        return 2.0 * n * clip
    return b_j * (n * float(sgd_feature_paper(a)))


def delta_sgd_current(n: int, *, clipped: bool = False, clip: float = 4.0, b_j=1.0):
    """``Δ_SGD`` of the logit gradient ``b_j (σ(z) - x)`` taken at the *current* logit ``z``,
    as the book's training takes it (chapter 4, Deviations): ``2 b_j n`` unclipped, ``2nC``
    clipped.

    ``z`` is computed from the record (the encoder reads it), so two records' gradients differ
    in ``σ(z) - x`` and ``σ(z') - x'``, up to 2 per feature as the logits grow (``σ(z) → 1``
    with ``x = 0`` against ``σ(z') → 0`` with ``x' = 1``): twice Eq. 64's ``n`` at ``a = 0``,
    which holds only for a logit fixed independently of the record. Clipped gradients differ
    by at most ``2C√n ≤ 2nC`` in L1, as App. B.II's bound says.
    """
    n = check_positive_int(n, "n")
    clip = float(clip)
    if not (math.isfinite(clip) and clip > 0):
        raise ValueError(f"clip must be finite and > 0, got {clip!r}")
    b_j = np.asarray(b_j, dtype=float)
    if np.any(~np.isfinite(b_j)) or np.any(b_j < 0):
        raise ValueError("b_j must be finite and >= 0")
    return _delta_sgd_current(n, bool(clipped), clip, b_j)


def _delta_sgd_current(n, clipped, clip, b_j):
    """:func:`delta_sgd_current` for trusted arguments (``b_j`` numpy or torch): what the
    training calls."""
    return 2.0 * n * clip if clipped else 2.0 * n * b_j
