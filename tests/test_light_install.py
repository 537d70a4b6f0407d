"""The README's light install, as a stranger makes it: the wheel with the ``[run]`` extra alone,
in a fresh virtual environment from the package registry (pinned by ``constraints.txt``),
runs every chapter that needs no other extra at smoke, writes their student editions and runs
one of them.

Which chapters the extra claims comes from the chapters' own specs (``requires``), so a new
chapter without torch is covered by construction. One test does it all: the environment takes
minutes to install, and xdist would install it once per worker for several tests.
"""
from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest
from conftest import skip_or_fail

from ldp_companion.edition import book

REPO = Path(__file__).resolve().parent.parent

#: The chapters the light install runs: those whose parameters require no extra.
LIGHT = sorted(stem for stem, spec in book.PARAMS.items() if not spec.requires)


#: The student edition run in the light environment (the quickest light chapter).
STUDENT_RUN = "A-audit"


def test_the_light_install_claims_chapters_3_5_a_and_b():
    assert LIGHT == ["03-pm-three-outputs", "05-hiera", "A-audit", "B-mechanism"]


def _run(cmd, cwd, env, timeout=900):
    done = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)
    assert done.returncode == 0, (cmd, done.stdout[-2000:], done.stderr[-3000:])
    return done


def _light_env(tmp_path: Path, clean: dict) -> Path:
    """A fresh venv with the freshly built wheel and its ``[run]`` extra; its python."""
    dist = tmp_path / "dist"
    _run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "-o", dist, REPO],
         REPO, clean)
    wheel = next(dist.glob("ldp_companion-*.whl"))
    env = tmp_path / "env"
    venv.create(env, with_pip=True)
    python = env / "bin" / "python"
    done = subprocess.run([python, "-m", "pip", "install", "-q", "-c", REPO / "constraints.txt",
                           f"{wheel}[run]"], env=clean, capture_output=True, text=True,
                          timeout=1800)
    if done.returncode:
        skip_or_fail(f"pip could not install the wheel with [run] (no package registry?): "
                     f"{done.stderr[-500:]}")
    return python


@pytest.mark.chapter
def test_the_wheel_with_run_alone_runs_its_chapters_and_student_editions(tmp_path):
    clean = {k: v for k, v in os.environ.items()
             if k not in ("PYTHONPATH", "VIRTUAL_ENV", "LDP_COMPANION_LEDGER_DIR",
                          "LDP_COMPANION_GRID_STORE")}
    python = _light_env(tmp_path, clean)
    work = tmp_path / "work"
    work.mkdir()
    light = [python, "-c", "import importlib.util as u; print(u.find_spec('torch') is None)"]
    assert _run(light, work, clean).stdout.strip() == "True"  # the light install indeed
    for stem in LIGHT:
        _run([python, "-m", "ldp_companion", "run", stem, "-p", "profile", "smoke", "--out",
              f"run-{stem}", "--quiet"], work, clean)
        assert (work / f"run-{stem}" / f"{stem}.ledger.json").is_file(), stem
    _run([python, "-m", "ldp_companion", "student", "--out", "student", "--chapters", *LIGHT],
         work, clean)
    # every edition is written; one runs: a student edition is its chapter (which ran above)
    # without the solutions, plus scaffolds and self-checks, the same in every chapter, and
    # tests/test_student.py checks on the code that no kept cell reads a solution's name
    for stem in LIGHT:
        assert (work / "student" / f"{stem}.ipynb").is_file(), stem
    _run([python, "-m", "papermill", f"student/{STUDENT_RUN}.ipynb", "student-run.ipynb",
          "-k", "python3", "-p", "profile", "smoke", "--no-progress-bar"], work, clean)
    # a chapter that needs torch says so in one line, exit status 2
    heavy = sorted(set(book.PARAMS) - set(LIGHT))[0]
    done = subprocess.run([python, "-m", "ldp_companion", "run", heavy, "--out", "heavy"],
                          cwd=work, env=clean, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and "[torch]" in done.stderr, done.stderr[-2000:]
    assert done.stderr.count("\n") == 1 and not (work / "heavy" / f"{heavy}.ipynb").exists()
