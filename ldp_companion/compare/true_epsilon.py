"""The table of true ε: for every mechanism, the ε claimed, the exact ε, the black-box bound.

For each :class:`~ldp_companion.compare.catalogue.Entry`, the black-box auditor
(:func:`ldp_companion.blackbox.dp_sniper`) bounds from samples alone the ε the mechanism spends
(at the entry's δ). The verdict on the paper's claim:

* ``fails`` when the exact ε exceeds the claim, or the black-box bound does (the table's bounds
  hold together with probability 95 %, :func:`family_confidence`, so a bound alone can prove a
  violation);
* ``holds`` when the exact ε is within the claim (and the bound does not contradict it);
* ``inconclusive`` when the law is not known and the bound stays within the claim: a lower
  bound cannot prove a mechanism private.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ldp_companion import blackbox
from ldp_companion.compare.catalogue import scalar_entries, tensor_entries
from ldp_companion.compare.multiattribute import tuple_entries
from ldp_companion.compare.records import record_entries

__all__ = ["true_epsilon_table", "verdict", "family_confidence", "auditor_validation"]

_RTOL = 1e-9  # an exact ε equal to the claim up to rounding is within it


def verdict(claimed: float, exact: float | None, lower: float) -> str:
    """The verdict on "the mechanism spends at most ``claimed``" (see the module)."""
    over = claimed * (1 + _RTOL)
    if lower > over or (exact is not None and exact > over):
        return "fails"
    return "holds" if exact is not None else "inconclusive"


#: The auditor's classifiers: per-coordinate histograms find atoms (a scalar mechanism's
#: discrete outputs, TLDP's kept entries); logistic regression finds a linear score (additive
#: Gaussian noise on a tensor). A tensor mechanism is screened with both.
CLASSIFIERS = {"scalar": "histogram", "tensor": ("histogram", "logistic"),
               "record": ("histogram", "logistic"), "tuple": ("histogram", "logistic")}


def family_confidence(m: int) -> float:
    """The confidence of each of ``m`` audits for all ``m`` bounds to hold together with
    probability :data:`~ldp_companion.blackbox.CONFIDENCE` (Bonferroni: ``1 - (1 - c)/m``).
    A table of many bounds at 95 % each would hold a few wrong ones by chance."""
    return 1.0 - (1.0 - blackbox.CONFIDENCE) / max(1, int(m))


def _row(entry, n: int, rng, confidence: float = blackbox.CONFIDENCE) -> dict:
    found = blackbox.dp_sniper(entry.sampler, entry.pairs, n, rng,
                               classifier=CLASSIFIERS[entry.kind], confidence=confidence,
                               claimed_epsilon=entry.claimed, delta=entry.delta)
    return {"paper": entry.paper, "mechanism": entry.key, "kind": entry.kind,
            "budget": entry.eps, "delta": entry.delta, "claimed": entry.claimed,
            "exact": np.nan if entry.exact is None else entry.exact,
            "black-box lower bound": found.epsilon_lower,
            "verdict": verdict(entry.claimed, entry.exact, found.epsilon_lower)}


def true_epsilon_table(eps_table, *, n_audit: int, n_tensor: int, shape, value_range: float,
                       delta: float, rng: np.random.Generator) -> pd.DataFrame:
    """One row per (mechanism, budget): the scalar mechanisms, chapter 3's multi-attribute
    ones and chapter 4's record releases audited with ``n_audit`` outputs per input, the tensor ones (``shape``, entries of range ``value_range``, δ =
    ``delta`` for the Gaussian ones) with ``n_tensor``."""
    audits = []
    for eps in eps_table:
        audits += [(e, n_audit) for e in scalar_entries(float(eps))]
        audits += [(e, n_audit) for e in tuple_entries(float(eps))]
        audits += [(e, n_audit) for e in record_entries(float(eps))]
        audits += [(e, n_tensor) for e in tensor_entries(float(eps), shape, value_range, delta)]
    confidence = family_confidence(len(audits))
    return pd.DataFrame([_row(e, n, rng, confidence) for e, n in audits])


def auditor_validation(eps_table, n: int, rng: np.random.Generator) -> pd.DataFrame:
    """The auditor on mechanisms whose ε is known: the catalogue's scalar mechanisms at each
    budget (correct: true ε = exact ε) and Appendix A's mutants at ε = 1 (broken: true ε from
    their docstrings). Columns: mechanism, status, budget, true ε, bound, flagged."""
    from ldp_companion import audit
    from ldp_companion.compare.catalogue import SCALAR, SCALAR_PAIRS, scalar_mechanism
    from ldp_companion.mechanisms.mutants import MUTANTS

    rows = []
    cases = [(scalar_mechanism(name, float(eps)), "correct", None)
             for eps in eps_table for name in SCALAR]
    cases += [(cls(1.0), "mutant", true(1.0)) for cls, true in MUTANTS]
    confidence = family_confidence(len(cases))
    for mechanism, status, true in cases:
        found = blackbox.dp_sniper(mechanism, SCALAR_PAIRS, n, rng, confidence=confidence)
        exact = audit.exact_audit(mechanism).epsilon if true is None else true
        name = mechanism.name if status == "correct" else type(mechanism).__name__
        rows.append({"mechanism": name, "status": status,
                     "budget": mechanism.epsilon, "true": exact,
                     "bound": found.epsilon_lower, "flagged": found.flagged})
    return pd.DataFrame(rows)
