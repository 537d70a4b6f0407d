"""The book's chapters in code: chapter id -> the chapter's package, parameters and paper items.

This module and the command line (:mod:`ldp_companion.__main__`) are the only places above the
chapter packages: they gather what every chapter declares (its parameters, its paper's items).
The shared blocks never import them.
"""
from __future__ import annotations

import re
from pathlib import Path
from types import ModuleType

from ldp_companion import appendix, byom, compare, hiera, pm, spof, tldp, tvg
from ldp_companion.appendix import exercises as _a_ex
from ldp_companion.appendix import items as _a_items
from ldp_companion.appendix import params as _a_params
from ldp_companion.byom import exercises as _b_ex
from ldp_companion.byom import items as _b_items
from ldp_companion.byom import params as _b_params
from ldp_companion.compare import exercises as _c_ex
from ldp_companion.compare import items as _c_items
from ldp_companion.compare import params as _c_params
from ldp_companion.execution.profiles import ChapterParams
from ldp_companion.hiera import exercises as _hiera_ex
from ldp_companion.hiera import items as _hiera_items
from ldp_companion.hiera import params as _hiera_params
from ldp_companion.hiera import reconstructions as _hiera_rec
from ldp_companion.page.exercises import ExerciseSet
from ldp_companion.pm import exercises as _pm_ex
from ldp_companion.pm import items as _pm_items
from ldp_companion.pm import params as _pm_params
from ldp_companion.pm import reconstructions as _pm_rec
from ldp_companion.spof import exercises as _spof_ex
from ldp_companion.spof import items as _spof_items
from ldp_companion.spof import params as _spof_params
from ldp_companion.spof import reconstructions as _spof_rec
from ldp_companion.tldp import exercises as _tldp_ex
from ldp_companion.tldp import items as _tldp_items
from ldp_companion.tldp import params as _tldp_params
from ldp_companion.tldp import reconstructions as _tldp_rec
from ldp_companion.tvg import exercises as _tvg_ex
from ldp_companion.tvg import items as _tvg_items
from ldp_companion.tvg import params as _tvg_params
from ldp_companion.tvg import reconstructions as _tvg_rec
from ldp_companion.verdicts.coverage import PaperItems

__all__ = ["PACKAGES", "PARAMS", "ITEMS", "STAND_INS", "WALL_CLOCK", "EXERCISES",
           "RECONSTRUCTIONS",
           "coverage", "resolved_items", "cross_links",
           "chapter_number", "params_markdown", "params_frame", "sync_parameters"]

PACKAGES: dict[str, ModuleType] = {
    "01-tldp": tldp, "02-tvg": tvg, "03-pm-three-outputs": pm, "04-spof": spof,
    "05-hiera": hiera, "A-audit": appendix, "B-mechanism": byom, "C-compare": compare,
}
PARAMS: dict[str, ChapterParams] = {p.PARAMS.chapter: p.PARAMS for p in (
    _tldp_params, _tvg_params, _pm_params, _spof_params, _hiera_params, _a_params,
    _b_params, _c_params)}
ITEMS: dict[str, PaperItems] = {i.ITEMS.chapter: i.ITEMS for i in (
    _tldp_items, _tvg_items, _pm_items, _spof_items, _hiera_items, _a_items,
    _b_items, _c_items)}

#: The paper's data that a chapter never reads, at any profile, with what stands in for them
#: (the chapter's ``items.STAND_INS``): chapter -> ((the paper's data, the stand-in), ...).
STAND_INS: dict[str, tuple] = {i.ITEMS.chapter: getattr(i, "STAND_INS", ()) for i in (
    _tldp_items, _tvg_items, _pm_items, _spof_items, _hiera_items, _a_items,
    _b_items, _c_items)}

#: Claims whose verdict rests on wall-clock time measured in the run (chapter 4's training
#: time per epoch): they judge the paper on this machine's timings, which vary from run to run
#: with the machine's load, so ``pin --check`` reports a change of theirs without failing
#: (timings are benchmarks, never test assertions). chapter -> claim ids.
WALL_CLOCK: dict[str, tuple[str, ...]] = {"04-spof": ("time-faster", "time-57")}

#: Chapters whose exercises check themselves (:mod:`ldp_companion.page.exercises`): chapter -> its
#: exercise set.
EXERCISES: dict[str, ExerciseSet] = {e.EXERCISES.chapter: e.EXERCISES for e in (
    _tldp_ex, _tvg_ex, _pm_ex, _spof_ex, _hiera_ex, _a_ex, _b_ex, _c_ex)}

#: Chapters whose paper's text lost formulas or numbers: chapter -> its ``reconstructions``
#: module (``NOTE``, ``RECONSTRUCTED``).
RECONSTRUCTIONS: dict[str, ModuleType] = {
    "01-tldp": _tldp_rec, "02-tvg": _tvg_rec, "03-pm-three-outputs": _pm_rec,
    "04-spof": _spof_rec, "05-hiera": _hiera_rec}

_HEAD = ("| chapter | parameter | meaning | smoke | default | paper |\n"
         "|---|---|---|---|---|---|")


def chapter_number(chapter: str) -> str:
    """``"03"`` for ``"03-pm-three-outputs"``, ``"A"`` for ``"A-audit"``."""
    return chapter.split("-", 1)[0]


def params_markdown() -> str:
    """The table of every chapter's parameters, as Markdown (``python -m ldp_companion
    params``), generated from the specs."""
    rows = [row for chapter, spec in PARAMS.items()
            for row in spec.markdown_rows(chapter_number(chapter))]
    bare = [chapter_number(c) for c, spec in PARAMS.items() if not spec.names]
    if bare:
        rows.append(f"| {', '.join(bare)} | — | placeholders: `profile` and `seed` only, "
                    "for now | | | |")
    return "\n".join([_HEAD, *rows])


def params_frame():
    """The table of every chapter's parameters as a data frame (the *Reading and rerunning*
    page shows it): chapter, parameter, meaning, and its value at each profile, generated from
    the specs."""
    import pandas as pd

    from ldp_companion.execution.profiles import PROFILES
    from ldp_companion.verdicts.prose import format_value

    return pd.DataFrame([{"chapter": chapter_number(chapter), "parameter": name,
                          "meaning": meaning, **{p: format_value(per[p]) for p in PROFILES}}
                         for chapter, spec in PARAMS.items()
                         for name, (meaning, per) in spec.spec.items()])


_CELL = re.compile(r"(```\{code-cell\} ipython3\n:tags: \[parameters, hide-input\]\n\n)"
                   r"(.*?)(\n```)", re.S)


def cross_links() -> dict[str, dict[str, list[tuple[str, str]]]]:
    """Chapter -> item ref -> ``[(chapter, claim id)]``: the claims of appendix C that test a
    numbered item of a chapter's paper too (:data:`ldp_companion.compare.items.ALSO_TESTS`;
    their primary ref stays C's section).

    Raises
    ------
    ValueError
        If a link names a claim C's ledger does not map, a chapter the book does not have, or
        an item not in that chapter's list.
    """
    links: dict[str, dict[str, list[tuple[str, str]]]] = {}
    for claim, targets in _c_items.ALSO_TESTS.items():
        if claim not in _c_items.CLAIM_REFS:
            raise ValueError(f"ALSO_TESTS names {claim!r}, not a claim of C-compare")
        for chapter, ref in targets:
            try:
                ref = ITEMS[chapter].item(ref).ref
            except (KeyError, ValueError) as err:
                raise ValueError(f"ALSO_TESTS: {claim!r} tests {chapter} {ref!r}, which "
                                 f"is not an item there ({err})") from None
            links.setdefault(chapter, {}).setdefault(ref, []).append(("C-compare", claim))
    return links


def resolved_items(ledger_dir: Path) -> dict[str, PaperItems]:
    """Every chapter's items as its run in ``ledger_dir`` earned them (the coverage it
    recorded), with the claims of other chapters that test them too (:func:`cross_links`); a
    chapter that recorded none has no item counted as reproduced."""
    from ldp_companion.verdicts.coverage import load_coverage, unrun

    recorded, links = load_coverage(ledger_dir), cross_links()
    return {c: (recorded.get(c) or unrun(items)).also_tested(links.get(c, {}))
            for c, items in ITEMS.items()}


def coverage(ledger_dir: Path, chapters: list[str] | None = None):
    """The coverage table of ``chapters`` (all by default), with the verdicts of the ledgers
    in ``ledger_dir`` and the statuses their runs earned (:func:`resolved_items`).

    Raises
    ------
    ValueError
        If a chapter whose items name claims has no ledger in ``ledger_dir`` (the message
        says which command writes it).
    """
    import pandas as pd

    from ldp_companion.verdicts.ledger import load_ledgers

    claims = load_ledgers(ledger_dir)
    items = resolved_items(ledger_dir)
    frames = []
    for chapter in chapters or list(ITEMS):
        mine = claims[claims["chapter"] == chapter]
        if mine.empty and any(i.claims for i in ITEMS[chapter].items):
            raise ValueError(
                f"chapter {chapter} has no ledger in {ledger_dir}: run `make book`, or "
                f"`python -m ldp_companion run {chapter} --out DIR` and set "
                f"LDP_COMPANION_LEDGER_DIR=DIR")
        frames.append(items[chapter].table(claims))  # its own claims, and C's on its items
    return pd.concat(frames, ignore_index=True)


def notebook_with_cell(text: str, chapter: str) -> str:
    """A chapter's MyST source with its parameters cell replaced by the generated one."""
    if len(_CELL.findall(text)) != 1:
        raise ValueError(f"{chapter}: expected exactly one parameters cell")
    return _CELL.sub(lambda m: m.group(1) + PARAMS[chapter].parameters_cell() + m.group(3), text)


def sync_parameters(repo: Path) -> list[Path]:
    """Rewrite every chapter's parameters cell from the specs.

    Returns the files that changed.
    """
    changed = []
    targets = [(repo / "notebooks" / f"{c}.md", lambda t, c=c: notebook_with_cell(t, c))
               for c in PARAMS]
    for path, rewrite in targets:
        old = path.read_text()
        new = rewrite(old)
        if new != old:
            path.write_text(new)
            changed.append(path)
    return changed
