"""The package's layout rule: shared blocks at the top, one subpackage per chapter, nothing
imports upward.

* shared blocks (``mechanisms/``, ``tensor/``, ``audit``, ``ledger``, ``profiles``, ...) import
  only shared blocks;
* a chapter package (``pm/``, ``hiera/``, ...) imports shared blocks and itself, never another
  chapter;
* only :mod:`ldp_companion.book`, :mod:`ldp_companion.planning` (which projects every
  chapter's runs from its parameters), :mod:`ldp_companion.cards` (each paper's reproduction
  card), :mod:`ldp_companion.citation` (the BibTeX of every chapter), appendix C's
  :mod:`ldp_companion.compare` (which compares the papers' mechanisms) and the command line
  sit above the chapters;
* a chapter notebook imports shared blocks and its own package only.
"""
from __future__ import annotations

import ast
from pathlib import Path

import jupytext
import pytest

from ldp_companion import book, runner

PACKAGE = runner.REPO / "ldp_companion"
CHAPTER_PACKAGES = {m.__name__.split(".")[1] for m in book.PACKAGES.values()}
TOP = {"__main__", "book", "planning", "cards", "citation", "compare"}


def layer(module: str) -> str:
    """``"top"``, ``"chapter:<name>"`` or ``"shared"`` for a dotted ``ldp_companion`` module."""
    parts = module.split(".")
    if len(parts) < 2:
        return "shared"  # the package's __init__
    if parts[1] in TOP:
        return "top"
    if parts[1] in CHAPTER_PACKAGES:
        return f"chapter:{parts[1]}"
    return "shared"


def imported_modules(source: str, module: str) -> list[str]:
    """Every ``ldp_companion`` module that ``source`` (the code of ``module``) imports."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative import
                pkg = module.split(".")[: -node.level]
                base = ".".join(pkg + ([base] if base else []))
            out += [f"{base}.{a.name}" for a in node.names] if base == "ldp_companion" else [base]
    return [m for m in out if m == "ldp_companion" or m.startswith("ldp_companion.")]


def violations(module: str, imports: list[str]) -> list[str]:
    """The imports of ``module`` that break the layout rule."""
    own = layer(module)
    bad = []
    for target in imports:
        theirs = layer(target)
        if own == "top" or theirs == "shared" or theirs == own:
            continue
        bad.append(f"{module} ({own}) imports {target} ({theirs})")
    return bad


def package_modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        name = ".".join(p for p in rel.parts if p != "__init__")
        yield name, path


def test_no_upward_or_sideways_import_in_the_package():
    bad = [v for name, path in package_modules()
           for v in violations(name, imported_modules(path.read_text(), name))]
    assert not bad, "\n".join(bad)


def test_every_chapter_has_a_package_a_parameter_spec_and_an_item_list():
    stems = [p.stem for p in runner.chapters()]
    assert sorted(book.PACKAGES) == sorted(stems)
    assert sorted(book.PARAMS) == sorted(stems)
    assert sorted(book.ITEMS) == sorted(stems)
    for chapter, package in book.PACKAGES.items():
        assert package.__doc__, f"{package.__name__} needs a docstring naming its paper"
        folder = Path(package.__file__).parent
        assert (folder / "params.py").exists() and (folder / "items.py").exists()


@pytest.mark.parametrize("source", runner.chapters(), ids=lambda p: p.stem)
def test_notebook_imports_shared_blocks_and_its_own_package(source):
    own = layer(book.PACKAGES[source.stem].__name__)
    code = "\n".join(c.source for c in jupytext.read(source).cells if c.cell_type == "code")
    bad = [m for m in imported_modules(code, "notebook")
           if layer(m) not in ("shared", own)]
    assert not bad, f"{source.stem} imports {bad}"


def test_the_checker_catches_an_upward_and_a_sideways_import():
    """The rule can fail: a shared block importing a chapter, a chapter importing another."""
    upward = "from ldp_companion.hiera.levels import Levels\n"
    assert violations("ldp_companion.mechanisms.duchi",
                      imported_modules(upward, "ldp_companion.mechanisms.duchi"))
    sideways = "from ldp_companion.pm import multidim\n"
    assert violations("ldp_companion.hiera.sgd",
                      imported_modules(sideways, "ldp_companion.hiera.sgd"))
    relative = "from ..pm.theory import lemma4_table\n"
    assert violations("ldp_companion.hiera.sgd",
                      imported_modules(relative, "ldp_companion.hiera.sgd"))
    fine = "from ldp_companion.mechanisms.piecewise import PM\nfrom ldp_companion.hiera import grr\n"
    assert not violations("ldp_companion.hiera.sgd",
                          imported_modules(fine, "ldp_companion.hiera.sgd"))
    assert not violations("ldp_companion.book", imported_modules(sideways, "ldp_companion.book"))


# --- pages that read like lectures -----------------------------------------------------------
MAX_CODE_LINES = 400      # lines of code on a whole page (the parameters cell aside)
MAX_MEDIAN_CELL = 15      # median lines of a code cell
MAX_CELL = 40             # the longest code cell


def page_shape(text: str) -> dict:
    """Lines of code of a chapter page (MyST source): total, median and longest cell, and
    where the longest starts. Blank lines and the parameters cell do not count."""
    import statistics

    nb = jupytext.reads(text, fmt="md:myst")
    cells = [c for c in nb.cells if c.cell_type == "code"
             and "parameters" not in c.metadata.get("tags", [])]
    sizes = [sum(1 for line in c.source.splitlines() if line.strip()) for c in cells]
    if not sizes:
        return {"lines": 0, "median": 0, "longest": 0, "longest_starts": ""}
    i = max(range(len(sizes)), key=sizes.__getitem__)
    return {"lines": sum(sizes), "median": statistics.median(sizes), "longest": sizes[i],
            "longest_starts": cells[i].source.strip().splitlines()[0][:60]}


def shape_problems(shape: dict) -> list[str]:
    out = []
    if shape["lines"] > MAX_CODE_LINES:
        out.append(f"{shape['lines']} lines of code (at most {MAX_CODE_LINES})")
    if shape["median"] > MAX_MEDIAN_CELL:
        out.append(f"median code cell {shape['median']} lines (at most {MAX_MEDIAN_CELL})")
    if shape["longest"] > MAX_CELL:
        out.append(f"a {shape['longest']}-line cell (at most {MAX_CELL}) starting "
                   f"{shape['longest_starts']!r}")
    return out


@pytest.mark.parametrize("source", runner.chapters(), ids=lambda p: p.stem)
def test_page_reads_like_a_lecture(source):
    """The computation lives in the chapter's package: a page shows short cells calling it."""
    problems = shape_problems(page_shape(source.read_text()))
    assert not problems, f"{source.name}: " + "; ".join(problems)


def test_page_shape_check_fails_on_a_long_cell():
    cell = "```{code-cell} ipython3\n" + "x = 1\n" * 41 + "```\n"
    page = "---\njupytext:\n  text_representation:\n    format_name: myst\n---\n# T\n\n" + cell
    shape = page_shape(page)
    assert shape["longest"] == 41 and any("41-line cell" in p for p in shape_problems(shape))
    params = "```{code-cell} ipython3\n:tags: [parameters]\n\n" + "p = 1\n" * 41 + "```\n"
    assert page_shape(page.replace(cell, params))["lines"] == 0
