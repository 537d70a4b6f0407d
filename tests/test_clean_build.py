"""A build of a clean clone leaves the clone clean, and its provenance says so.

``make book`` used to rewrite a tracked file (the chapter-times record), so every page of a
clean build said "with uncommitted changes"; the summary pages said "profile None". Run after
``make book`` (``.ci/run`` builds the book first, on a fresh clone).
"""
from __future__ import annotations

import json
import re
import subprocess

import pytest
from conftest import IN_CI, skip_or_fail

from ldp_companion.execution import runner

SITE = runner.REPO / "_build" / "html"


def _git_status() -> str:
    done = subprocess.run(["git", "-C", str(runner.REPO), "status", "--porcelain"],
                          capture_output=True, text=True)
    if done.returncode:
        pytest.skip("not a git checkout")
    return done.stdout


def test_a_build_leaves_the_tree_clean_and_its_provenance_says_so():
    records = sorted(runner.GENERATED.glob("*.run.json"))
    if not records or not (SITE / "index.html").is_file():
        skip_or_fail(f"the book is not built ({runner.GENERATED}); run `make book` first")
    status = _git_status()
    if status and not IN_CI:
        pytest.skip(f"this checkout has changes of its own:\n{status}")
    assert status == "", f"the build changed the tree:\n{status}"
    for path in records:
        source = json.loads(path.read_text())["source"]
        assert source["uncommitted_changes"] is False, path.name
    pages = [SITE / "book" / "generated" / f"{p}.html" for p in runner.SUMMARY_PAGES]
    shown = "".join(p.read_text() for p in pages if p.is_file())
    assert "with uncommitted changes" not in shown
    assert not re.search(r"profile None|seed None", shown)


def test_the_build_times_go_outside_the_tracked_files():
    tracked = subprocess.run(["git", "-C", str(runner.REPO), "ls-files", "--error-unmatch",
                              str(runner.BUILD_TIMES)], capture_output=True, text=True)
    assert tracked.returncode != 0, "the build's own times must not be a tracked file"
    ignored = subprocess.run(["git", "-C", str(runner.REPO), "check-ignore", "-q",
                              str(runner.BUILD_TIMES)])
    if ignored.returncode == 128:
        pytest.skip("not a git checkout")
    assert ignored.returncode == 0, f"{runner.BUILD_TIMES} must be ignored by git"
