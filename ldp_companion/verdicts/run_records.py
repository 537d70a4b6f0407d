"""What a chapter run records beside its ledger, cell by cell, for the timing records.

The runner (:mod:`ldp_companion.execution.runner`) tells the chapter's kernel its chapter
(:data:`CHAPTER_ENV`, which also numbers its figures: :mod:`ldp_companion.page.numbering`) and
output folder (:data:`~ldp_companion.verdicts.ledger.LEDGER_DIR_ENV`). In such a kernel the package
notes, in ``<folder>/<chapter>.<kind>.json``:

- ``data``: the data files read (:mod:`ldp_companion.data.datasets`; the rerun page lists them);
- ``reads``: the parameters each cell read (``cfg.<name>``), by the cell's execution count;
- ``grids``: each experiment grid's cells and wall time, by the cell that ran it.

``benchmarks/paper_profile.py`` joins the last two with papermill's cell times, so that a run
at one profile can be projected to another (:mod:`ldp_companion.edition.planning`). Outside a
runner's kernel nothing is written. Each record is replaced atomically (grid workers may
write at once): a reader never sees a half-written file, and an unreadable one counts as empty
(with a warning naming it).
"""
from __future__ import annotations

import json
import os
import warnings
from collections.abc import Callable
from pathlib import Path

from ldp_companion.files import CorruptFile, one_line, read_json, write_atomic
from ldp_companion.verdicts.ledger import LEDGER_DIR_ENV

__all__ = ["CHAPTER_ENV", "record_path", "update", "current_cell", "read"]

#: The chapter a runner's kernel runs (its file stem), set by the runner.
CHAPTER_ENV = "LDP_COMPANION_CHAPTER"


def record_path(kind: str) -> Path | None:
    """``<folder>/<chapter>.<kind>.json`` in a runner's kernel, else None."""
    chapter, folder = os.environ.get(CHAPTER_ENV), os.environ.get(LEDGER_DIR_ENV)
    if not (chapter and folder and Path(folder).is_dir()):
        return None
    return Path(folder) / f"{chapter}.{kind}.json"


def read(path: Path) -> dict:
    """A record's content: {} when absent, and {} with a warning naming the file when it is
    unreadable (truncated, garbage: the records are written whole, so it was damaged)."""
    try:
        content = read_json(path, "run record")
    except FileNotFoundError:
        return {}
    except (OSError, CorruptFile) as err:
        warnings.warn(one_line(str(err), 400), stacklevel=2)
        return {}
    if not isinstance(content, dict):
        warnings.warn(f"{path} is not a readable run record (JSON {type(content).__name__}, "
                      "not an object): ignored", stacklevel=2)
        return {}
    return content


def update(kind: str, change: Callable[[dict], None]) -> None:
    """Apply ``change`` to the record ``kind`` of the running chapter and write it back (whole:
    :func:`~ldp_companion.files.write_atomic`)."""
    path = record_path(kind)
    if path is None:
        return
    content = read(path)
    change(content)
    write_atomic(path, json.dumps(content, indent=1, sort_keys=True))


def current_cell() -> int | None:
    """The execution count of the notebook cell running now, as the executed notebook shows
    it (None outside IPython). While a cell runs, the shell's counter already holds the next
    cell's number (tested with a real kernel in ``tests/test_planning.py``)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    shell = get_ipython()
    return None if shell is None else int(shell.execution_count) - 1
