"""Shared plotting style: fixed colours, and the metric-versus-ε helper draws bands."""
from __future__ import annotations

import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import to_hex

from ldp_companion import mechanism_names
from ldp_companion.page.plotting import MECHANISM_COLORS, color, label, plot_vs_epsilon, use_style


def test_plot_vs_epsilon_lines_and_bands(tmp_path):
    use_style()
    rng = np.random.default_rng(0)
    df = pd.DataFrame([{"mechanism": m, "epsilon": e, "seed": s, "mse": 1 / e + rng.random()}
                       for m in ("duchi", "pm") for e in (0.5, 1, 2) for s in range(3)])
    fig, ax = plt.subplots()
    plot_vs_epsilon(df, "mse", ax=ax, ylabel="MSE")
    assert len(ax.lines) == 2 and len(ax.collections) == 2  # one band per mechanism
    assert ax.get_xscale() == "log" and ax.get_xlabel() == "privacy budget ε"
    np.testing.assert_allclose(ax.lines[0].get_ydata(),
                               df[df.mechanism == "duchi"].groupby("epsilon")["mse"].mean())
    fig.savefig(tmp_path / "f.png")
    assert (tmp_path / "f.png").stat().st_size > 1000
    plt.close(fig)


def test_plot_vs_epsilon_bad_column():
    with pytest.raises(ValueError, match="column 'nope'"):
        plot_vs_epsilon(pd.DataFrame({"epsilon": [1], "mechanism": ["pm"]}), "nope")


def test_log_band_is_multiplicative_and_positive():
    df = pd.DataFrame({"mechanism": "pm", "epsilon": [1, 1, 2, 2], "seed": [0, 1, 0, 1],
                       "mse": [1e-4, 1e-2, 1e-5, 1e-3]})
    fig, ax = plt.subplots()
    plot_vs_epsilon(df, "mse", ax=ax, logy=True)
    np.testing.assert_allclose(ax.lines[0].get_ydata(), [0.00505, 0.000505])
    band = ax.collections[0].get_paths()[0].vertices[:, 1]
    assert band.min() > 0
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1", "2"]
    with pytest.raises(ValueError, match="positive"):
        plot_vs_epsilon(df.assign(mse=[0, 1, 1, 1]), "mse", logy=True)
    plt.close(fig)


def test_panels_share_one_legend_and_draw_predictions():
    from ldp_companion.page.plotting import plot_panels_vs_epsilon

    df = pd.DataFrame([{"dataset": ds, "mechanism": m, "epsilon": e, "seed": s,
                        "mse": 1 / e, "expected_mse": 1.1 / e}
                       for ds in ("a", "b", "c", "d") for m in ("pm", "duchi")
                       for e in (1, 2) for s in range(2)])
    fig = plot_panels_vs_epsilon(df, "mse", "dataset", expected="expected_mse", ncols=3)
    axes = [ax for ax in fig.axes if ax.axison]
    assert len(axes) == 4 and len(fig.legends) == 1
    assert all(len(ax.lines) == 4 for ax in axes)  # 2 mechanisms + 2 dashed predictions
    assert [ax.get_title() for ax in axes] == ["a", "b", "c", "d"]
    plt.close(fig)


def test_epsilon_axis_thins_crowded_labels_and_plain_log_y():
    from ldp_companion.page.plotting import epsilon_axis, marker, plain_log_y

    fig, ax = plt.subplots()
    ax.plot([0.1, 2], [0.002, 0.05])
    epsilon_axis(ax, [0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.5, 2])
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert len(labels) == 8 and labels[-1] == "2" and "" in labels
    shown = [float(t) for t in labels if t]
    assert all(b / a >= 1.45 for a, b in zip(shown, shown[1:])) and 2.0 in shown
    plain_log_y(ax)
    fig.canvas.draw()
    assert ax.get_yscale() == "log"
    assert "×" not in "".join(t.get_text() for t in ax.get_yticklabels())
    assert marker("pm") == "^" and marker("unknown") == "o"
    plt.close(fig)


def _show(monkeypatch, fig, **kw):
    """Run plotting.show on ``fig``; return (facts, displayed objects)."""
    import IPython.display

    from ldp_companion.page.plotting import show

    shown = []
    monkeypatch.setattr(IPython.display, "display", shown.append)
    plt.figure(fig.number)
    facts = show(kw.pop("caption", "exceeds it at 3 of 4 bases, by 51%–75%"),
                 alt=kw.pop("alt", "Two curves against ε on a log axis."), **kw)
    return facts, shown


def test_show_stores_alt_text_and_facts_in_the_png(monkeypatch, tmp_path):
    from ldp_companion.page.plotting import png_facts

    use_style()
    fig, ax = plt.subplots(figsize=(5, 3))
    ax.plot([1, 2], [1, 2], color=color("pm"), label=label("pm"))
    ax.plot([1, 2], [2, 1], color=color("harmony"), label=label("harmony"))
    ax.legend()
    facts, shown = _show(monkeypatch, fig)
    image, text = shown
    assert re.fullmatch(r"\*Figure [0-9.]+\. Exceeds it at 3 of 4 bases, by 51%–75%\*", text.data)
    assert image.width == facts["width_px"] <= 520  # declared width: click to enlarge
    (tmp_path / "f.png").write_bytes(image.data)
    alt, stored = png_facts(tmp_path / "f.png")
    assert alt == "Two curves against ε on a log axis." and stored == facts
    assert facts["scale"] == 1.0 and facts["min_text_pt"] >= 9
    assert facts["legend"] == {"PM": to_hex(color("pm")), "Harmony": to_hex(color("harmony"))}
    assert not plt.get_fignums()  # closed: the inline backend does not show it a second time


def test_show_returns_facts_that_a_notebook_does_not_print():
    """``show(...)`` as a cell's last line must not print its facts under the figure."""
    from IPython.core.formatters import DisplayFormatter

    from ldp_companion.page.plotting import FigureFacts

    facts = FigureFacts(width_px=600)
    assert facts["width_px"] == 600  # still a dict for the caller
    assert DisplayFormatter().format(facts) == ({}, {})
    # the mutant: a plain dict would be printed as the cell's output
    assert "text/plain" in DisplayFormatter().format(dict(facts))[0]


def test_show_refuses_tex_missing_alt_and_small_text(monkeypatch):
    for kw, match in [({"caption": "the claimed $\\max(a, b)$ is broken"}, "plain text"),
                      ({"caption": r"below 0.2\,ε at every base of the grid"}, "plain text"),
                      ({"alt": ""}, "alt text must be a sentence"),
                      ({"alt": "figure"}, "alt text must be a sentence")]:
        fig, _ = plt.subplots(figsize=(4, 3))
        with pytest.raises(ValueError, match=match):
            _show(monkeypatch, fig, **kw)
        plt.close("all")
    # a 14-inch figure (11.4 in once cropped) is scaled by 0.6 on the page: 11-pt ticks fall
    # to 6.9 pt
    use_style()
    fig, ax = plt.subplots(figsize=(14, 3))
    ax.plot([1, 2], [1, 2])
    with pytest.raises(ValueError, match=r"would show at 6\.9 pt on the page"):
        _show(monkeypatch, fig)
    # the same figure with text large enough for the scale passes
    fig, ax = plt.subplots(figsize=(14, 3))
    ax.plot([1, 2], [1, 2])
    ax.tick_params(labelsize=20)
    ax.set_title("a title", fontsize=20)
    facts, _ = _show(monkeypatch, fig)
    assert facts["scale"] < 0.65 and facts["min_text_pt"] >= 9


def _lab(rgb):
    """sRGB (0–1) to CIELAB (D65)."""
    c = np.asarray(rgb, float)
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    m = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
    xyz = m @ lin / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


#: The mechanisms each chapter draws together (its figures' legends): their colours must stay
#: apart for every reader, a colour-blind one included.
DRAWN_TOGETHER = {
    "ch1": ["tldp_l", "tldp_g", "laplace", "gaussian", "idn", "mvg", "non_private"],
    "ch2": ["idn", "gauss_paper", "udn", "tvg", "mvg", "jl", "gaussian", "non_private"],
    "ch3": ["laplace", "duchi", "duchi_md", "pm", "hm", "three_outputs", "pm_opt", "pm_sub",
            "hm_tp", "non_private", "a mechanism the book does not know"],
    "ch4": ["non_private", "spof", "spof_exact", "fm", "dpsgd_logit", "gaussian", "authors_v1"],
    "ch5": ["hiera", "duchi", "pm", "graded_laplace", "non_private"],
    "B": ["laplace", "duchi", "pm", "hm_tp", "a mechanism the book does not know"],
}


def closest_pair(colours: dict) -> tuple:
    from ldp_companion.page.plotting import cvd_distance

    names = list(colours)
    return min((cvd_distance(colours[a], colours[b]), a, b)
               for i, a in enumerate(names) for b in names[i + 1:])


def test_palette_keeps_each_chapters_mechanisms_apart_for_colour_blind_readers(tmp_path):
    from ldp_companion.page.plotting import MECHANISM_ALIASES, MIN_CVD_DISTANCE, SERIES_COLORS

    for chapter, names in DRAWN_TOGETHER.items():
        d, a, b = closest_pair({n: color(n) for n in names})
        assert d >= MIN_CVD_DISTANCE, f"{chapter}: {a} and {b} are {d:.1f} apart"
    for alias, name in MECHANISM_ALIASES.items():  # another name of one mechanism: its colour
        assert color(alias) == color(name)
    assert all(n in MECHANISM_COLORS for n in mechanism_names())
    assert len({label(n) for n in MECHANISM_COLORS}) == len(MECHANISM_COLORS)  # labels distinct
    d, a, b = closest_pair(dict(enumerate(SERIES_COLORS)))
    assert d >= MIN_CVD_DISTANCE, f"series colours {a} and {b} are {d:.1f} apart"
    # the swatch renders, one patch per name, each in its mechanism's colour
    names = [n for n in MECHANISM_COLORS if n not in MECHANISM_ALIASES]
    fig, ax = plt.subplots(figsize=(6, 4))
    for i, n in enumerate(names):
        ax.barh(i, 1, color=MECHANISM_COLORS[n])
    ax.set_yticks(range(len(names)), [label(n) for n in names])
    fig.savefig(tmp_path / "palette.png")
    assert [matplotlib.colors.to_rgb(p.get_facecolor()) for p in ax.patches] == \
        [MECHANISM_COLORS[n] for n in names]
    plt.close(fig)


def test_palette_check_fails_on_the_old_colours_that_collapse_for_colour_blind_readers():
    """The mutant: the tab10 greens and reds of PM and HM, apart for normal vision, the same
    olive for a deuteranope."""
    from ldp_companion.page.plotting import MIN_CVD_DISTANCE, cvd_clashes, cvd_distance

    old = {"PM": "#2ca02c", "HM": "#d62728"}
    assert closest_pair(old)[0] < MIN_CVD_DISTANCE
    assert (cvd_distance("#2ca02c", "#d62728") < MIN_CVD_DISTANCE
            < cvd_distance("#000000", "#ffffff"))
    entries = {k: {"color": v, "marker": "o", "dash": "-"} for k, v in old.items()}
    assert len(cvd_clashes(entries)) == 1
    # one colour on purpose, told apart by the marker: no clash; the same look: a clash
    twins = {"TLDP-L": {"color": "#e69f00", "marker": "o", "dash": "-"},
             "TLDP-L-w": {"color": "#e69f00", "marker": "x", "dash": "-"}}
    assert cvd_clashes(twins) == []
    twins["TLDP-L-w"]["marker"] = "o"
    assert len(cvd_clashes(twins)) == 1
    # a diamond and a thin diamond (chapter 2's IDN and IDN (W = E) before): the same look
    twins = {"IDN": {"color": "#74add1", "marker": "D", "dash": "-"},
             "IDN (W = E)": {"color": "#74add1", "marker": "d", "dash": "-"}}
    assert len(cvd_clashes(twins)) == 1
    twins["IDN (W = E)"]["marker"] = "x"
    assert cvd_clashes(twins) == []


def test_a_shown_figure_records_its_legend_styles_and_clashes(monkeypatch):
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.plot([1, 2], [1, 2], color="#2ca02c", marker="o", label="PM")
    ax.plot([1, 2], [2, 1], color="#d62728", marker="o", label="HM")
    ax.legend()
    facts, _ = _show(monkeypatch, fig)
    style = facts["legend_styles"]["PM"]
    assert (style["color"], style["marker"], style["dash"][0]) == ("#2ca02c", "o", "-")
    assert len(facts["cvd_clashes"]) == 1


def test_legend_below_gathers_each_label_once_under_the_figure():
    from ldp_companion.page.plotting import legend_below

    fig, (a, b) = plt.subplots(1, 2)
    a.plot([1, 2], color=color("pm"), label="PM")
    b.plot([1, 2], color=color("pm"), label="PM")
    b.plot([2, 1], color=color("duchi"), label="Duchi")
    leg = legend_below(fig, ncol=4)
    assert [t.get_text() for t in leg.get_texts()] == ["PM", "Duchi"] and fig.legends == [leg]
    assert leg._ncols == 2  # no more columns than entries
    plt.close("all")


def test_epsilon_axis_labels_powers_of_ten_first_and_never_in_e_notation():
    from ldp_companion.page.plotting import epsilon_axis, tick_text

    fig, ax = plt.subplots()
    ticks = [1, 8, 10, 30, 80, 100, 300, 800, 1000, 3000, 1e5, 1e6]
    epsilon_axis(ax, ticks, min_ratio=3.5)
    shown = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    assert {"1", "10", "100", "1000", "10⁵", "10⁶"} <= set(shown)
    assert "30" not in shown and "8" not in shown  # too close to a labelled decade
    assert not any("e+" in t for t in shown)
    assert ([tick_text(v) for v in (0.5, 3000, 1e4, 3e5, 1e-4)]
            == ["0.5", "3000", "10⁴", "3×10⁵", "10⁻⁴"])
    plt.close(fig)


def test_figures_and_tables_are_numbered_per_chapter(monkeypatch):
    import pandas as pd

    from ldp_companion.page import numbering
    from ldp_companion.page.tables import show_table
    from ldp_companion.verdicts import run_records

    monkeypatch.setattr(numbering, "_COUNTERS", {})
    monkeypatch.setenv(run_records.CHAPTER_ENV, "03-pm-three-outputs")
    assert numbering.next_number("Figure") == "Figure 3.1"
    assert numbering.next_number("Figure") == "Figure 3.2"
    assert "Table 3.1. Two rows" in show_table(pd.DataFrame({"a": [1, 2]}), "Two rows").to_html()
    monkeypatch.setenv(run_records.CHAPTER_ENV, "A-audit")
    assert numbering.next_number("Table") == "Table A.2"
    monkeypatch.setenv(run_records.CHAPTER_ENV, "verdicts")
    assert numbering.next_number("Figure") == "Figure 3"
    monkeypatch.delenv(run_records.CHAPTER_ENV)
    assert numbering.next_number("Figure") == "Figure 4"


def test_the_default_colour_cycle_is_safe_for_colour_blind_readers():
    from ldp_companion.page.plotting import DEFAULT_CYCLE, MIN_CVD_DISTANCE

    assert closest_pair(dict(enumerate(DEFAULT_CYCLE)))[0] >= MIN_CVD_DISTANCE
    use_style()
    assert matplotlib.rcParams["axes.prop_cycle"].by_key()["color"] == DEFAULT_CYCLE


def test_scatter_markers_of_one_colour_are_told_apart_by_shape(monkeypatch):
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.scatter([1], [1], marker="x", color="#cc3311", label="above claim")
    ax.scatter([2], [2], marker="^", color="#cc3311", label="at the top")
    ax.legend()
    facts, _ = _show(monkeypatch, fig)
    assert facts["cvd_clashes"] == []
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.scatter([1], [1], marker="x", color="#cc3311", label="above claim")
    ax.scatter([2], [2], marker="x", color="#cc3311", label="at the top")
    ax.legend()
    facts, _ = _show(monkeypatch, fig)
    assert len(facts["cvd_clashes"]) == 1


def test_the_mechanisms_a_chapter_draws_together_have_distinct_markers():
    from ldp_companion.page.plotting import marker

    for chapter, names in DRAWN_TOGETHER.items():
        drawn = [n for n in names if n in MECHANISM_COLORS]
        assert len({marker(n) for n in drawn}) == len(drawn), chapter


def test_custom_dash_patterns_tell_black_lines_apart(monkeypatch):
    fig, ax = plt.subplots(figsize=(4, 3))
    for i, style in enumerate(["--", (0, (5, 1)), (0, (1, 1))]):
        ax.plot([1, 2], [i, i + 1], color="black", ls=style, label=f"line {i}")
    ax.legend()
    facts, _ = _show(monkeypatch, fig)
    assert facts["cvd_clashes"] == []


def test_error_bar_curves_are_told_apart_by_their_data_line(monkeypatch):
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.errorbar([1, 2], [1, 2], yerr=[0.1, 0.1], marker="s", ls="-", color="#0077bb", label="A")
    ax.errorbar([1, 2], [2, 3], yerr=[0.1, 0.1], marker="x", ls=":", color="#0077bb", label="B")
    ax.legend()
    facts, _ = _show(monkeypatch, fig)
    assert facts["cvd_clashes"] == [] and facts["legend_styles"]["B"]["marker"] == "x"
    fig, ax = plt.subplots(figsize=(4, 3))
    for name in ("A", "B"):
        ax.errorbar([1, 2], [1, 2], yerr=[0.1, 0.1], marker="s", color="#0077bb", label=name)
    ax.legend()
    facts, _ = _show(monkeypatch, fig)
    assert len(facts["cvd_clashes"]) == 1
