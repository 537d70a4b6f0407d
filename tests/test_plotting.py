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


def test_every_mechanism_has_its_own_colour_and_label():
    names = mechanism_names()
    assert all(n in MECHANISM_COLORS for n in names)
    assert len({color(n) for n in MECHANISM_COLORS}) == len(MECHANISM_COLORS)
    assert label("pm_sub") == "PM-SUB"


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


def test_caption_shows_plain_text_and_refuses_tex(monkeypatch):
    import IPython.display

    from ldp_companion.plotting import caption

    shown = []
    monkeypatch.setattr(IPython.display, "display", shown.append)
    caption("exceeds it at 3 of 4 bases, by 51%–75%")
    assert shown[0].data == "*Figure: exceeds it at 3 of 4 bases, by 51%–75%*"
    for bad in ("the claimed $\\max(a, b)$", r"below 0.2\,ε"):
        with pytest.raises(ValueError, match="plain text"):
            caption(bad)
