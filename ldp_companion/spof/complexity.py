"""Perturbation complexity of SPOF and of the paper's DP-SGD, counted term by term (App. G).

The paper counts macro-operations per user and per record: ``C_SPOF`` covers Steps 3 and 5 of
Alg. 1 (stabilization, coefficients, perturbation), ``C_DPSGD`` Steps 4 and 6 of Alg. 2 (norm,
clipping, perturbation). With the AMD K7 costs (:data:`K7_OPS`) the totals are the paper's closed
forms ``(19 + l) n`` and ``80 n + 283``; for ``n = 14``, ``l = 7`` that is 364 against 1403, a
74.06 % reduction (Sec. VIII's "74 %"). Every total here is the sum of the named terms, so a
changed operation cost changes the result.
"""
from __future__ import annotations

import numbers

import numpy as np

from ldp_companion.validation import check_positive_int

__all__ = ["K7_OPS", "noise_fetch_cost", "spof_terms", "dpsgd_terms", "c_spof", "c_dpsgd",
           "reduction", "spof_closed_form", "dpsgd_closed_form"]

#: Macro-operation costs of App. G (AMD K7, ref. [33] of the paper). ``EXP`` is a table look-up
#: (``O_exp = 0``), ``SQRT_ITERS`` the Newton-Raphson iterations of one square root (ref. [35]).
K7_OPS = {"ADD": 1, "SUB": 1, "MUL": 3, "DIV": 32, "NOT": 1, "AND": 1, "OR": 1, "EXP": 0,
          "SQRT_ITERS": 7}


def _ops(ops) -> dict:
    """Validate an operation-cost table: exactly the keys of :data:`K7_OPS`, each finite >= 0."""
    if not isinstance(ops, dict):
        raise TypeError(f"ops must be a dict, got {type(ops).__name__}")
    missing, unknown = set(K7_OPS) - set(ops), set(ops) - set(K7_OPS)
    if missing or unknown:
        raise ValueError(f"ops must have exactly the keys {sorted(K7_OPS)}; missing "
                         f"{sorted(missing)}, unknown {sorted(unknown)}")
    for key, value in ops.items():
        if isinstance(value, bool) or not isinstance(value, numbers.Real) \
                or not np.isfinite(value) or value < 0:
            raise ValueError(f"ops[{key!r}] must be a finite real >= 0, got {value!r}")
    return ops


def noise_fetch_cost(ops=K7_OPS) -> float:
    """``C_N = 2 O_ADD + O_NOT + 2 O_AND + O_OR`` (App. G): reading one pre-computed noise
    sample is two additions and a 2:1 multiplexer (6 with the K7 costs)."""
    o = _ops(ops)
    return 2 * o["ADD"] + o["NOT"] + 2 * o["AND"] + o["OR"]


def spof_terms(n: int, l: int, ops=K7_OPS) -> dict:
    """The three terms of ``C_SPOF`` (App. G), per user and record.

    Parameters
    ----------
    n, l : int
        Features and code units.
    ops : dict
        Operation costs (keys of :data:`K7_OPS`).

    Returns
    -------
    dict
        ``perturbation = 2n O_ADD + 2n C_N`` (noise on α₂ and α₃),
        ``coefficients = 2n O_SUB + n O_MUL`` (α₂ = 0.5 - x; α₃ = 0.5x - 0.25),
        ``stabilization = n l O_ADD`` (Step 3).
    """
    n, l, o = check_positive_int(n, "n"), check_positive_int(l, "l"), _ops(ops)
    return {"perturbation": 2 * n * o["ADD"] + 2 * n * noise_fetch_cost(o),
            "coefficients": 2 * n * o["SUB"] + n * o["MUL"],
            "stabilization": n * l * o["ADD"]}


def dpsgd_terms(n: int, ops=K7_OPS) -> dict:
    """The six terms of ``C_DPSGD`` (App. G), per user and record.

    Returns
    -------
    dict
        ``perturbation = n O_ADD + n C_N``; ``clip_divisions = (n + 1) O_DIV`` (one per
        coordinate and ``‖∇L̂‖/C``); ``norm_additions = (n - 1) O_ADD``;
        ``squaring = 2n O_MUL``; ``sqrt = SQRT_ITERS (O_ADD + O_MUL + O_DIV)`` (Newton);
        ``gradient_terms = n (O_ADD + O_SUB + O_DIV + O_exp)`` (the ``A_{j,i}`` of Eq. 60).
    """
    n, o = check_positive_int(n, "n"), _ops(ops)
    per_gradient = o["ADD"] + o["SUB"] + o["DIV"] + o["EXP"]
    return {"perturbation": n * o["ADD"] + n * noise_fetch_cost(o),
            "clip_divisions": (n + 1) * o["DIV"],
            "norm_additions": (n - 1) * o["ADD"],
            "squaring": 2 * n * o["MUL"],
            "sqrt": o["SQRT_ITERS"] * (o["ADD"] + o["MUL"] + o["DIV"]),
            "gradient_terms": n * per_gradient}


def c_spof(n: int, l: int, ops=K7_OPS) -> float:
    """``C_SPOF``, the sum of :func:`spof_terms` (``(19 + l) n`` with K7 costs: 364 at 14, 7)."""
    return sum(spof_terms(n, l, ops).values())


def c_dpsgd(n: int, ops=K7_OPS) -> float:
    """``C_DPSGD``, the sum of :func:`dpsgd_terms` (``80 n + 283`` with K7 costs: 1403 at 14)."""
    return sum(dpsgd_terms(n, ops).values())


def reduction(n: int, l: int, ops=K7_OPS) -> float:
    """``(C_DPSGD - C_SPOF) / C_DPSGD`` (Sec. VIII): 0.7406 at ``n = 14``, ``l = 7``."""
    return 1.0 - c_spof(n, l, ops) / c_dpsgd(n, ops)


def spof_closed_form(n: int, l: int) -> int:
    """The paper's closed form ``(19 + l) n`` (K7 costs only)."""
    return (19 + check_positive_int(l, "l")) * check_positive_int(n, "n")


def dpsgd_closed_form(n: int) -> int:
    """The paper's closed form ``80 n + 283`` (K7 costs only)."""
    return 80 * check_positive_int(n, "n") + 283
