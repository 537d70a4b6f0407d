"""Chapter 2's checks of Sec. VI (Yang et al. 2021, Alg. 1, Eqs. 22–29, Corollary 2):
computations that return what they measured, and ``record_*`` functions that state the paper's
claim and record it in the chapter's ledger.

Writing ``U_k = W_{U_k} diag(σ_k)`` and ``P_ki`` for the squared column norms of
``W_k W_{U_k}``, the error seen through the utility subspace is ``Πₖ Σᵢ P_ki σ_ki²`` (Eq. 23)
under ``Πₖ Σᵢ σ_ki⁻² ≤ B`` (Eq. 24); Alg. 1's closed form is checked against SLSQP, IDN against
UDN, Eq. 29 by Monte Carlo, and Corollary 2 over reshapes.
"""
from __future__ import annotations

import math

import numpy as np

from ldp_companion.tensor.algebra import mode_product
from ldp_companion.tensor.variate import sample_tvg
from ldp_companion.tvg import noise, optimal

__all__ = ["optimum_check", "record_optimum", "idn_udn_worst_ratio", "record_idn_udn",
           "eq29_check", "record_eq29", "reshape_errors", "udn_shape_errors", "UDN_SHAPES",
           "record_corollary2"]

#: Reshapes of a 60-entry tensor for Corollary 2 carried over to UDN.
UDN_SHAPES = [(60, 1), (12, 5), (3, 20), (1, 60)]
_BOUND = 0.37          # an arbitrary B for the one-mode checks
_BOUND3 = 2.5          # an arbitrary B for the three-mode check


def optimum_check(rng: np.random.Generator) -> dict:
    """Alg. 1 and Eqs. 25–26 against SLSQP: a random 12 × 5 workload (full column rank,
    every ``Pᵢ > 0``) in one mode, random ``P`` in three modes.

    Returns
    -------
    dict
        ``expected`` (B, and SLSQP's optima) and ``computed`` (``Σ σ⁻²`` of Alg. 1's
        variances, and their objective, Eq. 23), and ``w5`` (the 5 × 12 workload that
        :func:`eq29_check` reuses).
    """
    w5 = rng.standard_normal((5, 12))
    wt = w5.T
    p5 = optimal.directions(wt, optimal.right_singular_basis(wt))
    var5 = optimal.alg1_variances(p5, _BOUND)
    slsqp, _ = optimal.slsqp_optimum([p5], _BOUND, rng=rng)
    ps3 = [rng.random(n) * 3 for n in (3, 4, 5)]
    slsqp3, _ = optimal.slsqp_optimum(ps3, _BOUND3, rng=rng)
    return {"w5": w5, "expected": [_BOUND, slsqp, slsqp3],
            "computed": [np.sum(1 / var5), optimal.objective([p5], [var5]),
                         optimal.objective(ps3, optimal.multimode_variances(ps3, _BOUND3))]}


def record_optimum(ledger, check: dict) -> None:
    """Record Alg. 1's optimum from :func:`optimum_check`."""
    ledger.close(
        "alg1-optimum",
        "Alg. 1 and Eqs. 25–26: the variances the mechanisms use meet Σσ⁻² = B with"
        " equality and reach the optimum SLSQP finds (W 12×5, one mode; random P, three"
        " modes)",
        check["expected"], check["computed"], rtol=1e-6)


def idn_udn_worst_ratio(rng: np.random.Generator, n_cases: int, i1: int = 8) -> float:
    """The largest ratio of IDN's optimal error (``B_IDN = I₁ B``) to UDN's (``B = 1``) over
    ``n_cases`` random workloads ``W`` with ``I₁`` columns of random scale."""
    worst = 0.0
    for _ in range(n_cases):
        ww = rng.standard_normal((rng.integers(1, 10), i1)) * rng.random(i1)
        udn = optimal.multimode_error(
            [optimal.directions(ww, optimal.right_singular_basis(ww))], 1.0)
        worst = max(worst, optimal.multimode_error([optimal.directions(ww)], float(i1)) / udn)
    return worst


def record_idn_udn(ledger, worst: float, n_cases: int) -> None:
    """Record Sec. VI's IDN ≤ UDN from :func:`idn_udn_worst_ratio`."""
    ledger.compare(
        "alg1-idn-udn",
        f"Sec. VI: IDN's optimal error is never above UDN's ({n_cases:,} random W with"
        " I₁ = 8; B_IDN = I₁ B)",
        worst, "<=", 1.0, rtol=1e-12, names=("largest IDN/UDN error ratio", "1"))


def eq29_check(rng: np.random.Generator, w5: np.ndarray, n_draws: int,
               shape=(12, 3, 4)) -> dict:
    """Eq. 29 by Monte Carlo: ``E‖Z ×₁ W‖²`` for Alg. 1's noise with workload ``w5`` on a
    tensor of ``shape``, over ``n_draws`` draws.

    Returns
    -------
    dict
        ``formula`` (``(Σ√Pᵢ)²/B``), ``with_factor`` (the same times ``I/I₁``, the error
        over the whole tensor), ``mc``, ``se`` and ``n``.
    """
    p12 = optimal.directions(w5)
    var12 = optimal.alg1_variances(p12, _BOUND)
    zz = sample_tvg(shape, rng=rng, factors=[np.diag(np.sqrt(var12)), None, None],
                    size=n_draws)
    energy = np.sum(mode_product(zz, w5, 0, batched=True) ** 2, axis=(1, 2, 3))
    return {"formula": optimal.multimode_error([p12], _BOUND),
            "with_factor": optimal.alg1_error(p12, _BOUND, shape), "mc": energy.mean(),
            "se": energy.std(ddof=1) / math.sqrt(energy.size), "n": energy.size}


def record_eq29(ledger, check: dict) -> None:
    """Record Eq. 29 from :func:`eq29_check` (within four standard errors)."""
    mc, se = check["mc"], check["se"]
    ledger.close(
        "eq29-factor",
        "Eq. 29: the expected error of Alg. 1's noise is (Σ√Pᵢ)²/B (Monte Carlo of"
        f" E‖Z ×₁ W‖² over {check['n']:,} draws, shape 12×3×4)",
        check["formula"], mc, atol=4 * se,
        note=(f"with the factor I/I₁ = 12 the formula gives {check['with_factor']:.1f}"
              f" against {mc:.1f} ± {se:.1f}"))


def reshape_errors(rng: np.random.Generator) -> list[float]:
    """Corollary 2: the optimal TVG error (B = 1) of random 2-row workloads of a 3×4×5
    tensor, of the 12×5 reshape (``W₂ ⊗ W₁`` merged) and of the vector of 60."""
    ws = [rng.standard_normal((2, n)) for n in (3, 4, 5)]
    ps = [optimal.directions(w) for w in ws]
    return [optimal.multimode_error(ps, 1.0),
            optimal.multimode_error([optimal.directions(np.kron(ws[1], ws[0])), ps[2]], 1.0),
            optimal.multimode_error(
                [optimal.directions(np.kron(ws[2], np.kron(ws[1], ws[0])))], 1.0)]


def udn_shape_errors(delta: float, shapes=UDN_SHAPES) -> list[float]:
    """UDN's expected error with ``W = E`` (``I I₁ / B``) at each reshape in ``shapes``."""
    return [noise.expected_error("udn", s, 1.0, delta, value_range=1.0, l2_sensitivity=1.0)
            for s in shapes]


def record_corollary2(ledger, general: list[float], udn: list[float]) -> None:
    """Record Corollary 2 from :func:`reshape_errors`, and its carry-over to UDN from
    :func:`udn_shape_errors`."""
    ledger.compare(
        "cor2-shape",
        "Corollary 2: the optimal TVG error does not depend on the tensor's shape"
        " (3×4×5, 12×5 and 60, Kronecker-merged W)",
        np.ptp(general) / general[0], "<=", 1e-9,
        names=("relative spread over shapes", "round-off"))
    ledger.compare(
        "cor2-udn",
        "Corollary 2 carried over to UDN: its error with W = E does not depend on the"
        " tensor's shape (60×1, 12×5, 3×20, 1×60)",
        np.ptp(udn) / udn[-1], "<=", 1e-9,
        names=("relative spread over shapes", "round-off"))
