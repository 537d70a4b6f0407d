"""Execute chapters with papermill and build the book.

Chapters are MyST-markdown notebooks (jupytext) in ``notebooks/``; the book's summary pages
(verdicts, reproducibility) are notebooks in ``book/``. :func:`execute` converts one to a
notebook, runs it with papermill in its output folder (where it writes its ledger), and
records the run (profile, seed, parameters, time, versions, the git commit and the pinned
versions' hash) as ``<name>.run.json``.
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

from ldp_companion import figure_data
from ldp_companion.grid_store import STORE_ENV
from ldp_companion.ledger import LEDGER_DIR_ENV
from ldp_companion.numbering import CHAPTER_ENV
from ldp_companion.profiles import PROFILES

__all__ = ["REPO", "chapters", "find_chapter", "execute", "execute_book", "build_site",
           "versions", "machine", "source_state", "GENERATED"]

REPO = Path(__file__).resolve().parent.parent
GENERATED = REPO / "book" / "generated"
SUMMARY_PAGES = ("verdicts", "reconstructions", "reproducibility", "course", "rerun")
VERSIONED = ("ldp_companion", "numpy", "scipy", "pandas", "matplotlib", "seaborn", "pooch",
             "scikit-learn", "joblib", "torch", "papermill", "jupyter-book", "sphinx")


#: The chapter sources as installed with the package (in the repository a link to
#: ``notebooks/``), so that the command line works from a wheel.
CHAPTERS = Path(__file__).resolve().parent / "chapters"


def chapters(root: Path | None = None) -> list[Path]:
    """Chapter and appendix sources, in book order: ``root/notebooks/*.md``, by default the
    ones installed with the package (the repository's ``notebooks/``)."""
    folder = CHAPTERS if root is None else Path(root) / "notebooks"
    return sorted(folder.glob("*.md"))


def find_chapter(name: str, root: Path | None = None) -> Path:
    """The chapter whose file name matches ``name`` (``tldp``, ``03``, ``03-pm-three-outputs``)."""
    found = [p for p in chapters(root) if p.stem == name]
    found = found or [p for p in chapters(root) if name in p.stem.split("-", 1) or
                      p.stem.startswith(name + "-") or p.stem.split("-", 1)[-1].startswith(name)]
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
            resolved: dict | None = None, store: Path | None = None) -> Path:
    """Run one MyST notebook with papermill; return the executed ``.ipynb``.

    Parameters
    ----------
    source : Path
        ``.md`` (jupytext MyST) or ``.ipynb`` notebook.
    out_dir : Path
        Folder for the executed notebook, its ledger and its ``.run.json``; the notebook runs
        with this folder as its working directory.
    parameters : dict
        papermill parameters (``profile``, ``seed`` and the chapter's knobs).
    record : bool
        Write ``<name>.run.json`` (the Reproducibility page lists these).
    cache_key : str, optional
        :func:`cache_key` of this run, kept in the record so that ``execute_book`` can reuse it.
    prelude : str, optional
        Code run before the chapter's first cell, in a cell the page does not show (the
        mutation harness applies a mutant with it, :mod:`ldp_companion.mutation`).
    resolved : dict, optional
        Every parameter's value in force (the profile's values filled in), kept in the record
        beside the ``parameters`` passed.
    store : Path, optional
        Folder where the chapter's experiment grids keep their finished cells and find them
        again (:mod:`ldp_companion.grid_store`; ``run`` gives ``OUT/grid-store``). Without
        it the kernel runs with no store, whatever the environment says: a build, a test or
        a mutant (whose change no digest of the source sees) never reads a stored cell.
    """
    import jupytext
    import papermill

    parameters = dict(parameters or {})
    profile = parameters.get("profile")
    if profile is not None and profile not in PROFILES:
        raise ValueError(f"profile must be one of {PROFILES}, got {profile!r}")
    out_dir = Path(out_dir).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / f"{Path(source).stem}.ipynb"
    notebook = jupytext.read(source)
    if prelude:
        import nbformat

        notebook.cells.insert(0, nbformat.v4.new_code_cell(
            prelude, metadata={"tags": ["remove-cell", "prelude"]}))
    outer = {k: os.environ.get(k) for k in (LEDGER_DIR_ENV, CHAPTER_ENV, figure_data.RUN_ENV,
                                            STORE_ENV)}
    os.environ[LEDGER_DIR_ENV] = str(out_dir)
    os.environ[CHAPTER_ENV] = Path(source).stem  # the kernel numbers "Figure 3.2" with it
    for kind in ("data", "reads", "grids"):  # the kernel writes them afresh (run_records)
        (out_dir / f"{Path(source).stem}.{kind}.json").unlink(missing_ok=True)
    shutil.rmtree(out_dir / figure_data.FOLDER / Path(source).stem, ignore_errors=True)
    state, host = source_state(), machine()
    os.environ[figure_data.RUN_ENV] = figure_data.run_context(
        _jsonable(parameters), _jsonable(resolved or parameters), state, host, source.stem)
    print(f"[{source.stem}] executing with {parameters or 'no parameters'} ...", flush=True)
    started = time.perf_counter()
    os.environ.pop(STORE_ENV, None)  # the kernel inherits only the store asked for
    if store is not None:
        os.environ[STORE_ENV] = str(store)
    try:
        for attempt in range(_KERNEL_START_TRIES):
            try:
                papermill.execute_notebook(notebook, str(target), parameters=parameters,
                                           kernel_name=kernel, cwd=str(out_dir),
                                           progress_bar=False, log_output=log_output,
                                           # quiet the kernel's "TCP without encryption" warning
                                           extra_arguments=["--IPKernelApp.log_level=ERROR"])
                break
            except RuntimeError as err:  # the kernel did not start: no cell has run yet
                if _KERNEL_START_FAILED not in str(err) or attempt + 1 == _KERNEL_START_TRIES:
                    raise
                print(f"[{source.stem}] the kernel did not start ({err}); retrying", flush=True)
    except papermill.PapermillExecutionError as err:
        raise RuntimeError(f"chapter {source.stem} failed in cell {err.exec_count}: "
                           f"{err.ename}: {err.evalue} (executed notebook: {target})") from None
    finally:  # this process's environment as it was: the settings were the kernel's
        for key, value in outer.items():
            os.environ.pop(key, None)
            if value is not None:
                os.environ[key] = value
    seconds = time.perf_counter() - started
    _hide_injected_parameters(target)
    print(f"[{source.stem}] done in {seconds:.1f} s (profile {profile or 'none'}) -> {target}",
          flush=True)
    if not record:
        return target
    record = {"name": source.stem, "parameters": parameters,
              "resolved": _jsonable(resolved or parameters), "seconds": round(seconds, 2),
              "finished": datetime.now(timezone.utc).isoformat(timespec="seconds"),
              "machine": host, "versions": versions(), "source": state,
              "cache_key": cache_key, "from_cache": False}
    (out_dir / f"{source.stem}.run.json").write_text(json.dumps(record, indent=1))
    return target


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
    """The package source a chapter can depend on: every shared module, and of the chapter
    packages (the subpackages with a ``params.py``) only those the chapter imports."""
    text = Path(source).read_text()
    chapter_packages = {p.parent for p in package.glob("*/params.py")}
    out = []
    for path in sorted(package.rglob("*.py")):
        owner = next((c for c in chapter_packages if c in path.parents), None)
        if owner is None or f"ldp_companion.{owner.name}" in text or \
                f"ldp_companion import {owner.name}" in text:
            out.append(path)
    return out


def data_fingerprint(root: Path | None = None, depth: int = 3) -> list[str]:
    """What the data folder holds, as far as a run can tell cheaply: the path, size and
    modification time of every file and folder down to ``depth`` levels under ``root`` (the
    data folder of :func:`ldp_companion.datasets.cache_dir` by default).

    Adding, removing or replacing a data file (say, the CIFAR-10 batches that turn a chapter's
    paper panels on) changes it; a folder deeper than ``depth`` shows through its parent's
    modification time when entries are added to or removed from it."""
    if root is None:
        from ldp_companion.datasets import cache_dir

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


def cache_key(source: Path, parameters: dict, package: Path = REPO / "ldp_companion",
              data: Path | None = None) -> str:
    """Hash of what a chapter's run depends on: its source, its parameters, the package source
    it can import (:func:`package_sources`), the installed versions and the data folder's
    contents (:func:`data_fingerprint` of ``data``, by default the data folder in use)."""
    h = hashlib.sha256()
    h.update(Path(source).read_bytes())
    h.update(json.dumps(parameters, sort_keys=True, default=str).encode())
    for path in package_sources(source, package):
        h.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes())
    h.update(json.dumps(versions(), sort_keys=True).encode())
    h.update("\n".join(data_fingerprint(data)).encode())
    return h.hexdigest()


def _cached(source: Path, out_dir: Path, key: str) -> dict | None:
    """The run record of a previous execution with the same key, if its outputs are all there."""
    stem = source.stem
    try:
        record = json.loads((out_dir / f"{stem}.run.json").read_text())
    except (OSError, ValueError):
        return None
    if record.get("cache_key") != key or not (out_dir / f"{stem}.ipynb").is_file():
        return None
    return record


def execute_book(profile: str = "default", seed: int = 0, out_dir: Path = GENERATED,
                 root: Path = REPO, *, force: bool = False, jobs: int | None = None,
                 summary_pages=SUMMARY_PAGES) -> dict[str, str]:
    """Execute every chapter at ``profile`` (in parallel, largest first, skipping those whose
    :func:`cache_key` is unchanged unless ``force``), then the summary pages that read them.

    Parameters
    ----------
    jobs : int, optional
        Chapters executed at once (default: the number of cores).

    Returns
    -------
    dict
        ``chapter -> "executed" | "cache"``.
    """
    from concurrent.futures import ProcessPoolExecutor, as_completed

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
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
        futures = {pool.submit(execute, src, out_dir, params, cache_key=key): src
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
    _record_build(out_dir, status, time.perf_counter() - started, workers, profile)
    if root == REPO:
        _ship_times(out_dir, [k for k, v in status.items() if v == "executed"], profile)
    for page in summary_pages:
        execute(root / "book" / f"{page}.md", out_dir, record=False)
    return status


def _record_build(out_dir: Path, status: dict, wall: float, workers: int, profile: str):
    """``build.json``: the wall time of this build's chapter execution, the chapters it
    executed and those it took from the cache (the Reproducibility page shows it)."""
    record = {"wall_seconds": round(wall, 1), "workers": workers, "cores": os.cpu_count(),
              "profile": profile,
              "executed": sorted(k for k, v in status.items() if v == "executed"),
              "cache": sorted(k for k, v in status.items() if v == "cache"),
              "finished": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    (out_dir / "build.json").write_text(json.dumps(record, indent=1))


#: The chapters' default-profile run times of the last build, kept in the repository so that
#: a fresh clone also starts the longest chapter first.
CHAPTER_TIMES = REPO / "benchmarks" / "results" / "chapter-times.json"


def _expected_seconds(source: Path, out_dir: Path) -> float:
    """How long the chapter took last time: its run record, else the shipped times
    (:data:`CHAPTER_TIMES`), else its size in bytes / 1000."""
    try:
        return float(json.loads((out_dir / f"{source.stem}.run.json").read_text())["seconds"])
    except (OSError, ValueError, KeyError):
        pass
    try:
        return float(json.loads(CHAPTER_TIMES.read_text())["seconds"][source.stem])
    except (OSError, ValueError, KeyError):
        return source.stat().st_size / 1000


def _ship_times(out_dir: Path, executed: list[str], profile: str) -> None:
    """Keep the default-profile run times of the chapters this build executed in
    :data:`CHAPTER_TIMES`."""
    if profile != "default" or not executed:
        return
    try:
        times = json.loads(CHAPTER_TIMES.read_text())["seconds"]
    except (OSError, ValueError, KeyError):
        times = {}
    for stem in executed:
        times[stem] = json.loads((out_dir / f"{stem}.run.json").read_text())["seconds"]
    CHAPTER_TIMES.parent.mkdir(parents=True, exist_ok=True)
    CHAPTER_TIMES.write_text(json.dumps(
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
        raise RuntimeError(f"building the package failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
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
