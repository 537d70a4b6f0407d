"""What a chapter run records beside its ledger, cell by cell, for the timing records.

The runner (:mod:`ldp_companion.runner`) tells the chapter's kernel its chapter
(:data:`~ldp_companion.numbering.CHAPTER_ENV`) and output folder
(:data:`~ldp_companion.ledger.LEDGER_DIR_ENV`). In such a kernel the package notes, in
``<folder>/<chapter>.<kind>.json``:

- ``data``: the data files read (:mod:`ldp_companion.datasets`; the rerun page lists them);
- ``reads``: the parameters each cell read (``cfg.<name>``), by the cell's execution count;
- ``grids``: each experiment grid's cells and wall time, by the cell that ran it.

``benchmarks/paper_profile.py`` joins the last two with papermill's cell times, so that a run
at one profile can be projected to another (:mod:`ldp_companion.planning`). Outside a
runner's kernel nothing is written. Each record is replaced atomically (grid workers may
write at once): a reader never sees a half-written file, and an unreadable one counts as empty.
"""
from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

from ldp_companion.ledger import LEDGER_DIR_ENV
from ldp_companion.numbering import CHAPTER_ENV

__all__ = ["record_path", "update", "current_cell", "read"]


def record_path(kind: str) -> Path | None:
    """``<folder>/<chapter>.<kind>.json`` in a runner's kernel, else None."""
    chapter, folder = os.environ.get(CHAPTER_ENV), os.environ.get(LEDGER_DIR_ENV)
    if not (chapter and folder and Path(folder).is_dir()):
        return None
    return Path(folder) / f"{chapter}.{kind}.json"


def read(path: Path) -> dict:
    """A record's content ({} when absent or unreadable)."""
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return {}


def update(kind: str, change: Callable[[dict], None]) -> None:
    """Apply ``change`` to the record ``kind`` of the running chapter and write it back."""
    path = record_path(kind)
    if path is None:
        return
    content = read(path)
    change(content)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(content, indent=1, sort_keys=True))
    os.replace(tmp, path)


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
