"""Table V: the expected noise norm ``E‖Z‖₂`` of each mechanism, as the paper prints it, as
its mechanisms really give it, and by Monte Carlo.

The paper's column (Eqs. 20–23 and Sec. V-C) for a tensor of ``I`` entries, first mode ``I₁``:

=========  ======================================  ===========================================
mechanism  paper (Table V)                           as implemented (σ or b of the mechanism)
=========  ======================================  ===========================================
Laplace    ``(Δ/ε) I √(2I)``                        ``b₁ √(2I)``, ``b₁ = IΔ/ε``   (same)
Gaussian   ``(Δ/2ε) I √I``                          ``σ₁ √I``, ``σ₁ = Δ√(I/2ε)`` (Thm. 2, Eq. 8)
MVG        ``I₁ I / B_MVG`` (a squared norm)        ``√(I · √(mn)/B_MVG)``
IDN        ``√(I s₂² / c²)``                         same
TLDP-L     ``(Δ/ε) √(2(1−p)I)``                     same
TLDP-G     ``(Δ/2ε) √((1−p)I)`` (Eq. 23)            ``Δ √((1−p)I / 2ε)``
=========  ======================================  ===========================================

"as implemented" uses ``E‖Z‖ ≤ √(E‖Z‖²)`` (Jensen, Eq. 21), tight for large ``I``.

:func:`paper_error` types the paper's column from the paper (Table V; IDN's ζ from Sec. V-C,
MVG's α₀ and β₀ from TVG's Eq. 30 with ``γ = s₂/2``, which the paper does not state), in the
printed form, without the calibration code the mechanisms use; :func:`monte_carlo_error` draws
the noise through :func:`ldp_companion.tldp.mechanisms.perturb`, the function the experiments
call. A slip in a mechanism's noise therefore shows as a mismatch between the two.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ldp_companion.tensor.calibration import (
    check_delta,
    check_value_range,
    idn_c,
    mvg_budget,
    tensor_size,
)
from ldp_companion.tldp import mechanisms
from ldp_companion.tldp.algorithm import retain_prob
from ldp_companion.validation import check_epsilon, check_positive_int, check_rng

__all__ = ["ORDER", "paper_error", "paper_approximation", "implemented_error",
           "monte_carlo_error", "table_v"]

ORDER = ("laplace", "gaussian", "mvg", "idn", "tldp_l", "tldp_g")


def _common(shape, value_range, epsilon, delta):
    size = tensor_size(shape)
    return (size, int(shape[0]), check_value_range(value_range), check_epsilon(epsilon),
            check_delta(delta))


def paper_error(mechanism: str, shape, value_range, epsilon, delta=1e-5) -> float:
    """The expected error Table V prints for ``mechanism`` (see the module's table), typed
    from the paper in its printed form.

    ``s₂ = Δ√I`` (Eqs. 17–18: ``2√I`` on (−1, 1)); IDN's ``ζ²(δ) = −2 ln δ + 2√(−I ln δ) + I``
    (Sec. V-C); MVG's ``α₀ = (H_r + H_{r,1/2})γ² + 2H_rγs₂`` and
    ``β₀ = 2(mn)^{1/4}H_r ζ(δ) s₂`` with ``m = I₁``, ``n = I/I₁``, ``r = min(m, n)`` (TVG
    Eq. 30) and ``γ = s₂/2`` (not stated in the paper); TLDP's ``p`` as Alg. 1 prints it
    (0 once ``e^{ε − Iε}`` underflows).
    """
    size, first, d, eps, delta = _common(shape, value_range, epsilon, delta)
    if mechanism not in ORDER:
        raise ValueError(f"mechanism must be one of {ORDER}, got {mechanism!r}")
    s2 = d * math.sqrt(size)
    if mechanism == "laplace":
        return d / eps * size * math.sqrt(2 * size)
    if mechanism == "gaussian":
        return d / (2 * eps) * size * math.sqrt(size)
    if mechanism == "idn":
        zeta2 = -2 * math.log(delta) + 2 * math.sqrt(-size * math.log(delta)) + size
        return math.sqrt(size * s2**2 / (-math.sqrt(zeta2) + math.sqrt(zeta2 + 2 * eps)) ** 2)
    if mechanism == "mvg":
        m, n = first, size // first
        r = min(m, n)
        h = sum(1.0 / i for i in range(1, r + 1))
        h_half = sum(1.0 / math.sqrt(i) for i in range(1, r + 1))
        gamma = s2 / 2
        zeta = math.sqrt(-2 * math.log(delta) + 2 * math.sqrt(-m * n * math.log(delta)) + m * n)
        alpha = (h + h_half) * gamma**2 + 2 * h * gamma * s2
        beta = 2 * (m * n) ** 0.25 * h * zeta * s2
        return first * size / (-beta + math.sqrt(beta**2 + 8 * alpha * eps)) ** 2 \
            * 4 * alpha**2
    b = d / eps                                   # Alg. 1: b = Δ/ε, σ² = Δ²/2ε
    sigma = math.sqrt(d**2 / (2 * eps))
    a = math.exp(eps - size * d / b)              # e^{ε − IΔ/b} (= e^{ε − IΔ²/2σ²})
    if mechanism == "tldp_l":
        p = a / (2 * b + a)
        return d / eps * math.sqrt(2 * (1 - p) * size)            # Eq. 22
    p = a / (sigma * math.sqrt(2 * math.pi) + a)
    return d / (2 * eps) * math.sqrt((1 - p) * size)              # Eq. 23


def paper_approximation(mechanism: str, shape, value_range, epsilon) -> float:
    """Sec. V-C's "removing the relaxation term δ" values: MVG ``ΔI₁I√I ln²(I₁+1)/(√2 ε)``
    and IDN ``ΔI√I/(√2 ε)``; NaN for the others (the paper gives none)."""
    size = tensor_size(shape)
    first = int(shape[0])
    d, eps = check_value_range(value_range), check_epsilon(epsilon)
    if mechanism == "mvg":
        return d * first * size * math.sqrt(size) / (math.sqrt(2) * eps) * math.log(first + 1) ** 2
    if mechanism == "idn":
        return d * size * math.sqrt(size) / (math.sqrt(2) * eps)
    return math.nan


def implemented_error(mechanism: str, shape, value_range, epsilon, delta=1e-5) -> float:
    """``√(E‖Z‖²)`` of the noise each mechanism really adds (the calibrations of
    :mod:`ldp_companion.tensor` and Alg. 1)."""
    size, first, d, eps, delta = _common(shape, value_range, epsilon, delta)
    s2 = d * math.sqrt(size)
    second = {
        "laplace": lambda: 2 * (size * d / eps) ** 2,
        "gaussian": lambda: size * d**2 / (2 * eps),
        "mvg": lambda: math.sqrt(size) / mvg_budget(first, size // first, s2, eps, delta),
        "idn": lambda: (s2 / idn_c(size, eps, delta)) ** 2,
        "tldp_l": lambda: (1 - retain_prob(size, d, eps)) * 2 * (d / eps) ** 2,
        "tldp_g": lambda: (1 - retain_prob(size, d, eps, "gaussian")) * d**2 / (2 * eps),
    }
    if mechanism not in second:
        raise ValueError(f"mechanism must be one of {ORDER}, got {mechanism!r}")
    return float(math.sqrt(size * second[mechanism]()))


def monte_carlo_error(mechanism: str, shape, value_range, epsilon, n: int,
                      rng) -> tuple[float, float]:
    """Mean of ``‖M(0) − 0‖₂`` over ``n`` draws of the mechanism on the zero tensor, and its
    standard error. The noise is drawn by :func:`ldp_companion.tldp.mechanisms.perturb` (the
    experiments' mechanisms; IDN and MVG at its δ = 10⁻⁵)."""
    if mechanism not in ORDER:
        raise ValueError(f"mechanism must be one of {ORDER}, got {mechanism!r}")
    n = check_positive_int(n, "n")
    rng = check_rng(rng)
    z = np.asarray(mechanisms.perturb(mechanism, np.zeros((n, *shape)), epsilon,
                                      value_range=value_range, rng=rng), float)
    norms = np.sqrt((z.reshape(n, -1) ** 2).sum(axis=1))
    return float(norms.mean()), float(norms.std(ddof=1) / math.sqrt(n))


def table_v(shapes: dict, value_range, eps_grid, n: int, rng) -> pd.DataFrame:
    """Table V for each named shape and ε: paper, paper's δ-free approximation, as
    implemented, Monte Carlo (mean, standard error, ratio of the paper's value to it), at the
    experiments' δ = 10⁻⁵."""
    delta = mechanisms.DELTA
    rows = []
    for name, shape in shapes.items():
        for eps in eps_grid:
            for mech in ORDER:
                mc, se = monte_carlo_error(mech, shape, value_range, eps, n, rng)
                paper = paper_error(mech, shape, value_range, eps, delta)
                rows.append({"tensor": name, "I": tensor_size(shape), "epsilon": eps,
                             "mechanism": mech, "paper": paper,
                             "paper approx.": paper_approximation(mech, shape, value_range,
                                                                  eps),
                             "implemented": implemented_error(mech, shape, value_range, eps,
                                                              delta),
                             "monte carlo": mc, "mc s.e.": se,
                             "paper / mc": paper / mc})
    return pd.DataFrame(rows)
