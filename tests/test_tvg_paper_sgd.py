"""Chapter 2's Type I setup with the paper's networks (``ldp_companion.tvg.paper_sgd``):
Table II's gradient shapes and split sizes, the private SGD step (clipping and noise), the
Credit and Adult loaders, and Fig. 3's grid end to end on tiny stand-ins of the files (the
real ones cannot be downloaded here)."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from ldp_companion.data import paper_assets
from ldp_companion.data.datasets import DataError
from ldp_companion.tvg import experiments as ex
from ldp_companion.tvg import paper_sgd


@pytest.fixture
def assets(paper_asset_root, monkeypatch):
    monkeypatch.setenv("LDP_COMPANION_DATA", str(paper_asset_root))
    paper_sgd.load_task.cache_clear()
    yield paper_asset_root
    paper_sgd.load_task.cache_clear()


@pytest.mark.parametrize("task, n_features", [("mnist", 0), ("credit", 28), ("adult", 105)])
def test_largest_gradient_has_table_ii_shape(task, n_features):
    model = paper_sgd.sgd_model(task, n_features, torch.Generator().manual_seed(0), "cpu")
    shapes = {k: p.shape for k, p in model.named_parameters()}
    largest = max(shapes, key=lambda k: math.prod(shapes[k]))
    assert ex._matrix_shape(largest, shapes[largest]) == paper_sgd.GRADIENT_SHAPES[task]


def test_a_convolution_reads_as_kernels_under_input_channels():
    assert ex._matrix_shape("w", torch.Size([64, 32, 5, 5])) == (800, 64)
    assert ex._matrix_shape("b", torch.Size([64])) == (64, 1)


def test_credit_split_has_table_ii_sizes(assets, monkeypatch):
    """284,807 rows with 492 frauds, split 70 / 30 stratified: 199,364 / 85,443."""
    y = np.zeros(284_807, dtype=np.int64)
    y[:492] = 1
    monkeypatch.setattr(paper_assets, "load_credit", lambda: (np.zeros((len(y), 28)), y))
    x_tr, y_tr, x_te, y_te = paper_sgd.load_task("credit", 0)
    assert (len(y_tr), len(y_te)) == paper_sgd.SIZES["credit"]
    assert x_tr.shape[1] == 28 and abs(y_te.mean() - 492 / len(y)) < 1e-5


def test_loaders_read_the_public_layouts(assets):
    x, y = paper_assets.load_credit()
    assert x.shape == (200, 28) and set(np.unique(y)) == {0, 1}
    x_tr, y_tr, x_te, y_te, columns = paper_assets.load_adult()
    from fake_assets import ADULT_VALUES

    levels = sum(len(set(v) - {"?"}) for v in ADULT_VALUES.values())
    assert x_tr.shape == (120, 6 + levels) == (len(y_tr), len(columns))
    assert x_te.shape == (60, 6 + levels) and y_te.mean() == 0.25   # "." stripped
    workclass = [i for i, c in enumerate(columns) if c.startswith("workclass=")]
    assert (x_tr[2, workclass] == 0).all() and (x_tr[0, workclass].sum() == 1)   # "?": zeros


def test_uci_levels_make_the_papers_105_inputs():
    """The levels adult.names lists (without "?"), one-hot, with six numeric columns."""
    levels = {"workclass": 8, "education": 16, "marital-status": 7, "occupation": 14,
              "relationship": 6, "race": 5, "sex": 2, "native-country": 41}
    assert set(levels) == set(paper_assets.ADULT_CATEGORICAL)
    assert len(paper_assets.ADULT_COLUMNS) - 1 - len(levels) + sum(levels.values()) == 105
    assert paper_sgd.GRADIENT_SHAPES["adult"][0] == 105


def test_malformed_files_are_named(tmp_path, monkeypatch):
    from fake_assets import write_adult, write_credit

    rng = np.random.default_rng(0)
    write_credit(tmp_path, rng, n=20)
    write_adult(tmp_path, rng, n=8)
    monkeypatch.setenv("LDP_COMPANION_DATA", str(tmp_path))
    path = tmp_path / "credit/creditcard.csv"
    path.write_text(path.read_text().replace("V28", "V99"))
    with pytest.raises(DataError, match="creditcard.csv.*V28"):
        paper_assets.load_credit()
    path = tmp_path / "adult/adult.test"
    path.write_text(path.read_text().replace(">50K.", "rich"))
    with pytest.raises(DataError, match="adult.test"):
        paper_assets.load_adult()


def _linear_step(private: bool, std: float, lot: int = 50):
    """One step of dp_sgd on a 1 → 1 linear model with every example sampled (q close to
    1): returns the parameter change divided by lr."""
    model = torch.nn.Linear(200, 1)
    with torch.no_grad():
        model.weight.zero_()
        model.bias.zero_()
    before = {k: p.detach().clone() for k, p in model.named_parameters()}
    x, y = torch.full((lot + 1, 200), 10.0), torch.zeros(lot + 1)
    ex.dp_sgd(model, x, y, stds={"weight": std, "bias": std}, clip=0.01, lot=lot + 1,
              steps=1, lr=1.0, gen=torch.Generator().manual_seed(0), private=private, batch=7)
    return {k: (p.detach() - before[k]) for k, p in model.named_parameters()}


def test_dp_sgd_clips_every_entry_to_c():
    """Each example's weight gradient is 10 · 0.5 = 5 per entry: clipped to 0.01, the lot's
    average moves each weight by exactly -0.01 (unclipped: -5)."""
    clipped, raw = _linear_step(True, 0.0), _linear_step(False, 0.0)
    assert torch.allclose(clipped["weight"], torch.full((1, 200), -0.01))
    assert torch.allclose(raw["weight"], torch.full((1, 200), -5.0))


def test_dp_sgd_adds_noise_of_the_given_std():
    """200 weights, one noise draw each of std 30 divided by the lot (51): the sample std
    of the change is within 4 standard errors of 30 / 51."""
    change = _linear_step(True, 30.0)["weight"].ravel() + 0.01
    target, se = 30 / 51, 30 / 51 / math.sqrt(2 * 199)
    assert abs(change.std().item() - target) < 4 * se


def test_noise_per_mechanism_follows_the_papers_order(assets):
    """On the largest gradient at equal ε: MVG > UDN > IDN > Optimized (per-entry std)."""
    frame = paper_sgd.type1_paper_grid(["adult"], ["optimized", "idn", "udn", "mvg"], [8.0], 1,
                                       0, epochs=1, n_max=40)
    std = frame.set_index("mechanism")["noise_std"]
    assert std["mvg"] > std["udn"] > std["idn"] > std["optimized"] > 0


def test_grid_runs_every_task_on_the_stand_ins_and_repeats_exactly(assets):
    def run():
        return paper_sgd.type1_paper_grid(list(paper_sgd.TASKS), ["none", "idn"], [1e4], 1,
                                          3, epochs=1, n_max=40)

    frame = run()
    assert len(frame) == 2 * len(paper_sgd.TASKS)
    assert frame["score"].between(0, 1).all() and (frame["steps"] >= 2).all()
    assert frame.groupby("task")["auc"].apply(lambda a: a.isna().all()).to_dict() == {
        "adult": False, "credit": False, "mnist": True}
    paper_sgd.load_task.cache_clear()
    again = run()
    cols = ["task", "mechanism", "epsilon", "score", "noise_std"]
    assert frame[cols].equals(again[cols])


def test_missing_files_are_named_before_any_training(tmp_path, monkeypatch):
    monkeypatch.setenv("LDP_COMPANION_DATA", str(tmp_path))
    with pytest.raises(DataError) as err:
        paper_sgd.type1_paper_grid(["credit", "adult"], ["none"], [1.0], 1, 0)
    text = str(err.value)
    assert "creditcard.csv" in text and "adult.test" in text and "kaggle" in text


@pytest.mark.parametrize("bad", [
    dict(tasks=["cifar10"]), dict(tasks=[]), dict(mechanisms=["gauss_paper"]),
    dict(epochs=0), dict(epochs={"mnist": 1}), dict(lr=-1.0), dict(lr=math.inf),
    dict(n_max=3), dict(device="tpu")])
def test_grid_refuses_bad_input(assets, bad):
    args = dict(tasks=["adult"], mechanisms=["none"], epochs=1, n_max=40)
    args.update(bad)
    with pytest.raises(ValueError):
        paper_sgd.type1_paper_grid(args.pop("tasks"), args.pop("mechanisms"), [1.0], 1, 0,
                                   **args)


def test_clipped_fraction_counts_the_entries_the_clip_changes():
    model = torch.nn.Linear(3, 1)
    x, y = torch.ones(4, 3), torch.zeros(4)
    everything = paper_sgd.clipped_fraction(model, x, y, 0.0)
    nothing = paper_sgd.clipped_fraction(model, x, y, 1e9)
    assert set(everything.values()) == {1.0} and set(nothing.values()) == {0.0}
    # |gradient| = sigmoid(w·1 + b) per entry: a clip between two examples' values halves it
    with torch.no_grad():
        model.weight.zero_()
        model.bias.zero_()
    x2 = torch.tensor([[1.0, 1.0, 1.0], [0.1, 0.1, 0.1]])
    assert paper_sgd.clipped_fraction(model, x2, torch.zeros(2), 0.3)["weight"] == 0.5
    # over several chunks of examples, the last one short: 30 of 45 examples clipped
    assert 45 > 2 * paper_sgd._CLIP_CHUNK
    x3 = torch.tensor([[1.0] * 3] * 30 + [[0.1] * 3] * 15)
    assert paper_sgd.clipped_fraction(model, x3, torch.zeros(45), 0.3)["weight"] == 30 / 45


def test_chance_is_the_majority_share_or_half_for_auc(assets):
    frame = paper_sgd.type1_paper_grid(["credit", "adult"], ["none"], [1.0], 1, 0, epochs=1,
                                       n_max=40)
    chance = frame.set_index("task")["chance"]
    _, _, _, y_te = paper_sgd.load_task("adult", 0, 40)
    assert chance["credit"] == 0.5 and chance["adult"] == max(y_te.mean(), 1 - y_te.mean())


def test_a_non_finite_output_counts_as_wrong():
    """A model whose output is NaN on every row scores accuracy 0, not the share of the class
    a NaN would map to."""
    class Nan(torch.nn.Module):
        def forward(self, x):
            return torch.full((len(x), 10), math.nan)

    x, y = np.zeros((8, 1, 28, 28), np.float32), np.zeros(8, np.int64)
    assert paper_sgd._evaluate("mnist", Nan(), x, y, torch.device("cpu"))["accuracy"] == 0.0
