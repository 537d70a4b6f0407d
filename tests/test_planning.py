"""``plan``: projections from timing records (work ratios, worker speed-ups, lower bounds),
and the per-cell records a chapter run writes for them (parameters read, grids run)."""
from __future__ import annotations

import json
import math

import pytest
from test_grid import CELLS, mean_error

from ldp_companion.__main__ import main
from ldp_companion.data.datasets import DATA_ENV
from ldp_companion.edition import planning
from ldp_companion.execution import grid, profiles
from ldp_companion.verdicts import run_records
from ldp_companion.verdicts.ledger import LEDGER_DIR_ENV
from ldp_companion.verdicts.run_records import CHAPTER_ENV


def test_work_of_a_parameter_value():
    assert planning.work(100) == 100 and planning.work([0.5, 1.0, 2.0]) == 3
    assert planning.work({"a": 3, "b": 5}) == 8 and planning.work(0.5) == 1.0
    assert planning.work(None) is None and planning.work("all") is None
    assert planning._ratio(10, 100) == 10 and planning._ratio([], [1, 2]) is None
    assert planning._ratio({"digits": 20, "mnist": 10}, 20) == pytest.approx(20 / 15)
    assert planning._ratio(5000, None) is None and planning._ratio(True, False) is None


def _scaling(folder, rows, other=None):
    grids = {"g": {"runs": 1, "rows": [{"workers": w, "speed-up": s} for w, s in rows]}}
    if other:
        grids["h"] = {"runs": 1, "rows": [{"workers": w, "speed-up": s} for w, s in other]}
    (folder / "scaling-test.json").write_text(json.dumps({"machine": "16 cores",
                                                          "grids": grids}))


def test_speedup_interpolates_the_measured_efficiency(tmp_path):
    _scaling(tmp_path, [(1, 1.0), (2, 2.0), (8, 4.0)])
    assert planning.speedup(1, tmp_path) == 1.0
    assert planning.speedup(2, tmp_path) == 2.0 and planning.speedup(8, tmp_path) == 4.0
    # between 2 (efficiency 1) and 8 (0.5), 4 is halfway in log2: efficiency 0.75
    assert planning.speedup(4, tmp_path) == pytest.approx(3.0)
    assert planning.speedup(16, tmp_path) == pytest.approx(8.0)  # efficiency held at 0.5
    _scaling(tmp_path, [(1, 1.0), (2, 2.0), (8, 4.0)], other=[(1, 1.0), (2, 1.0), (8, 2.0)])
    assert planning.speedup(8, tmp_path, "g") == 4.0      # a grid's own measured speed-up
    assert planning.speedup(8, tmp_path, "h") == 2.0
    assert planning.speedup(8, tmp_path) == 3.0           # any other: the mean


def _record(folder, machine="2 cores, no GPU", **kw):
    rec = {"chapter": "05-hiera", "parameters": {"profile": "paper", "cv_repeats": 1},
           "machine": machine, "complete": True, "seconds": 130.0, "cells": [
               {"cell": 3, "code": "tasks = ...", "status": "completed", "seconds": 100.0,
                "uses": ["cv_repeats", "seed"], "grid_seconds": 80.0,
                "grids": [{"grid": "g", "cells": 50, "workers": 2, "seconds": 80.0}]},
               {"cell": 5, "code": "audit", "status": "completed", "seconds": 20.0,
                "uses": ["n_audit"]},
               {"cell": None, "code": "other cells", "status": "completed", "seconds": 10.0,
                "uses": []}], **kw}
    (folder / "05-hiera-test.json").write_text(json.dumps(rec))
    return rec


def test_projection_scales_work_and_divides_the_grid_share(tmp_path):
    _scaling(tmp_path, [(1, 1.0), (2, 2.0), (8, 4.0)])
    rec = _record(tmp_path)
    table = planning.project(rec, "paper", 8, tmp_path).set_index("code")
    # cv_repeats 1 -> 10 repeats the grid; its 80 s on 2 workers -> on 8: speed-up 4 over 2
    assert table.loc["tasks = ...", "work ×"] == 10
    assert table.loc["tasks = ...", "projected (s)"] == pytest.approx(20 + 80 * 2 / 4 * 10)
    assert table.loc["audit", "projected (s)"] == 20.0  # n_audit: the record ran paper's
    smoke = planning.project(rec, "smoke", 2, tmp_path).set_index("code")
    assert smoke.loc["audit", "work ×"] == pytest.approx(200_000 / 10_000_000)
    p = planning.plan("hiera", "paper", 8, "cpu", tmp_path)
    assert p.seconds == pytest.approx(20 + 40 * 10 + 20 + 10)
    assert not p.lower_bound and "05-hiera-test.json" in p.basis


def test_a_plan_without_a_record_or_with_unmeasured_work_says_so(tmp_path):
    p = planning.plan("hiera", "paper", 4, "cpu", tmp_path)
    assert p.cells is None and p.seconds is None and "no run" in p.notes[0]
    rec = _record(tmp_path)
    rec["parameters"]["profile"] = "smoke"  # smoke's eps lists differ only in length
    (tmp_path / "05-hiera-test.json").write_text(json.dumps(rec))
    gpu = planning.plan("hiera", "paper", 16, "cuda", tmp_path)  # numpy only: the cores
    assert "uses no GPU" in gpu.notes[0] and gpu.device == "cpu"
    rec["chapter"] = "01-tldp"
    (tmp_path / "01-tldp-test.json").write_text(json.dumps(rec))
    torch_chapter = planning.plan("tldp", "paper", 16, "cuda", tmp_path)
    assert "no run of this chapter was timed on a GPU" in torch_chapter.notes[0]
    # shipped records: chapter 2's paper run here lacked the files of Types II-III's paper
    # networks, and no record times them apart: a lower bound that names them
    tvg = planning.plan("tvg", "paper", 16, "cpu")
    assert tvg.lower_bound and any("cifar10" in u and "imdb" in u for u in tvg.unmeasured)
    with pytest.raises(ValueError, match="workers"):
        planning.plan("hiera", "paper", 0)
    with pytest.raises(ValueError, match="device"):
        planning.plan("hiera", "paper", 2, "tpu")


def test_every_chapter_has_a_projection_from_the_shipped_records(capsys):
    table = planning.summary()
    assert list(table.index) == ["01-tldp", "02-tvg", "03-pm-three-outputs", "04-spof",
                                 "05-hiera"]
    hours = table.drop(columns=["from", "left out (≥)"])
    assert "paper_tasks" in table.loc["02-tvg", "left out (≥)"]
    assert not (hours == "—").any().any()
    for chapter in table.index:
        assert main(["plan", chapter.split("-")[0], "--workers", "16"]) == 0
        out = capsys.readouterr().out
        assert "Total, projected:" in out and "data fetch" in out and "--out runs/" in out


def test_a_run_notes_the_parameters_each_cell_reads(tmp_path, monkeypatch):
    monkeypatch.setenv(CHAPTER_ENV, "05-hiera")
    monkeypatch.setenv(LEDGER_DIR_ENV, str(tmp_path))
    monkeypatch.setattr(run_records, "current_cell", lambda: 7)
    monkeypatch.setattr(profiles, "_READS", set())
    cfg = profiles.ChapterConfig("smoke", 0, {"runs": 3, "n_mc": 10})
    assert cfg.runs == 3 and cfg.runs == 3
    monkeypatch.setattr(run_records, "current_cell", lambda: 8)
    assert cfg.n_mc == 10
    assert json.loads((tmp_path / "05-hiera.reads.json").read_text()) == {
        "7": ["runs"], "8": ["n_mc"]}
    grid.run_grid(mean_error, CELLS[:3], seed=1, n_jobs=1, description="test grid")
    noted = json.loads((tmp_path / "05-hiera.grids.json").read_text())["8"]
    assert [(g["grid"], g["cells"], g["workers"]) for g in noted] == [("test grid", 3, 1)]
    assert isinstance(noted[0]["seconds"], float)
    monkeypatch.delenv(CHAPTER_ENV)  # outside a runner's kernel: nothing is written
    assert run_records.record_path("reads") is None


def test_timing_record_joins_reads_and_grids(tmp_path, monkeypatch):
    from test_benchmarks import _load, _notebook

    paper_profile = _load("paper_profile", monkeypatch)
    path = _notebook(tmp_path, [("completed", 0.5), ("completed", 30.0)], 31)
    nb = json.loads(path.read_text())
    for i, cell in enumerate(nb["cells"]):
        cell["execution_count"] = i + 2
    path.write_text(json.dumps(nb))
    (tmp_path / "05-hiera.reads.json").write_text(json.dumps({"3": ["n_real"]}))
    (tmp_path / "05-hiera.grids.json").write_text(json.dumps(
        {"3": [{"grid": "g", "cells": 4, "computed": 4, "workers": 2, "seconds": 25.0}]}))
    cell = paper_profile.record(path, "2 cores")["cells"][0]
    assert cell["uses"] == ["n_real", "runs", "seed"] and cell["grid_seconds"] == 25.0
    assert math.isclose(cell["seconds"], 30.0)


def test_a_real_kernel_notes_reads_and_grids_under_the_cell_that_ran_them(tmp_path,
                                                                         monkeypatch):
    """papermill's execution counts and the kernel's own agree: the record puts each read and
    each grid in the cell that made it. And a chapter executed without a store never uses
    one from the environment (a build or a mutant must compute every cell)."""
    from test_benchmarks import _load

    source = tmp_path / "05-hiera.md"
    source.write_text(
        "---\njupyter:\n  kernelspec:\n    name: python3\n    display_name: Python 3\n---\n\n"
        "```python\nfrom ldp_companion.execution.profiles import ChapterConfig\n"
        "from ldp_companion.execution.grid import run_grid\n"
        "cfg = ChapterConfig('smoke', 0, {'runs': 2, 'n_mc': 5})\n```\n\n"
        "```python\nx = cfg.runs\n```\n\n"
        "```python\nimport time\ny = cfg.n_mc\n"
        "out = run_grid(lambda a, rng: (time.sleep(2.5), a)[1], [{'a': 1}], 0, n_jobs=1)\n"
        "time.sleep(0.2)\n```\n")
    from ldp_companion.execution import runner
    from ldp_companion.execution.grid_store import STORE_ENV

    monkeypatch.setenv(STORE_ENV, str(tmp_path / "outer"))
    notebook = runner.execute(source, tmp_path / "out", record=True)
    assert not (tmp_path / "outer").exists()

    class Pytest:  # _load wants a monkeypatch for the thread variables
        def delenv(self, *a, **k):
            pass

    paper_profile = _load("paper_profile", Pytest())
    cells = paper_profile.record(notebook, "2 cores")["cells"]
    grid_cell = next(c for c in cells if c["code"] == "import time")
    grids = json.loads((tmp_path / "out/05-hiera.grids.json").read_text())
    timed = [g["seconds"] for cell in grids.values() for g in cell]
    assert grid_cell["uses"] == ["n_mc"] and grid_cell["grid_seconds"] == round(sum(timed), 1)
    reads = json.loads((tmp_path / "out/05-hiera.reads.json").read_text())
    assert sorted(reads.values()) == [["n_mc"], ["runs"]]


def test_data_size_parameters_scale_every_later_cell(tmp_path):
    """Chapter 4's ``expand`` sizes the table every later cell trains on: a cell after the
    one that read it is scaled by it, a cell before is not."""
    rec = {"chapter": "04-spof", "parameters": {"profile": "default"}, "machine": "2 cores",
           "seconds": 30.0, "first_read": {"expand": 17}, "cells": [
               {"cell": 5, "code": "before", "seconds": 10.0, "uses": []},
               {"cell": 26, "code": "after", "seconds": 20.0, "uses": ["timing_repeats"]}]}
    table = planning.project(rec, "paper", 2, tmp_path).set_index("code")
    assert table.loc["before", "work ×"] == 1.0
    assert table.loc["after", "work ×"] == pytest.approx(80 / 20 * 5 / 2)  # expand, repeats
    with pytest.raises(ValueError, match="data_size names unknown"):
        profiles.ChapterParams("x", {"n": ("n", {"smoke": 1, "default": 1, "paper": 1})},
                               data_size=("m",))


def test_repetitions_multiply_the_grid_and_sizes_the_whole_cell(tmp_path):
    """In a cell whose grids were recorded, ``cv_repeats`` multiplies the grid's time only;
    a size (``sgd_sizes``) multiplies the cell's own code too."""
    rec = {"chapter": "05-hiera", "parameters": {"profile": "paper", "cv_repeats": 1,
                                                 "sgd_sizes": {"a": 10, "b": 10}},
           "machine": "2 cores", "seconds": 100.0, "cells": [
               {"cell": 27, "code": "sgd", "seconds": 100.0, "uses": ["cv_repeats"],
                "grids": [{"grid": "HierA SGD", "workers": 2, "seconds": 90.0}]},
               {"cell": 28, "code": "sizes", "seconds": 100.0, "uses": ["sgd_sizes"],
                "grids": [{"grid": "HierA SGD", "workers": 2, "seconds": 90.0}]}]}
    table = planning.project(rec, "paper", 2, tmp_path).set_index("code")
    assert table.loc["sgd", "projected (s)"] == pytest.approx(10 + 90 * 10)
    ratio = (1_520_000 + 3_860_000) / 20
    assert table.loc["sizes", "projected (s)"] == pytest.approx(100 * ratio)
    assert planning._repeats("erm_seeds", 2) and planning._repeats("eps_grid", [1.0])
    assert not planning._repeats("n_mean", 10) and not planning._repeats("expand", 20)


def test_a_record_made_without_some_files_bounds_the_work_that_needs_them(tmp_path):
    """A paper-profile record made where some of the profile's files were missing did not do
    the work that needs them: the projection from it is a lower bound that names them, unless
    a separately timed record covers those tasks."""
    _scaling(tmp_path, [(1, 1.0), (2, 2.0)])
    rec = {"chapter": "02-tvg", "parameters": {"profile": "paper"}, "machine": "2 cores",
           "seconds": 10.0, "cells": [{"cell": 3, "code": "x", "seconds": 10.0, "uses": []}],
           "missing_assets": []}
    (tmp_path / "02-tvg-paper.json").write_text(json.dumps(rec))
    assert not planning.plan("tvg", "paper", 2, "cpu", tmp_path).lower_bound
    rec["missing_assets"] = ["cifar10", "mnist"]
    (tmp_path / "02-tvg-paper.json").write_text(json.dumps(rec))
    part = planning.plan("tvg", "paper", 2, "cpu", tmp_path)
    assert part.lower_bound
    assert part.unmeasured == ["tasks without their files (cifar10, mnist)"]
    (tmp_path / "type1-test.json").write_text(json.dumps(
        {"machine": "2 cores", "device": "cpu", "chapter": "02-tvg", "covers": "paper_tasks_1",
         "rows": [{"task": "mnist", "hours_one_worker": 2.0}]}))
    timed = planning.plan("tvg", "paper", 2, "cpu", tmp_path)  # mnist's work is timed apart
    assert timed.unmeasured == ["tasks without their files (cifar10)"]


def test_a_separately_timed_slice_adds_the_work_it_covers(tmp_path, monkeypatch):
    """A record naming a chapter and the task-list parameter it covers (type1_steps.py) adds
    the profile's tasks of that parameter, and that parameter no longer bounds the total; the
    tasks whose files are missing here are counted apart (a run here skips them)."""
    _scaling(tmp_path, [(1, 1.0), (2, 2.0), (8, 4.0)])
    rec = {"chapter": "02-tvg", "parameters": {"profile": "default"}, "machine": "2 cores",
           "seconds": 10.0, "cells": [{"cell": 3, "code": "x", "seconds": 10.0, "uses": []}]}
    (tmp_path / "02-tvg-test.json").write_text(json.dumps(rec))
    before = planning.plan("tvg", "paper", 8, "cpu", tmp_path)
    assert "paper_tasks_1" in before.unmeasured and not before.extra
    (tmp_path / "type1-test.json").write_text(json.dumps(
        {"machine": "2 cores", "device": "cpu", "chapter": "02-tvg", "covers": "paper_tasks_1",
         "rows": [{"task": "mnist", "hours_one_worker": 2.0},
                  {"task": "credit", "hours_one_worker": 1.0},
                  {"task": "other", "hours_one_worker": 50.0}]}))
    after = planning.plan("tvg", "paper", 8, "cpu", tmp_path)
    assert "paper_tasks_1" not in after.unmeasured
    assert after.seconds - before.seconds == pytest.approx(3.0 * 3600 / 4.0)
    # in an empty data folder the run skips both tasks: the run here is the measured work
    monkeypatch.setenv(DATA_ENV, str(tmp_path / "no-data"))
    here = planning.plan("tvg", "paper", 8, "cpu", tmp_path)
    assert here.seconds == pytest.approx(after.seconds)  # the whole profile, for the cards
    assert here.absent == pytest.approx(3.0 * 3600 / 4.0)
    assert here.seconds_here == pytest.approx(before.seconds)
    assert any("missing here" in n for n in here.notes)
    rec["machine"] = "16 cores, NVIDIA H100"
    (tmp_path / "02-tvg-gpu.json").write_text(json.dumps(rec))
    gpu = planning.plan("tvg", "paper", 16, "cuda", tmp_path)  # a CPU timing is not a GPU's
    assert "paper_tasks_1" in gpu.unmeasured and not gpu.extra


def test_a_plan_projects_the_run_it_is_told_and_a_check_names_a_run_of_another_setup():
    """Chapter 3's paper run here is given ``-p data stand-ins``: planned without it, the
    projection rests on the record of the paper's file shapes (random stand-in files); with
    it, on the record of the stand-ins run, which read none of the paper's files, so neither
    is a lower bound. A kept run given a parameter the projection did not assume is named,
    never silently compared."""
    from types import SimpleNamespace

    plain = planning.plan("pm", "paper", 2, "cpu")
    told = planning.plan("pm", "paper", 2, "cpu", overrides={"data": "stand-ins"})
    assert not plain.lower_bound and "runs2-seeds2" in plain.basis
    assert not told.lower_bound
    assert told.basis.startswith("03-pm-three-outputs-paper-2cores.json")
    assert "-p data stand-ins" in told.commands()[1]
    with pytest.raises(ValueError, match="no parameter"):
        planning.plan("pm", "paper", 2, "cpu", overrides={"dta": "stand-ins"})
    projection = {"chapter": "03-pm-three-outputs", "profile": "paper"}
    run = SimpleNamespace(run={"parameters": {"profile": "paper", "seed": 0,
                                              "data": "stand-ins"}})
    assert planning.setup_difference(projection, run) == \
        "no: data = stand-ins, projected paper"
    assert planning.setup_difference({**projection, "overrides": {"data": "stand-ins"}},
                                     run) == ""
    run.run["parameters"]["data"] = "paper"  # the profile's own value, given: the same run
    assert planning.setup_difference(projection, run) == ""


def test_a_check_says_whether_the_basis_timed_the_code_the_run_ran():
    """A timing record names the chapter's code digest (``paper_profile.record``), a saved
    projection carries its basis's, and the check compares it with the kept run's: "same",
    "other" when the code changed in between, "not named" for an older record (never taken
    as the same code)."""
    from types import SimpleNamespace

    from ldp_companion.execution.paper_scale import code_digest

    run = SimpleNamespace(record={"code_sha256": code_digest("05-hiera")})
    assert planning.basis_code({"basis_code": code_digest("05-hiera")}, run) == "same"
    assert planning.basis_code({"basis_code": code_digest("04-spof")}, run) == "other"
    assert planning.basis_code({}, run) == "not named"
    plan = planning.plan("hiera", "paper", 2, "cpu")
    assert plan.basis_code is None or len(plan.basis_code) == 64


def test_plan_on_the_command_line_checks_a_given_parameter_as_run_does(capsys):
    from ldp_companion.__main__ import main

    assert main(["plan", "3", "-p", "data", "stand-ins"]) == 0
    assert "-p data stand-ins" in capsys.readouterr().out
    with pytest.raises(ValueError, match='data must be one of "stand-ins", "paper"'):
        main(["plan", "3", "-p", "data", "bogus"])
    with pytest.raises(ValueError, match="did you mean 'data'"):
        main(["plan", "3", "-p", "dta", "stand-ins"])


def test_the_basis_is_the_record_whose_work_compares_with_the_run_asked_for(tmp_path):
    """Chapter 3 has a record on the paper's files (random stand-ins of their shapes) and a
    newer one on the offline stand-ins: a plan of ``data = paper`` rests on the first, one
    of ``-p data stand-ins`` on the second, whatever their age (a record of other data
    cannot be compared and would make the projection a lower bound)."""
    _scaling(tmp_path, [(1, 1.0), (2, 2.0)])

    def write(name, data, finished):
        rec = {"chapter": "03-pm-three-outputs", "machine": "2 cores", "seconds": 10.0,
               "parameters": {"profile": "paper", "data": data}, "finished": finished,
               "cells": [{"cell": 3, "code": "x", "seconds": 10.0, "uses": ["data"]}]}
        (tmp_path / name).write_text(json.dumps(rec))

    write("files.json", "paper", "2026-11-26T00:00:00+00:00")
    write("stand-ins.json", "stand-ins", "2026-12-02T00:00:00+00:00")
    files = planning.plan("pm", "paper", 2, "cpu", tmp_path)
    offline = planning.plan("pm", "paper", 2, "cpu", tmp_path, {"data": "stand-ins"})
    assert files.basis.startswith("files.json") and not files.lower_bound
    assert offline.basis.startswith("stand-ins.json") and not offline.lower_bound
