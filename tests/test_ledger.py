"""The claims ledger computes verdicts, refuses bad input, and round-trips through JSON."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ldp_companion.ledger import (LEDGER_DIR_ENV, Ledger, load_ledgers, verdict_counts,
                                  verdict_table_html)


def test_close_verdicts():
    led = Ledger("ch")
    assert led.close("a", "equal", 1.0, 1.0 + 1e-10, rtol=1e-9).verdict == "holds"
    assert led.close("b", "off", 1.0, 1.1, rtol=1e-3).verdict == "fails"
    assert led.close("c", "some", [1.0, 2.0], [1.0, 2.5], atol=1e-6).verdict == "partly"


def test_close_requires_a_tolerance():
    with pytest.raises(ValueError, match="rtol or atol"):
        Ledger("ch").close("a", "s", 1.0, 1.0)


def test_bound_and_condition():
    led = Ledger("ch")
    assert led.bound("a", "below", 5.0, 4.9).verdict == "holds"
    assert led.bound("b", "below", 5.0, 8.07).verdict == "fails"
    assert led.bound("c", "above", 1.0, 0.99, relation=">=", slack=0.02).verdict == "holds"
    assert led.condition("d", "mixed", np.array([True, False])).verdict == "partly"
    assert led.condition("e", "yes", True).verdict == "holds"


def test_condition_refuses_a_typed_verdict():
    with pytest.raises(TypeError, match="boolean"):
        Ledger("ch").condition("a", "s", "holds")


def test_not_checked_needs_a_reason_and_ids_are_unique():
    led = Ledger("ch")
    assert led.not_checked("a", "s", "WISDM not available offline").verdict == \
        "not checked offline"
    with pytest.raises(ValueError, match="why"):
        led.not_checked("b", "s", "")
    with pytest.raises(ValueError, match="already recorded"):
        led.condition("a", "s", True)


def test_save_and_load(tmp_path, monkeypatch):
    led = Ledger("03-x")
    led.close("a", "s", 2.0, 2.0, atol=1e-12, section="sec-a")
    led.condition("b", "t <b>", False)
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


@given(st.text(max_size=3).filter(lambda s: not s.strip()))
def test_blank_chapter_refused(name):
    with pytest.raises(ValueError):
        Ledger(name)


def test_ledger_shows_as_the_verdicts_table_in_a_notebook():
    led = Ledger("03-x")
    led.condition("a", "s", True, section="sec")
    html = led._repr_html_()
    assert 'class="ldp-verdicts"' in html and 'href="03-x.html#sec"' in html
