"""Utility-optimized TVG noise (Sec. VI, Eqs. 22–29, Algorithm 1, Corollary 2).

The utility of a release is measured in the subspace ``Y = f ×₁ W₁ ⋯ ×_N W_N``. Writing
``Uₖ = W_{Uₖ} diag(σₖ)`` with ``W_{Uₖ}`` orthogonal and ``P_{ki} = ‖Wₖ W_{Uₖ} e_i‖²`` (squared
column norms), the expected error is ``Πₖ Σᵢ P_{ki} σ²_{ki}`` (Eq. 23) and the DP condition
``Πₖ Σᵢ σ⁻²_{ki} ≤ B`` (Eq. 24). Cauchy–Schwarz per mode gives the optimum (Eqs. 25–26):
``σ²_{ki} = cₖ / √P_{ki}`` with ``Πₖ cₖ = Πₖ (Σᵢ √P_{ki}) / B`` and minimum error
``(Πₖ Σᵢ √P_{ki})² / B``. Algorithm 1 is the one-mode case (UDN, or IDN with ``W_U = E`` and
``B = B_IDN``), whose error over the whole tensor is ``(I/I₁)(Σᵢ √Pᵢ)² / B`` (Eq. 29 omits
the factor ``I/I₁``).

When ``Pᵢ = 0`` (a direction in the null space of ``W``), Eq. 28 gives ``σᵢ = ∞``; the paper
does not say what to do. Here ``Pᵢ`` is floored at ``p_floor · max P`` (the direction gets a
large, finite variance and the constraint still holds with equality).
"""
from __future__ import annotations

import math

import numpy as np
from scipy import optimize

from ldp_companion.tensor.calibration import check_value_range
from ldp_companion.validation import check_rng

__all__ = ["directions", "alg1_variances", "alg1_error", "multimode_variances",
           "multimode_error", "objective", "slsqp_optimum", "right_singular_basis"]


def directions(w, basis=None) -> np.ndarray:
    """``Pᵢ = Σⱼ (W W_U)²ⱼᵢ`` (Alg. 1, lines 3–5); ``basis=None`` is ``W_U = E`` (IDN)."""
    w = np.asarray(w, float)
    if w.ndim != 2:
        raise ValueError(f"W must be a matrix, got shape {w.shape}")
    if basis is not None:
        basis = np.asarray(basis, float)
        if basis.shape != (w.shape[1], w.shape[1]):
            raise ValueError(f"W_U must be {w.shape[1]} × {w.shape[1]}, got {basis.shape}")
        if not np.allclose(basis.T @ basis, np.eye(w.shape[1]), atol=1e-8):
            raise ValueError("W_U must be orthogonal")
        w = w @ basis
    return np.sum(w * w, axis=0)


def right_singular_basis(w) -> np.ndarray:
    """The right singular vectors of ``W`` as columns, completed to an orthogonal basis: the
    paper's Type III choice of ``W_{U₁}`` (then ``Pᵢ = sᵢ(W)²``, the best orthogonal basis)."""
    _, _, vt = np.linalg.svd(np.asarray(w, float), full_matrices=True)
    return vt.T


def _check_p(p, p_floor) -> np.ndarray:
    p = np.asarray(p, float)
    if p.ndim != 1 or p.size == 0 or np.any(~np.isfinite(p)) or np.any(p < 0) or p.max() <= 0:
        raise ValueError("P must be a non-empty vector of finite values >= 0, not all 0")
    if not 0 < p_floor < 1:
        raise ValueError(f"p_floor must be in (0, 1), got {p_floor}")
    return np.maximum(p, p_floor * p.max())


def alg1_variances(p, bound, p_floor: float = 1e-12) -> np.ndarray:
    """``σᵢ² = Σⱼ √Pⱼ / (√Pᵢ B)`` (Eq. 28; Alg. 1, line 6): meets ``Σᵢ σᵢ⁻² = B`` exactly."""
    root = np.sqrt(_check_p(p, p_floor))
    return root.sum() / (root * check_value_range(bound, "bound"))


def alg1_error(p, bound, shape, p_floor: float = 1e-12) -> float:
    """``E‖Z ×₁ W‖² = (I/I₁) Σᵢ Pᵢ σᵢ²`` at Alg. 1's variances ``= (I/I₁)(Σ √Pᵢ)² / B``."""
    shape = tuple(int(s) for s in shape)
    others = math.prod(shape) // shape[0]
    p = np.asarray(p, float)
    return others * float(np.sum(p * alg1_variances(p, bound, p_floor)))


def multimode_variances(ps, bound, p_floor: float = 1e-12) -> list[np.ndarray]:
    """Eqs. 25–26 for several modes: ``σ²_{ki} = cₖ / √P_{ki}`` with ``cₖ = (Σᵢ √P_{ki}) B^{−1/N}``
    (each mode gets precision ``Σᵢ σ⁻²_{ki} = B^{1/N}``; only ``Πₖ cₖ`` is fixed by the paper)."""
    roots = [np.sqrt(_check_p(p, p_floor)) for p in ps]
    t = check_value_range(bound, "bound") ** (-1.0 / len(roots))
    return [r.sum() * t / r for r in roots]


def objective(ps, variances) -> float:
    """Eq. 23: ``Πₖ Σᵢ P_{ki} σ²_{ki}``."""
    return float(np.prod([np.dot(p, v) for p, v in zip(ps, variances)]))


def multimode_error(ps, bound) -> float:
    """The optimum of Eq. 24, ``(Πₖ Σᵢ √P_{ki})² / B``."""
    return float(np.prod([np.sqrt(np.asarray(p, float)).sum() for p in ps])) ** 2 / bound


def slsqp_optimum(ps, bound, *, rng, restarts: int = 5) -> tuple[float, float]:
    """Solve Eq. 24 numerically (scipy's SLSQP over log-variances) from ``restarts`` random
    starts; returns ``(best objective, Πₖ Σᵢ σ⁻²_{ki} there)``. The check of the closed form
    that does not use it."""
    ps = [np.asarray(p, float) for p in ps]
    sizes = np.cumsum([0] + [p.size for p in ps])
    parts = lambda x: [x[a:b] for a, b in zip(sizes[:-1], sizes[1:])]  # noqa: E731
    log_obj = lambda x: sum(math.log(np.dot(p, np.exp(v))) for p, v in zip(ps, parts(x)))  # noqa: E731
    log_con = lambda x: math.log(bound) - sum(math.log(np.sum(np.exp(-v))) for v in parts(x))  # noqa: E731
    rng = check_rng(rng)
    best = None
    for _ in range(restarts):
        res = optimize.minimize(log_obj, rng.normal(0.0, 1.0, sizes[-1]), method="SLSQP",
                                constraints=[{"type": "ineq", "fun": log_con}],
                                options={"maxiter": 1000, "ftol": 1e-14})
        if best is None or res.fun < best.fun:
            best = res
    variances = [np.exp(v) for v in parts(best.x)]
    return objective(ps, variances), float(np.prod([np.sum(1 / v) for v in variances]))
