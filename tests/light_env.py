"""The README's light install, as a stranger makes it, built once per test session.

The freshly built wheel with its ``[run]`` extra alone, in a fresh virtual environment from the
package registry (pinned by ``constraints.txt``). The chapters that need no other extra
(:data:`LIGHT`, from the chapters' own specs) run their smoke test in it
(``tests/test_chapters.py``), so the light install's promise and the smoke checks rest on one
execution of each. It is installed once per session, for both xdist workers, in a background
process (:func:`start`, at the session's first test) that the ``light_python`` fixture
(``conftest.py``) waits for.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
from pathlib import Path

from ldp_companion.edition import book

REPO = Path(__file__).resolve().parent.parent

#: The chapters the light install runs: those whose parameters require no extra.
LIGHT = sorted(stem for stem, spec in book.PARAMS.items() if not spec.requires)

#: Variables of this environment a stranger's shell would not have (a sandbox's
#: PYTHONDONTWRITEBYTECODE too: the environment is installed without bytecode, which Python
#: writes at a module's first import)
_OURS = ("PYTHONPATH", "VIRTUAL_ENV", "LDP_COMPANION_LEDGER_DIR", "LDP_COMPANION_GRID_STORE",
         "PYTHONDONTWRITEBYTECODE")


def clean_env() -> dict[str, str]:
    """This process's environment without the variables that point into the repository."""
    return {k: v for k, v in os.environ.items() if k not in _OURS}


def run(cmd, cwd, env, timeout=900) -> subprocess.CompletedProcess:
    """Run ``cmd``; fail the test with its output's tail when it exits non-zero."""
    done = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)
    assert done.returncode == 0, (cmd, done.stdout[-2000:], done.stderr[-3000:])
    return done


def install(folder: Path, skip) -> Path:
    """Build the wheel into ``folder/dist`` and install it with ``[run]`` into a fresh venv
    ``folder/env``; return its python. ``skip(reason)`` is called when pip cannot install
    (no package registry). Bytecode is not compiled at install (``--no-compile``: 35 of the
    install's 54 s); Python compiles what a chapter imports when it imports it."""
    clean = clean_env()
    dist = folder / "dist"
    run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "-o", dist, REPO],
        REPO, clean)
    wheel = next(dist.glob("ldp_companion-*.whl"))
    env = folder / "env"
    venv.create(env, with_pip=True)
    python = env / "bin" / "python"
    done = subprocess.run([python, "-m", "pip", "install", "-q", "--no-compile",
                           "-c", REPO / "constraints.txt", f"{wheel}[run]"],
                          env=clean, capture_output=True, text=True, timeout=1800)
    if done.returncode:
        skip(f"pip could not install the wheel with [run] (no package registry?): "
             f"{done.stderr[-500:]}")
    return python


#: Markers the background install leaves in its folder: the python's path, a skip reason, or
#: a failure with its traceback.
READY, SKIPPED, FAILED = "ready", "skipped", "failed"
#: The install processes this process started (reaped by :func:`wait`).
_STARTED: list[subprocess.Popen] = []


def start(folder: Path) -> None:
    """Install into ``folder`` in a background process, unless a process of this session
    already does (the other xdist worker's, under a file lock): the tests that need it wait
    for it (:func:`wait`) and the others keep both cores busy meanwhile."""
    from filelock import FileLock

    with FileLock(folder.parent / f"{folder.name}.lock"):
        if folder.exists():
            return
        folder.mkdir()
        with open(folder / "install.log", "w") as log:
            proc = subprocess.Popen([sys.executable, __file__, str(folder)], stdout=log,
                                    stderr=subprocess.STDOUT, start_new_session=True)
        (folder / "pid").write_text(str(proc.pid))
        _STARTED.append(proc)


def wait(folder: Path, skip, timeout_s: float = 1800) -> Path:
    """The python of the install :func:`start` began in ``folder``, once it is ready;
    ``skip(reason)`` when pip could not install. Fails when the install failed or its process
    ended without a word."""
    import time

    import psutil

    deadline = time.monotonic() + timeout_s
    pid = int((folder / "pid").read_text())
    while not any((folder / m).exists() for m in (READY, SKIPPED, FAILED)):
        alive = psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
        if not alive or time.monotonic() > deadline:
            time.sleep(0.5)  # a marker written as the process ended
            if not any((folder / m).exists() for m in (READY, SKIPPED, FAILED)):
                raise AssertionError(f"the light install stopped without a word: "
                                     f"{(folder / 'install.log').read_text()[-3000:]}")
        time.sleep(0.2)
    for proc in _STARTED:
        proc.wait()  # it ends as it leaves its marker
    if (folder / SKIPPED).exists():
        skip((folder / SKIPPED).read_text())
    if (folder / FAILED).exists():
        raise AssertionError(f"the light install failed: {(folder / FAILED).read_text()}")
    return Path((folder / READY).read_text())


def _install_here(folder: Path) -> None:
    """The background process of :func:`start`: install, then leave one marker."""
    import traceback

    class Skip(Exception):
        pass

    def skip(reason):
        raise Skip(reason)

    try:
        python = install(folder, skip)
    except Skip as reason:
        (folder / SKIPPED).write_text(str(reason))
    except BaseException:  # any failure is the waiting test's to report
        (folder / FAILED).write_text(traceback.format_exc()[-3000:])
    else:
        (folder / READY).write_text(str(python))


def execute(python: Path, stem: str, out: Path, parameters: dict, prelude: str) -> Path:
    """Run chapter ``stem`` (the installed package's own source) with ``parameters`` in the
    environment of ``python``, with ``prelude`` before its first cell; the executed notebook.
    """
    out.mkdir(parents=True, exist_ok=True)
    (out / ".prelude.py").write_text(prelude)
    code = ("import json, sys; from pathlib import Path; "
            "from ldp_companion.execution import runner; "
            "out = Path(sys.argv[2]); "
            "runner.execute(runner.find_chapter(sys.argv[1]), out, json.loads(sys.argv[3]), "
            "prelude=(out / '.prelude.py').read_text())")
    run([python, "-c", code, stem, out, json.dumps(parameters)], out, clean_env())
    (out / ".prelude.py").unlink()
    return out / f"{stem}.ipynb"


if __name__ == "__main__":
    _install_here(Path(sys.argv[1]))
