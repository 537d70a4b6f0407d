"""Tests of the external (not downloadable) data sets: tiny fake files in the real formats.

No network: every file is written into a temporary cache that ``$LDP_COMPANION_DATA`` points at.
"""
from __future__ import annotations

import bz2
import hashlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from sklearn.datasets import dump_svmlight_file

from ldp_companion.data.datasets import DataError
from ldp_companion.pm import external_data as ext

WISDM_TEXT = (
    "33,Jogging,49105962326000,-0.6946377,12.680544,0.50395286;\n"
    "33,Jogging,49106062271000,5.012288,11.264028,0.95342433;\n"
    "\n"
    "11,Walking,1867172313000,4.4,4.4,;\n"          # missing z: dropped
    "7,Sitting,100,1.5,2.5,3.5;8,Standing,200,-1,-2,-3;\n"  # two records on one line
    "33,Jogging,49106332290000,-0.8036005,4.7798,\n"  # missing z, no ';': dropped
    "12,Upstairs,0,1.0,2.0,3.0\n"                   # no ';' but complete: kept
    "x,Walking,1,2,3,4;\n"                          # non-numeric user: dropped
    "5,Downstairs,300,0.1,0.2;\n"                   # five fields: dropped
)


@pytest.fixture
def cache(monkeypatch, tmp_path) -> Path:
    root = tmp_path / "cache"
    root.mkdir()
    monkeypatch.setenv("LDP_COMPANION_DATA", str(root))
    return root


def _write_wisdm(cache: Path) -> Path:
    path = cache / "wisdm" / "WISDM_ar_v1.1_raw.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(WISDM_TEXT)
    return path


def _write_libsvm(path: Path, labels, seed: int, compress: bool) -> np.ndarray:
    X = np.random.default_rng(seed).uniform(-1, 1, (len(labels), ext.VEHICLE_N_FEATURES))
    X[:, 5] = 0.0  # sparse entries are left out of the file
    path.parent.mkdir(parents=True, exist_ok=True)
    plain = path.with_suffix("") if compress else path
    dump_svmlight_file(X, np.asarray(labels, float), str(plain), zero_based=False)
    if compress:
        path.write_bytes(bz2.compress(plain.read_bytes()))
        plain.unlink()
    return X


TRAIN_LABELS = [1, 2, 3, 1, 3, 2, 3]
TEST_LABELS = [3, 1, 2]


def _write_vehicle(cache: Path, stem: str = "combined_scale"):
    X_train = _write_libsvm(cache / "vehicle" / f"{stem}.bz2", TRAIN_LABELS, 0, True)
    X_test = _write_libsvm(cache / "vehicle" / f"{stem}.t", TEST_LABELS, 1, False)
    return X_train, X_test


def _ipums_frame(country: str, n: int = 12, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    spec = ext.IPUMS_COLUMNS[country]
    data = {c: rng.integers(0, 90, n) for c in spec["numeric"]}
    data[spec["target"]] = rng.integers(0, 50_000, n)
    data.update({c: rng.integers(1, 5, n) for c in spec["categorical"]})
    data["SERIAL"] = np.arange(n)  # extra columns of the extract are ignored
    return pd.DataFrame(data)


def _write_ipums(cache: Path, country: str, frame: pd.DataFrame, suffix: str = ".csv") -> Path:
    path = cache / "ipums" / f"ipums_{country.lower()}{suffix}"
    path.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(path, index=False)
    return path


# --------------------------------------------------------------------------- require

def test_require_on_empty_cache_names_every_missing_file(cache):
    with pytest.raises(DataError) as info:
        ext.require(list(ext.EXTERNAL))
    message = str(info.value)
    for entry in ext.EXTERNAL.values():
        assert entry["url"] in message
        for choices in entry["files"]:
            assert str(cache / choices[0]) in message
    assert "LDP_COMPANION_DATA" in message
    assert message.count("\n- ") == sum(len(e["files"]) for e in ext.EXTERNAL.values())


def test_require_lists_only_what_is_missing_and_returns_paths(cache):
    _write_wisdm(cache)
    _write_vehicle(cache)
    with pytest.raises(DataError) as info:
        ext.require(["wisdm", "vehicle", "ipums_mx"])
    assert "ipums_mx.csv" in str(info.value)
    assert "wisdm" not in str(info.value) and "combined_scale" not in str(info.value)
    found = ext.require(["wisdm", "vehicle"])
    assert found["wisdm"] == [cache / "wisdm" / "WISDM_ar_v1.1_raw.txt"]
    assert found["vehicle"] == [cache / "vehicle" / "combined_scale.bz2",
                                cache / "vehicle" / "combined_scale.t"]
    assert ext.require("wisdm") == {"wisdm": found["wisdm"]}


def test_require_rejects_unknown_names(cache):
    with pytest.raises(ValueError, match="adult"):
        ext.require(["wisdm", "adult"])


# --------------------------------------------------------------------------- WISDM

def test_load_wisdm_parses_and_drops_malformed_records(cache):
    _write_wisdm(cache)
    frame = ext.load_wisdm()
    assert list(frame.columns) == list(ext.WISDM_COLUMNS)
    assert frame.shape == (5, 6)
    assert frame.attrs["n_dropped"] == 4
    assert frame["user"].tolist() == [33, 33, 7, 8, 12]
    assert frame["activity"].tolist() == ["Jogging", "Jogging", "Sitting", "Standing",
                                          "Upstairs"]
    assert frame["timestamp"].dtype == np.int64 and frame["x"].dtype == np.float64
    assert frame["timestamp"].iloc[0] == 49105962326000
    np.testing.assert_allclose(frame.loc[3, ["x", "y", "z"]].to_numpy(float), [-1, -2, -3])


def test_load_wisdm_explicit_path_and_checksum(cache, tmp_path):
    path = _write_wisdm(tmp_path / "elsewhere")
    good = hashlib.sha256(path.read_bytes()).hexdigest()
    assert len(ext.load_wisdm(path, sha256=good)) == 5
    assert len(ext.load_wisdm(str(path), sha256=good.upper())) == 5
    with pytest.raises(DataError, match="checksum mismatch"):
        ext.load_wisdm(path, sha256="0" * 64)


def test_load_wisdm_missing_file_says_where_to_get_it(cache):
    with pytest.raises(DataError) as info:
        ext.load_wisdm()
    message = str(info.value)
    assert str(cache / "wisdm" / "WISDM_ar_v1.1_raw.txt") in message
    assert "https://www.cis.fordham.edu/wisdm/dataset.php" in message
    assert "WISDM_ar_latest.tar.gz" in message


# --------------------------------------------------------------------------- Vehicle

def test_load_vehicle_one_vs_rest(cache):
    X_train, X_test = _write_vehicle(cache)
    X, y = ext.load_vehicle()
    assert X.shape == (10, 100) and X.dtype == np.float64
    np.testing.assert_allclose(X, np.vstack([X_train, X_test]), atol=1e-12)
    expected = np.where(np.array(TRAIN_LABELS + TEST_LABELS) == 1, 1, -1)
    np.testing.assert_array_equal(y, expected)
    assert y.dtype == np.int64


def test_load_vehicle_class_pair_and_splits(cache):
    _write_vehicle(cache)
    X, y = ext.load_vehicle(positive=1, negative=2)
    labels = np.array(TRAIN_LABELS + TEST_LABELS)
    keep = labels != 3
    assert X.shape == (keep.sum(), 100)
    np.testing.assert_array_equal(y, np.where(labels[keep] == 1, 1, -1))
    assert ext.load_vehicle(split="train")[0].shape == (7, 100)
    X_test, y_test = ext.load_vehicle(split="test", positive=3)
    np.testing.assert_array_equal(y_test, [1, -1, -1])
    assert set(ext.load_vehicle(positive=2)[1]) == {-1, 1}


def test_load_vehicle_path_file_or_folder(cache, tmp_path):
    folder = tmp_path / "mine" / "vehicle"
    _write_vehicle(tmp_path / "mine")
    assert ext.load_vehicle(folder)[0].shape == (10, 100)
    X, y = ext.load_vehicle(folder / "combined_scale.t")
    assert X.shape == (3, 100)


def test_load_vehicle_unscaled_missing(cache):
    _write_vehicle(cache)
    with pytest.raises(DataError) as info:
        ext.load_vehicle(scaled=False)
    assert str(cache / "vehicle" / "combined.bz2") in str(info.value)
    assert ext.EXTERNAL["vehicle"]["url"] in str(info.value)
    _write_vehicle(cache, stem="combined")
    assert ext.load_vehicle(scaled=False)[0].shape == (10, 100)


def test_load_vehicle_split_needs_only_its_file(cache):
    _write_libsvm(cache / "vehicle" / "combined_scale.t.bz2", TEST_LABELS, 1, True)
    assert ext.load_vehicle(split="test")[0].shape == (3, 100)
    with pytest.raises(DataError) as info:
        ext.load_vehicle()
    assert "combined_scale.bz2" in str(info.value)
    assert str(info.value).startswith("1 external data file(s) missing")


def test_load_vehicle_argument_checks(cache):
    with pytest.raises(ValueError, match="split"):
        ext.load_vehicle(split="valid")
    with pytest.raises(ValueError, match="differ"):
        ext.load_vehicle(positive=1, negative=1)
    with pytest.raises(TypeError):
        ext.load_vehicle(scaled="yes")


# --------------------------------------------------------------------------- IPUMS

def test_load_ipums_br(cache):
    frame = _ipums_frame("BR")
    frame.loc[2, "INCTOT"] = 9999999  # NIU: dropped
    frame.loc[5, "AGE"] = np.nan      # missing: dropped
    frame = frame.rename(columns={"SEX": "sex", "AGE": "Age"})  # header case does not matter
    _write_ipums(cache, "BR", frame)
    numeric, categorical, target = ext.load_ipums("BR")
    assert numeric.shape == (10, 5) and categorical.shape == (10, 10) and len(target) == 10
    assert list(numeric.columns) == ["AGE", "PERSONS", "FAMSIZE", "NCHILD", "NCHLT5"]
    assert list(categorical.columns) == list(ext.IPUMS_COLUMNS["BR"]["categorical"])
    assert numeric.attrs["n_dropped"] == 2
    kept = frame.drop(index=[2, 5])
    np.testing.assert_array_equal(target.to_numpy(), kept["INCTOT"].to_numpy(float))
    assert target.dtype == np.float64 and (numeric.dtypes == np.float64).all()
    features = ext.preprocess_for_ldp(numeric, categorical)
    assert features.shape[0] == 10 and features.abs().max().max() <= 1


def test_load_ipums_mx_gzip_and_lower_case_country(cache):
    _write_ipums(cache, "MX", _ipums_frame("MX"), suffix=".csv.gz")
    numeric, categorical, target = ext.load_ipums("mx")
    assert numeric.shape == (12, 4) and categorical.shape == (12, 14) and len(target) == 12


def test_load_ipums_missing_columns_are_all_listed(cache):
    _write_ipums(cache, "MX", _ipums_frame("MX").drop(columns=["MARST", "INCTOT"]))
    with pytest.raises(DataError) as info:
        ext.load_ipums("MX")
    assert "MARST" in str(info.value) and "INCTOT" in str(info.value)
    assert "IPUMS_COLUMNS" in str(info.value)


def test_load_ipums_missing_file_and_bad_country(cache):
    with pytest.raises(DataError, match="international.ipums.org"):
        ext.load_ipums("BR")
    with pytest.raises(ValueError, match="country"):
        ext.load_ipums("US")


def test_ipums_column_counts_match_the_paper():
    br, mx = ext.IPUMS_COLUMNS["BR"], ext.IPUMS_COLUMNS["MX"]
    assert (len(br["numeric"]), len(br["categorical"])) == (6, 10)
    assert (len(mx["numeric"]), len(mx["categorical"])) == (5, 14)
    assert br["target"] in br["numeric"] and mx["target"] in mx["numeric"]


# --------------------------------------------------------------------------- preprocessing

def test_preprocess_example():
    numeric = pd.DataFrame({"age": [20.0, 40.0, 30.0]})
    categorical = pd.DataFrame({"c": ["b", "a", "c"], "one": [7, 7, 7]})
    out = ext.preprocess_for_ldp(numeric, categorical)
    assert list(out.columns) == ["age", "c=a", "c=b"]
    np.testing.assert_array_equal(out.to_numpy(), [[-1, -1, 1], [1, 1, -1], [0, -1, -1]])
    assert list(ext.preprocess_for_ldp(categorical=categorical).columns) == ["c=a", "c=b"]
    assert list(ext.preprocess_for_ldp(numeric).columns) == ["age"]


def test_preprocess_argument_checks():
    with pytest.raises(ValueError):
        ext.preprocess_for_ldp()
    with pytest.raises(ValueError, match="rows"):
        ext.preprocess_for_ldp(pd.DataFrame({"a": [1.0]}), pd.DataFrame({"c": [1, 2]}))
    with pytest.raises(ValueError, match="missing"):
        ext.preprocess_for_ldp(categorical=pd.DataFrame({"c": [1, None]}))
    with pytest.raises(TypeError):
        ext.preprocess_for_ldp(np.zeros((2, 2)))


@settings(max_examples=60, deadline=None)
@given(data=st.data(), n=st.integers(1, 25), d_num=st.integers(0, 3), d_cat=st.integers(0, 3))
def test_preprocess_property(data, n, d_num, d_cat):
    numeric = pd.DataFrame(data.draw(hnp.arrays(
        np.float64, (n, d_num), elements=st.floats(-1e9, 1e9, allow_nan=False))))
    codes = data.draw(hnp.arrays(np.int64, (n, d_cat), elements=st.integers(0, 4)))
    categorical = pd.DataFrame(codes, columns=[f"c{j}" for j in range(d_cat)])
    out = ext.preprocess_for_ldp(numeric, categorical)
    ks = [len(np.unique(codes[:, j])) for j in range(d_cat)]
    assert out.shape == (n, d_num + sum(k - 1 for k in ks))
    values = out.to_numpy()
    assert np.all(np.abs(values[:, :d_num]) <= 1)
    binary = values[:, d_num:]
    assert np.all(np.isin(binary, [-1.0, 1.0]))
    start = d_num
    for j, k in enumerate(ks):
        block = values[:, start:start + k - 1]
        largest = codes[:, j] == codes[:, j].max()
        assert np.all(block[largest] == -1)             # value k: all -1
        assert np.all((block[~largest] == 1).sum(axis=1) == 1)  # value l < k: one +1
        start += k - 1


def test_paper_tasks_build_from_the_real_file_formats(cache):
    from ldp_companion.pm.experiments import paper_tasks

    with pytest.raises(DataError, match="WISDM_ar_v1.1_raw.txt"):
        paper_tasks(np.random.default_rng(0))
    _write_wisdm(cache)
    _write_vehicle(cache)
    for country in ("BR", "MX"):
        _write_ipums(cache, country, _ipums_frame(country, n=40))
    mean_tasks, learn = paper_tasks(np.random.default_rng(0), vehicle_last=5)
    assert [t.name for t in mean_tasks] == ["WISDM", "BR", "MX", "Vehicle (last 5)"]
    assert mean_tasks[1].X.shape[1] == 6 and mean_tasks[2].X.shape[1] == 5
    assert mean_tasks[1].budget_share == pytest.approx(6 / 16)
    for t in mean_tasks:
        assert np.abs(t.X).max() <= 1
    assert [t.task for t in learn] == ["linear", "logistic", "svm"]
    assert set(np.unique(learn[1].y_train)) <= {-1.0, 1.0}
    assert learn[2].X_train.shape[1] == 100
    assert len(learn[2].y_train) + len(learn[2].y_test) == len(TRAIN_LABELS) + len(TEST_LABELS)
