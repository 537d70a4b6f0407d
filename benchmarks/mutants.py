"""What the ledger can detect: run chapters at smoke with deliberate bugs and list the verdicts
each bug flips.

For each chapter with a ``mutants`` module (``ldp_companion/<chapter>/mutants.py``), the
chapter runs once as written and once per mutant (:mod:`ldp_companion.verdicts.mutation`), at the
``smoke`` profile with seed 0. A mutant is *caught* when at least one verdict shown on the
page differs from the run as written. The table goes to ``benchmarks/results/mutants.json``,
which the Verdicts page shows ("What this ledger can detect").

    .venv/bin/python benchmarks/mutants.py                 # every chapter with mutants
    .venv/bin/python benchmarks/mutants.py tldp spof       # some chapters
    .venv/bin/python benchmarks/mutants.py tvg --only idn-scale-half

Runs from a fresh clone after ``make install``; a chapter takes its smoke time once per mutant
plus once (about 1-2 minutes each on 2 cores).

Mutants nobody chose (:mod:`ldp_companion.verdicts.mutation_generated`): ``--generated N`` runs each
chapter once as written, recording which lines of its formula modules run, then ``N`` mutants
drawn (``--seed``) among the sites it reached: literals scaled by 0.5 and 2, ``+``/``-``
swapped. Two runs go at once (``--jobs``), each in a process of its own, stopped after
``TIMEOUT_FACTOR`` times the run as written. A mutant is caught when a verdict flips or the
run fails (a failure is listed apart); the record goes to
``benchmarks/results/mutants-generated.json`` (the Verdicts page shows it), or
``mutants-generated-<profile>.json`` for another profile:

    .venv/bin/python benchmarks/mutants.py --generated 12 --seed 0
    .venv/bin/python benchmarks/mutants.py hiera --generated 2 --json /tmp/gen.json
    .venv/bin/python benchmarks/mutants.py --generated 4 --profile default   # a benchmark
    .venv/bin/python benchmarks/mutants.py tvg --generated 0 --only <id> ...  # run ids again
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

from ldp_companion.edition import book
from ldp_companion.execution import runner
from ldp_companion.execution.grid import JOBS_ENV
from ldp_companion.verdicts import mutation_generated as generated
from ldp_companion.verdicts.ledger import load_ledgers, verdict_changes
from ldp_companion.verdicts.mutation import prelude

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


def _verdicts(source: Path, folder: Path, code: str | None,
              parameters: dict = PARAMETERS) -> tuple[dict, str]:
    """Claim id -> verdict of one smoke run (``code`` run first), and the error if it failed.

    The experiment grids run serially (``LDP_COMPANION_GRID_JOBS=1``): a mutant is applied in
    the notebook's process, and worker processes would run the code as written."""
    os.environ[JOBS_ENV] = "1"
    try:
        runner.execute(source, folder, parameters, record=False, prelude=code)
    except RuntimeError as err:
        return {}, str(err).split(" (executed notebook")[0]
    claims = load_ledgers(folder)
    return dict(zip(claims["claim_id"], claims["verdict"])), ""


def flips(before: dict, after: dict) -> list[str]:
    """``"claim: verdict → verdict"`` for every claim whose verdict differs (a claim missing
    from one run counts as a flip to or from "absent")."""
    return [f"{c}: {b} → {a}" for c, b, a in verdict_changes(before, after)]


def run_chapter(chapter: str, work: Path, only: list[str] | None = None,
                parameters: dict = PARAMETERS) -> list[dict]:
    """One row per mutant of ``chapter``: what it breaks, the verdicts it flips, caught or not."""
    source = runner.find_chapter(chapter)
    mutants = [m for m in chapter_mutants(source.stem) if not only or m.name in only]
    if not mutants:
        return []
    package = book.PACKAGES[source.stem].__name__
    started = time.perf_counter()
    base, error = _verdicts(source, work / source.stem / "as-written", None, parameters)
    if error:
        raise RuntimeError(f"{source.stem} fails as written: {error}")
    rows = []
    for mutant in mutants:
        after, error = _verdicts(source, work / source.stem / mutant.name,
                                 prelude(package, mutant.name), parameters)
        changed = flips(base, after) if not error else []
        rows.append({"chapter": source.stem, "mutant": mutant.name, "what": mutant.what,
                     "target": mutant.target, "flipped": changed, "error": error,
                     "caught": bool(changed)})
        print(f"[{source.stem}] {mutant.name}: {len(changed)} verdicts flipped"
              + (f" (the run failed: {error})" if error else ""), flush=True)
    print(f"[{source.stem}] {len(mutants)} mutants in {time.perf_counter() - started:.0f} s",
          flush=True)
    return rows


# -- mutants nobody chose ---------------------------------------------------------------------

#: A run is stopped after this many times the chapter's run as written (a mutant may loop).
TIMEOUT_FACTOR = 5


def _worker(spec: Path) -> None:
    """In a process of its own: one chapter run described by ``spec`` (JSON), its verdicts and
    error written to ``spec["result"]``."""
    job = json.loads(spec.read_text())
    started = time.perf_counter()
    verdicts, error = _verdicts(Path(job["source"]), Path(job["folder"]), job["prelude"],
                                job["parameters"])
    Path(job["result"]).write_text(json.dumps({
        "verdicts": verdicts, "error": error,
        "seconds": round(time.perf_counter() - started, 1)}))


def _run_apart(job: dict, timeout: float | None = None) -> dict:
    """Run ``job`` (source, folder, parameters, prelude) in a process of its own, its output in
    ``folder.log``; stopped by SIGTERM (the runner then stops its kernel) after ``timeout`` s."""
    folder = Path(job["folder"])
    folder.parent.mkdir(parents=True, exist_ok=True)
    spec, result, log_path = (folder.parent / f"{folder.name}.{end}"
                              for end in ("job.json", "result.json", "log"))
    spec.write_text(json.dumps({**job, "result": str(result)}))
    with open(log_path, "w") as log:
        proc = subprocess.Popen([sys.executable, __file__, "--worker", str(spec)],
                                stdout=log, stderr=subprocess.STDOUT)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.terminate()
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            return {"verdicts": {}, "error": f"timed out after {timeout:.0f} s", "seconds": timeout}
    if not result.exists():
        return {"verdicts": {}, "error": f"the run's process ended with {proc.returncode} "
                                         f"(log: {log_path})", "seconds": 0.0}
    return json.loads(result.read_text())


def _outcome(flipped: list, error: str) -> str:
    """``verdicts``, ``run fails``, ``missed``, or ``not applicable`` (the mutant could not be
    put in place: neither caught nor missed)."""
    if "NotApplicable" in error:
        return "not applicable"
    return "run fails" if error else "verdicts" if flipped else "missed"


def _as_written(chapter: str, work: Path, parameters: dict) -> tuple[dict, dict]:
    """A chapter's run as written, recording the lines its formula modules run: its verdicts
    and ``{"chapter", "modules", "sites", "reached", "seconds"}`` with the reached ids."""
    source = runner.find_chapter(chapter)
    modules = generated.chapter_modules(book.PACKAGES[chapter].__name__)
    record = work / chapter / "reached.json"
    base = _run_apart({"source": str(source), "folder": str(work / chapter / "as-written"),
                       "parameters": parameters,
                       "prelude": generated.reach_prelude(record, modules)})
    if base["error"]:
        raise RuntimeError(f"{chapter} fails as written: {base['error']}")
    found = [site for module in modules for site in generated.sites(module)]
    names = set(re.findall(r"[A-Za-z_]\w*", source.read_text()))
    hit = generated.reached(found, json.loads(record.read_text()), names)
    print(f"[{chapter}] as written in {base['seconds']:.0f} s: {len(found)} sites in "
          f"{len(modules)} modules, {len(hit)} reached", flush=True)
    ids = generated.mutant_ids(hit)
    return base, {"chapter": chapter, "modules": modules, "sites": len(found),
                  "reached": len(hit), "reached_mutants": len(ids), "reached_ids": ids,
                  "seconds": base["seconds"]}


def run_generated(chapters: list[str], work: Path, n: int, seed: int, parameters: dict,
                  jobs: int = 2, only: list[str] | None = None) -> tuple[list[dict], list[dict]]:
    """Per chapter, ``n`` generated mutants drawn with ``seed`` among the sites its run as
    written reaches (or the mutant ids ``only``, run again), run ``jobs`` at a time:
    ``(chapter entries, one row per mutant)``."""
    with ThreadPoolExecutor(jobs) as pool:
        bases = dict(zip(chapters, pool.map(lambda c: _as_written(c, work, parameters),
                                            chapters)))
        todo = [(c, mutant_id) for c in chapters
                for mutant_id in (generated.sample(bases[c][1].pop("reached_ids"), n, seed)
                                  if only is None else only_of(c, only))]

        def one(item):
            chapter, mutant_id = item
            folder = work / chapter / mutant_id.replace(":", "-")
            result = _run_apart({"source": str(runner.find_chapter(chapter)),
                                 "folder": str(folder), "parameters": parameters,
                                 "prelude": generated.generated_prelude(mutant_id)},
                                timeout=TIMEOUT_FACTOR * bases[chapter][1]["seconds"] + 60)
            changed = [] if result["error"] else flips(bases[chapter][0]["verdicts"],
                                                       result["verdicts"])
            outcome = _outcome(changed, result["error"])
            print(f"[{chapter}] {mutant_id}: {outcome}"
                  + (f", {len(changed)} verdicts flipped" if changed else "")
                  + (f" ({result['error']})" if result["error"] else ""), flush=True)
            return {"chapter": chapter, "id": mutant_id, **generated.describe(mutant_id),
                    "flipped": changed, "error": result["error"], "outcome": outcome,
                    "caught": outcome in ("verdicts", "run fails"),
                    "seconds": result["seconds"]}
        rows = list(pool.map(one, todo))
    return [bases[c][1] for c in chapters], rows


def only_of(chapter: str, only: list[str]) -> list[str]:
    """The mutant ids of ``only`` whose module belongs to ``chapter``."""
    modules = set(generated.chapter_modules(book.PACKAGES[chapter].__name__))
    return [i for i in only if i.split(":")[0] in modules]


def _rewrite_rows(path: Path, rows: list[dict]) -> None:
    """``--only`` with ``--generated``: the rows of mutants run again replace theirs in the
    record (the sample and the chapters' entries stay); each carries the date it was rerun."""
    old = json.loads(path.read_text())
    stamp = datetime.now(UTC).isoformat(timespec="seconds")
    new = {(r["chapter"], r["id"]): {**r, "rerun": stamp} for r in rows}
    old["mutants"] = [new.pop((r["chapter"], r["id"]), r) for r in old["mutants"]]
    if new:
        raise ValueError(f"not in the record {path}: {sorted(i for _, i in new)}")
    path.write_text(json.dumps(old, indent=1, ensure_ascii=False))


def _write_generated(path: Path, chapters: list[dict], rows: list[dict], args) -> None:
    """Write the generated-mutant record, keeping the chapters this run did not redo when the
    earlier record drew its sample the same way."""
    sample = {"per_chapter": args.generated, "seed": args.seed}
    parameters = {"profile": args.profile, "seed": 0}
    if path.exists():
        old = json.loads(path.read_text())
        if old["sample"] == sample and old["parameters"] == parameters:
            redone = {c["chapter"] for c in chapters}
            chapters = [c for c in old["chapters"] if c["chapter"] not in redone] + chapters
            rows = [r for r in old["mutants"] if r["chapter"] not in redone] + rows
    order = list(book.PACKAGES)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({
        "parameters": parameters, "sample": sample, "machine": runner.machine(),
        "finished": datetime.now(UTC).isoformat(timespec="seconds"),
        "chapters": sorted(chapters, key=lambda c: order.index(c["chapter"])),
        "mutants": sorted(rows, key=lambda r: order.index(r["chapter"]))},
        indent=1, ensure_ascii=False))


def main_generated(chapters: list[str], args) -> int:
    """``--generated``: run the sample, write the record, print the share caught per chapter."""
    path = args.json or (generated.GENERATED_RESULTS if args.profile == "smoke" else
                         generated.GENERATED_RESULTS.with_name(
                             f"mutants-generated-{args.profile}.json"))
    if args.only:  # only the chapters the ids belong to
        chapters = [c for c in chapters if only_of(c, args.only)]
    with tempfile.TemporaryDirectory(prefix="ldp-mutants-generated-") as work:
        entries, rows = run_generated(chapters, Path(work), args.generated, args.seed,
                                      {"profile": args.profile, "seed": 0}, args.jobs,
                                      args.only)
    if args.only:
        _rewrite_rows(path, rows)
    else:
        _write_generated(path, entries, rows, args)
    for count in generated.generated_counts({"chapters": entries, "mutants": rows}):
        print(f"{count['chapter']}: {count['verdicts'] + count['run fails']} of "
              f"{count['sampled'] - count['not applicable']} caught ({count['run fails']} by a "
              f"failed run), {count['missed']} missed, {count['not applicable']} not "
              f"applicable -> {path}")
    return 0



def _order(row: dict) -> tuple:
    """Book order of chapters, then each chapter's order of mutants."""
    names = [m.name for m in chapter_mutants(row["chapter"])]
    return (list(book.PACKAGES).index(row["chapter"]),
            names.index(row["mutant"]) if row["mutant"] in names else len(names))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("chapters", nargs="*", help="chapters (default: every one with mutants)")
    parser.add_argument("--only", nargs="*", help="run only these mutants")
    parser.add_argument("--json", type=Path, default=None,
                        help=f"where to write the table (default {RESULTS}, or "
                             f"{generated.GENERATED_RESULTS} with --generated)")
    parser.add_argument("--generated", type=int, metavar="N",
                        help="run N generated mutants per chapter instead of the hand-picked")
    parser.add_argument("--seed", type=int, default=0, help="seed of the generated sample")
    parser.add_argument("--profile", default="smoke", choices=("smoke", "default", "paper"),
                        help="profile of the runs (default smoke)")
    parser.add_argument("--jobs", type=int, default=2, help="runs at once (--generated)")
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        _worker(args.worker)
        return 0
    chapters = [runner.find_chapter(c).stem for c in args.chapters] or \
        [c for c in book.PACKAGES if chapter_mutants(c)]
    if args.generated is not None:
        return main_generated(chapters, args)
    args.json = args.json or (RESULTS if args.profile == "smoke" else
                              RESULTS.with_name(f"mutants-{args.profile}.json"))
    parameters = {"profile": args.profile, "seed": 0}
    rows = []
    with tempfile.TemporaryDirectory(prefix="ldp-mutants-") as work:
        for chapter in chapters:
            rows += run_chapter(chapter, Path(work), args.only, parameters)
    if args.json.exists() and (args.chapters or args.only):  # keep the other chapters' rows
        done = {(r["chapter"], r["mutant"]) for r in rows}
        old = json.loads(args.json.read_text())["mutants"]
        rows = sorted([r for r in old if (r["chapter"], r["mutant"]) not in done] + rows,
                      key=_order)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({
        "parameters": parameters, "machine": runner.machine(),
        "finished": datetime.now(UTC).isoformat(timespec="seconds"),
        "mutants": rows}, indent=1, ensure_ascii=False))
    missed = [f"{r['chapter']}/{r['mutant']}" for r in rows if not r["caught"]]
    print(f"{len(rows) - len(missed)} of {len(rows)} mutants caught"
          + (f"; missed: {', '.join(missed)}" if missed else ""))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
