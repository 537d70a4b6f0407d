"""A spy on what a chapter hands matplotlib, to check the CSV beside each figure.

:data:`PRELUDE` runs in a chapter's kernel before its first cell (``runner.execute(...,
prelude=PRELUDE)``). It wraps the Axes methods that draw data and writes, to
``plot-spy/NNN.json`` in the run's folder (:func:`read`), the numbers each figure was
given, one entry per figure in the order they are saved
(:func:`ldp_companion.page.plotting.show` saves each figure it shows, and nothing else saves
one), so entry k belongs to Figure N.k. :func:`mismatch` compares an
entry with the figure's CSV, which :mod:`ldp_companion.execution.figure_data` reads back from the
artists: an independent record of the same figure.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

PRELUDE = r'''
import json as _json
import os as _os
import numpy as _np
import matplotlib.axes as _maxes
import matplotlib.figure as _mfig

_SPY = {"order": [], "given": {}}
import itertools as _itertools
_SPY_COUNT = _itertools.count()

def _key(figure):
    """A figure's own number: id() is reused once a closed figure is collected, which
    merged two figures into one entry (8 entries for 9 figures, now and then)."""
    if not hasattr(figure, "_ldp_spy_key"):
        figure._ldp_spy_key = next(_SPY_COUNT)
    return figure._ldp_spy_key

def _numbers(value):
    try:
        out = _np.asarray(value, dtype=float).ravel()
    except (TypeError, ValueError):
        return []
    return out[_np.isfinite(out)].tolist()

def _spy(name):
    original = getattr(_maxes.Axes, name)
    def wrapper(self, *args, **kwargs):
        given = _SPY["given"].setdefault(_key(self.figure), [])
        if name == "pcolormesh":  # its coordinates are cell edges: only C is data
            args = args[-1:]
        values = [v for a in args if not isinstance(a, str) for v in _numbers(a)]
        for key in ("x", "y", "height", "width", "y1", "y2", "C", "X"):
            if key in kwargs and not isinstance(kwargs[key], str):
                values += _numbers(kwargs[key])
        given.append({"method": name, "values": values})
        return original(self, *args, **kwargs)
    setattr(_maxes.Axes, name, wrapper)

for _name in ("plot", "errorbar", "bar", "barh", "scatter", "step", "axhline", "axvline",
              "hlines", "vlines", "fill_between", "imshow", "pcolormesh"):
    _spy(_name)

_savefig = _mfig.Figure.savefig
def _spy_savefig(self, *args, **kwargs):
    """Write this figure's entry, ``plot-spy/NNN.json`` (NNN: its place among the saved
    figures): one file per figure, not every figure's numbers again at each save (chapter
    1's image panels made that 4 MB written a dozen times)."""
    if _key(self) not in _SPY["order"]:
        _SPY["order"].append(_key(self))
    _os.makedirs("plot-spy", exist_ok=True)
    place = _SPY["order"].index(_key(self))
    with open(f"plot-spy/{place:03d}.json", "w") as handle:
        _json.dump(_SPY["given"].get(_key(self), []), handle)
    return _savefig(self, *args, **kwargs)
_mfig.Figure.savefig = _spy_savefig

import sys as _sys
def _spy_modules(*_):
    """Write the package modules the kernel has imported so far, ``module-spy.json``: the
    smoke test checks that the chapter's code digest covers each of them."""
    with open("module-spy.json", "w") as handle:
        _json.dump(sorted(m for m in _sys.modules if m.split(".")[0] == "ldp_companion"),
                   handle)
get_ipython().events.register("post_run_cell", _spy_modules)
'''

def modules(folder) -> list[str]:
    """The package modules the chapter's kernel imported (after its last cell)."""
    import json
    from pathlib import Path

    return json.loads(Path(folder, "module-spy.json").read_text())


def read(folder) -> list[list[dict]]:
    """The entries the spy wrote in ``folder``, in the order the figures were saved."""
    import json
    from pathlib import Path

    return [json.loads(f.read_text()) for f in sorted(Path(folder, "plot-spy").glob("*.json"))]


#: Methods whose every number lands in an artist's data (``axhline``'s x span is in axes
#: units, ``fill_between``'s band and the heat maps are compared one way only).
TWO_WAY = {"plot", "errorbar", "step", "scatter"}


def _near(values: np.ndarray, pool: np.ndarray, rtol: float = 1e-9) -> np.ndarray:
    """Which of ``values`` equal (to ``rtol``) some value in ``pool``."""
    if pool.size == 0:
        return np.zeros(values.shape, bool)
    pool = np.unique(pool)
    above = np.searchsorted(pool, values).clip(0, pool.size - 1)
    below = (above - 1).clip(0, pool.size - 1)
    best = np.minimum(np.abs(pool[above] - values), np.abs(pool[below] - values))
    return best <= rtol * np.maximum(1.0, np.abs(values))


def mismatch(given: list[dict], csv: pd.DataFrame) -> list[str]:
    """What differs between the numbers a figure was given and its CSV (empty when they agree).

    Every number handed to a drawing method must be in the CSV; every x and y of the CSV's
    ``line`` and ``point`` rows must have been handed to ``plot``, ``errorbar``, ``step``,
    ``scatter``, ``axhline`` or ``axvline``.
    """
    columns = [c for c in ("x", "y", "value") if c in csv]
    pool = pd.concat([csv[c] for c in columns]).dropna().to_numpy(float) if columns else \
        np.array([])
    problems = []
    for call in given:
        values = np.asarray(call["values"], float)
        if call["method"] in ("axhline", "axvline"):
            values = values[:1]  # the position; the rest are the span in axes units
        missing = values[~_near(values, pool)]
        if missing.size:
            problems.append(f"{call['method']}: {missing.size} given numbers not in the CSV, "
                            f"e.g. {missing[:3].tolist()}")
    drawn = [c for c in given if c["method"] in TWO_WAY | {"axhline", "axvline"}]
    if drawn and {c["method"] for c in given} <= TWO_WAY | {"axhline", "axvline", "fill_between"}:
        handed = np.concatenate([np.asarray(c["values"], float) for c in drawn] + [np.array([])])
        rows = csv[csv["kind"].isin(["line", "point"])]
        shown = rows[["x", "y"]].to_numpy(float).ravel()
        shown = shown[np.isfinite(shown)]
        extra = shown[~_near(shown, np.concatenate([handed, [0.0, 1.0]]))]
        if extra.size:
            problems.append(f"{extra.size} numbers in the CSV's lines were never plotted, "
                            f"e.g. {extra[:3].tolist()}")
    return problems
