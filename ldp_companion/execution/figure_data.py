"""Each figure's and table's data as CSV beside the page, with a provenance line.

:func:`ldp_companion.page.plotting.show` and :func:`ldp_companion.page.tables.show_table` call
:func:`publish` in a runner's kernel (:mod:`ldp_companion.verdicts.run_records`). It writes
``<folder>/figdata/<chapter>/figure-3-2.csv`` (``.csv.gz`` above a megabyte; a figure's plotted
numbers, read back from its artists by :func:`figure_frame`, so they are the numbers drawn) or
``table-3-1.csv`` (the table as shown), a ``.json`` beside it with the provenance, and returns the
line the page shows under the result: a link to the CSV; the chapter, profile, seed and a hash of
the parameters; the git commit (and whether tracked files had uncommitted changes); the hash of
``constraints.txt``; the checksums of the data files the run had read; the machine; and the
seconds of computation since the previous figure or table.

The link is relative to the executed notebook (``figdata/...``), so it works in the notebook
and on the site (:mod:`ldp_companion.edition.sphinx_figures` copies the folder next to the page).
Outside a runner's kernel nothing is written and nothing is shown.
"""
from __future__ import annotations

import gzip
import hashlib
import html
import json
import os
import re
import shlex
import time

import numpy as np
import pandas as pd

from ldp_companion.verdicts import run_records

__all__ = ["RUN_ENV", "FOLDER", "figure_frame", "publish", "run_context", "provenance_text"]

#: The runner passes the run's description (profile, seed, parameters' hash, commit, ...) to
#: the kernel in this environment variable, as JSON.
RUN_ENV = "LDP_COMPANION_RUN"
#: Folder (beside the executed notebook) holding each chapter's figure and table data.
FOLDER = "figdata"
#: A CSV longer than this many bytes is written gzip-compressed (``figure-1-1.csv.gz``; pandas
#: and spreadsheet tools read it as it is).
GZIP_ABOVE = 1_000_000
_LAST = [time.perf_counter()]  # when the previous result was shown (or the module imported)


def run_context(parameters: dict, resolved: dict, source: dict, machine: str,
                chapter: str) -> str:
    """The JSON the runner puts in :data:`RUN_ENV`: ``parameters`` as passed, ``resolved``
    every value in force (hashed), ``source`` is
    :func:`ldp_companion.execution.runner.source_state`; ``started`` (epoch seconds) is now, when
    the chapter starts; ``rerun`` is the command that computes the same results again."""
    text = json.dumps(resolved, sort_keys=True, default=str)
    number = chapter.split("-")[0]
    rerun = " ".join([f"python -m ldp_companion run {number}"]
                     + [f"-p {k} {shlex.quote(repr(v) if not isinstance(v, str) else v)}"
                        for k, v in parameters.items()])
    if "-" not in chapter:  # a summary page of the book (verdicts, rerun, ...): the build
        rerun = f"make book PROFILE={resolved.get('profile') or 'default'}"
    if source.get("commit"):
        rerun = f"git checkout {source['commit'][:12]} && {rerun}"
    return json.dumps({
        "profile": resolved.get("profile"), "seed": resolved.get("seed"),
        "parameters": json.loads(text),
        "parameters_sha256": hashlib.sha256(text.encode()).hexdigest(),
        **source, "machine": machine, "started": time.time(), "rerun": rerun})


def _rows(ax, panel: str) -> list[dict]:
    """The data of one axes, one row per plotted value."""
    import matplotlib.collections as mc
    import matplotlib.container as mcont

    rows = []
    owner = {}  # an error bar's line and bars carry no label: their container does
    done = set()  # artists an error bar's rows already tell
    for c in ax.containers:
        if isinstance(c, mcont.ErrorbarContainer):
            name = _errorbar_name(ax, c)
            for part in c.get_children():
                owner[id(part)] = name
            rows += _errorbar_rows(c, panel, name)
            done.update(id(part) for part in c.get_children())

    by_colour = _names_by_colour(ax, owner)

    def _label(artist) -> str:
        """Its legend label; else its error bar's; else, for an unlabelled curve drawn in
        the colour of exactly one named series (a prediction beside its points), that one."""
        return (owner.get(id(artist)) or _name(artist)
                or by_colour.get(_colour(artist), ""))

    def add(series, kind, xs, ys, **extra):
        for i, (x, y) in enumerate(zip(np.ravel(xs), np.ravel(ys))):
            rows.append({"panel": panel, "series": series, "kind": kind, "point": i,
                         "x": float(x), "y": float(y), **extra})

    for line in ax.get_lines():
        if id(line) in done:
            continue
        xy = np.asarray(line.get_xydata(), dtype=float).reshape(-1, 2)
        across = _across(ax, line)
        if across is None:
            add(_label(line), "line", xy[:, 0], xy[:, 1])
        else:  # axhline / axvline: one value, the other coordinate is the axes' width
            value = float(xy[0, 1] if across == "y" else xy[0, 0])
            rows.append({"panel": panel, "series": _name(line) or "reference line",
                         "kind": "reference", "point": 0,
                         "x": np.nan if across == "y" else value,
                         "y": value if across == "y" else np.nan})
    for c in ax.containers:
        if isinstance(c, mcont.BarContainer):
            vertical = getattr(c, "orientation", "vertical") != "horizontal"
            for i, p in enumerate(c.patches):
                x, y, w, h = p.get_x(), p.get_y(), p.get_width(), p.get_height()
                rows.append({"panel": panel, "series": _name(c), "kind": "bar", "point": i,
                             "x": x + w / 2 if vertical else x + w,
                             "y": y + h if vertical else y + h / 2})
    for coll in ax.collections:
        if isinstance(coll, mc.QuadMesh):
            values = np.ma.filled(np.ma.asarray(coll.get_array(), dtype=float), np.nan)
            grid = values.reshape(values.shape[0], -1) if values.ndim > 1 else values[None]
            _cells(rows, panel, _label(coll), "cell", grid)
        elif isinstance(coll, mc.LineCollection) and id(coll) not in done:
            for i, seg in enumerate(coll.get_segments()):
                seg = np.asarray(seg, dtype=float).reshape(-1, 2)
                add(_label(coll), "segment", seg[:, 0], seg[:, 1], segment=i)
        elif isinstance(coll, mc.PathCollection):
            xy = np.asarray(coll.get_offsets(), dtype=float).reshape(-1, 2)
            add(_label(coll), "point", xy[:, 0], xy[:, 1])
        elif isinstance(coll, mc.PolyCollection):  # fill_between: the band's outline
            for i, path in enumerate(coll.get_paths()):
                add(_label(coll), "band", path.vertices[:, 0], path.vertices[:, 1], segment=i)
    for im in ax.get_images():
        values = np.ma.filled(np.ma.asarray(im.get_array(), dtype=float), np.nan)
        grid = values.reshape(values.shape[0], -1)
        start = len(rows)
        _cells(rows, panel, _label(im) or _colorbar_label(im), "image", grid)
        _name_cells(ax, im, rows[start:], by_colour)
    return rows


def _across(ax, line) -> str | None:
    """"y" for a line drawn across the axes at one y (``axhline``), "x" for one at one x
    (``axvline``), None for a line in data coordinates."""
    transform = line.get_transform()
    if transform == ax.get_yaxis_transform():
        return "y"
    if transform == ax.get_xaxis_transform():
        return "x"
    return None


def _colorbar_label(im) -> str:
    """What an image's colour bar says its colours mean ("" without one)."""
    bar = getattr(im, "colorbar", None)
    if bar is None:
        return ""
    return " ".join(str(bar.ax.get_ylabel() or bar.ax.get_xlabel()).split())


def _name_cells(ax, im, rows: list, by_colour: dict) -> None:
    """Each cell's ``text`` (what is written on it) and, for a map whose colours are legend
    entries (a categorical map, e.g. the best mechanism), the ``series`` of its colour."""
    texts = {}
    for t in ax.texts:
        x, y = t.get_position()
        if t.get_transform() == ax.transData and float(x).is_integer() \
                and float(y).is_integer():
            texts[(int(y), int(x))] = " ".join(t.get_text().split())
    for row in rows:
        if (row["row"], row["column"]) in texts:
            row["text"] = texts[(row["row"], row["column"])]
        value = row["value"]
        rgba = im.cmap(np.nan if np.isnan(value) else im.norm(value))
        name = by_colour.get(tuple(np.round(np.asarray(rgba, float), 4)))
        if name:
            row["series"] = name


def _colour(artist) -> tuple | None:
    import matplotlib.colors as mcolors

    try:
        get = getattr(artist, "get_color", None) or artist.get_edgecolor
        colour = np.asarray(mcolors.to_rgba_array(get()))
    except (AttributeError, ValueError, TypeError):
        return None
    return tuple(np.round(colour[0], 4)) if len(colour) == 1 else None


def _names_by_colour(ax, owner: dict) -> dict:
    """``colour -> name`` for the colours that exactly one named series of the axes uses."""
    seen: dict = {}
    for artist in [*ax.get_lines(), *ax.collections]:
        name = owner.get(id(artist)) or _name(artist)
        colour = _colour(artist)
        if name and colour is not None:
            seen.setdefault(colour, set()).add(name)
    return {c: next(iter(n)) for c, n in seen.items() if len(n) == 1}


def _errorbar_name(ax, c) -> str:
    """An error bar's series: its container's label, else its own line's, else that of the
    labelled line of the axes drawn through the same x positions (a helper that draws the
    bars apart from its labelled curve)."""
    data_line = c.lines[0]
    name = _name(c) or (_name(data_line) if data_line is not None else "")
    if name:
        return name
    xs = _errorbar_centres(c)[0]
    for line in ax.get_lines():
        xd = np.asarray(line.get_xdata(), dtype=float)
        if _name(line) and xd.shape == xs.shape and np.allclose(xd, xs, equal_nan=True):
            return _name(line)
    return ""


def _errorbar_centres(c) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """``x, y`` of an error bar's points and, per point, its vertical bar's ``(low, high)``
    (None without y errors)."""
    data_line, _, bars = c.lines
    vertical = [b for b in bars if all(np.isclose(s[0, 0], s[-1, 0]) for s in
                                       map(np.asarray, b.get_segments()) if len(s))]
    spans = (np.array([[np.min(np.asarray(s)[:, 1]), np.max(np.asarray(s)[:, 1])]
                       for s in vertical[0].get_segments()]) if vertical else None)
    if data_line is not None:
        xy = np.asarray(data_line.get_xydata(), dtype=float).reshape(-1, 2)
        return xy[:, 0], xy[:, 1], spans
    if spans is not None:
        xs = np.array([np.asarray(s)[0, 0] for s in vertical[0].get_segments()], dtype=float)
        return xs, spans.mean(axis=1), spans
    return np.array([]), np.array([]), None


def _errorbar_rows(c, panel: str, series: str) -> list[dict]:
    """One row per point of an error bar: ``x``, ``y`` and the bar's ``y_low``, ``y_high``
    (its caps and bar segments are these two numbers drawn)."""
    xs, ys, spans = _errorbar_centres(c)
    rows = []
    for i, (x, y) in enumerate(zip(xs, ys)):
        row = {"panel": panel, "series": series, "kind": "errorbar", "point": i,
               "x": float(x), "y": float(y)}
        if spans is not None and i < len(spans):
            row.update(y_low=float(spans[i, 0]), y_high=float(spans[i, 1]))
        rows.append(row)
    return rows


def _cells(rows: list, panel: str, series: str, kind: str, grid: np.ndarray) -> None:
    r, c = np.indices(grid.shape)
    rows.extend({"panel": panel, "series": series, "kind": kind, "row": int(i), "column": int(j),
                 "value": float(v)} for i, j, v in zip(r.ravel(), c.ravel(), grid.ravel()))


def _name(artist) -> str:
    """The artist's legend label; for one kept out of the legend, its ``gid`` (how a figure
    names a reference line or an expectation for its CSV only), else ""."""
    text = str(artist.get_label() or "")
    gid = getattr(artist, "get_gid", lambda: None)()  # a container has none
    return (gid or "") if text.startswith("_") else text


def figure_frame(fig) -> pd.DataFrame:
    """The numbers a matplotlib figure draws, one row per value (long format).

    Columns: ``panel`` (the axes' title, or "panel k"), ``series`` (the artist's legend
    label), ``kind`` (``line``, ``bar``, ``point``, ``errorbar`` for a point with its error
    bar, ``segment`` for other line segments, ``band`` for a filled band's outline,
    ``reference`` for a line across the axes at one ``y`` or one ``x``, ``image`` and ``cell``
    for heat maps), ``point`` (position along the series), ``x``, ``y`` in data coordinates,
    ``y_low`` and ``y_high`` for an error bar's ends, and ``row``, ``column``, ``value`` and
    ``text`` (what the cell says) for images and heat maps; an image's series is its colour
    bar's label, or per cell the legend entry of the cell's colour. Axes labels are in the
    columns ``x_label`` and ``y_label``. Colour bars are left out (their scale is no data).
    """
    rows = []
    for k, ax in enumerate(fig.axes):
        if hasattr(ax, "_colorbar"):  # a colour bar: its scale, not data
            continue
        panel = ax.get_title() or f"panel {k + 1}"
        for row in _rows(ax, panel):
            row.update(x_label=ax.get_xlabel(), y_label=ax.get_ylabel())
            rows.append(row)
    columns = ["panel", "x_label", "y_label", "series", "kind", "point", "segment", "x", "y",
               "y_low", "y_high", "row", "column", "value", "text"]
    frame = pd.DataFrame(rows)
    frame = frame.reindex(columns=[c for c in columns if c in frame.columns] if rows else columns)
    for name in ("point", "segment", "row", "column"):
        if name in frame:
            frame[name] = frame[name].astype("Int64")
    return frame.dropna(axis=1, how="all")


def _slug(number: str) -> str:
    """``"Figure 3.2"`` → ``"figure-3-2"``."""
    return re.sub(r"[^a-z0-9]+", "-", number.lower()).strip("-")


def _data_checksums() -> dict:
    path = run_records.record_path("data")
    seen = run_records.read(path) if path else {}
    return {name: entry.get("sha256", "") for name, entry in sorted(seen.items())}


def publish(number: str, frame: pd.DataFrame, caption: str, *, index: bool = False) -> str:
    """Write ``frame`` as the CSV of result ``number`` ("Figure 3.2") with its provenance;
    return the HTML line for the page ('' outside a runner's kernel).

    The seconds are those since the previous figure or table of the run: the computation that
    led to this one.
    """
    now = time.perf_counter()
    seconds, _LAST[0] = now - _LAST[0], now
    folder = run_records.record_path("data")
    chapter = os.environ.get("LDP_COMPANION_CHAPTER")
    if folder is None or not chapter:
        return ""
    out = folder.parent / FOLDER / chapter
    out.mkdir(parents=True, exist_ok=True)
    slug = _slug(number)
    text = frame.to_csv(index=index).encode()
    name = f"{slug}.csv"
    if len(text) > GZIP_ABOVE:
        name += ".gz"
        text = gzip.compress(text, mtime=0)
    (out / name).write_bytes(text)
    record = {"result": number, "caption": caption, "chapter": chapter,
              **json.loads(os.environ.get(RUN_ENV, "{}")),
              "data_sha256": _data_checksums(), "seconds": round(seconds, 2)}
    (out / f"{slug}.json").write_text(json.dumps(record, indent=1, sort_keys=True))
    size = f" ({len(text) / 1e6:.1f} MB)" if name.endswith(".gz") else ""
    return (f'<p class="provenance"><a href="{FOLDER}/{chapter}/{name}" download>{name}</a>'
            f'{size} · <a href="{FOLDER}/{chapter}/{slug}.json">provenance and rerun command'
            f"</a> · "
            f"{html.escape(provenance_text(record))}</p>")


def provenance_text(record: dict) -> str:
    """One line: where a result came from (the fields of a ``figdata`` JSON record)."""
    commit = record.get("commit")
    if commit:
        state = " with uncommitted changes" if record.get("uncommitted_changes") else ""
        code = f"commit {commit[:10]}{state}"
    else:
        code = "no git commit (installed package)"
    data = ", ".join(f"{n} sha256 {h[:10]}" for n, h in record.get("data_sha256", {}).items())
    parts = [record.get("chapter", ""), f"profile {record.get('profile')}",
             f"seed {record.get('seed')}",
             f"parameters {str(record.get('parameters_sha256') or '')[:10]}", code,
             f"constraints.txt {str(record.get('constraints_sha256') or 'absent')[:10]}",
             f"data: {data or 'none read'}", str(record.get("machine", "")),
             f"{record.get('seconds', 0):.1f} s since the previous result"]
    return " · ".join(p for p in parts if p)
