"""Sphinx extension of the book: exercises, definitions, theorems and algorithms are numbered
per chapter ("Exercise 3.2", "Algorithm 3.1").

Sphinx numbers enumerable nodes across the whole book when the table of contents is not
numbered, so chapter 5's first exercise would be "Exercise 14", and chapter 3's first algorithm
"Algorithm 4": a number that clashes with the paper's own (its Alg. 4 is PM-SUB). After Sphinx
has assigned its numbers (``env-get-updated``), this extension renumbers each page's exercises
and each kind of sphinx-proof directive from 1, prefixed by the page's chapter number: the
leading digits of its file name (``03-pm-...`` -> 3) or its appendix letter (``A-audit`` -> A).
sphinx-exercise and sphinx-proof read the numbers from ``env.toc_fignumbers``, so titles and
cross-references agree. Listed in ``_config.yml``.
"""
from __future__ import annotations

import re

__all__ = ["chapter_prefix", "renumber", "setup"]

_PREFIX = re.compile(r"^(\d+|[A-Z])-")


def chapter_prefix(docname: str) -> int | str | None:
    """3 for ``book/generated/03-pm-three-outputs``, ``"A"`` for ``.../A-audit``, else None."""
    match = _PREFIX.match(docname.rsplit("/", 1)[-1])
    if match is None:
        return None
    head = match.group(1)
    return int(head) if head.isdigit() else head


def renumber(fignumbers: dict, figtype: str = "exercise") -> list[str]:
    """Number ``figtype`` per page in place, in the order Sphinx numbered them; return the
    pages whose numbers changed.

    ``fignumbers`` is ``env.toc_fignumbers``: page -> figtype -> node id -> number tuple.
    """
    changed = []
    for docname, by_type in fignumbers.items():
        numbers = by_type.get(figtype)
        if not numbers:
            continue
        prefix = chapter_prefix(docname)
        order = sorted(numbers, key=lambda node_id: numbers[node_id])
        new = {node_id: ((prefix, i) if prefix is not None else (i,))
               for i, node_id in enumerate(order, start=1)}
        if new != numbers:
            by_type[figtype] = new
            changed.append(docname)
    return changed


def _renumber(app, env) -> list[str]:
    from sphinx_proof.proof_type import PROOF_TYPES

    changed = set(renumber(env.toc_fignumbers))
    for figtype in PROOF_TYPES:  # "theorem", "definition", "algorithm", ...
        changed.update(renumber(env.toc_fignumbers, figtype))
    return sorted(changed)


def setup(app):
    app.connect("env-get-updated", _renumber, priority=900)  # after Sphinx's own numbering
    return {"parallel_read_safe": True, "parallel_write_safe": True}
