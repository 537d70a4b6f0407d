"""The package's own files: written whole or not at all, read back or named as corrupt.

:func:`write_atomic` writes a file beside its target and renames it into place, so a reader
sees the old file or the whole new one, never half of one; when the disk is full it removes
its partial file, leaves the old one and raises :class:`DiskFull`, which says so.
:func:`read_json` reads a record the package wrote (a ledger, a coverage list, a run record)
and raises :class:`CorruptFile` naming the file when it is not valid JSON.
"""
from __future__ import annotations

import contextlib
import errno
import json
import os
import threading
from pathlib import Path

__all__ = ["DiskFull", "CorruptFile", "write_atomic", "read_json", "one_line"]

#: The errors of a disk (or a quota) that has no room left.
_FULL = (errno.ENOSPC, errno.EDQUOT)


class DiskFull(OSError):
    """No room left to write a file; the message names the file and says the disk is full."""

    def __str__(self) -> str:
        return str(self.strerror)


class CorruptFile(ValueError):
    """A file the package wrote cannot be read back (truncated, garbage); the message names
    it."""


def one_line(error: BaseException | str, limit: int = 200) -> str:
    """``error`` as one short line (an exception as ``"Type: message"``)."""
    text = error if isinstance(error, str) else f"{type(error).__name__}: {error}"
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _write(tmp: Path, data: bytes) -> None:
    with open(tmp, "wb") as handle:
        handle.write(data)


def write_atomic(path: str | os.PathLike, data: bytes | str) -> Path:
    """Write ``data`` (text as UTF-8) to ``path`` through a temporary file renamed into place.

    Raises
    ------
    DiskFull
        The disk (or the quota) is full: ``path`` keeps its earlier content, no partial
        file is left.
    OSError
        Any other failure to write, with the temporary file removed.
    """
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        _write(tmp, data.encode() if isinstance(data, str) else data)
        os.replace(tmp, path)  # a reader sees the old file or the whole new one
    except OSError as err:
        with contextlib.suppress(OSError):
            tmp.unlink()
        if err.errno in _FULL:
            raise DiskFull(err.errno, f"the disk is full: could not write {path} "
                           f"({err.strerror}); free some space and run again") from None
        raise
    return path


def read_json(path: str | os.PathLike, what: str = "record"):
    """The JSON content of ``path`` (a ``what``: "ledger", "run record", ...).

    Raises
    ------
    FileNotFoundError
        No such file.
    CorruptFile
        The file is not UTF-8 JSON (truncated, overwritten with garbage); the message names
        it and says what to do.
    """
    path = Path(path)
    try:
        return json.loads(path.read_bytes())
    except ValueError as err:  # JSONDecodeError and UnicodeDecodeError
        raise CorruptFile(f"{path} is not a readable {what} ({one_line(err)}): delete it "
                          "or run its chapter again") from None
