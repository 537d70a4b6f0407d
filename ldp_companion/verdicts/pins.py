"""The book's pinned verdicts: what the default build's ledgers must say, claim by claim.

Two sets of pins, both ``chapter -> {claim id: verdict}`` files, one JSON per chapter:

* ``tests/pinned/<chapter>.json``: the smoke run's verdicts, which the chapter tests check
  (``tests/test_chapters.py``; ``LDP_COMPANION_PIN=1`` rewrites them);
* ``tests/pinned/default/<chapter>.json`` (:data:`BOOK_PINNED`): the verdicts the published book
  shows, those of the ``default`` profile at seed 0. ``python -m ldp_companion pin`` writes them
  from a build's ledgers (``book/generated/<chapter>.ledger.json``, which ``make book`` writes);
  ``python -m ldp_companion pin --check``, the last step of ``make book``, fails with one line
  per claim whose verdict differs (:func:`check`). ``CHANGELOG.md`` is their git history
  (:mod:`ldp_companion.edition.changelog`).

Imports only the ledger and file helpers (a shared block).
"""
from __future__ import annotations

import json
from pathlib import Path

from ldp_companion.files import read_json
from ldp_companion.verdicts.ledger import load_ledgers, verdict_changes

__all__ = ["SMOKE_PINNED", "BOOK_PINNED", "PROFILE", "SEED", "build_verdicts", "read_pins",
           "write_pins", "check", "check_message", "pin_changes"]

#: The smoke run's pins, relative to the repository (checked by the chapter tests).
SMOKE_PINNED = "tests/pinned"
#: The book's pins, the default build's verdicts, relative to the repository.
BOOK_PINNED = "tests/pinned/default"
#: The build the book's pins are of: the published book's profile and seed.
PROFILE, SEED = "default", 0
#: The commands a reader runs when a difference is intended.
REPIN = ("python -m ldp_companion pin (then commit tests/pinned/default/, and run "
         "python -m ldp_companion changelog and commit CHANGELOG.md)")


def pin_changes(pinned: dict, got: dict) -> list[str]:
    """One line per claim whose verdict differs from its pin, or that is new or gone:
    ``"claim: pinned X, now Y"`` (``absent`` for a claim only one side has)."""
    return [f"{c}: pinned {p}, now {g}" for c, p, g in verdict_changes(pinned, got)]


def build_verdicts(build: str | Path, chapters: list[str] | None = None) -> dict[str, dict]:
    """``chapter -> {claim id: verdict}`` (in the ledger's order) from the ledgers of a book
    build in ``build`` (``book/generated`` after ``make book``).

    Parameters
    ----------
    build : path
        The folder the build wrote its ``<chapter>.ledger.json`` and ``<chapter>.run.json`` to.
    chapters : list of str, optional
        Chapters the build must hold (the book's chapters); default: those it holds.

    Raises
    ------
    FileNotFoundError
        ``build`` holds no ledger, or not one of ``chapters`` (naming it and ``make book``).
    ValueError
        A chapter's run record says it ran at another profile or seed than :data:`PROFILE`,
        :data:`SEED` (``make book PROFILE=smoke``): its verdicts are not the book's.
    """
    build = Path(build)
    claims = load_ledgers(build) if build.is_dir() else None
    if claims is None or claims.empty:
        raise FileNotFoundError(f"no claims ledger (*.ledger.json) in {build}: build the book "
                                "first (make book)")
    out = {}
    for chapter, rows in claims.groupby("chapter", sort=True):
        out[chapter] = dict(zip(rows["claim_id"], rows["verdict"]))
    missing = [c for c in (chapters or []) if c not in out]
    if missing:
        raise FileNotFoundError(f"{build} holds no ledger of {', '.join(missing)}: build the "
                                "whole book (make book)")
    for chapter in out:
        record = build / f"{chapter}.run.json"
        if not record.is_file():
            raise FileNotFoundError(f"{record} is missing: the ledger of {chapter} is not from a "
                                    "book build (make book)")
        params = read_json(record, "run record").get("parameters", {})
        got = (params.get("profile"), params.get("seed"))
        if got != (PROFILE, SEED):
            raise ValueError(f"{chapter} in {build} ran at profile {got[0]}, seed {got[1]}; the "
                             f"book's pins are of profile {PROFILE}, seed {SEED} (make book)")
    return out


def read_pins(folder: str | Path) -> dict[str, dict]:
    """``chapter -> {claim id: verdict}`` from the ``<chapter>.json`` files in ``folder``
    (empty when there is none)."""
    return {p.stem: json.loads(p.read_text()) for p in sorted(Path(folder).glob("*.json"))}


def write_pins(verdicts: dict[str, dict], folder: str | Path) -> list[Path]:
    """Write one ``<chapter>.json`` per chapter of ``verdicts`` into ``folder`` (the format
    of the smoke pins) and delete the pins of chapters ``verdicts`` lacks; the paths written."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob("*.json"):
        if stale.stem not in verdicts:
            stale.unlink()
    paths = []
    for chapter, pins in sorted(verdicts.items()):
        path = folder / f"{chapter}.json"
        path.write_text(json.dumps(pins, indent=1, ensure_ascii=False) + "\n")
        paths.append(path)
    return paths


def check(verdicts: dict[str, dict], pinned: dict[str, dict]) -> dict[str, list[str]]:
    """``chapter -> lines`` for every chapter whose verdicts differ from its pins (empty when
    the build says what the pins say): one line per changed, new or lost claim; a chapter
    with no pins, or with pins and no ledger, in one line."""
    out = {}
    for chapter in sorted(set(verdicts) | set(pinned)):
        if chapter not in pinned:
            out[chapter] = [f"not pinned ({len(verdicts[chapter])} claims in the build)"]
        elif chapter not in verdicts:
            out[chapter] = [f"pinned ({len(pinned[chapter])} claims), no ledger in the build"]
        elif lines := pin_changes(pinned[chapter], verdicts[chapter]):
            out[chapter] = lines
    return out


def check_message(changes: dict[str, list[str]], build: str | Path, pins: str | Path) -> str:
    """The failure message of :func:`check`'s differences: per chapter, its lines, then how
    to re-pin."""
    n = sum(len(v) for v in changes.values())
    lines = [f"{n} difference{'s' * (n != 1)} between the book's verdicts (the ledgers in "
             f"{build}) and their pins in {pins}:"]
    for chapter, diffs in changes.items():
        lines.append(f"{chapter}:")
        lines += [f"  {d}" for d in diffs]
    lines.append(f"If the change is intended, re-pin: {REPIN}.")
    return "\n".join(lines)
