"""One plotting style for the whole book.

:func:`use_style` sets the seaborn theme; :data:`MECHANISM_COLORS` gives each mechanism one
colour in every chapter; :func:`plot_vs_epsilon` draws a metric against ε with a band over
seeds.
"""
from __future__ import annotations

import textwrap

import matplotlib
import matplotlib.container
import matplotlib.pyplot as plt
import matplotlib.ticker
import numpy as np
import pandas as pd
import seaborn as sns

from ldp_companion.execution.figure_data import figure_frame, publish
from ldp_companion.page.numbering import next_number

__all__ = ["MECHANISM_COLORS", "MECHANISM_ALIASES", "MECHANISM_LABELS", "MECHANISM_MARKERS",
           "SERIES_COLORS", "PAGE_WIDTH_PX", "MIN_TEXT_PT", "MIN_CVD_DISTANCE", "use_style",
           "color", "label", "marker", "tick_text", "epsilon_axis", "plain_log_y",
           "plot_vs_epsilon", "plot_panels_vs_epsilon", "legend_below", "figure_facts", "show",
           "png_facts", "cvd_distance", "cvd_clashes"]

# One colour per mechanism across the book. The same mechanism under another name (Laplace
# with ε/d per attribute; Harmony, which is Duchi's law on a sampled attribute) takes its
# colour. The colours were chosen (from the Okabe–Ito, Tol and ColorBrewer palettes) so that
# the mechanisms one chapter draws together stay apart for a reader with normal vision, with
# deuteranopia and with protanopia (simulated, :func:`cvd_distance`); the tests check it, and
# every figure's legend on the built site.
_BASE_COLORS = {
    "laplace": "#2d004b", "duchi": "#0077bb", "pm": "#33bbee", "hm": "#ccbb44",
    "three_outputs": "#ee99aa", "pm_opt": "#313695", "pm_sub": "#d55e00", "hm_tp": "#7f3b08",
    "hiera": "#332288", "graded_laplace": "#01665e", "duchi_md": "#67001f",
    "gaussian": "#67001f", "non_private": "#000000",
    "tldp_l": "#e69f00", "tldp_g": "#555555", "idn": "#74add1", "mvg": "#0077bb",
    "udn": "#009988", "tvg": "#542788", "gauss_paper": "#01665e", "jl": "#ee7733",
    "spof": "#cc3311", "spof_exact": "#e69f00", "fm": "#0072b2", "authors_v1": "#ee6677",
    "dpsgd_logit": "#994455", "square_wave": "#009e73", "inconclusive": "#dddddd",
}
#: Names that are another name for a mechanism above (they share its colour).
MECHANISM_ALIASES: dict[str, str] = {
    "laplace_split": "laplace", "harmony": "duchi", "harmony_clip": "duchi",
    "tldp_l_w": "tldp_l", "tldp_g_w": "tldp_g",
    "gauss_l2": "gaussian", "gauss_analytic": "gaussian", "optimized": "gaussian",
    "idn_iid": "idn", "mvg_true": "mvg", "none": "non_private",
    "nonprivate": "non_private", "dpsgd_param": "gaussian",
}
#: A fixed colour per mechanism name, the same in every chapter.
MECHANISM_COLORS: dict[str, tuple] = {
    **{n: matplotlib.colors.to_rgb(c) for n, c in _BASE_COLORS.items()},
    **{a: matplotlib.colors.to_rgb(_BASE_COLORS[n]) for a, n in MECHANISM_ALIASES.items()}}
#: Display names.
MECHANISM_LABELS: dict[str, str] = {
    "laplace": "Laplace", "duchi": "Duchi", "pm": "PM", "hm": "HM",
    "three_outputs": "Three-Outputs", "pm_opt": "PM-OPT", "pm_sub": "PM-SUB",
    "hm_tp": "HM-TP", "harmony": "Harmony", "hiera": "HierA",
    "graded_laplace": "graded Laplace", "gaussian": "Gaussian",
    "laplace_split": "Laplace (ε/d each)",
    "duchi_md": "Duchi (multidim.)", "non_private": "non-private",
    "harmony_clip": "Harmony + pool clipping",
    "tldp_l": "TLDP-L", "tldp_g": "TLDP-G", "tldp_l_w": "TLDP-L-w", "tldp_g_w": "TLDP-G-w",
    "idn": "IDN", "mvg": "MVG",
    "udn": "UDN", "tvg": "TVG (isotropic)", "gauss_paper": "Gaussian (paper's calibration)",
    "jl": "JL", "gauss_l2": "Gaussian on vec f (classical)",
    "gauss_analytic": "Gaussian on vec f (analytic)", "optimized": "Optimized (DP-SGD Gaussian)",
    "idn_iid": "IDN (W = E)", "mvg_true": "MVG (Ψ = E)", "none": "no noise",
    "spof": "SPOF (paper)", "spof_exact": "SPOF (exact coefficients)", "fm": "FM (m = 1)",
    "authors_v1": "SPOF (authors' code)", "dpsgd_logit": "DP-SGD (logit, Alg. 2)",
    "dpsgd_param": "DP-SGD (parameters)", "nonprivate": "non-private autoencoder",
    "square_wave": "Square Wave",
    "spof_alg1": "SPOF coefficients (Alg. 1, c = 2.5)", "spof_fm": "FM coefficients (c = 0)",
    "alg6_three_outputs": "Alg. 6 with Three-Outputs", "alg6_pm_sub": "Alg. 6 with PM-SUB",
    "inconclusive": "inconclusive", "spof_prop2": "sums α₂ + α₃ (Prop. 2)",
    "spof_alg2": "logit gradient at a = 0 (Alg. 2)",
}
#: Colours for a sequence of settings that are not mechanisms (μ = 1, 2, 3, ...): far apart
#: in hue and lightness, also for a colour-blind reader.
SERIES_COLORS = ["#d55e00", "#332288", "#56b4e9", "#555555", "#ddcc77", "#000000"]


#: A marker per mechanism, so that curves stay apart where colours are close or printed grey.
MECHANISM_MARKERS: dict[str, str] = {
    "hiera": "o", "harmony": "s", "pm": "^", "graded_laplace": "D", "harmony_clip": "x",
    "non_private": "v", "duchi_md": "s", "hm_tp": "D", "pm_sub": "P", "three_outputs": "X",
    "tldp_l": "o", "tldp_l_w": "x", "tldp_g": "s", "tldp_g_w": "+", "laplace": "<",
    "gaussian": ">", "idn": "D", "mvg": "P", "udn": "h", "tvg": "*", "gauss_paper": "p",
    "jl": "d", "gauss_l2": "<", "gauss_analytic": ">", "optimized": ">", "idn_iid": "x",
    "mvg_true": "X", "none": "v", "spof": "o", "spof_exact": "s", "fm": "^",
    "authors_v1": "D", "dpsgd_logit": "<", "dpsgd_param": ">", "nonprivate": "v",
    "duchi": "h", "hm": "*", "pm_opt": "p", "laplace_split": "<", "square_wave": "8"}


def marker(name: str) -> str:
    """The marker of mechanism ``name`` (a circle for names without one)."""
    return MECHANISM_MARKERS.get(name, "o")


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def tick_text(value: float) -> str:
    """A tick label: ``0.5``, ``30``, ``3000``; ``10⁴``, ``3×10⁵`` from ten thousand up (and
    below 0.001), never ``1e+06``."""
    value = float(value)
    if value == 0 or 1e-3 <= abs(value) < 1e4:
        return f"{value:g}"
    exponent = int(np.floor(np.log10(abs(value))))
    mantissa = float(f"{value / 10.0 ** exponent:.3g}")
    power = "10" + str(exponent).translate(_SUPERSCRIPT)
    return power if mantissa == 1 else f"{mantissa:g}×{power}"


def epsilon_axis(ax, ticks, min_ratio: float = 1.45) -> None:
    """Log ε axis with a tick at every grid value. Labels are thinned so that neighbours
    closer than a factor ``min_ratio`` never overlap; powers of ten are labelled first, so a
    reader never sees 30 and 300 labelled while 10 and 100 are bare."""
    ax.set_xscale("log")
    ticks = sorted({float(t) for t in ticks})
    decade = [t for t in ticks if t > 0 and np.isclose(np.log10(t), round(np.log10(t)))]
    order = sorted(decade, reverse=True) + [t for t in reversed(ticks) if t not in decade]
    shown: list[float] = []
    for t in order:
        if all(max(t, s) / min(t, s) >= min_ratio for s in shown):
            shown.append(t)
    ax.set_xticks(ticks, [tick_text(t) if t in shown else "" for t in ticks])
    ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())


def plain_log_y(ax) -> None:
    """Log y axis labelled 0.002, 0.005, 0.01, ... rather than 2×10⁻³."""
    ax.set_yscale("log")
    fmt = matplotlib.ticker.FuncFormatter(lambda y, _: tick_text(y))
    ax.yaxis.set_major_formatter(fmt)
    ax.yaxis.set_minor_locator(matplotlib.ticker.LogLocator(subs=(2.0, 5.0)))
    ax.yaxis.set_minor_formatter(fmt)


#: Width in CSS pixels of a cell's output on a chapter page (sphinx-book-theme, desktop).
PAGE_WIDTH_PX = 688
#: Smallest text a figure may show on the page, in points, after the page has scaled it down.
MIN_TEXT_PT = 9.0
_FIG_DPI = 100       # figure inches -> CSS pixels on the page (the image's declared width)
_PNG_DPI = 150       # pixels actually stored, so that the enlarged view stays sharp
_PNG_KEY = "ldp-companion"


def _handle_style(handle) -> tuple:
    """Colour (hex), marker and line style of a legend handle (None where it has none)."""
    rgb, mark, dash = None, None, None
    if isinstance(handle, matplotlib.collections.Collection):  # markers, error bars
        for colours in (handle.get_facecolor(), handle.get_edgecolor()):
            c = np.asarray(colours, float).reshape(-1, 4)
            if len(c) and c[0, 3] > 0:
                rgb = c[0]
                break
        paths = handle.get_paths() if hasattr(handle, "get_paths") else []
        mark = (f"path-{hash(np.round(paths[0].vertices, 3).tobytes()) & 0xffff:04x}"
                if paths else "collection")  # a scatter's marker, told apart by its shape
    elif hasattr(handle, "get_color"):
        rgb = handle.get_color()
    elif hasattr(handle, "get_facecolor"):
        rgb = handle.get_facecolor()
    if isinstance(handle, matplotlib.lines.Line2D):
        mark = None if handle.get_marker() in (None, "", "None", " ") else str(handle.get_marker())
        dash = None if handle.get_linestyle() in ("None", "", " ") else (
            f"{handle.get_linestyle()}{getattr(handle, '_unscaled_dash_pattern', '')}")
    hex_colour = matplotlib.colors.to_hex(rgb) if rgb is not None else None
    return hex_colour, mark, dash


def _legend_entries(fig) -> dict[str, dict]:
    """Each legend entry's label and its handle's colour, marker and line style."""
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
    # an error-bar curve's legend handle is its bars; its look is its data line
    data_lines = {c.get_label(): c.lines[0] for ax in fig.axes for c in ax.containers
                  if isinstance(c, matplotlib.container.ErrorbarContainer) and c.lines[0]}
    out = {}
    for leg in legends:
        for handle, text in zip(leg.legend_handles, leg.get_texts()):
            hex_colour, mark, dash = _handle_style(data_lines.get(text.get_text(), handle))
            if hex_colour is not None:
                out[text.get_text()] = {"color": hex_colour, "marker": mark, "dash": dash}
    return out


#: Smallest distance (CAM02-UCS, :func:`cvd_distance`) between two curves' colours that a
#: reader with normal vision, deuteranopia or protanopia can still tell apart in a legend.
MIN_CVD_DISTANCE = 12.0
_CVD = ((None, 0), ("deuteranomaly", 100), ("protanomaly", 100))


def cvd_distance(a, b) -> float:
    """The smallest perceptual distance between colours ``a`` and ``b`` as seen with normal
    vision, deuteranopia and protanopia (Machado et al. 2009 simulation at full severity,
    distances in CAM02-UCS, via colorspacious)."""
    from colorspacious import cspace_convert, deltaE

    rgb = np.array([matplotlib.colors.to_rgb(a), matplotlib.colors.to_rgb(b)])
    out = []
    for kind, severity in _CVD:
        seen = rgb if kind is None else np.clip(cspace_convert(
            rgb, {"name": "sRGB1+CVD", "cvd_type": kind, "severity": severity}, "sRGB1"), 0, 1)
        out.append(float(deltaE(seen[0], seen[1], input_space="sRGB1")))
    return min(out)


#: Markers a reader takes for one another at a legend's size (a diamond and a thin one, ...).
_LOOKALIKE = (frozenset("Dd"), frozenset("o8"), frozenset("xX"), frozenset("+P"), frozenset("h*"))


def _same_shape(a, b) -> bool:
    return a == b or any({a, b} == set(pair) for pair in _LOOKALIKE)


def cvd_clashes(entries: dict[str, dict], min_distance: float = MIN_CVD_DISTANCE) -> list[str]:
    """Pairs of legend entries a colour-blind reader cannot tell apart.

    Two entries clash when their colours are closer than ``min_distance`` (:func:`cvd_distance`)
    unless they share one colour on purpose (one mechanism, two variants) and differ in marker
    (not a look-alike one, :data:`_LOOKALIKE`: ``D`` and ``d``) or line style.
    """
    names = list(entries)
    out = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            ea, eb = entries[a], entries[b]
            if ea["color"] == eb["color"]:
                if ea.get("dash") == eb.get("dash") and _same_shape(ea.get("marker"),
                                                                     eb.get("marker")):
                    out.append(f"{a!r} and {b!r} look the same (colour, marker and dash)")
                continue
            d = cvd_distance(ea["color"], eb["color"])
            if d < min_distance:
                out.append(f"{a!r} ({ea['color']}) and {b!r} ({eb['color']}) are {d:.1f} apart "
                           f"for a colour-blind reader (at least {min_distance:g})")
    return out


def figure_facts(fig, width_px: float) -> dict:
    """What a reader gets from ``fig`` shown ``width_px`` CSS pixels wide on the page: the
    scale the page applies, the smallest text in points after it, which text that is, the
    colour, marker and dash of every legend entry, and the pairs of entries a colour-blind
    reader cannot tell apart (:func:`cvd_clashes`)."""
    entries = _legend_entries(fig)
    scale = min(1.0, PAGE_WIDTH_PX / width_px)
    texts = [t for t in fig.findobj(matplotlib.text.Text)
             if t.get_visible() and t.get_text().strip() and t.figure is fig]
    sizes = [t.get_fontsize() * _FIG_DPI / 96.0 * scale for t in texts]  # 1 pt = 96/72 px
    i = int(np.argmin(sizes)) if sizes else None
    return {"width_px": round(width_px), "scale": round(scale, 4),
            "min_text_pt": round(sizes[i], 2) if sizes else None,
            "smallest_text": texts[i].get_text()[:40] if sizes else "",
            "legend": {k: v["color"] for k, v in entries.items()},
            "legend_styles": entries, "cvd_clashes": cvd_clashes(entries)}


def _plain(text: str, what: str) -> str:
    if not isinstance(text, str) or len(text.strip()) < 20:
        raise ValueError(f"{what} must be a sentence (at least 20 characters), got {text!r}")
    if "$" in text or "\\" in text:
        raise ValueError(f"{what} is not typeset by the book: write its mathematics in plain "
                         "text and Unicode (ε, x′, max(ε_a, ε_b)), not TeX")
    return text.strip()


class FigureFacts(dict):
    """What :func:`show` measured of a figure (a dict). A notebook does not display it when
    ``show(...)`` is a cell's last line: the page shows the figure and its caption only."""

    def _ipython_display_(self):
        pass


def show(caption: str, *, alt: str, fig=None) -> dict:
    """Show a figure on the page with its caption and alt text; return :func:`figure_facts`.

    Every figure of the book goes through here. In a runner's kernel its plotted numbers are
    written as CSV beside the notebook and a provenance line links them under the caption
    (:mod:`ldp_companion.execution.figure_data`). The figure is stored as a PNG whose text
    chunks carry the alt text (``Description``; the book's Sphinx extension puts it on the
    ``<img>``) and the figure's facts (key ``ldp-companion``, JSON), so that the site test can
    check them on the built pages. The image declares its width, so the page links it to the
    full-size file (click to enlarge).

    Parameters
    ----------
    caption : str
        What to see, written in the cell from the values the cell plotted (so it describes this
        run and cannot drift from the figure). Plain text: cell output is not typeset.
    alt : str
        What the figure shows, for a reader who cannot see it (axes, curves, panels).
    fig : matplotlib.figure.Figure, optional
        Defaults to the current figure.

    Raises
    ------
    ValueError
        If caption or alt is missing or contains TeX, or if any text of the figure would show
        below :data:`MIN_TEXT_PT` on the page.
    """
    import io
    import json

    from IPython.display import HTML, Image, Markdown, display

    caption, alt = _plain(caption, "caption"), _plain(alt, "alt text")
    fig = fig or plt.gcf()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=_PNG_DPI, bbox_inches="tight")
    width_px = _png_size(buf.getvalue())[0] * _FIG_DPI / _PNG_DPI
    facts = figure_facts(fig, width_px)
    if facts["min_text_pt"] is not None and facts["min_text_pt"] < MIN_TEXT_PT:
        plt.close(fig)
        raise ValueError(
            f"text {facts['smallest_text']!r} would show at {facts['min_text_pt']:.1f} pt on the "
            f"page (at least {MIN_TEXT_PT:g}): the page scales a {width_px:.0f}-px figure by "
            f"{facts['scale']:.2f}; make the figure narrower or its text larger")
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=_PNG_DPI, bbox_inches="tight",
                metadata={"Description": alt, _PNG_KEY: json.dumps(facts)})
    frame = figure_frame(fig)
    plt.close(fig)
    display(Image(data=buf.getvalue(), format="png", width=round(width_px)))
    if caption[0].isascii() and caption[0].islower():  # "Figure 3.1. Each density ..."
        caption = caption[0].upper() + caption[1:]
    number = next_number("Figure")
    display(Markdown(f"*{number}. {caption}*"))
    line = publish(number, frame, caption)
    if line:
        display(HTML(line))
    return FigureFacts(facts)


def _png_size(data: bytes) -> tuple[int, int]:
    """Width and height of a PNG from its header."""
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def png_facts(path) -> tuple[str, dict]:
    """The alt text and the facts :func:`show` stored in a PNG ('' and {} when absent)."""
    import json

    from PIL import Image as PILImage

    with PILImage.open(path) as im:
        text = dict(getattr(im, "text", {}) or {})
    return text.get("Description", ""), json.loads(text.get(_PNG_KEY, "{}"))


#: The colours of curves drawn without a colour of their own (the Okabe–Ito palette): the
#: first seven stay apart for a colour-blind reader (:func:`cvd_distance` ≥ 12).
DEFAULT_CYCLE = ["#0072b2", "#e69f00", "#009e73", "#d55e00", "#56b4e9", "#cc79a7", "#000000"]


def use_style() -> None:
    """Apply the book's style (call once at the top of a chapter): the seaborn theme of its
    figures, and numbers printed as numbers (``0.25``, not numpy 2's ``np.float64(0.25)``,
    in the values a cell shows)."""
    np.set_printoptions(legacy="1.25")
    sns.set_theme(context="notebook", style="whitegrid", font_scale=1.0)
    matplotlib.rcParams.update({"axes.prop_cycle": matplotlib.cycler(color=DEFAULT_CYCLE),
                                "figure.figsize": (6.4, 4.0), "figure.dpi": 100,
                                "savefig.dpi": 150, "axes.titlesize": "medium",
                                "legend.fontsize": "small", "legend.frameon": False})


def color(name: str):
    """The colour of mechanism ``name`` (grey for names the book does not know)."""
    return MECHANISM_COLORS.get(name, (0.5, 0.5, 0.5))


def label(name: str) -> str:
    """The display name of mechanism ``name`` (a registered mechanism's own ``label``, else
    ``name`` itself, for names the book does not know)."""
    if name in MECHANISM_LABELS:
        return MECHANISM_LABELS[name]
    from ldp_companion.mechanisms import REGISTRY

    own = getattr(REGISTRY.get(name), "label", None) if isinstance(name, str) else None
    return own or name


def plot_vs_epsilon(data: pd.DataFrame, metric: str, *, mechanism: str = "mechanism",
                    epsilon: str = "epsilon", seed: str | None = "seed", ax=None,
                    logx: bool = True, logy: bool = False, band: str = "sd",
                    spread: str = "auto", ylabel: str | None = None,
                    title: str | None = None, legend: bool = True):
    """Plot ``metric`` against ε, one line per mechanism, mean ± spread over seeds.

    Parameters
    ----------
    data : DataFrame
        Long format: one row per (mechanism, ε, seed).
    metric : str
        Column to plot.
    band : {"sd", "se"}
        Band half-width: standard deviation over seeds, or standard error of the mean. With
        ``logy`` the band is multiplicative, ``mean ×/÷ exp(spread of log(metric))``, so it
        stays positive.
    spread : {"auto", "band", "bars"}
        How the spread is drawn: translucent bands (readable for a few curves) or error bars
        (bands of many curves overlap and hide the lines). "auto": bands up to three
        mechanisms, error bars above. The lines are always drawn over the bands.
    Returns
    -------
    matplotlib.axes.Axes
    """
    for col in (metric, mechanism, epsilon):
        if col not in data.columns:
            raise ValueError(f"column {col!r} not in data (columns: {list(data.columns)})")
    if band not in ("sd", "se"):
        raise ValueError("band must be 'sd' or 'se'")
    if spread not in ("auto", "band", "bars"):
        raise ValueError("spread must be 'auto', 'band' or 'bars'")
    names = pd.unique(data[mechanism])
    if spread == "auto":
        spread = "band" if len(names) <= 3 else "bars"
    ax = ax or plt.gca()
    values = data[metric].to_numpy(float)
    if logy and np.any(values <= 0):
        raise ValueError(f"logy needs positive values of {metric!r}")
    stats = data.groupby([mechanism, epsilon], sort=True)[metric].agg(["mean", "std", "count"])
    if logy:  # on a log axis the band is multiplicative: mean ×/÷ exp(sd of log(metric))
        logs = data.assign(_log=np.log(values)).groupby([mechanism, epsilon], sort=True)["_log"]
        stats["std"] = logs.std()
    for name in names:
        s = stats.loc[name]
        eps = s.index.to_numpy(float)
        half = s["std"].fillna(0.0).to_numpy()
        if band == "se":
            half = half / np.sqrt(s["count"].to_numpy())
        centre = s["mean"].to_numpy()
        lo, hi = ((centre * np.exp(-half), centre * np.exp(half)) if logy
                  else (centre - half, centre + half))
        c = color(name)
        ax.plot(eps, centre, marker=marker(name), ms=4, color=c, label=label(name), zorder=3)
        if seed is None or not (s["count"] > 1).any():
            continue
        if spread == "band":
            ax.fill_between(eps, lo, hi, color=c, alpha=0.15, linewidth=0, zorder=1)
        else:
            ax.errorbar(eps, centre, yerr=[centre - lo, hi - centre], fmt="none", ecolor=c,
                        elinewidth=0.9, capsize=2, zorder=2)
    if logx:
        epsilon_axis(ax, np.unique(data[epsilon].to_numpy(float)))
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel("privacy budget ε")
    ax.set_ylabel(ylabel or metric)
    if title:
        ax.set_title(title)
    if legend:
        ax.legend()
    return ax


def legend_below(fig, axes=None, *, ncol: int = 4, **kwargs):
    """Lay ``fig`` out, then put one legend under it: every distinct label of ``axes``
    (default: all of the figure's axes), so that multi-panel figures keep the page's width.
    Extra keyword arguments go to ``Figure.legend`` (``title``, ``fontsize``)."""
    entries = {}
    for ax in np.ravel(fig.axes if axes is None else axes):
        for handle, text in zip(*ax.get_legend_handles_labels()):
            entries.setdefault(text, handle)
    fig.tight_layout()
    return fig.legend(list(entries.values()), list(entries), loc="upper center",
                      bbox_to_anchor=(0.5, 0.0), ncol=min(ncol, len(entries)) or 1, **kwargs)


def plot_panels_vs_epsilon(data: pd.DataFrame, metric: str, panel: str, *,
                           expected: str | None = None, ncols: int = 2, logy: bool = False,
                           ylabel: str | None = None, title: str | None = None,
                           mechanism: str = "mechanism", epsilon: str = "epsilon",
                           panel_height: float = 2.9):
    """One :func:`plot_vs_epsilon` panel per value of column ``panel``, one shared legend
    below them.

    The figure is as wide as the page (at most ``ncols`` panels a row, two by default), so the
    page never shrinks its text. ``expected`` names a column of analytic predictions, drawn
    dashed in each mechanism's colour next to the Monte Carlo points. Returns the figure.
    """
    names = list(pd.unique(data[panel]))
    ncols = min(ncols, len(names))
    nrows = -(-len(names) // ncols)
    width = PAGE_WIDTH_PX / _FIG_DPI
    fig, axes = plt.subplots(nrows, ncols, figsize=(width, panel_height * nrows),
                             squeeze=False)
    for ax, name in zip(axes.flat, names):
        sub = data[data[panel] == name]
        plot_vs_epsilon(sub, metric, ax=ax, logy=logy, ylabel=ylabel,
                        title=textwrap.fill(str(name), 70 // ncols), mechanism=mechanism,
                        epsilon=epsilon, legend=False)
        if expected is not None:
            pred = sub.groupby([mechanism, epsilon])[expected].first()
            for mech in pd.unique(sub[mechanism]):
                ax.plot(pred.loc[mech].index, pred.loc[mech].to_numpy(), ls="--", lw=0.8,
                        color=color(mech), zorder=2)
    for ax in axes.flat[len(names):]:
        ax.set_axis_off()
    if title:
        fig.suptitle(textwrap.fill(title, 70))
    legend_below(fig, axes.flat[0])
    return fig
