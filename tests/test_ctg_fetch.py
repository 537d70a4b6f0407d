"""Chapter 2's CTG table from UCI's own archive: ``data fetch tvg`` downloads a stand-in of
``cardiotocography.zip`` (served on 127.0.0.1, never the internet), reads the sheet "Raw Data"
of its ``CTG.xls`` and writes ``ctg/CTG.csv``, checked by the sha256 of its values; a changed
value, a missing row or a truncated archive is refused and leaves nothing behind.

The records come from the shared offline copy of CTG.csv; without it the stand-in holds
synthetic values and only the shape path is checked (skipped, or failed when ``CI=true``).
Chapter 2's smoke run itself runs from the table ``data fetch tvg`` made
(``chapter_setups.tvg_from_fetched_ctg``, in ``tests/test_chapters.py``)."""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import serving, skip_or_fail
from ctg_standin import RAW_COLUMNS, synthetic_table, write_ctg_zip

from ldp_companion.__main__ import main
from ldp_companion.data import datasets
from ldp_companion.data.datasets import CTG_COLUMNS, DATA_ENV, REGISTRY, URL_ENV, DataError
from ldp_companion.edition import data_fetch

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get(DATA_ENV) or REPO.parent / "shared" / "data")
SHARED_CSV = SHARED / REGISTRY["ctg"]["path"]
MNIST = ("mnist_test_images", "mnist_test_labels", "mnist_train_labels")
ZIP = REGISTRY["ctg"]["remote_name"]


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    """The 2126 records (the shared CSV's, else synthetic ones)."""
    if SHARED_CSV.is_file():
        return pd.read_csv(SHARED_CSV)
    return synthetic_table(np.random.default_rng(1))


@pytest.fixture
def real(table, monkeypatch) -> bool:
    """True with the shared records; with synthetic ones the registry takes their hash."""
    if SHARED_CSV.is_file():
        return True
    values = np.ascontiguousarray(table.loc[:, list(CTG_COLUMNS)].to_numpy(np.float64))
    monkeypatch.setitem(REGISTRY["ctg"], "sha256", hashlib.sha256(values.tobytes()).hexdigest())
    return False


@pytest.fixture
def served(tmp_path):
    """(folder, URL) of a local HTTP server; the folder starts empty."""
    folder = tmp_path / "served"
    folder.mkdir()
    with serving(folder) as url:
        yield folder, url


@pytest.fixture
def root(tmp_path, monkeypatch) -> Path:
    """An empty data folder; downloads go to a closed port unless a test says otherwise."""
    monkeypatch.setenv(DATA_ENV, str(tmp_path / "data"))
    monkeypatch.setenv(URL_ENV, "http://127.0.0.1:9")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    return tmp_path / "data"


def _leftovers(root: Path) -> list[Path]:
    return sorted(root.rglob("*")) if root.exists() else []


@pytest.mark.parametrize("via", ["--mirror", URL_ENV])
def test_data_fetch_tvg_makes_ctg_csv_from_uci_zip(table, real, served, root, monkeypatch,
                                                   capsys, via):
    folder, url = served
    write_ctg_zip(folder / ZIP, table, np.random.default_rng(0))
    if real and all((SHARED / REGISTRY[n]["path"]).is_file() for n in MNIST):
        for name in MNIST:  # chapter 2's other small files, served as the public mirror does
            (folder / REGISTRY[name]["remote_name"]).write_bytes(
                (SHARED / REGISTRY[name]["path"]).read_bytes())
    else:
        monkeypatch.delitem(data_fetch.RECIPES, "mnist_test")
    argv = ["data", "fetch", "tvg", "--profile", "default", "--quiet"]
    if via == "--mirror":
        argv += ["--mirror", url]
    else:
        monkeypatch.setenv(URL_ENV, url)
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "ctg: in place" in out and "every data file of these chapters is in place" in out
    assert [p.name for p in _leftovers(root) if p.name.startswith(".")] == []
    csv = root / "ctg" / "CTG.csv"
    assert pd.read_csv(csv).columns.tolist() == list(CTG_COLUMNS)
    features, nsp = datasets.load_ctg()
    assert features.shape == (2126, 21) and nsp.shape == (2126,)
    assert main(["data", "fetch", "--list", "tvg", "--profile", "default"]) == 0
    row = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("ctg ")]
    assert len(row) == 1 and " present " in row[0]
    if not real:
        skip_or_fail(f"{SHARED_CSV} is absent: the stand-in held synthetic values, so only "
                     f"the shape was checked, not the registry's content hash")
    monkeypatch.setenv(DATA_ENV, str(SHARED))
    expected_features, expected_nsp = datasets.load_ctg()
    np.testing.assert_array_equal(features, expected_features)
    np.testing.assert_array_equal(nsp, expected_nsp)


def test_one_changed_value_in_the_workbook_is_refused(table, real, served, root):
    folder, url = served
    changed = table.copy()
    changed.loc[1000, "MSTV"] += 0.1
    write_ctg_zip(folder / ZIP, changed, np.random.default_rng(0))
    with pytest.raises(DataError) as info:
        datasets.fetch("ctg", base_url=url)
    message = str(info.value)
    assert REGISTRY["ctg"]["sha256"] in message and "(2126, 22)" in message
    assert "not stored in the cache" in message and "\n" not in message
    assert _leftovers(root) == []


def test_a_truncated_zip_is_refused(table, real, served, root, capsys):
    folder, url = served
    write_ctg_zip(folder / ZIP, table, np.random.default_rng(0))
    data = (folder / ZIP).read_bytes()
    (folder / ZIP).write_bytes(data[: len(data) // 2])
    with pytest.raises(DataError, match="BadZipFile") as info:
        datasets.fetch("ctg", base_url=url)
    assert str(root / "ctg" / "CTG.csv") in str(info.value)
    assert _leftovers(root) == []


def test_a_workbook_without_the_columns_or_with_text_is_refused(table, real, served, root):
    folder, url = served
    header = [c if c != "NSP" else "Class" for c in RAW_COLUMNS]
    write_ctg_zip(folder / ZIP, table, np.random.default_rng(0), header=header)
    with pytest.raises(DataError, match="no column NSP"):
        datasets.fetch("ctg", base_url=url)
    texty = table.astype({"Width": object})
    texty.loc[5, "Width"] = "n/a"
    write_ctg_zip(folder / ZIP, texty, np.random.default_rng(0))
    with pytest.raises(DataError, match="row 8 holds a cell that is not a number"):
        datasets.fetch("ctg", base_url=url)
    assert _leftovers(root) == []


def _place(root: Path, frame: pd.DataFrame, **to_csv) -> Path:
    path = root / "ctg" / "CTG.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(path, index=False, **to_csv)
    return path


def test_load_ctg_checks_the_values_not_the_bytes(table, real, root):
    other_tool = table.loc[:, list(CTG_COLUMNS)[::-1]].astype(np.float64)
    other_tool.insert(0, "FileName", "x.txt")  # other columns, order, number format, CRLF
    _place(root, other_tool, float_format="%.3f", lineterminator="\r\n")
    features, nsp = datasets.load_ctg()
    np.testing.assert_array_equal(features, table.loc[:, list(CTG_COLUMNS[:-1])].to_numpy())
    np.testing.assert_array_equal(nsp, table["NSP"].to_numpy())


@pytest.mark.parametrize("damage, found", [
    (lambda t: t.assign(LB=t["LB"].where(t.index != 7, t["LB"] + 1)), "(2126, 22)"),
    (lambda t: t.drop(index=2125), "(2125, 22)"),
    (lambda t: t.drop(columns="Tendency"), "found shape None"),
])
def test_load_ctg_refuses_other_values(table, real, root, damage, found):
    path = _place(root, damage(table))
    with pytest.raises(DataError) as info:
        datasets.load_ctg()
    message = str(info.value)
    assert str(path) in message and found in message
    assert "expected shape (2126, 22)" in message and REGISTRY["ctg"]["sha256"] in message
    assert "data fetch" in message and "cardiotocography.zip" in message


def test_data_fetch_replaces_a_corrupt_ctg_csv(table, real, served, root, monkeypatch):
    folder, url = served
    monkeypatch.delitem(data_fetch.RECIPES, "mnist_test")  # chapter 2's CTG only
    path = _place(root, table.drop(index=0))
    status = data_fetch.status(["02"], "default")
    assert status.loc["ctg", "state"] == "corrupt"
    lines = data_fetch.corrupt(data_fetch.RECIPES["ctg"])
    assert len(lines) == 1 and str(path) in lines[0] and "(2125, 22)" in lines[0]
    said = []
    with pytest.raises(DataError):  # a loader never replaces a file: it says so
        datasets.fetch("ctg", base_url=url)
    write_ctg_zip(folder / ZIP, table, np.random.default_rng(0))
    assert datasets.fetch("ctg", base_url=url, replace_bad=True) == path
    assert datasets.load_ctg()[0].shape == (2126, 21)
    _place(root, table.drop(index=0))
    left = data_fetch.fetch(["02"], profile="default", mirror=url, progress=False,
                            say=said.append)
    assert "ctg" not in left and "ctg: in place" in said
    assert any(s.startswith("ctg: corrupt") and str(path) in s for s in said)
    datasets.verify("ctg")
