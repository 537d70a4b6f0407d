"""Every chapter executes at the smoke profile; the command line runs a chapter."""
from __future__ import annotations

import json

import light_env
import pytest
from chapter_setups import SETUPS
from plot_spy import PRELUDE
from smoke_checks import check_smoke_run, pin_changes

from ldp_companion.__main__ import main
from ldp_companion.edition import book
from ldp_companion.execution import runner
from ldp_companion.execution.profiles import ChapterParams


@pytest.mark.chapter
@pytest.mark.parametrize("source", runner.chapters(), ids=lambda p: p.stem)
def test_chapter_runs_at_smoke(source, tmp_path, monkeypatch, request):
    """One smoke execution per chapter, checked by :func:`smoke_checks.check_smoke_run` (errors,
    pins, claims, sections, exercises, figure data, provenance). Chapters 1 and 2 run with
    the files :mod:`chapter_setups` puts in place; a chapter that needs no extra runs where a
    stranger with the light install runs it, in that environment, from the freshly built
    wheel (which knows no commit)."""
    parameters = {"profile": "smoke", "seed": 0}
    setup = SETUPS.get(source.stem)
    after = None
    if setup is not None:
        (tmp_path / "setup").mkdir()
        extra, after = setup(tmp_path / "setup", monkeypatch)
        parameters.update(extra)
    out = tmp_path / "run"
    if source.stem in light_env.LIGHT:
        light_env.execute(request.getfixturevalue("light_python"), source.stem, out,
                          parameters, PRELUDE)
        commit = None
    else:
        runner.execute(source, out, parameters, prelude=PRELUDE)
        commit = runner.source_state()["commit"]
        assert commit is not None  # a checkout's run records its commit
    claims = check_smoke_run(source, out, commit)
    if after is not None:
        after(out, claims)


def test_pin_check_notices_a_changed_a_new_and_a_lost_verdict():
    pinned = {"a": "holds", "b": "fails"}
    assert pin_changes(pinned, dict(pinned)) == []
    assert pin_changes(pinned, {"a": "fails", "b": "fails", "c": "holds"}) == [
        "a: pinned holds, now fails", "c: pinned absent, now holds"]
    assert pin_changes(pinned, {"a": "holds"}) == ["b: pinned fails, now absent"]


@pytest.mark.parametrize("page", [*runner.chapters(), *sorted(runner.REPO.glob("book/*.md"))],
                         ids=lambda p: p.stem)
def test_pages_cite_the_paper_not_a_working_brief(page):
    """The reader has the paper and the book, not our working notes: no page cites "the
    brief"; a lost formula is called reconstructed and shown on the Reconstructions page."""
    import re

    assert not re.search(r"\bbrief\b", page.read_text(), re.I)


def test_find_chapter():
    assert runner.find_chapter("pm").stem == "03-pm-three-outputs"
    assert runner.find_chapter("03").stem == "03-pm-three-outputs"
    assert runner.find_chapter("tldp").stem == "01-tldp"
    assert runner.find_chapter("4").stem == "04-spof"  # a bare number, as `plan 4` reads
    assert runner.find_chapter("c").stem == runner.find_chapter("C").stem == "C-compare"
    with pytest.raises(ValueError, match="matches no chapter; known: 01-tldp"):
        runner.find_chapter("nope")


@pytest.mark.chapter
def test_cli_run_with_parameters_and_a_rerun_gives_the_same_ledger(tmp_path, capsys,
                                                                  monkeypatch):
    from ldp_companion.execution.grid_store import STORE_ENV

    monkeypatch.setenv(STORE_ENV, str(tmp_path / "elsewhere"))  # run sets its own, then restores
    # appendix B: a quick chapter with experiment grids (their cells go to the store)
    assert main(["run", "mechanism", "-p", "profile", "smoke", "-p", "seed", "3",
                 "--out", str(tmp_path)]) == 0
    record = json.loads((tmp_path / "B-mechanism.run.json").read_text())
    assert record["parameters"] == {"profile": "smoke", "seed": 3}
    assert "executed notebook" in capsys.readouterr().out
    source = record["source"]  # the commit and the pinned versions that computed it
    if (runner.REPO / ".git").exists():
        import subprocess

        head = subprocess.run(["git", "-C", str(runner.REPO), "rev-parse", "HEAD"],
                              capture_output=True, text=True).stdout.strip()
        assert source["commit"] == head and isinstance(source["uncommitted_changes"], bool)
    assert len(source["constraints_sha256"]) == 64
    grids = list((tmp_path / "grid-store").glob("*/grid.json"))  # resumable by default
    assert grids and all(list(g.parent.glob("*.pkl")) for g in grids)
    import os

    assert os.environ[STORE_ENV] == str(tmp_path / "elsewhere")
    assert not (tmp_path / "elsewhere").exists()
    # the determinism contract: every draw comes from generators seeded by `seed`; a rerun
    # with the same parameters (no store: everything computed again) gives the same ledger
    # (appendix B: the quickest chapter that draws, audits and runs a grid)
    again = tmp_path / "again"
    runner.execute(runner.find_chapter("mechanism"), again, {"profile": "smoke", "seed": 3})
    first, second = (json.loads((d / "B-mechanism.ledger.json").read_text())
                     for d in (tmp_path, again))
    assert first == second and len(first) >= 3


def test_source_state_names_the_commit_and_uncommitted_changes(tmp_path):
    import subprocess

    assert runner.source_state(tmp_path) == {"commit": None, "uncommitted_changes": None,
                                             "constraints_sha256": None}
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    (tmp_path / "constraints.txt").write_text("numpy==2.0\n")
    subprocess.run([*git, "add", "constraints.txt"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "x"], check=True)
    state = runner.source_state(tmp_path)
    head = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True)
    assert state["commit"] == head.stdout.strip() and state["uncommitted_changes"] is False
    assert state["constraints_sha256"] == __import__("hashlib").sha256(b"numpy==2.0\n").hexdigest()
    (tmp_path / "constraints.txt").write_text("numpy==2.1\n")
    assert runner.source_state(tmp_path)["uncommitted_changes"] is True


def test_cli_refuses_a_bad_profile(tmp_path):
    with pytest.raises(ValueError, match="profile must be one of"):
        main(["run", "tldp", "-p", "profile", "huge", "--out", str(tmp_path)])


def _parameters_cell(source) -> str:
    import jupytext

    cells = [c for c in jupytext.read(source).cells if "parameters" in c.metadata.get("tags", [])]
    assert len(cells) == 1, f"{source.stem} must have exactly one parameters cell"
    return cells[0].source


def _papermill_parameters(cell_source: str, caplog) -> tuple[list[str], str]:
    """What ``papermill --help-notebook`` reads from a parameters cell, and what it logged."""
    import nbformat
    from papermill.translators import PythonTranslator

    caplog.clear()
    found = PythonTranslator.inspect(nbformat.v4.new_code_cell(source=cell_source))
    return [p.name for p in found], caplog.text


@pytest.mark.parametrize("source", runner.chapters(), ids=lambda p: p.stem)
def test_parameters_cell_is_generated_from_the_spec(source):
    """The cell, the chapter's table and the Rerun page's table all come from the package's
    spec."""
    expected = book.PARAMS[source.stem].parameters_cell()
    assert _parameters_cell(source) == expected, (
        f"{source.stem}'s parameters cell differs from its spec; run "
        "`python -m ldp_companion params --sync`")


@pytest.mark.parametrize("source", runner.chapters(), ids=lambda p: p.stem)
def test_papermill_parses_every_parameter(source, caplog):
    names, printed = _papermill_parameters(_parameters_cell(source), caplog)
    assert names == ["profile", "seed", *book.PARAMS[source.stem].names]
    assert "Unable to parse" not in printed, printed


def test_papermill_check_catches_an_unparsable_comment(caplog):
    names, printed = _papermill_parameters(
        'profile = "default"  # run size\neta0 = None  # step size η_t = η0 / sqrt(t)', caplog)
    assert names == ["profile"] and "Unable to parse" in printed
    with pytest.raises(ValueError, match="contains '='"):
        ChapterParams("99-x", {"eta0": ("η_t = η0", {"smoke": 1, "default": 1, "paper": 1})})


def test_the_rerun_pages_table_is_every_parameter_of_every_spec():
    """The *Reading and rerunning* page shows ``params_frame``: one row per parameter of every
    chapter, the same values the command line's Markdown table prints."""
    frame = book.params_frame()
    assert len(frame) == sum(len(spec.names) for spec in book.PARAMS.values())
    markdown = book.params_markdown().splitlines()[2:]
    as_rows = ["| " + " | ".join([r.chapter, f"`{r.parameter}`", r.meaning, r.smoke, r.default,
                                  r.paper]) + " |" for r in frame.itertuples()]
    assert as_rows == markdown[: len(as_rows)]
    assert "book.params_frame()" in (runner.REPO / "book" / "rerun.md").read_text()


def test_cli_params_prints_one_chapter(capsys):
    assert main(["params", "hiera"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("| chapter |") and all(
        line.startswith("| 05 |") for line in out[2:]) and len(out) == 2 + len(
        book.PARAMS["05-hiera"].names)


def test_cli_reports_bad_input_in_one_line(capsys, monkeypatch):
    from ldp_companion.__main__ import cli

    monkeypatch.setattr("sys.argv", ["ldp-companion", "run", "nope"])
    assert cli() == 2
    err = capsys.readouterr().err
    assert err.startswith("error: 'nope' matches no chapter") and err.count("\n") == 1


def test_cli_says_in_one_line_which_extra_a_chapter_needs(capsys, monkeypatch):
    from ldp_companion.__main__ import cli
    from ldp_companion.execution import profiles

    monkeypatch.setitem(profiles.EXTRAS, "torch", ("no_such_module_ldp",))
    monkeypatch.setattr("sys.argv", ["ldp-companion", "run", "tldp", "-p", "profile", "smoke"])
    assert cli() == 2
    err = capsys.readouterr().err
    assert err == ('error: 01-tldp needs the [torch] extra (no_such_module_ldp not installed): '
                   'pip install "ldp_companion[torch]"\n')


@pytest.mark.parametrize("source", runner.chapters(), ids=lambda p: p.stem)
def test_a_chapter_ends_with_its_ledger_shown_by_the_one_renderer(source):
    """Every chapter shows its verdicts through ``Ledger._repr_html_`` (one table renderer for
    the book; with its paper-scale record beside it, ``ledger.beside(paper_run)``), not a
    DataFrame of its own."""
    text = source.read_text()
    if "Ledger(" not in text:
        return
    shown = [l for l in text.splitlines() if l.startswith("ledger.table()")]  # a DataFrame shown
    assert not shown, shown
    assert "\nledger\n```" in text or "\nledger.beside(paper_run)\n```" in text
    assert "\nledger.save()\n" in text


CODE_WIDTH = 88  # the page shows 90 columns of code without scrolling (scripts/format_notebooks.py)


def long_code_lines(text: str) -> list[str]:
    """Code-cell lines of a MyST notebook wider than the page shows (the parameters cell, a
    table generated from the chapter's spec and hidden behind a toggle, is exempt)."""
    out, code, params = [], False, False
    for line in text.splitlines():
        if line.startswith("```{code-cell}"):
            code = True
        elif line.startswith(":tags: [parameters"):
            params = True
        elif line.startswith("```"):
            code = params = False
        elif code and not params and len(line) > CODE_WIDTH:
            out.append(line)
    return out


@pytest.mark.parametrize("source", runner.chapters(), ids=lambda p: p.stem)
def test_chapter_code_fits_the_page(source):
    assert not long_code_lines(source.read_text()), "run `make format` and shorten long strings"


def test_code_width_check_catches_a_long_line():
    cell = "```{code-cell} ipython3\nx = 1\n" + "y = '" + "a" * 90 + "'\n```\n" + "b" * 120
    assert long_code_lines(cell) == ["y = '" + "a" * 90 + "'"]


@pytest.mark.parametrize("source", runner.chapters(), ids=lambda p: p.stem)
def test_setup_and_bookkeeping_code_is_behind_a_toggle(source):
    """The page opens with the paper: the parameters cell, the setup cell (it ends by showing
    the parameter table) and the ledger cell are hidden behind a toggle (hide-input)."""
    import jupytext

    cells = [c for c in jupytext.read(source).cells if c.cell_type == "code"]
    setup = [c for c in cells if c.source.rstrip().endswith("\ncfg")]
    ledger = [c for c in cells if "ledger.save()" in c.source]
    assert setup, "the setup cell ends with `cfg` (the parameter table)"
    for c in [c for c in cells if "parameters" in c.metadata.get("tags", [])] + setup + ledger:
        assert "hide-input" in c.metadata.get("tags", []), c.source[:60]


@pytest.mark.parametrize("source", runner.chapters(), ids=lambda p: p.stem)
def test_findings_box_is_computed_from_the_ledger(source):
    """A chapter with a ledger opens with a "What this chapter finds" box whose content is glued
    from ``findings_markdown`` of its own ledger, not typed."""
    import re

    text = source.read_text()
    if "Ledger(" not in text or source.stem.split("-")[0].isalpha():  # appendices: no box
        return
    box = text[text.index("What this chapter finds"):]
    box = box[:box.index("::::", 4)]
    key = re.search(r"```\{glue:md\} (\S+)", box)
    assert key, "the box glues its content"
    assert (f'glue("{key.group(1)}", Markdown(findings_markdown(ledger.table())), '
            'display=False)') in text
    prose = re.sub(r"```.*?```", "", box, flags=re.S)
    assert not re.search(r"\b(fails|holds|partly)\b", prose), "no verdict typed in the box"
