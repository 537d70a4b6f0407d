"""Sphinx extension of the book: figures get their alt text from the PNG they are stored in,
and each page's figure and table data (CSV, :mod:`ldp_companion.execution.figure_data`) are copied
next to it, where the page's provenance lines link them.

:func:`ldp_companion.page.plotting.show` writes each figure's alt text into the PNG's
``Description`` text chunk. myst-nb does not carry an output's alt text to the page, so this
extension reads the chunk back and puts it on the image node; without it every ``<img>``
would have its file path as alt text. Listed in ``_config.yml`` under ``extra_extensions``.
"""
from __future__ import annotations

import shutil
from pathlib import Path

from docutils import nodes

from ldp_companion.execution.figure_data import FOLDER
from ldp_companion.page.plotting import png_facts


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


def _copy_figure_data(app, exception) -> None:
    """Copy every ``figdata`` folder of the source tree to the same place in the HTML output
    (the links under figures and tables are relative to their page)."""
    if exception is not None or app.builder.format != "html":
        return
    src = Path(app.srcdir)
    for folder in src.glob(f"book/**/{FOLDER}"):
        if folder.is_dir():
            shutil.copytree(folder, Path(app.outdir) / folder.relative_to(src),
                            dirs_exist_ok=True)


def setup(app):
    app.connect("doctree-read", _add_alt)
    app.connect("build-finished", _copy_figure_data)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
