"""SPOF with noisy inputs: Sec. VI, Theorem 1, Appendices E and F (Eqs. 13, 34-56, Figs. 4-5).

The encoder of user ``j`` sees ``x + n`` with ``n ~ N(0, σ² I_n)``. With the clean hidden units
``h = σ(Wᵀx)`` and ``D_r = W[:, r]ᵀ n`` the noisy hidden units are *exactly*

    ĥ_r = b_r h_r,      b_r = e^{D_r} / (1 + (e^{D_r} - 1) h_r) ∈ (0, 1/h_r)      (Eq. 34)

and the noisy decoder logit is exactly ``ẑ_i = b z_i - t_i`` with ``b = Σ_r b_r`` (Eq. 36) and
``t_i = Σ_r (b - b_r) Ŵ[r, i] h_r`` (Eqs. 35, 37, 38). Without noise every ``b_r = 1``, so
``b = l`` — not 1, the anchor that Prop. 4 and Remark 2 compare ``b`` against.

What the paper gets wrong, and what this module provides to show it:

* Thm. 1 / Eq. 43 scales both Taylor coefficients by ``b``; Eq. 42 itself gives
  ``f̃^{(r)} = b^r f^{(r)}``, so the quadratic coefficient scales with ``b²``
  (:func:`noisy_taylor`, :func:`coefficient_error`). Multiplying coefficient and Laplace scale by
  the same ``b`` leaves their ratio unchanged (:func:`coefficient_snr`): no utility is gained.
* Eq. 50 inverts ``X(y) = y / (1 + h(y - 1))`` as ``y = x / (1 - hx + h)``; the inverse is
  ``y = x(1 - h) / (1 - hx)`` (:func:`y_of_x`). The pdf of Eq. 53 built on the wrong inverse is a
  proper density of a different variable, supported on ``(0, (1+h)/h)`` instead of ``(0, 1/h)``
  (:func:`fx_pdf_paper`). ``X`` is increasing in ``D``, so its CDF has the closed form
  ``Φ(ln(t(1-h)/(1-ht)) / σ̃)`` (:func:`fx_cdf_exact`), contrary to "no closed form" below
  Eq. 54. App. F.II writes ``Var D = σ²‖W‖₂`` without the square; the s.d. is ``σ̃ = σ‖W‖₂``.
* Fig. 4 plots Eq. 53 at ``b/l`` without the order-statistic factor (:func:`fig4_authors`);
  the max-order density of Eq. 54 is :func:`fbmax_pdf`. Fig. 5 plots a single-variable
  probability ``Φ(ln(1/l)/σ̃)`` that tends to 0.5 from below (:func:`fig5_authors`); under the
  paper's own definitions ``Pr[b_max ≤ 1] = F_X(1/l)^{|D|}`` (:func:`fig5_correct`), below
  ``2^{-|D|}``. For ``l ≥ 2``, ``b < 1`` needs every ``D_r < 0``, so
  ``Pr[b < 1] < Pr[D_1 < 0] = 1/2`` for every ``W``, ``h`` and ``σ``.

Everything is vectorised numpy; arrays carry any leading batch axes.
"""
from __future__ import annotations

import math

import numpy as np
from scipy import special

from ldp_companion.spof import taylor
from ldp_companion.validation import check_epsilon as check_positive_real
from ldp_companion.validation import check_positive_int, check_rng

__all__ = [
    "WNORM_AUTHORS", "SIGMA_FIG4", "FIG4_GRID", "FIG5_SIGMAS", "COEFFS",
    "noise_projection", "b_of_d", "b_factors", "t_terms", "noisy_identities",
    "noisy_bce", "noisy_taylor", "coefficient_error", "coefficient_snr",
    "x_of_y", "y_of_x", "fx_cdf_exact", "fx_pdf_exact", "fx_ppf_exact",
    "fx_cdf_paper", "fx_pdf_paper", "fx_ppf_paper",
    "fbmax_cdf", "fbmax_pdf", "fbmax_quantile", "fbmax_median",
    "fig4_authors", "fig5_authors", "fig5_correct", "mc_prob_bj_below",
]

#: ``‖W[:, r]‖₂`` used for the authors' Figs. 4-5: the RMS column norm of ``W ~ U(-10, 10)^14``,
#: ``sqrt(14 · 100/3) = 21.6025`` (21.60 to four digits; the 4-digit Fig. 5 value at
#: ``σ = 0.1`` needs the unrounded norm).
WNORM_AUTHORS = math.sqrt(14 * 100 / 3)
#: Environmental-noise s.d. in the authors' Fig. 4 script (the caption says ``N(0, 1)``).
SIGMA_FIG4 = 0.5
#: The ``b`` grid of the authors' Fig. 4 script.
FIG4_GRID = np.linspace(0.1, 4.0, 50)
#: The ``σ`` grid of the authors' Fig. 5 script.
FIG5_SIGMAS = np.linspace(0.1, 10.0, 50)
#: Taylor coefficient sets of :func:`noisy_taylor`.
COEFFS = ("exact", "paper")

_SQRT2PI = math.sqrt(2.0 * math.pi)


# --------------------------------------------------------------------------- validation
def _real(value, name: str, *, finite: bool = True) -> np.ndarray:
    """``value`` as a float64 array of real numbers (bool, complex, strings, objects refused)."""
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must hold real numbers, got {type(value).__name__}")
    arr = np.asarray(value)
    if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.integer)
                                 or np.issubdtype(arr.dtype, np.floating)):
        raise TypeError(f"{name} must hold real numbers, got dtype {arr.dtype}")
    arr = arr.astype(np.float64, copy=False)
    if finite and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    if not finite and np.any(np.isnan(arr)):
        raise ValueError(f"{name} must not contain NaN")
    return arr


def _positive(value, name: str) -> np.ndarray:
    """Finite entries > 0 (scalar or array)."""
    arr = _real(value, name)
    if arr.size and arr.min() <= 0:
        raise ValueError(f"{name} must be > 0, got minimum {arr.min():.6g}")
    return arr


def _hidden(h, name: str = "h", *, closed: bool) -> np.ndarray:
    """Hidden units in [0, 1] (``closed``) or [0, 1)."""
    arr = _real(h, name)
    if arr.size and arr.min() < 0:
        raise ValueError(f"{name} must be >= 0, got minimum {arr.min():.6g}")
    if arr.size and (arr.max() > 1 if closed else arr.max() >= 1):
        interval = "[0, 1]" if closed else "[0, 1)"
        raise ValueError(f"{name} must lie in {interval}, got maximum {arr.max():.6g}")
    return arr


def _unit(x, name: str = "x") -> np.ndarray:
    arr = _real(x, name)
    if arr.size and (arr.min() < 0 or arr.max() > 1):
        raise ValueError(f"{name} must lie in [0, 1]")
    return arr


def _choice(value, allowed, name: str):
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
    return value


def _batch(name: str, *shapes) -> tuple:
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError as exc:
        raise ValueError(f"{name}: leading (batch) axes do not broadcast: {shapes}") from exc


# --------------------------------------------------------------------------- Eqs. 34-38
def noise_projection(W, noise) -> np.ndarray:
    """``D_r = W[:, r]ᵀ n`` for every hidden unit ``r`` (App. E, Eq. 34; App. F.II).

    Parameters
    ----------
    W : array_like, shape (..., n, l)
        Encoder weights of one user (``h = σ(Wᵀx)``).
    noise : array_like, shape (..., n)
        Environmental noise ``n``; leading axes broadcast against ``W``'s.

    Returns
    -------
    ndarray, shape (..., l)
    """
    W = _real(W, "W")
    noise = _real(noise, "noise")
    if W.ndim < 2:
        raise ValueError(f"W must have shape (..., n, l), got {W.shape}")
    if noise.ndim < 1 or noise.shape[-1] != W.shape[-2]:
        raise ValueError(f"noise must have shape (..., n) with n = {W.shape[-2]}, "
                         f"got {noise.shape}")
    _batch("W/noise", W.shape[:-2], noise.shape[:-1])
    return np.matmul(noise[..., None, :], W)[..., 0, :]


def _b_of_d(d: np.ndarray, h: np.ndarray) -> np.ndarray:
    """Eq. 34 without validation, overflow-free: exp(-|D|) is the only exponential taken."""
    e = np.exp(-np.abs(d))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        pos = 1.0 / (h + (1.0 - h) * e)           # D >= 0: e^D / (1 + (e^D - 1) h)
        neg = e / ((1.0 - h) + h * e)             # D < 0, multiplied through by e^{-|D|}
        b = np.where(d >= 0, pos, neg)
    return np.where(h >= 1.0, 1.0, b)             # h = 1: ĥ = h = 1 whatever D is


def b_of_d(d, h) -> np.ndarray:
    """The map ``X = b(D) = e^D / (1 + (e^D - 1) h)`` of Eqs. 34 and 49.

    Computed as ``1 / (h + (1-h) e^{-D})`` for ``D ≥ 0`` and ``e^D / (1 - h + h e^D)`` for
    ``D < 0``, so no exponential overflows; only ``h = 0`` with ``D > 709`` returns ``inf``
    (the true value exceeds the float range).

    Parameters
    ----------
    d : array_like
        Projected noise ``D`` (finite).
    h : array_like
        Clean hidden unit(s) in [0, 1]; broadcasts against ``d``. ``h = 1`` gives ``b = 1``.

    Returns
    -------
    ndarray
        ``b`` in ``(0, 1/h)``; increasing in ``D``, equal to 1 at ``D = 0``.
    """
    return _b_of_d(_real(d, "d"), _hidden(h, closed=True))


def b_factors(W, h, noise):
    """Per-unit noise factors ``b_r`` (Eq. 34) and their sum ``b`` (Eq. 36).

    Parameters
    ----------
    W : array_like, shape (..., n, l)
        Encoder weights.
    h : array_like, shape (..., l)
        Clean hidden units ``σ(Wᵀx)`` in [0, 1]. (Where a unit has saturated to exactly 1.0 in
        floating point, ``b_r = 1`` and the identity ``ĥ = b h`` is lost; pass unsaturated units.)
    noise : array_like, shape (..., n)
        Environmental noise. Leading axes of the three arguments broadcast.

    Returns
    -------
    b_r : ndarray, shape (..., l)
        ``b_{j,r} = e^{D_r} / (1 + (e^{D_r} - 1) h_r)``, so that ``σ(Wᵀ(x + n)) = b_r h_r``.
    b_j : ndarray, shape (...)
        ``b_j = Σ_r b_{j,r}``; ``b_j = l`` (not 1) when ``noise = 0``.
    """
    d = noise_projection(W, noise)
    h = _hidden(h, closed=True)
    if h.ndim < 1 or h.shape[-1] != d.shape[-1]:
        raise ValueError(f"h must have shape (..., l) with l = {d.shape[-1]}, got {h.shape}")
    _batch("W/noise/h", d.shape[:-1], h.shape[:-1])
    b_r = _b_of_d(d, h)
    return b_r, b_r.sum(axis=-1)


def t_terms(b_r, W_dec_block, h) -> np.ndarray:
    """Offsets ``t_i = Σ_r (Σ_{s≠r} b_s) Ŵ[r, i] h_r`` of Eqs. 35 and 37.

    With them the noisy logit is exactly ``ẑ_i = Ŵ[:, i]ᵀ(b ⊙ h) = b z_i - t_i`` (Eq. 38).

    Parameters
    ----------
    b_r : array_like, shape (..., l)
        Noise factors from :func:`b_factors` (finite, ≥ 0).
    W_dec_block : array_like, shape (..., l, n)
        The user's decoder block ``Ŵ_{(j-1)l+1 : jl, :}``.
    h : array_like, shape (..., l)
        Clean hidden units in [0, 1].

    Returns
    -------
    ndarray, shape (..., n)
    """
    b_r = _real(b_r, "b_r")
    if b_r.size and b_r.min() < 0:
        raise ValueError("b_r must be >= 0")
    Wd = _real(W_dec_block, "W_dec_block")
    h = _hidden(h, closed=True)
    if Wd.ndim < 2:
        raise ValueError(f"W_dec_block must have shape (..., l, n), got {Wd.shape}")
    l = Wd.shape[-2]
    if b_r.ndim < 1 or b_r.shape[-1] != l:
        raise ValueError(f"b_r must have shape (..., l) with l = {l}, got {b_r.shape}")
    if h.ndim < 1 or h.shape[-1] != l:
        raise ValueError(f"h must have shape (..., l) with l = {l}, got {h.shape}")
    _batch("b_r/W_dec_block/h", b_r.shape[:-1], Wd.shape[:-2], h.shape[:-1])
    weights = (b_r.sum(axis=-1, keepdims=True) - b_r) * h          # (Σ_{s≠r} b_s) h_r
    return np.matmul(weights[..., None, :], Wd)[..., 0, :]


def noisy_identities(rng, n: int = 14, l: int = 7, sigma: float = 5.0,
                     w_bound: float = 1.0, batch: int = 64) -> dict:
    """Check the exact identities of App. E on random draws.

    Draws ``batch`` independent sets ``W, Ŵ ~ U(-w_bound, w_bound)``, ``x ~ U(0, 1)^n`` and
    ``n ~ N(0, σ² I)`` and compares ``ĥ = σ(Wᵀ(x + n))`` with ``b ⊙ h`` (Eq. 34) and
    ``ẑ = Ŵᵀĥ`` with ``b z - t`` (Eq. 38); also evaluates the noiseless case.

    Parameters
    ----------
    rng : numpy.random.Generator
    n, l : int
        Input and code dimensions.
    sigma : float
        Noise s.d. (> 0).
    w_bound : float
        Half-width of the uniform weight draws (> 0). Keep ``w_bound`` moderate so that
        ``h`` does not round to 1.0 (see :func:`b_factors`).
    batch : int
        Number of independent draws, evaluated in one vectorised pass.

    Returns
    -------
    dict
        ``hidden_err`` = max ``|ĥ - b ⊙ h|``, ``logit_err`` = max ``|ẑ - (b z - t)|``,
        ``logit_scale`` = max ``|ẑ|``, ``noiseless_b_r`` (max ``|b_r - 1|`` at ``n = 0``),
        ``noiseless_b_j`` (the common value of ``b_j`` at ``n = 0``, which is ``l``) and
        ``noiseless_logit_err`` (max ``|ẑ - z|`` at ``n = 0``).
    """
    rng = check_rng(rng)
    n = check_positive_int(n, "n")
    l = check_positive_int(l, "l")
    batch = check_positive_int(batch, "batch")
    sigma = check_positive_real(sigma, "sigma")
    w_bound = check_positive_real(w_bound, "w_bound")
    W = rng.uniform(-w_bound, w_bound, size=(batch, n, l))
    Wd = rng.uniform(-w_bound, w_bound, size=(batch, l, n))
    x = rng.uniform(0.0, 1.0, size=(batch, n))
    noise = sigma * rng.standard_normal((batch, n))
    h = special.expit(np.matmul(x[:, None, :], W)[:, 0, :])
    h_hat = special.expit(np.matmul((x + noise)[:, None, :], W)[:, 0, :])
    b_r, b_j = b_factors(W, h, noise)
    z = np.matmul(h[:, None, :], Wd)[:, 0, :]
    z_hat = np.matmul(h_hat[:, None, :], Wd)[:, 0, :]
    t = t_terms(b_r, Wd, h)
    b0_r, b0_j = b_factors(W, h, np.zeros_like(noise))
    t0 = t_terms(b0_r, Wd, h)
    return {
        "hidden_err": float(np.max(np.abs(h_hat - b_r * h))),
        "logit_err": float(np.max(np.abs(z_hat - (b_j[:, None] * z - t)))),
        "logit_scale": float(np.max(np.abs(z_hat))),
        "noiseless_b_r": float(np.max(np.abs(b0_r - 1.0))),
        "noiseless_b_j": float(b0_j[0]) if np.all(b0_j == b0_j[0]) else float("nan"),
        "noiseless_logit_err": float(np.max(np.abs(b0_j[:, None] * z - t0 - z))),
    }


# --------------------------------------------------------------------------- Thm. 1
def noisy_bce(x, z, b, t) -> np.ndarray:
    """Exact BCE of the noisy logit ``ẑ = b z - t`` (Eqs. 40, 38): ``sp(ẑ) - x ẑ``.

    Parameters
    ----------
    x : array_like
        Targets in [0, 1].
    z, b, t : array_like
        Clean logit, noise factor ``b_j`` (> 0) and offset ``t_{j,i}``; all broadcast.
    """
    x = _unit(x)
    z = _real(z, "z")
    b = _positive(b, "b")
    t = _real(t, "t")
    return taylor.bce(x, b * z - t)


def noisy_taylor(x, z, b, t, power: int = 2, coeffs: str = "exact") -> np.ndarray:
    """Second-order Taylor polynomial of the noisy loss in ``u = z - t/b`` (Eqs. 13, 42-44).

    ``log 2 + b α₂ u + b^power α₃ u²`` with ``α₂ = 1/2 - x`` and
    ``α₃ = 1/8`` (``coeffs="exact"``) or ``α₃ = x/2 - 1/4`` (``coeffs="paper"``, Eq. 12).
    Eq. 42 gives ``f̃^{(r)} = b^r f^{(r)}``, hence ``power=2``; Thm. 1 / Eq. 13 print
    ``power=1``. The paper's Thm. 1 is ``power=1, coeffs="paper"``.

    Parameters
    ----------
    x : array_like
        Targets in [0, 1].
    z, b, t : array_like
        Clean logit, ``b_j > 0`` and ``t_{j,i}`` (broadcast).
    power : {1, 2}
        Power of ``b`` on the quadratic coefficient.
    coeffs : {"exact", "paper"}
        Which ``α₃``.
    """
    if isinstance(power, bool) or power not in (1, 2):
        raise ValueError(f"power must be 1 or 2, got {power!r}")
    _choice(coeffs, COEFFS, "coeffs")
    x = _unit(x)
    z = _real(z, "z")
    b = _positive(b, "b")
    t = _real(t, "t")
    a1, a2, a3 = taylor.coefficients(x, coeffs)
    u = z - t / b
    return a1 + b * a2 * u + b**power * a3 * u * u


def coefficient_error(x, b, t, zmax, power: int = 2, coeffs: str = "exact",
                      num: int = 20001) -> float:
    """Max ``|noisy_taylor - noisy_bce|`` over ``|z| ≤ zmax``.

    With ``power=2, coeffs="exact"`` the error is the Taylor remainder of ``sp(ẑ) - xẑ``, bounded
    by ``max|ẑ|⁴ / 192``; any other choice adds an ``O(u²)`` term.

    Parameters
    ----------
    x : float
        Target in [0, 1].
    b : float
        Noise factor ``b_j > 0``.
    t : float
        Offset ``t_{j,i}``.
    zmax : float
        Half-width of the ``z`` interval (> 0).
    power, coeffs
        As in :func:`noisy_taylor`.
    num : int
        Grid points on ``[-zmax, zmax]`` (endpoints included, ≥ 2).

    Returns
    -------
    float
        Reference (x=0.3, b=2, t=0.1, zmax=0.3): 1.211e-3 for ``power=2, "exact"``;
        8.454e-2 for ``power=1, "paper"`` (Thm. 1 as printed); 2.941e-2 for ``power=1,
        "exact"``.
    """
    zmax = check_positive_real(zmax, "zmax")
    num = check_positive_int(num, "num")
    if num < 2:
        raise ValueError("num must be >= 2")
    for name, v in (("x", x), ("b", b), ("t", t)):
        if np.ndim(v) != 0:
            raise ValueError(f"{name} must be a scalar")
    z = np.linspace(-zmax, zmax, num)
    return float(np.max(np.abs(noisy_taylor(x, z, b, t, power, coeffs)
                               - noisy_bce(x, z, b, t))))


def coefficient_snr(alpha, scale) -> np.ndarray:
    """Coefficient-to-noise ratio ``|α| / sd(Lap(scale)) = |α| / (√2 · scale)``.

    Thm. 1 multiplies the coefficients by ``b_j`` and Prop. 4 the Laplace scale by ``b_j``;
    ``coefficient_snr(b α, b s) = coefficient_snr(α, s)``, so the "reduced DP noise" for
    ``b_j < 1`` is not a utility gain.

    Parameters
    ----------
    alpha : array_like
        Polynomial coefficients (finite).
    scale : array_like
        Laplace scales ``d > 0`` (density ``e^{-|x|/d} / (2d)``); broadcasts against ``alpha``.
    """
    return np.abs(_real(alpha, "alpha")) / (math.sqrt(2.0) * _positive(scale, "scale"))


# --------------------------------------------------------------------------- App. F.II
def x_of_y(y, h) -> np.ndarray:
    """``X(y) = y / (1 + h(y - 1))`` with ``y = e^D`` (App. F.II, after Eq. 49).

    Parameters
    ----------
    y : array_like
        ``y > 0``.
    h : array_like
        Hidden unit(s) in [0, 1).
    """
    y = _positive(y, "y")
    h = _hidden(h, closed=False)
    return y / (1.0 + h * (y - 1.0))


def y_of_x(x, h, variant: str = "exact") -> np.ndarray:
    """Inverse of :func:`x_of_y`: exact ``x(1-h)/(1-hx)`` or the paper's Eq. 50 ``x/(1-hx+h)``.

    Parameters
    ----------
    x : array_like
        ``x`` inside the support: ``0 < x < 1/h`` (exact) or ``0 < x < (1+h)/h`` (paper).
    h : array_like
        Hidden unit(s) in [0, 1).
    variant : {"exact", "paper"}
    """
    _choice(variant, COEFFS, "variant")
    x = _positive(x, "x")
    h = _hidden(h, closed=False)
    den = 1.0 - h * x if variant == "exact" else 1.0 - h * x + h
    if den.size and den.min() <= 0:
        raise ValueError("x must lie inside the support (0, 1/h) (exact) or (0, (1+h)/h) "
                         "(paper)")
    return x * (1.0 - h) / den if variant == "exact" else x / den


def _st(st) -> np.ndarray:
    return _positive(st, "st")


def _log_y(t: np.ndarray, h: np.ndarray, variant: str):
    """``ln y(t)`` inside the support, ``-inf`` below it, ``+inf`` above it."""
    t, h = np.broadcast_arrays(t, h)
    den = 1.0 - h * t + (h if variant == "paper" else 0.0)
    num = t * (1.0 - h) if variant == "exact" else t
    out = np.full(t.shape, np.inf)
    out[t <= 0] = -np.inf
    inside = (t > 0) & (den > 0)
    out[inside] = np.log(num[inside]) - np.log(den[inside])
    return out, inside, den


def _cdf(t, h, st, variant):
    """:func:`_cdf_trusted` after checking ``t``, ``h`` and ``st`` (the public entries)."""
    return _cdf_trusted(_real(t, "t"), _hidden(h, closed=False), _st(st), variant)


def _cdf_trusted(t, h, st, variant):
    """CDF of ``X`` (``variant``: the exact law or Eq. 53) on checked arrays."""
    ly, _, _ = _log_y(t, h, variant)
    with np.errstate(invalid="ignore"):
        return special.ndtr(ly / st)


def _pdf(t, h, st, variant):
    """:func:`_pdf_trusted` after checking ``t``, ``h`` and ``st`` (the public entries)."""
    return _pdf_trusted(_real(t, "t"), _hidden(h, closed=False), _st(st), variant)


def _pdf_trusted(t, h, st, variant):
    """Density of ``X`` (``variant``: the exact law or Eq. 53) on checked arrays."""
    ly, inside, den = _log_y(t, h, variant)
    t, h, st, ly, inside, den = np.broadcast_arrays(t, h, st, ly, inside, den)
    out = np.zeros(t.shape)
    ti, hi, si, yi, di = t[inside], h[inside], st[inside], ly[inside], den[inside]
    jac = (1.0 + hi) if variant == "paper" else 1.0   # d ln y / dt = jac / (t · den)
    out[inside] = jac * np.exp(-0.5 * (yi / si) ** 2) / (_SQRT2PI * si * ti * di)
    return out


def fx_cdf_exact(t, h, st) -> np.ndarray:
    """Closed-form CDF of ``X = b_{j,r}`` with ``D ~ N(0, st²)`` (Eq. 49).

    ``F_X(t) = Φ(ln(t(1-h)/(1-ht)) / st)`` for ``0 < t < 1/h``, 0 for ``t ≤ 0``, 1 for
    ``t ≥ 1/h``; at ``h = 0`` it is the lognormal ``Φ(ln t / st)``. ``F_X(1) = 1/2`` for every
    ``h`` (``X < 1 ⇔ D < 0``).

    Parameters
    ----------
    t : array_like
        Evaluation points (finite).
    h : array_like
        Hidden unit(s) in [0, 1).
    st : array_like
        ``σ̃ = σ ‖W[:, r]‖₂`` (> 0), the s.d. of ``D``. All three broadcast.
    """
    return _cdf(t, h, st, "exact")


def fx_pdf_exact(t, h, st) -> np.ndarray:
    """Density of ``X`` (derivative of :func:`fx_cdf_exact`), supported on ``(0, 1/h)``.

    ``f_X(t) = φ(ln y / st) / (st · t (1 - ht))`` with ``y = t(1-h)/(1-ht)``.
    """
    return _pdf(t, h, st, "exact")


def fx_ppf_exact(p, h, st) -> np.ndarray:
    """Quantile function of ``X``: ``F_X^{-1}(p) = X(e^{st Φ^{-1}(p)})``, ``p`` in (0, 1)."""
    p = _real(p, "p")
    if p.size and (p.min() <= 0 or p.max() >= 1):
        raise ValueError("p must lie in (0, 1)")
    return _b_of_d(_st(st) * special.ndtri(p), _hidden(h, closed=False))


def fx_pdf_paper(t, h, st) -> np.ndarray:
    """The paper's density of ``X`` (Eq. 53), built on the wrong inverse of Eq. 50.

    ``(1+h) / (st √(2π) · t (1 - ht + h)) · exp(-(ln(t/(1-ht+h)))² / (2 st²))`` on
    ``0 < t < (1+h)/h``, 0 elsewhere. It integrates to 1 — it is the density of
    ``(1+h) Y / (1 + hY)``, ``Y = e^D`` — but not that of ``X = b_{j,r}``.

    Parameters
    ----------
    t, h, st
        As in :func:`fx_cdf_exact`.
    """
    return _pdf(t, h, st, "paper")


def fx_cdf_paper(t, h, st) -> np.ndarray:
    """CDF of Eq. 53: ``Φ(ln(t/(1-ht+h)) / st)`` on its support (the paper's inverse in the
    CDF). At ``st=1, h=0.5`` (computed here): 0.1798 at ``t=0.5`` and 0.7559 at ``t=1.5``."""
    return _cdf(t, h, st, "paper")


def fx_ppf_paper(p, h, st) -> np.ndarray:
    """Quantile function of Eq. 53: ``(1+h) y / (1 + h y)`` with ``y = e^{st Φ^{-1}(p)}``."""
    p = _real(p, "p")
    if p.size and (p.min() <= 0 or p.max() >= 1):
        raise ValueError("p must lie in (0, 1)")
    h = _hidden(h, closed=False)
    return _b_of_d(_st(st) * special.ndtri(p), h / (1.0 + h))   # (1+h)y / (1 + hy)


# --------------------------------------------------------------------------- Eq. 54, Figs. 4-5
def _bmax_args(b, h, st, l, D):
    """The arguments of the ``b_max`` functions, checked once: ``(b, h, st, l, D)``."""
    return (_real(b, "b"), _hidden(h, closed=False), _st(st), check_positive_int(l, "l"),
            check_positive_int(D, "D"))


def _fbmax_cdf(b, h, st, l, D, density):
    """``F_X(b/l)^D`` on checked arguments."""
    return _cdf_trusted(b / l, h, st, density) ** D


def fbmax_cdf(b, h, st, l: int = 7, D: int = 100, density: str = "exact") -> np.ndarray:
    """CDF of ``b_max = l · max(X_1, …, X_D)``: ``F_X(b/l)^D`` (App. F.II, before Eq. 54).

    Parameters
    ----------
    b : array_like
        Evaluation points.
    h, st
        As in :func:`fx_cdf_exact`.
    l : int
        Scaling (number of code units).
    D : int
        Number of i.i.d. draws ``|𝒟|``.
    density : {"exact", "paper"}
        ``F_X`` of :func:`fx_cdf_exact` or of Eq. 53 (:func:`fx_cdf_paper`).
    """
    _choice(density, COEFFS, "density")
    return _fbmax_cdf(*_bmax_args(b, h, st, l, D), density)


def fbmax_pdf(b, h, st, l: int = 7, D: int = 100, density: str = "exact") -> np.ndarray:
    """Max-order density of Eq. 54: ``(D/l) f_X(b/l) F_X(b/l)^{D-1}``, computed in logs.

    With ``density="exact"`` this uses :func:`fx_pdf_exact` and the closed-form
    :func:`fx_cdf_exact` (no Monte Carlo needed, unlike the text below Eq. 54); with
    ``density="paper"`` Eq. 53 and its CDF.

    Parameters
    ----------
    b, h, st, l, D, density
        As in :func:`fbmax_cdf`.
    """
    _choice(density, COEFFS, "density")
    b, h, st, l, D = _bmax_args(b, h, st, l, D)
    f = _pdf_trusted(b / l, h, st, density)
    ly, _, _ = _log_y(b / l, h, density)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_f = np.log(f) + (D - 1) * special.log_ndtr(ly / st)
        out = (D / l) * np.exp(log_f)
    return np.where(f > 0, out, 0.0)


def fbmax_quantile(q, h, st, l: int = 7, D: int = 100, density: str = "exact") -> np.ndarray:
    """Quantile of ``b_max``: ``l · F_X^{-1}(q^{1/D})``, with ``1 - q^{1/D}`` formed by
    ``expm1`` so that large ``D`` loses no precision.

    Parameters
    ----------
    q : array_like
        Probabilities in (0, 1).
    h, st, l, D, density
        As in :func:`fbmax_cdf`.
    """
    _choice(density, COEFFS, "density")
    q = _real(q, "q")
    if q.size and (q.min() <= 0 or q.max() >= 1):
        raise ValueError("q must lie in (0, 1)")
    _, h, st, l, D = _bmax_args(0.0, h, st, l, D)
    upper = -np.expm1(np.log(q) / D)                  # 1 - q^{1/D}
    d = -st * special.ndtri(upper)                    # st · Φ^{-1}(q^{1/D})
    if density == "exact":
        return l * _b_of_d(d, h)
    return l * _b_of_d(d, h / (1.0 + h))


def fbmax_median(h, st, l: int = 7, D: int = 100, density: str = "exact") -> np.ndarray:
    """Median of ``b_max``, ``l · F_X^{-1}(0.5^{1/D})``.

    Reference (``st = 0.5 · 21.6025``, ``l = 7``, ``D = 100``): 2.48e12 (``h = 0``), 14.0
    (``h = 0.5``), 7.07 (``h = 0.99``) — against Fig. 4's mass near ``b ≈ 0.1``.
    """
    return fbmax_quantile(0.5, h, st, l, D, density)


def fig4_authors(b=None, h=0.0, sigma: float = SIGMA_FIG4, wnorm: float = WNORM_AUTHORS,
                 l: int = 7, grid=None) -> np.ndarray:
    """The authors' Fig. 4 construction.

    Eq. 53 evaluated at ``b/l`` with ``st = σ · wnorm`` — no order-statistic factor — divided
    by its maximum over ``grid`` (default :data:`FIG4_GRID` = ``linspace(0.1, 4, 50)``, where the
    peak is the left edge ``b = 0.1``). Reference values at ``b = 0.5, 1, 2, 3.9``:
    ``h=0``: 0.210, 0.106, 0.054, 0.028; ``h=0.5``: 0.215, 0.112, 0.060, 0.034; ``h=0.99``:
    0.218, 0.115, 0.063, 0.039.

    Parameters
    ----------
    b : array_like, optional
        Where to evaluate (default: the grid itself).
    h : float or array_like
        Hidden unit in [0, 1) (broadcasts against ``b``; one normalisation per ``h``).
    sigma, wnorm : float
        Noise s.d. and column norm (> 0).
    l : int
    grid : array_like, optional
        Normalisation grid (positive values).
    """
    sigma = check_positive_real(sigma, "sigma")
    wnorm = check_positive_real(wnorm, "wnorm")
    l = check_positive_int(l, "l")
    grid = FIG4_GRID if grid is None else _positive(grid, "grid")
    if grid.ndim != 1 or grid.size == 0:
        raise ValueError("grid must be a non-empty 1-D array")
    b = grid if b is None else _real(b, "b")
    h = _hidden(h, closed=False)
    st = sigma * wnorm
    peak = _pdf_trusted(grid / l, h[..., None], st, "paper").max(axis=-1)
    return _pdf_trusted(b / l, h, st, "paper") / peak


def fig5_authors(sigmas=FIG5_SIGMAS, wnorm: float = WNORM_AUTHORS, l: int = 7) -> np.ndarray:
    """The authors' Fig. 5 curve ``Φ(ln(1/l) / (σ · wnorm))``.

    This is ``Pr[X < 1/l]`` for a *single* ``b_{j,r}`` at ``h = 0``; it rises towards 0.5 from
    below and never reaches it. Reference: 0.1839, 0.3593, 0.4285, 0.4641, 0.4820, 0.4928,
    0.4964 at ``σ = 0.1, 0.25, 0.5, 1, 2, 5, 10``.

    Parameters
    ----------
    sigmas : array_like
        Noise s.d. values (> 0).
    wnorm : float
        ``‖W[:, r]‖₂`` (> 0); ``st = σ · wnorm`` (not ``σ · sqrt(wnorm)`` as App. F.II's
        ``Var = σ²‖W‖₂`` would give).
    l : int
    """
    sigmas = _positive(sigmas, "sigmas")
    wnorm = check_positive_real(wnorm, "wnorm")
    l = check_positive_int(l, "l")
    return special.ndtr(math.log(1.0 / l) / (sigmas * wnorm))


def fig5_correct(sigmas=FIG5_SIGMAS, wnorm: float = WNORM_AUTHORS, l: int = 7, D: int = 100,
                 h: float = 0.0) -> np.ndarray:
    """``Pr[b_max ≤ 1] = F_X(1/l)^D`` under the paper's own definitions (Eqs. 54-56).

    Reference (``h = 0``, ``wnorm = 21.6025``, ``l = 7``, ``D = 100``): 2.8e-74, 3.5e-45,
    1.6e-37, 4.6e-34, 2.0e-32, 1.9e-31, 3.8e-31 at ``σ = 0.1, 0.25, 0.5, 1, 2, 5, 10``;
    always below ``2^{-D}`` since ``F_X(1/l) < F_X(1) = 1/2`` for ``l ≥ 2``.

    Parameters
    ----------
    sigmas, wnorm, l
        As in :func:`fig5_authors`.
    D : int
        Number of draws ``|𝒟|``.
    h : float
        Hidden unit in [0, 1).
    """
    sigmas = _positive(sigmas, "sigmas")
    wnorm = check_positive_real(wnorm, "wnorm")
    _, h, _, l, D = _bmax_args(1.0, h, 1.0, l, D)
    return _fbmax_cdf(1.0, h, sigmas * wnorm, l, D, "exact")


def mc_prob_bj_below(threshold, sigma, h, W, draws: int, rng,
                     chunk: int = 65536) -> np.ndarray | float:
    """Monte Carlo ``Pr[b_j < threshold]`` for ``n ~ N(0, σ² I_n)`` and fixed ``W``, ``h``.

    Draws are generated and reduced in chunks (one matrix product per chunk). Reference
    ( ``W ~ U(-10, 10)^{14×7}``, ``σ = 5``): ``Pr[b_j < l] ≈ 0.008, 0.068, 0.501, 0.952``
    for ``h = 0, 0.25, 0.5, 0.75`` (these depend on the ``W`` draw); ``Pr[b_j < 1] < 1/2`` for
    every ``W``, ``h``, ``σ`` when ``l ≥ 2``.

    Parameters
    ----------
    threshold : float or array_like
        Threshold(s); all are evaluated on the same draws.
    sigma : float
        Noise s.d. (> 0, finite).
    h : float or array_like, shape (l,)
        Clean hidden units in [0, 1].
    W : array_like, shape (n, l)
        Encoder weights.
    draws : int
        Number of noise vectors.
    rng : numpy.random.Generator
    chunk : int
        Draws per vectorised chunk.

    Returns
    -------
    float or ndarray
        Estimated probability, shaped like ``threshold``. Its standard error is
        ``sqrt(p(1-p)/draws)``.
    """
    rng = check_rng(rng)
    sigma = check_positive_real(sigma, "sigma")
    draws = check_positive_int(draws, "draws")
    chunk = check_positive_int(chunk, "chunk")
    thr = _real(threshold, "threshold")
    W = _real(W, "W")
    if W.ndim != 2:
        raise ValueError(f"W must have shape (n, l), got {W.shape}")
    h = _hidden(h, closed=True)
    if h.ndim > 1 or (h.ndim == 1 and h.shape[0] != W.shape[1]):
        raise ValueError(f"h must be a scalar or have shape ({W.shape[1]},), got {h.shape}")
    flat = thr.ravel()
    counts = np.zeros(flat.shape, dtype=np.int64)
    done = 0
    while done < draws:
        k = min(chunk, draws - done)
        d = (sigma * rng.standard_normal((k, W.shape[0]))) @ W
        b_j = _b_of_d(d, h).sum(axis=1)
        counts += np.count_nonzero(b_j[:, None] < flat[None, :], axis=0)
        done += k
    p = (counts / draws).reshape(thr.shape)
    return float(p) if p.ndim == 0 else p
