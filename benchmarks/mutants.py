"""What the ledger can detect: run chapters at smoke with deliberate bugs and list the verdicts
each bug flips.

For each chapter with a ``mutants`` module (``ldp_companion/<chapter>/mutants.py``), the
chapter runs once as written and once per mutant (:mod:`ldp_companion.mutation`), at the
``smoke`` profile with seed 0. A mutant is *caught* when at least one verdict shown on the
page differs from the run as written. The table goes to ``benchmarks/results/mutants.json``,
which the Verdicts page shows ("What this ledger can detect").

    .venv/bin/python benchmarks/mutants.py                 # every chapter with mutants
    .venv/bin/python benchmarks/mutants.py tldp spof       # some chapters
    .venv/bin/python benchmarks/mutants.py tvg --only idn-scale-half

Runs from a fresh clone after ``make install``; a chapter takes its smoke time once per mutant
plus once (about 1-2 minutes each on 2 cores).
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from ldp_companion import book, runner
from ldp_companion.grid import JOBS_ENV
from ldp_companion.ledger import load_ledgers, verdict_changes
from ldp_companion.mutation import prelude

RESULTS = runner.REPO / "benchmarks" / "results" / "mutants.json"
PARAMETERS = {"profile": "smoke", "seed": 0}


def chapter_mutants(chapter: str) -> list:
    """The mutants a chapter's package lists (empty when it has no ``mutants`` module)."""
    name = f"{book.PACKAGES[chapter].__name__}.mutants"
    try:
        return list(importlib.import_module(name).MUTANTS)
    except ModuleNotFoundError as err:
        if err.name != name:
            raise
        return []


def _verdicts(source: Path, folder: Path, code: str | None) -> tuple[dict, str]:
    """Claim id -> verdict of one smoke run (``code`` run first), and the error if it failed.

    The experiment grids run serially (``LDP_COMPANION_GRID_JOBS=1``): a mutant is applied in
    the notebook's process, and worker processes would run the code as written."""
    os.environ[JOBS_ENV] = "1"
    try:
        runner.execute(source, folder, PARAMETERS, record=False, prelude=code)
    except RuntimeError as err:
        return {}, str(err).split(" (executed notebook")[0]
    claims = load_ledgers(folder)
    return dict(zip(claims["claim_id"], claims["verdict"])), ""


def flips(before: dict, after: dict) -> list[str]:
    """``"claim: verdict → verdict"`` for every claim whose verdict differs (a claim missing
    from one run counts as a flip to or from "absent")."""
    return [f"{c}: {b} → {a}" for c, b, a in verdict_changes(before, after)]


def run_chapter(chapter: str, work: Path, only: list[str] | None = None) -> list[dict]:
    """One row per mutant of ``chapter``: what it breaks, the verdicts it flips, caught or not."""
    source = runner.find_chapter(chapter)
    mutants = [m for m in chapter_mutants(source.stem) if not only or m.name in only]
    if not mutants:
        return []
    package = book.PACKAGES[source.stem].__name__
    started = time.perf_counter()
    base, error = _verdicts(source, work / source.stem / "as-written", None)
    if error:
        raise RuntimeError(f"{source.stem} fails as written: {error}")
    rows = []
    for mutant in mutants:
        after, error = _verdicts(source, work / source.stem / mutant.name,
                                 prelude(package, mutant.name))
        changed = flips(base, after) if not error else []
        rows.append({"chapter": source.stem, "mutant": mutant.name, "what": mutant.what,
                     "target": mutant.target, "flipped": changed, "error": error,
                     "caught": bool(changed)})
        print(f"[{source.stem}] {mutant.name}: {len(changed)} verdicts flipped"
              + (f" (the run failed: {error})" if error else ""), flush=True)
    print(f"[{source.stem}] {len(mutants)} mutants in {time.perf_counter() - started:.0f} s",
          flush=True)
    return rows


def _order(row: dict) -> tuple:
    """Book order of chapters, then each chapter's order of mutants."""
    names = [m.name for m in chapter_mutants(row["chapter"])]
    return (list(book.PACKAGES).index(row["chapter"]),
            names.index(row["mutant"]) if row["mutant"] in names else len(names))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("chapters", nargs="*", help="chapters (default: every one with mutants)")
    parser.add_argument("--only", nargs="*", help="run only these mutants")
    parser.add_argument("--json", type=Path, default=RESULTS,
                        help=f"where to write the table (default {RESULTS})")
    args = parser.parse_args(argv)
    chapters = [runner.find_chapter(c).stem for c in args.chapters] or \
        [c for c in book.PACKAGES if chapter_mutants(c)]
    rows = []
    with tempfile.TemporaryDirectory(prefix="ldp-mutants-") as work:
        for chapter in chapters:
            rows += run_chapter(chapter, Path(work), args.only)
    if args.json.exists() and (args.chapters or args.only):  # keep the other chapters' rows
        done = {(r["chapter"], r["mutant"]) for r in rows}
        old = json.loads(args.json.read_text())["mutants"]
        rows = sorted([r for r in old if (r["chapter"], r["mutant"]) not in done] + rows,
                      key=_order)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({
        "parameters": PARAMETERS, "machine": runner.machine(),
        "finished": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "mutants": rows}, indent=1, ensure_ascii=False))
    missed = [f"{r['chapter']}/{r['mutant']}" for r in rows if not r["caught"]]
    print(f"{len(rows) - len(missed)} of {len(rows)} mutants caught"
          + (f"; missed: {', '.join(missed)}" if missed else ""))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
