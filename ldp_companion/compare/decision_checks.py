"""What backs the decision map's F1 row (Sec. C.4): its Bonferroni correction, measured.

:func:`~ldp_companion.compare.downstream.f1_decisions` runs two kinds of test per cell, each
at ``(1 − level) / m`` for the ``m`` tests of the map: "the best beats chance" (one-sided
t-test over its runs) in every cell, and "its lead over the next is not a draw of the runs"
(Welch) in a cell of several mechanisms. :func:`null_maps` decides many simulated maps in
which no mechanism beats chance through that same function and counts those that name a
false winner; :func:`record_null_maps` records ``f1-null-maps``: that share against its exact
law. Nothing here retypes the correction: the law takes each simulated map's count of tests
from how the map is built (:data:`NULL_CONFIGS`), and the share from the decisions.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ldp_companion.auditing.montecarlo import bonferroni_z
from ldp_companion.compare.downstream import AT_CHANCE, TASK, f1_decisions
from ldp_companion.validation import check_positive_int, check_rng

__all__ = ["NULL_CONFIGS", "NULL_LEVEL", "NULL_MAPS", "NULL_RUNS", "NULL_SPREAD", "null_f1",
           "null_maps", "record_null_maps"]

#: The simulated maps, by name: ``(cells, mechanisms per cell, tests, null tests)``. In every
#: cell the first mechanism's runs are drawn normally around chance, so its chance test's null
#: is true and a t-test rejects it with probability exactly its level; a second mechanism sits
#: at half of chance, so the lead test's null is false and it always decides. Both maps hold
#: two tests: two chance tests, or one chance test and one lead test.
NULL_CONFIGS = {"two cells of one mechanism": (2, 1, 2, 2),
                "one cell of two mechanisms": (1, 2, 2, 1)}
#: The confidence the simulated maps are decided at: low, so that false winners are common
#: enough to count in :data:`NULL_MAPS` maps (the count of tests, which the check is about, is
#: the same at any level; at 95 % a map errs at most one time in twenty).
NULL_LEVEL = 0.6
#: Maps per configuration: 250 measure a share near 0.2 to a standard error of 0.025, and a
#: correction that counted one test where there are two (a share of 0.4) is 8 of them away.
NULL_MAPS = 250
#: Runs per (mechanism, cell), as many as the default profile's F1 row.
NULL_RUNS = 5
#: Standard deviation of a run's F1 around its mean, as a share of chance (the t-tests do not
#: depend on it: any value gives the same decisions).
NULL_SPREAD = 0.01


def null_f1(cells: int, mechanisms: int, maps: int, runs: int, chance: float,
            rng: np.random.Generator) -> pd.DataFrame:
    """F1 runs of ``maps`` maps of ``cells`` cells (one task, ε = 1, 2, ...) where no
    mechanism beats ``chance``: per cell, mechanism ``"m0"`` at chance, the others (``"m1"``,
    ...) at half of it, every run normal with standard deviation ``NULL_SPREAD · chance``.

    Returns
    -------
    DataFrame
        Columns ``map, task, epsilon, mechanism, run, f1`` (the columns of
        :func:`~ldp_companion.compare.downstream.downstream_f1` that the decisions read).
    """
    cells, mechanisms, maps, runs = (check_positive_int(v, name) for v, name in zip(
        (cells, mechanisms, maps, runs), ("cells", "mechanisms", "maps", "runs")))
    chance, rng = float(chance), check_rng(rng)
    if not 0.0 < chance < 1.0:
        raise ValueError(f"chance must be an F1 in (0, 1), got {chance!r}")
    means = np.where(np.arange(mechanisms) == 0, chance, chance / 2)
    f1 = means[None, None, :, None] + NULL_SPREAD * chance * rng.standard_normal(
        (maps, cells, mechanisms, runs))
    index = np.indices(f1.shape).reshape(4, -1)
    return pd.DataFrame({"map": index[0], "task": TASK, "epsilon": index[1] + 1.0,
                         "mechanism": np.char.add("m", index[2].astype(str)),
                         "run": index[3], "f1": f1.ravel()})


def null_maps(chance: float, rng: np.random.Generator, *, level: float = NULL_LEVEL,
              maps: int = NULL_MAPS, runs: int = NULL_RUNS) -> pd.DataFrame:
    """The share of simulated null maps (:data:`NULL_CONFIGS`, :func:`null_f1`: ``maps`` of
    each, ``runs`` runs per mechanism and cell, the mechanism at ``chance`` and the next at
    half of it) in which :func:`~ldp_companion.compare.downstream.f1_decisions` at ``level``
    names a false winner, next to its exact law.

    A map errs when any cell's ``best`` is not :data:`~ldp_companion.compare.downstream.AT_CHANCE`
    (a winner, or "inconclusive": both say the best beats chance). Each of its ``k`` true nulls
    is an exact one-sided t-test on normal runs, independent of the others, at
    ``(1 − level) / t`` for the map's ``t`` tests, so the map errs with probability
    ``1 − (1 − (1 − level) / t)^k`` (Bonferroni's family-wise error, at most ``1 − level``).

    Returns
    -------
    DataFrame
        One row per configuration: ``configuration, level, cells, mechanisms, tests, maps``,
        ``measured`` (the share), ``law``, ``z`` (their difference in binomial standard
        errors of the law) and ``largest p_lead`` (the lead tests always decide: far below
        the level).
    """
    rng, rows = check_rng(rng), []
    for name, (cells, mechanisms, tests, nulls) in NULL_CONFIGS.items():
        f1 = null_f1(cells, mechanisms, maps, runs, chance, rng)
        decided = [f1_decisions(part, level, chance) for _, part in f1.groupby("map")]
        share = float(np.mean([(d["best"] != AT_CHANCE).any() for d in decided]))
        law = 1.0 - (1.0 - (1.0 - level) / tests) ** nulls
        rows.append({"configuration": name, "level": float(level), "cells": cells,
                     "mechanisms": mechanisms, "tests": tests, "maps": maps,
                     "measured": share, "law": law,
                     "z": (share - law) / math.sqrt(law * (1.0 - law) / maps),
                     "largest p_lead": max(float(d["p_lead"].max()) for d in decided)})
    return pd.DataFrame(rows)


def record_null_maps(ledger, table: pd.DataFrame, family_error: float = 1e-3) -> None:
    """``f1-null-maps`` from :func:`null_maps`: each configuration's |z| within the
    Bonferroni bound over the configurations at family-wise false alarm ``family_error``."""
    z, level = bonferroni_z(len(table), family_error), float(table["level"].iloc[0])
    shares = ", ".join(f"{c}: {m:.3f} (law {law:.3f})" for c, m, law in zip(
        table["configuration"], table["measured"], table["law"]))
    ledger.compare(
        "f1-null-maps",
        "The F1 row's decisions name a false winner exactly as often as their Bonferroni "
        "correction allows: in simulated maps where no mechanism beats chance, decided by "
        f"the same rule at confidence {level:.0%} ({int(table['maps'].min()):,} maps of each "
        "kind: two cells of one mechanism; one cell of two, the next far below chance), the "
        "share of maps with a false winner is its exact law (Monte Carlo)",
        np.abs(table["z"].to_numpy()), "<=", z,
        names=("|z| of the measured share", "Bonferroni bound"),
        note=(f"{shares}; at most {1 - level:.0%} (the guarantee); family-wise false alarm "
              f"{family_error:g}; largest lead-test p-value "
              f"{table['largest p_lead'].max():.1e}"),
        section="compare-decision")
