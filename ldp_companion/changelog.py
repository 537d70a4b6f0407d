"""``CHANGELOG.md``: for each version, which verdicts changed and why, from the pinned verdicts.

The smoke run's verdicts of every chapter are pinned in ``tests/pinned/<chapter>.json``; a
verdict changes only when someone rewrites a pin and commits it (``tests/test_chapters.py``).
:func:`history` reads every commit that changed a pin from git; :func:`markdown` writes, per
package version (read from ``pyproject.toml`` at that commit), each such commit with its date,
its message (the why) and the verdicts it changed, first pins counted per verdict. The book
shows the file (the Changelog page); ``python -m ldp_companion changelog`` rewrites it, and a
test fails when it does not match the repository's history.
"""
from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ldp_companion.ledger import VERDICTS, verdict_changes

__all__ = ["PINNED", "Pinning", "history", "markdown", "write"]

#: Where the pinned verdicts live, relative to the repository.
PINNED = "tests/pinned"
_HEAD = ("# Changelog\n\nWhich verdicts of the book changed in each version, and why. Generated "
         "from the\ngit history of the pinned smoke-run verdicts (`tests/pinned/`) by\n"
         "`python -m ldp_companion changelog`; do not edit by hand.\n")


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


def _pins_at(root: Path, commit: str) -> dict:
    names = _git(root, "ls-tree", "--name-only", commit, f"{PINNED}/").split()
    return {Path(n).stem: json.loads(_git(root, "show", f"{commit}:{n}"))
            for n in names if n.endswith(".json")}


def history(root: Path) -> list[Pinning]:
    """Every commit that changed ``tests/pinned``, oldest first."""
    log = _git(root, "log", "--reverse", "--format=%H%x09%ad%x09%s", "--date=short", "--",
               PINNED)
    out = []
    for line in log.splitlines():
        commit, day, subject = line.split("\t", 2)
        out.append(Pinning(commit, day, subject, _version(root, commit), _pins_at(root, commit)))
    return out


def _counts(pins: dict) -> str:
    tally = {v: sum(x == v for x in pins.values()) for v in VERDICTS}
    return ", ".join(f"{n} {v}" for v, n in tally.items() if n)


def _section(before: dict, p: Pinning) -> list[str]:
    lines = [f"### {p.date} · `{p.commit[:10]}`", "", f"Why: {p.subject}", ""]
    for chapter in sorted(set(before) | set(p.pins)):
        old, new = before.get(chapter, {}), p.pins.get(chapter, {})
        if not old and new:
            lines.append(f"- **{chapter}**: {len(new)} verdicts pinned ({_counts(new)})")
            continue
        for claim, a, b in verdict_changes(old, new):
            lines.append(f"- **{chapter}** `{claim}`: {a} → {b}")
    return lines + [""]


def markdown(pinnings: list[Pinning]) -> str:
    """The changelog, newest version first (within a version, newest commit first)."""
    sections, before = [], {}
    for p in pinnings:
        sections.append((p.version, _section(before, p)))
        before = p.pins
    lines = [_HEAD]
    for version in dict.fromkeys(v for v, _ in reversed(sections)):
        lines += [f"## Version {version}", ""]
        for v, body in reversed(sections):
            if v == version:
                lines += body
    if not pinnings:
        lines.append("No verdict is pinned yet.\n")
    return "\n".join(lines).rstrip() + "\n"


def write(root: Path) -> Path:
    """Rewrite ``CHANGELOG.md`` at ``root`` from its git history."""
    path = Path(root) / "CHANGELOG.md"
    path.write_text(markdown(history(Path(root))))
    return path
