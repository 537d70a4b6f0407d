"""The book's verdicts are pinned (``tests/pinned/default/``): a build that says otherwise fails
``make book`` with one line per claim; ``CHANGELOG.md`` is the history of these pins."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from ldp_companion.__main__ import main
from ldp_companion.edition import changelog
from ldp_companion.execution import runner
from ldp_companion.verdicts import pins
from ldp_companion.verdicts.ledger import VERDICTS


def _build(folder: Path, verdicts: dict, profile="default", seed=0) -> Path:
    """A book build's records in ``folder``: per chapter a ledger and a run record."""
    folder.mkdir(parents=True, exist_ok=True)
    for chapter, claims in verdicts.items():
        rows = [{"chapter": chapter, "claim_id": c, "statement": "s", "paper": "", "ours": "",
                 "verdict": v, "note": "", "section": "x", "ref": ["Lemma 1"],
                 "kind": "substantive"} for c, v in claims.items()]
        (folder / f"{chapter}.ledger.json").write_text(json.dumps(rows))
        (folder / f"{chapter}.run.json").write_text(json.dumps(
            {"name": chapter, "parameters": {"profile": profile, "seed": seed}}))
    return folder


BUILT = {"01-x": {"t1": "holds", "t2": "fails", "t3": "partly"}, "02-y": {"l4": "holds"}}


def test_a_build_equal_to_its_pins_passes(tmp_path):
    verdicts = pins.build_verdicts(_build(tmp_path / "b", BUILT), ["01-x", "02-y"])
    assert verdicts == BUILT and list(verdicts["01-x"]) == ["t1", "t2", "t3"]  # ledger order
    pins.write_pins(verdicts, tmp_path / "pins")
    assert json.loads((tmp_path / "pins" / "01-x.json").read_text()) == BUILT["01-x"]
    assert pins.check(verdicts, pins.read_pins(tmp_path / "pins")) == {}


def test_a_changed_a_new_and_a_lost_claim_are_named(tmp_path):
    pins.write_pins(BUILT, tmp_path / "pins")
    mutated = json.loads((tmp_path / "pins" / "01-x.json").read_text())
    mutated["t1"] = "fails"                     # the build now says holds
    del mutated["t3"]                           # a claim the pins lack
    mutated["gone"] = "holds"                   # a claim the build lost
    (tmp_path / "pins" / "01-x.json").write_text(json.dumps(mutated))
    changes = pins.check(BUILT, pins.read_pins(tmp_path / "pins"))
    assert changes == {"01-x": ["t1: pinned fails, now holds", "gone: pinned holds, now absent",
                                "t3: pinned absent, now partly"]}
    message = pins.check_message(changes, tmp_path / "b", tmp_path / "pins")
    assert "01-x:\n  t1: pinned fails, now holds" in message
    assert "python -m ldp_companion pin" in message and "changelog" in message


def test_a_chapter_without_pins_or_without_a_ledger_is_named(tmp_path):
    changes = pins.check({"01-x": BUILT["01-x"], "03-z": {"a": "holds"}},
                         {"01-x": BUILT["01-x"], "02-y": BUILT["02-y"]})
    assert changes == {"02-y": ["pinned (1 claims), no ledger in the build"],
                       "03-z": ["not pinned (1 claims in the build)"]}


def test_write_pins_drops_a_chapter_the_book_no_longer_has(tmp_path):
    pins.write_pins(BUILT, tmp_path)
    pins.write_pins({"01-x": BUILT["01-x"]}, tmp_path)
    assert sorted(p.name for p in tmp_path.glob("*.json")) == ["01-x.json"]


def test_only_a_whole_default_build_at_seed_0_is_the_books(tmp_path):
    with pytest.raises(FileNotFoundError, match="make book"):
        pins.build_verdicts(tmp_path / "nothing")
    with pytest.raises(FileNotFoundError, match="no ledger of 02-y"):
        pins.build_verdicts(_build(tmp_path / "part", {"01-x": BUILT["01-x"]}), ["01-x", "02-y"])
    with pytest.raises(ValueError, match="profile smoke, seed 0"):
        pins.build_verdicts(_build(tmp_path / "smoke", BUILT, profile="smoke"))
    with pytest.raises(ValueError, match="profile default, seed 3"):
        pins.build_verdicts(_build(tmp_path / "seed", BUILT, seed=3))


def test_the_command_pins_then_checks_and_fails_on_a_change(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(runner, "REPO", tmp_path)
    monkeypatch.setattr(runner, "chapters", lambda *a: [Path("01-x.md"), Path("02-y.md")])
    build = _build(tmp_path / "generated", BUILT)
    assert main(["pin", "--build", str(build)]) == 0
    assert pins.read_pins(tmp_path / pins.BOOK_PINNED) == BUILT
    assert main(["pin", "--check", "--build", str(build)]) == 0
    assert "4 verdicts (2 chapters" in capsys.readouterr().out
    _build(build, {"02-y": {"l4": "inconclusive"}})
    assert main(["pin", "--check", "--build", str(build)]) == 1
    err = capsys.readouterr().err
    assert "02-y:\n  l4: pinned holds, now inconclusive" in err and "re-pin" in err
    assert main(["pin", "--build", str(build)]) == 0  # re-pinning is one command
    assert "02-y: l4: pinned holds, now inconclusive" in capsys.readouterr().out
    assert main(["pin", "--check", "--build", str(build)]) == 0


def test_a_wall_clock_verdict_that_moves_is_reported_and_does_not_fail_the_check(
        tmp_path, monkeypatch, capsys):
    """A claim judged on this machine's timings (edition.book.WALL_CLOCK) may move with the
    machine's load: the check names it and passes; any other claim that moves still fails."""
    from ldp_companion.edition import book

    monkeypatch.setattr(runner, "REPO", tmp_path)
    monkeypatch.setattr(runner, "chapters", lambda *a: [Path("01-x.md"), Path("02-y.md")])
    monkeypatch.setitem(book.WALL_CLOCK, "01-x", ("t2",))
    build = _build(tmp_path / "generated", BUILT)
    assert main(["pin", "--build", str(build)]) == 0
    _build(build, {"01-x": {**BUILT["01-x"], "t2": "inconclusive"}})
    assert main(["pin", "--check", "--build", str(build)]) == 0
    out = capsys.readouterr().out
    assert "not checked, wall-clock verdicts" in out and "01-x t2: pinned fails, this build " \
        "inconclusive" in out
    _build(build, {"01-x": {**BUILT["01-x"], "t2": "inconclusive", "t1": "fails"}})
    assert main(["pin", "--check", "--build", str(build)]) == 1
    assert "t1: pinned holds, now fails" in capsys.readouterr().err


def test_the_wall_clock_claims_are_claims_on_time():
    """Each listed claim exists in its chapter's pins and speaks of time: the list names no
    claim it should not spare."""
    pinned = pins.read_pins(runner.REPO / pins.BOOK_PINNED)
    from ldp_companion.edition import book

    for chapter, ids in book.WALL_CLOCK.items():
        assert set(ids) <= set(pinned[chapter]) and all(i.startswith("time") for i in ids)


def test_every_chapter_of_the_book_has_its_verdicts_pinned():
    pinned = pins.read_pins(runner.REPO / pins.BOOK_PINNED)
    assert sorted(pinned) == sorted(p.stem for p in runner.chapters()), (
        "build the book (make book) and pin its verdicts: python -m ldp_companion pin")
    assert all(set(v.values()) <= set(VERDICTS) and v for v in pinned.values())


def test_make_book_ends_with_the_check():
    make = (runner.REPO / "Makefile").read_text()
    recipe = make.split("\nbook:", 1)[1].split("\n\n", 1)[0]
    assert "-m ldp_companion pin --check" in recipe.splitlines()[-1]
    assert "make book" in (runner.REPO / ".ci" / "run").read_text()


# --- the changelog from the book's pins -------------------------------------------------------

def _git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
           "GIT_AUTHOR_DATE": "2026-11-26T12:00:00", "GIT_COMMITTER_DATE": "2026-11-26T12:00:00"}
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                          env=env, check=True)
    return done.stdout.strip()


def _commit(repo: Path, files: dict, message: str, version="0.1.0") -> str:
    files = {"pyproject.toml": f'[project]\nversion = "{version}"\n', **files}
    for name, content in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(content if isinstance(content, str) else json.dumps(content))
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", message)
    return _git(repo, "rev-parse", "HEAD")


def test_the_changelog_is_the_book_pins_history_and_keeps_the_smoke_one_apart(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    smoke = f"{pins.SMOKE_PINNED}/05-hiera.json"
    book = f"{pins.BOOK_PINNED}/05-hiera.json"
    _commit(repo, {smoke: {"t2": "holds"}}, "smoke pinned")
    assert "No verdict of the book's default build is pinned yet" in changelog.text(repo)
    first = _commit(repo, {book: {"t2": "holds", "t3": "fails"}}, "book pinned")
    _commit(repo, {smoke: {"t2": "fails"}}, "a smoke-only change")
    _commit(repo, {book: {"t2": "fails", "t3": "fails"}}, "Theorem 2 on the sent pair",
            version="0.2.0")
    assert [p.subject for p in changelog.history(repo)] == ["book pinned",
                                                             "Theorem 2 on the sent pair"]
    assert [p.subject for p in changelog.smoke_history(repo, first)] == ["smoke pinned"]
    text = changelog.text(repo)
    book_part, older = text.split("## Earlier: the smoke run's verdicts")
    assert book_part.index("## Version 0.2.0") < book_part.index("## Version 0.1.0")
    assert "**05-hiera** `t2`: holds → fails" in book_part
    assert "2 verdicts pinned (1 holds, 1 fails)" in book_part
    assert "smoke-only" not in text  # after the book's pins, smoke changes are not the book's
    assert "### Version 0.1.0" in older and "Why: smoke pinned" in older
