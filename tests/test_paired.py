"""The shared run-by-run comparison helpers (ldp_companion.paired)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ldp_companion.paired import gain, off_chance, wide


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
