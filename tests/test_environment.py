"""environment.yml, pyproject.toml and constraints.txt describe the same environment."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
_NAME = re.compile(r"^\s*([A-Za-z0-9_.\-]+)\s*(.*)$")


def _split(req: str) -> tuple[str, str]:
    name, spec = _NAME.match(req).groups()
    return name.lower().replace("_", "-"), spec.replace(" ", "")


def _pyproject() -> dict[str, str]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    reqs = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        reqs += extra
    own = project["name"].lower().replace("_", "-")  # an extra that pulls another ([run])
    return {name: spec for name, spec in map(_split, reqs) if name != own}


def _environment() -> dict[str, str]:
    deps = yaml.safe_load((REPO / "environment.yml").read_text())["dependencies"]
    out = {}
    for dep in deps:
        items = dep["pip"] if isinstance(dep, dict) else [dep]
        for item in items:
            if item.startswith("-e") or item.split("=")[0].split(">")[0] in ("python", "pip",
                                                                           "nodejs"):
                continue
            name, spec = _split(item.replace("=", "==", 1) if re.match(r"^[\w\-]+=[^=]", item)
                                else item)
            out[name] = spec
    return out


def test_same_packages_and_bounds():
    assert _environment() == _pyproject()


def test_constraints_pin_every_dependency():
    pins = {}
    for line in (REPO / "constraints.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            name, version = line.split("==")
            pins[name.lower().replace("_", "-")] = version
    missing = [n for n in _pyproject() if n not in pins]
    assert not missing, f"constraints.txt does not pin {missing}; run `make lock`"


def test_a_test_computes_at_one_thread():
    """``conftest`` runs every test but the determinism ones at one BLAS and torch thread (two
    xdist workers on two cores); ``test_threads`` checks that those keep the machine's own."""
    import torch
    from threadpoolctl import threadpool_info

    assert {i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"} == {1}
    assert torch.get_num_threads() == 1
