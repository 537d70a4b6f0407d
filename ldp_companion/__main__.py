"""Command line: ``python -m ldp_companion {list,run,params,coverage,book,site,pin,pdf,...}``.

Examples
--------
python -m ldp_companion list
python -m ldp_companion params pm          # the chapter's parameters, values per profile
python -m ldp_companion params --sync      # regenerate the notebooks' parameters cells
python -m ldp_companion coverage pm --json # the paper's items and where the book covers them
python -m ldp_companion run pm -p profile paper -p seed 3 --out runs/   # progress bars
                                                 # run again: finished grid cells are kept
python -m ldp_companion book --profile default   # chapters in parallel; unchanged ones cached
python -m ldp_companion book --force             # re-execute every chapter
python -m ldp_companion site                     # render only: the package and the HTML
python -m ldp_companion pin --check              # the build's verdicts against their pins
python -m ldp_companion pin                      # re-pin them from the last book build
python -m ldp_companion student --out student/   # notebooks without solutions, self-checks
python -m ldp_companion data fetch --list        # every data file: present or missing, sizes
python -m ldp_companion data fetch tvg           # download, check and unpack chapter 2's
python -m ldp_companion plan hiera --workers 16  # projected time of the paper profile
python -m ldp_companion plan spof --save         # ... kept, to check the paper run against
python -m ldp_companion keep runs/ spof          # a paper run as the chapter's record
python -m ldp_companion student --edition instructor --out instructor/ --chapters pm hiera
"""
from __future__ import annotations

import argparse
import ast
import math
import os
import sys
import time
from pathlib import Path

from ldp_companion.execution import runner
from ldp_companion.execution.grid import PROGRESS_ENV
from ldp_companion.execution.profiles import MissingExtra


def _value(text: str):
    """A parameter value as Python reads it (``3``, ``0.5``, ``[1, 2]``), else the string
    (which the parameter's kind then accepts or refuses, naming the parameter)."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def parser() -> argparse.ArgumentParser:
    """The command line's parser (the README's commands are checked against it)."""
    parser = argparse.ArgumentParser(prog="python -m ldp_companion", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list the chapters")
    run = sub.add_parser("run", help="execute one chapter with papermill parameters")
    run.add_argument("chapter", help="chapter name or number, e.g. tldp, 03")
    run.add_argument("-p", "--parameter", nargs=2, action="append", default=[],
                     metavar=("NAME", "VALUE"), help="papermill parameter (repeatable)")
    run.add_argument("--out", default="runs", help="output folder (default: runs/)")
    run.add_argument("--log-output", action="store_true", help="stream cell output")
    run.add_argument("--quiet", action="store_true", help="no progress bars on the terminal")
    run.add_argument("--no-resume", action="store_true",
                     help="do not keep finished grid cells in OUT/grid-store, nor read them "
                          "back (by default a rerun of the same command computes only the "
                          "cells an interrupted run had not finished)")
    params = sub.add_parser("params", help="every chapter's parameters (a markdown table)")
    params.add_argument("chapter", nargs="?", help="one chapter (name or number)")
    params.add_argument("--sync", action="store_true",
                        help="rewrite the notebooks' parameters cells from the specs")
    cov = sub.add_parser("coverage", help="each paper's numbered items and their status")
    cov.add_argument("chapter", nargs="?", help="one chapter (name or number)")
    cov.add_argument("--json", action="store_true", help="JSON records instead of a table")
    book = sub.add_parser("book", help="execute every chapter and build the HTML site")
    book.add_argument("--profile", default="default", choices=runner.PROFILES)
    book.add_argument("--seed", type=int, default=0)
    book.add_argument("--no-site", action="store_true", help="execute only, do not render")
    book.add_argument("--force", action="store_true",
                      help="re-execute every chapter, even those the cache holds")
    book.add_argument("--jobs", type=int, default=None,
                      help="chapters executed at once (default: the number of cores)")
    sub.add_parser("site", help="build the package and render the executed chapters (no execution)")
    sub.add_parser("changelog", help="rewrite CHANGELOG.md from the git history of the "
                   "book's pinned verdicts (tests/pinned/default/)")
    pin = sub.add_parser("pin", help="pin the book's verdicts (the ledgers of the last "
                         "`make book`) in tests/pinned/default/, or --check them")
    pin.add_argument("--check", action="store_true",
                     help="only compare the build's verdicts with the pins: exit status 1 "
                          "and one line per changed claim when they differ")
    pin.add_argument("--build", default=None,
                     help="folder of the build's ledgers (default: book/generated)")
    sub.add_parser("pdf", help="the PDF edition of the built site (_build/html/ldp-companion.pdf;"
                   " needs Chromium)")
    student = sub.add_parser("student", help="the chapters as handed out in a course: "
                             "solutions removed, self-checks after each exercise")
    student.add_argument("--out", required=True, help="folder for the notebooks")
    student.add_argument("--chapters", nargs="+", metavar="CHAPTER",
                         help="chapter names or numbers (default: every chapter)")
    student.add_argument("--edition", default="student", choices=("student", "instructor"),
                         help="instructor: the same notebooks with the solutions")
    data = sub.add_parser("data", help="the data files of the chapters")
    data_sub = data.add_subparsers(dest="data_command", required=True)
    fetch = data_sub.add_parser("fetch", help="download, check and unpack the missing data "
                                "files of chapters (default: every chapter)")
    fetch.add_argument("chapters", nargs="*", metavar="CHAPTER")
    fetch.add_argument("--list", action="store_true",
                       help="only list every asset: present or missing, sizes, sources")
    fetch.add_argument("--profile", choices=runner.PROFILES, default=None,
                       help="only the files this profile reads (default: every profile's)")
    fetch.add_argument("--mirror", default=None, help="base URL of a folder serving the same "
                       "files (default: $LDP_COMPANION_DATA_URL, else the public sources)")
    fetch.add_argument("--quiet", action="store_true", help="no progress bars")
    plan = sub.add_parser("plan", help="a chapter's data and projected run time at a "
                          "profile, on this machine or on N workers and a GPU")
    plan.add_argument("chapter", help="chapter name or number")
    plan.add_argument("--profile", choices=runner.PROFILES, default="paper")
    plan.add_argument("--workers", type=int, default=None,
                      help="grid worker processes (default: this machine's cores)")
    plan.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                      help="cuda: a GPU machine (projected from runs timed on one)")
    plan.add_argument("-p", "--parameter", nargs=2, action="append", default=[],
                      metavar=("NAME", "VALUE"),
                      help="a parameter the run will be given in place of the profile's "
                      "(as run -p; repeatable)")
    plan.add_argument("--save", action="store_true",
                      help="also keep the projection, to check a paper run against it "
                      "(benchmarks/results/paper-runs/CHAPTER.projection.json; before the run)")
    keep = sub.add_parser("keep", help="keep a finished paper-profile run as the chapter's "
                          "paper-scale record (benchmarks/results/paper-runs/), shown on its "
                          "page beside the default verdicts")
    keep.add_argument("run", help="the run's --out folder")
    keep.add_argument("chapter", help="chapter name or number")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)

    if args.command == "list":
        for path in runner.chapters():
            print(path.stem)
        return 0
    if args.command == "run":
        source = runner.find_chapter(args.chapter)
        given = {"profile": "default", "seed": 0,  # the parameters cell's defaults
                 **{name: _value(value) for name, value in args.parameter}}
        resolved = _resolved(source.stem, given)  # names and values checked: nothing ran yet
        params = {name: None if value is None else resolved[name]  # as checked: 2e4 -> 20000
                  for name, value in given.items()}
        if not args.quiet:  # the kernel inherits it: grids draw their bars on this terminal
            os.environ[PROGRESS_ENV] = "1"
        store = None if args.no_resume else Path(args.out).resolve() / "grid-store"
        out = runner.execute(source, Path(args.out), params, log_output=args.log_output,
                             resolved=resolved, store=store)
        from ldp_companion.edition import cards

        cards.fill(out)
        print(f"executed notebook: {out}")
        return 0
    if args.command == "params":
        return _params(args.chapter, args.sync)
    if args.command == "data":
        return _data_fetch(args)
    if args.command == "plan":
        return _plan(args)
    if args.command == "keep":
        from ldp_companion.execution import paper_scale

        print(f"kept {paper_scale.save(args.run, args.chapter)}")
        return 0
    if args.command == "coverage":
        return _coverage(args.chapter, args.json)
    if args.command == "student":
        from ldp_companion.edition.student import write_editions

        sources = ([runner.find_chapter(c) for c in args.chapters] if args.chapters
                   else runner.chapters())
        from ldp_companion.edition import book

        def sealed_for(stem):  # the student edition carries sealed answers, not the answers
            exercises = book.EXERCISES.get(stem)
            return exercises.sealed() if exercises is not None else None

        for path in write_editions(Path(args.out), sources, args.edition, sealed_for):
            print(f"wrote {path}")
        return 0
    if args.command == "pdf":
        return _pdf()
    if args.command == "changelog":
        from ldp_companion.edition import changelog

        print(f"wrote {changelog.write(runner.REPO)}")
        return 0
    if args.command == "pin":
        return _pin(args.build, args.check)
    started = time.perf_counter()
    if args.command == "site":
        print(f"site built; open {runner.build_site()}")
        return 0
    runner.execute_book(args.profile, args.seed, force=args.force, jobs=args.jobs,
                        resolve=_resolved)
    from ldp_companion.edition import cards

    for notebook in sorted(runner.GENERATED.glob("*.ipynb")):  # the chapters' cards
        cards.fill(notebook)
    if not args.no_site:
        index = runner.build_site()
        print(f"book built in {time.perf_counter() - started:.0f} s; open {index}")
    return 0


def _resolved(chapter: str, params: dict) -> dict:
    """Every parameter's value in force for a run of ``chapter`` with ``params`` (the
    profile's value where ``params`` gives none, a given one as its kind converts it), for
    the run record.

    Raises
    ------
    ValueError
        One line naming a parameter the chapter does not have, or one whose value is outside
        its allowed range (:meth:`~ldp_companion.execution.profiles.ChapterParams.resolve`).
    """
    from ldp_companion.edition import book

    spec = book.PARAMS[chapter]
    spec.check_names(params)
    cfg = spec.resolve({**{n: None for n in spec.names}, **params})
    return {"profile": cfg.profile, "seed": cfg.seed, **cfg.values}


def _pin(build: str | None, check_only: bool) -> int:
    """Write the book's pins from a build's ledgers, or check the build against them."""
    from ldp_companion.verdicts import pins

    build = Path(build) if build else runner.GENERATED
    folder = runner.REPO / pins.BOOK_PINNED
    verdicts = pins.build_verdicts(build, [p.stem for p in runner.chapters()])
    pinned = pins.read_pins(folder)
    if check_only:
        changes, clock = _wall_clock_apart(verdicts, pinned)
        if clock:
            print("not checked, wall-clock verdicts (they measure this machine's load): "
                  + "; ".join(clock))
        if changes:
            print(pins.check_message(changes, build, folder), file=sys.stderr)
            return 1
        print(f"the book's {sum(map(len, verdicts.values()))} verdicts ({len(verdicts)} "
              f"chapters, {build}) match their pins in {pins.BOOK_PINNED}/")
        return 0
    changes = pins.check(verdicts, pinned)
    for chapter, lines in changes.items():
        print(f"{chapter}: " + "; ".join(lines))
    pins.write_pins(verdicts, folder)
    print(f"pinned {sum(map(len, verdicts.values()))} verdicts of {len(verdicts)} chapters "
          f"in {pins.BOOK_PINNED}/ ({'no change' if not changes else 'changes above'}); "
          "commit them, then run python -m ldp_companion changelog and commit CHANGELOG.md")
    return 0


def _wall_clock_apart(verdicts: dict, pinned: dict) -> tuple[dict, list[str]]:
    """:func:`~ldp_companion.verdicts.pins.check` without the wall-clock claims
    (:data:`~ldp_companion.edition.book.WALL_CLOCK`), and a line per such claim whose verdict
    moved from its pin."""
    from ldp_companion.edition import book
    from ldp_companion.verdicts import pins

    def without(table):
        return {c: {k: v for k, v in claims.items() if k not in book.WALL_CLOCK.get(c, ())}
                for c, claims in table.items()}

    moved = [f"{c} {k}: pinned {pinned[c][k]}, this build {verdicts[c][k]}"
             for c, ids in book.WALL_CLOCK.items() for k in ids
             if k in verdicts.get(c, {}) and k in pinned.get(c, {})
             and verdicts[c][k] != pinned[c][k]]
    return pins.check(without(verdicts), without(pinned)), moved


def _pdf() -> int:
    from importlib import metadata

    from ldp_companion.edition import pdf_edition

    site = runner.REPO / "_build" / "html"
    try:
        pdf_edition.build(site, runner.REPO, version=metadata.version("ldp_companion"),
                          commit=runner.source_state()["commit"])
    except (FileNotFoundError, RuntimeError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


def _data_fetch(args) -> int:
    from ldp_companion.data.datasets import cache_dir
    from ldp_companion.edition import data_fetch

    chapters = args.chapters or None
    if args.list:
        table = data_fetch.status(chapters, args.profile)
        print(f"data folder: {cache_dir()}")
        if table.empty:
            print("these chapters read no data file at this profile")
            return 0
        print(table.drop(columns="source").to_string(na_rep=""))
        for name, row in table[~table["state"].isin(["present", "bundled"])].iterrows():
            recipe = data_fetch.RECIPES[name]
            how = recipe.manual or (f"python -m ldp_companion data fetch "
                                    f"{recipe.chapters[0].split('-')[0]}")
            print(f"- {name}: {how} (source: {row['source']})")
        return 0
    left = data_fetch.fetch(chapters, profile=args.profile, mirror=args.mirror,
                            progress=not args.quiet)
    if left:
        print(f"still missing (see above): {', '.join(left)}")
        return 1
    print("every data file of these chapters is in place")
    return 0


def _plan(args) -> int:
    from ldp_companion.edition import planning

    given = {name: _value(value) for name, value in args.parameter}
    # names and values checked as run checks them, values as their kinds convert them
    resolved = _resolved(runner.find_chapter(args.chapter).stem,
                         {"profile": args.profile, "seed": 0, **given})
    overrides = {name: resolved[name] for name in given}
    p = planning.plan(args.chapter, args.profile, args.workers, args.device,
                      overrides=overrides)
    told = "".join(f", {k} = {v}" for k, v in overrides.items())
    print(f"{p.chapter}, profile {p.profile}{told}, {p.workers} grid workers, "
          f"device {p.device}\n")
    print("Data files:")
    if p.assets.empty:
        print("  none at this profile")
    else:
        assets = p.assets[["state", "on disk (MB)", "download (MB)", "how"]].astype(object)
        print(assets.where(assets.notna(), "").to_string()
              .replace("\n", "\n  ").join(["  ", ""]))
    if p.cells is None:
        print("\nNo projection: " + "; ".join(p.notes))
    else:
        print(f"\nProjected time per cell, from {p.basis}:")
        table = p.cells.assign(
            code=p.cells["code"].str.slice(0, 40),
            cell=[("" if c is None or (isinstance(c, float) and math.isnan(c)) else str(int(c)))
                  for c in p.cells["cell"]])[
            ["cell", "code", "measured (s)", "factors", "projected (s)"]]
        print(table.to_string(index=False, na_rep="", float_format=lambda v: f"{v:,.1f}")
              .replace("\n", "\n  ").join(["  ", ""]))
        for e in p.extra:
            print(f"  + {e.what}: {e.seconds:,.0f} s"
                  + (f" ({e.absent:,.0f} s of it skipped here: files missing)" if e.absent else ""))
        bound = "at least " if p.lower_bound else ""
        print(f"\nTotal, projected: {bound}{p.seconds / 3600:,.2f} h "
              f"({bound}{p.seconds:,.0f} s); a projection, not a measurement")
        for note in p.notes:
            print(f"- {note}")
    print("\nCommands:")
    for line in p.commands():
        print(f"  {line}")
    if args.save and p.cells is not None:
        saved = planning.save_projection(args.chapter, args.profile, args.workers, args.device,
                                         overrides)
        print(f"\nsaved the projection: {saved}")
    return 0


def _params(chapter: str | None, sync: bool) -> int:
    from ldp_companion.edition import book

    if sync:
        for path in book.sync_parameters(runner.REPO):
            print(f"rewrote {path.relative_to(runner.REPO)}")
        return 0
    table = book.params_markdown()
    if chapter is not None:
        number = book.chapter_number(runner.find_chapter(chapter).stem)
        table = "\n".join(line for line in table.splitlines()
                          if not line.startswith("| ") or line.startswith(f"| {number} |")
                          or line.startswith("| chapter |"))
    print(table)
    return 0


def _coverage(chapter: str | None, as_json: bool) -> int:
    import os

    from ldp_companion.edition import book
    from ldp_companion.verdicts.ledger import LEDGER_DIR_ENV

    folder = Path(os.environ.get(LEDGER_DIR_ENV) or runner.GENERATED)
    chapters = None if chapter is None else [runner.find_chapter(chapter).stem]
    table = book.coverage(folder, chapters)
    if as_json:
        print(table.to_json(orient="records", force_ascii=False, indent=1))
    else:
        print(table.drop(columns="title").to_string(index=False, max_colwidth=60))
    return 0


def cli() -> int:
    """Entry point: bad arguments (a bad ``--out`` too) and an output folder another run
    holds print one line and exit with status 2, a failed chapter or a full disk one line
    and status 1, not a traceback."""
    from ldp_companion.files import DiskFull

    try:
        return main()
    except (ValueError, FileNotFoundError, MissingExtra, runner.FolderInUse) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except (RuntimeError, DiskFull) as err:  # a chapter failed: the message names the cell
        print(f"error: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(cli())
