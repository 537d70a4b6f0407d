"""Tables a reader can read: words for headers, no bare row numbers, numbers formatted.

Every table a chapter shows goes through :func:`show_table`. It renames columns and index
levels to what a reader calls them, hides pandas' 0, 1, 2, ... index, writes float headers as
``0.5`` rather than ``0.500000`` and refuses a header that still reads like code
(:func:`raw_labels`: ``gauss_analytic``, ``eps_from``, ``nan``). The site test applies the same
rule to every table of the built pages.
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
from pandas.io.formats.style import Styler

from ldp_companion.data import paper_assets
from ldp_companion.execution.figure_data import publish
from ldp_companion.page.numbering import next_number

__all__ = ["show_table", "raw_labels", "ResultTable", "assets_table"]

_SNAKE = re.compile(r"^[A-Za-z][A-Za-z0-9]*(_[A-Za-z0-9]+)+$")
_PANDAS_FLOAT = re.compile(r"^-?\d+\.\d{6}$")      # 0.500000: pandas' default float header
_MISSING = {"nan", "none", "nat", "<na>"}


def raw_labels(labels) -> list[str]:
    """The labels (headers, row names) that read like code rather than words.

    A label is raw when it is a snake_case identifier (``max_excess``), a float printed the
    way pandas prints it (``0.500000``) or a missing value (``nan``, ``None``).
    """
    out = []
    for lab in labels:
        text = str(lab).strip()
        if _SNAKE.match(text) or _PANDAS_FLOAT.match(text) or text.lower() in _MISSING:
            out.append(text)
    return out


def _header(value) -> str:
    if isinstance(value, (float, np.floating)):
        return f"{float(value):g}"
    return str(value)


def _shown_labels(df: pd.DataFrame, hide_index: bool) -> list[str]:
    labels = [_header(v) for level in range(df.columns.nlevels)
              for v in df.columns.get_level_values(level)]
    labels += [str(n) for n in df.columns.names if n is not None]
    if not hide_index:
        labels += [_header(v) for level in range(df.index.nlevels)
                   for v in df.index.get_level_values(level)]
        labels += [str(n) for n in df.index.names if n is not None]
    return labels


def show_table(df: pd.DataFrame, caption: str, *, labels: dict | None = None,
               formats="{:.3g}", index: bool | None = None):
    """A table for the page: ``df`` with readable headers, formatted numbers and a caption.

    Parameters
    ----------
    df : DataFrame (a Series becomes a one-column table)
    caption : str
        What the table shows (plain text, shown above it after the table's number,
        "Table 3.1", :mod:`ldp_companion.page.numbering`).
    labels : dict, optional
        New names for columns, index levels and row or column values
        (``{"gauss_analytic": "Gaussian (analytic)", "eps": "ε"}``); a value with no entry
        keeps its name.
    formats : str, callable or dict
        Format of the numeric cells: one format for all, or ``{column (after renaming):
        format}``; other cells are shown as they are.
    index : bool, optional
        Show the index? By default it is shown unless it is pandas' 0, 1, 2, ... range.

    Returns
    -------
    ResultTable
        A pandas Styler; in a runner's kernel the table's CSV and provenance line are written
        (:mod:`ldp_companion.execution.figure_data`) and shown under it.

    Raises
    ------
    ValueError
        If a shown header or row name still reads like code (:func:`raw_labels`).
    """
    if isinstance(df, pd.Series):
        df = df.to_frame()
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"show_table needs a DataFrame or Series, got {type(df).__name__}")
    if not isinstance(caption, str) or not caption.strip():
        raise ValueError("a table needs a caption saying what it shows")
    labels = dict(labels or {})
    if index is None:
        index = not (isinstance(df.index, pd.RangeIndex) and df.index.name is None)
    out = df.rename(columns=labels, index=labels)
    out = out.rename_axis(index=[labels.get(n, n) for n in out.index.names],
                          columns=[labels.get(n, n) for n in out.columns.names])
    raw = raw_labels(_shown_labels(out, hide_index=not index))
    if raw:
        raise ValueError(f"table {caption!r} shows labels that read like code: {raw}; "
                         "name them with labels={...}")
    numeric = out.select_dtypes("number").columns
    if isinstance(formats, dict):
        fmt = {c: f for c, f in formats.items() if c in out.columns}
    else:
        fmt = {c: formats for c in numeric}
    number = next_number("Table")
    styler = ResultTable(out).format(fmt, na_rep="–").format_index(_header, axis=1)
    styler = styler.format_index(_header, axis=0).set_caption(f"{number}. {caption.strip()}")
    if not index:
        styler = styler.hide(axis="index")
    styler.provenance = publish(number, out, caption.strip(), index=index)
    return styler


class ResultTable(Styler):
    """A pandas Styler whose page output ends with the table's data link and provenance line
    (:mod:`ldp_companion.execution.figure_data`; empty outside a runner's kernel)."""

    provenance = ""

    def _repr_html_(self) -> str | None:
        shown = super()._repr_html_()
        return shown if shown is None else shown + self.provenance


def assets_table(names=None, caption: str = "Files of the paper's setup in the data folder"
                                             " (LDP_COMPANION_DATA)"):
    """:func:`ldp_companion.data.paper_assets.status` as a page shows it: assets by what they
    are (:data:`~ldp_companion.data.paper_assets.TITLES`), long source addresses broken to fit
    the column."""
    return show_table(paper_assets.status(names), caption,
                      labels=paper_assets.TITLES).set_properties(
        subset=["source"], **{"word-break": "break-all"})
