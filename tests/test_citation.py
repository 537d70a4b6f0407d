"""The book's BibTeX is valid and computed; CHANGELOG.md is the pinned verdicts' history
(the book's pins: ``tests/test_default_pins.py``)."""
from __future__ import annotations

import subprocess
import tomllib

import pytest
from pybtex.database import parse_string

from ldp_companion.edition import changelog, citation
from ldp_companion.edition.changelog import Pinning
from ldp_companion.execution import runner


def test_bibtex_parses_and_names_the_version_every_chapter_and_paper():
    text = citation.bibtex()
    entries = parse_string(text, "bibtex").entries
    version = tomllib.loads((runner.REPO / "pyproject.toml").read_text())["project"]["version"]
    assert entries["ldp_companion"].fields["version"] == version
    chapters = [k for k in entries if k.startswith("ldp_companion_")]
    assert len(chapters) == 5
    assert entries["ldp_companion_hiera"].fields["chapter"] == "5"
    assert "HierA" in entries["ldp_companion_hiera"].fields["title"]
    assert {"yuan2025tldp", "yang2021tvg", "zhao2020ldpfl", "habib2024spof",
            "hao2023hiera"} <= set(entries)
    assert "\\&" in entries["ldp_companion_hiera"].fields["note"]  # Hao, Wu \& Wan


def test_a_chapter_heading_change_reaches_its_entry(monkeypatch):
    monkeypatch.setattr(citation, "_heading", lambda chapter: ("5", "A renamed chapter"))
    entry = citation.chapter_entry(citation.metadata(), "05-hiera", 2026)
    assert "{{A renamed chapter}}" in entry


def _pinning(commit, pins, version="0.1.0", subject="why"):
    return Pinning(commit, "2026-11-26", subject, version, pins)


def test_changelog_says_which_verdicts_changed_and_why():
    first = _pinning("a" * 40, {"05-hiera": {"t2": "holds", "t3": "fails"}}, subject="pin")
    second = _pinning("b" * 40, {"05-hiera": {"t2": "fails", "t3": "fails", "t4": "holds"}},
                      version="0.2.0", subject="Theorem 2 checked on the sent pair")
    text = changelog.markdown([first, second])
    assert text.index("## Version 0.2.0") < text.index("## Version 0.1.0")
    assert "Why: Theorem 2 checked on the sent pair" in text
    assert "**05-hiera** `t2`: holds → fails" in text
    assert "**05-hiera** `t4`: absent → holds" in text
    assert "`t3`" not in text  # unchanged
    assert "2 verdicts pinned (1 holds, 1 fails)" in text


def test_changelog_matches_the_repository_history():
    if not (runner.REPO / ".git").exists():
        pytest.skip("not a git checkout")
    shallow = subprocess.run(["git", "-C", str(runner.REPO), "rev-parse",
                              "--is-shallow-repository"], capture_output=True, text=True)
    if shallow.stdout.strip() == "true":
        pytest.skip("a shallow clone lacks the history")
    expected = changelog.text(runner.REPO)  # the book's pins, then the older smoke pins
    assert (runner.REPO / "CHANGELOG.md").read_text() == expected, (
        "CHANGELOG.md is stale: run python -m ldp_companion changelog and commit it")
