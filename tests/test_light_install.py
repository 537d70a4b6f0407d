"""The README's light install, as a stranger makes it (:mod:`light_env`): the wheel with the
``[run]`` extra alone, in a fresh virtual environment from the package registry.

Every chapter that needs no other extra runs at smoke in it: those are the smoke tests of
``tests/test_chapters.py`` for these chapters (one execution each, checked there like every
other chapter). Here: the environment is light indeed, the student editions are written and
one runs, and a chapter that needs torch says so.
"""
from __future__ import annotations

import subprocess

import pytest
from light_env import LIGHT, clean_env, run

from ldp_companion.edition import book

#: The student edition run in the light environment (the quickest light chapter).
STUDENT_RUN = "A-audit"


def test_the_light_install_claims_chapters_3_5_a_and_b():
    assert LIGHT == ["03-pm-three-outputs", "05-hiera", "A-audit", "B-mechanism"]


def test_the_light_install_has_no_torch_and_refuses_a_chapter_that_needs_it(light_python,
                                                                           tmp_path):
    clean = clean_env()
    light = [light_python, "-c",
             "import importlib.util as u; print(u.find_spec('torch') is None)"]
    assert run(light, tmp_path, clean).stdout.strip() == "True"
    heavy = sorted(set(book.PARAMS) - set(LIGHT))[0]
    done = subprocess.run([light_python, "-m", "ldp_companion", "run", heavy, "--out", "heavy"],
                          cwd=tmp_path, env=clean, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and "[torch]" in done.stderr, done.stderr[-2000:]
    assert done.stderr.count("\n") == 1 and not (tmp_path / "heavy" / f"{heavy}.ipynb").exists()


@pytest.mark.chapter
def test_the_light_install_writes_its_student_editions_and_one_runs(light_python, tmp_path):
    # every edition is written; one runs: a student edition is its chapter (whose smoke run
    # in this environment is its test in test_chapters.py) without the solutions, plus
    # scaffolds and self-checks, the same in every chapter, and tests/test_student.py checks
    # on the code that no kept cell reads a solution's name
    clean = clean_env()
    run([light_python, "-m", "ldp_companion", "student", "--out", "student", "--chapters",
         *LIGHT], tmp_path, clean)
    for stem in LIGHT:
        assert (tmp_path / "student" / f"{stem}.ipynb").is_file(), stem
    run([light_python, "-m", "papermill", f"student/{STUDENT_RUN}.ipynb", "student-run.ipynb",
         "-k", "python3", "-p", "profile", "smoke", "--no-progress-bar"], tmp_path, clean)
    assert (tmp_path / f"{STUDENT_RUN}.ledger.json").is_file()
