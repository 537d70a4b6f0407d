"""Mutants of the package: deliberately wrong versions of the code the chapters' claims rest on.

A ledger that publishes the same verdicts for a wrong implementation cannot be trusted. Each
chapter package lists, in its ``mutants`` module, a few :class:`Mutant` objects: a constant off by
a factor of 2, a flipped sign, a dropped term, in a mechanism or an analysis the chapter's
claims use. ``benchmarks/mutants.py`` runs a chapter at ``smoke`` once as written and once per
mutant (the mutant applied by :func:`apply` before the chapter's first cell) and reports which
verdicts each mutant flips; every mutant must flip at least one.
"""
from __future__ import annotations

import contextlib
import importlib
import json
import pkgutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from html import escape
from pathlib import Path

__all__ = ["Mutant", "apply", "applied", "prelude", "scaled", "negated", "RESULTS",
           "results_summary", "results_html"]

#: Where ``benchmarks/mutants.py`` writes its table (the Verdicts page reads it).
RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "mutants.json"


@dataclass(frozen=True)
class Mutant:
    """One deliberate bug.

    Parameters
    ----------
    name : str
        Short id, unique in the chapter (``"laplace-scale-half"``).
    what : str
        What it breaks, in one sentence a reader of the results table understands.
    target : str
        ``"module:name"`` (a module-level function or constant) or ``"module:Class.attr"``
        (a method or property of a class), e.g. ``"ldp_companion.tldp.algorithm:laplace_scale"``.
    make : callable
        ``original -> replacement``: receives what ``target`` names and returns the mutant's
        version of it (see :func:`scaled`, :func:`negated`).
    """

    name: str
    what: str
    target: str
    make: Callable

    def __post_init__(self):
        if not self.name or not self.what:
            raise ValueError("a mutant needs a name and a sentence saying what it breaks")
        if self.target.count(":") != 1:
            raise ValueError(f"mutant {self.name!r}: target must be 'module:name' or "
                             f"'module:Class.attr', got {self.target!r}")
        if not callable(self.make):
            raise TypeError(f"mutant {self.name!r}: make must be a callable")


def scaled(factor: float) -> Callable:
    """``make`` for a mutant whose function returns ``factor`` times the original's value
    (a noise scale off by 2, a bound off by 4)."""
    def make(original):
        if isinstance(original, property):
            return property(lambda self: factor * original.fget(self))
        if callable(original):
            def mutant(*args, **kwargs):
                return factor * original(*args, **kwargs)
            return mutant
        return factor * original
    return make


def negated(original):
    """``make`` for a mutant with the sign of the original's value flipped."""
    return scaled(-1.0)(original)


def _import_all(package: str = "ldp_companion") -> None:
    """Import every module of the package, so that every name bound to the target (``from x
    import f`` elsewhere) exists and is replaced too."""
    root = importlib.import_module(package)
    skip = ("sphinx_", "__main__")
    for info in pkgutil.walk_packages(root.__path__, prefix=f"{package}."):
        if not any(part.startswith(skip) for part in info.name.split(".")):
            importlib.import_module(info.name)


def apply(mutant: Mutant) -> Callable[[], None]:
    """Put ``mutant`` in place for the rest of the process (a chapter run applies it in its
    first cell; in a test use :func:`applied`, which undoes it).

    A module-level target is replaced in its module and wherever another module of the
    package bound the same object by name; a class attribute is replaced on the class.

    Returns
    -------
    callable
        Undoes the mutant (puts every replaced binding back).
    """
    module_name, _, name = mutant.target.partition(":")
    module = importlib.import_module(module_name)
    if "." in name:  # the class is one object wherever it is bound: nothing else to import
        cls_name, attr = name.split(".", 1)
        cls = getattr(module, cls_name)
        if attr not in cls.__dict__:
            raise AttributeError(f"mutant {mutant.name!r}: {cls_name} defines no {attr!r}")
        original = cls.__dict__[attr]
        setattr(cls, attr, mutant.make(original))
        return lambda: setattr(cls, attr, original)
    if not hasattr(module, name):
        raise AttributeError(f"mutant {mutant.name!r}: {module_name} has no {name!r}")
    _import_all()  # every module that binds the target by name, before the search below
    original = getattr(module, name)
    replacement = mutant.make(original)
    bound = [mod for mod in list(sys.modules.values())
             if getattr(mod, "__name__", "").startswith("ldp_companion")
             and getattr(mod, name, None) is original]
    for mod in bound:
        setattr(mod, name, replacement)

    def undo():
        for mod in bound:
            setattr(mod, name, original)
    return undo


@contextlib.contextmanager
def applied(mutant: Mutant):
    """``with applied(mutant): ...`` runs the block with ``mutant`` in place, then undoes it."""
    undo = apply(mutant)
    try:
        yield
    finally:
        undo()


def prelude(chapter_package: str, name: str) -> str:
    """The code cell that applies mutant ``name`` of ``chapter_package`` (e.g.
    ``"ldp_companion.tldp"``) before a chapter runs."""
    return (f"from ldp_companion.verdicts.mutation import apply\n"
            f"from {chapter_package}.mutants import MUTANTS\n"
            f"apply(next(m for m in MUTANTS if m.name == {name!r}))")


def results_summary(path: Path = RESULTS) -> str:
    """One Markdown sentence on a harness record: how many mutants were caught, where and
    when it ran."""
    record = json.loads(Path(path).read_text())
    rows = record["mutants"]
    caught = sum(r["caught"] for r in rows)
    chapters = len({r["chapter"] for r in rows})
    params = record["parameters"]
    return (f"**{caught} of {len(rows)} mutants caught** in {chapters} chapters (run "
            f"{record['finished'][:10]} on {record['machine']}, profile {params['profile']}, "
            f"seed {params['seed']}).")


def results_html(path: Path = RESULTS, shown: int = 4) -> str:
    """The harness record as a table: chapter, mutant and what it breaks, how many verdicts it
    flips and the first ``shown`` of them, caught or missed (a run that failed says why)."""
    from ldp_companion.verdicts.ledger import VERDICT_COLORS

    rows = []
    for r in json.loads(Path(path).read_text())["mutants"]:
        which = "; ".join(r["flipped"][:shown]) + (" …" if len(r["flipped"]) > shown else "")
        colour = VERDICT_COLORS["holds" if r["caught"] else "fails"]
        chapter = r["chapter"].split("-")[0].lstrip("0")
        rows.append(f'<tr style="background:{colour}"><td>{escape(chapter)}</td>'
                    f'<td><b>{escape(r["mutant"])}</b><br><small>{escape(r["what"])}</small>'
                    f'</td><td>{len(r["flipped"])}</td>'
                    f'<td><small>{escape(which or r["error"] or "—")}</small></td>'
                    f'<td><b>{"caught" if r["caught"] else "missed"}</b></td></tr>')
    head = ("<tr><th>chapter</th><th>mutant</th><th>verdicts flipped</th>"
            f"<th>which (first {shown})</th><th></th></tr>")
    return (f'<table class="ldp-verdicts book-wide"><thead>{head}</thead>'
            f'<tbody>{"".join(rows)}</tbody></table>')
