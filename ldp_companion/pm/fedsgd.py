"""LDP-FedSGD (Alg. 1; Secs. III-B and VII-B of the PM/Three-Outputs paper).

The server splits the ``n`` vehicles (one tuple each) into disjoint groups of ``G``. In round
``t`` every vehicle of group ``t`` computes the gradient of its regularised loss at
``theta_{t-1}``, clips every coordinate to [-1, 1], perturbs it with Alg. 6 (or a
multi-dimensional baseline) at budget ``eps`` and uploads it; the server averages the group's
reports and steps ``theta_t = theta_{t-1} - eta_t * mean``, ``eta_t = eta0 / sqrt(t)``.

Each vehicle reports once, so the run is ``eps``-LDP per vehicle; ``n mod G`` leftover
vehicles are not used (reported in :class:`FedSGDResult`). Losses (labels in {-1, 1} for
classification):

* ``"linear"``: ``(theta.x - y)^2 / 2``, gradient ``(theta.x - y) x``;
* ``"logistic"``: ``log(1 + exp(-y theta.x))``, gradient ``-y x / (1 + exp(y theta.x))``;
* ``"svm"``: hinge ``max(0, 1 - y theta.x)``, subgradient ``-y x 1[y theta.x < 1]``;

each plus ``lam * theta`` (L2 regularisation ``lam/2 |theta|^2``). There is no intercept; add
a constant column to ``X`` for one.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from ldp_companion.pm.multidim import (
    DUCHI_MD,
    LAPLACE_SPLIT,
    _alg6_sample,
    _check_ties,
    _estimate_mean,
    _resolve_k,
    resolve_mechanism,
)
from ldp_companion.validation import (
    check_epsilon,
    check_positive_int,
    check_rng,
    check_unit_interval,
)

__all__ = ["TASKS", "FedSGDResult", "fedsgd", "server_mean", "gradients", "predict", "mse",
           "misclassification_rate"]

TASKS = ("linear", "logistic", "svm")


@dataclass(frozen=True)
class FedSGDResult:
    """Outcome of :func:`fedsgd`.

    Attributes
    ----------
    theta : ndarray, shape (d,)
        ``theta_T``.
    history : ndarray, shape (T + 1, d), or None
        ``theta_0, ..., theta_T`` when asked for.
    rounds : int
        ``T = n // G``.
    n_used : int
        Vehicles that reported, ``T * G``.
    """

    theta: np.ndarray
    history: np.ndarray | None
    rounds: int
    n_used: int


def _check_task(task) -> str:
    if task not in TASKS:
        raise ValueError(f"task must be one of {TASKS}, got {task!r}")
    return task


def _check_data(X, y, task, clip: bool):
    """``X`` (n, d) in [-1, 1] and ``y`` (n,) finite; labels in {-1, 1} for classification."""
    X = check_unit_interval(X, "X", clip=clip)
    if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] < 1:
        raise ValueError(f"X must be a 2-D array (n vehicles, d features), got shape {X.shape}")
    y_arr = np.asarray(y)
    if y_arr.dtype == bool or not (np.issubdtype(y_arr.dtype, np.integer)
                                   or np.issubdtype(y_arr.dtype, np.floating)):
        raise TypeError(f"y must hold real numbers, got dtype {y_arr.dtype}")
    y_arr = y_arr.astype(np.float64)
    if y_arr.shape != (X.shape[0],):
        raise ValueError(f"y must have shape ({X.shape[0]},) to match X, got {y_arr.shape}")
    if not np.all(np.isfinite(y_arr)):
        raise ValueError("y must be finite (no NaN or inf)")
    if task != "linear" and not np.all(np.abs(y_arr) == 1.0):
        raise ValueError(f"labels for task {task!r} must be -1 or 1")
    return X, y_arr


def _check_theta(theta, d: int) -> np.ndarray:
    arr = np.asarray(theta, dtype=np.float64)
    if arr.shape != (d,) or not np.all(np.isfinite(arr)):
        raise ValueError(f"theta must be a finite vector of shape ({d},), got shape {arr.shape}")
    return arr


def _gradients(theta, X, y, task, lam):
    margin = X @ theta
    if task == "linear":
        coef = margin - y
    elif task == "logistic":
        coef = -y * special.expit(-y * margin)    # -y / (1 + exp(y theta.x))
    else:
        coef = np.where(y * margin < 1.0, -y, 0.0)
    return coef[:, None] * X + lam * theta


def gradients(theta, X, y, task: str, lam: float = 1e-4) -> np.ndarray:
    """Per-vehicle gradients ``grad loss(theta; x_i, y_i) + lam * theta``, shape ``(n, d)``
    (Alg. 1, before clipping)."""
    task = _check_task(task)
    X, y = _check_data(X, y, task, clip=False)
    lam = _check_lam(lam)
    return _gradients(_check_theta(theta, X.shape[1]), X, y, task, lam)


def _check_lam(lam) -> float:
    lam = float(lam)
    if not np.isfinite(lam) or lam < 0:
        raise ValueError(f"lam must be finite and >= 0, got {lam!r}")
    return lam


def fedsgd(X, y, task: str, rng: np.random.Generator, *, epsilon: float | None = None,
           mechanism=None, group_size: int = 1000, eta0: float = 1.0, lam: float = 1e-4,
           theta0=None, k=None, ties: str = "split", history: bool = False,
           clip: bool = False) -> FedSGDResult:
    """Train by LDP-FedSGD (Alg. 1), one report per vehicle.

    Parameters
    ----------
    X : array_like, shape (n, d)
        One tuple per vehicle, features in [-1, 1].
    y : array_like, shape (n,)
        Targets; labels in {-1, 1} for ``"logistic"`` and ``"svm"``.
    task : {"linear", "logistic", "svm"}
    rng : numpy.random.Generator
        Drives the partition into groups and the perturbation.
    epsilon : float, optional
        Budget per vehicle; required with ``mechanism``, must be None without.
    mechanism : str or callable, optional
        Gradient perturbation: a name of :func:`~ldp_companion.pm.multidim.multidim_names`
        (scalar mechanisms run through Alg. 6; ``"laplace_split"`` and ``"duchi_md"`` are the
        baselines) or a factory ``epsilon -> ScalarMechanism``. None: non-private FedSGD
        (clipped gradients, no noise).
    group_size : int
        ``G``, vehicles per round, 1 <= G <= n.
    eta0 : float
        Step size scale, ``eta_t = eta0 / sqrt(t)``.
    lam : float
        L2 regularisation, >= 0.
    theta0 : array_like, shape (d,), optional
        Initial model (default zeros).
    k : int, optional
        Alg. 6's attributes per vehicle (default Eq. (36)).
    ties : {"split", "minus"}
        Only for ``"duchi_md"``.
    history : bool
        Also return every ``theta_t``.
    clip : bool
        Clip ``X`` to [-1, 1] instead of refusing values outside it.

    Returns
    -------
    FedSGDResult
    """
    task = _check_task(task)
    X, y = _check_data(X, y, task, clip)
    rng = check_rng(rng)
    n, d = X.shape
    G = check_positive_int(group_size, "group_size")
    if G > n:
        raise ValueError(f"group_size must be <= n = {n}, got {G}")
    eta0 = check_epsilon(eta0, "eta0")
    lam = _check_lam(lam)
    theta = np.zeros(d) if theta0 is None else _check_theta(theta0, d).copy()
    aggregate = _aggregator(epsilon, mechanism, d, k, ties)
    T = n // G
    order = rng.permutation(n)[: T * G].reshape(T, G)
    hist = [theta.copy()] if history else None
    for t in range(1, T + 1):
        idx = order[t - 1]
        grads = np.clip(_gradients(theta, X[idx], y[idx], task, lam), -1.0, 1.0)
        theta = theta - (eta0 / np.sqrt(t)) * aggregate(grads, rng)
        if history:
            hist.append(theta.copy())
    return FedSGDResult(theta=theta, history=np.array(hist) if history else None,
                        rounds=T, n_used=T * G)


def _aggregator(epsilon, mechanism, d, k, ties):
    """``(grads, rng) -> server's average of the group's reports``, resolved once per run."""
    if mechanism is None:
        if epsilon is not None:
            raise ValueError("epsilon is given but mechanism is None (non-private run); "
                             "pass both or neither")
        return lambda grads, rng: grads.mean(axis=0)
    if epsilon is None:
        raise ValueError("a private run needs epsilon")
    eps = check_epsilon(epsilon)
    ties = _check_ties(ties)
    if isinstance(mechanism, str) and mechanism in (LAPLACE_SPLIT, DUCHI_MD):
        return lambda grads, rng: _estimate_mean(grads, eps, mechanism, rng, ties=ties)
    k = _resolve_k(k, eps, d)
    mech = resolve_mechanism(mechanism, eps / k)

    def alg6_mean(grads, rng):
        cols, vals = _alg6_sample(grads, mech, k, rng)
        return np.bincount(cols.ravel(), weights=vals.ravel(), minlength=d) / grads.shape[0]

    return alg6_mean


def server_mean(grads, epsilon: float, mechanism, rng: np.random.Generator, *, k=None,
                ties: str = "split") -> np.ndarray:
    """The server's average of one group's perturbed gradients (Alg. 1, step 3): what
    :func:`fedsgd` subtracts, times ``eta_t``, in every round.

    Parameters
    ----------
    grads : array_like, shape (G, d)
        The group's clipped gradients, entries in [-1, 1].
    epsilon : float
        Budget per vehicle.
    mechanism : str or callable
        As in :func:`fedsgd` (not None: the non-private average is ``grads.mean(axis=0)``).
    rng : numpy.random.Generator
    k, ties
        As in :func:`fedsgd`.

    Returns
    -------
    ndarray, shape (d,)
        Unbiased for ``grads.mean(axis=0)``, each vehicle's report perturbed once.
    """
    grads = check_unit_interval(grads, "grads")
    if grads.ndim != 2 or grads.shape[0] < 1 or grads.shape[1] < 1:
        raise ValueError(f"grads must be a 2-D array (G vehicles, d coordinates), got shape "
                         f"{grads.shape}")
    if mechanism is None or epsilon is None:
        raise ValueError("server_mean perturbs the reports: give a mechanism and epsilon")
    return _aggregator(epsilon, mechanism, grads.shape[1], k, ties)(grads, check_rng(rng))


def predict(theta, X) -> np.ndarray:
    """``X @ theta`` (the linear score)."""
    X = np.asarray(X, dtype=np.float64)
    theta = np.asarray(theta, dtype=np.float64)
    if X.ndim != 2 or theta.shape != (X.shape[1],):
        raise ValueError(f"X must be (n, d) and theta (d,); got {X.shape} and {theta.shape}")
    return X @ theta


def mse(theta, X, y) -> float:
    """Mean squared error ``mean((X theta - y)^2)`` of a linear regression model."""
    y = np.asarray(y, dtype=np.float64)
    pred = predict(theta, X)
    if y.shape != pred.shape:
        raise ValueError(f"y must have shape {pred.shape}, got {y.shape}")
    return float(np.mean((pred - y) ** 2))


def misclassification_rate(theta, X, y) -> float:
    """Fraction of labels ``y`` in {-1, 1} with ``sign(X theta) != y`` (a score of 0 counts
    as +1)."""
    y = np.asarray(y, dtype=np.float64)
    pred = predict(theta, X)
    if y.shape != pred.shape:
        raise ValueError(f"y must have shape {pred.shape}, got {y.shape}")
    if not np.all(np.abs(y) == 1.0):
        raise ValueError("labels y must be -1 or 1")
    return float(np.mean(np.where(pred >= 0, 1.0, -1.0) != y))
