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


#: References with no DOI or arXiv id, and why.
NO_IDENTIFIER = {
    "gu2020idldp": "an ICDE 2020 paper; its DOI is in no offline source we could check",
    "yuan2025tldp": "an arXiv preprint; the copy we have does not print its id",
    "habib2024spof": "an arXiv preprint; the copy we have does not print its id",
}


def identifier_gaps(text: str) -> list[str]:
    """Keys of the entries of BibTeX ``text`` with neither a DOI nor an arXiv id (``eprint``,
    or "arXiv:" in the journal), apart from :data:`NO_IDENTIFIER`."""
    entries = parse_string(text, "bibtex").entries
    return [key for key, entry in entries.items()
            if not ({"doi", "eprint"} & {f.lower() for f in entry.fields})
            and "arxiv:" not in entry.fields.get("journal", "").lower()
            and key not in NO_IDENTIFIER]


def test_every_reference_has_a_doi_or_an_arxiv_id():
    text = (runner.REPO / "book" / "references.bib").read_text()
    assert identifier_gaps(text) == []
    assert set(NO_IDENTIFIER) <= set(parse_string(text, "bibtex").entries)
    bare = '@article{x, title = {T}, author = {A}, journal = {J}, year = {2020}}'
    assert identifier_gaps(bare) == ["x"]
    assert identifier_gaps(bare.replace("year", "eprint = {2001.00001}, year")) == []


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
