"""How long a chapter's profile takes, projected from the runs measured so far: ``plan``.

Every projection starts from a timing record (``benchmarks/results/*.json``, written by
``benchmarks/paper_profile.py`` from an executed notebook): each notebook cell's wall time, the
parameters it read and the experiment grids it ran. For a target profile and machine,

- a cell's time is multiplied by the ratio of the **work** each parameter it read stands for,
  target over measured: a count (``runs``, ``n_mean``, ``epochs``) by its value, a grid (an
  ε list, the tasks) by its length, sizes per data set by their sum; a parameter whose work
  cannot be compared (an empty list in the measured run, "all the data") is named, and the
  cell is counted at its measured time, so that projection is a **lower bound**;
- the part of a cell spent in grids (or, in older records, a cell that reads ``n_jobs``) is
  divided by the speed-up of the target's workers over the record's
  (:func:`speedup`, from the ``scaling-*.json`` records), the rest is serial;
- work the measured profile does not do at all and that was timed on its own (chapter 2's
  paper networks, ``benchmarks/type1_steps.py``) is added from its own record.

A projection is a projection: it assumes each cell's time grows in proportion to its work
(it ignores memory effects and fixed costs), and says which record it rests on. Like
:mod:`ldp_companion.edition.book`, this module sits above the chapters: it reads every chapter's
parameters.
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import pandas as pd

__all__ = ["RESULTS", "records", "work", "speedup", "cores", "has_gpu", "project", "Plan",
           "plan", "summary", "save_projection", "check", "check_view", "checks",
           "largest_gap", "OFF"]

#: The timing records shipped with the package (in the repository: ``benchmarks/results``).
RESULTS = Path(__file__).resolve().parents[1] / "benchmark_results"

#: Parameters that never change the work: the seed, worker counts and the device.
NOT_WORK = frozenset({"seed", "n_jobs", "device", "profile"})


def records(chapter: str | None = None, folder: Path | None = None) -> list[dict]:
    """Timing records (every one, or ``chapter``'s), each with its file name as ``"file"``."""
    folder = RESULTS if folder is None else Path(folder)
    out = []
    for path in sorted(folder.glob("*.json")):
        rec = json.loads(path.read_text())
        if isinstance(rec, dict) and "cells" in rec and "chapter" in rec and \
                (chapter is None or rec["chapter"] == chapter):
            out.append({**rec, "file": path.name})
    return out


def work(value) -> float | None:
    """The work a parameter value stands for: a count, a list's length, the sum of sizes
    per data set; None when it has none to compare (None: "all the data", a string)."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return None
    if isinstance(value, int):
        return float(value)
    if isinstance(value, float):
        return 1.0  # a level (ε, a learning rate), not an amount of work
    if isinstance(value, (list, tuple)):
        return float(len(value))
    if isinstance(value, dict):
        numbers = [v for v in value.values() if isinstance(v, (int, float))
                   and not isinstance(v, bool)]
        return float(sum(numbers)) if len(numbers) == len(value) and numbers else None
    return None


def _ratio(measured, target) -> float | None:
    if measured == target:
        return 1.0
    a, b = work(measured), work(target)
    if isinstance(measured, dict) and isinstance(target, int) and not isinstance(target, bool):
        numbers = list(measured.values())  # per-task values against one for every task
        a = a / len(numbers) if a is not None and numbers else None
    if a is None or b is None or a <= 0:
        return None
    return b / a


#: The grids of ``benchmarks/scaling.py`` by the name :func:`~ldp_companion.execution.grid.run_grid`
#: gives them (its ``description``), as the chapters' run records name them.
SCALED_GRIDS = {"hiera-sgd": "HierA SGD", "pm-fedsgd": "LDP-FedSGD",
                "hiera-mean": "HierA mean estimation", "pm-mean": "mean estimation"}


def _repeats(name: str, value) -> bool:
    """A parameter that counts the cells of a grid (a list of values, or a number of runs,
    seeds, repeats, rounds or epochs) rather than the size of the data."""
    return isinstance(value, (list, tuple)) or bool(
        re.search(r"(^|_)(runs|seeds|repeats|rounds|epochs)($|_)", name))


def _scaling_points(folder: Path, grid: str | None = None) -> dict[int, float]:
    """Speed-up per worker count of ``grid`` (a run_grid description) where it was measured,
    else the mean over the measured grids."""
    points: dict[int, list[float]] = {}
    own: dict[int, list[float]] = {}
    for path in sorted(folder.glob("scaling-*.json")):
        for name, res in json.loads(path.read_text())["grids"].items():
            for row in res["rows"]:
                n, s = int(row["workers"]), float(row["speed-up"])
                points.setdefault(n, []).append(s)
                if grid is not None and SCALED_GRIDS.get(name, name) == grid:
                    own.setdefault(n, []).append(s)
    chosen = own or points
    return {n: sum(v) / len(v) for n, v in chosen.items()}


def speedup(workers: int, folder: Path | None = None, grid: str | None = None) -> float:
    """Speed-up of a grid on ``workers`` processes over one, from the measured scaling: that
    grid's own when it was measured (``grid``: its run_grid description), else the mean over
    the measured grids; efficiency interpolated in log2 of the workers, held beyond the
    largest count measured; ``workers`` itself without any measurement."""
    if workers <= 1:
        return 1.0
    points = _scaling_points(RESULTS if folder is None else Path(folder), grid)
    points[1] = 1.0
    eff = {n: s / n for n, s in points.items()}
    counts = sorted(eff)
    if len(counts) == 1:
        return float(workers)
    if workers >= counts[-1]:
        return workers * eff[counts[-1]]
    lo = max(n for n in counts if n <= workers)
    hi = min(n for n in counts if n >= workers)
    if lo == hi:
        return workers * eff[lo]
    t = (math.log2(workers) - math.log2(lo)) / (math.log2(hi) - math.log2(lo))
    return workers * (eff[lo] + t * (eff[hi] - eff[lo]))


def cores(rec: dict) -> int:
    """The cores of the machine a record ran on ("16 cores, NVIDIA H100" -> 16)."""
    found = re.search(r"(\d+)\s*cores", rec.get("machine", ""))
    return int(found.group(1)) if found else 1


def has_gpu(rec: dict) -> bool:
    text = rec.get("machine", "")
    return "no GPU" not in text and bool(re.search(r"GPU|NVIDIA|H100|H200|A100", text))


def _values(spec: dict, profile: str, overrides: dict) -> dict:
    return {name: overrides.get(name, per[1][profile]) for name, per in spec.items()}


def project(rec: dict, profile: str, workers: int, folder: Path | None = None,
            overrides: dict | None = None) -> pd.DataFrame:
    """Each cell of ``rec`` projected to ``profile`` (with the parameter values
    ``overrides``, as ``run -p NAME VALUE`` gives them) on ``workers`` grid workers.

    Returns
    -------
    DataFrame with columns ``cell, code, measured (s), work × , not comparable, grid share,
    projected (s)``.
    """
    params = book_params(rec["chapter"])
    spec = params.spec
    sized_after = {p: rec.get("first_read", {}).get(p) for p in params.data_size}
    run_profile = rec["parameters"].get("profile", "default")
    measured = _values(spec, run_profile, rec["parameters"])
    target = _values(spec, profile, overrides or {})
    rec_workers = cores(rec)

    def gain(grid=None):
        return speedup(rec_workers, folder, grid) / speedup(workers, folder, grid)

    rows = []
    for cell in rec["cells"]:
        factors, unknown = {}, []
        uses = set(cell.get("uses", [])) | {
            p for p, first in sized_after.items()
            if first is not None and cell["cell"] is not None and cell["cell"] > first}
        for name in sorted(uses):
            if name in NOT_WORK or name not in spec:
                continue
            r = _ratio(measured[name], target[name])
            if r is None:
                unknown.append(name)
            elif r != 1.0:
                factors[name] = r
        seconds = float(cell["seconds"])
        if cell.get("grids"):  # each grid's wall time by its own measured speed-up
            grids = [(float(g["seconds"]), g["grid"]) for g in cell["grids"]
                     if g.get("workers") != 1]
        else:
            grids = [(seconds, None)] if "n_jobs" in cell.get("uses", []) else []
        grid_time = sum(t for t, _ in grids)
        shrink = min(1.0, seconds / grid_time) if grid_time else 0.0  # rounding: never > cell
        parallel = grid_time * shrink
        fast = shrink * sum(t * gain(g) for t, g in grids)
        scale = math.prod(factors.values())
        # with the grids recorded, repetitions and grids of values multiply the grid's cells
        # only; the rest of the cell (loading, tables) grows with the data sizes alone
        rest = scale if not cell.get("grids") else math.prod(
            f for name, f in factors.items() if not _repeats(name, measured[name]))
        rows.append({"cell": cell["cell"], "code": cell["code"], "measured (s)": seconds,
                     "work ×": scale, "factors": ", ".join(f"{k} × {v:.3g}"
                                                          for k, v in factors.items()),
                     "not comparable": ", ".join(unknown),
                     "grid share": parallel / seconds if seconds else 0.0,
                     "projected (s)": (seconds - parallel) * rest + fast * scale})
    return pd.DataFrame(rows)


def _absent_here(task: str) -> bool:
    """Whether ``task`` names a data asset with a file missing in this machine's data folder
    (a run skips such a task, saying which files it lacks)."""
    from ldp_companion.data import paper_assets

    return task in paper_assets.ASSETS and bool(paper_assets.missing(task))


class Extra(NamedTuple):
    """Work a benchmark timed on its own (:func:`_extra_work`)."""

    what: str
    seconds: float  # projected, on the plan's workers or device
    record: str  # the benchmark record's file name
    covers: tuple  # the task-list parameters whose work it times
    absent: float  # seconds of it whose tasks' files are missing here: a run here skips them
    tasks: tuple  # the tasks it adds


def _extra_work(chapter: str, profile: str, workers: int, gpu: bool,
                folder: Path) -> list[Extra]:
    """Work the measured profile skips that a benchmark timed on its own: a record naming
    the ``chapter``, the task-list parameter it ``covers`` and each task's hours on one worker
    (``benchmarks/type1_steps.py``), on the device asked for. The profile's tasks of that
    parameter are added; one GPU runs them one after the other, CPU workers side by side."""
    spec = book_params(chapter).spec
    out, covered = [], set()
    for path in sorted(folder.glob("*.json")):
        rec = json.loads(path.read_text())
        if not (isinstance(rec, dict) and rec.get("chapter") == chapter and "covers" in rec
                and ("cuda" in rec.get("device", "")) == gpu):
            continue
        covers = rec["covers"]
        tasks = [r["task"] for r in rec["rows"] if r["task"] in spec[covers][1][profile]]
        if not tasks or covers in covered:  # one record per parameter: the first by name
            continue
        covered.add(covers)
        hours = {r["task"]: r["hours_one_worker"] for r in rec["rows"] if r["task"] in tasks}
        per = 3600 / speedup(1 if gpu else workers, folder)
        absent = sum(h for task, h in hours.items() if _absent_here(task)) * per
        out.append(Extra(f"{rec.get('what', covers)} ({', '.join(tasks)}; {path.name})",
                         sum(hours.values()) * per, path.name, (covers,), absent, tuple(tasks)))
    return out


@dataclass
class Plan:
    """A chapter's plan: its data, the projection of each cell, the total, the basis."""

    chapter: str
    profile: str
    workers: int
    device: str
    assets: pd.DataFrame
    cells: pd.DataFrame | None
    extra: list[Extra] = field(default_factory=list)  # work timed apart
    basis: str = ""
    notes: list = field(default_factory=list)
    #: Parameters whose work at this profile the measured run does not do (nor a separate
    #: record): the projection leaves that work out and is a lower bound.
    unmeasured: list = field(default_factory=list)
    #: The record's run was stopped: its running cell's time is a lower bound.
    stopped: bool = False
    #: Parameter values in place of the profile's (``run -p NAME VALUE``).
    overrides: dict = field(default_factory=dict)
    #: The digest of the chapter's code the basis record ran (None: the record does not say).
    basis_code: str | None = None

    @property
    def seconds(self) -> float | None:
        """The whole profile's projected seconds, with the work of files missing here."""
        if self.cells is None:
            return None
        return float(self.cells["projected (s)"].sum()) + sum(e.seconds for e in self.extra)

    @property
    def seconds_here(self) -> float | None:
        """The projected seconds of a run on this machine, which skips the tasks whose
        files are missing (:attr:`absent`)."""
        return None if self.seconds is None else self.seconds - self.absent

    @property
    def absent(self) -> float:
        """Seconds of the separately timed work (:attr:`extra`) whose tasks' files are
        missing from this machine's data folder: a run here skips them."""
        return float(sum(e.absent for e in self.extra))

    @property
    def lower_bound(self) -> bool:
        return bool(self.unmeasured) or self.stopped

    def commands(self) -> list[str]:
        number = self.chapter.split("-")[0]
        given = "".join(f" -p {k} {v}" for k, v in self.overrides.items())
        run = f"python -m ldp_companion run {number} -p profile {self.profile}{given} --out runs/"
        keep = [f"python -m ldp_companion keep runs/ {number}  # the run as the chapter's "
                "record, shown on its page"] if self.profile == "paper" else []
        return [f"python -m ldp_companion data fetch {number} --profile {self.profile}",
                run, "# interrupted? the same command again: finished grid cells are read "
                     "back from runs/grid-store", *keep]


def _pick(recs: list[dict], gpu: bool, profile: str, spec: dict,
          overrides: dict) -> dict | None:
    """The record to project ``profile`` (with ``overrides``) from: on the device asked for,
    complete if one is; then the one with the fewest parameters whose work cannot be
    compared with the target's (``data = stand-ins`` against the paper's files: a record of
    the same data wins over a newer one of other data), then by profile, cores and age."""
    same = [r for r in recs if has_gpu(r) == gpu and r.get("complete", True)] or \
           [r for r in recs if has_gpu(r) == gpu]
    if not same:
        return None
    order = {profile: 0, "paper": 1, "default": 2, "smoke": 3}
    target = _values(spec, profile, overrides)

    def incomparable(rec: dict) -> int:
        measured = _values(spec, rec["parameters"].get("profile", "default"), rec["parameters"])
        return sum(_ratio(measured[n], target[n]) is None for n in spec if n not in NOT_WORK)

    return min(same, key=lambda r: (incomparable(r),
                                     order.get(r["parameters"].get("profile", "default"), 4),
                                     -cores(r), _newest_first(r)))


def _newest_first(rec: dict) -> float:
    from datetime import datetime

    finished = rec.get("finished")
    return -datetime.fromisoformat(finished).timestamp() if finished else 0.0


def plan(chapter: str, profile: str = "paper", workers: int | None = None,
         device: str | None = None, folder: Path | None = None,
         overrides: dict | None = None) -> Plan:
    """The plan of ``chapter`` (name or number) at ``profile`` on ``workers`` grid workers
    (default: this machine's cores) and ``device`` ("cpu" or "cuda": a GPU machine), with
    the parameter values ``overrides`` in place of the profile's (``{"data": "stand-ins"}``,
    as ``run -p data stand-ins`` runs it; names checked)."""
    import os

    from ldp_companion.edition import data_fetch
    from ldp_companion.execution import runner
    from ldp_companion.execution.profiles import PROFILES

    stem = runner.find_chapter(chapter).stem
    if profile not in PROFILES:
        raise ValueError(f"profile must be one of {PROFILES}, got {profile!r}")
    device = device or "cpu"
    if device not in ("cpu", "cuda"):
        raise ValueError(f"device must be 'cpu' or 'cuda', got {device!r}")
    if workers is None:
        workers = os.cpu_count() or 1
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive integer, got {workers!r}")
    folder = RESULTS if folder is None else Path(folder)
    recs = records(stem, folder)
    gpu, notes = device == "cuda", []
    spec = book_params(stem).spec
    overrides = dict(overrides or {})
    if set(overrides) - set(spec):
        raise ValueError(f"{stem} has no parameter {sorted(set(overrides) - set(spec))}")
    if gpu and "torch" not in book_params(stem).requires:
        gpu = False
        notes.append("this chapter uses no GPU: on a GPU machine it runs on the machine's "
                     "cores (projected from the newest CPU record)")
    elif gpu and "device" in spec and spec["device"][1][profile] == "cpu":
        gpu = False
        notes.append("this chapter runs on the CPU at this profile (its device parameter): "
                     "on a GPU machine it uses the machine's cores")
    rec = _pick(recs, gpu, profile, spec, overrides)
    if rec is None and gpu:
        rec = _pick(recs, False, profile, spec, overrides)
        if rec is not None:
            notes.append("no run of this chapter was timed on a GPU machine: the projection "
                         "is the CPU one on its workers (the chapter's torch cells would be "
                         "faster on the GPU)")
    assets = data_fetch.status([stem], profile)
    if rec is None:
        notes.append("no run of this chapter is recorded in benchmarks/results: nothing to "
                     "project from (benchmarks/paper_profile.py writes one)")
        return Plan(stem, profile, workers, device, assets, None, notes=notes)
    cells = project(rec, profile, workers, folder, overrides)
    extra = _extra_work(stem, profile, workers, gpu and has_gpu(rec), folder)

    basis = (f"{rec['file']}: {rec['parameters'].get('profile', 'default')} profile"
             + "".join(f", {k} = {v}" for k, v in rec["parameters"].items() if k != "profile")
             + f", {rec['machine']}, {rec['seconds']:,.0f} s"
             + ("" if rec.get("complete", True) else " (stopped: a lower bound)"))
    if not rec.get("complete", True):
        notes.append("the record's run was stopped before the end: its last cell's time is "
                     "a lower bound")
    measured = _values(spec, rec["parameters"].get("profile", "default"), rec["parameters"])
    target = _values(spec, profile, overrides)
    covered = {name for e in extra for name in e.covers}
    unknown = sorted(n for n in spec if n not in NOT_WORK and n not in covered
                     and _ratio(measured[n], target[n]) is None)
    unknown += [p for p in book_params(stem).data_size  # an older record: not applied
                if p not in rec.get("first_read", {}) and _ratio(measured[p], target[p]) != 1]

    if unknown:
        notes.append(f"the measured run does not do the work of {', '.join(unknown)} at this "
                     f"profile and no record times it: the projection leaves it out "
                     f"(a lower bound)")
    lacking = sorted(set(rec.get("missing_assets", [])) - {t for e in extra for t in e.tasks})
    if lacking:
        unknown.append(f"tasks without their files ({', '.join(lacking)})")
        notes.append(f"the measured run lacked the files of {', '.join(lacking)}: the work "
                     "that needs them is left out (a lower bound)")
    p = Plan(stem, profile, workers, "cuda" if gpu else "cpu", assets, cells,
             extra, basis, notes, unknown, not rec.get("complete", True), overrides,
             rec.get("code_sha256"))
    if p.absent:
        notes.append(f"{p.absent / 3600:,.2f} h of it are tasks whose files are missing "
                     f"here: a run on this machine skips them and takes "
                     f"{p.seconds_here / 3600:,.2f} h")
    return p


def book_params(chapter: str):
    """The chapter's :class:`~ldp_companion.execution.profiles.ChapterParams`."""
    from ldp_companion.edition import book

    return book.PARAMS[chapter]


def summary(profile: str = "paper", machines=(("2 cores", 2, "cpu"), ("16 cores", 16, "cpu"),
                                              ("GPU machine (16 cores)", 16, "cuda")),
            folder: Path | None = None) -> pd.DataFrame:
    """Projected hours of every chapter at ``profile`` on each of ``machines`` (label,
    workers, device); "≥" marks a lower bound (the work it leaves out is named), "—" no
    record to project from."""
    from ldp_companion.execution import runner

    rows, bases, left = [], {}, {}
    for path in runner.chapters():
        if not path.stem[0].isdigit():
            continue
        row = {"chapter": path.stem}
        for label, workers, device in machines:
            p = plan(path.stem, profile, workers, device, folder)
            row[f"{label} (h)"] = ("—" if p.seconds is None else
                                   ("≥ " if p.lower_bound else "") + f"{p.seconds / 3600:.2f}")
            bases.setdefault(path.stem, []).append(p.basis.split(":")[0] if p.basis else "")
            left.setdefault(path.stem, []).extend(
                p.unmeasured + (["a stopped cell"] if p.stopped else []))
        row["left out (≥)"] = ", ".join(dict.fromkeys(left[path.stem]))
        row["from"] = ", ".join(dict.fromkeys(b for b in bases[path.stem] if b))
        rows.append(row)
    return pd.DataFrame(rows).set_index("chapter")


# ------------------------------------------------------------ projections against the runs

#: A projection more than this far off in total (either way) gets a note on the page.
OFF = 0.30
#: Characters of a cell's first line of code that match a projected cell to a measured one.
_MATCH = 40


def _projection_path(stem: str) -> Path:
    from ldp_companion.execution import paper_scale

    return paper_scale.RECORDS / f"{stem}.projection.json"


def save_projection(chapter: str, profile: str = "paper", workers: int | None = None,
                    device: str | None = None, overrides: dict | None = None) -> Path:
    """Write the projection of ``chapter``'s run (:func:`plan`), made now, to
    ``benchmarks/results/paper-runs/<chapter>.projection.json``: the record a paper run's
    measured times are later checked against (:func:`check`). Save it *before* the run."""
    from datetime import UTC, datetime

    from ldp_companion.execution.runner import source_state

    p = plan(chapter, profile, workers, device, overrides=overrides)
    if p.cells is None:
        raise ValueError(f"{p.chapter}: no timing record to project from")
    cells = [{"cell": None if pd.isna(c["cell"]) else int(c["cell"]), "code": c["code"],
              "projected": round(float(c["projected (s)"]), 1)}
             for _, c in p.cells.iterrows()]
    out = {"chapter": p.chapter, "profile": profile, "overrides": p.overrides,
           "workers": p.workers, "device": p.device,
           "made": datetime.now(UTC).isoformat(timespec="seconds"),
           "commit": source_state()["commit"], "basis": p.basis,
           "basis_code": p.basis_code,
           "seconds": round(p.seconds_here, 1), "lower_bound": p.lower_bound, "cells": cells,
           "extra": [[e.what, round(float(e.seconds - e.absent), 1)] for e in p.extra],
           "skipped_here": round(p.absent, 1)}
    path = _projection_path(p.chapter)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    return path


def check(chapter: str) -> pd.DataFrame | None:
    """The projection saved before ``chapter``'s paper run against the run's measured
    times, cell by cell (matched by their first line of code; the cells the projection sums
    as "other cells" together), with a total row; None without both records. ``cell`` is
    the measured cell's index among the page's code cells. Where the timing record the
    projection rests on is still here, each cell also shows why it was projected so: the
    ``basis (s)`` it was measured at, the work ``factors`` applied, the parameters whose work
    could not be compared (``not comparable``: counted at the basis's size, a lower bound),
    and ``measured / basis``, the factor the run really took."""
    from ldp_companion.execution import paper_scale
    from ldp_companion.execution.runner import find_chapter

    stem = find_chapter(chapter).stem
    path, record = _projection_path(stem), paper_scale.load(stem)
    if record is None or not path.is_file():
        return None
    projection = json.loads(path.read_text())
    # cells are matched by their first line of code: the record the projection rests on may
    # come from an older page, with cells added or removed above them since
    measured: dict[str, float] = {}
    where: dict[str, int] = {}
    for c in record.cells:
        key = c["code"][:_MATCH]
        measured[key] = measured.get(key, 0.0) + c["seconds"]
        where.setdefault(key, c["cell"])
    named = {c["code"][:_MATCH] for c in projection["cells"] if c["cell"] is not None}
    why = _why(projection)
    rows = []
    for c in projection["cells"]:
        key = c["code"][:_MATCH]
        got = (measured.get(key, float("nan")) if c["cell"] is not None
               else sum(v for k, v in measured.items() if k not in named))
        rows.append({"cell": where.get(key, "") if c["cell"] is not None else "",
                     "code": c["code"], **why.get(key, {}), "projected (s)": c["projected"],
                     "measured (s)": got})
    for what, seconds in projection.get("extra", []):
        rows.append({"cell": "", "code": what, "projected (s)": seconds,
                     "measured (s)": float("nan")})
    rows.append({"cell": "", "code": "total", "projected (s)": projection["seconds"],
                 "measured (s)": float(record.run["seconds"])})
    table = pd.DataFrame(rows)
    if "basis (s)" in table:
        table["measured / basis"] = table["measured (s)"] / table["basis (s)"]
    table["measured / projected"] = table["measured (s)"] / table["projected (s)"]
    return table


def check_view(table: pd.DataFrame, width: int = 30) -> pd.DataFrame:
    """:func:`check`'s table as the page shows it, narrow enough for the text column: each
    cell's code cut to ``width`` characters, and what its projection assumed in one column
    (``projected as``: the basis's seconds × the work factors, then the parameters not
    comparable)."""
    view = pd.DataFrame({"code": [c if len(c) <= width else c[:width - 1] + "…"
                                  for c in table["code"]]})
    if "basis (s)" in table:
        view["projected as"] = [
            "" if pd.isna(b) else f"{b:,.1f}\u00a0s" + (f" × {f}" if f else "")
            + (f"; {n} not comparable" if n else "")
            for b, f, n in zip(table["basis (s)"], table["factors"].fillna(""),
                               table["not comparable"].fillna(""))]
    for column in ("projected (s)", "measured (s)", "measured / projected"):
        view[column] = table[column].to_numpy()
    return view


def largest_gap(chapter: str, table: pd.DataFrame) -> str:
    """One line on the cell of :func:`check`'s ``table`` whose measured time is farthest from
    its projection, in seconds: what the projection assumed (the basis's time and the work
    factors) against the factor the run took, and which way the model erred, beyond
    :data:`OFF` (the run grew by less than the factors it was charged: a parameter the cell
    reads but its work does not follow, or a fixed cost; by more: work the factors miss,
    such as a parameter not comparable)."""
    cells = table.iloc[:-1].dropna(subset=["measured (s)"])
    gap = cells.loc[(cells["measured (s)"] - cells["projected (s)"]).abs().idxmax()]
    text = (f"{chapter}: the largest gap is cell {gap['cell']} (`{gap['code']}`), projected "
            f"{gap['projected (s)']:,.0f} s, measured {gap['measured (s)']:,.0f} s")
    if pd.isna(gap.get("basis (s)", float("nan"))):
        return text + "."
    took, charged = gap["measured / basis"], gap["projected (s)"] / gap["basis (s)"]
    assumed = gap["factors"] or "no work factor"
    text += (f". It was {gap['basis (s)']:,.1f} s in the record the projection rests on, "
             f"projected × {charged:.3g} ({assumed}); the run took × {took:.3g}")
    if gap["not comparable"]:
        text += f", with {gap['not comparable']} not comparable (counted at the basis's size)"
    if took < charged / (1 + OFF):
        return text + (": less than the factors it was charged, so a parameter the cell "
                       "reads does not drive its work, or a fixed cost (start-up, loading) "
                       "that does not grow weighs in the basis.")
    if took > charged * (1 + OFF):
        return text + (": more than its factors, so some of its work follows a parameter "
                       "the projection could not count, or grows faster than in proportion.")
    return text + "."


def setup_difference(projection: dict, record) -> str:
    """The parameters the kept run (a :class:`~ldp_companion.execution.paper_scale.PaperRecord`)
    was given that the projection was not ("data = stand-ins, projected paper"), "" when
    it ran what was projected: a projection of another setup does not check the model."""
    spec = book_params(projection["chapter"]).spec
    expected = _values(spec, projection["profile"], projection.get("overrides", {}))
    differ = [f"{k} = {v}, projected {expected[k]}"
              for k, v in record.run.get("parameters", {}).items()
              if k in spec and v is not None and v != expected[k]]
    return "no: " + "; ".join(differ) if differ else ""


def basis_code(projection: dict, record) -> str:
    """Whether the projection's basis timed the chapter's code that the kept run ran:
    "same", "other" (the code changed between the two: the model cannot see how much that
    changed the time) or "not named" (a timing record older than the digest it now keeps;
    never taken as the same code)."""
    basis = projection.get("basis_code")
    if basis is None:
        return "not named"
    return "same" if basis == record.record.get("code_sha256") else "other"


def _why(projection: dict) -> dict[str, dict]:
    """Per projected cell (by its first code line), the basis record's time and the factors
    and incomparable parameters the projection applied: :func:`project` of that record
    (named first in the projection's ``basis``) again, {} when the record is gone."""
    name = projection["basis"].split(":")[0]
    found = [r for r in records(projection["chapter"]) if r["file"] == name]
    if not found:
        return {}
    cells = project(found[0], projection["profile"], projection["workers"],
                    overrides=projection.get("overrides"))
    return {c["code"][:_MATCH]: {"basis (s)": c["measured (s)"], "factors": c["factors"],
                                 "not comparable": c["not comparable"]}
            for _, c in cells.iterrows() if not pd.isna(c["cell"])}


def checks() -> pd.DataFrame:
    """Every chapter with a projection and a paper run: projected ("≥": a lower bound) and
    measured totals, their ratio, when each was made, whether the run is the one projected
    (:func:`setup_difference`) and whether the projection is more than :data:`OFF` off."""
    from ldp_companion.execution import paper_scale, runner

    rows = []
    for path in runner.chapters():
        table = check(path.stem)
        if table is None:
            continue
        projection = json.loads(_projection_path(path.stem).read_text())
        record = paper_scale.load(path.stem)
        total = table.iloc[-1]
        ratio = total["measured (s)"] / total["projected (s)"]
        rows.append({"chapter": path.stem,
                     "projected (h)": ("≥ " if projection.get("lower_bound") else "")
                     + f"{total['projected (s)'] / 3600:.2f}",
                     "measured (h)": total["measured (s)"] / 3600, "measured / projected": ratio,
                     "projected on": projection["made"][:10],
                     "run on": record.record["finished"][:10],
                     "run as projected": setup_difference(projection, record) or "yes",
                     "basis's code": basis_code(projection, record),
                     f"more than {OFF:.0%} off": "yes" if abs(ratio - 1) > OFF else "no"})
    return pd.DataFrame(rows)
