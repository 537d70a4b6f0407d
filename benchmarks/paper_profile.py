"""Record where a chapter's run spent its time, from its executed notebook.

papermill stores each cell's duration in the notebook it writes, and writes it every few seconds
while the run goes on, so a run stopped by a time limit still says which cells finished and how
long they took. Each cell of the record also lists the parameters it read (``cfg.<name>`` in its
code, in a name an earlier cell filled with parameter values, such as ``grid = dict(runs=cfg.runs)``
passed on as ``**grid``, and every parameter the run noted it read, ``<chapter>.reads.json``) and
the experiment
grids it ran with their wall time (``<chapter>.grids.json``), so that a run at one profile can
be projected to another and to more workers (:mod:`ldp_companion.edition.planning`). This script
turns one executed notebook (with its ``.run.json`` when the run finished, and the verdicts of
its ``.ledger.json`` when there is one) into a JSON record under
``benchmarks/results/``; the Reproducibility page shows every record there and compares its
verdicts with the build's.

Usage::

    python -m ldp_companion run hiera -p profile paper -p cv_repeats 1 --out runs/
    python benchmarks/paper_profile.py runs/05-hiera.ipynb --machine "2 cores" \\
        --out benchmarks/results/05-hiera-paper-2cores.json

For a run stopped by ``timeout S``, give its notebook, which the runner keeps with its records
in ``runs/05-hiera.failed/``, and add ``--stopped-after S``: the cell that was running then
gets the lower bound ``S`` minus the finished cells' time.
"""
from __future__ import annotations

import argparse
import ast
import json
import re
from pathlib import Path

#: Cells shorter than this are summed into one "other cells" entry.
SHORT_S = 2.0


def _first_line(source) -> str:
    lines = [ln for ln in _text(source).splitlines() if ln.strip() and not ln.startswith(":")]
    return lines[0][:80] if lines else ""


def _text(source) -> str:
    return source if isinstance(source, str) else "".join(source)


def _cfg_reads(node: ast.AST) -> set[str]:
    return {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)
            and isinstance(n.value, ast.Name) and n.value.id == "cfg"}


def _carried_uses(sources: list[str]) -> list[set[str]]:
    """Per code cell, the parameters it reads through a name an earlier cell bound to
    parameter values: a ``dict(...)`` call, a dict, list or tuple display, or ``cfg.<name>``
    itself, holding ``cfg`` reads (``grid = dict(runs=cfg.runs, n_max=cfg.n_max)``, later
    ``**grid``). A name bound to anything else (a grid's result) carries nothing: a cell that
    plots results does not grow with the parameters that made them."""
    holds: dict[str, set[str]] = {}
    out = []
    for source in sources:
        lines = [ln for ln in source.splitlines() if not ln.lstrip().startswith(("%", "!"))]
        try:
            tree = ast.parse("\n".join(lines))
        except SyntaxError:
            out.append(set())
            continue
        loaded = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
                  and isinstance(n.ctx, ast.Load)}
        out.append(set().union(*(holds[n] for n in loaded if n in holds)))
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if not isinstance(target, ast.Name):
                        continue
                    if _holds_parameters(node.value):
                        holds[target.id] = _cfg_reads(node.value)
                    else:  # bound again to something else
                        holds.pop(target.id, None)
    return out


def _holds_parameters(value: ast.AST) -> bool:
    bundle = isinstance(value, (ast.Dict, ast.List, ast.Tuple, ast.Set, ast.Attribute)) or (
        isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
        and value.func.id == "dict")
    return bundle and bool(_cfg_reads(value))


def record(notebook: Path, machine: str, stopped_after: float | None = None,
           verdicts: bool = True) -> dict:
    """The timing record of one executed notebook (see the module's docstring)."""
    nb = json.loads(Path(notebook).read_text())
    run_file = Path(notebook).with_suffix(".run.json")
    run = json.loads(run_file.read_text()) if run_file.exists() else None
    if run is None and stopped_after is None:
        raise SystemExit(f"{notebook}: no {run_file.name} beside it (the run did not finish); "
                         "give --stopped-after with the time limit it was stopped at")
    cells, short, finished = [], 0.0, 0.0
    stem = Path(notebook).with_suffix("")
    reads, grids = (_side_record(stem, kind) for kind in ("reads", "grids"))
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    carried = _carried_uses([_text(c["source"]) for c in code])
    for index, cell in enumerate(code):
        meta = cell["metadata"].get("papermill", {})
        status, seconds = meta.get("status"), meta.get("duration") or 0.0
        if status == "completed":
            finished += seconds
            if seconds < SHORT_S:
                short += seconds
                continue
        elif status != "running":
            continue
        source = _text(cell["source"])
        count = str(cell.get("execution_count"))
        grid = grids.get(count, [])
        cells.append({"cell": index, "code": _first_line(source), "status": status,
                      "seconds": round(seconds, 1),
                      "uses": sorted(set(re.findall(r"\bcfg\.(\w+)", source))
                                     | carried[index] | set(reads.get(count, []))),
                      "grid_seconds": round(sum(g["seconds"] for g in grid), 1),
                      "grids": grid})
    for cell in cells:
        if cell["status"] == "running":
            cell["seconds"] = round(stopped_after - finished, 1)  # at least this long
    cells.append({"cell": None, "code": "other cells", "status": "completed",
                  "seconds": round(short, 1), "uses": []})
    index_of = {str(c.get("execution_count")): i for i, c in enumerate(code)}
    first_read = {}
    for count, names in sorted(reads.items(), key=lambda kv: int(kv[0])):
        for name in names:
            if count in index_of:
                first_read.setdefault(name, index_of[count])
    return {
        "chapter": Path(notebook).stem,
        "parameters": nb["metadata"].get("papermill", {}).get("parameters", {}),
        "machine": machine,
        "complete": run is not None,
        "seconds": run["seconds"] if run else stopped_after,
        "finished": run["finished"] if run else None,
        "versions": run["versions"] if run else None,
        "cells": cells,
        "first_read": first_read,
        "verdicts": _verdicts(Path(notebook)) if verdicts else None,
        "missing_assets": _missing_assets(Path(notebook).stem, nb),
        **_code(Path(notebook).stem, run),
    }


def _code(chapter: str, run: dict | None) -> dict:
    """The code the run ran: its commit (from its ``.run.json``) and the digest of the package
    code the chapter can run, taken now, on the machine of the run, right after it. A
    projection from this record to a later run of other code is then named as such."""
    from ldp_companion.execution.paper_scale import code_digest

    commit = (run or {}).get("source", {}).get("commit")
    return {"commit": commit, "code_sha256": code_digest(chapter)}


def _missing_assets(chapter: str, nb: dict) -> list[str]:
    """The data assets the run's profile uses that were not usable where it ran (missing,
    partial or failing their checksum): the run skipped the work that needs them, which the
    planner must not read as timed. Made on the machine of the run, right after it. A run
    given ``data = stand-ins`` (chapter 3) reads none of the paper profile's own files: it
    needs only the files every profile uses."""
    from ldp_companion.edition.data_fetch import status

    given = nb["metadata"].get("papermill", {}).get("parameters", {})
    profile = given.get("profile")
    if given.get("data") == "stand-ins":  # chapter 3's switch: the paper's files not read
        profile = "default"
    states = status([chapter], profile)["state"]
    return sorted(a for a, s in states.items() if s not in ("present", "bundled"))


def _side_record(stem: Path, kind: str) -> dict:
    """``<chapter>.reads.json`` / ``.grids.json`` beside the notebook ({} without one):
    the parameters each cell read and the grids it ran, by execution count."""
    path = stem.with_name(f"{stem.name}.{kind}.json")
    return json.loads(path.read_text()) if path.exists() else {}


def _verdicts(notebook: Path) -> dict | None:
    """Claim id -> verdict from the run's ledger beside the notebook (None if there is none)."""
    ledger = notebook.with_suffix(".ledger.json")
    if not ledger.exists():
        return None
    return {c["claim_id"]: c["verdict"] for c in json.loads(ledger.read_text())}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebook", type=Path)
    parser.add_argument("--machine", required=True, help="e.g. '2 cores' or '16 cores, H100'")
    parser.add_argument("--stopped-after", type=float, default=None,
                        help="seconds after which a run that did not finish was stopped")
    parser.add_argument("--no-verdicts", action="store_true",
                        help="leave the verdicts out (a run on stand-in files: they mean nothing)")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    rec = record(args.notebook, args.machine, args.stopped_after, not args.no_verdicts)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(rec, indent=1, ensure_ascii=False) + "\n")
    print(json.dumps(rec["cells"], indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
