"""The package code a chapter page can run: the modules its code cells import, and those they
import in turn, found by reading the code, never by running it.

An import inside a function counts as much as one at the top of a module, so the list holds
every module the page can reach, whichever branch a profile takes. The package imports its
own modules by name only (``import``/``from ... import``), never through a string, except in
the mutation harness (:mod:`ldp_companion.verdicts.mutation`), which a chapter never imports;
``tests/test_book_cache.py`` keeps that true. The runner that executes the page
(:mod:`ldp_companion.execution.runner`) and what it imports are added to every page's list:
its kernel environment can change a run.

A chapter's cache key and its paper-scale record's code digest hash these files: a change to
a module the chapter cannot reach (the black-box auditor, for chapter 2) leaves both as they
were.
"""
from __future__ import annotations

import ast
import functools
from pathlib import Path

__all__ = ["RUNNER", "page_code", "imports", "reachable"]

#: The module that executes every page (its imports are in every page's reach).
RUNNER = "ldp_companion.execution.runner"
_TOP = "ldp_companion"


def page_code(source: Path) -> str:
    """The code cells of the MyST or ``.ipynb`` page ``source``, one after the other, with
    IPython's magic and shell lines (``%``, ``!``) left out."""
    import jupytext

    cells = [c.source for c in jupytext.read(source).cells if c.cell_type == "code"]
    lines = [ln for cell in cells for ln in cell.splitlines()
             if not ln.lstrip().startswith(("%", "!"))]
    return "\n".join(lines)


def _module_file(name: str, package: Path) -> Path | None:
    """The file of module ``name`` (``ldp_companion.x.y``) in ``package``, or None when the
    name is not a module there (a function or a class imported from one)."""
    path = package.joinpath(*name.split(".")[1:])
    if (path / "__init__.py").is_file():
        return path / "__init__.py"
    return path.with_suffix(".py") if path.with_suffix(".py").is_file() else None


def _statements(nodes):
    """Every statement of ``nodes`` and of the blocks inside them (an import is a statement:
    the expressions need not be walked)."""
    for node in nodes:
        yield node
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            block = getattr(node, field, None)
            if isinstance(block, list):
                yield from _statements(block)


@functools.lru_cache(maxsize=1024)
def _file_imports(path: Path, module: str, package: Path, stamp: tuple) -> frozenset:
    """:func:`imports` of the module file ``path``, kept while its ``stamp`` (modification
    time, size) holds: the pages of one build share most of their modules."""
    return frozenset(imports(path.read_text(), module, package))


def imports(code: str, module: str, package: Path) -> set[str]:
    """The package modules ``code`` imports (module ``module``'s code; ``"__main__"`` for a
    page), with the packages above each: ``from ldp_companion.tldp import checks`` gives
    ``ldp_companion``, ``ldp_companion.tldp`` and ``ldp_companion.tldp.checks``."""
    names = set()
    for node in _statements(ast.parse(code).body):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the package the module is in (or is)
                own = _module_file(module, package)
                parts = module.split(".")
                if own is None or own.name != "__init__.py":
                    parts = parts[:-1]
                parts = parts[:len(parts) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            names.add(base)
            names |= {f"{base}.{alias.name}" for alias in node.names}
    out = set()
    for name in names:
        parts = name.split(".")
        if parts[0] != _TOP:
            continue
        out |= {".".join(parts[:i]) for i in range(1, len(parts) + 1)
                if _module_file(".".join(parts[:i]), package) is not None}
    return out


def reachable(source: Path, package: Path) -> list[Path]:
    """The ``.py`` files of ``package`` that page ``source`` can run, sorted: the modules its
    code imports, the runner's, and everything those import (:func:`imports`).

    Raises
    ------
    SyntaxError
        A code cell of the page, or a module, does not parse (the list would be short).
    """
    package = Path(package)
    todo = [("__main__", page_code(source)), (RUNNER, None)]
    seen: set[str] = set()
    while todo:
        module, code = todo.pop()
        if code is None:
            if module in seen:
                continue
            seen.add(module)
            path = _module_file(module, package)
            if path is None:  # no such package there (a test's book without a copy of it)
                continue
            st = path.stat()
            found = _file_imports(path, module, package, (st.st_mtime_ns, st.st_size))
        else:
            found = imports(code, module, package)
        todo += [(m, None) for m in found - seen]
    return sorted(p for m in seen if (p := _module_file(m, package)) is not None)
