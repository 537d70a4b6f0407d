"""The claims ledger computes verdicts, refuses bad input, and round-trips through JSON."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ldp_companion.verdicts.coverage import normalise_ref
from ldp_companion.verdicts.ledger import (
    LEDGER_DIR_ENV,
    Ledger,
    findings,
    load_ledgers,
    section_problems,
    verdict_changes,
    verdict_counts,
    verdict_summary,
    verdict_table_html,
)

REFS = {k: "Lemma 1" for k in "abcde"}


def test_close_verdicts():
    led = Ledger("ch", refs=REFS)
    assert led.close("a", "equal", 1.0, 1.0 + 1e-10, rtol=1e-9).verdict == "holds"
    assert led.close("b", "off", 1.0, 1.1, rtol=1e-3).verdict == "fails"
    assert led.close("c", "some", [1.0, 2.0], [1.0, 2.5], atol=1e-6).verdict == "partly"


def test_close_requires_a_tolerance():
    with pytest.raises(ValueError, match="rtol or atol"):
        Ledger("ch", refs=REFS).close("a", "s", 1.0, 1.0)


def test_bound_and_condition():
    led = Ledger("ch", refs=REFS)
    assert led.bound("a", "below", 5.0, 4.9).verdict == "holds"
    assert led.bound("b", "below", 5.0, 8.07).verdict == "fails"
    assert led.bound("c", "above", 1.0, 0.99, relation=">=", slack=0.02).verdict == "holds"
    x = np.array([0.5, 2.0])
    mixed = led.condition("d", "mixed", x < 1.0, evidence={"x": x})
    assert mixed.verdict == "partly" and mixed.evidence == {"x": "[0.5, 2]"}
    assert led.condition("e", "yes", np.float64(3.0) > 2, evidence={"x": 3.0}).verdict == "holds"


@pytest.mark.parametrize("ok", [True, False, "holds", 1, [True]])
def test_condition_refuses_a_typed_verdict(ok):
    with pytest.raises(TypeError, match="comparison"):
        Ledger("ch", refs=REFS).condition("a", "s", ok, evidence={"x": 1.0})


@pytest.mark.parametrize("evidence", [{}, {"x": "a sentence"}, {"flag": np.array([True])}])
def test_condition_requires_the_quantities_it_was_computed_from(evidence):
    with pytest.raises(ValueError, match="evidence"):
        Ledger("ch", refs=REFS).condition("a", "s", np.array([True]), evidence=evidence)


def test_compare_computes_the_verdict_from_the_quantities():
    led = Ledger("ch", refs={k: "Lemma 1" for k in [*"abcdefghijk", "c2", "c3"]})
    wc = np.array([1.0, 2.0, 3.0])
    assert led.compare("a", "s", wc, "<", wc + 0.1).verdict == "holds"
    # a mutant: the compared quantity is twice as large, the verdict turns
    assert led.compare("b", "s", 2 * wc, "<", wc + 0.1).verdict == "fails"
    assert led.compare("c", "s", wc, "<=", [1.0, 1.0, 3.0]).verdict == "partly"
    # a guarantee broken by one entry is broken: no partly
    assert led.compare("c2", "s", wc, "<=", [1.0, 1.0, 3.0], guarantee=True).verdict == "fails"
    assert led.compare("c3", "s", wc, "<=", wc, guarantee=True).verdict == "holds"
    # round-off tolerance in the claim's favour, and only as much as given
    assert led.compare("d", "s", 1.0 + 1e-13, "<=", 1.0, rtol=1e-12).verdict == "holds"
    assert led.compare("e", "s", 1.0 + 1e-11, "<=", 1.0, rtol=1e-12).verdict == "fails"
    claim = led.compare("f", "s", 0.3, ">", 0.05, names=("p-value", "level"))
    assert claim.verdict == "holds" and claim.evidence["p-value"] == "0.3"
    assert claim.ours == "0.3 > 0.05"
    # a failed comparison reads as what was found, never as the claimed relation
    assert led.compare("h", "s", 784.0, "<=", 1.0).ours == "784 > 1, not ≤"
    assert led.compare("i", "s", 0.2, ">", 0.5).ours == "0.2 ≤ 0.5, not >"
    assert led.compare("j", "s", 1.02, "<=", 1.0, atol=0.05).ours == \
        "1.02 ≤ 1 within the tolerance"
    assert led.bound("k", "s", 1.0, 784.0).paper == "≤ 1"
    with pytest.raises(ValueError, match="relation"):
        led.compare("g", "s", 1.0, "==", 1.0)
    with pytest.raises(ValueError, match="NaN"):
        led.compare("g", "s", np.nan, "<", 1.0)


def test_not_checked_needs_a_reason_and_ids_are_unique():
    led = Ledger("ch", refs=REFS)
    assert led.not_checked("a", "s", "WISDM not available offline").verdict == \
        "not checked offline"
    with pytest.raises(ValueError, match="why"):
        led.not_checked("b", "s", "")
    with pytest.raises(ValueError, match="already recorded"):
        led.compare("a", "s", 1.0, "<", 2.0)


def test_save_and_load(tmp_path, monkeypatch):
    led = Ledger("03-x", refs=REFS)
    led.close("a", "s", 2.0, 2.0, atol=1e-12, section="sec-a")
    led.compare("b", "t <b>", 3.0, "<", 2.0, names=("ours", "cap"))
    monkeypatch.setenv(LEDGER_DIR_ENV, str(tmp_path))
    path = led.save()
    assert path == tmp_path / "03-x.ledger.json"
    Ledger("01-y").save(tmp_path)
    claims = load_ledgers(tmp_path)
    assert list(claims["claim_id"]) == ["a", "b"]
    counts = verdict_counts(claims)
    assert counts.loc["03-x", "holds"] == 1 and counts.loc["03-x", "fails"] == 1
    html = verdict_table_html(claims)
    assert 'href="03-x.html#sec-a"' in html and "t &lt;b&gt;" in html
    assert html.count("<tr style") == 2
    assert claims.loc[1, "evidence"] == {"ours": "3", "relation": "<", "cap": "2",
                                         "tolerance": "exact"}
    assert 'title="ours: 3; relation: &lt;; cap: 2; tolerance: exact"' in html


@given(st.text(max_size=3).filter(lambda s: not s.strip()))
def test_blank_chapter_refused(name):
    with pytest.raises(ValueError):
        Ledger(name)


def test_ledger_shows_as_the_verdicts_table_in_a_notebook():
    led = Ledger("03-x", refs=REFS)
    led.compare("a", "s", 1.0, "<", 2.0, section="sec")
    html = led._repr_html_()
    assert 'class="ldp-verdicts in-chapter"' in html and 'href="#sec"' in html
    assert "<th>chapter</th>" not in html and "<td>Lemma 1</td>" in html


def test_every_claim_names_its_place_in_the_paper():
    led = Ledger("ch")
    with pytest.raises(ValueError, match="names no place in the paper"):
        led.compare("a", "s", 1.0, "<", 2.0)
    claim = led.compare("a", "s", 1.0, "<", 2.0, ref=["Figure 7", "lemma 4", "Fig. 7"])
    assert claim.ref == ("Fig. 7", "Lemma 4")
    mapped = Ledger("ch", refs={"b": "Algorithm 2"}).bound("b", "s", 1.0, 0.5)
    assert mapped.ref == ("Alg. 2",)
    with pytest.raises(ValueError, match="unrecognised ref"):
        led.compare("c", "s", 1.0, "<", 2.0, ref="Slide 3")


def test_refs_round_trip_and_show_in_the_tables(tmp_path):
    led = Ledger("03-x")
    led.compare("a", "s", 1.0, "<", 2.0, ref=["Table V", "Eq. (21)"])
    led.save(tmp_path)
    claims = load_ledgers(tmp_path)
    assert claims.loc[0, "ref"] == ("Table V", "Eq. (21)")
    assert "<td>Table V; Eq. (21)</td>" in verdict_table_html(claims)


@pytest.mark.parametrize("text, canon", [
    ("Figure 7", "Fig. 7"), ("fig 7", "Fig. 7"), ("Fig. 7", "Fig. 7"), ("Algorithm 2", "Alg. 2"),
    ("TABLE V", "Table V"), ("Table I", "Table I"), ("Eq. 21", "Eq. (21)"),
    ("equation (21)", "Eq. (21)"), ("§6.2", "Sec. 6.2"), ("Section VII-C", "Sec. VII-C"),
    ("Thm 2", "Theorem 2"), ("Prop. 4", "Proposition 4"), ("Corollary 1", "Corollary 1"),
    ("Def. 2", "Definition 2"), ("Appendix G", "App. G"), ("Lemma 13", "Lemma 13")])
def test_normalise_ref(text, canon):
    assert normalise_ref(text) == canon


@pytest.mark.parametrize("bad", ["", "7", "Lemma", "Slide 3", "Fig. 7 and 8"])
def test_normalise_ref_refuses_other_forms(bad):
    with pytest.raises(ValueError, match="unrecognised ref"):
        normalise_ref(bad)


def test_difference_decides_only_outside_the_spread():
    rng = np.random.default_rng(3)
    led = Ledger("ch", refs={k: "Fig. 3" for k in "abcdefg"})
    clear = 1.0 + 0.1 * rng.standard_normal((4, 10))
    noise = 0.01 + rng.standard_normal((4, 10))          # mean difference within the spread
    assert led.difference("a", "A beats B", clear).verdict == "holds"
    assert led.difference("b", "B beats A", -clear).verdict == "fails"
    assert led.difference("c", "A beats B", noise).verdict == "inconclusive"
    mixed = np.vstack([clear[:2], -clear[2:]])
    assert led.difference("d", "A beats B", mixed).verdict == "partly"
    some_undecided = np.vstack([clear[:2], noise[2:]])
    assert led.difference("e", "A beats B", some_undecided).verdict == "inconclusive"
    assert led.difference("f", "medians", clear, test="sign").verdict == "holds"
    claim = led.difference("g", "medians", noise, test="sign")
    assert claim.verdict == "inconclusive" and "sign test" in claim.note


def test_difference_with_one_run_cannot_decide_and_bad_inputs_are_refused():
    led = Ledger("ch", refs={"a": "Fig. 3", "b": "Fig. 3"})
    one = led.difference("b", "s", [[1.0], [2.0]])  # however large, one run has no spread
    assert one.verdict == "inconclusive" and "no spread" in one.note
    assert one.ours == "0 cells in favour, 0 against, 2 within the spread (of 2)"
    with pytest.raises(ValueError, match="finite"):
        led.difference("a", "s", [[1.0, np.nan]])
    with pytest.raises(ValueError, match="test must be"):
        led.difference("a", "s", np.ones((2, 3)), test="wilcoxon")


def test_kinds_and_findings():
    led = Ledger("ch", refs={"a": "Theorem 2", "b": "Theorem 2", "c": "Fig. 1", "d": "Sec. 4.2"},
                 kinds={"d": "erratum"})
    led.compare("a", "s", 1.0, "<", 2.0)
    led.compare("b", "s", 3.0, "<", 2.0)
    led.compare("c", "s", [1.0, 3.0], "<", 2.0)
    led.compare("d", "s", 3.0, "<", 2.0)
    with pytest.raises(ValueError, match="kind must be one of"):
        led.compare("e", "s", 1.0, "<", 2.0, ref="Fig. 2", kind="typo")
    claims = led.table()
    assert list(claims["kind"]) == ["substantive"] * 3 + ["erratum"]
    found = findings(claims)
    assert len(found) == 3  # Theorem 2 checked twice is one finding
    thm2 = found[found["item"] == "Theorem 2"].iloc[0]
    assert thm2["verdict"] == "fails" and sorted(thm2["claims"]) == ["a", "b"]
    assert "<i>(erratum)</i>" in verdict_table_html(claims)


def test_reconstructed_values_are_marked_and_linked(tmp_path):
    led = Ledger("03-x", refs=REFS, reconstructed={"a": "rebuilt from Eq. (5)"})
    led.close("a", "s", 2.0, 2.0, atol=1e-12)
    led.close("b", "s", 2.0, 2.0, atol=1e-12)
    led.save(tmp_path)
    claims = load_ledgers(tmp_path)
    assert list(claims["reconstructed"]) == ["rebuilt from Eq. (5)", ""]
    html = verdict_table_html(claims)
    assert html.count('href="reconstructions.html#03-x"') == 1
    assert 'title="rebuilt from Eq. (5)">reconstructed</a>' in html


@pytest.mark.parametrize("value, text", [
    ([0.5, 1.0, 2.0, 4.0], "[0.5, 1, 2, 4]"),           # not numpy's "[0.5, 1. , 2. , 4. ]"
    (-0.0, "0"), (-1e-20 * 0, "0"),                      # no negative zero
    (float("nan"), "—"), (float("inf"), "∞"),            # no NaN / inf cells
    (2.15508e-08, "2.155×10⁻⁸"), (-3.5, "−3.5"),
    (list(range(20)), "[0, 1, 2, …, 18, 19] (20 values)"),
    ([[1.0, 2.0], [3.0, 4.0]], "[1, 2, 3, 4]"),
])
def test_numbers_in_the_tables_are_formatted_for_a_reader(value, text):
    from ldp_companion.verdicts.ledger import _fmt

    assert _fmt(value) == text


def test_in_chapter_table_has_no_chapter_column():
    led = Ledger("ch")
    led.close("a", "x", paper=[0.5, 1.0], ours=[0.5, 1.0], atol=1e-9, ref="Lemma 1")
    html = led._repr_html_()
    assert "<th>chapter</th>" not in html and "in-chapter" in html
    assert "[0.5, 1]" in html and "within 1×10⁻⁹" in html


def test_findings_markdown_is_computed_from_the_verdicts():
    from ldp_companion.verdicts.ledger import findings_markdown

    led = Ledger("ch", refs={"a": "Lemma 1", "b": "Theorem 2", "c": "Fig. 3", "d": "Lemma 1"})
    led.compare("a", "bound a", 1.0, "<", 2.0)
    led.compare("b", "Theorem 2's bound", [3.0, 1.0], "<", 2.0)
    led.difference("c", "Fig. 3 ordering", np.array([[0.1, -0.1, 0.05]]))
    led.compare("d", "Lemma 1 again", 3.0, "<", 2.0)
    text = findings_markdown(led.table())
    assert text.startswith("**4 claims checked:** on the paper's results 1 holds, 1 partly, "
                           "1 fails, 1 inconclusive.")
    assert "- **Lemma 1** (fails): Lemma 1 again" in text          # worst claim of the item
    assert "- **Theorem 2** (partly): Theorem 2's bound — this run: 1 of 2 entries" in text
    assert "Undecided at this run's size (inside the seed spread): Fig. 3." in text
    # the mutant: the same ledger with Theorem 2 holding has no line for it
    led2 = Ledger("ch", refs={"b": "Theorem 2"})
    led2.compare("b", "Theorem 2's bound", [1.0, 1.0], "<", 2.0)
    assert "Theorem 2" not in findings_markdown(led2.table())
    # an erratum's failure is counted apart from the results'
    led3 = Ledger("ch", refs={"a": "Lemma 1", "e": "Eq. 5"}, kinds={"e": "erratum"})
    led3.compare("a", "bound a", 1.0, "<", 2.0)
    led3.compare("e", "Eq. 5 as printed", 3.0, "<", 2.0)
    assert findings_markdown(led3.table()).startswith(
        "**2 claims checked:** on the paper's results 1 holds; errata (the paper's text against"
        " its own results) 1 fails.")


def test_a_recorded_claim_does_not_print_in_a_notebook():
    from IPython.core.formatters import DisplayFormatter

    claim = Ledger("99-x", refs={"c": "Lemma 1"}).close("c", "s", 1.0, 1.0, rtol=0.1)
    assert DisplayFormatter().format(claim) == ({}, {})
    # the mutant: the same fields in a plain object would print as the cell's output
    assert "text/plain" in DisplayFormatter().format(vars(claim))[0]


def test_section_default_links_claims_and_the_check_catches_a_bad_one():
    led = Ledger("ch", refs=REFS)
    led.compare("a", "s", 1.0, "<", 2.0)            # before any section: none
    led.section("sec-one")
    led.compare("b", "s", 1.0, "<", 2.0)
    led.compare("c", "s", 1.0, "<", 2.0, section="sec-two")   # its own wins
    led.section("sec-gone")
    led.compare("d", "s", 1.0, "<", 2.0)
    frame = led.table()
    assert list(frame["section"]) == ["", "sec-one", "sec-two", "sec-gone"]
    page = "(sec-one)=\n## One\n\n(sec-two)=\n## Two\n"
    problems = section_problems(frame, page)
    assert len(problems) == 2
    assert "ch/a: no section" in problems[0] and "'sec-gone'" in problems[1]
    assert section_problems(frame.iloc[1:3], page) == []
    with pytest.raises(ValueError, match="MyST label"):
        led.section("two words")


def test_compare_of_infinite_quantities_decides_without_a_warning():
    import warnings

    led = Ledger("ch", refs={k: "Lemma 1" for k in "ab"})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert led.compare("a", "s", np.inf, "<", np.inf).verdict == "fails"
        assert led.compare("b", "s", [1.0, np.inf], "<", np.inf).verdict == "partly"


def _claims(rows):
    return pd.DataFrame([{"chapter": "05-x", "claim_id": c, "ref": (r,), "kind": k,
                          "verdict": v}
                         for c, r, k, v in rows])


def test_summary_counts_items_by_their_worst_claim():
    claims = _claims([("a", "Theorem 2", "substantive", "holds"),
                      ("b", "Theorem 2", "substantive", "fails"),
                      ("c", "Fig. 1", "substantive", "partly"),
                      ("d", "Fig. 3", "substantive", "inconclusive"),
                      ("e", "Sec. 6", "substantive", "holds"),
                      ("f", "Sec. 4.2", "erratum", "fails"),          # not substantive
                      ("g", "Fig. 9", "substantive", "not checked offline")])
    text = verdict_summary(claims)
    assert text.startswith("Of the 4 paper items")
    assert "1 hold;" in text and "2 do not: Theorem 2 (fails), Fig. 1 (partly)" in text
    assert "this run cannot decide Fig. 3" in text and "Sec. 4.2" not in text
    assert text.endswith("Not checked offline (their data are not here): Fig. 9.")
    # a flipped verdict changes the sentence: it is computed, not typed
    claims.loc[claims["claim_id"] == "b", "verdict"] = "holds"
    assert "1 do not: Fig. 1 (partly)" in verdict_summary(claims)
    with pytest.raises(ValueError, match="lacks the columns"):
        verdict_summary(claims.drop(columns="kind"))


def test_verdict_changes_lists_changed_new_and_lost_claims():
    before = {"a": "holds", "b": "fails", "c": "holds"}
    assert verdict_changes(before, dict(before)) == []
    assert verdict_changes(before, {"a": "fails", "b": "fails", "d": "holds"}) == [
        ("a", "holds", "fails"), ("c", "holds", "absent"), ("d", "absent", "holds")]


def test_labelled_entries_read_alone_in_the_table_and_the_findings():
    """A list of numbers is named entry by entry when the claim gives labels, and a finding
    shows the paper's value beside this run's (reader pass 3: "[0.1368, 0.8649]" alone said
    nothing)."""
    from ldp_companion.verdicts.ledger import findings_markdown

    led = Ledger("99-x", refs={"cdf": "Eq. (53)", "win": "Theorem 1"})
    c = led.close("cdf", "P[X < t]", [0.1798, 0.7559], [0.1368, 0.8649], atol=0.01,
                  labels=["P[X < ½]", "P[X < 3/2]"])
    assert (c.paper, c.ours) == ("P[X < ½]: 0.1798; P[X < 3/2]: 0.7559",
                                 "P[X < ½]: 0.1368; P[X < 3/2]: 0.8649")
    w = led.bound("win", "ratio ≤ e", 2.718, [9.736, np.inf], labels=["η = 0.5", "η = 1"])
    assert w.ours == "η = 0.5: 9.736; η = 1: ∞" and w.verdict == "fails"
    text = findings_markdown(led.table())
    assert "— the paper: P[X < ½]: 0.1798; P[X < 3/2]: 0.7559; this run: P[X < ½]: 0.1368" \
        in text and "— the paper: ≤ 2.718; this run: η = 0.5: 9.736" in text
    with pytest.raises(ValueError, match="one label per entry"):
        led.close("bad", "s", [1.0, 2.0], [1.0, 2.0], atol=0.1, labels=["only one"])
