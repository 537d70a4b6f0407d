"""How to cite the book and each chapter: BibTeX computed from ``CITATION.cff`` and the chapters.

:func:`bibtex` writes one ``@software`` entry for the book (title, authors, version and licence
from ``CITATION.cff``) and, per chapter, an ``@incollection`` entry with the chapter's title
(its page heading) and the paper it is a companion to (its reference in ``book/references.bib``,
which a citing author should cite as well). The Reproducibility page shows them; the test
parses them with pybtex.
"""
from __future__ import annotations

import re
from datetime import date
from pathlib import Path

from ldp_companion.edition import book
from ldp_companion.execution import runner

__all__ = ["bibtex", "book_entry", "chapter_entry", "paper_entry", "metadata"]


def metadata(root: Path = runner.REPO) -> dict:
    """``CITATION.cff`` as a dict (title, authors, version, license, ...)."""
    import yaml

    return yaml.safe_load((Path(root) / "CITATION.cff").read_text())


def _authors(meta: dict) -> str:
    names = []
    for a in meta.get("authors", []):
        if "name" in a:
            names.append("{" + a["name"] + "}")  # an organisation: braces keep it whole
        else:
            names.append(f"{a.get('family-names', '')}, {a.get('given-names', '')}".strip(", "))
    return " and ".join(names)


def _field(name: str, value) -> str:
    return f"  {name:<9} = {{{value}}},"


def book_entry(meta: dict, year: int) -> str:
    """The book's ``@software`` entry."""
    lines = ["@software{ldp_companion,", _field("title", "{" + meta["title"] + "}"),
             _field("author", _authors(meta)), _field("year", year),
             _field("version", meta["version"]), _field("license", meta.get("license", ""))]
    if meta.get("repository-code"):
        lines.append(_field("url", meta["repository-code"]))
    return "\n".join(lines) + "\n}"


def _heading(chapter: str) -> tuple[str, str]:
    """(number, title) of a chapter from its page's first heading: ("5", "HierA: ...")."""
    text = runner.find_chapter(chapter).read_text()
    found = re.search(r"^# (?:(\d+|[A-Z])\.\s+)?(.+)$", text, re.M)
    return (found.group(1) or "", found.group(2).strip())


def _paper_key(chapter: str) -> str | None:
    text = runner.find_chapter(chapter).read_text()
    found = re.search(r"\{cite:[tp]\}`([^`,]+)`", text)
    return found.group(1) if found else None


def chapter_entry(meta: dict, chapter: str, year: int) -> str:
    """A chapter's ``@incollection`` entry (key ``ldp_companion_<package>``)."""
    number, title = _heading(chapter)
    key = "ldp_companion_" + book.PACKAGES[chapter].__name__.rsplit(".", 1)[-1]
    paper = book.ITEMS[chapter].paper
    cite = _paper_key(chapter)
    note = (f"Companion chapter to {paper}".replace("&", r"\&")
            + (f"; cite the paper too ({cite}, below)" if cite else ""))
    lines = [f"@incollection{{{key},", _field("title", "{" + title + "}"),
             _field("booktitle", "{" + meta["title"] + "}"), _field("chapter", number),
             _field("author", _authors(meta)), _field("year", year),
             _field("edition", f"version {meta['version']}"), _field("note", note)]
    return "\n".join(lines) + "\n}"


def paper_entry(key: str, root: Path = runner.REPO) -> str | None:
    """The entry ``key`` of ``book/references.bib`` as written there (None if absent)."""
    text = (Path(root) / "book" / "references.bib").read_text()
    found = re.search(r"^@\w+\{" + re.escape(key) + r",.*?^\}", text, re.M | re.S)
    return found.group(0) if found else None


def bibtex(chapters: list[str] | None = None, year: int | None = None,
           root: Path = runner.REPO) -> str:
    """The book's entry, one per chapter (default: the five paper chapters), then the papers'
    own entries (from ``book/references.bib``)."""
    meta = metadata(root)
    year = year or date.today().year
    chapters = chapters if chapters is not None else [c for c in book.ITEMS if c[0].isdigit()]
    papers = [paper_entry(k, root) for k in dict.fromkeys(map(_paper_key, chapters)) if k]
    return "\n\n".join([book_entry(meta, year)]
                       + [chapter_entry(meta, c, year) for c in chapters]
                       + [p for p in papers if p])
