"""Execute chapters with papermill and build the book.

Chapters are MyST-markdown notebooks (jupytext) in ``notebooks/``; the book's summary pages
(verdicts, reproducibility) are notebooks in ``book/``. :func:`execute` converts one to a
notebook, runs it with papermill in its output folder (where it writes its ledger), and
records the run (profile, seed, parameters, time, versions) as ``<name>.run.json``.
"""
from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
import time
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

from ldp_companion.ledger import LEDGER_DIR_ENV
from ldp_companion.profiles import PROFILES

__all__ = ["REPO", "chapters", "find_chapter", "execute", "execute_book", "build_site",
           "versions", "GENERATED"]

REPO = Path(__file__).resolve().parent.parent
GENERATED = REPO / "book" / "generated"
SUMMARY_PAGES = ("verdicts", "reconstructions", "reproducibility")
VERSIONED = ("ldp_companion", "numpy", "scipy", "pandas", "matplotlib", "seaborn", "pooch",
             "scikit-learn", "joblib", "torch", "papermill", "jupyter-book", "sphinx")


def chapters(root: Path = REPO) -> list[Path]:
    """Chapter and appendix sources, in book order (``notebooks/*.md``)."""
    return sorted((root / "notebooks").glob("*.md"))


def find_chapter(name: str, root: Path = REPO) -> Path:
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


def execute(source: Path, out_dir: Path, parameters: dict | None = None,
            kernel: str = "python3", log_output: bool = False, record: bool = True) -> Path:
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
    os.environ[LEDGER_DIR_ENV] = str(out_dir)
    print(f"[{source.stem}] executing with {parameters or 'no parameters'} ...", flush=True)
    started = time.perf_counter()
    try:
        papermill.execute_notebook(notebook, str(target), parameters=parameters,
                                   kernel_name=kernel, cwd=str(out_dir), progress_bar=False,
                                   log_output=log_output,
                                   # quiet the kernel's "TCP without encryption" warning
                                   extra_arguments=["--IPKernelApp.log_level=ERROR"])
    except papermill.PapermillExecutionError as err:
        raise RuntimeError(f"chapter {source.stem} failed in cell {err.exec_count}: "
                           f"{err.ename}: {err.evalue} (executed notebook: {target})") from None
    seconds = time.perf_counter() - started
    _hide_injected_parameters(target)
    print(f"[{source.stem}] done in {seconds:.1f} s -> {target}", flush=True)
    if not record:
        return target
    record = {"name": source.stem, "parameters": parameters, "seconds": round(seconds, 2),
              "finished": datetime.now(timezone.utc).isoformat(timespec="seconds"),
              "machine": f"{platform.machine()}, {os.cpu_count()} cores", "versions": versions()}
    (out_dir / f"{source.stem}.run.json").write_text(json.dumps(record, indent=1))
    return target


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


def execute_book(profile: str = "default", seed: int = 0, out_dir: Path = GENERATED,
                 root: Path = REPO) -> list[Path]:
    """Execute every chapter at ``profile``, then the summary pages that read their results."""
    for stale in list(out_dir.glob("*.ipynb")) + list(out_dir.glob("*.json")):
        stale.unlink()
    done = [execute(src, out_dir, {"profile": profile, "seed": seed}) for src in chapters(root)]
    done += [execute(root / "book" / f"{page}.md", out_dir, record=False)
             for page in SUMMARY_PAGES]
    return done


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


def build_site(root: Path = REPO) -> Path:
    """Build the package, then render the executed notebooks with Jupyter Book (warnings are
    errors)."""
    build_package(root)
    cmd = [str(Path(sys.executable).parent / "jupyter-book"), "build", str(root), "-W", "-n",
           "--keep-going"]
    print("$", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)
    return root / "_build" / "html" / "index.html"
