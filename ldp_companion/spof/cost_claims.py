"""The chapter's checks of what SPOF costs against DP-SGD: App. G's operation count and
Sec. VIII's training time per epoch, each computed here and recorded in the chapter's ledger.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ldp_companion.spof import complexity
from ldp_companion.spof.experiments import TIME_MARGIN
from ldp_companion.verdicts.paired import within_margin

__all__ = ["operation_table", "record_appg", "savings", "record_time", "TIME_PAPER",
           "TIMED", "DPSGD"]

#: Sec. VIII: "57.2% less training time" than DP-SGD, in %.
TIME_PAPER = 57.2
#: App. G: "74%" fewer operations than DP-SGD to perturb a record, in %.
OPS_PAPER = 74
#: The DP-SGD forms SPOF's time is compared with.
DPSGD = ["dpsgd_logit", "dpsgd_param"]
#: The methods timed.
TIMED = ["nonprivate", "spof", *DPSGD]


def operation_table(n: int, l: int) -> pd.Series:
    """App. G's operation count term by term, SPOF (Steps 3 and 5 of Alg. 1) and DP-SGD
    (Steps 4 and 6 of Alg. 2), indexed by (method, term)."""
    return pd.concat({"SPOF": pd.Series(complexity.spof_terms(n, l)),
                      "DP-SGD": pd.Series(complexity.dpsgd_terms(n))})


def record_appg(ledger, n: int, l: int) -> float:
    """Record ``appG-74``; return the reduction in % (App. G: :data:`OPS_PAPER`)."""
    reduction = 100 * complexity.reduction(n, l)
    ledger.close(
        "appG-74",
        f"App. G: SPOF needs {OPS_PAPER:g}% fewer operations than DP-SGD to perturb a record"
        f" (n = {n}, l = {l})",
        OPS_PAPER, reduction, atol=0.5,
        note=(f"{complexity.c_spof(n, l):.0f} against {complexity.c_dpsgd(n):.0f} operations;"
              " the count leaves out the forward and backward passes both methods share"))
    return reduction


def savings(per_epoch: pd.DataFrame) -> np.ndarray:
    """% less time per epoch of SPOF than each DP-SGD form, repeat by repeat: shape
    (2, repeats); ``per_epoch`` has one column per method, one row per repeat."""
    return np.vstack([100 * (1 - per_epoch["spof"] / per_epoch[m]) for m in DPSGD])


def record_time(ledger, saving: np.ndarray, rows: int) -> None:
    """Record ``time-faster`` and ``time-57`` from :func:`savings` (``rows`` training rows)."""
    means = ", ".join(f"{v:.1f}%" for v in saving.mean(1))
    ledger.difference(
        "time-faster",
        "Sec. VIII: SPOF needs less training time per epoch than DP-SGD (paired savings per"
        " repeat; logit and parameter form, same device)",
        saving, note=f"mean savings {means} ({rows:,} rows)")
    ledger.difference(
        "time-57",
        f"Sec. VIII: SPOF needs {TIME_PAPER:g}% less training time per epoch than DP-SGD"
        f" (paired savings within ±{TIME_MARGIN:g} points of {TIME_PAPER:g}%; logit and"
        " parameter form)",
        within_margin(saving - TIME_PAPER, TIME_MARGIN), paper=f"{TIME_PAPER:g}%",
        note=f"mean savings {means}")
