"""The checks of one chapter's smoke run, wherever it ran.

Every chapter executes once at smoke in the test session (``tests/test_chapters.py``, with
what :mod:`chapter_setups` puts in place; the light install's chapters in that environment),
and :func:`check_smoke_run` checks that one execution: no error, its
verdicts are their pins, its claims and sections are whole, its exercises check out, its
figures and tables are traceable, its reconstructed references are marked.
"""
from __future__ import annotations

import json
import os
import re
import warnings
from pathlib import Path

import nbformat
import pandas as pd
import plot_spy
from plot_spy import TWO_WAY, mismatch

from ldp_companion.edition import book
from ldp_companion.execution import runner
from ldp_companion.verdicts.ledger import VERDICTS, load_ledgers, section_problems, verdict_changes

SMOKE_BUDGET_S = 60  # the contract's smoke budget on 2 cores: reported, never failed


class SlowChapterWarning(UserWarning):
    """A chapter ran longer than :data:`SMOKE_BUDGET_S` at smoke (a benchmark, not a test)."""


def check_smoke_run(source: Path, folder: Path, commit: str | None) -> pd.DataFrame:
    """Check chapter ``source``'s smoke run in ``folder`` (its notebook, ledger and records);
    ``commit``: the one its records must name (None from a wheel). Returns its claims."""
    stem, text = source.stem, source.read_text()
    out = folder / f"{stem}.ipynb"
    nb = nbformat.read(out, as_version=4)
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors
    record = json.loads((folder / f"{stem}.run.json").read_text())
    assert record["parameters"]["profile"] == "smoke"
    if record["seconds"] > SMOKE_BUDGET_S:  # timings are benchmarks: reported, not failed
        warnings.warn(f"{stem} took {record['seconds']} s at smoke (budget "
                      f"{SMOKE_BUDGET_S} s)", SlowChapterWarning, stacklevel=2)
    claims = load_ledgers(folder)
    assert set(claims["verdict"]) <= set(VERDICTS)
    problems = book.ITEMS[stem].problems(claims, text)
    problems += section_problems(claims, text)
    assert not problems, "\n".join(problems)
    _verdicts_are_pinned(stem, claims)
    _exercises_check_out(stem, nb)
    _results_are_traceable(stem, nb, folder, commit)
    _digest_covers_what_ran(source, folder)
    rec = book.RECONSTRUCTIONS.get(stem)
    if rec is not None:  # every reconstructed reference is a claim of the run, marked so
        marked = claims.set_index("claim_id")["reconstructed"]
        assert set(rec.RECONSTRUCTED) <= set(marked.index)
        assert all(marked[c] for c in rec.RECONSTRUCTED)
    return claims


def _results_are_traceable(chapter: str, nb, folder, commit: str | None) -> None:
    """Every figure and table links its CSV and provenance; one figure's CSV holds the numbers
    the chapter handed matplotlib (:mod:`plot_spy`); the run records its ``commit`` (None
    from a wheel)."""
    html = "".join(o.get("data", {}).get("text/html", "") for c in nb.cells
                   if c.cell_type == "code" for o in c.get("outputs", []))
    links = re.findall(r'<p class="provenance"><a href="([^"]+)"', html)
    captions = re.findall(r"\*Figure [0-9A-Z]+\.\d+\. ", "".join(
        o.get("data", {}).get("text/markdown", "") for c in nb.cells
        if c.cell_type == "code" for o in c.get("outputs", [])))
    tables = re.findall(r"<caption>Table [0-9A-Z]+\.\d+\. ", html)
    assert len(links) == len(captions) + len(tables), (len(links), len(captions), len(tables))
    assert all((folder / link).is_file() for link in links)
    unnamed = {link: int(n) for link in links if "/figure-" in link
               if (n := pd.read_csv(folder / link)["series"].isna().sum())}
    assert not unnamed, f"figure CSV rows without a series (name the artist): {unnamed}"
    given = plot_spy.read(folder) if captions else []
    assert len(given) == len(captions)
    checked = [k for k, g in enumerate(given) if {c["method"] for c in g} & TWO_WAY]
    if given:
        k = (checked or [0])[0]
        csv = pd.read_csv(folder / [x for x in links if "/figure-" in x][k])
        assert not mismatch(given[k], csv), mismatch(given[k], csv)
        record = json.loads((folder / re.sub(r"\.csv(\.gz)?$", ".json", links[0])).read_text())
        assert record["commit"] == commit
    run = json.loads((folder / f"{chapter}.run.json").read_text())
    assert run["source"]["commit"] == commit


def unreached(source: Path, loaded: list[str]) -> list[str]:
    """The package modules among ``loaded`` that the chapter's code digest leaves out
    (:func:`~ldp_companion.execution.runner.package_sources`, read from the code)."""
    package = runner.REPO / "ldp_companion"
    covered = {".".join(p.relative_to(package.parent).with_suffix("").parts).removesuffix(
        ".__init__") for p in runner.package_sources(source, package)}
    return sorted(set(loaded) - covered)


def _digest_covers_what_ran(source: Path, folder: Path) -> None:
    """Every package module the chapter's kernel imported is one its cache key and its
    paper-scale record's digest hash (:mod:`plot_spy` lists them): a change to it makes them
    stale."""
    missed = unreached(source, plot_spy.modules(folder))
    assert not missed, f"the code digest of {source.stem} misses modules it ran: {missed}"


PINNED = runner.REPO / "tests" / "pinned"
PIN_ENV = "LDP_COMPANION_PIN"


def _verdicts_are_pinned(chapter: str, claims) -> None:
    """The smoke run's verdicts are the ones pinned in ``tests/pinned/<chapter>.json``: a
    verdict that changes is a decision someone makes (rewrite the pins with
    ``LDP_COMPANION_PIN=1 pytest tests/test_chapters.py -k <chapter>`` and commit them), not a
    silent drift."""
    got = dict(zip(claims["claim_id"], claims["verdict"]))
    path = PINNED / f"{chapter}.json"
    if os.environ.get(PIN_ENV) == "1":
        path.parent.mkdir(exist_ok=True)
        path.write_text(json.dumps(got, indent=1, ensure_ascii=False) + "\n")
    assert path.exists(), f"no pinned verdicts for {chapter}: run with {PIN_ENV}=1 once"
    pinned = json.loads(path.read_text())
    changed = pin_changes(pinned, got)
    assert not changed, (f"{chapter}: smoke verdicts differ from tests/pinned/{chapter}.json "
                         f"(if intended, rerun with {PIN_ENV}=1 and commit):\n"
                         + "\n".join(changed))


def pin_changes(pinned: dict, got: dict) -> list[str]:
    """One line per claim whose verdict differs from its pin, or that is new or gone."""
    return [f"{c}: pinned {p}, now {g}" for c, p, g in verdict_changes(pinned, got)]


def _exercises_check_out(chapter: str, nb) -> None:
    """The page (the instructor's view) solves every exercise: each self-check says correct.
    Outside the solutions, no output or text shows an answer (a table that prints one)."""
    from ldp_companion.edition.student import SELF_CHECK, leaks, split_solutions

    exercises = book.EXERCISES.get(chapter)
    if exercises is None:
        return
    checks = [c for c in nb.cells if SELF_CHECK in c.metadata.get("tags", [])]
    shown = [c.outputs[0]["data"]["text/plain"] for c in checks]
    assert len(shown) == len(exercises) and all(s.endswith(": correct") for s in shown), shown
    outside = nbformat.v4.new_notebook(cells=split_solutions(nb.cells)[0])
    assert not leaks(outside, [], exercises.answers())
