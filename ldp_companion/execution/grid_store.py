"""An on-disk store of finished grid cells, so that a long run survives an interruption.

:func:`ldp_companion.execution.grid.run_grid` with a store writes each cell's result to its own file
as soon as the cell finishes (in the worker that ran it, so a cluster's workers on a shared
folder store their cells themselves) and, run again, reads the finished cells back and
computes only the rest. A cell's file is named by a digest of

- the package code the grid's function can run (:func:`package_files`): the floors below
  the chapter packages and the chapter package that defines the function (appendix C's
  ``compare``: every chapter package, which it reads); not the floors above them (the book's
  edition, the command line), which a chapter never imports, so that editing a card or the
  planner keeps a paper run's cells,
- the function itself with every argument bound to it (``functools.partial``: data arrays,
  sizes, options; a function defined in a notebook by its compiled code),
- the run's seed, the cell's key and the cell's own inputs,

so a changed parameter, data set or line of the chapter's code starts afresh, and the same
command resumes. Cells are pickled (the results are the objects the cell returned: a resumed
table is bit-identical to an uninterrupted one) behind a tag and a checksum, and replaced
atomically: a run killed while writing leaves no half-written cell, a corrupt or truncated file
is named in a warning and its cell computed again, and a full disk stops the run with
:class:`~ldp_companion.files.DiskFull` (saying so) while the cells already written stay whole.

The folder is ``$LDP_COMPANION_GRID_STORE`` when set (``python -m ldp_companion run ... --out
DIR`` sets it to ``DIR/grid-store``) or the ``store`` argument of ``run_grid``. Delete the
folder to start afresh; each grid has a sub-folder with a ``grid.json`` saying what it is.
"""
from __future__ import annotations

import functools
import hashlib
import json
import marshal
import os
import pickle
import types
import warnings
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path

from ldp_companion.files import DiskFull, one_line, write_atomic

__all__ = ["STORE_ENV", "GridStore", "open_store", "code_digest", "fingerprint"]

#: Folder of the store used by every grid run with ``store=None`` (unset: no store).
STORE_ENV = "LDP_COMPANION_GRID_STORE"

_PACKAGE = Path(__file__).resolve().parents[1]
#: Subpackages holding one chapter each; the rest of the package is shared.
CHAPTER_PACKAGES = ("tldp", "tvg", "pm", "spof", "hiera", "appendix", "byom")
#: Appendix C's package: on the floor above the chapter packages, it reads them all.
COMPARE = "compare"
#: The rooms above the chapter packages and appendix C, which no chapter imports
#: (``tests/test_layout.py``): the book's edition and the command line.
ABOVE = ("edition", "__main__.py")


def package_files(package: Path, rooms) -> list[Path]:
    """The ``.py`` files of ``package`` that code of the chapter packages ``rooms`` (names
    such as ``"tldp"``, or ``"compare"``) can run: every file of the floors below the chapter
    packages and those packages' own; ``"compare"`` brings every chapter package, which it
    reads. The floors above (:data:`ABOVE`) are left out: the layout forbids a chapter to
    import them."""
    rooms = set(rooms)
    if COMPARE in rooms:
        rooms |= set(CHAPTER_PACKAGES)
    out = []
    for path in sorted(Path(package).rglob("*.py")):
        top = path.relative_to(package).parts[0]
        if top in ABOVE or (top in (*CHAPTER_PACKAGES, COMPARE) and top not in rooms):
            continue
        out.append(path)
    return out


@functools.cache
def _package_digest(chapter: str | None) -> str:
    digest = hashlib.sha256()
    for path in package_files(_PACKAGE, {chapter} - {None}):
        digest.update(str(path.relative_to(_PACKAGE)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _base_function(fn):
    while isinstance(fn, functools.partial):
        fn = fn.func
    return fn


def code_digest(fn: Callable) -> str:
    """sha256 of the package code ``fn`` can run (:func:`package_files` of its chapter's
    subpackage; for a function outside a chapter, the shared floors only: its own code enters
    through :func:`fingerprint`)."""
    module = getattr(_base_function(fn), "__module__", "") or ""
    parts = module.split(".")
    chapter = parts[1] if len(parts) > 2 and parts[0] == "ldp_companion" and \
        parts[1] in (*CHAPTER_PACKAGES, COMPARE) else None
    return _package_digest(chapter)


def _code_parts(code: types.CodeType) -> tuple:
    consts = tuple(_code_parts(c) if isinstance(c, types.CodeType) else c
                   for c in code.co_consts)
    return (code.co_code, code.co_names, code.co_varnames, consts)


def _hasher():
    from joblib.hashing import NumpyHasher

    class Hasher(NumpyHasher):
        """joblib's hasher (numpy arrays by their bytes), with functions by their code:
        a lambda or a notebook's function hashes by what it does, not by its name."""

        def save(self, obj):
            if isinstance(obj, types.FunctionType):
                closure = tuple(c.cell_contents for c in obj.__closure__ or ())
                obj = ("function", obj.__module__, obj.__qualname__,
                       marshal.dumps(_code_parts(obj.__code__)), obj.__defaults__,
                       obj.__kwdefaults__, closure)
            NumpyHasher.save(self, obj)

    return Hasher(hash_name="sha256")


def fingerprint(obj) -> str:
    """A digest of ``obj``'s value: arrays by their bytes, functions by their code, partial
    functions with every bound argument. Raises ``pickle.PicklingError`` (or ``TypeError``)
    for an object that cannot be hashed."""
    return _hasher().hash(obj)


class GridStore:
    """A folder of finished cells; counts the cells a run read back and computed.

    Parameters
    ----------
    folder : str or Path
        Created when the first cell is written.
    """

    def __init__(self, folder):
        if not isinstance(folder, (str, os.PathLike)):
            raise TypeError(f"a grid store is a folder path, got {type(folder).__name__}")
        self.folder = Path(folder).expanduser()
        self.reused = 0
        self.computed = 0

    def __repr__(self) -> str:
        return f"GridStore({str(self.folder)!r}, reused={self.reused}, computed={self.computed})"

    def grid_folder(self, fn: Callable, seed: int, description: str, cells: int) -> Path:
        """The sub-folder of the grid ``fn`` run with ``seed`` (its ``grid.json`` written)."""
        digest = hashlib.sha256(f"{code_digest(fn)}\0{fingerprint(fn)}\0{int(seed)}"
                                .encode()).hexdigest()[:24]
        name = getattr(_base_function(fn), "__qualname__", "grid").strip("_<>") or "grid"
        folder = self.folder / f"{name}-{digest}"
        manifest = folder / "grid.json"
        if not manifest.exists():
            folder.mkdir(parents=True, exist_ok=True)
            write_atomic(manifest, json.dumps(
                {"description": description, "function": name, "seed": int(seed),
                 "cells": cells, "started": datetime.now(UTC).isoformat()},
                indent=1).encode())
        return folder


def cell_file(folder: Path, key: Mapping, inputs_digest: str = "") -> Path:
    """The file of the cell ``key`` (with inputs of digest ``inputs_digest``) in ``folder``."""
    text = "\x1f".join(f"{k}={key[k]!r}" for k in sorted(key)) + "\x1e" + inputs_digest
    return folder / f"{hashlib.sha256(text.encode()).hexdigest()[:32]}.pkl"


_MISSING = object()
#: A cell file starts with this tag and the sha256 of the pickle that follows: a truncated
#: file, or garbage that happens to parse as a pickle, never passes for a result.
_MAGIC = b"ldp-companion grid cell 1\n"
_DIGEST = 32


def load_cell(path: Path):
    """The stored result of a cell, or :data:`_MISSING` when the file is absent or not a
    whole cell file (truncated, garbage, a pickle that does not load): then a warning names
    the file and the cell runs again."""
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        return _MISSING
    except OSError as exc:
        return _unreadable(path, exc)
    payload = raw[len(_MAGIC) + _DIGEST:]
    if raw[:len(_MAGIC)] != _MAGIC or \
            raw[len(_MAGIC):len(_MAGIC) + _DIGEST] != hashlib.sha256(payload).digest():
        return _unreadable(path, "truncated or not a cell file")
    try:
        return pickle.loads(payload)
    except Exception as exc:  # a whole file whose classes moved, say: computed again
        return _unreadable(path, exc)


def _unreadable(path: Path, why) -> object:
    """:data:`_MISSING`, after a one-line warning naming ``path`` and ``why``."""
    warnings.warn(f"grid store: {path} is unreadable ({one_line(why)}); the cell runs again",
                  stacklevel=3)
    return _MISSING


def save_cell(path: Path, result) -> bool:
    """Write ``result`` to ``path`` atomically; False when the folder cannot be written (a
    worker without the shared folder: the caller stores the cell instead).

    Raises
    ------
    DiskFull
        The disk is full (the cells written before stay whole and readable).
    """
    payload = pickle.dumps(result, protocol=5)
    try:
        write_atomic(path, _MAGIC + hashlib.sha256(payload).digest() + payload)
    except DiskFull:
        raise
    except OSError:
        return False
    return True


_ENV_STORES: dict[str, GridStore] = {}


def open_store(store=None) -> GridStore | None:
    """The store a grid uses: ``store`` (a :class:`GridStore` or a folder), else the folder
    named by :data:`STORE_ENV` (one object per folder and process: its counters add up over
    the grids of a chapter), else None; ``store=False`` never stores."""
    if store is False:
        return None
    if store is None:
        folder = os.environ.get(STORE_ENV)
        if not folder:
            return None
        return _ENV_STORES.setdefault(folder, GridStore(folder))
    return store if isinstance(store, GridStore) else GridStore(store)
