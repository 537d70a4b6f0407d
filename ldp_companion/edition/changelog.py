"""``CHANGELOG.md``: for each version, which verdicts of the book changed and why, from the
book's pinned verdicts.

The verdicts the book shows (its default build's) are pinned in
``tests/pinned/default/<chapter>.json`` (:mod:`ldp_companion.verdicts.pins`); a verdict changes only
when someone re-pins (``python -m ldp_companion pin``) and commits, since ``make book`` fails on a
difference. :func:`history` reads every commit that changed those pins from git; :func:`markdown`
writes, per package version (read from ``pyproject.toml`` at that commit), each such commit with
its date, its message (the why) and the verdicts it changed, first pins counted per verdict.
Earlier versions pinned only the smoke run's verdicts (``tests/pinned/<chapter>.json``, still
the chapter tests' guard); their history up to the first book pins is kept as a last, separate
section (:func:`smoke_history`). The book shows the file (the Changelog page);
``python -m ldp_companion changelog`` rewrites it (:func:`write`), and a test fails when it does
not match the repository's history (:func:`text`).
"""
from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ldp_companion.verdicts.ledger import VERDICTS, verdict_changes
from ldp_companion.verdicts.pins import BOOK_PINNED, SMOKE_PINNED

__all__ = ["PINNED", "Pinning", "history", "smoke_history", "markdown", "text", "write"]

#: Where the book's pinned verdicts live, relative to the repository.
PINNED = BOOK_PINNED
_HEAD = ("# Changelog\n\nWhich verdicts of the book changed in each version, and why. Generated "
         "from the\ngit history of the book's pinned verdicts, those of its default build "
         "(`tests/pinned/default/`,\nwritten by `python -m ldp_companion pin`), by "
         "`python -m ldp_companion changelog`; do not edit\nby hand. Earlier versions pinned "
         "only the smoke run's verdicts (`tests/pinned/<chapter>.json`);\ntheir history is the "
         "last section.\n")
_OLDER = ("## Earlier: the smoke run's verdicts\n\nBefore the book's own verdicts were pinned, "
          "only those of the smoke run (the tests'\nsmall profile, `tests/pinned/<chapter>.json`) "
          "were; these are their changes, which need not be\nthe book's.\n")


@dataclass(frozen=True)
class Pinning:
    """One commit that changed pinned verdicts: chapter -> claim -> verdict, after it."""

    commit: str
    date: str
    subject: str
    version: str
    pins: dict


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"git {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout


def _version(root: Path, commit: str) -> str:
    text = _git(root, "show", f"{commit}:pyproject.toml")
    found = re.search(r'^version\s*=\s*"([^"]+)"', text, re.M)
    return found.group(1) if found else "unknown"


def _pins_at(root: Path, commit: str, pinned: str) -> dict:
    names = _git(root, "ls-tree", "--name-only", commit, f"{pinned}/").split()  # not recursive
    return {Path(n).stem: json.loads(_git(root, "show", f"{commit}:{n}"))
            for n in names if n.endswith(".json")}


def _pinnings(root: Path, pinned: str, *paths: str) -> list[Pinning]:
    log = _git(root, "log", "--reverse", "--format=%H%x09%ad%x09%s", "--date=short", "--",
               *paths)
    out = []
    for line in log.splitlines():
        commit, day, subject = line.split("\t", 2)
        out.append(Pinning(commit, day, subject, _version(root, commit),
                           _pins_at(root, commit, pinned)))
    return out


def history(root: Path) -> list[Pinning]:
    """Every commit that changed the book's pins (``tests/pinned/default``), oldest first."""
    return _pinnings(Path(root), BOOK_PINNED, BOOK_PINNED)


def smoke_history(root: Path, until: str | None = None) -> list[Pinning]:
    """Every commit that changed the smoke pins (``tests/pinned/*.json``) before ``until`` (a
    commit, not included: the one that first pinned the book's verdicts), oldest first."""
    root = Path(root)
    out = _pinnings(root, SMOKE_PINNED, SMOKE_PINNED, f":(exclude){BOOK_PINNED}")
    if until is None:
        return out
    before = set(_git(root, "rev-list", until).split()) - {until}
    return [p for p in out if p.commit in before]


def _counts(pins: dict) -> str:
    tally = {v: sum(x == v for x in pins.values()) for v in VERDICTS}
    return ", ".join(f"{n} {v}" for v, n in tally.items() if n)


def _section(before: dict, p: Pinning, level: str = "###") -> list[str]:
    lines = [f"{level} {p.date} · `{p.commit[:10]}`", "", f"Why: {p.subject}", ""]
    for chapter in sorted(set(before) | set(p.pins)):
        old, new = before.get(chapter, {}), p.pins.get(chapter, {})
        if not old and new:
            lines.append(f"- **{chapter}**: {len(new)} verdicts pinned ({_counts(new)})")
            continue
        for claim, a, b in verdict_changes(old, new):
            lines.append(f"- **{chapter}** `{claim}`: {a} → {b}")
    return lines + [""]


def _versions(pinnings: list[Pinning], level: str) -> list[str]:
    """Per version, newest first, its commits' sections, newest first."""
    sections, before = [], {}
    for p in pinnings:
        sections.append((p.version, _section(before, p, level + "#")))
        before = p.pins
    lines = []
    for version in dict.fromkeys(v for v, _ in reversed(sections)):
        lines += [f"{level} Version {version}", ""]
        for v, body in reversed(sections):
            if v == version:
                lines += body
    return lines


def markdown(pinnings: list[Pinning], older: list[Pinning] = ()) -> str:
    """The changelog of the book's pins ``pinnings``, newest version first (within a version,
    newest commit first), then, when given, the ``older`` smoke pins' history the same way."""
    lines = [_HEAD, *_versions(pinnings, "##")]
    if not pinnings:
        lines.append("No verdict of the book's default build is pinned yet.\n")
    if older:
        lines += [_OLDER, *_versions(list(older), "###")]
    return "\n".join(lines).rstrip() + "\n"


def text(root: Path) -> str:
    """The changelog of the repository at ``root``, from its git history."""
    book = history(root)
    return markdown(book, smoke_history(root, book[0].commit if book else None))


def write(root: Path) -> Path:
    """Rewrite ``CHANGELOG.md`` at ``root`` from its git history."""
    path = Path(root) / "CHANGELOG.md"
    path.write_text(text(Path(root)))
    return path
