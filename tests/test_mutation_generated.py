"""Mutants nobody chose (ldp_companion.verdicts.mutation_generated): the sites found in a module, a
mutant put in place and undone, the seeded sample among the sites a run reached, and the table
of the Verdicts page."""
from __future__ import annotations

import importlib
import json
import sys
import textwrap

import pytest
from conftest import TOY_PAGE

from ldp_companion.execution import runner
from ldp_companion.verdicts import mutation_generated as mg

sys.path.insert(0, str(runner.REPO / "benchmarks"))
mutants_harness = importlib.import_module("mutants")

TOY = '''
"""A toy formula module (literals in docstrings are no site: 2.0)."""
import numpy as np

SCALE = 3.0
TABLE = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]
_SEED = 12


def f(x, k=5):
    if x < -7:
        raise ValueError(f"x must be >= -7, got {x + 1}")
    first = np.arange(4.0)[2]
    return 2.0 * x + SCALE - np.sum(np.ones(3), axis=0) + first


def g(word):
    return word + "s"


class C:
    k = 4

    def m(self, x):
        return x - self.k
'''


@pytest.fixture
def toy(tmp_path, monkeypatch, request):
    """The toy module, imported under a name of its own, and a second module that imported
    ``f`` and ``SCALE`` from it by name."""
    name = f"toy_formulas_{request.node.name[-20:].replace('[', '_').replace(']', '_')}"
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(TOY))
    (tmp_path / f"{name}_user.py").write_text(f"from {name} import SCALE, f\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module(name)
    yield module, importlib.import_module(f"{name}_user")
    sys.modules.pop(name, None)
    sys.modules.pop(f"{name}_user", None)


def _id(module, function, text, op):
    """The id of the mutant ``op`` of the site ``text`` in ``function`` of ``module``."""
    site = next(s for s in mg.sites(module.__name__) if (s.function, s.text) == (function, text))
    return next(i for i in site.ids() if i.endswith(op))


def test_the_generator_finds_literals_and_plus_minus_in_formulas_only(toy):
    module, _ = toy
    found = {(s.scope, s.function, s.kind, s.text) for s in mg.sites(module.__name__)}
    assert found == {
        ("module", "", "literal", "3.0"),                 # SCALE
        ("function", "f", "literal", "4.0"),              # np.arange(4.0)
        ("function", "f", "literal", "2.0"), ("function", "f", "operator", "+"),
        ("function", "f", "operator", "-"), ("function", "f", "literal", "3"),
        ("class", "", "literal", "4"),                    # C.k
        ("function", "C.m", "operator", "-")}
    # not: the docstring, the default k=5, the raise and its test, the subscript [2], axis=0,
    # the table, the seed, word + "s"
    ids = mg.mutant_ids(mg.sites(module.__name__))
    assert len(ids) == len(set(ids)) == 5 * 2 + 4
    assert all(i.startswith(module.__name__ + ":") and i.count(":") == 3 for i in ids)


def test_a_mutant_changes_the_function_everywhere_and_undoing_restores_it(toy):
    module, user = toy
    before = module.f(1.0)                                # 2 + 3 - 3 + 2 = 4
    assert before == pytest.approx(4.0)
    with mg.applied_generated(_id(module, "f", "2.0", "x2")):
        assert module.f(1.0) == pytest.approx(6.0)
        assert user.f(1.0) == pytest.approx(6.0)          # bound by name elsewhere
    assert module.f(1.0) == user.f(1.0) == pytest.approx(before)
    with mg.applied_generated(_id(module, "f", "+", "swap")):
        assert module.f(1.0) == pytest.approx(2.0 - 3.0 - 3.0 + 2.0)
    obj = module.C()                                      # made before the mutant
    with mg.applied_generated(_id(module, "C.m", "-", "swap")):
        assert obj.m(1.0) == pytest.approx(5.0)
    assert obj.m(1.0) == pytest.approx(-3.0)


def test_a_module_or_class_constant_is_rebound_and_restored(toy):
    module, user = toy
    mutant = _id(module, "", "3.0", "x0.5")
    assert mg.describe(mutant)["what"] == "3.0 → 1.5 (×0.5) at module level"
    with mg.applied_generated(mutant):
        assert module.SCALE == user.SCALE == 1.5
        assert module.f(1.0) == pytest.approx(2.5)
    assert module.SCALE == user.SCALE == 3.0
    with mg.applied_generated(_id(module, "", "4", "x2")):
        assert module.C.k == 8 and module.C().m(1.0) == pytest.approx(-7.0)
    assert module.C.k == 4


def test_an_id_that_names_no_site_is_not_applicable(toy):
    module, _ = toy
    with pytest.raises(mg.NotApplicable, match="no such site"):
        mg.apply_generated(f"{module.__name__}:1:0:x2")
    with pytest.raises(ValueError, match="module:line:col:operator"):
        mg.apply_generated("no-colons")


def test_the_sample_is_seeded_and_drawn_among_the_sites_the_run_reached(toy, tmp_path):
    module, _ = toy
    record = tmp_path / "reached.json"
    write = mg.record_reached(record, [module.__name__])
    module.f(1.0)                                         # C.m never runs
    write(stop=True)
    found = mg.sites(module.__name__)
    hit = mg.reached(found, json.loads(record.read_text()))
    assert {(s.function, s.text) for s in hit} == {
        ("f", "4.0"), ("f", "2.0"), ("f", "+"), ("f", "-"), ("f", "3"),
        ("", "3.0")}                                      # SCALE, read by f; not C.k
    ids = mg.mutant_ids(hit)
    first = mg.sample(ids, 4, seed=1)
    assert first == mg.sample(ids, 4, seed=1) and len(first) == 4
    assert set(first) <= set(ids) and first == [i for i in ids if i in first]
    assert {tuple(mg.sample(ids, 4, seed=s)) for s in range(8)} != {tuple(first)}
    assert mg.sample(ids, 100, seed=1) == ids


RECORD = {
    "parameters": {"profile": "smoke", "seed": 0}, "sample": {"per_chapter": 3, "seed": 0},
    "machine": "x86_64, 2 cores", "finished": "2026-11-27T10:00:00+00:00",
    "chapters": [{"chapter": "05-hiera", "modules": ["m"], "sites": 600, "reached": 300,
                  "reached_mutants": 500, "seconds": 60.0}],
    "mutants": [
        {"chapter": "05-hiera", "id": "ldp_companion.hiera.a:10:4:x2", "what": "2.0 → 4.0 (×2)",
         "code": "y = 2.0 * x", "flipped": ["c1: holds → fails"], "error": "",
         "outcome": "verdicts", "caught": True},
        {"chapter": "05-hiera", "id": "ldp_companion.hiera.b:20:8:swap", "what": "+ → -",
         "code": "z = a + b", "flipped": [], "error": "", "outcome": "missed", "caught": False},
        {"chapter": "05-hiera", "id": "ldp_companion.hiera.c:30:1:x0.5", "what": "1 → 0 (×0.5)",
         "code": "n = 1", "flipped": [], "error": "chapter 05-hiera failed in cell 3: "
         "ValueError: n must be positive", "outcome": "run fails", "caught": True}]}


def test_the_table_shows_the_share_per_chapter_and_lists_what_is_missed(tmp_path,
                                                                         monkeypatch):
    path = tmp_path / "mutants-generated.json"
    path.write_text(json.dumps(RECORD))
    assert mg.generated_summary(path).startswith(
        "**2 of 3 generated mutants caught** in 1 chapters (3 drawn per chapter with seed 0")
    html = mg.generated_html(path)
    assert "<td>5</td><td>600</td><td>300</td><td>3</td><td>1</td><td>1</td><td>1</td>" in html
    assert "<b>67%</b>" in html and "<b>Missed</b>: 1 mutants" in html
    assert "hiera.b:20" in html and "not explained yet" in html
    assert "Caught because the run fails: 1 mutants" in html and "must be positive" in html
    monkeypatch.setitem(mg.WHY_MISSED, "ldp_companion.hiera.b:20:8:swap", "b is always 0")
    assert "b is always 0" in mg.generated_html(path)


def test_a_mutant_that_flips_nothing_is_missed_and_a_failed_prelude_not_applicable():
    assert mutants_harness._outcome([], "") == "missed"
    assert mutants_harness._outcome(["c: holds → fails"], "") == "verdicts"
    assert mutants_harness._outcome([], "chapter 05-hiera failed in cell 4: KeyError") == \
        "run fails"
    assert mutants_harness._outcome([], "chapter 05-hiera failed in cell 1: NotApplicable: "
                                        "no such site") == "not applicable"


def test_a_chapter_records_what_it_reaches_and_a_generated_mutant_is_caught_or_missed(
        tmp_path, monkeypatch):
    """End to end on a two-cell chapter: the run as written (in a process of its own, as the
    harness runs it) records the Laplace lines it ran; a mutant of ``worst_case_variance``
    flips its verdict, one of ``_variance``, which the page never calls, is missed."""
    source = tmp_path / "99-toy.md"
    source.write_text(TOY_PAGE)
    monkeypatch.setenv("LDP_COMPANION_LEDGER_DIR", str(tmp_path))
    laplace = "ldp_companion.mechanisms.laplace"
    record = tmp_path / "reached.json"
    base = mutants_harness._run_apart({
        "source": str(source), "folder": str(tmp_path / "as-written"),
        "parameters": {"profile": "smoke", "seed": 0},
        "prelude": mg.reach_prelude(record, [laplace])})
    assert base["error"] == "" and base["verdicts"] == {"var": "holds"}
    found = mg.sites(laplace)
    hit = {s.function for s in mg.reached(found, json.loads(record.read_text()))}
    assert "Laplace.worst_case_variance" in hit and "Laplace._variance" not in hit
    outcomes = []
    for function in ("Laplace.worst_case_variance", "Laplace._variance"):
        site = next(s for s in found if s.function == function and s.text == "2.0")
        after, error = mutants_harness._verdicts(source, tmp_path / function,
                                                 mg.generated_prelude(site.ids()[1]))
        flipped = mutants_harness.flips(base["verdicts"], after)
        outcomes.append(mutants_harness._outcome(flipped, error))
    assert outcomes == ["verdicts", "missed"]


def test_a_rerun_replaces_the_rows_of_its_mutants_and_the_summary_says_so(tmp_path):
    path = tmp_path / "mutants-generated.json"
    path.write_text(json.dumps(RECORD))
    row = {**RECORD["mutants"][1], "flipped": ["c: holds → fails"], "outcome": "verdicts",
           "caught": True}
    mutants_harness._rewrite_rows(path, [row])
    record = json.loads(path.read_text())
    assert [r["outcome"] for r in record["mutants"]] == ["verdicts", "verdicts", "run fails"]
    assert "rerun" in record["mutants"][1] and "rerun" not in record["mutants"][0]
    assert record["sample"] == RECORD["sample"]
    assert mg.generated_summary(path).startswith("**3 of 3 generated mutants caught**")
    assert "1 of them were run again on" in mg.generated_summary(path)
    with pytest.raises(ValueError, match="not in the record"):
        mutants_harness._rewrite_rows(path, [{**row, "id": "ldp_companion.hiera.z:1:0:x2"}])


def stale_ids(ids) -> list[str]:
    """The generated-mutant ids among ``ids`` that name no site of today's source (a line moved
    since the record was made: the page would point at the wrong line)."""
    current: dict[str, set] = {}
    out = []
    for mutant_id in ids:
        module = mutant_id.rsplit(":", 3)[0]
        if module not in current:
            current[module] = set(mg.mutant_ids(mg.sites(module)))
        if mutant_id not in current[module]:
            out.append(mutant_id)
    return out


def test_recorded_ids_name_sites_of_todays_source():
    """A formatting change that moves lines must carry the records' ids along (the Verdicts
    page links each row to its line; WHY_MISSED is keyed by id)."""
    ids = set(mg.WHY_MISSED)
    for path in (mg.GENERATED_RESULTS, mg.GENERATED_DEFAULT):
        ids |= {row["id"] for row in json.loads(path.read_text())["mutants"]}
    assert not stale_ids(sorted(ids))
    assert stale_ids(["ldp_companion.hiera.data:9999:0:x2"])
