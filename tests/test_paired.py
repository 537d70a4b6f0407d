"""The shared run-by-run comparison helpers (ldp_companion.verdicts.paired)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ldp_companion.verdicts.paired import gain, off_chance, wide


def _runs():
    rows = []
    for eps, (a, b) in {1.0: (0.10, 0.11), 10.0: (0.60, 0.30)}.items():
        for run in range(3):
            rows += [{"task": "t", "mechanism": "a", "epsilon": eps, "run": run,
                      "acc": a + run / 100},
                     {"task": "t", "mechanism": "b", "epsilon": eps, "run": run, "acc": b}]
    return pd.DataFrame(rows)


def test_off_chance_keeps_only_the_cells_above_the_floor():
    runs = _runs()
    where = off_chance(runs, ["a", "b"], 0.15, "acc")
    d = gain(wide(runs, "acc"), "a", "b", where=where)
    assert d.shape == (1, 3) and np.allclose(d, [[0.30, 0.31, 0.32]])
    everything = gain(wide(runs, "acc"), "a", "b")
    assert everything.shape == (2, 3)        # without the filter the chance cell is kept
    assert off_chance(runs, ["a", "b"], 0.9, "acc") is None


def test_wide_names_missing_columns():
    with pytest.raises(ValueError, match="acc"):
        wide(_runs().drop(columns="acc"), "acc")


def test_within_margin_gives_three_way_verdicts():
    from ldp_companion.verdicts.ledger import Ledger
    from ldp_companion.verdicts.paired import within_margin

    rng = np.random.default_rng(0)
    equal = rng.normal(0.0, 0.01, (3, 20))          # shown inside ±0.1
    apart = rng.normal(0.5, 0.01, (3, 20)) * [[1], [-1], [1]]  # shown outside, both signs
    noisy = rng.normal(0.1, 1.0, (3, 20))           # cannot tell
    ledger = Ledger("test")
    verdicts = [ledger.difference(f"c{i}", "similar", within_margin(d, 0.1), ref="Fig. 1").verdict
                for i, d in enumerate([equal, apart, noisy])]
    assert verdicts == ["holds", "fails", "inconclusive"]
    # the mutant: measuring on the wrong side calls a large negative difference "inside"
    wrong_side = 0.1 - apart[1]  # margin - d whatever the sign of the mean
    assert ledger.difference("m", "s", wrong_side[None], ref="Fig. 1").verdict == "holds"
    assert ledger.difference("r", "s", within_margin(apart[1:2], 0.1),
                             ref="Fig. 1").verdict == "fails"
    with pytest.raises(ValueError, match="margin"):
        within_margin(equal, 0.0)
