"""Chapter 1 (TLDP) experiment code: the torch device helpers, the tasks (digits, MNIST test
split) and the Type I/II/III grids of Sec. V-B.

The grids are checked with a stand-in perturbation (i.i.d. Laplace(Δ/ε) on every entry), so
that these tests depend on the experiment code only, not on the mechanisms; one test runs the
real :func:`ldp_companion.tldp.mechanisms.perturb` in joblib workers.

Measured on this 2-core machine (seed 0, one run each, digits): clean weighted F1 0.93
(Type I, 20 epochs), 0.95 (Type II, 10 epochs), 0.91 (Type III, 10 rounds); the thresholds
below are 0.85. A model trained on Laplace noise of scale 200 (ε = 0.01) predicts at chance,
weighted F1 about 0.02-0.06; the threshold is 0.3.
"""
from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pytest
import torch
from conftest import skip_or_fail
from hypothesis import given, settings
from hypothesis import strategies as st

from ldp_companion.neural import device as D
from ldp_companion.tldp import data as TD
from ldp_companion.tldp import experiments as X
from ldp_companion.tldp import mechanisms as M

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("LDP_COMPANION_DATA") or REPO.parent / "shared" / "data")
FAST = {"epochs": 2}


def laplace_stand_in(name, x, epsilon, *, value_range, rng):
    """Stand-in for ``mechanisms.perturb``: i.i.d. Laplace(Δ/ε) noise unless ``"none"``."""
    x = np.asarray(x, dtype=float)
    if name == "none":
        return x
    return x + rng.laplace(0.0, value_range / epsilon, x.shape)


@pytest.fixture
def stand_in(monkeypatch):
    """Replace the real perturbation by the stand-in; returns the list of calls made."""
    calls = []

    def spy(name, x, epsilon, *, value_range, rng):
        calls.append((name, np.shape(x), epsilon, value_range))
        return laplace_stand_in(name, x, epsilon, value_range=value_range, rng=rng)

    monkeypatch.setattr(M, "perturb", spy)
    return calls


# --------------------------------------------------------------------------- device

def test_torch_device_choices():
    assert D.torch_device("cpu") == torch.device("cpu")
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert D.torch_device().type == expected
    for bad in ("tpu", "cpu:1", "cuda:x", "", 3):
        with pytest.raises(ValueError, match="prefer"):
            D.torch_device(bad)


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA")
def test_torch_device_cuda_unavailable_raises():
    for prefer in ("cuda", "cuda:0"):
        with pytest.raises(ValueError, match="cuda"):
            D.torch_device(prefer)


def test_seed_torch_derives_from_numpy():
    a, b = np.random.default_rng(7), np.random.default_rng(7)
    ga, gb = D.seed_torch(a), D.seed_torch(b)
    assert torch.equal(torch.rand(5, generator=ga), torch.rand(5, generator=gb))
    c = np.random.default_rng(7)
    c.integers(2**63)
    assert a.integers(10**9) == c.integers(10**9)     # exactly one draw
    other = D.seed_torch(np.random.default_rng(8))
    assert not torch.equal(torch.rand(5, generator=other),
                           torch.rand(5, generator=D.seed_torch(np.random.default_rng(7))))
    with pytest.raises(TypeError, match="rng"):
        D.seed_torch(7)


# --------------------------------------------------------------------------- data

def _check_task(task, shape, n_total):
    parts = [(task.x_train, task.y_train), (task.x_test, task.y_test),
             (task.x_public, task.y_public)]
    assert sum(len(y) for _, y in parts) == n_total
    overall = np.bincount(np.concatenate([y for _, y in parts]), minlength=10) / n_total
    for x, y in parts:
        assert x.shape == (len(y), *shape) and x.dtype == np.float64 and y.dtype == np.int64
        assert x.min() >= -1 and x.max() <= 1 and not x.flags.writeable
        share = np.bincount(y, minlength=10) / len(y)
        assert np.abs(share - overall).max() < 3 / len(y) + 1e-12     # stratified
    assert task.tensor_shape == shape and task.n_classes == 10 and task.value_range == 2.0


def test_digits_task_shapes_ranges_stratified():
    task = TD.load_task("digits", seed=0)
    _check_task(task, (8, 8), 1797)
    assert task.sizes() == {"train": 838, "test": 419, "public": 540}
    assert task.x_train.min() == -1 and task.x_train.max() == 1      # 0 -> -1, 16 -> 1
    again = TD.load_task("digits", seed=0)
    np.testing.assert_array_equal(task.x_train, again.x_train)
    other = TD.load_task("digits", seed=1)
    assert not np.array_equal(task.y_train, other.y_train)
    small = TD.load_task("digits", seed=0, n_max=300, public_fraction=0.2, test_fraction=0.5)
    _check_task(small, (8, 8), 300)
    assert small.sizes() == {"train": 120, "test": 120, "public": 60}


def test_mnist_task(monkeypatch):
    files = ("MNIST/raw/t10k-images-idx3-ubyte.gz", "MNIST/raw/t10k-labels-idx1-ubyte.gz")
    if not all((SHARED / f).is_file() for f in files):
        skip_or_fail(f"MNIST test files are not in {SHARED} (set LDP_COMPANION_DATA)")
    monkeypatch.setenv("LDP_COMPANION_DATA", str(SHARED))
    full = TD.load_task("mnist", seed=0)
    _check_task(full, (28, 28), 10_000)
    assert full.sizes() == {"train": 4666, "test": 2334, "public": 3000}
    assert full.x_train.min() == -1 and full.x_train.max() == 1      # 0 -> -1, 255 -> 1
    _check_task(TD.load_task("mnist", seed=3, n_max=500), (28, 28), 500)


def test_load_task_validates():
    with pytest.raises(ValueError, match="task must be one of"):
        TD.load_task("cifar", seed=0)
    for kwargs, name in [({"seed": -1}, "seed"), ({"seed": 0, "n_max": 5}, "n_max"),
                         ({"seed": 0, "public_fraction": 1.0}, "public_fraction"),
                         ({"seed": 0, "test_fraction": 0}, "test_fraction")]:
        with pytest.raises(ValueError, match=name):
            TD.load_task("digits", **kwargs)


@settings(max_examples=30, deadline=None)
@given(labels=st.lists(st.integers(0, 4), min_size=1, max_size=200),
       clients=st.integers(1, 5), seed=st.integers(0, 2**32 - 1))
def test_client_partition_disjoint_covering_stratified(labels, clients, seed):
    y = np.array(labels)
    parts = X.client_partition(y, clients, np.random.default_rng(seed))
    assert len(parts) == clients
    np.testing.assert_array_equal(np.sort(np.concatenate(parts)), np.arange(len(y)))
    counts = np.array([np.bincount(y[p], minlength=5) for p in parts])
    assert np.all(counts.max(axis=0) - counts.min(axis=0) <= 1)


# --------------------------------------------------------------------------- grids

def test_clean_training_beats_chance(stand_in):
    one = dict(tasks=["digits"], mechanisms=["none"], eps_grid=[1.0], runs=1, seed=0, n_jobs=1)
    f1 = {"I": X.type1_grid(**one, epochs=20), "II": X.type2_grid(**one, epochs=10),
          "III": X.type3_grid(**one, rounds=10)}
    for kind, frame in f1.items():
        assert len(frame) == 1 and frame["epsilon"].iloc[0] == math.inf, kind
        assert frame["f1"].iloc[0] > 0.85, (kind, frame["f1"].iloc[0])
    assert f1["II"]["extractor_f1"].iloc[0] > 0.85
    assert not stand_in                                  # "none" is never perturbed


def test_heavy_noise_gives_chance(stand_in):
    heavy = dict(tasks=["digits"], mechanisms=["laplace"], eps_grid=[0.01], runs=1, seed=0,
                 n_jobs=1)
    frames = [X.type1_grid(**heavy, epochs=5), X.type2_grid(**heavy, epochs=5),
              X.type3_grid(**heavy, rounds=3)]
    for frame in frames:
        assert frame["f1"].iloc[0] < 0.3, frame
    n_train = frames[0]["n_train"].iloc[0]
    assert stand_in[0] == ("laplace", (n_train, 8, 8), 0.01, 2.0)             # Type I
    assert stand_in[1] == ("laplace", (n_train, 64), 0.01, 2.0)               # Type II
    assert [c[1] for c in stand_in[2:6]] == [(3, 64, 64), (3, 64), (3, 10, 64), (3, 10)]
    assert len(stand_in) == 2 + 3 * 4 and {c[3] for c in stand_in[2:]} == {2.0}


def test_each_cell_reports_the_range_it_passed_to_the_mechanism(stand_in):
    # the chapter's check of Tables II–IV reads this column: it must be the Δ the cell used
    kw = dict(tasks=["digits"], mechanisms=["tldp_l"], eps_grid=[1.0], runs=1, seed=0,
              n_jobs=1)
    for grid, extra in [(X.type1_grid, {"epochs": 1}),
                        (X.type2_grid, {"epochs": 1, "extractor_epochs": 1}),
                        (X.type3_grid, {"rounds": 1, "clip": 0.25})]:
        stand_in.clear()
        frame = grid(**kw, **extra)
        assert {c[3] for c in stand_in} == set(frame["value_range"]), grid.__name__
    assert set(frame["value_range"]) == {0.5}                                  # Δ = 2C


def test_type3_server_noise_and_tensor_columns(stand_in):
    kw = dict(tasks=["digits"], mechanisms=["tldp_l"], eps_grid=[30.0], runs=1, seed=0,
              n_jobs=1, rounds=2)
    server = X.type3_grid(**kw, noise_at="server", clip=0.5, hidden=16)
    assert [c[1] for c in stand_in] == [(1, 16, 64), (1, 16), (1, 10, 16), (1, 10)] * 2
    assert {c[3] for c in stand_in} == {1.0}                                   # Δ = 2C
    row = server.iloc[0]
    assert (row.n_tensors, row.n_params, row.tensor_sizes) == (4, 16 * 64 + 16 + 160 + 10,
                                                               "1024,16,160,10")
    assert (row["rounds"], row["clients"], row["noise_at"], row["clip"]) == (2, 3, "server", 0.5)
    client = X.type3_grid(**kw, hidden=0)
    assert (client.n_tensors.iloc[0], client.tensor_sizes.iloc[0]) == (2, "640,10")


def test_grid_layout_and_repeatability(stand_in):
    kw = dict(tasks=["digits"], mechanisms=["none", "tldp_g"], eps_grid=[1.0, 3.0], runs=2,
              seed=4, n_jobs=1, **FAST)
    frame = X.type1_grid(**kw)
    assert list(frame.columns[:5]) == ["task", "mechanism", "epsilon", "run", "f1"]
    assert len(frame) == 2 + 2 * 2 and frame["epochs"].eq(2).all()
    assert frame.query("mechanism == 'none'")["epsilon"].eq(math.inf).all()
    again = X.type1_grid(**kw)
    assert frame.drop(columns="seconds").equals(again.drop(columns="seconds"))
    assert frame["f1"].nunique() > 1                       # runs differ
    per_task = X.type2_grid(**{**kw, "epochs": {"digits": 1}})
    assert per_task["epochs"].eq(1).all()


@pytest.mark.determinism  # the BLAS free here, one thread in .ci/run's second pass
def test_serial_and_parallel_grids_are_identical():
    # the real mechanisms: the workers import them (a monkeypatch would not reach them)
    kw = dict(tasks=["digits"], mechanisms=["none", "tldp_l", "mvg"], eps_grid=[1.0, 10.0],
              runs=2, seed=3)
    for grid, extra in [(X.type1_grid, FAST), (X.type2_grid, FAST),
                        (X.type3_grid, {"rounds": 2})]:
        serial = grid(**kw, **extra, n_jobs=1).drop(columns="seconds")
        parallel = grid(**kw, **extra, n_jobs=2).drop(columns="seconds")
        assert serial.equals(parallel), grid.__name__


@pytest.mark.parametrize("sizes,activation", [((64, 16, 4), "relu"), ((20, 4), "relu"),
                                              ((64, 16, 4), "tanh")])
def test_stacked_runs_equal_separate_fit_classifier_runs(sizes, activation):
    # R models trained side by side == R models trained one by one with fit_classifier, each
    # with its own data and its own generator (bit for bit on this machine; rounding allowed).
    # (64, 16, 4): W₁ and W₂ fill whole vector steps (one Adam tensor per stack), the biases
    # do not (updated run by run); (20, 4): no stack does.
    from ldp_companion.neural.training import fit_classifier
    from ldp_companion.tldp.stacked import fit_stacked, stacked_logits, stacked_mlp

    runs, n = 3, 150                                 # 150 = 9 batches of 16 and one of 6
    rng = np.random.default_rng(1)
    x = torch.tensor(rng.standard_normal((runs, n, sizes[0])), dtype=torch.float32)
    y = torch.tensor(rng.integers(0, sizes[-1], (runs, n)))
    kw = dict(epochs=3, lr=0.01, batch_size=16)
    separate = []
    for r in range(runs):
        gen = torch.Generator().manual_seed(10 + r)
        model = X._mlp(sizes, activation, torch.device("cpu"), gen)
        fit_classifier(model, x[r], y[r], gen=gen, **kw)
        separate.append(model)
    gens = [torch.Generator().manual_seed(10 + r) for r in range(runs)]
    params = stacked_mlp(sizes, gens, torch.device("cpu"))
    assert [tuple(p.shape) for p in params] == [
        (runs, *q.shape) for q in separate[0].parameters()]
    fit_stacked(params, x, y, gens=gens, activation=activation, **kw)
    with torch.no_grad():
        logits = stacked_logits(params, x[0], activation)
    for r, model in enumerate(separate):
        for mine, theirs in zip(params, model.parameters()):
            torch.testing.assert_close(mine[r], theirs, rtol=0, atol=1e-5)
        with torch.no_grad():
            torch.testing.assert_close(logits[r], model(x[0]), rtol=0, atol=1e-5)
    assert not torch.allclose(params[0][0], params[0][1])      # the runs do differ


def test_stacked_runs_on_a_pool_of_rows():
    # rows=(R, n) picks run r's samples from one pool: the same as handing run r its rows
    from ldp_companion.tldp.stacked import fit_stacked, stacked_mlp

    rng = np.random.default_rng(2)
    pool_x = torch.tensor(rng.standard_normal((90, 12)), dtype=torch.float32)
    pool_y = torch.tensor(rng.integers(0, 3, 90))
    rows = torch.stack([torch.as_tensor(rng.permutation(90)[:40]) for _ in range(2)])
    fits = []
    for pooled in (True, False):
        gens = [torch.Generator().manual_seed(r) for r in range(2)]
        params = stacked_mlp((12, 5, 3), gens, torch.device("cpu"))
        data = (pool_x, pool_y) if pooled else (pool_x[rows], pool_y[rows])
        fit_stacked(params, *data, rows=rows if pooled else None, epochs=2, lr=0.05,
                    batch_size=8, gens=gens)
        fits.append(params)
    for a, b in zip(*fits):
        assert torch.equal(a, b)


def test_grid_runs_equal_their_single_cells():
    # each row of a grid (its runs trained side by side) is the cell run alone with the
    # generator cell_rng(seed, {task, mechanism, epsilon, run}): the random streams are
    # those of a grid of single cells
    from ldp_companion.execution.grid import cell_rng

    kw = dict(tasks=["digits"], mechanisms=["tldp_l"], eps_grid=[3.0], runs=3, seed=2,
              n_jobs=1)
    settings = {"data_seed": 2, "n_max": None, "hidden": 64, "device": None}
    cases = [(X.type1_grid, X.type1_cell, {"epochs": 1}, {"epochs": 1, "lr": 1e-3}),
             (X.type2_grid, X.type2_cell, {"epochs": 1, "extractor_epochs": 2},
              {"epochs": 1, "extractor_epochs": 2, "lr": 1e-2}),
             (X.type3_grid, X.type3_cell, {"rounds": 2},
              {"rounds": 2, "lr": 1e-2, "clip": 1.0, "clients": 3, "noise_at": "client"})]
    for grid, cell, extra, cell_extra in cases:
        frame = grid(**kw, **extra)
        assert frame["f1"].nunique() == 3, grid.__name__
        for row in frame.itertuples():
            key = {"task": row.task, "mechanism": row.mechanism, "epsilon": row.epsilon,
                   "run": row.run}
            alone = cell(**key, rng=cell_rng(2, key), **settings, **cell_extra)
            assert alone["f1"] == pytest.approx(row.f1, abs=1e-9), (grid.__name__, row.run)


def test_cells_equal_the_one_model_at_a_time_code():
    # the cells (trained through the stacked trainer) against the code they replace: one
    # nn.Sequential per cell trained by fit_classifier (Type I), and FedAvg over one model
    # whose parameters are reset per client (Type III), drawing in the same order
    from ldp_companion.neural.training import as_tensor, fit_classifier

    task = X.cached_task("digits", 0, None)
    dev = torch.device("cpu")
    x_test = as_tensor(task.x_test, dev)

    def type1_alone(rng):
        gen = D.seed_torch(rng)
        x = X._perturb("tldp_l", task.x_train, 3.0, 2.0, rng)
        model = X._mlp((64, 16, 10), "relu", dev, gen)
        fit_classifier(model, as_tensor(x, dev), X._labels(task.y_train, dev), epochs=2,
                       lr=1e-3, batch_size=X.BATCH_SIZE, gen=gen)
        return X._weighted_f1(model, x_test, task.y_test)

    def type3_alone(rng):
        gen = D.seed_torch(rng)
        parts = X.client_partition(task.y_train, 3, rng)
        model = X._mlp((64, 16, 10), "relu", dev, gen)
        x, y = as_tensor(task.x_train, dev), X._labels(task.y_train, dev)
        state = [p.detach().clone() for p in model.parameters()]
        for _ in range(2):
            uploads = []
            for part in parts:
                X._set_params(model, state)
                fit_classifier(model, x[part], y[part], epochs=1, lr=1e-2,
                               batch_size=X.BATCH_SIZE, gen=gen)
                uploads.append([p.detach().clamp(-1.0, 1.0) for p in model.parameters()])
            state = X._aggregate(uploads, "tldp_l", 30.0, 1.0, "client", rng)
        X._set_params(model, state)
        return X._weighted_f1(model, x_test, task.y_test)

    common = dict(task="digits", mechanism="tldp_l", run=0, data_seed=0, n_max=None,
                  hidden=16, device=None)
    for seed in (1, 2):
        cell = X.type1_cell(epsilon=3.0, rng=np.random.default_rng(seed), epochs=2, lr=1e-3,
                            **common)
        assert cell["f1"] == pytest.approx(type1_alone(np.random.default_rng(seed)), abs=1e-9)
        cell = X.type3_cell(epsilon=30.0, rng=np.random.default_rng(seed), rounds=2, lr=1e-2,
                            clip=1.0, clients=3, noise_at="client", **common)
        assert cell["f1"] == pytest.approx(type3_alone(np.random.default_rng(seed)), abs=1e-9)


def test_one_thread_restores_torch_threads():
    before = torch.get_num_threads()
    with D.one_thread():
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == before


# --------------------------------------------------------------------------- validation

GRIDS = [(X.type1_grid, FAST), (X.type2_grid, FAST), (X.type3_grid, {"rounds": 1})]
OK = dict(tasks=["digits"], mechanisms=["tldp_l"], eps_grid=[1.0], runs=1, seed=0)


@pytest.mark.parametrize("grid,extra", GRIDS)
@pytest.mark.parametrize("bad,name", [
    ({"tasks": ["cifar"]}, "tasks"), ({"tasks": []}, "tasks"),
    ({"mechanisms": ["tldp"]}, "mechanisms"), ({"mechanisms": ["tldp_l", "tldp_l"]}, "mechanisms"),
    ({"eps_grid": []}, "eps_grid"), ({"eps_grid": [1.0, math.nan]}, "eps_grid"),
    ({"runs": 0}, "runs"), ({"seed": -2}, "seed"), ({"n_max": 10}, "n_max"),
    ({"device": "tpu"}, "prefer"),
])
def test_grids_validate_arguments(grid, extra, bad, name):
    with pytest.raises(ValueError, match=name):
        grid(**{**OK, **extra, **bad})


@pytest.mark.parametrize("grid,bad,name", [
    (X.type1_grid, {"epochs": 0}, "epochs"), (X.type1_grid, {"epochs": {"mnist": 3}}, "epochs"),
    (X.type1_grid, {"epochs": 1, "lr": 0.0}, "lr"), (X.type2_grid, {"epochs": 1, "hidden": 0},
                                                     "hidden"),
    (X.type2_grid, {"epochs": 1, "extractor_epochs": 0}, "extractor_epochs"),
    (X.type3_grid, {"rounds": 0}, "rounds"), (X.type3_grid, {"rounds": 1, "clip": -1}, "clip"),
    (X.type3_grid, {"rounds": 1, "noise_at": "both"}, "noise_at"),
    (X.type3_grid, {"rounds": 1, "clients": 0}, "clients"),
])
def test_grid_specific_arguments(grid, bad, name):
    with pytest.raises(ValueError, match=name):
        grid(**OK, **bad)


@settings(max_examples=25, deadline=None)
@given(eps=st.floats(max_value=0.0, allow_nan=False), runs=st.integers(max_value=0))
def test_nonpositive_epsilon_or_runs_rejected(eps, runs):
    for grid, extra in GRIDS:
        with pytest.raises(ValueError, match="eps_grid"):
            grid(**{**OK, **extra, "eps_grid": [1.0, eps]})
        with pytest.raises(ValueError, match="runs"):
            grid(**{**OK, **extra, "runs": runs})
