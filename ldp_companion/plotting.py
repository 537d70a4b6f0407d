"""One plotting style for the whole book.

:func:`use_style` sets the seaborn theme; :data:`MECHANISM_COLORS` gives each mechanism one
colour in every chapter; :func:`plot_vs_epsilon` draws a metric against ε with a band over
seeds.
"""
from __future__ import annotations

import matplotlib
import matplotlib.pyplot as plt
import matplotlib.ticker
import numpy as np
import pandas as pd
import seaborn as sns

__all__ = ["MECHANISM_COLORS", "MECHANISM_LABELS", "MECHANISM_MARKERS", "use_style", "color",
           "label", "marker", "epsilon_axis", "plain_log_y", "plot_vs_epsilon",
           "plot_panels_vs_epsilon", "caption"]

_ORDER = ["laplace", "duchi", "pm", "hm", "three_outputs", "pm_opt", "pm_sub", "hm_tp",
          "harmony", "hiera", "graded_laplace", "gaussian", "tldp", "tvg", "spof",
          "laplace_split", "duchi_md", "non_private"]
_PALETTE = sns.color_palette("tab10", 10) + sns.color_palette("Dark2", 8)
#: A fixed colour per mechanism name, the same in every chapter.
MECHANISM_COLORS: dict[str, tuple] = {n: _PALETTE[i] for i, n in enumerate(_ORDER)}
MECHANISM_COLORS["non_private"] = (0.2, 0.2, 0.2)
# chapter 5 draws these next to PM (green): keep them far from it and from each other
MECHANISM_COLORS["hiera"] = matplotlib.colors.to_rgb("#08306b")
MECHANISM_COLORS["graded_laplace"] = matplotlib.colors.to_rgb("#c51b7d")
#: Display names.
MECHANISM_LABELS: dict[str, str] = {
    "laplace": "Laplace", "duchi": "Duchi", "pm": "PM", "hm": "HM",
    "three_outputs": "Three-Outputs", "pm_opt": "PM-OPT", "pm_sub": "PM-SUB",
    "hm_tp": "HM-TP", "harmony": "Harmony", "hiera": "HierA",
    "graded_laplace": "graded Laplace", "gaussian": "Gaussian", "tldp": "TLDP",
    "tvg": "TVG", "spof": "SPOF", "laplace_split": "Laplace (ε/d each)",
    "duchi_md": "Duchi (multidim.)", "non_private": "non-private",
}


#: A marker per mechanism, so that curves stay apart where colours are close or printed grey.
MECHANISM_MARKERS: dict[str, str] = {
    "hiera": "o", "harmony": "s", "pm": "^", "graded_laplace": "D", "harmony_clip": "s",
    "non_private": "v"}


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


def caption(text: str) -> None:
    """Show the figure drawn so far, then its caption below it.

    A caption that states a number or a finding is written in the figure's cell from the
    values the cell plotted, so that it describes this run (any profile, any seed) and cannot
    drift from the figure. Cell output is not typeset, so TeX (``$``, backslashes) is refused.
    """
    from IPython.display import Markdown, display

    if "$" in text or "\\" in text:
        raise ValueError("a caption is cell output, which the book does not typeset: write its "
                         "mathematics in plain text and Unicode (ε, x′, max(ε_a, ε_b)), not TeX")
    plt.show()
    display(Markdown(f"*Figure: {text}*"))


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
    """The display name of mechanism ``name``."""
    return MECHANISM_LABELS.get(name, name)


def plot_vs_epsilon(data: pd.DataFrame, metric: str, *, mechanism: str = "mechanism",
                    epsilon: str = "epsilon", seed: str | None = "seed", ax=None,
                    logx: bool = True, logy: bool = False, band: str = "sd",
                    ylabel: str | None = None, title: str | None = None):
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
    Returns
    -------
    matplotlib.axes.Axes
    """
    for col in (metric, mechanism, epsilon):
        if col not in data.columns:
            raise ValueError(f"column {col!r} not in data (columns: {list(data.columns)})")
    if band not in ("sd", "se"):
        raise ValueError("band must be 'sd' or 'se'")
    ax = ax or plt.gca()
    values = data[metric].to_numpy(float)
    if logy and np.any(values <= 0):
        raise ValueError(f"logy needs positive values of {metric!r}")
    stats = data.groupby([mechanism, epsilon], sort=True)[metric].agg(["mean", "std", "count"])
    if logy:  # on a log axis the band is multiplicative: mean ×/÷ exp(sd of log(metric))
        logs = data.assign(_log=np.log(values)).groupby([mechanism, epsilon], sort=True)["_log"]
        stats["std"] = logs.std()
    for name in pd.unique(data[mechanism]):
        s = stats.loc[name]
        eps = s.index.to_numpy(float)
        spread = s["std"].fillna(0.0).to_numpy()
        if band == "se":
            spread = spread / np.sqrt(s["count"].to_numpy())
        centre = s["mean"].to_numpy()
        lo, hi = ((centre * np.exp(-spread), centre * np.exp(spread)) if logy
                  else (centre - spread, centre + spread))
        c = color(name)
        ax.plot(eps, centre, marker="o", ms=4, color=c, label=label(name))
        if seed is not None and (s["count"] > 1).any():
            ax.fill_between(eps, lo, hi, color=c, alpha=0.15, linewidth=0)
    if logx:
        epsilon_axis(ax, np.unique(data[epsilon].to_numpy(float)))
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel("privacy budget ε")
    ax.set_ylabel(ylabel or metric)
    if title:
        ax.set_title(title)
    ax.legend()
    return ax


def plot_panels_vs_epsilon(data: pd.DataFrame, metric: str, panel: str, *,
                           expected: str | None = None, ncols: int = 3, logy: bool = False,
                           ylabel: str | None = None, title: str | None = None,
                           mechanism: str = "mechanism", epsilon: str = "epsilon"):
    """One :func:`plot_vs_epsilon` panel per value of column ``panel``, one shared legend.

    ``expected`` names a column of analytic predictions, drawn dashed in each mechanism's
    colour next to the Monte Carlo points. Returns the figure.
    """
    names = list(pd.unique(data[panel]))
    nrows = -(-len(names) // ncols)
    ncols = min(ncols, len(names))
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.3 * ncols, 3.5 * nrows), squeeze=False)
    for ax, name in zip(axes.flat, names):
        sub = data[data[panel] == name]
        plot_vs_epsilon(sub, metric, ax=ax, logy=logy, ylabel=ylabel, title=str(name),
                        mechanism=mechanism, epsilon=epsilon)
        if expected is not None:
            pred = sub.groupby([mechanism, epsilon])[expected].first()
            for mech in pd.unique(sub[mechanism]):
                ax.plot(pred.loc[mech].index, pred.loc[mech].to_numpy(), ls="--", lw=0.8,
                        color=color(mech))
        ax.get_legend().remove()
    for ax in axes.flat[len(names):]:
        ax.set_axis_off()
    fig.legend(*axes.flat[0].get_legend_handles_labels(), loc="center left",
               bbox_to_anchor=(1.0, 0.5))
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig
