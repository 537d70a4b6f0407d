"""One plotting style for the whole book.

:func:`use_style` sets the seaborn theme; :data:`MECHANISM_COLORS` gives each mechanism one
colour in every chapter; :func:`plot_vs_epsilon` draws a metric against ε with a band over
seeds.
"""
from __future__ import annotations

import textwrap

import matplotlib
import matplotlib.pyplot as plt
import matplotlib.ticker
import numpy as np
import pandas as pd
import seaborn as sns

__all__ = ["MECHANISM_COLORS", "MECHANISM_ALIASES", "MECHANISM_LABELS", "MECHANISM_MARKERS",
           "SERIES_COLORS", "PAGE_WIDTH_PX", "MIN_TEXT_PT", "use_style", "color", "label",
           "marker", "epsilon_axis", "plain_log_y", "plot_vs_epsilon",
           "plot_panels_vs_epsilon", "legend_below", "figure_facts", "show", "png_facts"]

# One colour per mechanism across the book. The same mechanism under another name (Laplace
# with ε/d per attribute; Harmony, which is Duchi's law on a sampled attribute) takes its
# colour; distinct mechanisms keep distinct colours (the
# tests check the smallest CIELAB distance between any two).
_BASE_COLORS = {
    "laplace": "#1f77b4", "duchi": "#ff7f0e", "pm": "#2ca02c", "hm": "#d62728",
    "three_outputs": "#9467bd", "pm_opt": "#8c564b", "pm_sub": "#e377c2", "hm_tp": "#17becf",
    "hiera": "#08306b", "graded_laplace": "#b8860b", "duchi_md": "#bcbd22",
    "gaussian": "#7f7f7f", "non_private": "#000000",
    "tldp_l": "#800000", "tldp_g": "#005a32", "idn": "#ff00ff", "mvg": "#3f007d",
    "udn": "#b15928", "tvg": "#666600", "gauss_paper": "#00a087", "jl": "#00bfff",
    "spof": "#9e0142", "spof_exact": "#ff4500", "fm": "#4d4dff", "authors_v1": "#c51b8a",
    "dpsgd_logit": "#00cc00",
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
}
#: Colours for a sequence of settings that are not mechanisms (μ = 1, 2, 3, ...): far apart
#: in hue and lightness, none of them a mechanism's colour.
SERIES_COLORS = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#444444"]


#: A marker per mechanism, so that curves stay apart where colours are close or printed grey.
MECHANISM_MARKERS: dict[str, str] = {
    "hiera": "o", "harmony": "s", "pm": "^", "graded_laplace": "D", "harmony_clip": "s",
    "non_private": "v", "duchi_md": "s", "hm_tp": "D", "pm_sub": "P", "three_outputs": "X",
    "tldp_l": "o", "tldp_l_w": "x", "tldp_g": "s", "tldp_g_w": "+", "laplace": "<",
    "gaussian": ">", "idn": "D", "mvg": "P", "udn": "h", "tvg": "*", "gauss_paper": "p",
    "jl": "d", "gauss_l2": "<", "gauss_analytic": ">", "optimized": ">", "idn_iid": "d",
    "mvg_true": "X", "none": "v", "spof": "o", "spof_exact": "s", "fm": "^",
    "authors_v1": "D", "dpsgd_logit": "<", "dpsgd_param": ">", "nonprivate": "v"}


def marker(name: str) -> str:
    """The marker of mechanism ``name`` (a circle for names without one)."""
    return MECHANISM_MARKERS.get(name, "o")


def epsilon_axis(ax, ticks, min_ratio: float = 1.45) -> None:
    """Log ε axis with a tick at every grid value; labels are thinned so that neighbours
    closer than a factor ``min_ratio`` never overlap."""
    ax.set_xscale("log")
    ticks, shown, last = sorted(float(t) for t in ticks), set(), None
    for t in reversed(ticks):
        if last is None or last / t >= min_ratio:
            shown.add(t)
            last = t
    ax.set_xticks(ticks, [f"{t:g}" if t in shown else "" for t in ticks])
    ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())


def plain_log_y(ax) -> None:
    """Log y axis labelled 0.002, 0.005, 0.01, ... rather than 2×10⁻³."""
    ax.set_yscale("log")
    fmt = matplotlib.ticker.FuncFormatter(lambda y, _: f"{y:g}")
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


def _legend_colors(fig) -> dict[str, str]:
    """Each legend entry's label and the hex colour of its handle."""
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
    out = {}
    for leg in legends:
        for handle, text in zip(leg.legend_handles, leg.get_texts()):
            rgb = None
            if isinstance(handle, matplotlib.collections.Collection):  # markers, error bars
                for colours in (handle.get_facecolor(), handle.get_edgecolor()):
                    c = np.asarray(colours, float).reshape(-1, 4)
                    if len(c) and c[0, 3] > 0:
                        rgb = c[0]
                        break
            elif hasattr(handle, "get_color"):
                rgb = handle.get_color()
            elif hasattr(handle, "get_facecolor"):
                rgb = handle.get_facecolor()
            if rgb is not None:
                out[text.get_text()] = matplotlib.colors.to_hex(rgb)
    return out


def figure_facts(fig, width_px: float) -> dict:
    """What a reader gets from ``fig`` shown ``width_px`` CSS pixels wide on the page: the
    scale the page applies, the smallest text in points after it, which text that is, and the
    colour of every legend entry."""
    scale = min(1.0, PAGE_WIDTH_PX / width_px)
    texts = [t for t in fig.findobj(matplotlib.text.Text)
             if t.get_visible() and t.get_text().strip() and t.figure is fig]
    sizes = [t.get_fontsize() * _FIG_DPI / 96.0 * scale for t in texts]  # 1 pt = 96/72 px
    i = int(np.argmin(sizes)) if sizes else None
    return {"width_px": round(width_px), "scale": round(scale, 4),
            "min_text_pt": round(sizes[i], 2) if sizes else None,
            "smallest_text": texts[i].get_text()[:40] if sizes else "",
            "legend": _legend_colors(fig)}


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

    Every figure of the book goes through here. The figure is stored as a PNG whose text
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

    from IPython.display import Image, Markdown, display

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
    plt.close(fig)
    display(Image(data=buf.getvalue(), format="png", width=round(width_px)))
    display(Markdown(f"*Figure: {caption}*"))
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


def use_style() -> None:
    """Apply the book's seaborn theme (call once at the top of a chapter)."""
    sns.set_theme(context="notebook", style="whitegrid", font_scale=1.0)
    matplotlib.rcParams.update({"figure.figsize": (6.4, 4.0), "figure.dpi": 100,
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
