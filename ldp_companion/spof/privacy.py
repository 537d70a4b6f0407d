"""The privacy loss of SPOF's coefficient release, computed rather than asserted.

Alg. 1, Step 5 releases, for one record ``x ∈ [0, 1]^n``, the ``2n`` coefficients ``α₂, α₃`` of
Eq. 12, each plus an independent ``Lap(Δ̂/(√2 ε))`` (the paper's ``Lap(d)`` has density
``exp(-|q|/d) / (2d)``). Prop. 2 (App. C.I) instead perturbs the ``n`` sums ``α₂ + α₃`` with
``Lap(Δ̄/ε)``. Both are vectors of independent Laplace variables, so the privacy loss between two
records is closed form (:func:`laplace_privacy_loss`): ``‖μ_a - μ_b‖₁ / d`` when the scales are
equal, and ``+inf`` when a scale depends on the record (the data-dependent
``c_j = c Σ_r h_{j,r}`` of Sec. V), because the log density ratio then grows linearly in ``|q|``.

Worst-case neighbours. Every coefficient is affine in its feature (Eq. 12, also after the App. D
shift), so each ``|Δα|`` is largest at ``x_i ∈ {0, 1}`` and all of them are largest together for
the pair ``x = 0`` against ``x = 1``: that pair's loss is the mechanism's ε whenever the noise
scale does not depend on the record.

Results (``n = 14``, ``ε = 1``): Alg. 1 with ``c = 0`` is ``√2 ε``-DP (1.414), with
``split="none"`` ε-DP; with a public ``c_j`` it is over-noised (0.2204 ε at ``c_j = 2.5``,
0.0370 ε at 8.75, 0.0112 ε at 17.5, since the released α's have sensitivity 21 while the scale
uses Δ̂); with the data-dependent ``c_j`` it is not DP for any finite ε. Prop. 2 is ``ε/3``-DP
(the sum query has sensitivity 7, the scale uses 21). The authors' shared noise (one draw on
α₂ and α₃) reveals ``x`` exactly (:func:`reconstruct_from_shared`).
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np
from scipy import stats

from ldp_companion.auditing import audit
from ldp_companion.mechanisms.base import OutputLaw
from ldp_companion.spof import sensitivity, taylor
from ldp_companion.validation import (
    check_epsilons,
    check_positive_int,
    check_rng,
    check_unit_interval,
)

__all__ = ["VARIANTS", "SPLITS", "READINGS", "coefficient_release", "log_ratio_at",
           "laplace_log_ratio_sup", "laplace_privacy_loss", "laplace_kl", "PairRelease",
           "alg1_release", "alg1_epsilon", "prop2_release", "prop2_epsilon", "MonteCarloAudit",
           "audit_release", "audit_exact", "empirical_lower_bound", "sample_release",
           "release_with_shared_noise", "reconstruct_from_shared", "shared_draw_leak",
           "excess_kurtosis_of_sum", "kurtosis_facts", "sample_excess_kurtosis"]

#: Coefficient sets of :mod:`~ldp_companion.spof.taylor` (``"paper"``: Eq. 12; ``"exact"``).
VARIANTS = taylor.VARIANTS
#: Budget splits of Step 5 (:data:`~ldp_companion.spof.sensitivity.SPLITS`).
SPLITS = sensitivity.SPLITS
#: Readings of ``c_j`` (:data:`~ldp_companion.spof.sensitivity.CJ_READINGS`).
READINGS = sensitivity.CJ_READINGS

_BATCH = 2**16  # Monte Carlo draws per batch
_STAT_DECIMALS = 9  # rounding of the audit statistic (see empirical_lower_bound)


# ----------------------------------------------------------------------------- validation

def _choice(value, choices, name):
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}")
    return value


def _record(x) -> np.ndarray:
    """``x`` as a float array of shape ``(..., n)`` with every entry in [0, 1]."""
    return np.atleast_1d(check_unit_interval(x, "x", low=0.0))


def _nonneg(value, name) -> np.ndarray:
    arr = np.asarray(value, dtype=float)
    if not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise ValueError(f"{name} must be finite and >= 0, got {value!r}")
    return arr


def _scalar_out(arr):
    arr = np.asarray(arr, dtype=float)
    return float(arr) if arr.ndim == 0 else arr


# ----------------------------------------------------------------------------- the release

def coefficient_release(x, variant: str = "paper", *, shift=None) -> np.ndarray:
    """The noiseless coefficient vector that Alg. 1, Step 5 perturbs, for records ``x``.

    Parameters
    ----------
    x : array_like, shape (..., n)
        Records in [0, 1]^n.
    variant : {"paper", "exact"}
        Coefficient set (Eq. 12 as printed, or the true Taylor coefficients).
    shift : float or array_like, optional
        ``None`` (default): the unshifted ``α₂, α₃`` that Alg. 1 perturbs (the stabilization
        ``c_j`` enters only through the logit ``ẑ = z + c_j``). A value ``c_j >= 0`` (scalar or
        one per record, shape ``(...)``): the coefficients of the loss as a polynomial in the
        unshifted ``z`` (App. D), ``α₂ + 2 c_j α₃`` and ``α₃``; the constant
        ``α₂ c_j + α₃ c_j²`` drives no gradient and is not released.

    Returns
    -------
    ndarray, shape (..., 2n)
        ``[α₂ (n entries), α₃ (n entries)]`` per record.
    """
    x = _record(x)
    _, a2, a3 = taylor.coefficients(x, _choice(variant, VARIANTS, "variant"))
    a2, a3 = np.broadcast_to(a2, x.shape), np.broadcast_to(a3, x.shape)
    if shift is not None:
        a2 = a2 + 2.0 * _nonneg(shift, "shift")[..., None] * a3
    return np.concatenate([a2, a3], axis=-1)


# ----------------------------------------------------------------------------- Laplace loss

def _laplace(mean_a, mean_b, scale_a, scale_b):
    """Broadcast the four arguments to one shape ``(..., k)`` after checking them."""
    parts = [np.atleast_1d(np.asarray(v, dtype=float)) for v in (mean_a, mean_b, scale_a, scale_b)]
    if not all(np.all(np.isfinite(p)) for p in parts):
        raise ValueError("means and scales must be finite (no NaN or inf)")
    if np.any(parts[2] <= 0) or np.any(parts[3] <= 0):
        raise ValueError("Laplace scales must be > 0")
    return np.broadcast_arrays(*parts)


def log_ratio_at(q, mean_a, mean_b, scale_a, scale_b):
    """``log p_a(q) / p_b(q)`` for independent Laplace coordinates (summed over the last axis).

    ``p_a(q) = Π_i exp(-|q_i - μ_{a,i}| / d_{a,i}) / (2 d_{a,i})``, likewise ``p_b``.

    Parameters
    ----------
    q : array_like, shape (..., k)
        Outputs.
    mean_a, mean_b, scale_a, scale_b : array_like
        Means and scales of the two laws (broadcast against ``q``).

    Returns
    -------
    float or ndarray
        One log ratio per output row.
    """
    ma, mb, sa, sb = _laplace(mean_a, mean_b, scale_a, scale_b)
    q = np.asarray(q, dtype=float)
    terms = np.log(sb / sa) - np.abs(q - ma) / sa + np.abs(q - mb) / sb
    return _scalar_out(terms.sum(axis=-1))


def laplace_log_ratio_sup(mean_a, mean_b, scale_a, scale_b):
    """Exact ``sup_q log p_a(q) / p_b(q)`` for independent Laplace coordinates.

    The coordinates are independent, so the supremum is the sum of the per-coordinate ones.
    Per coordinate the log ratio is piecewise linear with slope ``±(1/d_a - 1/d_b)`` beyond both
    means: ``+inf`` if ``d_a > d_b`` (it grows in the tails), otherwise its largest kink value
    ``log(d_b / d_a) + |μ_a - μ_b| / d_b`` (``|Δμ| / d`` for equal scales).

    Returns
    -------
    float or ndarray
        Summed over the last axis.
    """
    ma, mb, sa, sb = _laplace(mean_a, mean_b, scale_a, scale_b)
    finite = np.log(sb / sa) + np.abs(ma - mb) / sb
    return _scalar_out(np.where(sa > sb, np.inf, finite).sum(axis=-1))


def laplace_privacy_loss(mean_a, mean_b, scale_a, scale_b):
    """Privacy loss ``max(sup log p_a/p_b, sup log p_b/p_a)`` of two independent-Laplace laws.

    Equal scales: ``‖μ_a - μ_b‖₁ / d`` (App. C.I's bound, attained). Any coordinate whose scale
    differs between the two records: ``+inf`` (no finite ε).
    """
    return np.maximum(laplace_log_ratio_sup(mean_a, mean_b, scale_a, scale_b),
                      laplace_log_ratio_sup(mean_b, mean_a, scale_b, scale_a))


def laplace_kl(mean_a, mean_b, scale_a, scale_b):
    """``KL(p_a ‖ p_b) = E_a[log p_a/p_b]``, summed over coordinates: per coordinate
    ``log(d_b/d_a) + |Δμ|/d_b + (d_a/d_b) exp(-|Δμ|/d_a) - 1`` (the mean of the privacy-loss
    distribution, used to check the Monte Carlo audit)."""
    ma, mb, sa, sb = _laplace(mean_a, mean_b, scale_a, scale_b)
    dm = np.abs(ma - mb)
    kl = np.log(sb / sa) + dm / sb + (sa / sb) * np.exp(-dm / sa) - 1.0
    return _scalar_out(kl.sum(axis=-1))


@dataclass(frozen=True)
class PairRelease:
    """Two Laplace output laws of one release: record ``a`` against its neighbour ``b``.

    Attributes
    ----------
    mean_a, mean_b : ndarray, shape (k,)
        Noiseless released vectors.
    scale_a, scale_b : ndarray, shape (k,)
        Laplace scales of each coordinate.
    """

    mean_a: np.ndarray
    mean_b: np.ndarray
    scale_a: np.ndarray
    scale_b: np.ndarray

    def __post_init__(self):
        parts = _laplace(self.mean_a, self.mean_b, self.scale_a, self.scale_b)
        for name, value in zip(("mean_a", "mean_b", "scale_a", "scale_b"), parts):
            object.__setattr__(self, name, value)

    @property
    def epsilon(self) -> float:
        """Exact privacy loss (:func:`laplace_privacy_loss`)."""
        return float(laplace_privacy_loss(self.mean_a, self.mean_b, self.scale_a, self.scale_b))

    def sample(self, which: str, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` outputs, shape ``(size, k)``, under record ``which`` (``"a"`` or ``"b"``)."""
        _choice(which, ("a", "b"), "which")
        mean, scale = (self.mean_a, self.scale_a) if which == "a" else (self.mean_b, self.scale_b)
        return mean + check_rng(rng).laplace(0.0, 1.0, (size,) + mean.shape) * scale

    def log_ratio(self, q, reverse: bool = False):
        """``log p_a(q)/p_b(q)`` (``reverse``: ``log p_b/p_a``) at outputs ``q``."""
        args = (self.mean_b, self.mean_a, self.scale_b, self.scale_a) if reverse else \
            (self.mean_a, self.mean_b, self.scale_a, self.scale_b)
        return log_ratio_at(q, *args)


def _cj(c, reading, l, h_sums):
    """``c_j`` of records a and b (Sec. V): data-dependent only for ``reading="data"``."""
    _choice(reading, READINGS, "reading")
    h = _nonneg(h_sums, "h_sums")
    if h.shape != (2,) or np.any(h > l):
        raise ValueError(f"h_sums must be two encoder sums in [0, l] = [0, {l}], got {h_sums!r}")
    return sensitivity.stabilization_shift(float(_nonneg(c, "c")), h, l, reading)


def _alg1_parts(c, reading, n, l, variant, shift, h_sums):
    """Means at x = 0 and x = 1, and the ``Δ̂`` of Step 5 for each record."""
    n, l = check_positive_int(n, "n"), check_positive_int(l, "l")
    cj = _cj(c, reading, l, h_sums)
    x = np.stack([np.zeros(n), np.ones(n)])
    means = coefficient_release(x, variant, shift=cj if shift else None)
    return means, sensitivity._delta_hat(n, cj, 1.0)   # n and c_j checked above


def alg1_release(epsilon: float, c: float = 0.0, reading: str = "public", split: str = "sqrt2",
                 *, n: int = 14, l: int = 7, variant: str = "paper", shift: bool = False,
                 h_sums=(3.0, 3.5)) -> PairRelease:
    """Alg. 1, Step 5 for the worst-case neighbours ``x = 0`` (a) and ``x = 1`` (b).

    Parameters
    ----------
    epsilon : float
        The budget the paper claims.
    c : float
        Stabilization constant (Sec. V; 2.5 in the experiments, 0 for FM / Prop. 2).
    reading : {"public", "worst", "data"}
        ``c_j = c``, ``l c``, or ``c Σ_r h_{j,r}`` (then record a has ``Σh = h_sums[0]``,
        record b ``h_sums[1]``).
    split : {"sqrt2", "none"}
        Scale ``Δ̂/(√2 ε)`` (Step 5) or ``Δ̂/ε``, with ``Δ̂ = Δ̄ + n c_j (c_j/2 + 2)`` (Prop. 3).
    n, l : int
        Features and code units.
    variant : {"paper", "exact"}
        Coefficients released.
    shift : bool
        Release the App. D coefficients in the unshifted logit (``α₂ + 2 c_j α₃``).
    h_sums : pair of float
        Encoder sums of records a and b (``reading="data"`` only).

    Returns
    -------
    PairRelease
    """
    _choice(split, SPLITS, "split")
    means, dhat = _alg1_parts(c, reading, n, l, variant, shift, h_sums)
    scales = sensitivity._laplace_scale(dhat, float(check_epsilons(epsilon)), split)
    return PairRelease(means[0], means[1], np.full(means.shape[1], scales[0]),
                       np.full(means.shape[1], scales[1]))


def alg1_epsilon(epsilon, c: float = 0.0, reading: str = "public", split: str = "sqrt2", *,
                 n: int = 14, l: int = 7, variant: str = "paper", shift: bool = False,
                 h_sums=(3.0, 3.5)):
    """True ε of Alg. 1's coefficient release (vectorized over ``epsilon``).

    The privacy loss of :func:`alg1_release` (same parameters). With ``c = 0``: ``√2 ε``
    (``split="sqrt2"``) or ``ε`` (``"none"``). With a public ``c_j > 0``: ``21 √2 ε / Δ̂(c_j)``
    (over-noised). With ``reading="data"``, ``c > 0`` and different ``h_sums``: ``+inf``.

    Returns
    -------
    float or ndarray
        Shape of ``epsilon``.
    """
    _choice(split, SPLITS, "split")
    eps = check_epsilons(epsilon)
    means, dhat = _alg1_parts(c, reading, n, l, variant, shift, h_sums)
    scale = sensitivity._laplace_scale(dhat, eps[..., None], split)       # (..., 2)
    return _scalar_out(laplace_privacy_loss(means[0], means[1], scale[..., :1], scale[..., 1:]))


def _prop2_means(n, variant):
    x = np.stack([np.zeros(n), np.ones(n)])
    _, a2, a3 = taylor.coefficients(x, _choice(variant, VARIANTS, "variant"))
    return a2 + a3


def prop2_release(epsilon: float, n: int = 14, variant: str = "paper") -> PairRelease:
    """Prop. 2's mechanism for ``x = 0`` (a) and ``x = 1`` (b): the sum query
    ``f_i = α₂ + α₃`` per feature plus ``Lap(Δ̄/ε)``, ``Δ̄ = 3n/2`` (App. C.I)."""
    n = check_positive_int(n, "n")
    means = _prop2_means(n, variant)
    scale = np.full(n, sensitivity.delta_bar(n) / float(check_epsilons(epsilon)))
    return PairRelease(means[0], means[1], scale, scale)


def prop2_epsilon(epsilon, n: int = 14, variant: str = "paper"):
    """True ε of Prop. 2 (vectorized): the sum query has sensitivity ``n/2`` (7), the scale uses
    ``Δ̄ = 3n/2`` (21), so the loss is ``ε/3`` (``2ε/3`` for the exact coefficients)."""
    n = check_positive_int(n, "n")
    eps = check_epsilons(epsilon)
    means = _prop2_means(n, variant)
    scale = sensitivity.delta_bar(n) / eps[..., None]
    return _scalar_out(laplace_privacy_loss(means[0], means[1], scale, scale))


# ----------------------------------------------------------------------------- audits

@dataclass(frozen=True)
class MonteCarloAudit:
    """Result of :func:`audit_release`.

    Attributes
    ----------
    max_log_ratio : float
        Largest privacy loss at the draws, both directions (a lower estimate of ε).
    mean_log_ratio : float
        Mean of ``log p_a/p_b`` over the draws under a (estimates :func:`laplace_kl`).
    exact : float
        The analytic ε (:attr:`PairRelease.epsilon`).
    n_draws : int
        Draws per record.
    """

    max_log_ratio: float
    mean_log_ratio: float
    exact: float
    n_draws: int


def audit_release(release: PairRelease, n_draws: int, rng: np.random.Generator,
                  ) -> MonteCarloAudit:
    """Monte Carlo privacy-loss estimate of a release.

    Draw ``n_draws`` outputs under record a and as many under b, evaluate the exact log density
    ratio at each (``log p_a/p_b`` at a's draws, ``log p_b/p_a`` at b's) and keep the largest. It
    never exceeds :attr:`PairRelease.epsilon` and approaches it from below as ``n_draws`` grows
    (for ``k`` coordinates the supremum is attained with probability about ``2^-k`` per draw;
    with unequal scales it grows without bound).
    """
    if not isinstance(release, PairRelease):
        raise TypeError("release must be a PairRelease")
    n_draws, rng = check_positive_int(n_draws, "n_draws"), check_rng(rng)
    best, total = -np.inf, 0.0
    for start in range(0, n_draws, _BATCH):
        m = min(_BATCH, n_draws - start)
        la = np.atleast_1d(release.log_ratio(release.sample("a", m, rng)))
        lb = np.atleast_1d(release.log_ratio(release.sample("b", m, rng), reverse=True))
        best, total = max(best, la.max(), lb.max()), total + la.sum()
    return MonteCarloAudit(float(best), float(total / n_draws), release.epsilon, n_draws)


def _laplace_law(mean: float, scale: float) -> OutputLaw:
    def logpdf(y):
        return -np.log(2.0 * scale) - np.abs(np.asarray(y, float) - mean) / scale
    return OutputLaw(breakpoints=np.array([mean]), support=(-np.inf, np.inf), logpdf=logpdf)


def audit_exact(release: PairRelease) -> float:
    """The release's ε by the shared exact auditor
    (:func:`ldp_companion.auditing.audit.law_log_ratio`), summed over the independent coordinates:
    an implementation independent of :func:`laplace_privacy_loss`."""
    if not isinstance(release, PairRelease):
        raise TypeError("release must be a PairRelease")
    laws_a = [_laplace_law(m, s) for m, s in zip(release.mean_a, release.scale_a)]
    laws_b = [_laplace_law(m, s) for m, s in zip(release.mean_b, release.scale_b)]
    ab = sum(audit.law_log_ratio(p, q)[0] for p, q in zip(laws_a, laws_b))
    ba = sum(audit.law_log_ratio(q, p)[0] for p, q in zip(laws_a, laws_b))
    return float(max(ab, ba))


def empirical_lower_bound(release: PairRelease, n_draws: int, rng: np.random.Generator,
                          confidence: float = 0.95) -> audit.EmpiricalAudit:
    """Clopper-Pearson lower confidence bound on the release's ε
    (:func:`ldp_companion.auditing.audit.empirical_audit`), with the log density ratio as the test
    statistic (the most powerful one). Below the exact ε with probability >= ``confidence``.

    The statistic is rounded to ``1e-9``: the exact law has an atom at the largest log ratio, but
    in floating point ``q = μ + L d`` carries low-order bits that differ between the two records
    (Mironov 2012), and a region cut inside that atom's rounding noise would audit the float
    sampler's bit pattern (we saw a "bound" of 2.19 against a true 1.41 without rounding)."""
    if not isinstance(release, PairRelease):
        raise TypeError("release must be a PairRelease")

    def sampler(label, m, gen):
        return release.sample("a" if float(label) == 0.0 else "b", m, gen)

    def statistic(q):
        return np.round(np.atleast_1d(release.log_ratio(q)), _STAT_DECIMALS)

    return audit.empirical_audit(sampler, 0.0, 1.0, n_draws, rng, statistic=statistic,
                                 confidence=confidence, claimed_epsilon=release.epsilon)


# ----------------------------------------------------------------------------- shared noise

def _scale(scale) -> float:
    if isinstance(scale, bool) or not isinstance(scale, numbers.Real) \
            or not math.isfinite(scale) or scale <= 0:
        raise ValueError(f"scale must be a finite real > 0, got {scale!r}")
    return float(scale)


def sample_release(x, scale: float, rng: np.random.Generator, variant: str = "paper",
                   shared: bool = False) -> np.ndarray:
    """One noisy coefficient release per record, shape ``(..., 2n)``.

    ``shared=False``: independent ``Lap(scale)`` on every coefficient (Alg. 1).
    ``shared=True``: one draw ``ν_i`` per feature added to both ``α₂`` and ``α₃`` (the authors'
    code).
    """
    mean = coefficient_release(x, variant)
    scale, rng = _scale(scale), check_rng(rng)
    n = mean.shape[-1] // 2
    if shared:
        nu = rng.laplace(0.0, scale, mean.shape[:-1] + (n,))
        return mean + np.concatenate([nu, nu], axis=-1)
    return mean + rng.laplace(0.0, scale, mean.shape)


def release_with_shared_noise(x, scale: float, rng: np.random.Generator,
                              variant: str = "paper") -> np.ndarray:
    """:func:`sample_release` with the authors' shared draw (``shared=True``)."""
    return sample_release(x, scale, rng, variant, shared=True)


def _difference_line(variant):
    """``α₂(x) - α₃(x) = d₀ + s x`` (affine): ``(0.75, -1.5)`` paper, ``(0.375, -1)`` exact."""
    _, a2, a3 = taylor.coefficients(np.array([0.0, 1.0]), _choice(variant, VARIANTS, "variant"))
    d = np.broadcast_to(a2 - a3, (2,))
    return float(d[0]), float(d[1] - d[0])


def reconstruct_from_shared(release, variant: str = "paper") -> np.ndarray:
    """Recover ``x`` from a shared-noise release: ``(α₂ + ν) - (α₃ + ν) = d₀ + s x`` is
    noise-free, so ``x = (difference - d₀) / s`` (paper: ``0.75 - 1.5 x``; exact:
    ``3/8 - x``)."""
    q = np.asarray(release, dtype=float)
    if q.ndim == 0 or q.shape[-1] % 2 or not np.all(np.isfinite(q)):
        raise ValueError("release must be finite with an even last axis [α₂..., α₃...]")
    d0, slope = _difference_line(variant)
    n = q.shape[-1] // 2
    return (q[..., :n] - q[..., n:] - d0) / slope


def shared_draw_leak(x, scale: float, rng: np.random.Generator, variant: str = "paper",
                     shared: bool = True) -> float:
    """Largest ``|x̂ - x|`` when :func:`reconstruct_from_shared` attacks one release of ``x``:
    rounding-level with the shared draw, of the order of ``scale`` with independent draws
    (``shared=False``)."""
    q = sample_release(x, scale, rng, variant, shared=shared)
    return float(np.abs(reconstruct_from_shared(q, variant) - _record(x)).max())


# ----------------------------------------------------------------------------- kurtosis

def excess_kurtosis_of_sum(k=1):
    """Excess kurtosis of a sum of ``k`` iid Laplace variables, ``3/k`` (cumulants add, so the
    ratio ``κ₄/κ₂²`` divides by ``k``). ``k = 1``: 3 (Laplace); ``k = 2``: 1.5, so Step 5's
    ``M_i = M_{i,1} + M_{i,2}`` is not Laplace."""
    k = np.asarray(k)
    if not np.issubdtype(k.dtype, np.integer) or np.any(k < 1):
        raise ValueError(f"k must be integers >= 1, got {k!r}")
    return _scalar_out(3.0 / k)


def kurtosis_facts() -> dict:
    """Closed forms: ``{"laplace": 3.0, "sum_of_two_laplace": 1.5}``."""
    return {"laplace": excess_kurtosis_of_sum(1), "sum_of_two_laplace": excess_kurtosis_of_sum(2)}


def sample_excess_kurtosis(k: int, n_draws: int, rng: np.random.Generator) -> float:
    """Sample excess kurtosis of ``n_draws`` sums of ``k`` iid ``Lap(1)`` draws (Monte Carlo
    check of :func:`excess_kurtosis_of_sum`; its s.d. is about ``√(2484 / n_draws)`` at k = 1)."""
    k, n_draws = check_positive_int(k, "k"), check_positive_int(n_draws, "n_draws")
    draws = check_rng(rng).laplace(0.0, 1.0, (n_draws, k)).sum(axis=1)
    return float(stats.kurtosis(draws, fisher=True))
