"""The data and weights of the papers' own experiments, which cannot be downloaded here.

The `paper` profiles of chapters 1 and 2 train the papers' networks on MNIST's 60,000 training
images, CIFAR-10, SVHN, IMDB (with GloVe vectors), CIC-Darknet2020, the credit-card fraud data
and Adult, starting from torchvision's ImageNet-pretrained MobileNetV2. None of these is in the
offline cache, and the machines that build this book cannot download them. A user provides them
once, under the same folder as the other data files (:func:`ldp_companion.data.datasets.cache_dir`,
i.e. ``$LDP_COMPANION_DATA``), in the layout the public archives unpack to (the layout torchvision's
own ``download=True`` writes for MNIST, CIFAR-10 and SVHN):

=============== ===========================================================================
asset           files under the data folder
=============== ===========================================================================
mnist           ``MNIST/raw/{train,t10k}-{images-idx3,labels-idx1}-ubyte.gz``
cifar10         ``cifar-10-batches-py/data_batch_1`` … ``data_batch_5``, ``test_batch``
svhn            ``SVHN/train_32x32.mat``, ``SVHN/test_32x32.mat``
imdb            ``aclImdb/{train,test}/{pos,neg}/*.txt``
glove           ``glove/glove.6B.100d.txt``
darknet         ``darknet/Darknet.csv``
credit          ``credit/creditcard.csv`` (Kaggle's mlg-ulb/creditcardfraud)
adult           ``adult/adult.data``, ``adult/adult.test`` (UCI)
mobilenet_v2    ``checkpoints/mobilenet_v2-b0353104.pth`` (torchvision's IMAGENET1K_V1)
=============== ===========================================================================

:func:`missing` lists what is absent, :func:`require` raises a :class:`DataError` naming every
missing file and where to get it, :func:`status` is the table a chapter shows. The loaders
check the structure of what they read (shapes, labels) and name the file when it is wrong;
they do not verify checksums (the files are the user's copies: torchvision's ``download=True``
checks the archives' md5 when it fetches them).
"""
from __future__ import annotations

import gzip
import pickle
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ldp_companion.data.datasets import DATA_ENV, DataError, cache_dir, parse_idx

__all__ = ["Asset", "ASSETS", "ImageData", "asset_root", "missing", "missing_message", "require",
           "split_ready", "status", "TITLES", "load_images", "load_darknet", "load_glove",
           "load_imdb", "tokenize", "mobilenet_v2_weights", "IMAGE_TASKS", "load_credit",
           "load_adult", "ADULT_COLUMNS", "ADULT_CATEGORICAL"]


@dataclass(frozen=True)
class Asset:
    """One thing the paper profiles need: its files (relative to the data folder), the
    public source and how to put it in place."""

    name: str
    files: tuple[str, ...]
    source: str
    how: str


_MNIST = tuple(f"MNIST/raw/{s}-ubyte.gz" for s in ("train-images-idx3", "train-labels-idx1",
                                                    "t10k-images-idx3", "t10k-labels-idx1"))
_CIFAR = tuple(f"cifar-10-batches-py/{b}" for b in
               [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"])
_IMDB = tuple(f"aclImdb/{part}/{label}" for part in ("train", "test") for label in ("pos", "neg"))

#: Every asset of the `paper` profiles, by name.
ASSETS: dict[str, Asset] = {a.name: a for a in [
    Asset("mnist", _MNIST, "https://ossci-datasets.s3.amazonaws.com/mnist/",
          "torchvision.datasets.MNIST(root=<data folder>, download=True) writes this layout"),
    Asset("cifar10", _CIFAR, "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz",
          "unpack the archive in the data folder (or torchvision.datasets.CIFAR10(root=<data "
          "folder>, download=True))"),
    Asset("svhn", ("SVHN/train_32x32.mat", "SVHN/test_32x32.mat"),
          "http://ufldl.stanford.edu/housenumbers/",
          "torchvision.datasets.SVHN(root=<data folder>/SVHN, split=..., download=True)"),
    Asset("imdb", _IMDB, "https://ai.stanford.edu/~amaas/data/sentiment/aclImdb_v1.tar.gz",
          "unpack the archive in the data folder"),
    Asset("glove", ("glove/glove.6B.100d.txt",), "https://nlp.stanford.edu/data/glove.6B.zip",
          "unzip glove.6B.100d.txt into <data folder>/glove/"),
    Asset("darknet", ("darknet/Darknet.csv",),
          "https://www.unb.ca/cic/datasets/darknet2020.html (CIC-Darknet2020)",
          "save the data set's CSV as <data folder>/darknet/Darknet.csv"),
    Asset("credit", ("credit/creditcard.csv",),
          "https://www.kaggle.com/datasets/mlg-ulb/creditcardfraud (also OpenML data set 1597)",
          "save the CSV (284,807 rows: Time, V1..V28, Amount, Class) as "
          "<data folder>/credit/creditcard.csv"),
    Asset("adult", ("adult/adult.data", "adult/adult.test"),
          "https://archive.ics.uci.edu/dataset/2/adult",
          "copy adult.data and adult.test from the archive into <data folder>/adult/"),
    Asset("mobilenet_v2", ("checkpoints/mobilenet_v2-b0353104.pth",),
          "https://download.pytorch.org/models/mobilenet_v2-b0353104.pth",
          "copy torchvision's MobileNet_V2_Weights.IMAGENET1K_V1 file (it sits in "
          "~/.cache/torch/hub/checkpoints/ once torchvision has downloaded it)"),
]}

#: Image tasks: asset -> (shape of one image, classes).
IMAGE_TASKS = {"mnist": ((1, 28, 28), 10), "cifar10": ((3, 32, 32), 10),
               "svhn": ((3, 32, 32), 10)}


def asset_root() -> Path:
    """The folder the assets are looked for in (the data folder of :mod:`datasets`)."""
    return cache_dir()


def _asset(name) -> Asset:
    if not isinstance(name, str) or name not in ASSETS:
        raise ValueError(f"asset must be one of {sorted(ASSETS)}, got {name!r}")
    return ASSETS[name]


def _present(path: Path) -> bool:
    return path.is_file() or (path.is_dir() and any(path.iterdir()))


def missing(names) -> dict[str, list[Path]]:
    """For each asset of ``names`` with an absent file (or an empty folder), the absent paths.

    An empty result means every asset is in place.
    """
    root = asset_root()
    out = {}
    for name in ([names] if isinstance(names, str) else list(names)):
        absent = [root / f for f in _asset(name).files if not _present(root / f)]
        if absent:
            out[name] = absent
    return out


def missing_message(names) -> str:
    """One readable message naming every missing file of ``names`` and how to get it; empty
    when nothing is missing."""
    gaps = missing(names)
    if not gaps:
        return ""
    lines = [f"The paper's setup needs files that are not in {asset_root()} (set {DATA_ENV} "
             f"to the folder that holds them):"]
    for name, paths in gaps.items():
        asset = ASSETS[name]
        lines.append(f"- {name}: missing {', '.join(str(p) for p in paths)}; get it from "
                     f"{asset.source}; {asset.how}.")
    lines.append("`python -m ldp_companion data fetch CHAPTER` downloads, checks and unpacks "
                 "every file a program can fetch and says how to get the others "
                 "(`--list` shows what is there).")
    return "\n".join(lines)


def split_ready(tasks, assets_of) -> tuple[list, dict]:
    """The ``tasks`` whose assets (``assets_of(task)``, names of :data:`ASSETS`) are all in
    the data folder, and for each other task the message naming its missing files."""
    ready, missing_files = [], {}
    for task in tasks:
        message = missing_message(assets_of(task))
        if message:
            missing_files[task] = message
        else:
            ready.append(task)
    return ready, missing_files


def require(names) -> None:
    """Raise :class:`DataError` naming every missing file of ``names`` (nothing if present)."""
    message = missing_message(names)
    if message:
        raise DataError(message)


#: What each asset is, in words (the tables' row names).
TITLES = {"mnist": "MNIST", "cifar10": "CIFAR-10", "svhn": "SVHN", "imdb": "IMDB reviews",
          "glove": "GloVe 6B vectors", "darknet": "CIC-Darknet2020", "credit": "Credit card fraud",
          "adult": "Adult (UCI)", "mobilenet_v2": "MobileNetV2 weights (ImageNet)"}


def status(names=None) -> pd.DataFrame:
    """Table of the assets (all by default), one row per asset name: files, how many are
    missing, source. Show it with :func:`ldp_companion.page.tables.assets_table`."""
    names = list(ASSETS) if names is None else list(names)
    gaps = missing(names)
    return pd.DataFrame([{"asset": n, "files": len(ASSETS[n].files),
                          "missing": len(gaps.get(n, [])), "source": ASSETS[n].source}
                         for n in names]).set_index("asset")


# --------------------------------------------------------------------------- images

@dataclass(frozen=True)
class ImageData:
    """A train / test pair of images on [-1, 1], shape (n, channels, height, width)."""

    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray


def _bad(path: Path, what: str) -> DataError:
    return DataError(f"{path}: {what}; replace it with the file of the public source")


def _read_idx(path: Path, ndim: int) -> np.ndarray:
    try:
        return parse_idx(gzip.decompress(path.read_bytes()), ndim)
    except (OSError, EOFError, ValueError, DataError) as exc:
        raise _bad(path, f"not a gzipped IDX file with {ndim} dimensions ({exc})") from exc


def _mnist(root: Path):
    parts = [_read_idx(root / f, nd) for f, nd in zip(_MNIST, (3, 1, 3, 1))]
    return parts[0][:, None], parts[1], parts[2][:, None], parts[3]


def _cifar(root: Path):
    parts = []
    for f in _CIFAR:
        try:
            with open(root / f, "rb") as fh:
                batch = pickle.load(fh, encoding="latin1")
            x = np.asarray(batch["data"], dtype=np.uint8).reshape(-1, 3, 32, 32)
            y = np.asarray(batch["labels"], dtype=np.int64)
        except (OSError, pickle.UnpicklingError, KeyError, ValueError, EOFError) as exc:
            raise _bad(root / f, f"not a CIFAR-10 python batch ({exc})") from exc
        parts.append((x, y))
    x_train = np.concatenate([p[0] for p in parts[:-1]])
    y_train = np.concatenate([p[1] for p in parts[:-1]])
    return x_train, y_train, parts[-1][0], parts[-1][1]


def _svhn(root: Path):
    from scipy.io import loadmat

    out = []
    for f in ASSETS["svhn"].files:
        try:
            mat = loadmat(root / f)
            x = np.ascontiguousarray(np.transpose(mat["X"], (3, 2, 0, 1)), dtype=np.uint8)
            y = mat["y"].ravel().astype(np.int64) % 10      # SVHN stores the digit 0 as 10
        except (OSError, KeyError, ValueError) as exc:
            raise _bad(root / f, f"not an SVHN 32x32 .mat file ({exc})") from exc
        out += [x, y]
    return tuple(out)


def load_images(name: str) -> ImageData:
    """MNIST (all 70,000 images), CIFAR-10 or SVHN, on [-1, 1] as float32.

    Raises
    ------
    DataError
        Naming every missing file, or the file whose content is malformed.
    """
    if name not in IMAGE_TASKS:
        raise ValueError(f"image task must be one of {sorted(IMAGE_TASKS)}, got {name!r}")
    require(name)
    x_tr, y_tr, x_te, y_te = {"mnist": _mnist, "cifar10": _cifar, "svhn": _svhn}[name](
        asset_root())
    shape, classes = IMAGE_TASKS[name]
    for x, y, part in ((x_tr, y_tr, "train"), (x_te, y_te, "test")):
        if x.shape[1:] != shape or len(x) != len(y) or y.min() < 0 or y.max() >= classes:
            raise DataError(f"{name} {part} part: images {x.shape} and labels {y.shape} "
                            f"(values {y.min()}..{y.max()}) do not form a {shape} data set "
                            f"with {classes} classes")

    def scale(x):
        return (x.astype(np.float32) / np.float32(127.5)) - np.float32(1.0)

    return ImageData(scale(x_tr), y_tr, scale(x_te), y_te)


# --------------------------------------------------------------------------- DarkNet

#: Columns of CIC-Darknet2020's CSV that identify a flow or label it (not features).
DARKNET_DROP = ("Flow ID", "Src IP", "Src Port", "Dst IP", "Dst Port", "Timestamp", "Label",
                "Label.1")


def load_darknet(test_fraction: float = 0.2):
    """CIC-Darknet2020 as the authors' code uses it: binary label (Tor or VPN against the
    rest), features min-max scaled to [0, 1] on the training part, the last
    ``test_fraction`` of the file (in file order) as the test part.

    Returns
    -------
    x_train, y_train, x_test, y_test : ndarray
        float32 features and int64 labels.
    """
    require("darknet")
    path = asset_root() / ASSETS["darknet"].files[0]
    frame = pd.read_csv(path, low_memory=False)
    frame.columns = [c.strip() for c in frame.columns]
    if "Label" not in frame.columns:
        raise _bad(path, "no 'Label' column (Tor, VPN, Non-Tor, NonVPN)")
    label = frame["Label"].astype(str).str.strip().str.lower()
    y = label.isin(["tor", "vpn"]).to_numpy(np.int64)
    x = frame.drop(columns=[c for c in DARKNET_DROP if c in frame.columns])
    x = x.apply(pd.to_numeric, errors="coerce").to_numpy(np.float64)
    x[~np.isfinite(x)] = 0.0
    cut = int(round(len(y) * (1 - test_fraction)))
    low, high = x[:cut].min(axis=0), x[:cut].max(axis=0)
    span = np.where(high > low, high - low, 1.0)
    x = np.clip((x - low) / span, 0.0, 1.0).astype(np.float32)
    return x[:cut], y[:cut], x[cut:], y[cut:]


# --------------------------------------------------------------------------- Credit, Adult

def load_credit() -> tuple[np.ndarray, np.ndarray]:
    """The credit-card fraud data: the 28 PCA features V1..V28 (float64; ``Time`` and
    ``Amount`` are left out, which gives the paper's 28 inputs, Table II) and ``Class``
    (1: fraud), in file order. The split is the caller's."""
    require("credit")
    path = asset_root() / ASSETS["credit"].files[0]
    try:
        frame = pd.read_csv(path)
    except (OSError, ValueError) as exc:
        raise _bad(path, f"not a CSV file ({exc})") from exc
    features = [f"V{i}" for i in range(1, 29)]
    absent = [c for c in features + ["Class"] if c not in frame.columns]
    if absent:
        raise _bad(path, f"no column {', '.join(absent)}")
    y = pd.to_numeric(frame["Class"], errors="coerce")
    if not y.isin([0, 1]).all():
        raise _bad(path, "'Class' holds values other than 0 and 1")
    x = frame[features].apply(pd.to_numeric, errors="coerce").to_numpy(np.float64)
    if not np.isfinite(x).all():
        raise _bad(path, "V1..V28 hold values that are not finite numbers")
    return x, y.to_numpy(np.int64)


#: Columns of UCI's adult.data / adult.test, the last one the label.
ADULT_COLUMNS = ("age", "workclass", "fnlwgt", "education", "education-num", "marital-status",
                 "occupation", "relationship", "race", "sex", "capital-gain", "capital-loss",
                 "hours-per-week", "native-country", "income")
#: The categorical ones, one-hot encoded by :func:`load_adult`.
ADULT_CATEGORICAL = ("workclass", "education", "marital-status", "occupation",
                     "relationship", "race", "sex", "native-country")


def _adult_part(path: Path, skip: int) -> pd.DataFrame:
    try:
        frame = pd.read_csv(path, header=None, names=list(ADULT_COLUMNS), skiprows=skip,
                            skipinitialspace=True, dtype=str, keep_default_na=False)
    except (OSError, ValueError) as exc:
        raise _bad(path, f"not a comma-separated file ({exc})") from exc
    income = frame["income"].str.rstrip(".")
    if frame.isna().any().any() or not income.isin(["<=50K", ">50K"]).all():
        raise _bad(path, "not 15 comma-separated fields ending in <=50K or >50K")
    return frame.assign(income=income)


def load_adult() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """Adult (UCI): the training file (32,561 people) and the test file (16,281), with the
    six numeric columns as they are and one 0/1 column per value of each categorical column
    seen in the training file; the unknown value ``?`` gets no column (all zeros), which
    makes the paper's 105 inputs (Table II's 105 × 12 gradient).

    Returns
    -------
    x_train, y_train, x_test, y_test : ndarray
        float64 features and int64 labels (1: income above 50K).
    columns : list of str
        The features' names.
    """
    require("adult")
    root = asset_root()
    train, test = (_adult_part(root / f, skip) for f, skip in
                   zip(ASSETS["adult"].files, (0, 1)))   # adult.test opens with a note
    numeric = [c for c in ADULT_COLUMNS[:-1] if c not in ADULT_CATEGORICAL]
    levels = {c: sorted(set(train[c]) - {"?"}) for c in ADULT_CATEGORICAL}
    columns = numeric + [f"{c}={v}" for c in ADULT_CATEGORICAL for v in levels[c]]

    def encode(frame: pd.DataFrame, path: Path) -> np.ndarray:
        num = frame[numeric].apply(pd.to_numeric, errors="coerce").to_numpy(np.float64)
        if not np.isfinite(num).all():
            raise _bad(path, f"the columns {', '.join(numeric)} hold non-numbers")
        hot = [(frame[c].to_numpy()[:, None] == np.asarray(levels[c])[None]).astype(float)
               for c in ADULT_CATEGORICAL]
        return np.hstack([num, *hot])

    paths = [root / f for f in ASSETS["adult"].files]
    return (encode(train, paths[0]), (train["income"] == ">50K").to_numpy(np.int64),
            encode(test, paths[1]), (test["income"] == ">50K").to_numpy(np.int64), columns)


# --------------------------------------------------------------------------- IMDB + GloVe

def load_glove() -> tuple[list[str], np.ndarray]:
    """GloVe-6B-100d: the vocabulary (400,000 words) and its vectors (float32)."""
    require("glove")
    path = asset_root() / ASSETS["glove"].files[0]
    table = pd.read_csv(path, sep=" ", header=None, quoting=3, keep_default_na=False,
                        na_values=[], dtype={0: str}, engine="c")
    if table.shape[1] != 101:
        raise _bad(path, f"{table.shape[1] - 1} numbers per word, not 100")
    return table[0].tolist(), table.iloc[:, 1:].to_numpy(np.float32)


def tokenize(text: str) -> list[str]:
    """Lower-case words and punctuation marks, HTML line breaks removed (a stand-in for the
    paper's spaCy tokenizer; GloVe's vocabulary is lower-case)."""
    import re

    return re.findall(r"[a-z0-9]+(?:'[a-z]+)?|[^\sa-z0-9]", text.replace("<br />", " ").lower())


def _reviews(root: Path, part: str):
    texts, labels = [], []
    for label, folder in ((1, "pos"), (0, "neg")):
        files = sorted((root / "aclImdb" / part / folder).glob("*.txt"))
        texts += [f.read_text(encoding="utf-8") for f in files]
        labels += [label] * len(files)
    return texts, np.asarray(labels, dtype=np.int64)


def load_imdb(words: list[str], max_len: int = 500):
    """IMDB reviews as GloVe indices, padded or truncated to ``max_len`` tokens.

    Index 0 pads, index ``i + 1`` is ``words[i]``, index ``len(words) + 1`` stands for a word
    out of the vocabulary (so the embedding has ``len(words) + 2`` rows).

    Returns
    -------
    x_train, y_train, x_test, y_test : ndarray
        int64 token indices of shape (n, max_len) and labels (1: positive).
    """
    require("imdb")
    index = {w: i + 1 for i, w in enumerate(words)}
    unknown = len(words) + 1
    out = []
    for part in ("train", "test"):
        texts, labels = _reviews(asset_root(), part)
        x = np.zeros((len(texts), max_len), dtype=np.int64)
        for row, text in zip(x, texts):
            ids = [index.get(t, unknown) for t in tokenize(text)][:max_len]
            row[:len(ids)] = ids
        out += [x, labels]
    return tuple(out)


# --------------------------------------------------------------------------- weights

def mobilenet_v2_weights() -> dict:
    """The state dict of torchvision's ImageNet-pretrained MobileNetV2 (IMAGENET1K_V1)."""
    import torch

    require("mobilenet_v2")
    path = asset_root() / ASSETS["mobilenet_v2"].files[0]
    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises several types for a bad checkpoint
        raise _bad(path, f"not a torch state dict ({type(exc).__name__}: {exc})") from exc
