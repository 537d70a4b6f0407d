"""The benchmark scripts' own logic: the scaling sweep refuses tables that depend on the worker
count, and the timing record reads papermill's cell durations, finished or stopped."""
import importlib.util
import json

import pandas as pd
import pytest

from ldp_companion.execution.runner import REPO

THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def _load(name, monkeypatch):
    for var in THREAD_VARS:  # scaling.py sets them: restore them after the test
        monkeypatch.delenv(var, raising=False)
    spec = importlib.util.spec_from_file_location(name, REPO / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_sweep_reports_speed_up_and_refuses_a_table_that_depends_on_the_workers(monkeypatch):
    scaling = _load("scaling", monkeypatch)

    def same(k):
        return pd.DataFrame({"x": [1.0, 2.0]})

    table = scaling.sweep(same, [1, 2])
    assert list(table["workers"]) == [1, 2] and table["speed-up"].iloc[0] == 1.0
    assert table["efficiency"].iloc[1] == pytest.approx(table["speed-up"].iloc[1] / 2)

    def mutant(k):
        return pd.DataFrame({"x": [1.0, 2.0 + (k > 1) * 1e-12]})

    with pytest.raises(AssertionError, match="n_jobs=2 gave a different table"):
        scaling.sweep(mutant, [1, 2])


def test_every_grid_slice_builds_and_runs_at_a_tiny_size(monkeypatch):
    import dataclasses

    scaling = _load("scaling", monkeypatch)
    paper = scaling.resolve
    def smaller(profile, spec):  # 12 cells of 2 folds, not 48 of 5
        cfg = paper(profile, spec)
        return dataclasses.replace(cfg, values={**cfg.values, "sgd_eps": [1.0], "cv_folds": 2})

    monkeypatch.setattr(scaling, "resolve", smaller)
    run = scaling.GRIDS["hiera-sgd"](1, 0.01)
    table = run(1)
    assert set(table["method"]) == set(scaling.SGD_METHODS) | {"ols"}
    assert set(scaling.GRIDS) == set(scaling.RUNS)


def _notebook(tmp_path, statuses, run_seconds=None):
    cells = [{"cell_type": "code", "source": f"step_{i}(cfg.runs, cfg.seed)\n# cfg.runs\n",
              "metadata": {"papermill": {
        "status": status, "duration": seconds}}} for i, (status, seconds) in enumerate(statuses)]
    nb = {"cells": cells, "metadata": {"papermill": {"parameters": {"profile": "paper"}}}}
    path = tmp_path / "05-hiera.ipynb"
    path.write_text(json.dumps(nb))
    if run_seconds is not None:
        path.with_suffix(".run.json").write_text(json.dumps(
            {"seconds": run_seconds, "finished": "2026-11-24T00:00:00+00:00", "versions": {}}))
    return path


def test_record_of_a_finished_run(tmp_path, monkeypatch):
    paper_profile = _load("paper_profile", monkeypatch)
    path = _notebook(tmp_path, [("completed", 0.5), ("completed", 30.0), ("completed", 1.0)], 33)
    rec = paper_profile.record(path, "2 cores")
    assert rec["complete"] and rec["seconds"] == 33 and rec["parameters"] == {"profile": "paper"}
    assert [(c["code"], c["seconds"], c["uses"]) for c in rec["cells"]] == [
        ("step_1(cfg.runs, cfg.seed)", 30.0, ["runs", "seed"]), ("other cells", 1.5, [])]
    from ldp_companion.execution.paper_scale import code_digest

    assert rec["code_sha256"] == code_digest("05-hiera") != code_digest("04-spof")


def test_a_cell_reads_the_parameters_an_earlier_cell_bundled_not_those_behind_a_result(
        monkeypatch):
    """Chapter 1's Fig. 1 (true ε) cell passed ``**grid`` (``runs``, ``n_max`` set two cells
    above) and its record said it read no ``runs``: its projection missed the ×2 of the
    paper's runs. A name bound to a grid's result carries nothing."""
    paper_profile = _load("paper_profile", monkeypatch)
    cells = ["%matplotlib inline\ngrid = dict(runs=cfg.runs, n_max=cfg.n_max)\nk = cfg.epochs",
             "table = run_grid(cfg.tasks, **grid)",
             "plot(table, k)\nmore(**grid)",
             "grid = {'runs': 3}\nrerun(**grid)",
             "rerun(**grid)",
             "this is not python"]
    assert paper_profile._carried_uses(cells) == [
        set(), {"runs", "n_max"}, {"runs", "n_max", "epochs"}, {"runs", "n_max"}, set(), set()]


def test_record_of_a_stopped_run_gives_the_running_cell_a_lower_bound(tmp_path, monkeypatch):
    paper_profile = _load("paper_profile", monkeypatch)
    path = _notebook(tmp_path, [("completed", 20.0), ("running", None), ("pending", None)])
    with pytest.raises(SystemExit, match="stopped-after"):
        paper_profile.record(path, "16 cores")
    rec = paper_profile.record(path, "16 cores", stopped_after=100)
    assert not rec["complete"]
    assert [(c["code"], c["status"], c["seconds"]) for c in rec["cells"]] == [
        ("step_0(cfg.runs, cfg.seed)", "completed", 20.0),
        ("step_1(cfg.runs, cfg.seed)", "running", 80.0),
        ("other cells", "completed", 0.0)]


def test_stored_records_have_what_the_reproducibility_page_reads():
    records = sorted(p for p in (REPO / "benchmarks" / "results").glob("*.json")
                     if not p.name.startswith("mutants")  # the Verdicts page reads those
                     and p.name not in ("install-sizes.json", "chapter-times.json"))
    assert any(p.name.startswith("scaling-") for p in records)
    for path in records:
        rec = json.loads(path.read_text())
        assert rec["machine"]
        if path.name.startswith("scaling-"):
            for res in rec["grids"].values():
                assert res["rows"][0]["workers"] == 1 and res["rows"][0]["speed-up"] == 1.0
        elif path.name.startswith("spof-steps-"):  # benchmarks/spof_steps.py
            assert all(r["calls_per_step"] > 0 and r["steps"] > 0 for r in rec["rows"])
        elif path.name.startswith("type1-"):  # benchmarks/type1_steps.py
            assert {r["task"] for r in rec["rows"]} == {"mnist", "credit", "adult"}
            assert all(r["hours_one_worker"] > 0 for r in rec["rows"])
        else:
            assert rec["cells"] and rec["chapter"] in path.name, path.name
            assert all("uses" in c for c in rec["cells"]), path.name


def test_stand_in_files_are_read_by_chapter_3s_loaders(tmp_path, monkeypatch):
    from ldp_companion.pm import external_data as ext

    stand_ins = _load("stand_in_files", monkeypatch)
    stand_ins.write_all(tmp_path, scale=1e-3)
    monkeypatch.setenv("LDP_COMPANION_DATA", str(tmp_path))
    assert set(ext.require(["wisdm", "ipums_br", "ipums_mx", "vehicle"])) == {
        "wisdm", "ipums_br", "ipums_mx", "vehicle"}
    wisdm = ext.load_wisdm()
    assert len(wisdm) == round(stand_ins.SIZES["wisdm"] * 1e-3)
    assert wisdm.attrs["n_dropped"] == 0
    X, y = ext.load_vehicle(split="train")
    assert X.shape == (round(stand_ins.SIZES["vehicle"][0] * 1e-3), ext.VEHICLE_N_FEATURES)
    assert len(ext.load_ipums("MX")[0]) == round(stand_ins.SIZES["ipums_mx"] * 1e-3)


def test_type1_step_timer_runs_at_the_papers_sizes(monkeypatch):
    """One timed step of the Adult MLP on 32,561 random rows: a time is measured; the data
    have Table II's sizes."""
    steps = _load("type1_steps", monkeypatch)
    x, y = steps._data("adult", "cpu")
    assert tuple(x.shape) == (32_561, 105) and len(y) == 32_561
    assert isinstance(steps.step_seconds("adult", 1, "cpu"), float)


def test_stored_mutation_table_covers_every_mutant_and_each_is_caught():
    """benchmarks/results/mutants.json lists exactly the mutants the chapters define (rerun
    ``benchmarks/mutants.py`` after adding one), and every one flipped a verdict."""
    import importlib

    from ldp_companion.edition import book

    rec = json.loads((REPO / "benchmarks" / "results" / "mutants.json").read_text())
    assert rec["parameters"] == {"profile": "smoke", "seed": 0}
    listed = [(r["chapter"], r["mutant"], r["what"]) for r in rec["mutants"]]
    defined = []
    for chapter, package in book.PACKAGES.items():
        try:
            module = importlib.import_module(f"{package.__name__}.mutants")
        except ModuleNotFoundError:
            continue
        defined += [(chapter, m.name, m.what) for m in module.MUTANTS]
    assert listed == defined
    chapters = [c for c, _, _ in defined]
    assert set(chapters) >= {"01-tldp", "02-tvg", "04-spof"}
    assert all(chapters.count(c) >= 4 for c in chapters)
    missed = [f"{r['chapter']}/{r['mutant']}" for r in rec["mutants"] if not r["caught"]]
    assert not missed and all(r["flipped"] for r in rec["mutants"])


def test_shipped_chapter_times_name_every_chapter_and_order_a_fresh_build(tmp_path,
                                                                           monkeypatch):
    """A fresh clone has no run records nor build times: the build starts the longest chapter
    first from the times the repository ships."""
    from ldp_companion.execution import runner

    monkeypatch.setattr(runner, "BUILD_TIMES", tmp_path / "no-build-yet.json")
    times = json.loads(runner.CHAPTER_TIMES.read_text())["seconds"]
    assert sorted(times) == sorted(p.stem for p in runner.chapters())
    order = sorted(runner.chapters(), key=lambda p: -runner._expected_seconds(p, tmp_path))
    assert order[0].stem == max(times, key=times.get)


def test_a_stand_ins_run_lacks_none_of_the_paper_s_files(tmp_path, monkeypatch):
    """Chapter 3 given ``data = stand-ins`` reads none of the paper profile's files, so its
    record does not name them as missing (a plan would read that as skipped work); the same
    run on the paper's data does, in an empty data folder."""
    from ldp_companion.data.datasets import DATA_ENV

    paper_profile = _load("paper_profile", monkeypatch)
    monkeypatch.setenv(DATA_ENV, str(tmp_path))
    nb = {"metadata": {"papermill": {"parameters": {"profile": "paper", "data": "stand-ins"}}}}
    assert paper_profile._missing_assets("03-pm-three-outputs", nb) == []
    nb["metadata"]["papermill"]["parameters"]["data"] = "paper"
    assert {"ipums_br", "wisdm"} <= set(paper_profile._missing_assets("03-pm-three-outputs", nb))
