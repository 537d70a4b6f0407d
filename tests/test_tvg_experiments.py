"""Chapter 2 (TVG) experiment code: the Type I/II/III grids of Sec. VIII at tiny sizes.

Measured on this 2-core machine (seeds 0-3): a LeNet-5 trained two epochs on 1000 images
reads the 600 next ones at accuracy 0.70-0.73 (threshold 0.5); IDN at ε = 1 (per-entry std
in the thousands against features in (-1, 1)) gives 0.10-0.12 (threshold 0.3, chance is
0.1). The non-private Type I MLP reaches AUC 0.98-0.99 after 10 epochs (seeds 0-2,
threshold 0.9).
"""
from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pytest
import torch
from conftest import skip_or_fail

from ldp_companion.neural import device as D
from ldp_companion.tvg import experiments as X

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("LDP_COMPANION_DATA") or REPO.parent / "shared" / "data")
MNIST_FILES = ("MNIST/raw/t10k-images-idx3-ubyte.gz", "MNIST/raw/t10k-labels-idx1-ubyte.gz")

T3 = dict(n_train=1000, n_test=600, epochs=2)
T2 = dict(n_public=600, n_private=300, n_test=300, extractor_epochs=1, head_epochs=1)
T1 = dict(epochs=2)


@pytest.fixture
def mnist(monkeypatch):
    """Point the loader at the shared MNIST files (skip when they are missing)."""
    if not all((SHARED / f).exists() for f in MNIST_FILES):
        skip_or_fail(f"MNIST test files are not in {SHARED} (set LDP_COMPANION_DATA)")
    monkeypatch.setenv("LDP_COMPANION_DATA", str(SHARED))


# --------------------------------------------------------------------------- helpers

def test_one_thread_restores_torch_threads():
    before = torch.get_num_threads()
    with D.one_thread():
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == before


def test_lenet5_shapes_and_range():
    model = X.lenet5(torch.Generator().manual_seed(0), torch.device("cpu"))
    x = torch.rand(3, 1, 28, 28, generator=torch.Generator().manual_seed(1)) * 50
    feats = model[0](x)
    assert feats.shape == (3, *X.FEATURE_SHAPE)
    assert feats.abs().max() < 1
    assert model(x).shape == (3, 10)
    assert model[1][1].weight.shape == (120, math.prod(X.FEATURE_SHAPE))


def linf_ok(clip_fn, clip=0.5) -> bool:
    """Every clipped entry lies in [-clip, clip], small entries are left unchanged and large
    ones become ±clip (element-wise, whatever the other entries)."""
    g = torch.linspace(-3, 3, 61).reshape(61, 1).repeat(1, 4)     # per-example rows
    grads = {"w": g, "b": g[:, 0] * 0.1}
    out = clip_fn(grads, clip)
    small = g.abs() <= clip
    return bool(all(out[k].abs().max() <= clip for k in grads)
                and torch.equal(out["w"][small], g[small])
                and torch.equal(out["w"][~small], clip * g[~small].sign())
                and torch.equal(out["b"], grads["b"].clamp(-clip, clip)))


def l2_clip(grads, clip):
    """Mutant: per-tensor ℓ2 clipping (DP-SGD's usual choice) instead of ℓ∞."""
    out = {}
    for k, g in grads.items():
        norm = g.reshape(len(g), -1).norm(dim=1).reshape(-1, *[1] * (g.ndim - 1))
        out[k] = g * torch.clamp(clip / norm, max=1.0)
    return out


def test_clip_per_example_is_linf_and_the_check_can_fail():
    assert linf_ok(X.clip_per_example)
    assert not linf_ok(l2_clip)
    assert not linf_ok(lambda grads, clip: grads)                    # no clipping
    assert not linf_ok(lambda grads, clip: {k: g.clamp(-2 * clip, 2 * clip)
                                            for k, g in grads.items()})


def test_type1_uses_the_clipping(monkeypatch):
    """Private cells clip through :func:`clip_per_example`; "none" does not clip."""
    real, calls = X.clip_per_example, []

    def spy(grads, clip):
        calls.append(clip)
        return real(grads, clip)

    monkeypatch.setattr(X, "clip_per_example", spy)
    kw = dict(run=0, data_seed=0, clip=0.7, lot=64, epochs=1, hidden=4, lr=0.1, device="cpu")
    X.type1_cell(mechanism="none", epsilon=math.inf, rng=np.random.default_rng(0), **kw)
    assert calls == []
    X.type1_cell(mechanism="optimized", epsilon=8.0, rng=np.random.default_rng(0), **kw)
    assert calls and set(calls) == {0.7}


# --------------------------------------------------------------------------- grids

def _check_frame(df, cols, mechanisms, eps_grid, runs, task):
    assert list(df.columns) == ["task", "mechanism", "epsilon", "run", *cols]
    n_none = runs if "none" in mechanisms else 0
    assert len(df) == n_none + (len(mechanisms) - bool(n_none)) * len(eps_grid) * runs
    assert (df["task"] == task).all()
    none = df[df["mechanism"] == "none"]
    assert len(none) == n_none and np.isinf(none["epsilon"]).all()
    assert not np.isinf(df.loc[df["mechanism"] != "none", "epsilon"]).any()
    assert sorted(df["run"].unique()) == list(range(runs))


def test_type3_grid_columns_and_behaviour(mnist):
    mechs = list(X.TYPE3_MECHANISMS)
    df = X.type3_grid(mechs, [1.0, 1e7], 1, 0, n_jobs=1, **T3)
    _check_frame(df, ["accuracy", "clean_accuracy", "seconds"], mechs, [1.0, 1e7], 1, "mnist")
    assert df["clean_accuracy"].nunique() == 1
    acc = df.set_index(["mechanism", "epsilon"])["accuracy"]
    assert acc["none", math.inf] == df["clean_accuracy"].iloc[0]
    assert acc["none", math.inf] > 0.5
    assert acc["idn", 1.0] < 0.3
    assert acc["idn_iid", 1.0] < 0.3


def test_type3_chance_check_notices_a_release_without_noise(mnist, monkeypatch):
    """Mutant: a directional release that returns the features unchanged; the "< 0.3" check
    of the test above would then fail."""
    monkeypatch.setattr(X, "directional_release", lambda m, x, w, e, d, **kw: x.copy())
    df = X.type3_grid(["idn"], [1.0], 1, 0, n_jobs=1, **T3)
    assert df["accuracy"].iloc[0] >= 0.3


def test_type2_grid_columns(mnist):
    mechs = ["none", "gauss_l2", "idn", "mvg"]
    df = X.type2_grid(mechs, [1e2, 1e6], 2, 0, n_jobs=1, **T2)
    _check_frame(df, ["accuracy", "extractor_accuracy", "seconds"], mechs, [1e2, 1e6], 2,
                 "mnist")
    assert df["extractor_accuracy"].nunique() == 1
    assert df["accuracy"].between(0, 1).all()


def test_type1_grid_columns_and_behaviour():
    mechs = list(X.TYPE1_MECHANISMS)
    df = X.type1_grid(mechs, [0.5, 8.0], 1, 0, n_jobs=1, epochs=10)
    _check_frame(df, ["auc", "accuracy", "noise_std", "seconds"], mechs, [0.5, 8.0], 1,
                 "breast_cancer")
    by = df.set_index(["mechanism", "epsilon"])
    assert by.loc[("none", math.inf), "auc"] > 0.9
    assert by.loc[("none", math.inf), "noise_std"] == 0
    std = by["noise_std"].drop(("none", math.inf))
    assert (std > 0).all()
    for m in mechs[1:]:                      # more privacy, more noise
        assert by.loc[(m, 0.5), "noise_std"] > by.loc[(m, 8.0), "noise_std"]


@pytest.mark.determinism  # the BLAS free here, one thread in .ci/run's second pass
def test_serial_and_parallel_tables_agree(mnist):
    for grid, mechs, extra in [(X.type3_grid, ["none", "gauss_l2", "udn"], T3),
                               (X.type1_grid, ["none", "idn"], T1)]:
        kw = dict(mechanisms=mechs, eps_grid=[8.0], runs=2, seed=3, **extra)
        serial = grid(**kw, n_jobs=1).drop(columns="seconds")
        parallel = grid(**kw, n_jobs=2).drop(columns="seconds")
        assert serial.equals(parallel), grid.__name__
        other = grid(**{**kw, "seed": 4}, n_jobs=1).drop(columns="seconds")
        assert not serial.equals(other), grid.__name__         # the check can fail


def test_cells_are_deterministic(mnist):
    kw = dict(mechanism="gauss_l2", epsilon=1e4, run=0, data_seed=0, device="cpu", **T2)
    a = X.type2_cell(rng=np.random.default_rng(5), **kw)
    b = X.type2_cell(rng=np.random.default_rng(5), **kw)
    c = X.type2_cell(rng=np.random.default_rng(6), **kw)
    assert a["accuracy"] == b["accuracy"]
    assert a["extractor_accuracy"] == c["extractor_accuracy"]


# --------------------------------------------------------------------------- validation

OK = dict(mechanisms=["gauss_l2"], eps_grid=[1.0], runs=1, seed=0)


@pytest.mark.parametrize("grid, kw, match", [
    (X.type3_grid, {"mechanisms": ["laplace"]}, "mechanisms must be"),
    (X.type3_grid, {"mechanisms": ["optimized"]}, "gauss_l2"),
    (X.type2_grid, {"mechanisms": ["idn_iid"]}, "mechanisms must be"),
    (X.type1_grid, {"mechanisms": ["gauss_l2"]}, "optimized"),
    (X.type3_grid, {"mechanisms": []}, "non-empty"),
    (X.type3_grid, {"eps_grid": [0.0]}, "eps_grid entries"),
    (X.type2_grid, {"eps_grid": [-1.0]}, "eps_grid entries"),
    (X.type3_grid, {"eps_grid": [1.0, 1.0]}, "distinct"),
    (X.type1_grid, {"eps_grid": [math.inf]}, "eps_grid entries"),
    (X.type3_grid, {"runs": 0}, "runs"),
    (X.type3_grid, {"seed": -1}, "seed"),
    (X.type3_grid, {"n_train": 9000, "n_test": 2000}, "10000 MNIST"),
    (X.type3_grid, {"n_test": 0}, "n_test"),
    (X.type2_grid, {"n_public": 5000, "n_private": 5000, "n_test": 1}, "10000 MNIST"),
    (X.type2_grid, {"head_epochs": 0}, "head_epochs"),
    (X.type3_grid, {"epochs": 0}, "epochs"),
    (X.type3_grid, {"device": "tpu"}, "prefer"),
    (X.type1_grid, {"lot": 1000}, "lot"),
    (X.type1_grid, {"clip": 0.0}, "clip"),
    (X.type1_grid, {"lr": math.nan}, "lr"),
    (X.type1_grid, {"hidden": 0}, "hidden"),
])
def test_grid_validation(grid, kw, match):
    with pytest.raises(ValueError, match=match):
        grid(**{**OK, **({"mechanisms": ["optimized"]} if grid is X.type1_grid else {}), **kw})


@pytest.mark.parametrize("grid, kw", [(X.type3_grid, {"runs": 1.5}),
                                      (X.type1_grid, {"eps_grid": ["1"]}),
                                      (X.type2_grid, {"n_private": 2.0})])
def test_grid_type_errors(grid, kw):
    base = {**OK, **({"mechanisms": ["optimized"]} if grid is X.type1_grid else {})}
    with pytest.raises(TypeError):
        grid(**{**base, **kw})
