"""``data fetch``: every asset has a recipe; stand-ins of the public archives, served on
127.0.0.1, are downloaded, verified and unpacked into the loaders' layout; a corrupt or
truncated archive is refused and leaves nothing behind. Never the internet."""
from __future__ import annotations

import bz2
import hashlib
import http.server
import io
import shutil
import tarfile
import threading
import zipfile
from dataclasses import replace
from functools import partial

import numpy as np
import pandas as pd
import pytest
from conftest import skip_or_fail
from ctg_standin import write_ctg_zip
from fake_assets import (
    write_adult,
    write_cifar,
    write_glove,
    write_imdb,
    write_mnist,
    write_mobilenet,
    write_svhn,
)

from ldp_companion.__main__ import main
from ldp_companion.data import datasets, paper_assets
from ldp_companion.data.datasets import DATA_ENV, REGISTRY, URL_ENV, cache_dir
from ldp_companion.edition import data_fetch
from ldp_companion.execution import runner
from ldp_companion.pm import external_data

REAL = cache_dir()  # the offline folder: the MNIST test files the registry's sha256 accepts


def _tar(path, root, members):
    with tarfile.open(path, "w:gz") as tar:
        for name in members:
            tar.add(root / name, arcname=name)


def _public_archives(src, served, rng):
    """The stand-ins packed as their public sources serve them (one flat folder)."""
    for write in (write_mnist, write_cifar, write_svhn, write_glove, write_imdb, write_adult):
        write(src, rng)
    write_mobilenet(src)
    for f in (src / "MNIST/raw").iterdir():
        shutil.copy(f, served / f.name)
    for f in ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz",
              "train-labels-idx1-ubyte.gz"):
        shutil.copy(REAL / "MNIST/raw" / f, served / f)  # also read by the small profiles
    write_ctg_zip(served / REGISTRY["ctg"]["remote_name"],  # UCI's CTG.xls, zipped
                  pd.read_csv(REAL / REGISTRY["ctg"]["path"]), rng)
    (src / "cifar-10-batches-py/batches.meta").write_bytes(b"meta")
    _tar(served / "cifar-10-python.tar.gz", src, ["cifar-10-batches-py"])
    for f in ("train_32x32.mat", "test_32x32.mat"):
        shutil.copy(src / "SVHN" / f, served / f)
    (src / "aclImdb/train/unsup").mkdir()
    (src / "aclImdb/train/unsup/0_0.txt").write_text("not labelled")  # not unpacked
    _tar(served / "aclImdb_v1.tar.gz", src, ["aclImdb"])
    with zipfile.ZipFile(served / "glove.6B.zip", "w") as z:
        z.write(src / "glove/glove.6B.100d.txt", "glove.6B.100d.txt")
        z.writestr("glove.6B.50d.txt", "the 0.1\n")
    shutil.copy(src / "checkpoints/mobilenet_v2-b0353104.pth", served)
    for f in ("adult.data", "adult.test"):
        shutil.copy(src / "adult" / f, served / f)
    wisdm = src / "WISDM_ar_v1.1"
    wisdm.mkdir()
    rows = [f"{1 + i % 3},Walking,{i * 50_000_000},{v[0]:.3f},{v[1]:.3f},{v[2]:.3f};"
            for i, v in enumerate(rng.normal(0, 5, (60, 3)))]
    (wisdm / "WISDM_ar_v1.1_raw.txt").write_text("\n".join(rows) + "\n")
    (wisdm / "readme.txt").write_text("WISDM")
    _tar(served / "WISDM_ar_latest.tar.gz", src, ["WISDM_ar_v1.1"])
    for f, n in (("combined_scale.bz2", 30), ("combined_scale.t.bz2", 12)):
        lines = [f"{1 + i % 3} " + " ".join(f"{j + 1}:{x:.3f}" for j, x in
                                            enumerate(rng.uniform(-1, 1, 100)))
                 for i in range(n)]
        (served / f).write_bytes(bz2.compress(("\n".join(lines) + "\n").encode()))


def _digests(recipe, served):
    """The recipe with the served stand-ins' checksums in place of the published ones."""
    downloads = []
    for d in recipe.downloads:
        data = (served / d.filename).read_bytes()
        if d.md5:
            d = replace(d, md5=hashlib.md5(data).hexdigest())
        if d.sha256_prefix:
            d = replace(d, sha256_prefix=hashlib.sha256(data).hexdigest()[:8])
        downloads.append(d)
    return replace(recipe, downloads=tuple(downloads))


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    if not (REAL / "MNIST/raw/t10k-images-idx3-ubyte.gz").is_file():
        skip_or_fail(f"the offline MNIST test files are not in {REAL}")
    src, served = tmp_path_factory.mktemp("src"), tmp_path_factory.mktemp("served")
    _public_archives(src, served, np.random.default_rng(0))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                            partial(_Quiet, directory=str(served)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield served, f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


@pytest.fixture
def data_root(tmp_path, monkeypatch, server):
    served, _ = server
    for name, recipe in data_fetch.RECIPES.items():
        if recipe.downloads:
            monkeypatch.setitem(data_fetch.RECIPES, name, _digests(recipe, served))
    monkeypatch.setenv(DATA_ENV, str(tmp_path / "data"))
    return tmp_path / "data"


def test_every_asset_of_every_chapter_has_a_recipe():
    named = {r.name for r in data_fetch.RECIPES.values()}
    assert set(paper_assets.ASSETS) <= named
    assert {"wisdm", "vehicle", "ipums_br", "ipums_mx"} <= named
    covered = {f for r in data_fetch.RECIPES.values() for choices in r.files for f in choices}
    for asset in paper_assets.ASSETS.values():
        assert set(asset.files) <= covered, asset.name
    for name in ("wisdm", "vehicle", "ipums_br", "ipums_mx"):
        assert {c[0] for c in external_data.EXTERNAL[name]["files"]} <= covered, name
    chapters = {c for r in data_fetch.RECIPES.values() for c in r.chapters}
    stems = {p.stem for p in runner.chapters()}
    assert chapters <= stems and {"01-tldp", "02-tvg", "03-pm-three-outputs", "04-spof",
                                  "05-hiera"} <= chapters
    for r in data_fetch.RECIPES.values():  # each can be fetched, or says how, or ships
        assert bool(r.downloads) + bool(r.registry) + bool(r.manual) + bool(r.bundled) == 1


def test_list_names_every_asset(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv(DATA_ENV, str(tmp_path))
    assert main(["data", "fetch", "--list"]) == 0
    out = capsys.readouterr().out
    for name in data_fetch.RECIPES:
        assert f"\n{name} " in out, name
    assert "missing" in out and "bundled" in out
    assert main(["data", "fetch", "--list", "pm", "--profile", "default"]) == 0
    assert "no data file" in capsys.readouterr().out


def test_fetch_verifies_and_unpacks_the_public_layouts(data_root, server, capsys):
    _, url = server
    said = []
    left = data_fetch.fetch(["01", "02", "03"], mirror=url, progress=False, say=said.append)
    assert sorted(left) == ["credit", "darknet", "ipums_br", "ipums_mx"]
    assert said[0].startswith("to download into") and "cifar10" in said[0]
    assert not list(data_root.glob(".fetch-*"))
    downloadable = [n for n in paper_assets.ASSETS if n not in ("darknet", "credit")]
    assert paper_assets.missing(downloadable) == {}
    assert paper_assets.load_images("cifar10").x_train.shape == (40, 3, 32, 32)
    words, _ = paper_assets.load_glove()
    x_train, y_train, *_ = paper_assets.load_imdb(words)
    assert len(y_train) == 12  # the labelled reviews only: train/unsup was not unpacked
    assert not (data_root / "aclImdb/train/unsup").exists()
    assert paper_assets.load_adult()[0].shape[0] == 120
    assert datasets.load_ctg()[0].shape == (2126, 21)
    assert len(external_data.load_wisdm()) == 60
    assert external_data.load_vehicle()[0].shape == (42, 100)
    recorded = set((data_root / data_fetch.RECORD).read_text().split('"'))
    assert {"adult.data", "WISDM_ar_latest.tar.gz", "combined_scale.bz2"} <= recorded
    assert "cifar-10-python.tar.gz" not in recorded  # published hash: nothing to record
    said.clear()
    assert data_fetch.fetch(["01", "02", "03"], mirror=url, progress=False, say=said.append)
    assert not any(s.startswith("to download") for s in said)  # everything in place


def _corrupt(path, how):
    data = bytearray(path.read_bytes())
    saved = bytes(data)
    if how == "flip":
        data[len(data) // 2] ^= 0xFF
    else:
        data = data[: len(data) // 2]
    path.write_bytes(bytes(data))
    return saved


@pytest.mark.parametrize("asset, filename, how, message", [
    ("cifar10", "cifar-10-python.tar.gz", "flip", "does not match the published MD5"),
    ("svhn", "test_32x32.mat", "truncate", "does not match the published MD5"),
    ("wisdm", "WISDM_ar_latest.tar.gz", "truncate", "not a readable archive"),
    ("vehicle", "combined_scale.t.bz2", "truncate", "does not decompress"),
])
def test_a_corrupt_or_truncated_download_is_refused(data_root, server, asset, filename,
                                                    how, message, capsys):
    served, url = server
    saved = _corrupt(served / filename, how)
    try:
        with pytest.raises(data_fetch.FetchError, match=message) as err:
            data_fetch.fetch(["01", "02", "03"], mirror=url, progress=False, say=lambda s: 0)
        assert filename in str(err.value) and "\n" not in str(err.value)
        recipe = data_fetch.RECIPES[asset]
        assert not any((data_root / c).exists() for choices in recipe.files for c in choices)
        assert not list(data_root.glob(".fetch-*"))
        record = data_root / data_fetch.RECORD
        assert not record.exists() or filename not in record.read_text()
        import sys

        from ldp_companion.__main__ import cli

        argv = ["ldp_companion", "data", "fetch", "01", "02", "03", "--mirror", url, "--quiet"]
        old, sys.argv = sys.argv, argv
        try:
            assert cli() == 2
        finally:
            sys.argv = old
        lines = capsys.readouterr().err.strip().splitlines()
        assert lines[-1].startswith("error: ") and filename in lines[-1]
    finally:
        (served / filename).write_bytes(saved)


def test_a_recorded_hash_guards_later_downloads(data_root, server):
    served, url = server
    data_fetch.fetch(["03"], mirror=url, progress=False, say=lambda s: 0)
    (data_root / "wisdm/WISDM_ar_v1.1_raw.txt").unlink()
    saved = (served / "WISDM_ar_latest.tar.gz").read_bytes()
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:  # another version of the archive
        info = tarfile.TarInfo("WISDM_ar_v1.1/WISDM_ar_v1.1_raw.txt")
        info.size = 3
        tar.addfile(info, io.BytesIO(b"1,a"))
    (served / "WISDM_ar_latest.tar.gz").write_bytes(buffer.getvalue())
    try:
        with pytest.raises(data_fetch.FetchError, match="sha256 recorded in fetched.json"):
            data_fetch.fetch(["03"], mirror=url, progress=False, say=lambda s: 0)
        assert not (data_root / "wisdm/WISDM_ar_v1.1_raw.txt").exists()
    finally:
        (served / "WISDM_ar_latest.tar.gz").write_bytes(saved)


def test_a_corrupt_file_with_a_published_hash_is_downloaded_again(data_root, server):
    _, url = server
    data_fetch.fetch(["01"], mirror=url, progress=False, say=lambda s: 0)
    images = data_root / "MNIST/raw/train-images-idx3-ubyte.gz"
    good = images.read_bytes()
    images.write_bytes(good[: len(good) // 2])
    assert data_fetch.status(["01"]).loc["mnist", "state"] == "corrupt"
    assert not data_fetch.present(data_fetch.RECIPES["mnist"])
    [line] = data_fetch.corrupt(data_fetch.RECIPES["mnist"])
    md5 = data_fetch.RECIPES["mnist"].downloads[0].md5
    assert str(images) in line and md5 in line and hashlib.md5(good[: len(good) // 2]
                                                               ).hexdigest() in line
    said = []
    data_fetch.fetch(["01"], mirror=url, progress=False, say=said.append)
    assert any(s.startswith("mnist: corrupt") and str(images) in s for s in said)
    assert "mnist: in place" in said and images.read_bytes() == good
    assert data_fetch.status(["01"]).loc["mnist", "state"] == "present"


# --------------------------------------------------------------------------- Fitbit (ch. 4)

FITBIT = ("fitbit_daily_first", "fitbit_daily_second")


@pytest.fixture
def fitbit_root(tmp_path, monkeypatch):
    """A data folder holding the two shared Fitbit CSVs, and an empty local mirror."""
    if not all((REAL / REGISTRY[n]["path"]).is_file() for n in FITBIT):
        skip_or_fail(f"the offline Fitbit files are not in {REAL}")
    root = tmp_path / "data"
    for name in FITBIT:
        (root / "fitbit").mkdir(parents=True, exist_ok=True)
        shutil.copyfile(REAL / REGISTRY[name]["path"], root / REGISTRY[name]["path"])
    served = tmp_path / "served"
    served.mkdir()
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                            partial(_Quiet, directory=str(served)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    monkeypatch.setenv(DATA_ENV, str(root))
    monkeypatch.setenv(URL_ENV, f"http://127.0.0.1:{httpd.server_address[1]}")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    yield root, served
    httpd.shutdown()
    httpd.server_close()


def test_good_fitbit_files_are_in_place(fitbit_root, capsys):
    assert main(["data", "fetch", "04", "--quiet"]) == 0  # the mirror serves nothing
    out = capsys.readouterr().out
    assert "every data file of these chapters is in place" in out and "corrupt" not in out
    assert main(["data", "fetch", "--list", "04"]) == 0
    row = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("fitbit ")]
    assert len(row) == 1 and " present " in row[0]


def test_a_truncated_fitbit_csv_is_not_in_place(fitbit_root, capsys):
    root, _ = fitbit_root
    path = root / REGISTRY["fitbit_daily_second"]["path"]
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    assert main(["data", "fetch", "--list", "04"]) == 0
    out = capsys.readouterr().out
    row = [ln for ln in out.splitlines() if ln.startswith("fitbit ")]
    assert len(row) == 1 and " corrupt " in row[0] and " present " not in row[0]
    assert "- fitbit: python -m ldp_companion data fetch 04" in out
    assert main(["data", "fetch", "04", "--quiet"]) == 1  # the mirror cannot replace it
    out = capsys.readouterr().out
    assert "fitbit: in place" not in out and "every data file" not in out
    corrupt = [ln for ln in out.splitlines() if ln.startswith("fitbit: corrupt")]
    assert len(corrupt) == 1 and str(path) in corrupt[0]
    assert REGISTRY["fitbit_daily_second"]["sha256"] in corrupt[0]
    assert hashlib.sha256(data[: len(data) // 2]).hexdigest() in corrupt[0]
    assert "fitbit: NOT in place" in out and "404" in out
    assert path.read_bytes() == data[: len(data) // 2]  # kept for a look, reported as bad


def test_a_truncated_fitbit_csv_is_downloaded_again(fitbit_root, capsys):
    root, served = fitbit_root
    path = root / REGISTRY["fitbit_daily_first"]["path"]
    good = path.read_bytes()
    path.write_bytes(good[:1000])
    entry = REGISTRY["fitbit_daily_first"]
    with zipfile.ZipFile(served / entry["remote_name"], "w") as z:
        z.writestr("Fitabase Data 3.12.16-4.11.16/dailyActivity_merged.csv", good)
    assert main(["data", "fetch", "04", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "fitbit: corrupt" in out and "fitbit: in place" in out
    assert path.read_bytes() == good and not list(root.glob(".download-*"))
