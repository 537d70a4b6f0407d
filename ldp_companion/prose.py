"""Typed numbers in a chapter's prose: the numbers a run computes belong glued from the run.

A number typed into a page's prose goes stale when the code changes: a wrong constant
leaves "ε ≈ 781" standing while the run now says 390. :func:`typed_numbers` finds every
number in the prose of a MyST chapter that is neither

* glued from the run (``{glue}`name```, ``{glue:text}`name:.3f```, a ``{glue:md}`` block),
* marked as a quote of the paper or as a setting: inside quotation marks ("about 90 % F1")
  or inside an ``{abbr}`` role whose title says where it comes from
  (``{abbr}`256 (the paper's Δ for 8-bit images)```), nor
* part of what is not a value: code cells and inline code, math, labels, links, citations,
  item references ("Theorem 2", "Fig. 3", "Eq. (22)", "Table V"), list numbering, years.

Only numbers a run could compute are looked for: decimals, percentages, powers of ten,
and integers of three digits or more. Small integers (a sensitivity of 2, 30 attributes,
3 runs) are counts and settings, not results.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["TypedNumber", "typed_numbers", "NUMBER"]

#: A number a run could compute: a decimal, a percentage, a power of ten, a number of three
#: or more digits (with thousands separators), a mantissa × 10ⁿ or an e-notation.
NUMBER = re.compile(
    r"(?<![\w.,])[−-]?(?:"
    r"\d+(?:\.\d+)?\s?×\s?10[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]*"
    r"|10[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+"
    r"|\d+(?:\.\d+)?e[−-]?\d+"
    r"|\d+\.\d+(?:\s?%)?"
    r"|\d{1,3}(?:,\d{3})+(?:\s?%)?"
    r"|\d{3,}(?:\s?%)?"
    r"|\d+\s?%"
    r")(?![\w])")

_ITEM_WORDS = (r"Theorems?|Thms?\.|Lemmas?|Propositions?|Props?\.|Corollary|Corollaries|Cor\.|"
               r"Definitions?|Defs?\.|Alg\.|Algs\.|Algorithms?|Figs?\.|Figures?|Tables?|"
               r"Eqs?\.|Equations?|Sec\.|Secs\.|Sections?|§|App\.|Appendix|Appendices|"
               r"Remarks?|Chapters?|chapters?|Steps?|steps?|Exercises?|Parts?|parts?|"
               r"Examples?|Assumptions?|Remark|Types?")
_ITEM_NUMBER = r"\(?[0-9IVXA-Z]+(?:[.\-–][0-9IVXA-Za-z]+)*[a-z]?\)?(?![A-Za-z])"
_ITEM = re.compile(rf"(?:{_ITEM_WORDS})\s*{_ITEM_NUMBER}"
                   rf"(?:\s*(?:,|–|-|and|to|/|or)\s*{_ITEM_NUMBER})*")

# Spans that are not prose, in the order they are masked.
_MASKS = [
    re.compile(r"\A---\n.*?\n---\n", re.S),                       # front matter
    re.compile(r"^(`{3,})\{code-cell\}.*?^\1\s*$", re.S | re.M),  # code cells
    re.compile(r"^(`{3,})\{glue(?::\w+)?\}.*?^\1\s*$", re.S | re.M),  # glued blocks
    re.compile(r"^(`{3,})\{math\}.*?^\1\s*$", re.S | re.M),       # math blocks
    re.compile(r"^(`{3,})(?!\{).*?^\1\s*$", re.S | re.M),         # plain code blocks
    re.compile(r"<!--.*?-->", re.S),                              # HTML comments
    re.compile(r"\$\$.*?\$\$", re.S),                             # display math
    re.compile(r"(?<![\\$])\$[^$\n]+?\$"),                        # inline math
    re.compile(r"\{(?:glue(?::\w+)?|math|cite(?::\w+)?|numref|ref|doc|eq|prf:ref|"
               r"download|term)\}`[^`]*`"),                       # roles that hold no prose
    re.compile(r"`[^`\n]*`"),                                     # inline code
    re.compile(r"^\([^)\s]+\)=\s*$", re.M),                       # labels
    re.compile(r"^\s*:[\w-]+:.*$", re.M),                         # directive options
    re.compile(r"\]\([^)]*\)"),                                   # link targets
    re.compile(r"^\s*(?:\d+\.|[-*])\s", re.M),                    # list markers
    _ITEM,                                                        # "Theorem 2", "Fig. 3"
    re.compile(r"\b(?:1[89]|20)\d\d[a-z]?\b"),                    # years
]
_INLINE_CODE = 9  # index of the inline-code mask: {abbr} markers are read before it
_ABBR = re.compile(r"\{abbr\}`([^`]*)`")
_QUOTE = re.compile(r"“[^”]*”|\"[^\"\n]*\"")


@dataclass(frozen=True)
class TypedNumber:
    """A number typed into prose: its line (1-based), the number, and the line's text."""

    line: int
    number: str
    text: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.number!r} in {self.text.strip()[:100]!r}"


def _blank(match: re.Match) -> str:
    """The match replaced by spaces, keeping its line breaks (so line numbers survive)."""
    return re.sub(r"[^\n]", " ", match.group(0))


def _marked(source: str) -> tuple[str, list[str]]:
    """``source`` with every ``{abbr}`` role blanked, and the roles that give no title (a
    marker must say where its number comes from)."""
    untitled = [m.group(1) for m in _ABBR.finditer(source)
                if not re.search(r"\([^)]*\w[^)]*\)\s*$", m.group(1))]
    return _ABBR.sub(_blank, source), untitled


def typed_numbers(source: str) -> list[TypedNumber]:
    """Every number in the prose of a MyST page ``source`` that is neither glued nor marked
    (see the module's docstring), in page order.

    Raises
    ------
    ValueError
        If an ``{abbr}`` marker gives no title (``{abbr}`256``` instead of
        ``{abbr}`256 (the paper's Δ)```).
    """
    if not isinstance(source, str):
        raise TypeError(f"source must be the page's text, got {type(source).__name__}")
    text = source
    for mask in _MASKS[:_INLINE_CODE]:
        text = mask.sub(_blank, text)
    text, untitled = _marked(text)
    for mask in _MASKS[_INLINE_CODE:-2]:
        text = mask.sub(_blank, text)
    if untitled:
        raise ValueError(f"{{abbr}} markers without a title saying where the number comes "
                         f"from: {untitled}")
    text = _QUOTE.sub(_blank, text)
    for mask in _MASKS[-2:]:
        text = mask.sub(_blank, text)
    lines = source.splitlines()
    out = []
    for i, line in enumerate(text.splitlines()):
        out.extend(TypedNumber(i + 1, m.group(0), lines[i]) for m in NUMBER.finditer(line))
    return out
