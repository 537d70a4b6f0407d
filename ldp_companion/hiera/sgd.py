"""Mini-batch SGD for linear regression with private gradients (Sec. 5, Sec. 6.3).

Model ``f(x) = beta^T (1, x)``, loss ``(beta^T x~ - y)^2 + lam/2 ||beta||^2``. Each user is used
once: users are shuffled and split into ``floor(n / G)`` disjoint groups; user ``i`` of the
group computes ``grad R_i = 2 (beta^T x~_i - y_i) x~_i + lam beta``, clips every component
to [-1, 1] (Sec. 5) and reports it privately; the aggregator averages and steps
``beta <- beta - gamma_t * g_hat``.

The paper leaves out, and these defaults (our choices) fill in:

* ``beta_0 = 0``; ``G = max(1, ceil(d ln d / eps^2))`` with ``eps`` the smallest budget;
  ``gamma_t = lr0 / t`` (``"1/sqrt(t)"`` offered: the dump may have lost a radical), ``lr0 = 1``;
  ``lam = 1e-4``;
* how a ``(d + 1)``-vector is reported: ``multidim="sample_one"`` (default): each user
  reports one uniformly chosen component, scaled by ``d + 1``, as Harmony and PM do for
  ``d`` dimensions; ``"all_full"``: every component at the full budget (costs ``d + 1`` times
  the budget); ``"split"``: every component at budget / ``(d + 1)``;
* the level of component ``j >= 1`` is the level of the attribute ``x_j`` (Sec. 5: "the
  privacy classification of certain attribute data corresponding to the component"); the
  bias component takes the level of ``y`` (``bias_level="target"``) or level ``k``
  (``"max_protection"``).

HierA's pool clipping also bounds its gradient estimates, which Harmony and PM do not get.
"""
from __future__ import annotations

import inspect
import math
from dataclasses import dataclass

import numpy as np

from ldp_companion.hiera.aggregate import _check_rule, _pool_sums, check_mu
from ldp_companion.hiera.grr import _check_levels_array
from ldp_companion.hiera.levels import Levels
from ldp_companion.hiera.protocol import _check_levels, _lhp
from ldp_companion.mechanisms.harmony import Harmony
from ldp_companion.mechanisms.piecewise import PM
from ldp_companion.validation import (
    check_epsilon,
    check_positive_int,
    check_rng,
    check_unit_interval,
)

__all__ = ["SGD_METHODS", "MULTIDIM", "LR_SCHEDULES", "BIAS_LEVELS", "SGDResult",
           "group_size", "clipped_gradients", "attribute_levels", "estimate_gradient",
           "ldp_linreg", "predict", "mse", "ols_beta", "cross_val_mse"]

SGD_METHODS = ("none", "harmony", "pm", "graded_laplace", "hiera")
MULTIDIM = ("sample_one", "all_full", "split")
LR_SCHEDULES = ("1/t", "1/sqrt(t)")
BIAS_LEVELS = ("target", "max_protection")


def _check_choice(value, allowed, name):
    if value not in allowed:
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
    return value


def _check_xy(X, y):
    X = check_unit_interval(X, "X")
    y = check_unit_interval(y, "y")
    if X.ndim != 2 or y.ndim != 1 or X.shape[0] != y.shape[0] or X.shape[0] == 0:
        raise ValueError(f"X must be (n, d) and y (n,) with n >= 1; got {X.shape} and {y.shape}")
    return X, y


def group_size(d: int, epsilon: float) -> int:
    """``G = max(1, ceil(d ln d / eps^2))`` users per iteration (Sec. 6.3; natural log)."""
    d = check_positive_int(d, "d")
    eps = check_epsilon(epsilon)
    return max(1, math.ceil(d * math.log(d) / eps**2))


def clipped_gradients(beta, X, y, lam: float = 1e-4) -> np.ndarray:
    """Per-user ``clip(2 (beta^T x~ - y) x~ + lam beta, -1, 1)``, shape ``(n, d + 1)`` (Sec. 5)."""
    Xt = np.column_stack([np.ones(len(X)), X])
    resid = Xt @ beta - y
    return np.clip(2.0 * resid[:, None] * Xt + lam * beta, -1.0, 1.0)


def attribute_levels(X, y, levels: Levels, bias_level: str = "target") -> np.ndarray:
    """Level of each gradient component, shape ``(n, d + 1)``: column 0 (bias) from ``y`` or
    level ``k``, column ``j`` from ``x_j``."""
    levels = _check_levels(levels)
    X, y = _check_xy(X, y)
    _check_choice(bias_level, BIAS_LEVELS, "bias_level")
    return _attribute_levels(X, y, levels, bias_level)


def _attribute_levels(X, y, levels: Levels, bias_level: str) -> np.ndarray:
    """:func:`attribute_levels` on checked arguments."""
    bias = levels.level_of(y) if bias_level == "target" else np.full(len(y), levels.k)
    return np.column_stack([bias, levels.level_of(X)])


def _report_sums(g, lv, J, D, method, levels, rng, mu, rule, clip):
    """Sum over the reports of each component ``J`` of the unbiased value estimates
    (arguments checked by the caller: ``g`` in [-1, 1], ``lv`` int64 levels in 1..k)."""
    if method in ("harmony", "pm"):
        mech = (Harmony if method == "harmony" else PM)(float(levels.epsilons.min()))
        return np.bincount(J, weights=mech.privatize(g, rng), minlength=D)
    if method == "graded_laplace":
        noisy = g + rng.laplace(0.0, 1.0, size=g.shape) * 2.0 / levels.epsilons[lv - 1]
        return np.bincount(J, weights=noisy, minlength=D)
    k = levels.k                                   # HierA: Alg. 5 per component, one batch
    t_star, bits = _lhp(g, lv, levels, rng)
    idx = J * 2 * k + 2 * (t_star - 1) + (bits < 0)
    counts = np.bincount(idx, minlength=D * 2 * k).reshape(D, k, 2)
    S, N = _pool_sums(counts, levels, mu, rng, rule=rule, clip=clip, compensation=True,
                      flip_rule="correct")
    S, N = S.sum(axis=-1), N.sum(axis=-1)
    n_j = counts.sum(axis=(1, 2))
    return np.divide(S, N, out=np.zeros(D), where=N > 0) * n_j


def estimate_gradient(grads, attr_levels, method: str, levels: Levels, rng: np.random.Generator,
                      *, mu: int = 2, rule: str = "paper", clip: bool = True,
                      multidim: str = "sample_one") -> np.ndarray:
    """Private estimate of ``grads.mean(axis=0)`` from one group of users.

    Parameters
    ----------
    grads : ndarray, shape ``(G, d + 1)``
        Clipped per-user gradients, entries in [-1, 1].
    attr_levels : ndarray of int, shape ``(G, d + 1)``
        Level of each component (:func:`attribute_levels`).
    method : {"none", "harmony", "pm", "graded_laplace", "hiera"}
        Harmony and PM use the smallest budget; graded Laplace and HierA the component's level.
    levels : Levels
    rng : numpy.random.Generator
    mu, rule, clip
        HierA's options (:func:`~ldp_companion.hiera.aggregate.pool_sums`).
    multidim : {"sample_one", "all_full", "split"}

    Returns
    -------
    ndarray, shape ``(d + 1,)``. Unbiased except for HierA with ``clip=True``.
    """
    levels = _check_levels(levels)
    rng = check_rng(rng)
    _check_choice(method, SGD_METHODS, "method")
    _check_choice(multidim, MULTIDIM, "multidim")
    check_mu(mu, levels.k)
    _check_rule(rule)
    grads = check_unit_interval(grads, "grads")
    if grads.ndim != 2 or np.shape(attr_levels) != grads.shape:
        raise ValueError("grads must be (G, d + 1) and attr_levels the same shape; got "
                         f"{grads.shape} and {np.shape(attr_levels)}")
    lv = _check_levels_array(attr_levels, levels.k)
    return _estimate_gradient(grads, lv, method, levels, rng, mu, rule, clip, multidim)


def _estimate_gradient(grads, lv, method, levels, rng, mu, rule, clip, multidim):
    """:func:`estimate_gradient` on checked arguments: ``grads`` float ``(G, d + 1)`` in
    [-1, 1], ``lv`` int64 levels of the same shape."""
    n_users, D = grads.shape
    if method == "none":
        return grads.mean(axis=0)
    if multidim == "sample_one":
        J = rng.integers(0, D, size=n_users)
        rows = np.arange(n_users)
        g, lv, factor = grads[rows, J], lv[rows, J], D
    else:
        J = np.tile(np.arange(D), n_users)
        g, lv, factor = grads.ravel(), lv.ravel(), 1
        if multidim == "split":
            levels = levels.scaled(1.0 / D)
    sums = _report_sums(g, lv, J, D, method, levels, rng, mu, rule, clip)
    return factor * sums / n_users


@dataclass(frozen=True)
class SGDResult:
    """Fitted coefficients ``beta = (b, alpha_1..alpha_d)``, group size and iterations run."""

    beta: np.ndarray
    group_size: int
    n_iter: int


def ldp_linreg(X, y, method: str, levels: Levels, rng: np.random.Generator, *,
               mu: int = 2, rule: str = "paper", hiera_clip: bool = True, group: int | None = None,
               lr_schedule: str = "1/t", lr0: float = 1.0, lam: float = 1e-4,
               multidim: str = "sample_one", bias_level: str = "target") -> SGDResult:
    """One pass of private mini-batch SGD for linear regression (Sec. 5).

    Parameters
    ----------
    X : ndarray, shape ``(n, d)``
        Features in [-1, 1] (:func:`~ldp_companion.hiera.data.scale_to_unit`).
    y : ndarray, shape ``(n,)``
        Targets in [-1, 1].
    method : {"none", "harmony", "pm", "graded_laplace", "hiera"}
        ``"none"`` is non-private SGD with the same schedule (reference).
    levels : Levels
        Levels and budgets (e.g. :func:`~ldp_companion.hiera.levels.paper_levels`); Harmony
        and PM use the smallest budget.
    rng : numpy.random.Generator
    mu, rule, hiera_clip
        HierA's options (paper rule with pool clipping by default; Fig. 3's ``mu`` is
        unstated, 2 assumed).
    group : int, optional
        Users per iteration; default :func:`group_size` ``(d, eps_k)``.
    lr_schedule : {"1/t", "1/sqrt(t)"}
    lr0 : float
        ``gamma_t = lr0 / t`` or ``lr0 / sqrt(t)``.
    lam : float
        Ridge coefficient (>= 0).
    multidim : {"sample_one", "all_full", "split"}
    bias_level : {"target", "max_protection"}
    """
    levels = _check_levels(levels)
    X, y = _check_xy(X, y)
    rng = check_rng(rng)
    opts = _checked_options(X.shape[1], levels, method, mu, rule, hiera_clip, group,
                            lr_schedule, lr0, lam, multidim, bias_level)
    attr = _attribute_levels(X, y, levels, opts.pop("bias_level"))
    return _fit(X, y, attr, np.arange(len(y)), levels, rng, **opts)


def _checked_options(d, levels, method, mu, rule, hiera_clip, group, lr_schedule, lr0, lam,
                     multidim, bias_level) -> dict:
    """:func:`ldp_linreg`'s options, checked once (``group`` resolved for ``d`` features)."""
    _check_choice(method, SGD_METHODS, "method")
    _check_choice(lr_schedule, LR_SCHEDULES, "lr_schedule")
    check_mu(mu, levels.k)
    _check_rule(rule)
    lr0 = check_epsilon(lr0, "lr0")
    if not (np.isfinite(lam) and lam >= 0):
        raise ValueError(f"lam must be finite and >= 0, got {lam!r}")
    G = group_size(d, float(levels.epsilons.min())) if group is None \
        else check_positive_int(group, "group")
    _check_choice(multidim, MULTIDIM, "multidim")
    _check_choice(bias_level, BIAS_LEVELS, "bias_level")
    return {"method": method, "mu": mu, "rule": rule, "hiera_clip": hiera_clip, "group": G,
            "lr_schedule": lr_schedule, "lr0": lr0, "lam": lam, "multidim": multidim,
            "bias_level": bias_level}


def _fit(X, y, attr, rows, levels, rng, *, method, mu, rule, hiera_clip, group, lr_schedule,
         lr0, lam, multidim) -> SGDResult:
    """:func:`ldp_linreg` on the users ``rows`` of ``(X, y)`` (checked arguments; ``attr``:
    every user's component levels). Indexing by ``rows`` leaves the draws, and so the fit,
    exactly those of ``ldp_linreg(X[rows], y[rows], ...)`` without copying the data."""
    n, G = len(rows), group
    n_iter = n // G
    if n_iter == 0:
        raise ValueError(f"group must be <= n = {n} for at least one iteration, got {G}")
    order = rows[rng.permutation(n)]
    beta = np.zeros(X.shape[1] + 1)
    for t in range(1, n_iter + 1):
        idx = order[(t - 1) * G:t * G]
        grads = clipped_gradients(beta, X[idx], y[idx], lam)
        g_hat = _estimate_gradient(grads, attr[idx], method, levels, rng, mu, rule,
                                   hiera_clip, multidim)
        beta = beta - (lr0 / t if lr_schedule == "1/t" else lr0 / math.sqrt(t)) * g_hat
    return SGDResult(beta, G, n_iter)


def predict(beta, X) -> np.ndarray:
    """``beta_0 + X @ beta[1:]``."""
    return beta[0] + np.asarray(X, dtype=np.float64) @ beta[1:]


def mse(beta, X, y) -> float:
    """Mean squared prediction error of ``beta`` on ``(X, y)``."""
    return float(np.mean((predict(beta, X) - np.asarray(y, dtype=np.float64)) ** 2))


def ols_beta(X, y) -> np.ndarray:
    """Non-private least squares with intercept (reference)."""
    X, y = _check_xy(X, y)
    return np.linalg.lstsq(np.column_stack([np.ones(len(X)), X]), y, rcond=None)[0]


def cross_val_mse(X, y, method: str, levels: Levels, rng: np.random.Generator, *,
                  folds: int = 5, repeats: int = 1, **options) -> np.ndarray:
    """Test-fold MSE of :func:`ldp_linreg` over ``repeats`` shuffled ``folds``-fold splits.

    Sec. 6.3 uses 10 repetitions of 5-fold CV. Returns an array ``(repeats, folds)``;
    ``options`` go to :func:`ldp_linreg`.
    """
    X, y = _check_xy(X, y)
    rng = check_rng(rng)
    folds = check_positive_int(folds, "folds")
    repeats = check_positive_int(repeats, "repeats")
    if not 2 <= folds <= len(y):
        raise ValueError(f"folds must be in 2..n = 2..{len(y)}, got {folds}")
    levels = _check_levels(levels)
    known = {k: p.default for k, p in inspect.signature(ldp_linreg).parameters.items()
             if p.kind is p.KEYWORD_ONLY}
    unknown = set(options) - set(known)
    if unknown:
        raise TypeError(f"unknown options of ldp_linreg: {sorted(unknown)}")
    opts = _checked_options(X.shape[1], levels, method, **{**known, **options})
    attr = _attribute_levels(X, y, levels, opts.pop("bias_level"))  # once for every fold
    out = np.empty((repeats, folds))
    for r in range(repeats):
        parts = np.array_split(rng.permutation(len(y)), folds)
        for f, test in enumerate(parts):
            train = np.concatenate(parts[:f] + parts[f + 1:])
            fit = _fit(X, y, attr, train, levels, rng, **opts)
            out[r, f] = mse(fit.beta, X[test], y[test])
    return out
