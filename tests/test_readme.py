"""The README is short and its commands work: every ``make`` target, every
``python -m ldp_companion`` command line (parsed as the command line would, its chapter names
resolved), every extra ``pip install`` names, every file a command names."""
from __future__ import annotations

import re
import shlex
import tomllib

import pytest

from ldp_companion.__main__ import parser
from ldp_companion.execution import runner

REPO = runner.REPO
MAX_README_LINES = 150
DOCS = ("README.md", "CONTRIBUTING.md")


def commands(markdown: str) -> list[str]:
    """The command lines of the ``bash`` blocks of ``markdown``, comments dropped."""
    blocks = re.findall(r"```bash\n(.*?)```", markdown, flags=re.S)
    lines = [line.split(" #", 1)[0].strip() for block in blocks for line in block.splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def problems(line: str) -> list[str]:
    """What is wrong with one command line of the README (empty: it works)."""
    words = shlex.split(line)
    makefile = (REPO / "Makefile").read_text()
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    out = []
    if words[0] == "make":
        out += [f"no make target {t!r}" for t in words[1:] if "=" not in t
                and not re.search(rf"^{re.escape(t)}:", makefile, flags=re.M)]
    elif "-m" in words and words[words.index("-m") + 1] == "ldp_companion":
        argv = words[words.index("-m") + 2:]
        try:
            args = parser().parse_args(argv)
        except SystemExit:
            return [f"python -m ldp_companion does not parse {argv}"]
        names = [args.chapter] if getattr(args, "chapter", None) else []
        names += getattr(args, "chapters", None) or []
        for name in names:
            try:
                runner.find_chapter(name)
            except ValueError as error:
                out.append(str(error))
    elif words[0] == "pip" and words[1] == "install":
        for spec in words[2:]:
            wanted = re.search(r"\[(.*)\]", spec)
            out += [f"no extra {e!r}" for e in (wanted.group(1).split(",") if wanted else [])
                    if e not in extras]
    elif "pytest" in words:
        out += [f"no file {w}" for w in words if w.startswith("tests/")
                and not (REPO / w.split("::")[0]).exists()]
    return out


@pytest.mark.parametrize("doc", DOCS)
def test_every_command_of_the_docs_works(doc):
    found = commands((REPO / doc).read_text())
    assert len(found) >= 5, f"{doc}: no commands found"
    bad = {line: p for line in found if (p := problems(line))}
    assert not bad, bad


def test_the_readme_is_short():
    lines = (REPO / "README.md").read_text().count("\n")
    assert lines <= MAX_README_LINES, f"README.md has {lines} lines"


def test_the_command_check_catches_a_wrong_command():
    assert problems("make bok")
    assert problems("python -m ldp_companion runn pm")
    assert problems("python -m ldp_companion run nosuchchapter --out runs/")
    assert problems('pip install "ldp_companion[gpu]"')
    assert problems(".venv/bin/python -m pytest tests/test_nothing.py -q")
    assert not problems("python -m ldp_companion data fetch tvg --profile paper")
    assert commands("```bash\nmake book   # the site\n# a comment\n```\n") == ["make book"]
