"""The mutation harness: a mutant replaces what it targets everywhere it is bound, is undone,
and the harness reports the verdicts it flips."""
from __future__ import annotations

import importlib
import json
import sys

import pytest
from conftest import TOY_PAGE

from ldp_companion.execution import runner
from ldp_companion.mechanisms.laplace import Laplace
from ldp_companion.verdicts.mutation import Mutant, applied, negated, prelude, scaled

sys.path.insert(0, str(runner.REPO / "benchmarks"))
mutants_harness = importlib.import_module("mutants")


def test_a_property_mutant_changes_the_mechanism_and_is_undone():
    mech = Laplace(1.0)
    half = Mutant("laplace-half", "Laplace scale halved",
                  "ldp_companion.mechanisms.laplace:Laplace.scale", scaled(0.5))
    with applied(half):
        assert mech.scale == pytest.approx(1.0)
        assert mech.worst_case_variance() == pytest.approx(2.0)
    assert mech.scale == pytest.approx(2.0)


def test_a_function_mutant_is_replaced_wherever_it_is_bound():
    from ldp_companion.tensor import calibration
    from ldp_companion.tvg import bounds

    original = calibration.idn_c
    flipped = Mutant("idn-c-sign", "c of IDN negated", "ldp_companion.tensor.calibration:idn_c",
                     negated)
    with applied(flipped):
        assert bounds.idn_c is calibration.idn_c is not original
        assert calibration.idn_c(10, 1.0, 1e-5) == pytest.approx(-original(10, 1.0, 1e-5))
    assert bounds.idn_c is original and calibration.idn_c is original


def test_a_mutant_must_name_a_target_that_exists():
    with pytest.raises(ValueError, match="target"):
        Mutant("x", "y", "no colon", scaled(2))
    with pytest.raises(ValueError, match="sentence"):
        Mutant("x", "", "a:b", scaled(2))
    with pytest.raises(AttributeError, match="has no"):
        with applied(Mutant("x", "y", "ldp_companion.tensor.calibration:nope", scaled(2))):
            pass
    with pytest.raises(AttributeError, match="defines no"):
        with applied(Mutant("x", "y", "ldp_companion.mechanisms.laplace:Laplace.nope",
                            scaled(2))):
            pass


def test_prelude_applies_the_named_mutant():
    code = prelude("ldp_companion.tldp", "laplace-half")
    assert "from ldp_companion.tldp.mutants import MUTANTS" in code
    assert "'laplace-half'" in code
    compile(code, "prelude", "exec")


def test_flips_lists_changed_new_and_lost_verdicts():
    before = {"a": "holds", "b": "fails", "c": "holds"}
    assert mutants_harness.flips(before, dict(before)) == []
    assert mutants_harness.flips(before, {"a": "fails", "b": "fails", "d": "holds"}) == [
        "a: holds → fails", "c: holds → absent", "d: absent → holds"]


def test_a_mutant_applied_before_a_chapter_flips_its_verdict(tmp_path, monkeypatch):
    """End to end on a two-cell chapter: as written the claim holds; with the prelude of a
    mutant that halves the Laplace scale it fails, and the harness reports the flip."""
    source = tmp_path / "99-toy.md"
    source.write_text(TOY_PAGE)
    code = ("from ldp_companion.verdicts.mutation import Mutant, apply, scaled\n"
            "apply(Mutant('half', 'Laplace scale halved', "
            "'ldp_companion.mechanisms.laplace:Laplace.scale', scaled(0.5)))")
    monkeypatch.setenv("LDP_COMPANION_LEDGER_DIR", str(tmp_path))
    base, error = mutants_harness._verdicts(source, tmp_path / "as-written", None)
    after, error2 = mutants_harness._verdicts(source, tmp_path / "mutant", code)
    assert (error, error2) == ("", "")
    assert mutants_harness.flips(base, after) == ["var: holds → fails"]


def test_results_table_shows_caught_and_missed_mutants(tmp_path):
    from ldp_companion.verdicts.mutation import results_html, results_summary

    path = tmp_path / "mutants.json"
    path.write_text(json.dumps({
        "parameters": {"profile": "smoke", "seed": 0}, "machine": "x86_64, 2 cores",
        "finished": "2026-11-26T10:00:00+00:00", "mutants": [
            {"chapter": "01-tldp", "mutant": "a", "what": "scale halved", "target": "m:f",
             "flipped": [f"c{i}: holds → fails" for i in range(6)], "error": "", "caught": True},
            {"chapter": "02-tvg", "mutant": "b", "what": "sign", "target": "m:g",
             "flipped": [], "error": "", "caught": False}]}))
    assert results_summary(path).startswith("**1 of 2 mutants caught** in 2 chapters")
    html = results_html(path)
    assert html.count("<tr") == 3 and "missed" in html and "c3: holds → fails …" in html
    assert "c4:" not in html
