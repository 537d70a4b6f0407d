"""Paper-scale records: a chapter run at the ``paper`` profile, kept in the repository and
shown on the chapter page beside the default run (issue 46).

A record is the folder ``benchmarks/results/paper-runs/<chapter>/``, written by :func:`save`
from a finished ``python -m ldp_companion run <chapter> -p profile paper --out DIR``:

- the run's own records: ``<chapter>.ledger.json`` (every verdict with its numbers),
  ``.coverage.json``, ``.data.json``, ``.grids.json``, ``.run.json`` (commit, parameters,
  versions, machine, seconds), and its figure CSVs with their provenance (``figdata/``);
- ``cells.json``: the seconds of every code cell (papermill's), which the planner's
  projection is checked against;
- ``record.json``: the digest of the package code the chapter can run (:func:`code_digest`)
  when it ran.

No executed notebook and no image: a record stays small. :func:`load` reads one back and says
whether it is *stale*: the package code the chapter can run has changed since, so its verdicts
may no longer be what this code computes. A stale record is shown as stale, never silently.
"""
from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from ldp_companion.execution.profiles import format_value
from ldp_companion.execution.runner import PAPER_RECORDS, REPO, find_chapter, package_sources

__all__ = ["RECORDS", "PaperRecord", "code_digest", "save", "load", "summary", "counts"]

#: Where the paper-scale records live (one folder per chapter).
RECORDS = PAPER_RECORDS
_KEPT = ("ledger", "coverage", "data", "grids", "run")


def code_digest(chapter: str, package: Path = REPO / "ldp_companion") -> str:
    """sha256 of the package code chapter ``chapter`` can run
    (:func:`~ldp_companion.execution.runner.package_sources` of its page: the modules its
    imports reach, :mod:`~ldp_companion.execution.reach`)."""
    digest = hashlib.sha256()
    for path in package_sources(find_chapter(chapter), package):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0"
                      + path.read_bytes())
    return digest.hexdigest()


def _cell_seconds(notebook: Path) -> list[dict]:
    """``{cell, code, seconds}`` of every code cell (``cell``: its index among the code
    cells, as the planner's records count them)."""
    code = [c for c in json.loads(notebook.read_text())["cells"] if c["cell_type"] == "code"]
    out = []
    for i, cell in enumerate(code):
        seconds = cell.get("metadata", {}).get("papermill", {}).get("duration")
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        lines = [ln for ln in source.splitlines() if ln.strip() and not ln.startswith(":")]
        if seconds is not None:
            out.append({"cell": i, "code": lines[0][:60] if lines else "",
                        "seconds": round(float(seconds), 2)})
    return out


def save(run_dir: str | Path, chapter: str, records: Path | None = None) -> Path:
    """Keep the paper run in ``run_dir`` as the chapter's record (replacing an earlier one).

    Raises
    ------
    ValueError
        When the run is not a finished ``paper``-profile run of ``chapter``.
    """
    stem = find_chapter(chapter).stem
    run_dir = Path(run_dir)
    run_file = run_dir / f"{stem}.run.json"
    if not run_file.is_file() or not (run_dir / f"{stem}.ipynb").is_file():
        raise ValueError(f"{run_dir} holds no finished run of {stem} (no {run_file.name})")
    run = json.loads(run_file.read_text())
    if run.get("parameters", {}).get("profile") != "paper":
        raise ValueError(f"{run_file} is a {run.get('parameters', {}).get('profile')!r} run, "
                         "not a paper-profile one")
    folder = Path(records or RECORDS) / stem
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for kind in _KEPT:
        source = run_dir / f"{stem}.{kind}.json"
        if source.is_file():
            shutil.copy2(source, folder / source.name)
    if (run_dir / "figdata" / stem).is_dir():
        shutil.copytree(run_dir / "figdata" / stem, folder / "figdata" / stem)
    (folder / "cells.json").write_text(json.dumps(_cell_seconds(run_dir / f"{stem}.ipynb"),
                                                  indent=1) + "\n")
    (folder / "record.json").write_text(json.dumps(
        {"chapter": stem, "code_sha256": code_digest(stem), "commit": run["source"]["commit"],
         "finished": run["finished"], "seconds": run["seconds"], "machine": run["machine"]},
        indent=1) + "\n")
    return folder


@dataclass(frozen=True)
class PaperRecord:
    """A chapter's paper-scale record as :func:`load` reads it."""

    chapter: str
    claims: pd.DataFrame  # the ledger: one row per claim
    run: dict  # the run record (parameters, resolved parameters, seconds, machine, ...)
    record: dict  # record.json
    stale: bool  # the package code the chapter can run changed since the run
    cells: list = field(default_factory=list)
    folder: Path | None = None  # where the record lies

    @property
    def verdicts(self) -> dict[str, tuple[str, str]]:
        """``claim id -> (verdict, our number)`` at the paper's scale."""
        return {c.claim_id: (c.verdict, c.ours) for c in self.claims.itertuples()}

    @property
    def label(self) -> str:
        """The run, named for a coverage list: "run at the paper's scale of <date>"."""
        return (f"run at the paper's scale of {self.record['finished'][:10]} (commit "
                f"{self.record['commit'][:7]})")

    @property
    def coverage(self):
        """That run's resolved coverage list (:class:`~ldp_companion.verdicts.coverage.
        PaperItems`); an empty one when the run recorded none."""
        from ldp_companion.verdicts.coverage import PaperItems, _read_coverage

        path = Path(self.folder or RECORDS / self.chapter) / f"{self.chapter}.coverage.json"
        return (_read_coverage(path) if path.is_file()
                else PaperItems(self.chapter, "", []))

    @property
    def head(self) -> str:
        """The column's heading: where and when it ran, and whether it is stale."""
        when = self.record["finished"][:10]
        head = f"at the paper's scale ({when}, {self.record['commit'][:7]})"
        return head + (" — stale: the code has changed since" if self.stale else "")


def load(chapter: str, records: Path | None = None) -> PaperRecord | None:
    """The chapter's paper-scale record (in ``records``, default :data:`RECORDS`), or None
    when it has none."""
    stem = find_chapter(chapter).stem
    folder = Path(records or RECORDS) / stem
    if not (folder / "record.json").is_file():
        return None
    record = json.loads((folder / "record.json").read_text())
    claims = pd.DataFrame(json.loads((folder / f"{stem}.ledger.json").read_text()))
    cells = json.loads((folder / "cells.json").read_text())
    return PaperRecord(stem, claims, json.loads((folder / f"{stem}.run.json").read_text()),
                       record, record["code_sha256"] != code_digest(stem), cells, folder)


def _differences(default: dict, paper: dict) -> list[str]:
    names = [k for k in paper if k not in ("profile", "n_jobs") and k in default
             and default[k] != paper[k]]
    return [f"{k} {format_value(default[k])} → {format_value(paper[k])}" for k in names]


def summary(chapter: str, record: PaperRecord | None, default_claims: pd.DataFrame,
            cfg) -> str:
    """One computed paragraph for the chapter page: what the paper-scale run was, what
    differs from this run (``cfg``, its :class:`~ldp_companion.execution.profiles.
    ChapterConfig`), and which verdicts changed (or that there is no such run yet)."""
    if record is None:
        return ("No run at the paper's scale is recorded for this chapter yet: `python -m "
                f"ldp_companion plan {find_chapter(chapter).stem} --profile paper` projects "
                "its time, and the Reproducibility page says how to run it.")
    paper = record.run.get("resolved", record.run.get("parameters", {}))
    diff = _differences({"seed": cfg.seed, **cfg.values}, paper)
    ours = dict(zip(default_claims["claim_id"], default_claims["verdict"]))
    changed = [f"`{cid}` {ours[cid]} → {v}" for cid, (v, _) in record.verdicts.items()
               if cid in ours and ours[cid] != v]
    text = (f"**At the paper's scale** (run of {record.record['finished'][:10]}, commit "
            f"`{record.record['commit'][:7]}`, {record.record['seconds']:,.0f} s on "
            f"{record.record['machine']}): {len(record.claims)} claims. What differs from this "
            f"run: {', '.join(diff) if diff else 'nothing'}. ")
    text += (f"{len(changed)} verdict{'s' if len(changed) != 1 else ''} changed with it: "
             + "; ".join(changed) + "." if changed else "No verdict changed.")
    if record.stale:
        text += (" **Stale:** the package code this chapter runs has changed since that run, "
                 "so its verdicts are shown as they were, not as this code computes them.")
    return text


#: The verdicts that decide a claim (the others: inconclusive, not checked offline).
DECIDED = ("holds", "fails", "partly")


def counts(claims: pd.DataFrame, records: Path | None = None) -> pd.DataFrame:
    """Per chapter with a paper-scale record: its claims, those it decided, those whose
    verdict differs from ``claims`` (a book build's, every chapter's), and whether it is
    stale. Empty (with these columns) when no chapter has a record."""
    rows = []
    for folder in sorted(Path(records or RECORDS).glob("*/record.json")):
        record = load(folder.parent.name, records)
        ours = claims[claims["chapter"] == record.chapter].set_index("claim_id")["verdict"]
        paper = record.claims.set_index("claim_id")["verdict"]
        both = paper.index.intersection(ours.index)
        rows.append({"chapter": record.chapter, "run": record.record["finished"][:10],
                     "commit": record.record["commit"][:7], "claims": len(paper),
                     "decided": int(paper.isin(DECIDED).sum()),
                     "changed": int((paper[both] != ours[both]).sum()),
                     "stale": "yes" if record.stale else "no"})
    return pd.DataFrame(rows, columns=["chapter", "run", "commit", "claims", "decided",
                                       "changed", "stale"])
