"""Sphinx extension of the book: figures get their alt text from the PNG they are stored in.

:func:`ldp_companion.plotting.show` writes each figure's alt text into the PNG's
``Description`` text chunk. myst-nb does not carry an output's alt text to the page, so this
extension reads the chunk back and puts it on the image node; without it every ``<img>``
would have its file path as alt text. Listed in ``_config.yml`` under ``extra_extensions``.
"""
from __future__ import annotations

from pathlib import Path

from docutils import nodes

from ldp_companion.plotting import png_facts


def _add_alt(app, doctree) -> None:
    for node in doctree.findall(nodes.image):
        uri = node.get("uri", "")
        if node.get("alt") or not uri.endswith(".png"):
            continue
        path = Path(app.srcdir) / uri.lstrip("/")  # myst-nb writes outputs under the source dir
        if path.is_file():
            alt, _ = png_facts(path)
            if alt:
                node["alt"] = alt


def setup(app):
    app.connect("doctree-read", _add_alt)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
