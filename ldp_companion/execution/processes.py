"""No process of a chapter's run outlives it.

A chapter's kernel starts grid workers (joblib's loky processes) and they may start their own.
Three ends of a run could leave them computing:

- the kernel dies (killed, out of memory) or the run ends while workers still run: the runner
  wraps the run in :func:`reaping`, which kills every process the run started that is still
  there when it ends, however it ends. On Linux the runner adopts the orphans of its
  descendants for the while (``PR_SET_CHILD_SUBREAPER``), so a dead kernel's workers stay
  its descendants and are found;
- the runner is stopped by SIGTERM (``timeout``, a batch scheduler): within
  :func:`stopping_on_sigterm` the signal raises :class:`Stopped`, and the run ends as on an
  error (the above, and its partial outputs kept);
- the runner itself is killed (``kill -9``, a closed terminal): the kernel runs
  :func:`watch_parent` (the runner starts it with :func:`kernel_arguments`), which, once the
  runner is gone, kills the kernel's process group: the kernel and every worker it started.
"""
from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time

__all__ = ["reaping", "kernel_arguments", "watch_parent", "Stopped", "stopping_on_sigterm"]

#: prctl options (linux/prctl.h).
_PR_SET_CHILD_SUBREAPER, _PR_GET_CHILD_SUBREAPER = 36, 37
#: Seconds between two looks at the kernel's parent, and given to a process to end on SIGTERM.
POLL_S, GRACE_S = 0.2, 3.0


def _prctl(option: int, value) -> bool:
    """Linux's ``prctl(option, value)``; False when it fails or there is none."""
    import ctypes

    try:
        return ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _subreaper(on: bool) -> bool | None:
    """Make this process adopt its descendants' orphans (Linux); return the previous setting
    (None where it cannot be set)."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    before = ctypes.c_int(0)
    if not _prctl(_PR_GET_CHILD_SUBREAPER, ctypes.byref(before)):
        return None
    return bool(before.value) if _prctl(_PR_SET_CHILD_SUBREAPER, int(on)) else None


def _end(procs: list) -> None:
    """SIGTERM to ``procs``, SIGKILL to those still there after :data:`GRACE_S` s; reaped."""
    import psutil

    for proc in procs:
        with contextlib.suppress(psutil.Error):
            proc.terminate()
    _, alive = psutil.wait_procs(procs, timeout=GRACE_S)
    for proc in alive:
        with contextlib.suppress(psutil.Error):
            proc.kill()
    psutil.wait_procs(alive, timeout=GRACE_S)


@contextlib.contextmanager
def reaping():
    """Kill, when the block ends (normally or by an exception), every process started during
    it that is still there: the kernel's workers and their children, orphans included.

    Not for use from two threads at once: a process one block starts is the other's too.
    """
    import psutil

    me = psutil.Process()
    before = set(me.children(recursive=True))
    previous = _subreaper(True)
    try:
        yield
    finally:
        left = [p for p in me.children(recursive=True) if p not in before]
        _end(left)
        if previous is not None:
            _subreaper(previous)


class Stopped(SystemExit):
    """SIGTERM stopped the run (exit status 128 + 15), after its cleanup ran."""


@contextlib.contextmanager
def stopping_on_sigterm():
    """Within the block, SIGTERM (``timeout``, a batch scheduler) raises :class:`Stopped`, so
    a run stopped that way ends as on an error: its kernel and workers ended, its partial
    outputs kept. Outside the main thread the signal's handling stays as it is."""
    def stop(signum, frame):
        raise Stopped(128 + signum)

    try:
        previous = signal.signal(signal.SIGTERM, stop)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def kernel_arguments() -> list[str]:
    """Arguments of ``ipykernel`` that run :func:`watch_parent` in the kernel, in place of
    ipykernel's own watch (which ends the kernel alone, leaving its workers); none on
    Windows."""
    if os.name != "posix":
        return []
    return [f"--IPKernelApp.exec_lines=from ldp_companion.execution.processes import watch_parent; "
            f"watch_parent({os.getpid()})", "--IPKernelApp.parent_handle=1"]


def watch_parent(parent: int) -> threading.Thread:
    """In a kernel: once its parent ``parent`` (the runner) is gone, kill the kernel's process
    group (the kernel and the workers it started; the kernel alone when it leads no group).
    Returns the watching thread."""
    def watch():
        while os.getppid() == parent:
            time.sleep(POLL_S)
        if os.getpgrp() == os.getpid():
            os.killpg(os.getpgrp(), signal.SIGKILL)
        os._exit(1)

    thread = threading.Thread(target=watch, name="ldp-companion-watch-parent", daemon=True)
    thread.start()
    return thread
