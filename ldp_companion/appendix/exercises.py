"""Appendix A's exercise and its answers, computed by the package (see
:mod:`ldp_companion.page.exercises`). Labels are the ``{exercise}`` labels of the page."""
from __future__ import annotations

import numpy as np

from ldp_companion.auditing.audit import clopper_pearson
from ldp_companion.page.exercises import ExerciseSet

__all__ = ["EXERCISES", "CAP_N", "largest_bound"]

EXERCISES = ExerciseSet("A-audit")

#: Samples per input of the exercise on the audit's cap.
CAP_N = 1_000_000


def largest_bound(n: int, confidence: float = 0.95) -> float:
    """The largest lower bound :func:`~ldp_companion.auditing.audit.empirical_audit` can report.

    All ``m = n/2`` held-out samples under one input fall in the region and none under the
    other: ``log(CP_lower(m; m) / CP_upper(0; m))``, each Clopper–Pearson bound at level
    ``(1 − confidence)/2``, i.e. ``log(α^{1/m} / (1 − α^{1/m})) ≈ log m − log(−log α)``.

    Parameters
    ----------
    n : int
        Samples per input (half of them choose the region).
    confidence : float
        The audit's confidence.

    Returns
    -------
    float
    """
    m, alpha = n // 2, (1.0 - confidence) / 2.0
    low, _ = clopper_pearson(m, m, alpha)
    _, high = clopper_pearson(0, m, alpha)
    return float(np.log(low) - np.log(high))


def _cap() -> dict:
    # the sign-error mutant's outputs at x = 1 and x' = -1 never overlap, so its audit
    # separates them perfectly and reports exactly the cap
    cap = largest_bound(CAP_N)
    return {"eps_max": cap, "eps_sign": cap}


EXERCISES.add("audit-ex-n", "derive", _cap, rtol=1e-3)
