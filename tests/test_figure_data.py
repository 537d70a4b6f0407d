"""Each figure's and table's CSV holds the numbers shown, with a provenance line."""
from __future__ import annotations

import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from plot_spy import mismatch

from ldp_companion.execution import figure_data, runner
from ldp_companion.page import tables
from ldp_companion.verdicts import run_records
from ldp_companion.verdicts.coverage import LEDGER_DIR_ENV


@pytest.fixture(autouse=True)
def _close_figures():
    """Each test's figures are closed after it (the plotting tests assert none is open)."""
    yield
    plt.close("all")


def _figure():
    fig, (left, right) = plt.subplots(1, 2)
    left.plot([0.5, 1.0, 2.0], [0.31, 0.17, 0.08], label="PM")
    left.errorbar([0.5, 1.0], [0.4, 0.2], yerr=[0.05, 0.02], label="Duchi")
    left.set_title("mean error")
    left.set_xlabel("ε")
    right.bar(["a", "b"], [5.0, 7.5], label="counts")
    right.imshow(np.arange(6.0).reshape(2, 3))
    return fig


def test_figure_frame_reads_back_every_plotted_number():
    frame = figure_data.figure_frame(_figure())
    pm = frame[frame.series == "PM"]
    assert pm.kind.tolist() == ["line"] * 3
    assert pm.y.tolist() == [0.31, 0.17, 0.08] and pm.x.tolist() == [0.5, 1.0, 2.0]
    assert set(pm.panel) == {"mean error"} and set(pm.x_label) == {"ε"}
    duchi = frame[frame.series == "Duchi"]  # one row per point, its bar's ends beside it
    assert duchi.kind.tolist() == ["errorbar"] * 2 and duchi.y.tolist() == [0.4, 0.2]
    assert duchi.y_low.round(12).tolist() == [0.35, 0.18]
    assert duchi.y_high.round(12).tolist() == [0.45, 0.22]
    assert frame[frame.kind == "bar"].y.tolist() == [5.0, 7.5]
    image = frame[frame.kind == "image"]
    assert image.value.tolist() == list(np.arange(6.0))
    assert image.row.tolist() == [0, 0, 0, 1, 1, 1]


def test_an_error_bar_drawn_apart_from_its_curve_takes_the_curve_s_name():
    """A helper that draws the bars without a label (fmt="none") and the labelled curve
    apart: every row of the bar still names its series (60-80 % of the rows had none)."""
    fig, ax = plt.subplots()
    ax.plot([1.0, 2.0, 4.0], [0.3, 0.2, 0.1], marker="o", label="PM")
    ax.errorbar([1.0, 2.0, 4.0], [0.3, 0.2, 0.1], yerr=[0.01, 0.02, 0.03], fmt="none",
                capsize=3)
    frame = figure_data.figure_frame(fig)
    plt.close(fig)
    assert (frame.series == "PM").all(), frame
    bars = frame[frame.kind == "errorbar"]
    assert bars.y.round(12).tolist() == [0.3, 0.2, 0.1]
    assert (bars.y_high - bars.y).round(12).tolist() == [0.01, 0.02, 0.03]
    assert len(frame) == 6  # the curve's three points and the bar's three, no caps


def test_an_unlabelled_curve_in_a_series_colour_takes_its_name():
    """Chapter 5's dashed predictions are drawn unlabelled in their points' colour: their
    rows name that series (95 % of Fig. 5.5's rows had no series); a colour two series share
    names neither."""
    fig, ax = plt.subplots()
    ax.errorbar([1.0, 2.0], [0.3, 0.2], yerr=[0.01, 0.02], color="#0077bb", label="HierA")
    ax.plot([1.0, 1.5, 2.0], [0.31, 0.25, 0.19], ls="--", color="#0077bb")
    ax.plot([1.0, 2.0], [0.5, 0.4], color="#cc3311", label="PM")
    ax.plot([1.0, 2.0], [0.6, 0.5], color="#cc3311", label="PM-SUB")
    ax.plot([1.0, 2.0], [0.7, 0.6], ls=":", color="#cc3311")
    frame = figure_data.figure_frame(fig)
    dashed = frame[(frame.kind == "line") & (frame.y.isin([0.31, 0.25, 0.19]))]
    assert dashed.series.tolist() == ["HierA"] * 3
    dotted = frame[frame.y.isin([0.7])]
    assert dotted.series.isna().all() or (dotted.series == "").all()


def test_a_reference_line_is_one_value_named_by_its_gid():
    """axhline/axvline draw in axes coordinates across the panel: their rows hold the one value
    (not x = 0 and 1 of the axes), named by the gid a figure gives them for the CSV only."""
    fig, ax = plt.subplots()
    ax.plot([1.0, 2.0], [0.3, 0.4], label="PM")
    ax.axhline(0.93, gid="without noise")
    ax.axvline(1.5)
    frame = figure_data.figure_frame(fig)
    plt.close(fig)
    ref = frame[frame.kind == "reference"]
    assert ref.series.tolist() == ["without noise", "reference line"]
    assert ref.y.tolist()[0] == 0.93 and np.isnan(ref.x.tolist()[0])
    assert ref.x.tolist()[1] == 1.5 and np.isnan(ref.y.tolist()[1])
    assert frame.series.notna().all()


def test_a_categorical_map_names_each_cell_by_its_legend_colour_and_keeps_its_text():
    """Appendix C's decision map: colour codes in an image, the winner in the legend, the
    lead written on the cell. Each cell's row names the winner (a masked cell the bad
    colour's entry) and carries its text; a colour bar's own axes give no rows."""
    from matplotlib.colors import ListedColormap

    fig, ax = plt.subplots()
    cmap = ListedColormap(["#1f77b4", "#ff7f0e"]).with_extremes(bad="#bbbbbb")
    codes = np.ma.masked_invalid([[0.0, 1.0], [np.nan, 0.0]])
    ax.imshow(codes, cmap=cmap, vmin=-0.5, vmax=1.5)
    for (i, j), text in np.ndenumerate([["+0.10", "tie"], ["", "+0.30"]]):
        ax.text(j, i, text)
    for name, colour in (("PM", "#1f77b4"), ("Duchi", "#ff7f0e"), ("none", "#bbbbbb")):
        ax.plot([], [], ls="", marker="s", color=colour, label=name)
    fig2, ax2 = plt.subplots()
    image = ax2.imshow(np.arange(4.0).reshape(2, 2))
    fig2.colorbar(image, ax=ax2, label="excess over\nthe claim")
    frame, frame2 = figure_data.figure_frame(fig), figure_data.figure_frame(fig2)
    plt.close("all")
    cells = frame[frame.kind == "image"]
    assert cells.series.tolist() == ["PM", "Duchi", "none", "PM"]
    assert cells.text.fillna("").tolist() == ["+0.10", "tie", "", "+0.30"]
    assert (frame2.series == "excess over the claim").all() and len(frame2) == 4


def test_spy_comparison_fails_on_a_csv_that_is_not_the_figure():
    given = [{"method": "plot", "values": [0.5, 1.0, 2.0, 0.31, 0.17, 0.08]}]
    frame = figure_data.figure_frame(_figure())
    left = frame[frame.series == "PM"]
    assert mismatch(given, left) == []
    shifted = left.assign(y=left.y * 1.001)
    assert mismatch(given, shifted)
    extra = pd.concat([left, left.assign(y=left.y + 3)])  # a curve that was never plotted
    assert mismatch(given, extra)


def test_nothing_is_written_outside_a_runner_kernel(tmp_path, monkeypatch):
    monkeypatch.delenv(run_records.CHAPTER_ENV, raising=False)
    monkeypatch.setenv(LEDGER_DIR_ENV, str(tmp_path))
    assert figure_data.publish("Figure 1", pd.DataFrame({"x": [1]}), "a caption") == ""
    assert list(tmp_path.iterdir()) == []


def _in_kernel(tmp_path, monkeypatch, source):
    monkeypatch.setenv(run_records.CHAPTER_ENV, "03-pm-three-outputs")
    monkeypatch.setenv(LEDGER_DIR_ENV, str(tmp_path))
    monkeypatch.setenv(figure_data.RUN_ENV, figure_data.run_context(
        {"profile": "smoke", "seed": 3}, {"profile": "smoke", "seed": 3, "n": 10}, source,
        "x86_64, 2 cores", "03-pm-three-outputs"))


def test_a_figure_gets_its_csv_and_a_provenance_line_naming_the_commit(tmp_path, monkeypatch):
    _in_kernel(tmp_path, monkeypatch, runner.source_state())
    (tmp_path / "03-pm-three-outputs.data.json").write_text(json.dumps(
        {"ctg": {"bytes": 10, "sha256": "ab" * 32}}))
    frame = figure_data.figure_frame(_figure())
    line = figure_data.publish("Figure 3.2", frame, "The error of each mechanism.")
    folder = tmp_path / "figdata" / "03-pm-three-outputs"
    assert 'href="figdata/03-pm-three-outputs/figure-3-2.csv"' in line
    back = pd.read_csv(folder / "figure-3-2.csv")
    assert np.array_equal(back.y.to_numpy(), frame.y.to_numpy(), equal_nan=True)
    record = json.loads((folder / "figure-3-2.json").read_text())
    commit = runner.source_state()["commit"]
    assert commit and record["commit"] == commit and commit[:10] in line
    assert record["seed"] == 3 and record["profile"] == "smoke"
    assert record["data_sha256"] == {"ctg": "ab" * 32} and "ctg sha256 abababab" in line
    assert len(record["parameters_sha256"]) == 64 and record["parameters"]["n"] == 10
    assert record["rerun"] == (f"git checkout {commit[:12]} && python -m ldp_companion run 03 "
                               "-p profile smoke -p seed 3")
    assert isinstance(record["uncommitted_changes"], bool)


def test_a_dirty_tree_and_an_installed_package_are_said(tmp_path, monkeypatch):
    dirty = {"commit": "f" * 40, "uncommitted_changes": True, "constraints_sha256": "c" * 64}
    _in_kernel(tmp_path, monkeypatch, dirty)
    line = figure_data.publish("Figure 3.1", pd.DataFrame({"x": [1.0]}), "A caption here.")
    assert "commit ffffffffff with uncommitted changes" in line
    _in_kernel(tmp_path, monkeypatch, {"commit": None, "uncommitted_changes": None,
                                       "constraints_sha256": None})
    line = figure_data.publish("Figure 3.2", pd.DataFrame({"x": [1.0]}), "A caption here.")
    assert "no git commit" in line and "constraints.txt absent" in line


def test_a_table_gets_its_csv_under_it(tmp_path, monkeypatch):
    _in_kernel(tmp_path, monkeypatch, runner.source_state())
    df = pd.DataFrame({"eps": [0.5, 1.0], "mse": [0.123456789, 0.0625]})
    shown = tables.show_table(df, "Error against ε", labels={"eps": "ε", "mse": "MSE"})
    html = shown._repr_html_()
    assert html.index("</table>") < html.index('class="provenance"')
    csv = sorted((tmp_path / "figdata" / "03-pm-three-outputs").glob("table-*.csv"))[-1]
    back = pd.read_csv(csv)
    assert list(back.columns) == ["ε", "MSE"]
    assert back["MSE"].tolist() == [0.123456789, 0.0625]  # full precision, not the 3 digits shown
    assert shown.set_properties(color="black")._repr_html_().endswith("</p>")  # survives chaining


@pytest.mark.parametrize("bad", [None, "x"])
def test_figure_frame_of_an_empty_figure_is_empty(bad):
    fig = plt.figure()
    if bad:
        fig.add_subplot().set_title(bad)
    assert figure_data.figure_frame(fig).empty


def test_a_long_csv_is_written_compressed(tmp_path, monkeypatch):
    _in_kernel(tmp_path, monkeypatch, runner.source_state())
    frame = pd.DataFrame({"x": np.linspace(0, 1, 60_000), "y": np.linspace(1, 2, 60_000)})
    line = figure_data.publish("Figure 3.4", frame, "A long curve of many points.")
    path = tmp_path / "figdata" / "03-pm-three-outputs" / "figure-3-4.csv.gz"
    assert path.is_file() and "figure-3-4.csv.gz" in line and " MB)" in line
    assert np.array_equal(pd.read_csv(path).to_numpy(), frame.to_numpy())
