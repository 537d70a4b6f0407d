"""Chapter 2's paper networks (``ldp_companion.tvg.paper``): the feature shapes of Table III,
features in (-1, 1), and Types II-III end to end on tiny stand-ins of the CIFAR-10, SVHN,
IMDB and GloVe files (the real ones cannot be downloaded here)."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from ldp_companion.data.datasets import DataError
from ldp_companion.tvg import paper


def _clear():
    for f in (paper._data, paper._glove, paper._trained):
        f.cache_clear()


@pytest.fixture
def assets(paper_asset_root, monkeypatch, short_reviews):
    monkeypatch.setenv("LDP_COMPANION_DATA", str(paper_asset_root))
    _clear()
    yield paper_asset_root
    _clear()


@pytest.mark.parametrize("build", [paper.vgg16, paper.alexnet32])
def test_image_networks_give_table_iii_features_in_the_value_range(build):
    gen = torch.Generator().manual_seed(0)
    model = build(gen, "cpu")
    task = "cifar10" if build is paper.vgg16 else "svhn"
    with torch.no_grad():
        for layer in model[0]:      # large weights: tanh still bounds every feature
            if isinstance(layer, torch.nn.Conv2d):
                layer.weight.mul_(10)
        feats = model[0](torch.rand(3, 3, 32, 32, generator=gen) * 2 - 1)
        logits = model(torch.zeros(2, 3, 32, 32))
    assert tuple(feats.shape[1:]) == paper.FEATURE_SHAPES[task]
    assert feats.abs().max() <= 1 and logits.shape == (2, 10)


def test_bilstm_gives_150_features_in_the_value_range(assets):
    torch.manual_seed(0)
    model = paper.paper_model("imdb", torch.Generator().manual_seed(0), "cpu")
    x = torch.randint(0, 5, (4, 12))
    with torch.no_grad():
        feats, logits = model[0](x), model(x)
    assert tuple(feats.shape[1:]) == paper.FEATURE_SHAPES["imdb"] and logits.shape == (4, 2)
    assert feats.abs().max() <= 1


@pytest.mark.parametrize("kind", ["II", "III"])
def test_paper_grid_runs_every_task_on_the_stand_ins_and_repeats_exactly(assets, kind):
    mechanisms = ["none", "idn", "mvg"]

    def run():
        return paper.paper_grid(kind, list(paper.TASKS), mechanisms, [1e4], 1, 3,
                                epochs=1, head_epochs=1, n_jobs=1)

    frame = run()
    assert len(frame) == len(paper.TASKS) * len(mechanisms)
    assert frame["accuracy"].between(0, 1).all() and frame["clean_accuracy"].between(0, 1).all()
    assert set(frame["type"]) == {kind} and set(frame["epochs"]) == {1}
    _clear()
    again = run()
    cols = ["task", "mechanism", "epsilon", "accuracy", "clean_accuracy"]
    assert frame[cols].equals(again[cols])


def test_noise_reaches_the_released_features(assets):
    """At a tiny ε the released features are noise: Type III's accuracy moves off the clean
    run's (a release that skipped the noise would keep it)."""
    frame = paper.paper_grid("III", ["svhn"], ["none", "gauss_paper"], [1e-3], 2, 0,
                             epochs=1, n_jobs=1)
    clean = frame.loc[frame["mechanism"] == "none", "accuracy"]
    noisy = frame.loc[frame["mechanism"] == "gauss_paper", "accuracy"]
    assert clean.nunique() == 1 and noisy.nunique() > 1


def test_missing_files_are_named_before_any_training(tmp_path, monkeypatch):
    monkeypatch.setenv("LDP_COMPANION_DATA", str(tmp_path))
    _clear()
    with pytest.raises(DataError) as err:
        paper.paper_grid("II", ["cifar10", "imdb"], ["none"], [1.0], 1, 0)
    assert "data_batch_1" in str(err.value) and "glove" in str(err.value).lower()


@pytest.mark.parametrize("bad", [
    dict(kind="I"), dict(tasks=["mnist"]), dict(tasks=[]), dict(mechanisms=["laplace"]),
    dict(kind="II", mechanisms=["idn_iid"]), dict(epochs=0), dict(n_max=0),
    dict(head_epochs=-1), dict(device="tpu")])
def test_paper_grid_refuses_bad_input(assets, bad):
    args = dict(kind="III", tasks=["svhn"], mechanisms=["none"], epochs=1)
    args.update(bad)
    with pytest.raises(ValueError):
        paper.paper_grid(args.pop("kind"), args.pop("tasks"), args.pop("mechanisms"), [1.0],
                         1, 0, **args)


def test_assets_needed():
    assert paper.assets_needed(["svhn", "imdb"]) == ["svhn", "imdb", "glove"]
    assert np.all([t in paper.MODELS for t in paper.TASKS])


