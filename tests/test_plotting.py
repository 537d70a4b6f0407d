"""Shared plotting style: fixed colours, and the metric-versus-ε helper draws bands."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from ldp_companion import mechanism_names  # noqa: E402
from ldp_companion.plotting import MECHANISM_COLORS, color, label, plot_vs_epsilon, use_style  # noqa: E402


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
    from ldp_companion.plotting import plot_panels_vs_epsilon

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
    from ldp_companion.plotting import epsilon_axis, marker, plain_log_y

    fig, ax = plt.subplots()
    ax.plot([0.1, 2], [0.002, 0.05])
    epsilon_axis(ax, [0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.5, 2])
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert len(labels) == 8 and labels[-1] == "2" and "" in labels
    shown = [float(t) for t in labels if t]
    assert all(b / a >= 1.45 for a, b in zip(shown, shown[1:])) and 2.0 in shown
    plain_log_y(ax)
    fig.canvas.draw()
    assert ax.get_yscale() == "log" and "×" not in "".join(t.get_text() for t in ax.get_yticklabels())
    assert marker("pm") == "^" and marker("unknown") == "o"
    plt.close(fig)


def _show(monkeypatch, fig, **kw):
    """Run plotting.show on ``fig``; return (facts, displayed objects)."""
    import IPython.display

    from ldp_companion.plotting import show

    shown = []
    monkeypatch.setattr(IPython.display, "display", shown.append)
    plt.figure(fig.number)
    facts = show(kw.pop("caption", "exceeds it at 3 of 4 bases, by 51%–75%"),
                 alt=kw.pop("alt", "Two curves against ε on a log axis."), **kw)
    return facts, shown


def test_show_stores_alt_text_and_facts_in_the_png(monkeypatch, tmp_path):
    from ldp_companion.plotting import png_facts

    use_style()
    fig, ax = plt.subplots(figsize=(5, 3))
    ax.plot([1, 2], [1, 2], color=color("pm"), label=label("pm"))
    ax.plot([1, 2], [2, 1], color=color("harmony"), label=label("harmony"))
    ax.legend()
    facts, shown = _show(monkeypatch, fig)
    image, text = shown
    assert text.data == "*Figure: exceeds it at 3 of 4 bases, by 51%–75%*"
    assert image.width == facts["width_px"] <= 520  # declared width: click to enlarge
    (tmp_path / "f.png").write_bytes(image.data)
    alt, stored = png_facts(tmp_path / "f.png")
    assert alt == "Two curves against ε on a log axis." and stored == facts
    assert facts["scale"] == 1.0 and facts["min_text_pt"] >= 9
    assert facts["legend"] == {"PM": "#2ca02c", "Harmony": "#ff7f0e"}
    assert not plt.get_fignums()  # closed: the inline backend does not show it a second time


def test_show_returns_facts_that_a_notebook_does_not_print():
    """``show(...)`` as a cell's last line must not print its facts under the figure."""
    from IPython.core.formatters import DisplayFormatter

    from ldp_companion.plotting import FigureFacts

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
    # a 14-inch figure (11.4 in once cropped) is scaled by 0.6 on the page: 11-pt ticks fall to 6.9 pt
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


MIN_LAB_DISTANCE = 20.0  # two colours closer than this in CIELAB are hard to tell apart in a legend


def test_palette_one_distinct_colour_per_mechanism(tmp_path):
    from ldp_companion.plotting import MECHANISM_ALIASES, SERIES_COLORS

    names = [n for n in MECHANISM_COLORS if n not in MECHANISM_ALIASES]
    lab = {n: _lab(MECHANISM_COLORS[n]) for n in names}
    pairs = [(np.linalg.norm(lab[a] - lab[b]), a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    closest = min(pairs)
    assert closest[0] > MIN_LAB_DISTANCE, f"{closest[1]} and {closest[2]} are too alike: {closest[0]:.1f}"
    for alias, name in MECHANISM_ALIASES.items():  # another name of one mechanism: its colour
        assert color(alias) == color(name)
    assert all(n in MECHANISM_COLORS for n in mechanism_names())
    assert len({label(n) for n in MECHANISM_COLORS}) == len(MECHANISM_COLORS)  # labels distinct
    series = [_lab(matplotlib.colors.to_rgb(c)) for c in SERIES_COLORS]
    assert min(np.linalg.norm(a - b) for i, a in enumerate(series) for b in series[i + 1:]) > MIN_LAB_DISTANCE
    # the swatch renders, one patch per name, each in its mechanism's colour
    fig, ax = plt.subplots(figsize=(6, 4))
    for i, n in enumerate(names):
        ax.barh(i, 1, color=MECHANISM_COLORS[n])
    ax.set_yticks(range(len(names)), [label(n) for n in names])
    fig.savefig(tmp_path / "palette.png")
    assert [matplotlib.colors.to_rgb(p.get_facecolor()) for p in ax.patches] == \
        [MECHANISM_COLORS[n] for n in names]
    plt.close(fig)


def test_palette_distance_check_fails_on_a_clash():
    """The mutant: a palette where HM-TP is grey again next to a dark-grey 'non-private'."""
    assert np.linalg.norm(_lab((0.5, 0.5, 0.5)) - _lab((0.4, 0.4, 0.4))) < MIN_LAB_DISTANCE


def test_legend_below_gathers_each_label_once_under_the_figure():
    from ldp_companion.plotting import legend_below

    fig, (a, b) = plt.subplots(1, 2)
    a.plot([1, 2], color=color("pm"), label="PM")
    b.plot([1, 2], color=color("pm"), label="PM")
    b.plot([2, 1], color=color("duchi"), label="Duchi")
    leg = legend_below(fig, ncol=4)
    assert [t.get_text() for t in leg.get_texts()] == ["PM", "Duchi"] and fig.legends == [leg]
    assert leg._ncols == 2  # no more columns than entries
    plt.close("all")
