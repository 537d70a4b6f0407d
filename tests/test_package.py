"""The site ships the package: its wheel installs into a fresh environment and runs a notebook
downloaded from the site, with no access to the repository."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import tomllib
import venv
from pathlib import Path

import pytest
from conftest import skip_or_fail

REPO = Path(__file__).resolve().parent.parent
SITE = REPO / "_build" / "html"


def _version() -> str:
    return tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]


def test_rerun_page_links_the_files_of_this_version():
    page = (REPO / "book" / "rerun.md").read_text()
    for name in (f"ldp_companion-{_version()}-py3-none-any.whl",
                 f"ldp_companion-{_version()}.tar.gz"):
        assert f"<../../_build/package/{name}>" in page, name


@pytest.mark.chapter
def test_wheel_from_the_site_runs_a_downloaded_notebook(tmp_path):
    wheels = sorted(SITE.glob(f"_downloads/*/ldp_companion-{_version()}-py3-none-any.whl"))
    notebook = SITE / "_sources" / "book" / "generated" / "A-audit.ipynb"
    if not wheels or not notebook.is_file():
        skip_or_fail(f"the site is not built ({SITE}); run `make book` first")
    # a fresh environment: the dependencies come from this one's site-packages (a path line in
    # a .pth file, which does not run this environment's editable-install hook), the package
    # only from the wheel
    env = tmp_path / "env"
    venv.create(env, with_pip=False)
    fresh_site = Path(subprocess.check_output(
        [env / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        text=True).strip())
    (fresh_site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index",
                    "--target", str(fresh_site), str(wheels[-1])], check=True)
    work = tmp_path / "work"
    work.mkdir()
    python = str(env / "bin" / "python")
    where = subprocess.check_output([python, "-c",
                                     "import ldp_companion; print(ldp_companion.__file__)"],
                                    cwd=work, text=True).strip()
    assert where.startswith(str(fresh_site)), where
    clean = {k: v for k, v in os.environ.items()
             if k not in ("PYTHONPATH", "LDP_COMPANION_LEDGER_DIR")}
    done = subprocess.run([python, "-m", "papermill", str(notebook), "out.ipynb", "-k", "python3",
                           "-p", "profile", "smoke", "--no-progress-bar"],
                          cwd=work, env=clean, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert (work / "A-audit.ledger.json").is_file()  # the chapter ran to its last cell
    # the other verbs work from the wheel (the chapter sources are package data): the command
    # line's main() for each, in one interpreter (one start, not six)
    clean["LDP_COMPANION_LEDGER_DIR"] = str(work)  # the downloaded notebook's ledger
    verbs = [["list"], ["params", "pm"], ["student", "--out", "student", "--chapters", "A"],
             ["coverage", "A"], ["data", "fetch", "--list"], ["plan", "hiera", "--workers", "16"]]
    done = subprocess.run([python, "-c", _VERBS, json.dumps(verbs)], cwd=work,
                          env=clean, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    said = dict(zip(map(" ".join, verbs), json.loads(done.stdout)))
    assert all(code == 0 for code, _ in said.values()), said
    assert said["list"][1].split() == ["01-tldp", "02-tvg", "03-pm-three-outputs", "04-spof",
                                       "05-hiera", "A-audit", "B-mechanism", "C-compare"]
    assert "eps_grid" in said["params pm"][1]
    assert (work / "student" / "A-audit.ipynb").is_file()
    # (`run` from an installed wheel is the light install's: tests/light_env.py runs its
    # chapters through the runner; the verb's arguments are test_chapters' test)
    assert "A-audit" in said["coverage A"][1]
    assert "cifar10" in said["data fetch --list"][1]                 # the recipes ship
    assert "Total, projected" in said["plan hiera --workers 16"][1]  # and the records


#: Runs ``main(verb)`` for each verb of argv[1] (JSON) and prints ``[[code, stdout], ...]``.
_VERBS = """
import contextlib, io, json, sys
from ldp_companion.__main__ import main
out = []
for verb in json.loads(sys.argv[1]):
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        code = main(verb)
    out.append([code, text.getvalue()])
print(json.dumps(out))
"""


def test_citation_file_names_the_package_version():
    """CITATION.cff is valid CFF 1.2 in its required keys and carries pyproject's version."""
    import tomllib

    import yaml

    from ldp_companion.execution.runner import REPO

    cff = yaml.safe_load((REPO / "CITATION.cff").read_text())
    assert cff["cff-version"] == "1.2.0"
    assert {"message", "title", "authors", "version"} <= set(cff)
    assert all("name" in a or "family-names" in a for a in cff["authors"])
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert cff["version"] == project["version"] and cff["license"] == project["license"]
    licence = (REPO / "LICENSE").read_text()  # the licence the metadata names, in full
    assert licence.startswith(f"{project['license']} License\n")
    assert all(a["name"] in licence for a in cff["authors"])


def test_public_buttons_are_off_unless_a_repository_is_named(monkeypatch):
    import yaml

    from ldp_companion.execution import runner

    config = yaml.safe_load((runner.REPO / "_config.yml").read_text())
    assert config["html"]["use_repository_button"] is False
    assert config["html"]["use_issues_button"] is False
    assert runner.public_config(config, None) is config
    public = runner.public_config(config, "https://github.com/owner/ldp-companion/",
                                  "https://mybinder.org")
    assert public["repository"]["url"] == "https://github.com/owner/ldp-companion"
    assert public["html"]["use_repository_button"] and public["html"]["use_issues_button"]
    assert public["launch_buttons"]["binderhub_url"] == "https://mybinder.org"
    theme = public["sphinx"]["config"]["html_theme_options"]  # what the theme reads
    assert theme["repository_url"] == "https://github.com/owner/ldp-companion"
    assert theme["use_repository_button"] and theme["use_issues_button"]
    assert theme["launch_buttons"]["binderhub_url"] == "https://mybinder.org"
    assert "repository_url" not in config["sphinx"]["config"]["html_theme_options"]
    assert config["html"]["use_repository_button"] is False  # the offline config untouched
    with pytest.raises(ValueError, match="repository URL"):
        runner.public_config(config, "github.com/owner")
    monkeypatch.delenv(runner.REPOSITORY_ENV, raising=False)
    assert runner._config_file(runner.REPO) == runner.REPO / "_config.yml"
    monkeypatch.setenv(runner.REPOSITORY_ENV, "https://github.com/owner/name")
    written = yaml.safe_load(runner._config_file(runner.REPO).read_text())
    assert written["html"]["use_repository_button"] is True
    assert written["bibtex_bibfiles"] == config["bibtex_bibfiles"]
