"""Sphinx extension of the book: each script a page loads, and each id it has, appears once.

- sphinx-thebe (which Jupyter Book always loads, although the book turns thebe off) adds its
  inline ``const THEBE_JS_URL = ...`` script twice to every page, and a browser refuses to
  declare a ``const`` twice: every page threw "Identifier 'THEBE_JS_URL' has already been
  declared" before any of its own scripts ran. The second copy of any script (the same file,
  or the same inline body, with the same attributes) is dropped.
- sphinx-proof and sphinx-exercise give every proof, exercise and solution body the same id
  (``proof-content``, ``exercise-content``, ``solution-content``), which an HTML page may hold
  once: the second gets ``-2``, the third ``-3`` (nothing links to them or styles them).

Listed in ``_config.yml`` under ``extra_extensions``.
"""
from __future__ import annotations

import re

__all__ = ["unique_scripts", "unique_ids", "setup"]

_ID = re.compile(r'(\sid=")([^"]+)(")')


def unique_scripts(scripts: list) -> list:
    """``scripts`` (Sphinx's ``script_files`` of a page) without repeats, in their order: two
    are the same when their file and attributes, inline body included, are (an inline
    script's file is None or "", as the extension that added it chose)."""
    seen, out = set(), []
    for script in scripts:
        attributes = getattr(script, "attributes", {}) or {}
        name = str(getattr(script, "filename", script) or "")  # inline: None or ""
        key = (name, tuple(sorted((k, str(v)) for k, v in attributes.items())))
        if key not in seen:
            seen.add(key)
            out.append(script)
    return out


def unique_ids(body: str) -> str:
    """``body`` (a page's HTML) with every repeated ``id`` numbered from its second use on:
    ``proof-content``, ``proof-content-2``, ... (a new id never collides with one the page
    already has)."""
    taken = set(m.group(2) for m in _ID.finditer(body))
    seen: dict[str, int] = {}

    def rename(match):
        name = match.group(2)
        seen[name] = seen.get(name, 0) + 1
        if seen[name] == 1:
            return match.group(0)
        k = seen[name]
        while f"{name}-{k}" in taken:
            k += 1
        seen[name] = k
        taken.add(f"{name}-{k}")
        return f"{match.group(1)}{name}-{k}{match.group(3)}"

    return _ID.sub(rename, body)


def _once(app, pagename, templatename, context, doctree) -> None:
    if "script_files" in context:  # a new list: the builder shares its own between pages
        context["script_files"] = unique_scripts(context["script_files"])
    if isinstance(context.get("body"), str):
        context["body"] = unique_ids(context["body"])


def setup(app):
    app.connect("html-page-context", _once, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
