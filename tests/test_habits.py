"""The habits of a well-kept Scientific Python project, checked: the Scientific Python
development guide's checks (``repo-review``) pass wherever they apply, and the pre-commit hooks
run the same tool versions as ``make lint`` (the ``dev`` group of ``pyproject.toml``)."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import yaml
from conftest import skip_or_fail

REPO = Path(__file__).resolve().parent.parent
#: pre-commit repository -> the tool whose version its ``rev`` is.
HOOK_TOOLS = {"https://github.com/astral-sh/ruff-pre-commit": "ruff",
              "https://github.com/nbQA-dev/nbQA": "nbqa",
              "https://github.com/codespell-project/codespell": "codespell"}


def dev_pins(pyproject: dict) -> dict[str, str]:
    """``name -> version`` of the ``dev`` group's ``name==version`` pins."""
    pins = (re.fullmatch(r"([A-Za-z0-9_.-]+)(?:\[[^]]*\])?==(\S+)", spec)
            for spec in pyproject["dependency-groups"]["dev"])
    return {m.group(1).lower(): m.group(2) for m in pins if m}


def version_mismatches(config: dict, pins: dict[str, str]) -> list[str]:
    """Where a hook runs another version of a tool than ``make lint`` does."""
    out = []
    for repo in config["repos"]:
        tool = HOOK_TOOLS.get(repo["repo"])
        if tool and repo["rev"].lstrip("v") != pins.get(tool):
            out.append(f"{repo['repo']} at {repo['rev']}, the dev group has {pins.get(tool)}")
        for hook in repo["hooks"]:
            for dep in hook.get("additional_dependencies", []):
                name, _, version = dep.partition("==")
                if version and pins.get(name.lower()) not in (None, version):
                    out.append(f"{hook['id']} installs {dep}, the dev group has "
                               f"{pins[name.lower()]}")
    return out


def _config() -> dict:
    return yaml.safe_load((REPO / ".pre-commit-config.yaml").read_text())


def _pins() -> dict[str, str]:
    return dev_pins(tomllib.loads((REPO / "pyproject.toml").read_text()))


def test_pre_commit_runs_the_versions_make_lint_runs():
    assert set(HOOK_TOOLS.values()) <= set(_pins())
    assert not version_mismatches(_config(), _pins())


def test_the_version_check_catches_a_stale_hook():
    config = _config()
    ruff = next(r for r in config["repos"] if r["repo"].endswith("ruff-pre-commit"))
    ruff["rev"] = "v0.1.0"
    assert len(version_mismatches(config, _pins())) == 1
    nbqa = next(r for r in config["repos"] if r["repo"].endswith("nbQA"))
    nbqa["hooks"][0]["additional_dependencies"] = ["ruff==0.2.0"]
    assert len(version_mismatches(config, _pins())) == 2


def test_every_applicable_repo_review_check_passes():
    exe = shutil.which("repo-review", path=str(Path(sys.executable).parent))
    if exe is None:
        skip_or_fail("repo-review is not installed (pip install --group dev)")
    out = subprocess.run([exe, str(REPO), "--format", "json"], capture_output=True, text=True,
                         check=True, cwd=REPO).stdout
    checks = json.loads(out)["checks"]
    failed = {k: v["description"] for k, v in checks.items() if v["result"] is False}
    assert not failed, failed
    reasons = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["repo-review"]["ignore"]
    assert all(len(why) > 30 for why in reasons.values()), "each skipped check says why"
    assert sum(v["result"] is True for v in checks.values()) >= 39
