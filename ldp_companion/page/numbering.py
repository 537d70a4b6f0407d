"""Figure and table numbers: "Figure 3.2", "Table 5.1".

A chapter's figures and tables are numbered in the order the run shows them, prefixed by the
chapter's number (``1``–``5``, ``A``, ``B``), so that the text and the captions can say
"Figure 3.2". The runner tells the chapter's kernel which chapter it runs through the
environment variable :data:`~ldp_companion.verdicts.run_records.CHAPTER_ENV`; a notebook opened by
hand numbers "Figure 1", ...
"""
from __future__ import annotations

import itertools
import os
import re

from ldp_companion.verdicts.run_records import CHAPTER_ENV

__all__ = ["chapter_number", "next_number"]

_COUNTERS: dict[str, itertools.count] = {}


def chapter_number(stem: str) -> str:
    """``"3"`` for ``03-pm-three-outputs``, ``"A"`` for ``A-audit``, ``""`` for a page that
    is not a chapter (``verdicts``)."""
    found = re.match(r"(\d+|[A-Z])-", stem)
    if not found:
        return ""
    head = found.group(1)
    return str(int(head)) if head.isdigit() else head


def next_number(kind: str) -> str:
    """The next number of a ``kind`` ("Figure", "Table") in this run: ``"Figure 3.2"`` in a
    chapter, ``"Figure 2"`` elsewhere."""
    count = next(_COUNTERS.setdefault(kind, itertools.count(1)))
    prefix = chapter_number(os.environ.get(CHAPTER_ENV, ""))
    return f"{kind} {prefix}.{count}" if prefix else f"{kind} {count}"
