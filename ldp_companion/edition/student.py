"""Student and instructor editions of the chapters, for a course.

A chapter's exercise section follows one pattern (``notebooks/*.md``)::

    :::{exercise}                 the question
    :label: pm-ex-crossover
    :::
    ```{code-cell}                tags [scaffold, remove-cell]: "eps_cross = ...  # your code here"
    :::{solution-start} pm-ex-crossover     the solution: text and code cells, or one
    :::                                     ":::{solution} ... :::" block of text
    ...
    :::{solution-end}
    :::
    ```{code-cell}                tags [self-check, remove-cell]: EXERCISES.check(...)

The book (the instructor's view) runs the scaffold, then the solution, then the self-check, which
says ``correct``; the scaffold and the check are hidden on the page. The student edition
(:func:`edition`) drops the solutions, shows the scaffold and the check, and clears every
output: run as handed out, each check says ``not yet``. The instructor edition keeps the
solutions. Both are plain notebooks: their Markdown is rendered from MyST
(:mod:`ldp_companion.edition.plain_markdown`), so that plain Jupyter shows no directives or roles.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import nbformat
import numpy as np

from ldp_companion.edition.plain_markdown import bibliography, render, section_titles

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["EDITIONS", "SCAFFOLD", "SELF_CHECK", "edition", "split_solutions", "leaks",
           "answer_strings", "write_editions", "grade"]

EDITIONS = ("student", "instructor")
SCAFFOLD, SELF_CHECK = "scaffold", "self-check"
_HIDDEN = ("remove-cell", "remove-input", "hide-input", "hide-cell")

_BANNER = {
    "student": ("**Student edition.** The solutions are removed. Each exercise has a cell with "
                "`...  # your code here`: fill it in, run it, then run the self-check cell "
                "below it, which says `correct` or `not yet` (it never shows the answer). Run "
                "the cells from the top first; `profile = \"smoke\"` in the parameters cell "
                "makes that fast."),
    "instructor": ("**Instructor edition.** Solutions included. The student edition, made by "
                   "`python -m ldp_companion student`, has the same cells without them."),
}


def _tags(cell) -> list:
    return list(cell.get("metadata", {}).get("tags", []))


def split_solutions(cells) -> tuple[list, list[str]]:
    """The cells without their solutions, and the removed text (one entry per removed
    markdown line run or code cell).

    Removes ``:::{solution} ... :::`` blocks, and everything from ``:::{solution-start}``
    through the ``:::`` that closes ``:::{solution-end}`` (markdown and code cells between).

    Raises
    ------
    ValueError
        If a solution is not closed by the end of the notebook.
    """
    kept, removed, state = [], [], None  # state: None, block, start, gated, end
    for cell in cells:
        if cell.cell_type != "markdown":
            if state is None:
                kept.append(cell)
            else:
                removed.append(cell.source)
            continue
        keep_lines, gone = [], []
        for line in cell.source.splitlines():
            stripped = line.strip()
            if state is None:
                if stripped.startswith(":::{solution}"):
                    state = "block"
                elif stripped.startswith(":::{solution-start}"):
                    state = "start"
                else:
                    keep_lines.append(line)
                    continue
            elif state in ("block", "end") and stripped == ":::":
                state = None
            elif state == "start" and stripped == ":::":
                state = "gated"
            elif state == "gated" and stripped.startswith(":::{solution-end}"):
                state = "end"
            gone.append(line)
        if gone:
            removed.append("\n".join(gone))
        text = "\n".join(keep_lines).strip("\n")
        if text.strip():
            cell = nbformat.from_dict(dict(cell))
            cell.source = text
            kept.append(cell)
    if state is not None:
        raise ValueError("a solution is not closed (':::' after ':::{solution}' or "
                         "':::{solution-end}' after ':::{solution-start}')")
    return kept, removed


def _show(cell):
    """The cell with the tags that hide it on the book's page removed."""
    cell = nbformat.from_dict(dict(cell))
    cell.metadata["tags"] = [t for t in _tags(cell) if t not in _HIDDEN]
    return cell


def edition(source: Path, which: str = "student", sealed=None):
    """The ``which`` edition of one chapter (a MyST ``.md`` source) as a notebook.

    With ``sealed`` (the chapter's :meth:`ExerciseSet.sealed
    <ldp_companion.page.exercises.ExerciseSet.sealed>`), the student edition's self-checks judge
    against the sealed answers it carries, not against the package's exercise set.

    Returns
    -------
    (notebook, removed)
        ``removed`` is the solution text taken out (empty for the instructor edition).
    """
    import jupytext

    if which not in EDITIONS:
        raise ValueError(f"edition must be one of {EDITIONS}, got {which!r}")
    nb = jupytext.read(source)
    cells, removed = split_solutions(nb.cells) if which == "student" else (list(nb.cells), [])
    titles, bib = section_titles(Path(source).read_text()), bibliography()
    out = []
    for cell in cells:
        if cell.cell_type == "markdown":  # plain Jupyter does not read MyST
            cell = nbformat.from_dict(dict(cell))
            cell.source = render(cell.source, titles, bib)
            if not cell.source.strip():
                continue
        if cell.cell_type == "code":
            tags = _tags(cell)
            if which == "student" and (SCAFFOLD in tags or SELF_CHECK in tags):
                cell = _show(cell)
            if which == "student" and sealed is not None and SELF_CHECK in tags:
                cell.source = cell.source.replace("EXERCISES.check(", "SEALED.check(")
            cell.outputs, cell.execution_count = [], None
        out.append(cell)
    if which == "student" and sealed is not None:
        first = next((i for i, c in enumerate(out) if SCAFFOLD in _tags(c)), len(out))
        out.insert(first, nbformat.v4.new_code_cell(
            "# the self-checks below judge your answers against these sealed ones: salted\n"
            "# hashes, not the answers themselves\n"
            "from ldp_companion.page.exercises import SealedAnswers\n\n"
            f"SEALED = SealedAnswers.from_json({sealed.to_json()!r})",
            metadata={"tags": ["sealed-answers"]}))
    banner = nbformat.v4.new_markdown_cell(_BANNER[which])
    first_heading = next((i for i, c in enumerate(out)
                          if c.cell_type == "markdown" and re.search(r"^# ", c.source, re.M)), 0)
    out.insert(first_heading + 1, banner)
    nb.cells = out
    nb.metadata.pop("jupytext", None)
    return nb, removed


def leaks(nb, removed: list[str], answers: dict[str, dict], source: str = "",
          min_line: int = 25) -> list[str]:
    """Solution text or answer values found in a student notebook (empty when clean).

    Parameters
    ----------
    nb : notebook
        A student edition (sources and any outputs are searched).
    removed : list of str
        The solution text taken out (:func:`split_solutions`): a line of it at least
        ``min_line`` characters long may remain only as often as the page has it outside
        the solutions (a solution may reuse a line of the chapter's code).
    answers : dict
        label -> name -> expected value (:meth:`~ldp_companion.page.exercises.ExerciseSet.answers`):
        no non-integer number may appear rounded to 4 decimals or 4 significant digits.
    source : str
        The whole page the edition was made from (default: none, so no removed line may
        remain at all).
    """
    text = "\n".join(_cell_text(c) for c in nb.cells)
    gone = "\n".join(removed)
    lines = {line.strip() for block in removed for line in block.splitlines()
             if len(line.strip()) >= min_line}
    found = [f"solution line: {line!r}" for line in sorted(lines)
             if text.count(line) > max(source.count(line) - gone.count(line), 0)]
    found += [f"{label}: {name} = {shown}" for label, named in answers.items()
              for name, value in named.items() for shown in answer_strings(value)
              if re.search(rf"(?<![\d.]){re.escape(shown)}(?!\d)", text)]
    return found


def answer_strings(value) -> list[str]:
    """How a numeric answer would be printed (4 decimals, 4 significant digits), entry by
    entry; none for integers, booleans, strings and ranges, which are not distinctive."""
    if isinstance(value, (bool, str)):
        return []
    arr = np.asarray(value)
    if not np.issubdtype(arr.dtype, np.number) or arr.dtype == bool:
        return []
    shown = set()
    for v in arr.astype(float).ravel():
        if np.isfinite(v) and abs(v - round(v)) >= 1e-3:
            shown.update({f"{v:.4f}", f"{v:#.4g}"})
    return sorted(shown)


def _cell_text(cell) -> str:
    parts = [cell.source]
    for out in cell.get("outputs", []):
        parts.append(out.get("text", ""))
        for key, value in out.get("data", {}).items():
            if key.startswith("text/"):
                parts.append(value if isinstance(value, str) else "".join(value))
    return "\n".join(parts)


def write_editions(out_dir: Path, chapters: list[Path], which: str = "student",
                   sealed_for=None) -> list[Path]:
    """Write the ``which`` edition of each chapter to ``out_dir/<chapter>.ipynb``.

    ``sealed_for(stem)`` gives a chapter's sealed answers (or None) for the student edition's
    self-checks (:func:`edition`)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for source in chapters:
        sealed = sealed_for(Path(source).stem) if sealed_for is not None else None
        nb, _ = edition(source, which, sealed)
        target = out_dir / f"{Path(source).stem}.ipynb"
        nbformat.write(nb, target)
        written.append(target)
    return written


def grade(notebook) -> pd.DataFrame:
    """What the self-checks of an executed student notebook say, one row per exercise.

    Parameters
    ----------
    notebook : path or notebook
        A student edition after the student (or papermill) ran it.

    Returns
    -------
    DataFrame with columns ``exercise`` and ``result`` (``correct``, ``not yet`` or
    ``not run``) and ``why`` (the check's reasons).
    """
    import pandas as pd

    nb = notebook if isinstance(notebook, dict) else nbformat.read(notebook, as_version=4)
    rows = []
    for cell in nb.cells:
        if cell.cell_type != "code" or SELF_CHECK not in _tags(cell):
            continue
        label = re.search(r'check\("([^"]+)"', cell.source)
        shown = next((o["data"]["text/plain"] for o in cell.get("outputs", [])
                      if "text/plain" in o.get("data", {})), "")
        shown = shown if isinstance(shown, str) else "".join(shown)
        result, why = "not run", ""
        if shown.endswith(": correct"):
            result = "correct"
        elif ": not yet (" in shown:
            result, why = "not yet", shown.split(": not yet (", 1)[1].rstrip(")")
        rows.append({"exercise": label.group(1) if label else "?", "result": result,
                     "why": why})
    return pd.DataFrame(rows, columns=["exercise", "result", "why"])
