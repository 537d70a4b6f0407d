"""Execute chapters with papermill and build the book.

Chapters are MyST-markdown notebooks (jupytext) in ``notebooks/``; the book's summary pages
(verdicts, reproducibility) are notebooks in ``book/``. :func:`execute` converts one to a
notebook, runs it with papermill in a staging folder inside its output folder (where it writes
its ledger), records the run (profile, seed, parameters, time, versions, the git commit and the
pinned versions' hash) as ``<name>.run.json`` and moves the outputs into place when the run
succeeds. One run or build at a time holds an output folder (:func:`folder_lock`).
"""
from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

from ldp_companion.execution import figure_data, processes, threads
from ldp_companion.execution.grid_store import STORE_ENV
from ldp_companion.execution.profiles import PROFILES
from ldp_companion.execution.reach import reachable
from ldp_companion.files import CorruptFile, one_line, read_json, write_atomic
from ldp_companion.verdicts.ledger import LEDGER_DIR_ENV
from ldp_companion.verdicts.run_records import CHAPTER_ENV

__all__ = ["REPO", "chapters", "find_chapter", "execute", "execute_book", "build_site",
           "versions", "machine", "source_state", "GENERATED", "FolderInUse", "folder_lock",
           "output_folder"]

REPO = Path(__file__).resolve().parents[2]
GENERATED = REPO / "book" / "generated"
SUMMARY_PAGES = ("verdicts", "reconstructions", "reproducibility", "course", "rerun")
VERSIONED = ("ldp_companion", "numpy", "scipy", "pandas", "matplotlib", "seaborn", "pooch",
             "scikit-learn", "joblib", "torch", "papermill", "jupyter-book", "sphinx")


#: The chapter sources as installed with the package (in the repository a link to
#: ``notebooks/``), so that the command line works from a wheel.
CHAPTERS = Path(__file__).resolve().parents[1] / "chapters"


def chapters(root: Path | None = None) -> list[Path]:
    """Chapter and appendix sources, in book order: ``root/notebooks/*.md``, by default the
    ones installed with the package (the repository's ``notebooks/``)."""
    folder = CHAPTERS if root is None else Path(root) / "notebooks"
    return sorted(folder.glob("*.md"))


def find_chapter(name: str, root: Path | None = None) -> Path:
    """The chapter whose file name matches ``name`` (``tldp``, ``3``, ``03``, ``a``,
    ``03-pm-three-outputs``), in any case."""
    name = name.strip().lower()
    name = name.zfill(2) if name.isdigit() else name
    stems = {p: p.stem.lower() for p in chapters(root)}
    found = [p for p, stem in stems.items() if stem == name]
    found = found or [p for p, stem in stems.items() if name in stem.split("-", 1) or
                      stem.startswith(name + "-") or stem.split("-", 1)[-1].startswith(name)]
    if len(found) != 1:
        known = ", ".join(p.stem for p in chapters(root))
        what = "matches several" if found else "matches no"
        raise ValueError(f"{name!r} {what} chapter; known: {known}")
    return found[0]


def versions() -> dict[str, str]:
    """Installed versions of the packages the chapters depend on (and Python's)."""
    out = {"python": platform.python_version()}
    for name in VERSIONED:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def source_state(root: Path = REPO) -> dict:
    """Where the code that ran came from: the git commit of ``root`` and whether tracked files
    had uncommitted changes (both None outside a git checkout, e.g. from a wheel), and the
    sha256 of ``constraints.txt`` (the pinned versions; None without one)."""
    def git(*args) -> str | None:
        try:
            done = subprocess.run(["git", "-C", str(root), *args], capture_output=True,
                                  text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    commit = git("rev-parse", "HEAD") if (Path(root) / ".git").exists() else None
    changes = git("status", "--porcelain", "--untracked-files=no") if commit else None
    constraints = Path(root) / "constraints.txt"
    return {"commit": commit, "uncommitted_changes": None if changes is None else bool(changes),
            "constraints_sha256": hashlib.sha256(constraints.read_bytes()).hexdigest()
            if constraints.is_file() else None}


def machine() -> str:
    """The processor, its cores and the GPUs torch sees (``"x86_64, 16 cores, NVIDIA H100 80GB
    HBM3"``; no GPU part without one or without torch)."""
    text = f"{platform.machine()}, {os.cpu_count()} cores"
    if importlib.util.find_spec("torch") is None:
        return text
    import torch

    if torch.cuda.is_available():
        names = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
        text += ", " + ", ".join(names)
    return text


# A kernel that dies while starting (two kernels started at once can draw the same free port,
# "ZMQError: Address already in use") is started again; a failing cell is never retried.
_KERNEL_START_FAILED = "Kernel died before replying to kernel_info"
_KERNEL_START_TRIES = 3


def execute(source: Path, out_dir: Path, parameters: dict | None = None,
            kernel: str = "python3", log_output: bool = False, record: bool = True,
            cache_key: str | None = None, prelude: str | None = None,
            resolved: dict | None = None, store: Path | None = None, *,
            stage: bool = True, lock: bool = True) -> Path:
    """Run one MyST notebook with papermill; return the executed ``.ipynb``.

    The run's outputs (the executed notebook, its ledger, coverage, run records
    ``<name>.{run,data,reads,grids}.json``, figure data ``figdata/<name>/`` and whatever else
    the kernel writes in its working directory) are written in a staging folder inside
    ``out_dir`` and moved into place only when the run succeeds: a failed run (a cell raised,
    the kernel died, SIGTERM stopped it) leaves the previous good one whole and is kept in
    ``out_dir/<name>.failed/``, its notebook and records side by side. No process the run
    started outlives it (:mod:`ldp_companion.execution.processes`).

    Parameters
    ----------
    source : Path
        ``.md`` (jupytext MyST) or ``.ipynb`` notebook.
    out_dir : Path
        Folder for the executed notebook, its ledger and its ``.run.json``.
    parameters : dict
        papermill parameters (``profile``, ``seed`` and the chapter's knobs).
    record : bool
        Write ``<name>.run.json`` (the Reproducibility page lists these).
    cache_key : str, optional
        :func:`cache_key` of this run, kept in the record so that ``execute_book`` can reuse it.
    prelude : str, optional
        Code run before the chapter's first cell, in a cell the page does not show (the
        mutation harness applies a mutant with it, :mod:`ldp_companion.verdicts.mutation`).
    resolved : dict, optional
        Every parameter's value in force (the profile's values filled in), kept in the record
        beside the ``parameters`` passed.
    store : Path, optional
        Folder where the chapter's experiment grids keep their finished cells and find them
        again (:mod:`ldp_companion.execution.grid_store`; ``run`` gives ``OUT/grid-store``). Without
        it the kernel runs with no store, whatever the environment says: a build, a test or
        a mutant (whose change no digest of the source sees) never reads a stored cell. It is
        written as the run goes, not staged: a killed run resumes.
    stage : bool
        True (default): the kernel runs in ``out_dir/.staging-<name>-<pid>``, its working
        directory and ledger folder. False: in ``out_dir`` itself, for the book's summary
        pages, which read the chapters' records from their working directory.
    lock : bool
        Hold ``out_dir``'s lock (:func:`folder_lock`) for the run; False where the caller
        holds it (``execute_book``'s worker processes).

    Raises
    ------
    ValueError
        ``out_dir`` is a file or cannot be written, or the profile is unknown (checked before
        any work).
    FolderInUse
        Another run or build holds ``out_dir``.
    RuntimeError
        The chapter failed (a cell raised, or its kernel died): the message names the chapter,
        the cell and the failed run's notebook, kept in ``out_dir/<name>.failed/``.
    """
    parameters = dict(parameters or {})
    profile = parameters.get("profile")
    if profile is not None and profile not in PROFILES:
        raise ValueError(f"profile must be one of {PROFILES}, got {profile!r}")
    source, out_dir = Path(source), output_folder(out_dir)
    notebook = _notebook(source, prelude)
    with folder_lock(out_dir) if lock else contextlib.nullcontext():
        work = _staging(out_dir, source.stem) if stage else _cleared(out_dir, source.stem)
        kept = f"executed notebook: {out_dir / source.stem}.ipynb"
        if stage:
            kept = (f"executed notebook: {_failed(out_dir, source.stem)}/{source.stem}.ipynb, "
                    "beside its records; the previous run's outputs are left as they were")
        try:
            seconds, state, host = _run_kernel(notebook, source, work, kept, parameters,
                                               resolved, store, kernel, log_output)
            _hide_injected_parameters(work / f"{source.stem}.ipynb")
            if record:
                _write_record(work / f"{source.stem}.run.json", {
                    "name": source.stem, "parameters": parameters,
                    "resolved": _jsonable(resolved or parameters), "seconds": round(seconds, 2),
                    "machine": host, "source": state, "cache_key": cache_key})
            target = _publish(work, out_dir, source.stem) if stage else \
                out_dir / f"{source.stem}.ipynb"
        finally:
            if stage:
                _discard(work, out_dir, source.stem)
    print(f"[{source.stem}] done in {seconds:.1f} s (profile {profile or 'none'}) -> {target}",
          flush=True)
    _note_reuse(out_dir / f"{source.stem}.grids.json", store, source.stem)
    return target


def _notebook(source: Path, prelude: str | None):
    """The notebook of ``source``, with ``prelude`` as a hidden first cell."""
    import jupytext

    notebook = jupytext.read(source)
    if prelude:
        import nbformat

        notebook.cells.insert(0, nbformat.v4.new_code_cell(
            prelude, metadata={"tags": ["remove-cell", "prelude"]}))
    return notebook


@contextlib.contextmanager
def _kernel_environment(work: Path, stem: str, context: str, store: Path | None):
    """The environment the kernel inherits (its folder, chapter, run context, store and
    thread counts); this process's environment as it was afterwards."""
    kernel_threads = threads.kernel_env()  # one BLAS summation order on every machine
    outer = {k: os.environ.get(k) for k in (LEDGER_DIR_ENV, CHAPTER_ENV, figure_data.RUN_ENV,
                                            STORE_ENV, *kernel_threads)}
    os.environ.update(kernel_threads)
    os.environ[LEDGER_DIR_ENV] = str(work)
    os.environ[CHAPTER_ENV] = stem  # the kernel numbers "Figure 3.2" with it
    os.environ[figure_data.RUN_ENV] = context
    os.environ.pop(STORE_ENV, None)  # the kernel inherits only the store asked for
    if store is not None:
        os.environ[STORE_ENV] = str(store)
    try:
        yield
    finally:  # the settings were the kernel's
        for key, value in outer.items():
            os.environ.pop(key, None)
            if value is not None:
                os.environ[key] = value


def _run_kernel(notebook, source: Path, work: Path, kept: str, parameters: dict,
                resolved: dict | None, store: Path | None, kernel: str,
                log_output: bool) -> tuple[float, dict, str]:
    """Execute ``notebook`` in ``work``; return its seconds, :func:`source_state` and
    :func:`machine`. A failure names the chapter, the cell and ends with ``kept`` (where the
    executed notebook is)."""
    state, host = source_state(), machine()
    context = figure_data.run_context(_jsonable(parameters), _jsonable(resolved or parameters),
                                      state, host, source.stem)
    print(f"[{source.stem}] executing with {parameters or 'no parameters'} ...", flush=True)
    started = time.perf_counter()
    with _kernel_environment(work, source.stem, context, store), processes.reaping():
        try:
            with processes.stopping_on_sigterm():
                _papermill(notebook, work / f"{source.stem}.ipynb", parameters, kernel,
                           log_output, kept, store)
        except processes.Stopped:
            print(f"[{source.stem}] stopped by SIGTERM ({kept})", file=sys.stderr, flush=True)
            raise
    return time.perf_counter() - started, state, host


def _papermill(notebook, target: Path, parameters: dict, kernel: str, log_output: bool,
               kept: str, store: Path | None) -> None:
    """papermill's run of ``notebook`` into ``target`` (its folder the working directory),
    started again when the kernel dies while starting; a failure as one RuntimeError."""
    import papermill
    from nbclient.exceptions import DeadKernelError

    from ldp_companion.execution.notebook_engine import ENGINE

    stem = target.stem
    try:
        for attempt in range(_KERNEL_START_TRIES):
            try:
                papermill.execute_notebook(
                    notebook, str(target), parameters=parameters, kernel_name=kernel,
                    engine_name=ENGINE, cwd=str(target.parent), progress_bar=False,
                    log_output=log_output,
                    # quiet the kernel's "TCP without encryption" warning
                    extra_arguments=["--IPKernelApp.log_level=ERROR",
                                     *processes.kernel_arguments()])
                return
            except RuntimeError as err:  # the kernel did not start: no cell has run yet
                if _KERNEL_START_FAILED not in str(err) or attempt + 1 == _KERNEL_START_TRIES:
                    raise
                print(f"[{stem}] the kernel did not start ({err}); retrying", flush=True)
    except papermill.PapermillExecutionError as err:
        raise RuntimeError(f"chapter {stem} failed in cell {err.exec_count}: "
                           f"{err.ename}: {one_line(err.evalue, 300)} "
                           f"({kept})") from None
    except DeadKernelError:
        raise RuntimeError(_kernel_died(stem, target, kept, store)) from None


def _kernel_died(stem: str, target: Path, kept: str, store: Path | None) -> str:
    """The one-line message of a kernel that died: the chapter, the cell it was running,
    what a rerun does."""
    cell = _running_cell(target)
    again = (f"run the same command again to resume: the finished grid cells are kept in "
             f"{store}" if store is not None else
             "run it again (this run kept no grid store, so it starts over)")
    return (f"chapter {stem}: the kernel died in {cell} (killed, or out of memory); {again} "
            f"({kept})")


def _running_cell(notebook: Path) -> str:
    """``cell 7 (`first line`)``: the last cell papermill started in ``notebook``."""
    import nbformat

    try:
        nb = nbformat.read(notebook, as_version=4)
    except (OSError, ValueError):
        return "an unknown cell"
    started = [c for c in nb.cells if c.cell_type == "code"
               and c.metadata.get("papermill", {}).get("start_time")]
    if not started:
        return "its first cell"
    cell = started[-1]  # a kernel that died before replying gave it no number: the next one
    number = cell.get("execution_count") or 1 + max(
        [c.get("execution_count") or 0 for c in started[:-1]], default=0)
    line = next((l for l in cell.source.splitlines() if l.strip()), "")
    return f"cell {number} (`{line[:60]}`)"


def _note_reuse(grids: Path, store: Path | None, stem: str) -> None:
    """One line when the run read finished grid cells back from ``store`` (bar or not)."""
    if store is None:
        return
    from ldp_companion.verdicts import run_records

    runs = [g for cell in run_records.read(grids).values() for g in cell]
    total = sum(g.get("cells", 0) for g in runs)
    reused = total - sum(g.get("computed", 0) for g in runs)
    if reused > 0:
        print(f"[{stem}] resumed: {reused} of {total} grid cells read back from {store}",
              flush=True)


def _write_record(path: Path, record: dict) -> None:
    """The run record, with when it finished, the versions and ``from_cache`` false."""
    record = {**record, "finished": datetime.now(UTC).isoformat(timespec="seconds"),
              "versions": versions(), "from_cache": False}
    keys = ("name", "parameters", "resolved", "seconds", "finished", "machine", "versions",
            "source", "cache_key", "from_cache")
    write_atomic(path, json.dumps({k: record[k] for k in keys}, indent=1))


class FolderInUse(RuntimeError):
    """Another run or build holds the output folder (:func:`folder_lock`)."""


#: The lock of an output folder, and the file saying who holds it.
_LOCK, _HOLDER = ".ldp-companion.lock", ".ldp-companion.holder"
_HELD: set[Path] = set()  # the folders this process holds


def output_folder(out_dir) -> Path:
    """``out_dir``, resolved and created; ValueError naming it when it is a file or cannot be
    written (checked before any work)."""
    out_dir = Path(out_dir).expanduser().resolve()
    if out_dir.exists() and not out_dir.is_dir():
        raise ValueError(f"output folder {out_dir} is a file, not a folder: pass another --out")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=out_dir):
            pass
    except OSError as err:
        raise ValueError(f"output folder {out_dir} cannot be written ({err.strerror or err}): "
                         "pass another --out") from None
    return out_dir


def _holder(out_dir: Path) -> str:
    """Who holds ``out_dir``'s lock, as its holder file says."""
    try:
        who = json.loads((out_dir / _HOLDER).read_text())
        return f"pid {who['pid']} ({who['command']}, since {who['since']})"
    except (OSError, ValueError, KeyError, TypeError):
        return "another process"


def _command() -> str:
    """This process's command line, as typed (``python -m ldp_companion run ...``)."""
    first = Path(sys.argv[0]) if sys.argv and sys.argv[0] else Path("python")
    head = "python -m ldp_companion" if first.name == "__main__.py" and \
        first.parent.name == "ldp_companion" else first.name
    return " ".join([head, *sys.argv[1:]])


@contextlib.contextmanager
def folder_lock(out_dir: Path):
    """Hold ``out_dir`` for one run or build: a second one (another process) is refused with
    :class:`FolderInUse` naming the folder and its holder. Within the holding process the lock
    is reentrant (``execute_book`` runs its summary pages under its own)."""
    from filelock import FileLock, Timeout

    out_dir = Path(out_dir).resolve()
    if out_dir in _HELD:
        yield
        return
    lock = FileLock(out_dir / _LOCK)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        raise FolderInUse(f"{out_dir} is in use by {_holder(out_dir)}: wait for that run to "
                          "finish, or pass another --out") from None
    _HELD.add(out_dir)
    try:
        write_atomic(out_dir / _HOLDER, json.dumps({
            "pid": os.getpid(), "command": _command(),
            "since": datetime.now(UTC).isoformat(timespec="seconds")}))
        yield
    finally:
        _HELD.discard(out_dir)
        lock.release()


_STAGING = ".staging-"


def _staging(out_dir: Path, stem: str) -> Path:
    """A fresh staging folder for a run of ``stem`` in ``out_dir`` (one left by a killed run
    of it kept as its failed run: the lock says none is running)."""
    _keep_killed(out_dir, stem)
    work = out_dir / f"{_STAGING}{stem}-{os.getpid()}"
    work.mkdir()
    return work


#: A chapter's records beside its notebook: a published run replaces them, removing those it
#: did not write (its run record only when it writes one).
_RECORDS = ("ledger", "coverage", "data", "reads", "grids")


def _replace_tree(src: Path, dst: Path) -> None:
    """``dst`` replaced by the folder ``src`` (removed when there is no ``src``), by renames."""
    old = dst.with_name(f".{dst.name}.old-{os.getpid()}")
    if dst.exists():
        os.replace(dst, old)
    if src.exists():
        dst.parent.mkdir(parents=True, exist_ok=True)
        os.replace(src, dst)
    shutil.rmtree(old, ignore_errors=True)


def _publish(work: Path, out_dir: Path, stem: str) -> Path:
    """Move a successful run's outputs from ``work`` into ``out_dir``: its figure data folder
    replaced whole, the records it did not write removed, every other file moved over the
    old one, the notebook and its run record last; return the notebook."""
    _replace_tree(work / figure_data.FOLDER / stem, out_dir / figure_data.FOLDER / stem)
    for kind in _RECORDS:
        if not (work / f"{stem}.{kind}.json").exists():
            (out_dir / f"{stem}.{kind}.json").unlink(missing_ok=True)
    last = [work / f"{stem}.ipynb", work / f"{stem}.run.json"]
    files = sorted(p for p in work.rglob("*") if p.is_file() and p not in last)
    for path in files + [p for p in last if p.exists()]:
        dest = out_dir / path.relative_to(work)
        dest.parent.mkdir(parents=True, exist_ok=True)
        os.replace(path, dest)
    shutil.rmtree(_failed(out_dir, stem), ignore_errors=True)  # superseded
    return out_dir / f"{stem}.ipynb"


def _cleared(out_dir: Path, stem: str) -> Path:
    """``out_dir`` without the records and figure data of an earlier run of ``stem``, which
    a run working in the folder itself writes afresh."""
    for kind in ("data", "reads", "grids"):
        (out_dir / f"{stem}.{kind}.json").unlink(missing_ok=True)
    shutil.rmtree(out_dir / figure_data.FOLDER / stem, ignore_errors=True)
    return out_dir


def _failed(out_dir: Path, stem: str) -> Path:
    """The folder that keeps the last failed run of ``stem``."""
    return out_dir / f"{stem}.failed"


def _discard(work: Path, out_dir: Path, stem: str) -> bool:
    """Remove the staging folder ``work``; a failed run's (it holds a notebook) replaces the
    folder :func:`_failed`. Returns whether it was kept."""
    kept = (work / f"{stem}.ipynb").exists()
    if kept:
        _replace_tree(work, _failed(out_dir, stem))
    shutil.rmtree(work, ignore_errors=True)
    return kept


def _keep_killed(out_dir: Path, stem: str | None = None) -> None:
    """Keep the staging folders of killed runs in ``out_dir`` (of ``stem``, or of every
    chapter) as their failed runs (:func:`_failed`, removed when a run succeeds), saying so."""
    for old in sorted(out_dir.glob(f"{_STAGING}*")):
        found = re.fullmatch(rf"{re.escape(_STAGING)}(.+)-\d+", old.name)
        if found and stem in (None, found.group(1)) and _discard(old, out_dir, found.group(1)):
            print(f"[{found.group(1)}] a killed run's partial outputs are in "
                  f"{_failed(out_dir, found.group(1))} until a run of it succeeds", flush=True)


def _jsonable(values: dict) -> dict:
    """``values`` with numpy scalars and tuples turned into JSON types (others as text)."""
    return json.loads(json.dumps(values, default=lambda v: v.tolist() if hasattr(v, "tolist")
                                 else str(v)))


def _hide_injected_parameters(notebook: Path) -> None:
    """Tag papermill's injected-parameters cell ``remove-cell``: the page's parameter table
    already shows the values in force (its "this run" column); the cell stays in the
    downloadable notebook."""
    import nbformat

    nb = nbformat.read(notebook, as_version=4)
    for cell in nb.cells:
        tags = cell.metadata.get("tags", [])
        if "injected-parameters" in tags and "remove-cell" not in tags:
            cell.metadata["tags"] = [*tags, "remove-cell"]
    nbformat.write(nb, notebook)


def package_sources(source: Path, package: Path = REPO / "ldp_companion") -> list[Path]:
    """The package source chapter page ``source`` can run (:func:`~ldp_companion.execution.
    reach.reachable`): the modules its code imports, the runner's, and those they import in
    turn; never the book's edition or the command line, nor a module no import reaches."""
    return reachable(source, package)


def data_fingerprint(root: Path | None = None, depth: int = 3) -> list[str]:
    """What the data folder holds, as far as a run can tell cheaply: the path, size and
    modification time of every file and folder down to ``depth`` levels under ``root`` (the
    data folder of :func:`ldp_companion.data.datasets.cache_dir` by default).

    Adding, removing or replacing a data file (say, the CIFAR-10 batches that turn a chapter's
    paper panels on) changes it; a folder deeper than ``depth`` shows through its parent's
    modification time when entries are added to or removed from it."""
    if root is None:
        from ldp_companion.data.datasets import cache_dir

        root = cache_dir()
    root = Path(root)
    out = [str(root.resolve())]

    def walk(folder: Path, level: int) -> None:
        try:
            entries = sorted(folder.iterdir())
        except OSError:
            return
        for entry in entries:
            try:
                st = entry.stat()
            except OSError:
                continue
            out.append(f"{entry.relative_to(root).as_posix()}:{st.st_size}:{st.st_mtime_ns}")
            if entry.is_dir() and level < depth:
                walk(entry, level + 1)

    walk(root, 1)
    return out


#: The chapters' recorded runs at the paper's scale (:mod:`~ldp_companion.execution.
#: paper_scale`), one folder per chapter; a page shows its record beside its own verdicts.
PAPER_RECORDS = REPO / "benchmarks" / "results" / "paper-runs"


def cache_key(source: Path, parameters: dict, package: Path = REPO / "ldp_companion",
              data: Path | None = None) -> str:
    """Hash of what a chapter's run depends on: its source, its parameters, the package source
    it can import (:func:`package_sources`), the installed versions, the data folder's
    contents (:func:`data_fingerprint` of ``data``, by default the data folder in use) and
    the chapter's paper-scale record (:data:`PAPER_RECORDS`), which its page shows."""
    h = hashlib.sha256()
    h.update(Path(source).read_bytes())
    h.update(json.dumps(parameters, sort_keys=True, default=str).encode())
    for path in package_sources(source, package):
        h.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes())
    h.update(json.dumps(versions(), sort_keys=True).encode())
    h.update("\n".join(data_fingerprint(data)).encode())
    record = PAPER_RECORDS / Path(source).stem / "record.json"  # shown beside the run
    h.update(record.read_bytes() if record.is_file() else b"")
    return h.hexdigest()


def _cached(source: Path, out_dir: Path, key: str) -> dict | None:
    """The run record of a previous execution with the same key, if its outputs are all there."""
    stem = source.stem
    try:
        record = read_json(out_dir / f"{stem}.run.json", "run record")
    except OSError:
        return None
    except CorruptFile as err:
        print(f"[{stem}] {err}; executing it again", flush=True)
        return None
    if not isinstance(record, dict) or record.get("cache_key") != key \
            or not (out_dir / f"{stem}.ipynb").is_file():
        return None
    return record


def execute_book(profile: str = "default", seed: int = 0, out_dir: Path = GENERATED,
                 root: Path = REPO, *, force: bool = False, jobs: int | None = None,
                 summary_pages=SUMMARY_PAGES, resolve=None) -> dict[str, str]:
    """Execute every chapter at ``profile`` (in parallel, largest first, skipping those whose
    :func:`cache_key` is unchanged unless ``force``), then the summary pages that read them.

    Parameters
    ----------
    jobs : int, optional
        Chapters executed at once (default: the number of cores).
    resolve : callable, optional
        ``resolve(chapter, {"profile": ..., "seed": ...})``: every parameter value in force,
        for the run record and the provenance lines' parameters hash (the command line passes
        the chapters' own resolution, which this floor cannot import). Default: profile and
        seed alone.

    Returns
    -------
    dict
        ``chapter -> "executed" | "cache"``.

    Raises
    ------
    FolderInUse
        Another build or run holds ``out_dir`` (two ``make book`` in one tree).
    """
    out_dir = output_folder(out_dir)
    with folder_lock(out_dir):
        _keep_killed(out_dir)  # staging folders left by a killed build
        return _execute_book(profile, seed, out_dir, root, force=force, jobs=jobs,
                             summary_pages=summary_pages, resolve=resolve)


def _execute_book(profile: str, seed: int, out_dir: Path, root: Path, *, force: bool,
                  jobs: int | None, summary_pages, resolve=None) -> dict[str, str]:
    """:func:`execute_book`'s work, under ``out_dir``'s lock (its chapters' workers run with
    ``lock=False``; its summary pages take the lock again in this process)."""
    from concurrent.futures import ProcessPoolExecutor, as_completed

    sources = chapters(None if root == REPO else root)
    names = {s.stem for s in sources} | set(summary_pages)
    for stale in [*out_dir.glob("*.ipynb"), *out_dir.glob("*.json")]:
        if stale.name.split(".")[0] not in names:  # a chapter that no longer exists
            stale.unlink()
    params = {"profile": profile, "seed": seed}
    status, todo = {}, []
    for src in sources:
        key = cache_key(src, params, root / "ldp_companion")
        record = None if force else _cached(src, out_dir, key)
        if record is None:
            todo.append((src, key))
            continue
        record["from_cache"] = True
        shutil.rmtree(_failed(out_dir, src.stem), ignore_errors=True)  # the good run stands
        (out_dir / f"{src.stem}.run.json").write_text(json.dumps(record, indent=1))
        status[src.stem] = "cache"
        print(f"[{src.stem}] from the cache (run of {record['finished']}, "
              f"{record['seconds']:.0f} s, profile {record['parameters'].get('profile')})",
              flush=True)
    todo.sort(key=lambda item: -_expected_seconds(item[0], out_dir))
    failures = []
    workers = max(1, min(jobs or os.cpu_count() or 1, len(todo) or 1))
    started = time.perf_counter()
    # each chapter's grids use every core (n_jobs None) unless JOBS_ENV says otherwise: a
    # share of cores per chapter left the longest chapter alone on one core at the end
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = {pool.submit(execute, src, out_dir, params, cache_key=key, lock=False,
                               resolved=resolve(src.stem, params) if resolve else None): src
                   for src, key in todo}
        for future in as_completed(futures):
            src = futures[future]
            try:
                future.result()
                status[src.stem] = "executed"
            except RuntimeError as err:
                failures.append(str(err))
    if failures:
        raise RuntimeError("; ".join(failures))
    wall = time.perf_counter() - started
    _record_build(out_dir, status, wall, workers, profile)
    print(f"chapters: {wall:.0f} s ({len(todo)} executed on {workers} workers, "
          f"{len(sources) - len(todo)} from the cache)", flush=True)
    if root == REPO:
        _ship_times(out_dir, [k for k, v in status.items() if v == "executed"], profile)
    for page in summary_pages:  # their provenance names the build's profile and seed
        execute(root / "book" / f"{page}.md", out_dir, record=False, resolved=params,
                stage=False)
    return status


def _record_build(out_dir: Path, status: dict, wall: float, workers: int, profile: str):
    """``build.json``: the wall time of this build's chapter execution, the chapters it
    executed and those it took from the cache (the Reproducibility page shows it)."""
    record = {"wall_seconds": round(wall, 1), "workers": workers, "cores": os.cpu_count(),
              "profile": profile,
              "executed": sorted(k for k, v in status.items() if v == "executed"),
              "cache": sorted(k for k, v in status.items() if v == "cache"),
              "finished": datetime.now(UTC).isoformat(timespec="seconds")}
    (out_dir / "build.json").write_text(json.dumps(record, indent=1))


#: The chapters' default-profile run times shipped with the repository, so that a fresh clone
#: also starts the longest chapter first (refreshed by hand from :data:`BUILD_TIMES`:
#: ``cp _build/chapter-times.json benchmarks/results/``).
CHAPTER_TIMES = REPO / "benchmarks" / "results" / "chapter-times.json"
#: The same record for this checkout's last default build; outside the tracked files, so that
#: a build leaves ``git status`` clean and its provenance says so.
BUILD_TIMES = REPO / "_build" / "chapter-times.json"


def _expected_seconds(source: Path, out_dir: Path) -> float:
    """How long the chapter took last time: its run record, else this checkout's build times
    (:data:`BUILD_TIMES`), else the shipped times (:data:`CHAPTER_TIMES`), else its size in
    bytes / 1000."""
    try:
        return float(json.loads((out_dir / f"{source.stem}.run.json").read_text())["seconds"])
    except (OSError, ValueError, KeyError):
        pass
    for record in (BUILD_TIMES, CHAPTER_TIMES):
        try:
            return float(json.loads(record.read_text())["seconds"][source.stem])
        except (OSError, ValueError, KeyError):
            continue
    return source.stat().st_size / 1000


def _ship_times(out_dir: Path, executed: list[str], profile: str) -> None:
    """Keep the default-profile run times of the chapters this build executed in
    :data:`BUILD_TIMES`."""
    if profile != "default" or not executed:
        return
    try:
        times = json.loads(BUILD_TIMES.read_text())["seconds"]
    except (OSError, ValueError, KeyError):
        times = {}
    for stem in executed:
        times[stem] = json.loads((out_dir / f"{stem}.run.json").read_text())["seconds"]
    BUILD_TIMES.parent.mkdir(parents=True, exist_ok=True)
    BUILD_TIMES.write_text(json.dumps(
        {"profile": "default", "machine": machine(), "seconds": dict(sorted(times.items()))},
        indent=1) + "\n")


def build_package(root: Path = REPO) -> list[Path]:
    """Build the wheel and the source archive into ``_build/package`` (the Reading and
    rerunning page offers both for download, so a downloaded notebook finds its package).

    Uses the virtual environment's own setuptools (``--no-isolation``): no download."""
    out = root / "_build" / "package"
    shutil.rmtree(out, ignore_errors=True)
    cmd = [sys.executable, "-m", "build", "--wheel", "--sdist", "--no-isolation",
           "--outdir", str(out), str(root)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"building the package failed:\n{done.stdout[-2000:]}"
                           f"{done.stderr[-2000:]}")
    files = sorted(out.iterdir())
    print("package: " + ", ".join(f"{f.name} ({f.stat().st_size // 1024} KiB)" for f in files))
    return files


#: Set to the book's public repository (``https://github.com/owner/name``) to turn on the
#: repository and issue buttons of every page; :data:`LAUNCH_ENV` (a BinderHub URL) adds launch
#: buttons. Off by default: the offline build links nothing outside the machine.
REPOSITORY_ENV = "LDP_COMPANION_REPOSITORY_URL"
LAUNCH_ENV = "LDP_COMPANION_BINDERHUB_URL"


def public_config(config: dict, repository_url: str | None, binderhub_url: str | None = None,
                  branch: str = "main") -> dict:
    """``config`` (the parsed ``_config.yml``) with the buttons of a public deployment: the
    repository and issue buttons when ``repository_url`` is given, launch buttons when
    ``binderhub_url`` is too. Without ``repository_url`` it is ``config`` unchanged."""
    import copy

    if not repository_url:
        return config
    if not re.fullmatch(r"https://[\w.-]+/[\w.-]+/[\w.-]+/?", repository_url):
        raise ValueError(f"{REPOSITORY_ENV} must be a repository URL such as "
                         f"https://github.com/owner/name, got {repository_url!r}")
    out = copy.deepcopy(config)
    out["repository"] = {"url": repository_url.rstrip("/"), "branch": branch,
                         "path_to_book": ""}
    out.setdefault("html", {}).update(use_repository_button=True, use_issues_button=True)
    # _config.yml sets the theme's options itself, which replaces what Jupyter Book derives
    # from the keys above: the buttons must be set there too
    theme = out.setdefault("sphinx", {}).setdefault("config", {}).setdefault(
        "html_theme_options", {})
    theme.update(repository_url=repository_url.rstrip("/"), repository_branch=branch,
                 path_to_docs="", use_repository_button=True, use_issues_button=True)
    if binderhub_url:
        out.setdefault("launch_buttons", {})["binderhub_url"] = binderhub_url
        theme["launch_buttons"] = {"binderhub_url": binderhub_url,
                                   "notebook_interface": "classic"}
    return out


def _config_file(root: Path) -> Path:
    """The configuration the build uses: ``_config.yml``, or a copy with the public buttons
    when :data:`REPOSITORY_ENV` is set (written to ``_build/_config.public.yml``)."""
    import yaml

    source = root / "_config.yml"
    url = os.environ.get(REPOSITORY_ENV)
    if not url:
        return source
    config = public_config(yaml.safe_load(source.read_text()), url, os.environ.get(LAUNCH_ENV))
    target = root / "_build" / "_config.public.yml"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True))
    return target


def build_site(root: Path = REPO) -> Path:
    """Build the package, then render the executed notebooks with Jupyter Book (warnings are
    errors). With :data:`REPOSITORY_ENV` set, the pages get repository and issue buttons."""
    build_package(root)
    cmd = [str(Path(sys.executable).parent / "jupyter-book"), "build", str(root), "-W", "-n",
           "--keep-going", "--config", str(_config_file(root))]
    print("$", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)
    return root / "_build" / "html" / "index.html"
