"""The paper profiles' assets (``ldp_companion.data.paper_assets``): what is missing is named, the
loaders read the public archives' layouts, and chapter 1's paper experiments run end to end on
tiny stand-ins of those files (the real ones cannot be downloaded here). Chapter 1's smoke run
itself runs with CIFAR-10 and MobileNetV2 stand-ins (``chapter_setups.tldp_paper_networks``, in
``tests/test_chapters.py``)."""
from __future__ import annotations

import gzip

import numpy as np
import pytest
import torch
from fake_assets import N_TEST, N_TRAIN, WORDS, write_mnist

from ldp_companion.data import paper_assets
from ldp_companion.data.datasets import DataError
from ldp_companion.tldp import paper


def _clear_caches():
    for f in (paper.paper_data, paper._mobilenet_state, paper._glove, paper._tanh_features):
        f.cache_clear()


def _use_root(root, monkeypatch):
    """Point the data folder at ``root`` with the per-process caches cleared (and after)."""
    monkeypatch.setenv("LDP_COMPANION_DATA", str(root))
    _clear_caches()
    yield root
    _clear_caches()


@pytest.fixture
def empty_root(tmp_path, monkeypatch):
    yield from _use_root(tmp_path, monkeypatch)


@pytest.fixture
def assets(paper_asset_root, monkeypatch, short_reviews):
    yield from _use_root(paper_asset_root, monkeypatch)


def test_every_missing_file_is_named_with_its_source(empty_root):
    gaps = paper_assets.missing(list(paper_assets.ASSETS))
    assert set(gaps) == set(paper_assets.ASSETS)
    message = paper_assets.missing_message(["cifar10", "mobilenet_v2"])
    for f in paper_assets.ASSETS["cifar10"].files + paper_assets.ASSETS["mobilenet_v2"].files:
        assert str(empty_root / f) in message
    assert "cifar-10-python.tar.gz" in message and "mobilenet_v2-b0353104.pth" in message
    with pytest.raises(DataError, match="data_batch_3"):
        paper_assets.require("cifar10")
    with pytest.raises(DataError, match="train-images-idx3"):
        paper.paper_grid("I", ["mnist"], ["none"], [1.0], 1, 0)   # before any training
    assert paper_assets.status()["missing"].eq(paper_assets.status()["files"]).all()


def test_one_missing_file_is_named_alone(empty_root):
    write_mnist(empty_root, np.random.default_rng(0))
    assert paper_assets.missing("mnist") == {}
    (empty_root / "MNIST/raw/t10k-labels-idx1-ubyte.gz").unlink()
    assert paper_assets.missing(["mnist"]) == {
        "mnist": [empty_root / "MNIST/raw/t10k-labels-idx1-ubyte.gz"]}
    (empty_root / "aclImdb/train/pos").mkdir(parents=True)          # an empty folder is absent
    assert empty_root / "aclImdb/train/pos" in paper_assets.missing("imdb")["imdb"]


def test_image_loaders_read_the_archives_layouts(assets):
    for name, shape in (("mnist", (1, 28, 28)), ("cifar10", (3, 32, 32)),
                        ("svhn", (3, 32, 32))):
        d = paper_assets.load_images(name)
        assert d.x_train.shape == (N_TRAIN, *shape) and d.x_test.shape == (N_TEST, *shape)
        assert d.x_train.dtype == np.float32
        assert -1.0 <= d.x_train.min() and d.x_train.max() <= 1.0
        np.testing.assert_array_equal(d.y_test, np.arange(N_TEST) % 10)   # SVHN's 10 is a 0


def test_a_malformed_file_is_named(empty_root):
    write_mnist(empty_root, np.random.default_rng(0))
    path = empty_root / "MNIST/raw/train-images-idx3-ubyte.gz"
    path.write_bytes(gzip.compress(gzip.decompress(path.read_bytes())[:1000]))   # truncated
    with pytest.raises(DataError, match="train-images-idx3-ubyte.gz"):
        paper_assets.load_images("mnist")


def test_darknet_as_the_authors_code_reads_it(assets):
    x_tr, y_tr, x_te, y_te = paper_assets.load_darknet()
    assert len(y_tr) == 40 and len(y_te) == 10                      # the last 20 %
    assert x_tr.shape[1] == 3                                       # identifiers dropped
    np.testing.assert_array_equal(y_tr[:4], [0, 0, 1, 1])           # Tor and VPN are 1
    assert x_tr.min() == 0.0 and x_tr.max() == 1.0 and np.isfinite(x_te).all()


def test_imdb_as_glove_indices(assets):
    words, vectors = paper_assets.load_glove()
    assert words == WORDS and vectors.shape == (len(WORDS), 100)
    x_tr, y_tr, x_te, y_te = paper_assets.load_imdb(words, max_len=20)
    assert x_tr.shape == (12, 20) and list(y_tr[:6]) == [1] * 6 and list(y_tr[6:]) == [0] * 6
    tokens = paper_assets.tokenize("It's a good great movie!<br />The film, zyzzyva 0.")
    expected = [words.index(t) + 1 if t in words else len(words) + 1 for t in tokens]
    np.testing.assert_array_equal(x_tr[0, :len(tokens)], expected)
    assert (x_tr[0, len(tokens):] == 0).all()                       # padding
    assert paper_assets.tokenize("Good<br />film!") == ["good", "film", "!"]


def test_tanh_mobilenet_features_lie_in_the_value_range(assets):
    """Type II's features lie in [-1, 1] (value range 2) only because every ReLU6 became tanh:
    with large BatchNorm scales the ReLU6 network's features pass 1, the tanh one's do not."""
    gen = torch.Generator().manual_seed(0)
    x = torch.rand(4, 3, 32, 32) * 2 - 1
    feats, counts = {}, {}
    for tanh in (True, False):
        model = paper.mobilenet(10, tanh=tanh, gen=gen, device=torch.device("cpu")).eval()
        with torch.no_grad():
            for m in model.modules():
                if isinstance(m, torch.nn.BatchNorm2d):
                    m.weight.mul_(50.0)
            feats[tanh] = model.features(x).mean(dim=(2, 3))
        counts[tanh] = sum(isinstance(m, (torch.nn.Tanh, torch.nn.ReLU6))
                           for m in model.modules())
    assert feats[True].abs().max() <= 1 and feats[False].max() > 1
    assert counts[True] == counts[False] == 35
    assert not any(isinstance(m, torch.nn.ReLU6) for m in
                   paper.mobilenet(10, tanh=True, gen=gen, device="cpu").modules())


@pytest.mark.parametrize("kind,task", [("I", "mnist"), ("II", "cifar10"), ("III", "svhn"),
                                       ("III", "imdb"), ("III", "darknet")])
def test_paper_experiments_run_on_the_stand_ins(assets, kind, task):
    frame = paper.paper_grid(kind, [task], ["none", "tldp_g"], [1.0], 1, 0, epochs=1)
    assert list(frame["mechanism"]) == ["none", "tldp_g"]
    assert frame["f1"].between(0, 1).all() and (frame["n_train"] == {
        "imdb": 12, "darknet": 40}.get(task, N_TRAIN)).all()
    assert (frame["type"] == kind).all() and (frame["epochs"] == 1).all()


def test_paper_experiments_repeat_exactly(assets):
    runs = [paper.paper_grid("III", ["darknet"], ["laplace"], [10.0], 1, 3, epochs=2)
            for _ in range(2)]
    cols = ["f1", "n_params", "n_train"]
    assert runs[0][cols].equals(runs[1][cols])


def test_paper_grid_refuses_bad_input(assets):
    with pytest.raises(ValueError, match="kind"):
        paper.paper_grid("IV", ["mnist"], ["none"], [1.0], 1, 0)
    with pytest.raises(ValueError, match="tasks of Type I"):
        paper.paper_grid("I", ["imdb"], ["none"], [1.0], 1, 0)      # Type I is images only
    with pytest.raises(ValueError, match="epochs"):
        paper.paper_grid("I", ["mnist"], ["none"], [1.0], 1, 0, epochs=0)
    assert paper.assets_needed("III", ["imdb", "mnist"]) == ["imdb", "glove", "mnist",
                                                             "mobilenet_v2"]


def test_reported_levels_take_tldps_best_mean_below_the_bound():
    import pandas as pd

    rows = [("I", "svhn", m, e, r, f) for m, e, f0 in
            [("tldp_g", 0.3, 0.80), ("tldp_g", 3.0, 0.99), ("tldp_l", 0.3, 0.86),
             ("laplace", 0.3, 0.97)] for r, f in enumerate((f0 - 0.01, f0 + 0.01))]
    frame = pd.DataFrame(rows, columns=["type", "task", "mechanism", "epsilon", "run", "f1"])
    assert paper.claim_assets("fig1-other-data") == ["cifar10", "mobilenet_v2", "svhn"]
    levels = paper.reported_levels(frame, "fig1-other-data")
    assert list(levels.index) == ["Type I, SVHN"]              # no CIFAR-10 cells: no row
    assert levels.loc["Type I, SVHN", "ours"] == pytest.approx(0.86)   # not 0.99 (ε ≥ 1)
    assert levels.loc["Type I, SVHN", "eps"] == 0.3                     # nor a baseline
    assert paper.reported_levels(None, "fig3-other-data").empty


def test_tvg_grids_draw_from_all_mnist_images_when_they_are_there(empty_root):
    from ldp_companion.tvg import experiments as tvg

    with pytest.raises(DataError, match="train-images-idx3"):
        tvg.type3_grid(["none"], [1e5], 1, 0, n_train=40, n_test=20, mnist="all")
    with pytest.raises(ValueError, match="mnist must be one of"):
        tvg.type3_grid(["none"], [1e5], 1, 0, mnist="train")
    with pytest.raises(ValueError, match="10000 MNIST images"):
        tvg.type2_grid(["none"], [1e5], 1, 0, n_public=8000, n_private=4000)   # test split
    write_mnist(empty_root, np.random.default_rng(0))
    tvg._mnist.cache_clear()
    try:
        images, labels = tvg._mnist("all")
        assert images.shape == (N_TRAIN + N_TEST, 28, 28) and len(labels) == N_TRAIN + N_TEST
        assert 0.0 <= images.min() and images.max() <= 1.0
        frame = tvg.type3_grid(["none", "idn"], [1e5], 1, 0, n_train=40, n_test=20, epochs=1,
                               mnist="all", n_jobs=1)
        assert frame["accuracy"].between(0, 1).all() and len(frame) == 2
    finally:
        tvg._mnist.cache_clear()
        tvg._type3_model.cache_clear()


def test_the_status_table_names_assets_in_words(empty_root):
    from ldp_companion.page.tables import assets_table

    html = assets_table(["mobilenet_v2", "cifar10"]).to_html()
    assert "MobileNetV2 weights (ImageNet)" in html and "CIFAR-10" in html
    assert "mobilenet_v2" not in html.split("<tbody>")[1].split("</th>")[0]
