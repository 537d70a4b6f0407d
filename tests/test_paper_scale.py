"""Paper-scale records: kept from a paper-profile run, read back with their staleness, shown
beside the default verdicts with every changed verdict marked (issue 46)."""
from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest

from ldp_companion.execution import paper_scale, runner
from ldp_companion.spof.params import PARAMS
from ldp_companion.verdicts.ledger import verdict_table_html

CLAIMS = [
    {"chapter": "04-spof", "claim_id": "a", "statement": "A holds", "paper": "1", "ours": "1.0",
     "verdict": "holds", "note": "", "section": "", "ref": ["Eq. 1"], "kind": "substantive",
     "reconstructed": False, "evidence": {}},
    {"chapter": "04-spof", "claim_id": "b", "statement": "B holds", "paper": "2", "ours": "2.5",
     "verdict": "inconclusive", "note": "", "section": "", "ref": ["Fig. 3"],
     "kind": "substantive", "reconstructed": False, "evidence": {}},
]


def _run(folder, profile="paper", verdict_b="holds", runs=100):
    """A finished run of chapter 4 in ``folder`` as ``run --out`` leaves it."""
    folder.mkdir(parents=True, exist_ok=True)
    claims = [dict(c) for c in CLAIMS]
    claims[1].update(verdict=verdict_b, ours="2.01")
    (folder / "04-spof.ledger.json").write_text(json.dumps(claims))
    resolved = {"profile": profile, "seed": 0, **{k: v[1]["paper"] for k, v in
                                                  PARAMS.spec.items()}, "runs": runs}
    (folder / "04-spof.run.json").write_text(json.dumps({
        "name": "04-spof", "parameters": {"profile": profile, "seed": 0},
        "resolved": resolved, "seconds": 1234.5, "finished": "2026-12-01T23:00:00+00:00",
        "machine": "x86_64, 2 cores", "source": {"commit": "abcdef0123456789"}}))
    cell = {"cell_type": "code", "source": "fig3 = ex.fig3_grid(\n", "outputs": [],
            "metadata": {"papermill": {"duration": 12.5}}}
    (folder / "04-spof.ipynb").write_text(json.dumps(
        {"cells": [{"cell_type": "markdown", "source": "# x", "metadata": {}}, cell]}))
    (folder / "figdata" / "04-spof").mkdir(parents=True)
    (folder / "figdata" / "04-spof" / "fig.csv").write_text("series,x,y\nA,1,2\n")
    return folder


def _cfg():
    return PARAMS.resolve({"profile": "default", "seed": 0, **{k: None for k in PARAMS.spec}})


def test_a_record_keeps_the_run_its_cells_and_its_code_digest(tmp_path):
    folder = paper_scale.save(_run(tmp_path / "run"), "spof", records=tmp_path / "records")
    assert sorted(p.name for p in folder.iterdir()) == [
        "04-spof.ledger.json", "04-spof.run.json", "cells.json", "figdata", "record.json"]
    assert json.loads((folder / "cells.json").read_text()) == [
        {"cell": 0, "code": "fig3 = ex.fig3_grid(", "seconds": 12.5}]
    record = paper_scale.load("4", records=tmp_path / "records")
    assert not record.stale and record.verdicts == {"a": ("holds", "1.0"), "b": ("holds", "2.01")}
    assert record.head == "at the paper's scale (2026-12-01, abcdef0)"
    assert paper_scale.load("hiera", records=tmp_path / "records") is None


def test_only_a_finished_paper_run_is_kept(tmp_path):
    with pytest.raises(ValueError, match="not a paper-profile one"):
        paper_scale.save(_run(tmp_path / "d", profile="default"), "spof", records=tmp_path)
    with pytest.raises(ValueError, match="no finished run of 04-spof"):
        paper_scale.save(tmp_path / "empty", "spof", records=tmp_path)


def test_a_record_goes_stale_when_the_code_the_chapter_runs_changes(tmp_path):
    """The digest follows chapter 4's package and the floors below it, not the edition; a
    record whose digest differs from today's code reads as stale."""
    pkg = tmp_path / "ldp_companion"
    shutil.copytree(runner.REPO / "ldp_companion", pkg,
                    ignore=shutil.ignore_patterns("__pycache__"))
    before = paper_scale.code_digest("spof", pkg)
    (pkg / "edition" / "cards.py").write_text((pkg / "edition" / "cards.py").read_text() + "#\n")
    assert paper_scale.code_digest("spof", pkg) == before
    (pkg / "spof" / "train.py").write_text((pkg / "spof" / "train.py").read_text() + "#\n")
    assert paper_scale.code_digest("spof", pkg) != before
    folder = paper_scale.save(_run(tmp_path / "run"), "spof", records=tmp_path / "records")
    meta = json.loads((folder / "record.json").read_text())
    meta["code_sha256"] = "0" * 64  # as if computed by another version of the code
    (folder / "record.json").write_text(json.dumps(meta))
    record = paper_scale.load("spof", records=tmp_path / "records")
    assert record.stale and record.head.endswith("stale: the code has changed since")
    assert "**Stale:**" in paper_scale.summary("spof", record, pd.DataFrame(CLAIMS), _cfg())


def test_the_page_marks_each_changed_verdict_and_says_what_differs(tmp_path):
    paper_scale.save(_run(tmp_path / "run", runs=100), "spof", records=tmp_path / "r")
    record = paper_scale.load("spof", records=tmp_path / "r")
    html = verdict_table_html(pd.DataFrame(CLAIMS), chapter_column=False, beside=record)
    assert html.count('class="ldp-changed"') == 1  # b: inconclusive here, holds there
    assert "<th>at the paper&#x27;s scale (2026-12-01, abcdef0)</th>" in html
    line = paper_scale.summary("spof", record, pd.DataFrame(CLAIMS), _cfg())
    assert "runs 10 → 100" in line and "1 verdict changed with it: `b` inconclusive → holds" \
        in line
    same = [dict(c) for c in CLAIMS]
    same[1]["verdict"] = "holds"
    assert "No verdict changed." in paper_scale.summary("spof", record, pd.DataFrame(same),
                                                        _cfg())
    missing = verdict_table_html(pd.DataFrame(CLAIMS + [{**CLAIMS[0], "claim_id": "c"}]),
                                 chapter_column=False, beside=record)
    assert "not in that run" in missing
    assert "plan 04-spof --profile paper" in paper_scale.summary("spof", None,
                                                                 pd.DataFrame(CLAIMS), _cfg())


def test_the_committed_records_say_whether_they_are_stale():
    """Every record in the repository reads back, with a digest of today's code to compare:
    a stale one is shown so on its page (never silently), and is named here."""
    for folder in sorted(paper_scale.RECORDS.glob("*/record.json")):
        record = paper_scale.load(folder.parent.name)
        assert record is not None and len(record.claims) > 0
        assert record.stale == (record.record["code_sha256"]
                                != paper_scale.code_digest(folder.parent.name))


def test_the_planner_is_checked_cell_by_cell_against_the_run(tmp_path, monkeypatch):
    """The projection saved before the run and the run's cells: each projected cell's
    measured time, the short cells together, the totals; off by more than 30 % is flagged."""
    from ldp_companion.edition import planning

    monkeypatch.setattr(paper_scale, "RECORDS", tmp_path)
    path = planning.save_projection("spof", "paper", workers=2)
    projection = json.loads(path.read_text())
    assert projection["chapter"] == "04-spof" and projection["seconds"] > 0
    assert planning.check("spof") is None  # no run yet
    fig3 = next(c for c in projection["cells"] if "fig3_grid" in c["code"])
    run = _run(tmp_path / "run")
    nb = json.loads((run / "04-spof.ipynb").read_text())
    cells = [{"cell_type": "code", "source": f"x = {i}", "outputs": [],  # 3 more than then
              "metadata": {"papermill": {"duration": 0.5}}} for i in range(fig3["cell"] + 3)]
    cells.append({"cell_type": "code", "source": "fig3 = ex.fig3_grid(", "outputs": [],
                  "metadata": {"papermill": {"duration": 2 * fig3["projected"]}}})
    nb["cells"] = cells
    (run / "04-spof.ipynb").write_text(json.dumps(nb))
    paper_scale.save(run, "spof")
    table = planning.check("spof").set_index("code")
    assert table.loc["fig3 = ex.fig3_grid(", "measured / projected"] == pytest.approx(2.0)
    assert table.loc["fig3 = ex.fig3_grid(", "cell"] == fig3["cell"] + 3  # found by its code
    assert table.loc["other cells", "measured (s)"] == pytest.approx(0.5 * (fig3["cell"] + 3))
    assert table.loc["total", "measured (s)"] == 1234.5
    # why: the basis's time times the factors charged is the projection (two workers on
    # both sides); the run took twice that, which the gap line says, and which way
    row = table.loc["fig3 = ex.fig3_grid("]
    charged = 1.0
    for factor in filter(None, row["factors"].split(", ")):  # none from a paper-run basis
        charged *= float(factor.split(" × ")[1])
    assert row["basis (s)"] * charged == pytest.approx(fig3["projected"], rel=0.01)
    assert row["measured / basis"] == pytest.approx(2 * charged, rel=0.01)
    view = planning.check_view(planning.check("spof")).set_index("code")  # as the page shows
    assert view.loc["fig3 = ex.fig3_grid(", "projected as"].startswith(
        f"{row['basis (s)']:,.1f}\u00a0s")
    assert all(len(c) <= 30 for c in view.index)
    line = planning.largest_gap("04-spof", planning.check("spof"))
    assert "fig3 = ex.fig3_grid(" in line and f"took × {2 * charged:.3g}" in line
    assert "more than its factors" in line and "less than" not in line
    summary = planning.checks().set_index("chapter").loc["04-spof"]
    assert summary["measured / projected"] == pytest.approx(1234.5 / projection["seconds"])
    assert summary["more than 30% off"] == ("yes" if abs(1234.5 / projection["seconds"] - 1)
                                            > 0.3 else "no")


def test_the_verdicts_page_counts_decided_and_changed_claims_per_chapter(tmp_path):
    assert paper_scale.counts(pd.DataFrame(CLAIMS), tmp_path).empty
    paper_scale.save(_run(tmp_path / "run"), "spof", records=tmp_path / "r")
    row = paper_scale.counts(pd.DataFrame(CLAIMS), tmp_path / "r").iloc[0]
    assert (row["chapter"], row["claims"], row["decided"], row["changed"], row["stale"]) == \
        ("04-spof", 2, 2, 1, "no")


def test_a_ledger_shows_a_record_beside_it_or_refuses_what_is_not_one():
    from ldp_companion.verdicts.ledger import Ledger

    ledger = Ledger("04-spof")
    assert ledger.beside(None) is ledger
    with pytest.raises(TypeError, match="PaperRecord"):
        ledger.beside({"a": "holds"})


def test_a_figure_reduced_here_is_reproduced_by_a_fresh_paper_run_and_not_by_a_stale_one(
        tmp_path):
    """Chapter 4's Figs. 2-3: reduced in a default run, reproduced by the record of a run
    at the paper's setup; a stale record, or a record where they were reduced, earns none."""
    from ldp_companion.spof.items import ITEMS

    default = ITEMS.resolve(_cfg())
    paper_cfg = PARAMS.resolve({"profile": "paper", "seed": 0, **{k: None for k in PARAMS.spec}})
    run = _run(tmp_path / "run")
    ITEMS.resolve(paper_cfg).save(run)
    paper_scale.save(run, "spof", records=tmp_path / "r")
    record = paper_scale.load("spof", records=tmp_path / "r")
    status = {it.ref: it.status for it in default.items}
    assert status["Fig. 3"] == "reduced"
    merged = {it.ref: it for it in default.with_paper_scale(record).items}
    assert merged["Fig. 3"].status == "reproduced" and "2026-12-01" in merged["Fig. 3"].scale
    assert {r for r, it in merged.items() if it.status != status[r]} <= {
        it.ref for it in ITEMS.resolve(paper_cfg).items if it.status == "reproduced"}
    stale = paper_scale.PaperRecord(record.chapter, record.claims, record.run, record.record,
                                    True, record.cells, record.folder)
    assert default.with_paper_scale(stale) == default
    assert default.with_paper_scale(None) == default
    ITEMS.resolve(_cfg()).save(run)  # a record whose run was itself reduced
    paper_scale.save(run, "spof", records=tmp_path / "r2")
    reduced = {it.ref: it for it in default.with_paper_scale(
        paper_scale.load("spof", records=tmp_path / "r2")).items}
    assert reduced["Fig. 3"].status == "reduced"
    assert reduced["Fig. 3"].differs.startswith("at the paper's scale: ")
