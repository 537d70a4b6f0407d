"""Paper coverage: each chapter's list of its paper's numbered items, and its cross-checks
against the ledger. Each check is shown failing on a broken list or ledger."""
from __future__ import annotations

import importlib

import pandas as pd
import pytest

from ldp_companion.edition import book
from ldp_companion.execution import runner
from ldp_companion.verdicts.coverage import STATUSES, Item, PaperItems


def _ledger(**refs) -> pd.DataFrame:
    return pd.DataFrame({"claim_id": list(refs), "ref": [tuple(r) for r in refs.values()]})


def _paper(*items, placeholder=False) -> PaperItems:
    return PaperItems("99-x", "A paper", list(items), placeholder=placeholder)


GOOD = [Item("Lemma 1", "A bound", "checked", claims=["c1"]),
        Item("Figure 2", "A curve", "reproduced", artifact="x-fig2", claims=["c2"],
             setup=["runs"], assets=["mnist"]),
        Item("Algorithm 1", "The mechanism", "implemented", code="ldp_companion.get_mechanism"),
        Item("Table I", "Notation", "not reproduced",
             reason="a table of symbols with no result in it to recompute or check")]
NOTEBOOK = "(x-fig2)=\n## Fig. 2\n"


def test_a_consistent_list_has_no_problems():
    paper = _paper(*GOOD)
    assert paper.refs == ["Lemma 1", "Fig. 2", "Alg. 1", "Table I"]
    assert paper.problems(_ledger(c1=["Lemma 1"], c2=["Fig. 2"]), NOTEBOOK) == []
    assert list(paper.table()["status"]) == ["checked", "reproduced", "implemented",
                                             "not reproduced"]


def test_a_ref_missing_from_the_list_is_caught():
    problems = _paper(*GOOD).problems(_ledger(c1=["Lemma 1"], c2=["Fig. 2", "Lemma 9"]),
                                      NOTEBOOK)
    assert problems == ["claim 'c2' cites 'Lemma 9', not in the paper's list"]


def test_a_checked_item_naming_an_unknown_claim_is_caught():
    problems = _paper(*GOOD).problems(_ledger(c2=["Fig. 2"]), NOTEBOOK)
    assert problems == ["Lemma 1 names claim 'c1', which the ledger does not have"]


def test_a_checked_item_whose_claim_cites_something_else_is_caught():
    problems = _paper(*GOOD).problems(_ledger(c1=["Fig. 2"], c2=["Fig. 2"]), NOTEBOOK)
    assert "Lemma 1 names claim 'c1', whose ref does not cite it" in problems


def test_a_reproduced_item_must_name_an_artifact_the_chapter_has():
    with pytest.raises(ValueError, match="no artifact"):
        Item("Fig. 2", "A curve", "reproduced")
    problems = _paper(*GOOD).problems(_ledger(c1=["Lemma 1"], c2=["Fig. 2"]), "## no label\n")
    assert problems == ["Fig. 2 is reproduced in 'x-fig2', which the chapter lacks"]


class _Cfg:
    """What a chapter's ChapterConfig gives resolve: values in force and the spec."""

    def __init__(self, **values):
        self.values = values
        self.spec = {"runs": ("runs", {"smoke": 2, "default": 3, "paper": 10}),
                     "eps": ("ε grid", {"smoke": [1], "default": [1, 2], "paper": [1, 2]})}


def test_reproduced_is_earned_by_the_run_and_reduced_says_what_differed():
    paper = _paper(*GOOD)
    full = paper.resolve(_Cfg(runs=10, eps=[1, 2]), missing_assets=())
    assert full.item("Fig. 2").status == "reproduced"
    # fewer runs, and the paper's files missing: reduced, naming both
    less = paper.resolve(_Cfg(runs=3, eps=[1, 2]), missing_assets={"mnist"}).item("Fig. 2")
    assert less.status == "reduced"
    assert less.differs == "runs 3 (paper setup: 10); mnist files missing"
    # files missing alone is enough; a list parameter compares as a list
    assert paper.resolve(_Cfg(runs=10, eps=(1, 2)), {"mnist"}).item("Fig. 2").status == "reduced"
    # what differs even at the paper's profile keeps it reduced
    fixed = _paper(Item("Fig. 2", "A curve", "reproduced", artifact="x-fig2", setup=["runs"],
                        differs="a small CNN instead of MobileNetV2"))
    got = fixed.resolve(_Cfg(runs=10, eps=[1, 2])).item("Fig. 2")
    assert (got.status, got.differs) == ("reduced", "a small CNN instead of MobileNetV2")
    # other statuses are untouched, and a setup naming an unknown parameter is refused
    assert full.item("Lemma 1") == paper.item("Lemma 1")
    bad = _paper(Item("Fig. 2", "A curve", "reproduced", artifact="x-fig2", setup=["nope"]))
    with pytest.raises(ValueError, match="unknown parameters"):
        bad.resolve(_Cfg(runs=10, eps=[1]))


@pytest.mark.parametrize("value, paper, differs", [
    ([1, 2], (1, 2), False), ([1, 2], [1, 3], True), ([1], [1, 2], True),
    ({"a": 3000}, {"a": 1_520_000}, True), ({"a": 1}, {"a": 1}, False),
    ({"a": 1}, {"b": 1}, True), ("stand-ins", "paper", True), (None, None, False)])
def test_a_parameter_differs_by_its_values(value, paper, differs):
    from ldp_companion.verdicts.coverage import _differs

    assert _differs(value, paper) is differs


def test_a_drawn_item_must_say_what_decides_its_status():
    with pytest.raises(ValueError, match="names no setup"):
        Item("Fig. 2", "A curve", "reproduced", artifact="x-fig2")
    with pytest.raises(ValueError, match="what differs"):
        Item("Fig. 2", "A curve", "reduced", artifact="x-fig2")


def test_resolved_coverage_round_trips_and_an_unrun_chapter_reproduces_nothing(tmp_path):
    from ldp_companion.verdicts.coverage import load_coverage, record, unrun

    got = record(_paper(*GOOD), _Cfg(runs=3, eps=[1, 2]), {"mnist"}, directory=tmp_path)
    back = load_coverage(tmp_path)["99-x"]
    assert back == got and back.item("Fig. 2").status == "reduced"
    assert back.counts()["reduced"] == 1 and back.counts()["reproduced"] == 0
    assert unrun(_paper(*GOOD)).item("Fig. 2").status == "reduced"
    table = back.table()
    assert table.set_index("ref").loc["Fig. 2", "reason"].startswith(
        "differs from the paper: runs 3 (paper setup: 10)")


def test_no_drawn_item_has_a_placeholder_setup():
    for chapter, paper in book.ITEMS.items():
        for it in paper.items:
            assert "TODO" not in it.differs, f"{chapter} {it.ref}: {it.differs}"


def test_an_item_without_a_valid_status_is_refused():
    with pytest.raises(TypeError):
        Item("Lemma 1", "A bound")  # no status at all
    with pytest.raises(ValueError, match="status must be one of"):
        Item("Lemma 1", "A bound", "done")


@pytest.mark.parametrize("reason", ["not done yet", "Not done yet: the chapter will draw it later.",
                                    "out of scope for this book, which we will revisit", "n/a"])
def test_a_generic_reason_is_refused(reason):
    with pytest.raises(ValueError, match="not specific"):
        Item("Fig. 9", "A curve", "not reproduced", reason=reason)


def test_a_cited_item_must_be_checked_or_reproduced():
    paper = _paper(*GOOD)
    problems = paper.problems(_ledger(c1=["Lemma 1"], c2=["Fig. 2", "Table I"]), NOTEBOOK)
    assert problems == ["Table I is cited by a claim but its status is 'not reproduced'"]


def test_items_are_unique_and_a_placeholder_has_nothing_done():
    with pytest.raises(ValueError, match="listed twice"):
        _paper(GOOD[0], Item("Lemma 1", "again", "planned", plan="check it by Monte Carlo"))
    with pytest.raises(ValueError, match="placeholder"):
        _paper(*GOOD, placeholder=True)


@pytest.mark.parametrize("chapter", sorted(book.ITEMS))
def test_every_chapter_list_is_well_formed(chapter):
    paper = book.ITEMS[chapter]
    assert paper.chapter == chapter and paper.items
    assert {i.status for i in paper.items} <= set(STATUSES)
    for item in paper.items:
        if item.status == "implemented":
            module, _, name = item.code.rpartition(".")
            assert hasattr(importlib.import_module(module), name), item.code
    source = (runner.REPO / "notebooks" / f"{chapter}.md").read_text()
    params = book.PARAMS[chapter]
    for item in paper.items:
        if item.status in ("reproduced", "reduced"):
            assert f"({item.artifact})=" in source, f"{item.ref}: no label {item.artifact}"
            assert set(item.setup) <= set(params.names), f"{item.ref}: {item.setup}"
            from ldp_companion.data.paper_assets import ASSETS
            assert set(item.assets) <= set(ASSETS), f"{item.ref}: {item.assets}"


@pytest.mark.parametrize("chapter", sorted(book.ITEMS))
def test_every_mapped_claim_ref_is_in_the_list(chapter):
    """CLAIM_REFS (the ledger's source of refs) cites only items of the paper's list."""
    module = importlib.import_module(f"{book.PACKAGES[chapter].__name__}.items")
    refs = getattr(module, "CLAIM_REFS", {})
    known = set(book.ITEMS[chapter].refs)
    from ldp_companion.verdicts.coverage import normalise_ref
    bad = {cid: r for cid, rs in refs.items() for r in rs if normalise_ref(r) not in known}
    assert not bad


def test_cli_coverage_json_lists_every_item(tmp_path, monkeypatch, capsys):
    import json

    from ldp_companion.__main__ import main
    from ldp_companion.hiera.items import CLAIM_REFS
    from ldp_companion.verdicts.ledger import LEDGER_DIR_ENV, Ledger
    led = Ledger("05-hiera", refs=CLAIM_REFS)
    led.compare("thm2-composed", "composition bound", 2.0, "<=", 1.0)
    led.save(tmp_path)
    monkeypatch.setenv(LEDGER_DIR_ENV, str(tmp_path))
    assert main(["coverage", "05", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["ref"] for r in rows] == book.ITEMS["05-hiera"].refs
    assert all(r["status"] in STATUSES for r in rows)
    assert next(r for r in rows if r["ref"] == "Theorem 1")["claims"] == "thm2-composed (fails)"


def test_cli_coverage_names_the_command_when_a_chapter_was_not_executed(tmp_path, monkeypatch,
                                                                          capsys):
    from ldp_companion.__main__ import cli
    from ldp_companion.verdicts.ledger import LEDGER_DIR_ENV

    monkeypatch.setenv(LEDGER_DIR_ENV, str(tmp_path))
    monkeypatch.setattr("sys.argv", ["ldp-companion", "coverage", "pm"])
    assert cli() == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "python -m ldp_companion run 03-pm-three-outputs" in err
    monkeypatch.setattr("sys.argv", ["ldp-companion", "coverage", "nope"])
    assert cli() == 2 and "matches no chapter" in capsys.readouterr().err


# --- appendix C's claims on the chapters' items ----------------------------------------------

def _c_ledger(folder, monkeypatch):
    """Appendix C's ``true-eps-spof`` (and ``blackbox-agrees``) recorded by its own code from
    a table of true ε where SPOF's Alg. 1 spends an infinite ε (as chapter 4's literal reading
    does), FM 3 ε and Prop. 2's sums 0.5 ε, at a budget of 1 (C's other claims need rows of
    other papers and are left out)."""
    import math

    from ldp_companion.compare import claims as c_claims
    from ldp_companion.compare.items import CLAIM_KINDS, CLAIM_REFS
    from ldp_companion.verdicts.ledger import Ledger

    table = pd.DataFrame({"paper": "spof", "kind": "record", "claimed": 1.0,
                          "mechanism": ["spof_alg1", "spof_fm", "spof_prop2"],
                          "exact": [math.inf, 3.0, 0.5], "black-box lower bound": 0.2,
                          "largest bound": 6.0})
    monkeypatch.setattr(c_claims, "_PAPER_CLAIMS",
                        {"true-eps-spof": c_claims._PAPER_CLAIMS["true-eps-spof"]})
    ledger = Ledger("C-compare", refs=CLAIM_REFS, kinds=CLAIM_KINDS)
    c_claims.record_true_epsilon(ledger, table)
    ledger.save(folder)
    return ledger.table().set_index("claim_id")


def test_appendix_c_s_claims_show_beside_the_items_they_test(tmp_path, monkeypatch):
    """``true-eps-spof`` (appendix C: SPOF's Alg. 1 spends more than it claims) is named with
    the verdict C's ledger computed beside chapter 4's Alg. 1 and Props. 2–3: in the coverage
    table (``coverage`` command), the lists of the Verdicts page and chapter 4's card. Its
    primary ref stays C's section, and chapter 4's own claims keep their own verdicts."""
    from ldp_companion.compare import items as c_items
    from ldp_companion.edition import cards
    from ldp_companion.spof.items import CLAIM_REFS as SPOF_REFS
    from ldp_companion.verdicts.coverage import coverage_html
    from ldp_companion.verdicts.ledger import Ledger, load_ledgers

    c_table = _c_ledger(tmp_path, monkeypatch)
    assert c_table.loc["true-eps-spof", "verdict"] == "fails"
    assert c_table.loc["true-eps-spof", "ref"] == ("Sec. C.2",)
    spof = Ledger("04-spof", refs=SPOF_REFS)
    spof.compare("alg1-sqrt2", "a chapter 4 claim on Alg. 1", 1.0, "<=", 2.0)
    spof.save(tmp_path)
    rows = book.coverage(tmp_path, ["04-spof"]).set_index("ref")
    assert rows.loc["Alg. 1", "also"] == "C-compare: true-eps-spof (fails)"
    assert rows.loc["Alg. 1", "claims"].startswith("alg1-sqrt2 (holds)")
    assert rows.loc["Proposition 3", "also"] == "C-compare: true-eps-spof (fails)"
    assert rows.loc["Fig. 3", "also"] == ""
    assert book.resolved_items(tmp_path)["04-spof"].item("Alg. 1").status == "checked"
    claims = load_ledgers(tmp_path)
    html = coverage_html(book.resolved_items(tmp_path)["04-spof"], claims)
    assert "also tested in C-compare: true-eps-spof (fails)" in html
    card = cards.card_html("04-spof", book.resolved_items(tmp_path)["04-spof"],
                           claims[claims["chapter"] == "04-spof"], profile="smoke",
                           seconds=None, machine="", read={}, others=claims)
    assert "Tested in another chapter too" in card
    assert "Alg. 1: C-compare: true-eps-spof (fails)" in card
    monkeypatch.setattr(c_items, "ALSO_TESTS", {})      # without the cross-reference
    rows = book.coverage(tmp_path, ["04-spof"]).set_index("ref")
    assert rows.loc["Alg. 1", "also"] == "" and "true-eps-spof" not in rows.to_string()


def test_a_cross_reference_must_name_an_item_of_that_chapter(monkeypatch):
    from ldp_companion.compare import items as c_items

    links = book.cross_links()
    assert links["04-spof"]["Alg. 1"] == [("C-compare", "true-eps-spof")]
    assert ("C-compare", "true-eps-tldp") in links["01-tldp"]["Theorem 1"]
    assert "C-compare" not in links       # a C claim's own section is its primary ref
    monkeypatch.setattr(c_items, "ALSO_TESTS", {"true-eps-spof": [("04-spof", "Alg. 9")]})
    with pytest.raises(ValueError, match="Alg. 9"):
        book.cross_links()
    monkeypatch.setattr(c_items, "ALSO_TESTS", {"no-such-claim": [("04-spof", "Alg. 1")]})
    with pytest.raises(ValueError, match="no-such-claim"):
        book.cross_links()
    monkeypatch.setattr(c_items, "ALSO_TESTS", {"true-eps-spof": [("09-none", "Alg. 1")]})
    with pytest.raises(ValueError, match="09-none"):
        book.cross_links()


def test_a_claim_id_two_chapters_share_keeps_each_chapter_s_verdict():
    """Chapter 3 and appendix C both have a claim ``pmsub-beats-pm``: read from the ledgers of
    both, chapter 3's item shows its own verdict among its claims and C's beside it."""
    paper = _paper(Item("Table II", "PM-SUB against PM", "checked", claims=["pmsub-beats-pm"]))
    paper = paper.also_tested({"Table II": [("C-compare", "pmsub-beats-pm")]})
    claims = pd.DataFrame({"chapter": ["99-x", "C-compare"],
                           "claim_id": ["pmsub-beats-pm", "pmsub-beats-pm"],
                           "verdict": ["partly", "holds"]})
    row = paper.table(claims).iloc[0]
    assert row["claims"] == "pmsub-beats-pm (partly)"
    assert row["also"] == "C-compare: pmsub-beats-pm (holds)"
    assert paper.also_tested({"Table II": [("C-compare", "pmsub-beats-pm")]}) == paper  # once
    with pytest.raises(ValueError, match="pairs"):
        Item("Lemma 1", "A bound", "checked", claims=["c1"], also=[("C-compare",)])
