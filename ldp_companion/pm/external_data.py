"""Real data sets of the ``paper`` profile of chapter 3 (Zhao et al. 2020), read from the data
folder.

The ``paper`` profile of the Three-Outputs / PM-SUB / HM-TP chapter uses four real data sets:
WISDM (activity recognition, raw accelerometer file v1.1), two IPUMS International census
extracts (Brazil "BR" and Mexico "MX") and the SensIT Vehicle data (Duarte & Hu 2004) as
distributed by LIBSVM. None of them is in the offline cache, none has a checksum we could verify
here, and the IPUMS extracts need a (free) account. So, unlike :mod:`ldp_companion.data.datasets`,
the loaders here download nothing: ``python -m ldp_companion data fetch pm``
(:mod:`ldp_companion.edition.data_fetch`) fetches WISDM and Vehicle once, and the user makes the
IPUMS extracts, into the same cache folder (:func:`ldp_companion.data.datasets.cache_dir`, i.e.
``$LDP_COMPANION_DATA`` if set)::

    <cache>/wisdm/WISDM_ar_v1.1_raw.txt
    <cache>/vehicle/combined_scale.bz2, combined_scale.t.bz2   (or combined*, or decompressed)
    <cache>/ipums/ipums_br.csv, ipums_mx.csv                   (or .csv.gz)

:func:`require` checks that the named data sets are there and raises one
:class:`~ldp_companion.data.datasets.DataError` listing every missing file, where to get it and
where to put it. The loaders raise the same error for a missing file. :func:`preprocess_for_ldp`
turns a table into the paper's representation (numeric columns in [-1, 1], each categorical column
with ``k`` values as ``k - 1`` columns in {-1, 1}). See ``data/README.md``.
"""
from __future__ import annotations

import hashlib
import io
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import load_svmlight_file

from ldp_companion.data.datasets import DATA_ENV, DataError, cache_dir, scale_to_unit_interval

__all__ = [
    "EXTERNAL", "IPUMS_COLUMNS", "IPUMS_MISSING_CODES", "WISDM_COLUMNS", "VEHICLE_N_FEATURES",
    "require", "external_path", "load_wisdm", "load_vehicle", "load_ipums",
    "preprocess_for_ldp",
]

_WISDM_PAGE = "https://www.cis.fordham.edu/wisdm/dataset.php"
_LIBSVM_VEHICLE = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass/vehicle/"
_IPUMS = "https://international.ipums.org/"

#: One entry per external data set. ``files``: the files it needs; each is a tuple of accepted
#: paths inside the cache, the first being the one named in error messages. ``url``: where to
#: get it. ``how``: what to do there.
EXTERNAL: dict[str, dict] = {
    "wisdm": {
        "files": (("wisdm/WISDM_ar_v1.1_raw.txt",),),
        "url": _WISDM_PAGE,
        "how": "download the archive WISDM_ar_latest.tar.gz from that page and extract "
               "WISDM_ar_v1.1_raw.txt from it",
        "description": "WISDM activity recognition v1.1, raw accelerometer time series",
        "license": "no licence stated; the WISDM lab asks users to cite Kwapisz et al. (2010) "
                   "and to keep readme.txt with any copy; see the source's terms",
    },
    "vehicle": {
        "files": (("vehicle/combined_scale.bz2", "vehicle/combined_scale"),
                  ("vehicle/combined_scale.t.bz2", "vehicle/combined_scale.t")),
        "url": _LIBSVM_VEHICLE,
        "how": "download combined_scale.bz2 and combined_scale.t.bz2 (LIBSVM format; the "
               "decompressed files are accepted too)",
        "description": "SensIT Vehicle (Duarte & Hu 2004), LIBSVM 'combined', scaled to [-1, 1]",
        "license": "see the source's terms (LIBSVM data page; cite Duarte & Hu 2004)",
    },
    "vehicle_unscaled": {
        "files": (("vehicle/combined.bz2", "vehicle/combined"),
                  ("vehicle/combined.t.bz2", "vehicle/combined.t")),
        "url": _LIBSVM_VEHICLE,
        "how": "download combined.bz2 and combined.t.bz2 (LIBSVM format; the decompressed "
               "files are accepted too)",
        "description": "SensIT Vehicle (Duarte & Hu 2004), LIBSVM 'combined', unscaled",
        "license": "see the source's terms (LIBSVM data page; cite Duarte & Hu 2004)",
    },
    "ipums_br": {
        "files": (("ipums/ipums_br.csv", "ipums/ipums_br.csv.gz"),),
        "url": _IPUMS,
        "how": "register (free), make a CSV extract of a Brazil census sample with the "
               "variables in external_data.IPUMS_COLUMNS['BR'] and save it under that name",
        "description": "IPUMS International census extract, Brazil",
        "license": "IPUMS International conditions of use (registration; no redistribution; "
                   "cite IPUMS); see the source's terms",
    },
    "ipums_mx": {
        "files": (("ipums/ipums_mx.csv", "ipums/ipums_mx.csv.gz"),),
        "url": _IPUMS,
        "how": "register (free), make a CSV extract of a Mexico census sample with the "
               "variables in external_data.IPUMS_COLUMNS['MX'] and save it under that name",
        "description": "IPUMS International census extract, Mexico",
        "license": "IPUMS International conditions of use (registration; no redistribution; "
                   "cite IPUMS); see the source's terms",
    },
}

#: Columns of the WISDM raw file, in file order.
WISDM_COLUMNS = ("user", "activity", "timestamp", "x", "y", "z")

#: Number of features of the LIBSVM Vehicle files (50 acoustic + 50 seismic).
VEHICLE_N_FEATURES = 100

#: IPUMS International variables used for BR and MX. The paper only gives the counts (BR: 16
#: attributes, 6 numeric + 10 categorical; MX: 19, 5 numeric + 14 categorical) and says that
#: "total income" is the dependent variable; the variable names below are our choice of
#: standard IPUMS-I variables, not the paper's. Edit them to match your extract. ``target`` is
#: one of the ``numeric`` columns; :func:`load_ipums` returns it separately.
IPUMS_COLUMNS: dict[str, dict] = {
    "BR": {
        "numeric": ("AGE", "PERSONS", "FAMSIZE", "NCHILD", "NCHLT5", "INCTOT"),
        "categorical": ("SEX", "MARST", "RELATE", "URBAN", "RACE", "LIT", "SCHOOL",
                        "EDATTAIN", "EMPSTAT", "CLASSWK"),
        "target": "INCTOT",
    },
    "MX": {
        "numeric": ("AGE", "PERSONS", "FAMSIZE", "NCHILD", "INCTOT"),
        "categorical": ("SEX", "MARST", "RELATE", "URBAN", "NATIVITY", "LIT", "SCHOOL",
                        "EDATTAIN", "EMPSTAT", "CLASSWK", "OCCISCO", "INDGEN", "OWNERSHIP",
                        "MIGRATE5"),
        "target": "INCTOT",
    },
}

#: IPUMS codes meaning "unknown" / "not in universe"; rows holding one of them in that column are
#: dropped by :func:`load_ipums`. INCTOT: 9999998 unknown, 9999999 NIU (check your codebook).
IPUMS_MISSING_CODES: dict[str, tuple] = {"INCTOT": (9999998, 9999999)}


# --------------------------------------------------------------------------- locations

def _entry(name) -> dict:
    if not isinstance(name, str) or name not in EXTERNAL:
        raise ValueError(f"name must be one of {', '.join(EXTERNAL)}; got {name!r}")
    return EXTERNAL[name]


def _find(choices) -> Path | None:
    """The first of the accepted cache paths ``choices`` that exists, else None."""
    root = cache_dir()
    return next((root / c for c in choices if (root / c).is_file()), None)


def _missing_lines(name: str, which=None) -> list[str]:
    """One line per missing file of ``name`` (only files number ``which`` if given)."""
    entry, root = EXTERNAL[name], cache_dir()
    lines = []
    for i, choices in enumerate(entry["files"]):
        if (which is None or i in which) and _find(choices) is None:
            also = (f" (also accepted: {', '.join(str(root / c) for c in choices[1:])})"
                    if len(choices) > 1 else "")
            lines.append(f"- {name}: {root / choices[0]}{also} is missing. Get it from "
                         f"{entry['url']}: {entry['how']}.")
    return lines


def _raise_missing(lines: list[str]) -> None:
    raise DataError(f"{len(lines)} external data file(s) missing (`python -m ldp_companion "
                    f"data fetch pm` downloads WISDM and Vehicle; IPUMS needs an account):\n"
                    + "\n".join(lines) +
                    f"\nPut them at the paths shown, or set {DATA_ENV} to a folder laid out "
                    f"the same way (see data/README.md).")


def external_path(name: str) -> list[Path]:
    """Paths of the files of an external data set, in ``EXTERNAL[name]["files"]`` order.

    Raises
    ------
    DataError
        If a file is missing (the message says where to get it and where to put it).
    """
    _entry(name)
    lines = _missing_lines(name)
    if lines:
        _raise_missing(lines)
    return [_find(choices) for choices in EXTERNAL[name]["files"]]


def require(names) -> dict[str, list[Path]]:
    """Check that external data sets are in the cache; what the ``paper`` profile calls first.

    Parameters
    ----------
    names : str or iterable of str
        Keys of :data:`EXTERNAL` (``"wisdm"``, ``"vehicle"``, ``"vehicle_unscaled"``,
        ``"ipums_br"``, ``"ipums_mx"``).

    Returns
    -------
    dict
        ``name -> list of Path`` of the files found.

    Raises
    ------
    DataError
        One error listing every missing file with its URL, its expected path and
        ``$LDP_COMPANION_DATA``.
    ValueError
        If a name is unknown.
    """
    names = [names] if isinstance(names, str) else list(dict.fromkeys(names))
    for name in names:
        _entry(name)
    lines = [line for name in names for line in _missing_lines(name)]
    if lines:
        _raise_missing(lines)
    return {name: external_path(name) for name in names}


def _given_path(path) -> Path:
    if not isinstance(path, (str, Path)):
        raise TypeError(f"path must be a str, a Path or None, got {type(path).__name__}")
    path = Path(path).expanduser()
    if not path.exists():
        raise DataError(f"{path} does not exist")
    return path


def _check_sha256(path: Path, sha256) -> None:
    """Raise DataError unless the sha256 of the file equals ``sha256`` (skipped if None)."""
    if sha256 is None:
        return
    if not isinstance(sha256, str):
        raise TypeError(f"sha256 must be a hex str or None, got {type(sha256).__name__}")
    actual = hashlib.sha256(path.read_bytes()).hexdigest()
    if actual != sha256.strip().lower():
        raise DataError(f"{path}: checksum mismatch (sha256 expected {sha256}, got {actual}); "
                        f"the file is corrupted, truncated or not the expected version.")


# --------------------------------------------------------------------------- WISDM

def load_wisdm(path=None, *, sha256: str | None = None) -> pd.DataFrame:
    """WISDM v1.1 raw accelerometer data (Kwapisz, Weiss & Moore 2010), one row per reading.

    The file ``WISDM_ar_v1.1_raw.txt`` is in the archive ``WISDM_ar_latest.tar.gz`` on the WISDM
    lab page https://www.cis.fordham.edu/wisdm/dataset.php (1,098,207 readings, 36 users,
    6 activities, 20 Hz). No checksum of it could be verified offline, so none is built in:
    pass ``sha256`` to check the file against one you trust.

    Quirks of the file reported by its users (not checked here, the file is not available
    offline), all handled: every record ``user,activity,timestamp,x,y,z`` ends with ``;`` and
    normally sits on its own line, but some lines hold two records (a plain CSV reader then
    fails with "expected 6 fields, saw 11"), some records lack a value (e.g. an empty ``z``
    before the ``;``), and there are empty lines. Records are therefore split on both
    ``;`` and newlines; empty pieces are ignored, and records that do not have exactly six
    fields with numeric user, timestamp, x, y, z are dropped and counted. Readings with a
    timestamp of 0, which also occur, are kept.

    Parameters
    ----------
    path : str, Path or None
        The raw file. Default: ``<cache_dir>/wisdm/WISDM_ar_v1.1_raw.txt``.
    sha256 : str or None
        Expected sha256 (hex) of the file; if given, a mismatch raises :class:`DataError`.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`WISDM_COLUMNS`: ``user`` (int64, 1..36), ``activity`` (str: Walking,
        Jogging, Upstairs, Downstairs, Sitting, Standing), ``timestamp`` (int64, phone uptime in
        ns), ``x``, ``y``, ``z`` (float64 accelerations, m/s^2). ``frame.attrs["n_dropped"]`` is
        the number of malformed records dropped.

    Raises
    ------
    DataError
        If the file is missing or fails the checksum.
    """
    path = external_path("wisdm")[0] if path is None else _given_path(path)
    _check_sha256(path, sha256)
    text = path.read_bytes().decode("utf-8", errors="replace")
    pieces = pd.Series(text.replace("\n", ";").split(";"), dtype=object)
    records = pieces.str.strip().str.rstrip(",").str.strip()
    records = records[records != ""]
    raw = pd.read_csv(io.StringIO("\n".join(records)), header=None, names=list(WISDM_COLUMNS),
                      dtype=str, on_bad_lines="skip", skip_blank_lines=True)
    frame = pd.DataFrame({"activity": raw["activity"].str.strip()})
    for col in ("user", "timestamp", "x", "y", "z"):
        frame[col] = pd.to_numeric(raw[col].str.strip(), errors="coerce")
    good = frame.notna().all(axis=1) & (frame["activity"] != "")
    frame = frame.loc[good, list(WISDM_COLUMNS)].reset_index(drop=True)
    frame = frame.astype({"user": np.int64, "timestamp": np.int64, "x": np.float64,
                          "y": np.float64, "z": np.float64})
    frame.attrs["n_dropped"] = int(len(records) - len(frame))
    return frame


# --------------------------------------------------------------------------- Vehicle

_VEHICLE_SPLITS = {"all": (0, 1), "train": (0,), "test": (1,)}


def _vehicle_files(path, scaled: bool, split: str) -> list[Path]:
    name = "vehicle" if scaled else "vehicle_unscaled"
    which = _VEHICLE_SPLITS[split]
    if path is None:
        lines = _missing_lines(name, which)
        if lines:
            _raise_missing(lines)
        return [_find(EXTERNAL[name]["files"][i]) for i in which]
    path = _given_path(path)
    if path.is_file():
        return [path]
    files = []
    for i in which:
        choices = [Path(c).name for c in EXTERNAL[name]["files"][i]]
        found = next((path / c for c in choices if (path / c).is_file()), None)
        if found is None:
            raise DataError(f"{path / choices[0]} is missing (also accepted: "
                            f"{', '.join(choices[1:])}). Get it from {EXTERNAL[name]['url']}.")
        files.append(found)
    return files


def load_vehicle(path=None, scaled: bool = True, *, positive=1, negative=None,
                 split: str = "all"):
    """SensIT Vehicle (Duarte & Hu 2004), LIBSVM's ``combined`` version, with labels in {-1, +1}.

    LIBSVM (https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass/vehicle/)
    serves ``combined.bz2`` (78,823 rows) and ``combined.t.bz2`` (19,705 rows), 100 features
    (50 acoustic, 50 seismic), 3 classes labelled 1, 2, 3, and the same files scaled to
    [-1, 1] (``combined_scale*``). The paper uses "a 100-dimensional feature and a binary
    label" for an SVM but does not say how the three classes become two. Default here:
    one-vs-rest, class ``positive`` (1) -> +1 and every other class -> -1, which keeps all
    98,528 rows (the row count of the two public files; the paper's own count is lost from
    its text). ``negative=2`` instead keeps only classes 1 and 2 (the two-vehicle-type task
    of the q-FFL / MOCHA benchmarks) and drops the rest.

    Parameters
    ----------
    path : str, Path or None
        A LIBSVM file (loaded alone, ``split`` is ignored), or a folder holding the files.
        Default: ``<cache_dir>/vehicle``.
    scaled : bool
        Use ``combined_scale*`` (True) or ``combined*`` (False).
    positive : int
        Original class mapped to +1.
    negative : int or None
        Original class mapped to -1, rows of other classes being dropped; None: all classes
        other than ``positive`` map to -1.
    split : {"all", "train", "test"}
        Training file, test file, or both concatenated (train first).

    Returns
    -------
    X : ndarray, shape (n, 100)
        float64 features.
    y : ndarray, shape (n,)
        int64 labels in {-1, +1}.

    Raises
    ------
    DataError
        If a file is missing.
    """
    if not isinstance(scaled, (bool, np.bool_)):
        raise TypeError(f"scaled must be a bool, got {type(scaled).__name__}")
    if split not in _VEHICLE_SPLITS:
        raise ValueError(f"split must be 'all', 'train' or 'test'; got {split!r}")
    if negative is not None and negative == positive:
        raise ValueError("negative must differ from positive")
    parts = [load_svmlight_file(str(f), n_features=VEHICLE_N_FEATURES, zero_based=False)
             for f in _vehicle_files(path, bool(scaled), split)]
    X = np.vstack([p[0].toarray() for p in parts]).astype(np.float64)
    labels = np.concatenate([p[1] for p in parts])
    if negative is not None:
        keep = (labels == positive) | (labels == negative)
        X, labels = X[keep], labels[keep]
    y = np.where(labels == positive, 1, -1).astype(np.int64)
    return X, y


# --------------------------------------------------------------------------- IPUMS

def load_ipums(country: str, path=None):
    """IPUMS International census extract for Brazil ("BR") or Mexico ("MX").

    IPUMS extracts need a free account at https://international.ipums.org/, so they cannot be
    downloaded automatically. Make a CSV extract with the variables of
    :data:`IPUMS_COLUMNS` (upper- or lower-case headers; other columns are ignored) and save it
    as ``<cache_dir>/ipums/ipums_br.csv`` or ``ipums_mx.csv`` (or ``.csv.gz``). Rows with a
    missing value in a used column, or with a code of :data:`IPUMS_MISSING_CODES`, are dropped.
    Other IPUMS special codes are kept as values.

    Parameters
    ----------
    country : {"BR", "MX"}
    path : str, Path or None
        The CSV file. Default: the cache path above.

    Returns
    -------
    numeric : pandas.DataFrame
        float64, the ``numeric`` columns except the target (BR: 5, MX: 4). Add the target back
        (``numeric.assign(INCTOT=target)``) for mean estimation over all numeric attributes.
        ``numeric.attrs["n_dropped"]`` is the number of rows dropped.
    categorical : pandas.DataFrame
        The ``categorical`` columns (BR: 10, MX: 14) as read (IPUMS integer codes).
    target : pandas.Series
        float64 total income (``INCTOT``), the paper's dependent variable. For classification,
        binarise it (e.g. above the mean -> +1, else -1).

    Raises
    ------
    DataError
        If the file is missing or lacks required columns (all of them are listed).
    """
    if not isinstance(country, str) or country.upper() not in IPUMS_COLUMNS:
        raise ValueError(f"country must be 'BR' or 'MX'; got {country!r}")
    spec = IPUMS_COLUMNS[country.upper()]
    name = "ipums_" + country.lower()
    path = external_path(name)[0] if path is None else _given_path(path)
    wanted = list(dict.fromkeys([*spec["numeric"], *spec["categorical"], spec["target"]]))
    header = {c.strip().upper(): c for c in pd.read_csv(path, nrows=0).columns}
    missing = [c for c in wanted if c.upper() not in header]
    if missing:
        raise DataError(f"{path}: required IPUMS column(s) missing: {', '.join(missing)}. Add "
                        f"them to the extract, or edit external_data.IPUMS_COLUMNS"
                        f"[{country.upper()!r}].")
    frame = pd.read_csv(path, usecols=[header[c.upper()] for c in wanted])
    frame.columns = [c.strip().upper() for c in frame.columns]
    frame = frame.loc[:, [c.upper() for c in wanted]]
    bad = frame.isna().any(axis=1)
    for col, codes in IPUMS_MISSING_CODES.items():
        if col.upper() in frame.columns:
            bad |= frame[col.upper()].isin(codes)
    n_dropped = int(bad.sum())
    frame = frame.loc[~bad].reset_index(drop=True)
    target_col = spec["target"].upper()
    numeric = frame.loc[:, [c.upper() for c in spec["numeric"] if c.upper() != target_col]]
    numeric = numeric.astype(np.float64)
    numeric.attrs["n_dropped"] = n_dropped
    categorical = frame.loc[:, [c.upper() for c in spec["categorical"]]]
    return numeric, categorical, frame[target_col].astype(np.float64)


# --------------------------------------------------------------------------- representation

def _binarise(column: pd.Series) -> pd.DataFrame:
    """k-valued column -> k-1 columns in {-1, 1}: the l-th sorted value (l < k) is +1 in
    column l and -1 elsewhere; the last value is -1 everywhere."""
    codes, values = pd.factorize(column, sort=True)
    if (codes < 0).any():
        raise ValueError(f"categorical column {column.name!r} has missing values")
    onehot = codes[:, None] == np.arange(len(values) - 1)[None, :]
    names = [f"{column.name}={v}" for v in values[:-1]]
    return pd.DataFrame(np.where(onehot, 1.0, -1.0), columns=names, index=column.index)


def preprocess_for_ldp(numeric=None, categorical=None) -> pd.DataFrame:
    """A table in the paper's representation: every attribute in [-1, 1].

    Numeric columns are min-max scaled to [-1, 1]
    (:func:`ldp_companion.data.datasets.scale_to_unit_interval`; a constant column maps to 0). A
    categorical column with ``k`` distinct values becomes ``k - 1`` columns in {-1, 1} (Zhao et
    al. 2020, §VII-B): with the values sorted, value ``l < k`` is +1 on the ``l``-th new column
    and -1 on the others, and value ``k`` (the largest) is -1 on all of them. A column with one
    value gives no column.

    Parameters
    ----------
    numeric : pandas.DataFrame or None
        Finite real columns.
    categorical : pandas.DataFrame or None
        Columns of any hashable, sortable values, no missing values; same rows as ``numeric``.

    Returns
    -------
    pandas.DataFrame
        float64: the scaled numeric columns (same names), then for each categorical column
        ``c`` its ``k - 1`` columns named ``"c=value"``. Index of the inputs.
    """
    parts = []
    for frame, what in ((numeric, "numeric"), (categorical, "categorical")):
        if frame is not None and not isinstance(frame, pd.DataFrame):
            raise TypeError(f"{what} must be a pandas DataFrame or None, "
                            f"got {type(frame).__name__}")
    if numeric is None and categorical is None:
        raise ValueError("give numeric, categorical or both")
    if numeric is not None and categorical is not None and len(numeric) != len(categorical):
        raise ValueError(f"numeric has {len(numeric)} rows, categorical {len(categorical)}")
    if numeric is not None and numeric.shape[1] > 0:
        scaled = scale_to_unit_interval(numeric.to_numpy())
        parts.append(pd.DataFrame(scaled, columns=numeric.columns, index=numeric.index))
    if categorical is not None:
        index = numeric.index if numeric is not None else categorical.index
        parts += [_binarise(categorical[c]).set_axis(index) for c in categorical.columns]
    if not parts:
        n = len(numeric if numeric is not None else categorical)
        return pd.DataFrame(index=range(n), dtype=np.float64)
    return pd.concat(parts, axis=1).astype(np.float64)
