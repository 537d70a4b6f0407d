"""Faults that lose nothing: each fault a run can meet, and that it is handled.

Two runs into one folder, a failed rerun over a good run, a killed kernel or runner, corrupt
files, a full disk, a missing Chromium, a bad ``--out``, a quiet resumed run. The chapters are
tiny stand-in notebooks written here (a real chapter runs in ``tests/test_chapters.py``).
"""
from __future__ import annotations

import errno
import json
import os
import pickle
import re
import signal
import subprocess
import sys
import textwrap
import time
import warnings
from pathlib import Path

import nbformat
import numpy as np
import pytest

from ldp_companion import files
from ldp_companion.__main__ import cli
from ldp_companion.execution import grid_store, runner
from ldp_companion.execution.grid import run_grid
from ldp_companion.verdicts.coverage import load_coverage
from ldp_companion.verdicts.ledger import Ledger, load_ledgers

HEADER = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---
"""


def notebook(path: Path, parameters: str, *cells: str) -> Path:
    """A MyST notebook at ``path``: a parameters cell, then ``cells``."""
    body = [f"```{{code-cell}} ipython3\n:tags: [parameters]\n\n{parameters}\n```"]
    body += [f"```{{code-cell}} ipython3\n{textwrap.dedent(c).strip()}\n```" for c in cells]
    path.write_text(HEADER + "\n# Stand-in\n\n" + "\n\n".join(body) + "\n")
    return path


def one_error_line(capsys) -> str:
    """What the command printed on stderr, checked to be one ``error:`` line."""
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    return err


def run_cli(monkeypatch, *argv: str) -> int:
    monkeypatch.setattr("sys.argv", ["ldp-companion", *argv])
    return cli()


# --- two runs into one folder ----------------------------------------------------------------

HOLD = """
import sys, time
from ldp_companion.execution import runner
with runner.folder_lock(sys.argv[1]):
    print("held", flush=True)
    time.sleep(120)
"""


@pytest.fixture
def held(tmp_path):
    """An output folder that another process holds, as a run would."""
    out = tmp_path / "out"
    out.mkdir()
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(out)], stdout=subprocess.PIPE,
                            text=True)
    assert proc.stdout.readline().strip() == "held"
    yield out, proc
    proc.kill()
    proc.wait()
    proc.stdout.close()


def test_a_second_run_into_a_held_folder_is_refused_before_it_touches_anything(
        held, capsys, monkeypatch):
    out, holder = held
    (out / "A-audit.data.json").write_text("{}")  # the first run's records, left alone
    (out / "figdata" / "A-audit").mkdir(parents=True)
    (out / "figdata" / "A-audit" / "figure-A-1.csv").write_text("x\n1\n")
    assert run_cli(monkeypatch, "run", "audit", "-p", "profile", "smoke", "--out",
                   str(out)) == 2
    err = one_error_line(capsys)
    assert str(out) in err and f"pid {holder.pid}" in err and "in use" in err
    assert (out / "A-audit.data.json").read_text() == "{}"
    assert (out / "figdata" / "A-audit" / "figure-A-1.csv").exists()


def test_a_second_book_build_into_a_held_folder_is_refused(held, tmp_path):
    out, holder = held
    with pytest.raises(runner.FolderInUse, match=f"pid {holder.pid}"):
        runner.execute_book("smoke", 0, out, tmp_path, summary_pages=())


def test_the_lock_is_released_after_a_run_and_a_book_build_takes_it_again_inside(tmp_path):
    """``execute_book`` holds its folder; its chapters (worker processes) and summary pages
    (this process, working in the folder itself) run under that lock."""
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "book").mkdir()
    notebook(tmp_path / "notebooks" / "01-one.md", 'profile = "default"\nseed = 0',
             "print(profile)")
    notebook(tmp_path / "book" / "summary.md", "",
             """
             from pathlib import Path
             Path("summary.txt").write_text(",".join(sorted(p.name for p in
                                                            Path(".").glob("*.run.json"))))
             """)
    out = tmp_path / "generated"
    assert runner.execute_book("smoke", 0, out, tmp_path, summary_pages=("summary",),
                               jobs=1) == {"01-one": "executed"}
    assert (out / "summary.txt").read_text() == "01-one.run.json"
    assert not list(out.glob(".staging-*"))
    with runner.folder_lock(out):  # released: this process takes it at once
        pass


# --- a failed rerun over a good run ----------------------------------------------------------

WRITER = (
    """
    import pandas as pd
    from ldp_companion.execution import figure_data
    from ldp_companion.verdicts import run_records
    from ldp_companion.verdicts.coverage import Item, PaperItems
    from ldp_companion.verdicts.ledger import Ledger
    from pathlib import Path
    Path("side.txt").write_text(f"value {value}")
    run_records.update("reads", lambda r: r.update(value=value))
    ledger = Ledger("05-stand", refs={"c": "Lemma 1"})
    ledger.close("c", "one equals one", 1.0, float(value), atol=10)
    ledger.save()
    PaperItems("05-stand", "Stand-in",
               [Item("Lemma 1", "one lemma", "implemented", code="x.y")]).save()
    """,
    """
    frame = pd.DataFrame({"x": [1, 2], "y": [value, value]})
    print(figure_data.publish("Figure 5.1", frame, "A line."))
    """,
    """
    if fail:
        raise RuntimeError("the planned failure")
    """,
)


def outputs(out: Path) -> dict[str, bytes]:
    """Every file of the good run in ``out`` (not the lock, not a failed run) and its content."""
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*"))
            if p.is_file() and not p.name.startswith(".ldp-companion")
            and ".failed" not in p.relative_to(out).parts[0]}


def test_a_failed_rerun_leaves_the_good_run_whole_and_keeps_its_notebook(tmp_path):
    source = notebook(tmp_path / "05-stand.md", "value = 1\nfail = False", *WRITER)
    out = tmp_path / "out"
    runner.execute(source, out, {"value": 1})
    good = outputs(out)
    assert {"05-stand.ipynb", "05-stand.run.json", "05-stand.ledger.json",
            "05-stand.coverage.json", "05-stand.reads.json", "side.txt",
            "figdata/05-stand/figure-5-1.csv", "figdata/05-stand/figure-5-1.json"} <= set(good)
    with pytest.raises(RuntimeError) as failure:
        runner.execute(source, out, {"value": 2, "fail": True})
    failed = out / "05-stand.failed" / "05-stand.ipynb"
    assert str(failed) in str(failure.value) and "the planned failure" in str(failure.value)
    assert "\n" not in str(failure.value) and "previous run's outputs are left" in str(
        failure.value)
    assert failed.is_file() and "the planned failure" in failed.read_text()
    assert json.loads((failed.parent / "05-stand.reads.json").read_text()) == {"value": 2}
    assert outputs(out) == good  # nothing lost, nothing mixed
    assert not list(out.glob(".staging-*"))
    assert load_ledgers(out)["ours"].tolist() == ["1"]
    # a good rerun replaces the run whole: new values, the failed notebook gone, links resolve
    notebook_path = runner.execute(source, out, {"value": 3})
    assert json.loads((out / "05-stand.reads.json").read_text()) == {"value": 3}
    assert (out / "side.txt").read_text() == "value 3" and not failed.exists()
    shown = "".join(o.get("text", "") for c in nbformat.read(notebook_path, 4).cells
                    if c.cell_type == "code" for o in c.get("outputs", []))
    links = re.findall(r'<a href="([^"]+)"', shown)
    assert len(links) == 2 and all((out / link).is_file() for link in links)


# --- a killed kernel, a killed runner --------------------------------------------------------

WORKERS = """
import os, subprocess, time
from joblib.externals.loky import get_reusable_executor
pool = get_reusable_executor(max_workers=2)
busy = [pool.submit(time.sleep, 300) for _ in range(2)]
while len(pool._processes) < 2:
    time.sleep(0.1)
child = subprocess.Popen(["sleep", "300"])
pids = [child.pid, *pool._processes]
with open(pid_file, "w") as handle:
    handle.write(" ".join(map(str, pids)))
"""


def gone(pids, wait_s: float = 30) -> list[int]:
    """The processes of ``pids`` still running after at most ``wait_s`` s (zombies are gone)."""
    import psutil

    deadline = time.monotonic() + wait_s
    while True:
        left = []
        for pid in pids:
            try:
                if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                    left.append(pid)
            except psutil.NoSuchProcess:
                pass
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.2)


@pytest.mark.skipif(not sys.platform.startswith("linux"),
                    reason="a dead kernel's orphans are found through Linux's child subreaper")
def test_a_killed_kernel_names_the_cell_says_a_rerun_resumes_and_leaves_no_worker(tmp_path):
    pid_file = tmp_path / "pids.txt"
    source = notebook(tmp_path / "03-stand.md", f"pid_file = {str(pid_file)!r}",
                      "x = 1", WORKERS + "\nos.kill(os.getpid(), 9)")
    with pytest.raises(RuntimeError) as died:
        runner.execute(source, tmp_path / "out", store=tmp_path / "out" / "grid-store")
    message = str(died.value)
    assert message.startswith("chapter 03-stand: the kernel died in cell 3 (`import os")
    assert "resume" in message and str(tmp_path / "out" / "grid-store") in message
    assert "\n" not in message
    assert (tmp_path / "out" / "03-stand.failed" / "03-stand.ipynb").is_file()
    pids = [int(p) for p in pid_file.read_text().split()]
    assert len(pids) == 3 and not gone(pids, 5)  # gone when execute returns


RUNNER = """
import sys
from pathlib import Path
from ldp_companion.execution import runner
runner.execute(Path(sys.argv[1]), Path(sys.argv[2]), {"hang": True})
"""


def start_hanging_run(source: Path, out: Path, pid_file: Path) -> subprocess.Popen:
    """A runner process (a session of its own) whose chapter has started its workers."""
    proc = subprocess.Popen([sys.executable, "-c", RUNNER, str(source), str(out)],
                            start_new_session=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not pid_file.exists() or len(pid_file.read_text().split()) < 3:
        if proc.poll() is not None or time.monotonic() > deadline:
            os.killpg(proc.pid, signal.SIGKILL)
            pytest.fail(f"no workers started: {proc.communicate()[1][-2000:]}")
        time.sleep(0.2)
    return proc


def hanging(tmp_path: Path) -> tuple[Path, Path]:
    """A stand-in that, with ``hang``, notes a record, starts workers and waits."""
    pid_file = tmp_path / "pids.txt"
    source = notebook(tmp_path / "03-stand.md", f"pid_file = {str(pid_file)!r}\nhang = False",
                      "from ldp_companion.verdicts import run_records\n"
                      "run_records.update('reads', lambda r: r.update(hang=hang))",
                      "if hang:\n" + textwrap.indent(WORKERS + "\ntime.sleep(300)", "    "))
    return source, pid_file


def test_a_killed_runner_leaves_no_worker_and_its_run_is_kept_by_the_next(tmp_path, capsys):
    """``kill -9`` on the run's process group: the kernel (in a session of its own) sees its
    runner gone and ends itself and every worker it started; the next run into the folder
    keeps the killed run's partial outputs as its failed run until it succeeds."""
    source, pid_file = hanging(tmp_path)
    proc = start_hanging_run(source, tmp_path / "out", pid_file)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate()
    assert not gone([int(p) for p in pid_file.read_text().split()])
    assert len(list((tmp_path / "out").glob(".staging-03-stand-*/03-stand.ipynb"))) == 1
    runner.execute(source, tmp_path / "out")
    kept = tmp_path / "out" / "03-stand.failed"
    assert f"a killed run's partial outputs are in {kept} until a run of it succeeds" in \
        capsys.readouterr().out
    assert json.loads((tmp_path / "out" / "03-stand.reads.json").read_text()) == {"hang": False}
    assert not kept.exists() and not list((tmp_path / "out").glob(".staging-*"))


def test_a_run_stopped_by_sigterm_keeps_its_partial_run_beside_the_good_one(tmp_path):
    """``timeout`` stops a run with SIGTERM: it ends its kernel and workers, keeps the partial
    notebook with its records (``benchmarks/paper_profile.py --stopped-after`` reads them)
    and leaves the good run as it was."""
    source, pid_file = hanging(tmp_path)
    out = tmp_path / "out"
    runner.execute(source, out)
    good = outputs(out)
    proc = start_hanging_run(source, out, pid_file)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 128 + signal.SIGTERM and "[03-stand] stopped by SIGTERM" in err
    assert not gone([int(p) for p in pid_file.read_text().split()])
    kept = out / "03-stand.failed"
    cells = nbformat.read(kept / "03-stand.ipynb", 4).cells
    assert cells[-1].metadata.papermill.start_time and not list(out.glob(".staging-*"))
    assert json.loads((kept / "03-stand.reads.json").read_text()) == {"hang": True}
    assert outputs(out) == good


def test_a_run_writes_its_notebook_at_its_start_and_end_not_at_every_cell(tmp_path,
                                                                          monkeypatch):
    """papermill wrote the whole notebook twice a cell; the chapters' engine writes it when
    the run starts, every few seconds, and when it ends (with every cell's output)."""
    import papermill.engines

    from ldp_companion.execution import notebook_engine

    written = []
    real = papermill.engines.write_ipynb
    monkeypatch.setattr(papermill.engines, "write_ipynb",
                        lambda nb, path, **kw: (written.append(path), real(nb, path, **kw)))
    cells = [f"print({k})" for k in range(30)]
    source = notebook(tmp_path / "03-stand.md", "x = 1", *cells)
    runner.execute(source, tmp_path / "out")
    seconds = json.loads((tmp_path / "out" / "03-stand.run.json").read_text())["seconds"]
    # start, end and one per SAVE_EVERY seconds of the run (62 with papermill's own engine)
    assert 2 <= len(written) <= 3 + seconds / notebook_engine.SAVE_EVERY, (written, seconds)
    # a print may reach the notebook as two stream messages ("14", "\n") on a busy machine
    shown = ["".join(o["text"] for o in c.outputs) for c in
             nbformat.read(tmp_path / "out" / "03-stand.ipynb", 4).cells[-30:]]
    assert shown == [f"{k}\n" for k in range(30)]
    written.clear()
    monkeypatch.setattr(notebook_engine, "SAVE_EVERY", 0.0)  # a write due at every event
    runner.execute(source, tmp_path / "again")
    assert len(written) >= 60


# --- corrupt files ---------------------------------------------------------------------------

def test_load_cell_never_returns_garbage_and_names_the_file(tmp_path):
    """Random bytes, pickles that are not cell files, and every truncation and some bit flips
    of a real cell file: each is the missing marker, with one warning naming the file."""
    rng = np.random.default_rng(43)
    path = tmp_path / "cell.pkl"
    assert grid_store.save_cell(path, {"mse": np.arange(5.0), "n": 100})
    whole = path.read_bytes()
    cases = [rng.bytes(int(n)) for n in rng.integers(0, 300, size=500)]
    cases += [b"\x80\x05" + rng.bytes(int(n)) for n in rng.integers(0, 60, size=300)]
    cases += [pickle.dumps(v) for v in (5, "x", None, [1, 2], {"a": 1})]  # parse, not cells
    cases += [b"K\x05.", b"N.", b"I1\n."]
    cases += [whole[:k] for k in range(len(whole))]
    for k in rng.integers(0, len(whole) * 8, size=200):
        flipped = bytearray(whole)
        flipped[k // 8] ^= 1 << (k % 8)
        cases.append(bytes(flipped))
    for data in cases:
        path.write_bytes(data)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert grid_store.load_cell(path) is grid_store._MISSING, data[:40]
        assert len(caught) == 1 and str(path) in str(caught[0].message), data[:40]
    path.write_bytes(whole)
    assert grid_store.load_cell(path)["n"] == 100


def _square(x, rng):
    return x * x


def test_a_corrupt_cell_is_computed_again_not_fatal(tmp_path):
    cells = [{"x": x} for x in range(3)]
    first = run_grid(_square, cells, seed=0, n_jobs=1, store=tmp_path)
    for path in sorted(tmp_path.rglob("*.pkl")):
        path.write_bytes(b"K\x05.")  # a pickle of 5: parses, but is no cell file
    with pytest.warns(UserWarning, match="unreadable"):
        assert run_grid(_square, cells, seed=0, n_jobs=1, store=tmp_path) == first


def _claims(folder: Path) -> Path:
    ledger = Ledger("01-x", refs={"c": "Lemma 1"})
    ledger.close("c", "one is one", 1.0, 1.0, atol=0.1)
    return ledger.save(folder)


def test_a_truncated_ledger_is_named_in_one_line(tmp_path, capsys, monkeypatch):
    path = _claims(tmp_path)
    path.write_bytes(path.read_bytes()[:40])
    with pytest.raises(files.CorruptFile, match=str(path)):
        load_ledgers(tmp_path)
    path.write_text('[{"not": "a claim"}]')
    with pytest.raises(ValueError, match=f"{path} is not a readable ledger"):
        load_ledgers(tmp_path)
    monkeypatch.setenv("LDP_COMPANION_LEDGER_DIR", str(tmp_path))
    assert run_cli(monkeypatch, "coverage") == 2
    assert str(path) in one_error_line(capsys)


@pytest.mark.parametrize("garbage", [b"\xff\xfe\x00garbage", b'{"chapter": "01-x"', b"[1, 2]"])
def test_a_garbage_coverage_file_is_named(tmp_path, garbage):
    path = tmp_path / "01-x.coverage.json"
    path.write_bytes(garbage)
    with pytest.raises(files.CorruptFile, match=f"{path} is not a readable coverage list"):
        load_coverage(tmp_path)


def test_a_garbage_run_record_is_named_and_counts_as_empty(tmp_path):
    from ldp_companion.verdicts import run_records

    path = tmp_path / "01-x.run.json"
    path.write_bytes(b'{"seconds": 1')
    with pytest.warns(UserWarning, match=f"{path} is not a readable run record"):
        assert run_records.read(path) == {}
    assert run_records.read(tmp_path / "absent.json") == {}  # absent: no warning


# --- a full disk -----------------------------------------------------------------------------

@pytest.fixture
def disk_fills_after(monkeypatch):
    """``fill(n)``: the writes after the first ``n`` write half their bytes, then the disk is
    full."""
    real = files._write

    def fill(n: int):
        calls = []

        def write(tmp, data):
            calls.append(tmp)
            if len(calls) <= n:
                return real(tmp, data)
            real(tmp, data[:len(data) // 2])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(tmp))

        monkeypatch.setattr(files, "_write", write)

    return fill


def test_a_full_disk_while_writing_a_cell_keeps_the_store_readable(tmp_path, disk_fills_after):
    cells = [{"x": x} for x in range(4)]
    disk_fills_after(3)  # the grid's manifest and two cells fit
    with pytest.raises(files.DiskFull, match="the disk is full: could not write .*pkl"):
        run_grid(_square, cells, seed=0, n_jobs=1, store=tmp_path)
    stored = sorted(tmp_path.rglob("*.pkl"))
    assert len(stored) == 2 and not [p for p in tmp_path.rglob("*") if p.name.endswith(".tmp")]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the earlier cells load, no warning
        assert sorted(grid_store.load_cell(p) for p in stored) == [0, 1]


def test_a_full_disk_while_writing_a_ledger_keeps_the_old_one(tmp_path, disk_fills_after):
    path = _claims(tmp_path)
    before = path.read_bytes()
    disk_fills_after(0)
    with pytest.raises(files.DiskFull, match=f"the disk is full: could not write {path}"):
        _claims(tmp_path)
    assert path.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == [
        path.name]


# --- a missing Chromium, a bad --out, a quiet resumed run ------------------------------------

@pytest.mark.parametrize("named", [None, "/nonexistent/chromium"])
def test_make_pdf_without_chromium_says_what_to_install(named, capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # no chromium on it
    if named is None:
        monkeypatch.delenv("LDP_COMPANION_CHROMIUM", raising=False)
    else:
        monkeypatch.setenv("LDP_COMPANION_CHROMIUM", named)
    assert run_cli(monkeypatch, "pdf") == 2
    assert "apt-get install -y --no-install-recommends chromium" in one_error_line(capsys)


def test_an_out_that_is_a_file_is_refused_in_one_line(tmp_path, capsys, monkeypatch):
    out = tmp_path / "taken"
    out.write_text("a file")
    assert run_cli(monkeypatch, "run", "audit", "--out", str(out)) == 2
    assert f"output folder {out} is a file" in one_error_line(capsys)
    assert run_cli(monkeypatch, "run", "audit", "--out", str(out / "below")) == 2
    assert str(out / "below") in one_error_line(capsys)


def test_a_read_only_out_is_refused_in_one_line(tmp_path, capsys, monkeypatch):
    out = tmp_path / "read-only"
    out.mkdir()
    out.chmod(0o555)
    if os.geteuid() == 0:  # root writes anyway: the folder refuses as a read-only disk would
        import tempfile

        def refuse(*args, **kwargs):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS))

        monkeypatch.setattr(tempfile, "TemporaryFile", refuse)
    try:
        assert run_cli(monkeypatch, "run", "audit", "--out", str(out)) == 2
    finally:
        out.chmod(0o755)
    assert f"output folder {out} cannot be written" in one_error_line(capsys)


GRID = """
from ldp_companion.execution.grid import run_grid
def square(x, rng):
    return x * x
print(run_grid(square, [{"x": x} for x in range(3)], seed=0, n_jobs=1))
"""


def test_a_quiet_resumed_run_says_it_read_cells_back(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("LDP_COMPANION_PROGRESS", raising=False)  # --quiet: no bars
    source = notebook(tmp_path / "02-stand.md", "", GRID)
    store = tmp_path / "out" / "grid-store"
    runner.execute(source, tmp_path / "out", store=store)
    assert "read back" not in capsys.readouterr().out
    runner.execute(source, tmp_path / "out", store=store)
    assert f"[02-stand] resumed: 3 of 3 grid cells read back from {store}" in \
        capsys.readouterr().out
