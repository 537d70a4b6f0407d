"""Sphinx extension of the book: each script a page loads appears on it once.

sphinx-thebe (which Jupyter Book always loads, although the book turns thebe off) adds its
inline ``const THEBE_JS_URL = ...`` script twice to every page, and a browser refuses to
declare a ``const`` twice: every page threw "Identifier 'THEBE_JS_URL' has already been
declared" before any of its own scripts ran. This extension drops the second copy of any
script, the same file or the same inline body with the same attributes. Listed in
``_config.yml`` under ``extra_extensions``.
"""
from __future__ import annotations

__all__ = ["unique_scripts", "setup"]


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


def _dedupe(app, pagename, templatename, context, doctree) -> None:
    if "script_files" in context:  # a new list: the builder shares its own between pages
        context["script_files"] = unique_scripts(context["script_files"])


def setup(app):
    app.connect("html-page-context", _dedupe, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
