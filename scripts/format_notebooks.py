"""Format the code cells of the chapters (notebooks/*.md) with black at the page's code width.

The book shows 90 characters of code per line without scrolling (12-px code font in a 652-px
code box), so cells are formatted to 88 columns, long strings split too (black's
``string_processing``); a longer line scrolls. The parameters cell keeps its hand-aligned
comments (it is a table, generated from the chapter's spec). Run: ``make format``.
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

WIDTH = 88
CELL = re.compile(r"(```\{code-cell\} ipython3\n)((?::[^\n]*\n)*\n?)(.*?)(```)", re.S)


def format_cell(match: re.Match) -> str:
    opening, options, code, closing = match.groups()
    if "parameters" in options or not code.strip():
        return match.group(0)
    cmd = [sys.executable, "-m", "black", "-q", f"--line-length={WIDTH}", "--preview",
           "--enable-unstable-feature", "string_processing", "-"]
    out = subprocess.run(cmd, input=code, capture_output=True, text=True, check=True).stdout
    return opening + options + out + closing


def main(paths: list[str]) -> None:
    for path in map(Path, paths or sorted(Path("notebooks").glob("*.md"))):
        text = path.read_text()
        new = CELL.sub(format_cell, text)
        if new != text:
            path.write_text(new)
            print(f"formatted {path}")


if __name__ == "__main__":
    main(sys.argv[1:])
