"""MyST to plain Markdown, for the notebooks a course hands out.

The book's pages are MyST: directives (``:::{exercise}``, ``:::{prf:theorem}``,
``::::{admonition}``), roles (``{ref}``, ``{cite:t}``, ``{glue:text}``, ``{abbr}``) and labels
(``(pm-sec)=``). Plain Jupyter shows them as written. :func:`render` turns them into what
Jupyter's Markdown shows well: a directive becomes a quoted block with a bold title, a citation
"Author et al. (2020)", a cross-reference the title of the section it points to, a glued value
a note that the run computes it, a link to another page of the book the chapter's notebook
or the link's text, and labels disappear. Mathematics (``$...$``, ``$$...$$``)
stays as it is.
"""
from __future__ import annotations

import re
from pathlib import Path

__all__ = ["render", "section_titles", "bibliography", "BIB"]

#: The book's bibliography, shipped with the package.
BIB = Path(__file__).resolve().parents[1] / "references.bib"

_LABEL = re.compile(r"^\(([^)\s]+)\)=\s*$", re.M)
_FENCE = re.compile(r"^(:{3,}|`{3,})\{([\w:-]+)\}[ \t]*(.*)$")
_ROLE = re.compile(r"\{([\w:-]+)\}`([^`]*)`")
_TITLES = {"exercise": "Exercise", "solution": "Solution", "solution-start": "Solution",
           "note": "Note", "tip": "Tip", "warning": "Warning", "important": "Important",
           "prf:theorem": "Theorem", "prf:lemma": "Lemma", "prf:definition": "Definition",
           "prf:algorithm": "Algorithm", "prf:proof": "Proof", "prf:proposition": "Proposition",
           "prf:corollary": "Corollary", "prf:remark": "Remark", "prf:example": "Example"}


def section_titles(text: str) -> dict[str, str]:
    """``label -> title`` for every ``(label)=`` of a MyST page: the heading that follows it,
    or the title of the directive whose ``:label:`` it is."""
    titles = {}
    lines = text.splitlines()
    for i, line in enumerate(lines):
        found = _LABEL.match(line)
        if found:
            nxt = next((x for x in lines[i + 1:] if x.strip()), "")
            titles[found.group(1)] = re.sub(r"^#+\s*", "", nxt).strip()
        fence = _FENCE.match(line)
        if fence:
            for opt in lines[i + 1:i + 6]:
                label = re.match(r"^:label:\s*(\S+)", opt)
                if label:
                    kind = _TITLES.get(fence.group(2), fence.group(2).split(":")[-1].title())
                    titles[label.group(1)] = f"{kind} ({fence.group(3).strip()})" \
                        if fence.group(3).strip() else kind
                    break
    return {k: _plain_roles(v, {}, {}) for k, v in titles.items()}


def bibliography(path: Path = BIB) -> dict[str, tuple[str, str]]:
    """``key -> (authors as cited, year)`` from a BibTeX file ("Zhao et al.", "2020")."""
    out = {}
    text = path.read_text() if Path(path).is_file() else ""
    for key, body in re.findall(r"@\w+\{([^,]+),(.*?)\n\}", text, re.S):
        author = re.search(r"author\s*=\s*\{(.*)\},?\s*$", body, re.M)
        year = re.search(r"year\s*=\s*\{?(\d{4})", body)
        names = [a.split(",")[0].strip()
                 for a in (author.group(1) if author else "").split(" and ")]
        names = [re.sub(r"[{}\\']", "", n) for n in names if n]
        cited = (names[0] if len(names) == 1 else f"{names[0]} and {names[1]}" if len(names) == 2
                 else f"{names[0]} et al.") if names else key
        out[key.strip()] = (cited, year.group(1) if year else "")
    return out


def _cite(kind: str, keys: str, bib: dict) -> str:
    parts = []
    for key in (k.strip() for k in keys.split(",")):
        who, year = bib.get(key, (key, ""))
        parts.append((f"{who} ({year})" if kind == "cite:t" else f"{who} {year}").strip())
    text = "; ".join(parts)
    return text if kind == "cite:t" else f"({text})"


def _plain_roles(text: str, titles: dict, bib: dict) -> str:
    def role(m: re.Match) -> str:
        kind, body = m.group(1), m.group(2)
        shown = re.match(r"^(.*?)\s*<([^>]+)>$", body, re.S)
        if kind in ("ref", "numref", "prf:ref", "doc", "download", "eq"):
            if shown:
                return shown.group(1)
            return titles.get(body, body.replace("-", " "))
        if kind.startswith("cite"):
            return _cite(kind, body, bib)
        if kind == "abbr":
            return re.sub(r"\s*\([^()]*\)\s*$", "", body)
        if kind.startswith("glue"):
            return f"*[{body.split(':')[0]}: computed when the notebook runs]*"
        if kind == "math":
            return f"${body}$"
        return body
    return _ROLE.sub(role, text)


_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
_CHAPTER = re.compile(r"^(\d\d|[A-Z])-[\w-]+$")


def _plain_links(text: str) -> str:
    """A MyST link to another page of the book (``[the Verdicts page](verdicts)``, no file
    extension) or to a label (``[...](byom-write)``) leads nowhere from a notebook: one to a
    chapter becomes a link to its notebook (``A-audit.ipynb``, handed out beside it), any
    other the link's text and "(in the book)". Links with a scheme, an anchor or a file
    name stay."""
    def link(m: re.Match) -> str:
        text, target = m.group(1), m.group(2)
        if re.match(r"^([a-z][\w+.-]*:|#|\.|/)", target) or "." in target.split("#")[0]:
            return m.group(0)
        page = target.split("#")[0]
        if _CHAPTER.match(page):
            return f"[{text}]({page}.ipynb)"
        return f"{text} (in the book)"
    return _LINK.sub(link, text)


def _quote(title: str, body: list[str]) -> list[str]:
    lines = [f"**{title}.**" if title else ""] + body
    return [f"> {line}".rstrip() for line in lines if line is not None]


def _blocks(lines: list[str], titles: dict, bib: dict) -> list[str]:
    out, i = [], 0
    while i < len(lines):
        fence = _FENCE.match(lines[i])
        if not fence:
            out.append(lines[i])
            i += 1
            continue
        marker, kind, arg = fence.groups()
        if kind == "code-cell":  # not Markdown: left to jupytext
            out.append(lines[i])
            i += 1
            continue
        j = i + 1
        while j < len(lines) and lines[j].strip() != marker:
            j += 1
        body = lines[i + 1:j]
        while body and re.match(r"^:[\w-]+:", body[0].strip()):  # directive options
            body = body[1:]
        i = j + 1
        if kind in ("glue:md", "glue:figure", "glue"):
            out.append(f"*[{arg.split(':')[0]}: computed when the notebook runs; see the "
                       "cells' output]*")
            continue
        if kind == "math":
            out += ["$$", *body, "$$"]
            continue
        if kind in ("solution-end",):
            continue
        title = (arg.strip() if kind == "admonition"
                 else _TITLES.get(kind, kind.split(":")[-1].title()))
        if kind not in ("admonition",) and arg.strip() and kind != "solution-start":
            title = f"{title} ({arg.strip()})"
        out += _quote(title, _blocks(body, titles, bib))
    return out


def render(text: str, titles: dict | None = None, bib: dict | None = None) -> str:
    """One Markdown cell of a MyST page as plain Markdown (see the module's docstring).

    Parameters
    ----------
    text : str
        The cell's MyST source.
    titles : dict, optional
        ``label -> title`` of the whole page (:func:`section_titles`), so that a reference to
        another cell's section reads as its title.
    bib : dict, optional
        :func:`bibliography`; read from the book's BibTeX file by default.
    """
    titles = section_titles(text) if titles is None else titles
    bib = bibliography() if bib is None else bib
    text = _LABEL.sub("", text)
    lines = _blocks(text.splitlines(), titles, bib)
    text = _plain_links(_plain_roles("\n".join(lines), titles, bib))
    return re.sub(r"\n{3,}", "\n\n", text).strip("\n")
