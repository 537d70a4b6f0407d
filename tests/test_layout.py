"""The package's layout rule: floors, each importing only the floors below it.

The package is a house of floors (``ARCHITECTURE.md`` draws it). A module may import its own
room (its subpackage, or itself) and the rooms of the floors below; never a room on its own
floor, never one above. So there is no circle between rooms, and a room can be read (and
tested) knowing only what is below it. A chapter notebook stands on its package's floor: it
imports the floors below and its own package.
"""
from __future__ import annotations

import ast
import itertools
import re
from pathlib import Path

import jupytext
import pytest

from ldp_companion.edition import book
from ldp_companion.execution import runner

PACKAGE = runner.REPO / "ldp_companion"
CHAPTER_PACKAGES = {m.__name__.split(".")[1] for m in book.PACKAGES.values()} - {"compare"}
#: Bottom to top, as ARCHITECTURE.md draws them. ``ldp_companion`` is the package's
#: ``__init__`` (it names the mechanisms).
FLOORS = [
    {"validation", "files"},
    {"mechanisms", "tensor", "neural"},
    {"ldp_companion", "auditing", "verdicts"},
    {"data"},
    {"execution"},
    {"page"},
    CHAPTER_PACKAGES,
    {"compare"},
    {"edition"},
    {"__main__"},
]
FLOOR = {room: i for i, rooms in enumerate(FLOORS) for room in rooms}
#: The top of the package: the foundation's modules and the command line, nothing else.
TOP_LEVEL = {"__init__", "__main__", "validation", "files"}


def room(module: str) -> str:
    """The room of a dotted ``ldp_companion`` module: its subpackage or top-level module, or
    ``"ldp_companion"`` for the package itself and the names its ``__init__`` gives."""
    parts = module.split(".")
    if len(parts) < 2 or parts[1] not in FLOOR:
        return "ldp_companion"
    return parts[1]


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
    """The imports of ``module`` that break the layout rule: a room on the same floor or
    above (its own room aside)."""
    own = room(module)
    bad = []
    for target in imports:
        theirs = room(target)
        if theirs != own and FLOOR[theirs] >= FLOOR[own]:
            how = "upward" if FLOOR[theirs] > FLOOR[own] else "sideways"
            bad.append(f"{module} (floor {FLOOR[own]}) imports {target} (floor "
                       f"{FLOOR[theirs]}, {how})")
    return bad


def package_modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        name = ".".join(p for p in rel.parts if p != "__init__")
        yield name, path


def room_arrows(modules) -> set[tuple[str, str]]:
    """The imports between rooms: (importing room, imported room) for ``(name, source)``."""
    return {(room(name), room(target)) for name, source in modules
            for target in imported_modules(source, name) if room(target) != room(name)}


def circles(arrows: set[tuple[str, str]]) -> list[list[str]]:
    """The rooms that import each other, directly or around a circle (strongly connected
    components of more than one room)."""
    reach = {a: {b for x, b in arrows if x == a} for a, _ in arrows}
    changed = True
    while changed:  # transitive closure: a few dozen rooms
        changed = False
        for a in reach:
            more = set().union(*(reach.get(b, set()) for b in reach[a])) - reach[a]
            if more:
                reach[a] |= more
                changed = True
    groups = {frozenset([a] + [b for b in reach[a] if a in reach.get(b, set())])
              for a in reach}
    return sorted(sorted(g) for g in groups if len(g) > 1)


def _sources():
    return [(name, path.read_text()) for name, path in package_modules()]


def test_no_upward_or_sideways_import_in_the_package():
    bad = [v for name, source in _sources()
           for v in violations(name, imported_modules(source, name))]
    assert not bad, "\n".join(bad)


def test_no_circle_between_rooms():
    assert not circles(room_arrows(_sources()))


def test_every_room_has_a_floor_and_says_what_it_may_import():
    rooms = {room(name) for name, _ in package_modules()}
    assert rooms <= set(FLOOR), rooms - set(FLOOR)
    top = {p.stem for p in PACKAGE.glob("*.py")}
    assert top == TOP_LEVEL, f"the top of ldp_companion/ holds {sorted(top)}"
    for sub in sorted(p.parent.name for p in PACKAGE.glob("*/__init__.py")
                      if p.parent.name not in CHAPTER_PACKAGES | {"compare"}):
        doc = ast.get_docstring(ast.parse((PACKAGE / sub / "__init__.py").read_text())) or ""
        assert doc, f"{sub}/ needs a docstring saying what it holds"
        if sub not in ("mechanisms", "tensor"):
            assert "May import" in doc, f"{sub}/'s docstring must say what it may import"


def architecture_floors(markdown: str) -> dict[int, set[str]]:
    """The code map of ``ARCHITECTURE.md``: floor -> the rooms its table row names (the
    first backticked names of the row's second column; ``__init__.py`` is the package)."""
    floors: dict[int, set[str]] = {}
    for number, rooms in re.findall(r"^\| (\d+) \| ([^|]+) \|", markdown, flags=re.M):
        names = {n.strip("/").removesuffix(".py") for n in re.findall(r"`([^`]+)`", rooms)}
        names = {"ldp_companion" if n == "__init__" else n for n in names}
        floors.setdefault(int(number), set()).update(names)
    return floors


def test_architecture_md_draws_the_floors_the_test_checks():
    drawn = architecture_floors((runner.REPO / "ARCHITECTURE.md").read_text())
    assert drawn == dict(enumerate(FLOORS))


def test_the_map_check_catches_a_room_on_the_wrong_floor():
    text = (runner.REPO / "ARCHITECTURE.md").read_text()
    text = text.replace("| 3 | `data/` |", "| 4 | `data/` |")
    assert architecture_floors(text) != dict(enumerate(FLOORS))


def test_every_chapter_has_a_package_a_parameter_spec_and_an_item_list():
    stems = [p.stem for p in runner.chapters()]
    assert sorted(book.PACKAGES) == sorted(stems)
    assert sorted(book.PARAMS) == sorted(stems)
    assert sorted(book.ITEMS) == sorted(stems)
    for package in book.PACKAGES.values():
        assert package.__doc__, f"{package.__name__} needs a docstring naming its paper"
        folder = Path(package.__file__).parent
        assert (folder / "params.py").exists() and (folder / "items.py").exists()


@pytest.mark.parametrize("source", runner.chapters(), ids=lambda p: p.stem)
def test_notebook_imports_the_floors_below_and_its_own_package(source):
    own = room(book.PACKAGES[source.stem].__name__)
    code = "\n".join(c.source for c in jupytext.read(source).cells if c.cell_type == "code")
    bad = [m for m in imported_modules(code, "notebook")
           if room(m) != own and FLOOR[room(m)] >= FLOOR[own]]
    assert not bad, f"{source.stem} imports {bad}"


def test_the_checker_catches_an_upward_a_sideways_and_a_circular_import():
    """The rule can fail: a mechanism importing a chapter, a chapter importing another, the
    verdicts importing the runner (the circle this house once had), a relative import."""
    upward = "from ldp_companion.hiera.levels import Levels\n"
    assert violations("ldp_companion.mechanisms.duchi",
                      imported_modules(upward, "ldp_companion.mechanisms.duchi"))
    sideways = "from ldp_companion.pm import multidim\n"
    assert violations("ldp_companion.hiera.sgd",
                      imported_modules(sideways, "ldp_companion.hiera.sgd"))
    relative = "from ..pm.theory import lemma4_table\n"
    assert violations("ldp_companion.hiera.sgd",
                      imported_modules(relative, "ldp_companion.hiera.sgd"))
    back = "from ldp_companion.execution.profiles import format_value\n"
    assert violations("ldp_companion.verdicts.coverage",
                      imported_modules(back, "ldp_companion.verdicts.coverage"))
    root = "from ldp_companion import mechanism_names\n"
    assert violations("ldp_companion.tensor.calibration",
                      imported_modules(root, "ldp_companion.tensor.calibration"))
    fine = ("from ldp_companion.mechanisms.piecewise import PM\n"
            "from ldp_companion.hiera import grr\n")
    assert not violations("ldp_companion.hiera.sgd",
                          imported_modules(fine, "ldp_companion.hiera.sgd"))
    assert not violations("ldp_companion.edition.book",
                          imported_modules(sideways, "ldp_companion.edition.book"))


def test_the_circle_finder_finds_the_circle_this_house_once_had():
    sources = _sources() + [("ldp_companion.verdicts.coverage",
                             "from ldp_companion.execution.profiles import format_value\n")]
    assert circles(room_arrows(sources)) == [["data", "execution", "verdicts"]]
    assert circles({("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")}) == [["a", "b", "c"]]
    assert not circles({(a, b) for a, b in itertools.combinations("abcd", 2)})


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


def said_top_floor(doc: str) -> int | None:
    """The highest floor a room's docstring lets it import: the largest number on its
    "May import" line (``floors 0–3``, ``(floor 0)``, ``every floor below (0–7)``)."""
    line = next((ln for ln in doc.splitlines() if ln.startswith("May import")), None)
    numbers = [int(n) for n in re.findall(r"\d+", line or "")]
    return max(numbers) if numbers else None


def overreach(room_name: str, doc: str, arrows: set[tuple[str, str]]) -> list[str]:
    """The rooms ``room_name`` imports above the floor its docstring names (and a docstring
    that names the room's own floor or one above)."""
    said = said_top_floor(doc)
    if said is None:
        return []
    bad = [f"{room_name}/ says floors up to {said} but imports {b} (floor {FLOOR[b]})"
           for a, b in sorted(arrows) if a == room_name and FLOOR[b] > said]
    if said >= FLOOR[room_name]:
        bad.append(f"{room_name}/ (floor {FLOOR[room_name]}) says it may import floor {said}")
    return bad


def test_each_room_imports_only_the_floors_its_docstring_names():
    """The "May import" line of each subpackage agrees with its imports; a docstring that
    names fewer floors than the room imports from is caught."""
    arrows = room_arrows(_sources())
    bad = []
    for init in sorted(PACKAGE.glob("*/__init__.py")):
        doc = ast.get_docstring(ast.parse(init.read_text())) or ""
        bad += overreach(init.parent.name, doc, arrows)
    assert not bad, "\n".join(bad)
    assert said_top_floor("May import: floors 0–1.") == 1
    assert overreach("execution", "May import: floors 0–1.", arrows)  # it imports data (3)
    assert overreach("neural", "May import: floors 0–1.", arrows)  # its own floor
