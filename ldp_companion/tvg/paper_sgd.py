"""The paper's own Type I setup (chapter 2, TVG, Sec. VIII-B, Table II, Fig. 3) for the `paper`
profile: private SGD on MNIST, the credit-card fraud data ("Credit") and Adult, which the
offline grid of :func:`ldp_companion.tvg.experiments.type1_grid` (breast cancer) stands in for.

* MNIST: the network whose largest gradient is Table II's 3136 × 512, i.e. conv(32, 5 × 5) →
  max-pool → conv(64, 5 × 5) → max-pool → fc 3136 → 512 → fc 512 → 10. The paper calls it
  "LeNet", which it is not (LeNet-5's first gradient, 5 × 5 × 6, is quoted elsewhere in the
  paper). Trained on the first 55,000 training images, tested on 5,000 test images (Table
  II's sizes; which 5,000 the paper does not say: here a seeded draw).
* Credit: an FCN 28 → 10 → 1 on V1..V28 (Table II's 28 × 10 gradient), scored by ROC AUC
  (fraud is 0.17 % of the rows); a stratified 70 / 30 split, which gives Table II's
  199,364 / 85,443.
* Adult: an MLP 105 → 12 → 1 on the one-hot table of
  :func:`~ldp_companion.data.paper_assets.load_adult` (Table II's 105 × 12), the files' own
  32,561 / 16,281 split.

Batch, lot and ℓ∞ clip are Table II's (:data:`SETUP`); the paper's "batches grouped into a
lot" are read as: the lot is the Poisson-sampled set that receives one noise draw, its
per-example gradients are computed a batch at a time (which changes memory, not results).
Every activation is tanh. Inputs are standardised by the training part's mean and standard
deviation (images: pixels on [-1, 1]). The paper gives no epochs, learning rate or optimiser;
:data:`PAPER_EPOCHS` and :data:`LEARNING_RATES` are our choices, plain SGD. A step moves each
weight by at most ``lr · C`` plus noise: for the tabular networks ``lr · C = 0.1``, as in the
offline grid; MNIST's clip of 1e-4 cuts nearly every per-example gradient entry
(:func:`clipped_fraction`), and ``lr = 30`` trains the noiseless clipped network to 95 % in
150 steps on MNIST's test images. For the same reason the ``"none"`` runs here are the same
clipped SGD without noise (unclipped, these step sizes diverge on MNIST). The noise of every
mechanism and its accounting are :func:`~ldp_companion.tvg.experiments.type1_stds`'s.
"""
from __future__ import annotations

import functools
import math
import time

import numpy as np
import pandas as pd
import torch
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from torch import nn
from torch.func import grad, vmap

from ldp_companion.data import paper_assets
from ldp_companion.execution.grid import run_grid
from ldp_companion.neural.device import one_thread, seed_torch, torch_device
from ldp_companion.neural.training import as_tensor, batched_outputs
from ldp_companion.tvg.experiments import (
    TYPE1_MECHANISMS,
    _check_grid,
    _check_names,
    _check_positive_real,
    _example_loss,
    _init_uniform,
    _mlp,
    _per_task,
    dp_sgd,
    type1_stds,
)
from ldp_companion.validation import check_positive_int

__all__ = ["TASKS", "TASK_LABELS", "MODELS", "METRICS", "SETUP", "SIZES", "GRADIENT_SHAPES",
           "PAPER_EPOCHS", "LEARNING_RATES", "assets_needed", "ready_tasks", "conv_lenet",
           "sgd_model", "clipped_fraction", "load_task", "type1_paper_cell", "type1_paper_grid"]

TASKS = ("mnist", "credit", "adult")
TASK_LABELS = {"mnist": "MNIST", "credit": "Credit", "adult": "Adult"}
MODELS = {"mnist": "conv32–conv64–fc512", "credit": "FCN 28–10–1", "adult": "MLP 105–12–1"}
#: The score of each panel of Fig. 3.
METRICS = {"mnist": "accuracy", "credit": "auc", "adult": "accuracy"}
#: Table II: per-example gradients computed together, expected lot size, ℓ∞ clip C.
SETUP = {"mnist": {"batch": 128, "lot": 128, "clip": 1e-4},
         "credit": {"batch": 32, "lot": 256, "clip": 0.1},
         "adult": {"batch": 128, "lot": 256, "clip": 1.0}}
#: Table II: training and testing records.
SIZES = {"mnist": (55_000, 5_000), "credit": (199_364, 85_443), "adult": (32_561, 16_281)}
#: Table II's "gradient shape": each network's largest gradient, input mode first.
GRADIENT_SHAPES = {"mnist": (3136, 512), "credit": (28, 10), "adult": (105, 12)}
#: Training epochs (the paper gives none; our choice: 3,000–4,300 noisy steps each).
PAPER_EPOCHS = {"mnist": 10, "credit": 5, "adult": 20}
#: SGD step sizes (the paper gives none; our choice, see the module's text).
LEARNING_RATES = {"mnist": 30.0, "credit": 1.0, "adult": 0.1}
_HIDDEN = {"credit": 10, "adult": 12}
_TEST_SALT = 31        # the draw of MNIST's 5,000 test images, from the grid's seed only
_EVAL_BATCH = 4096


def ready_tasks(tasks) -> tuple[list[str], list[str]]:
    """The ``tasks`` whose files are all in the data folder, and a message naming the
    missing files of each of the others (none of either for no tasks)."""
    if tasks is not None and len(tasks) == 0:
        return [], []
    ready, missing_files = paper_assets.split_ready(_check_tasks(tasks),
                                                    lambda t: assets_needed([t]))
    return ready, list(missing_files.values())


def assets_needed(tasks) -> list[str]:
    """The assets (:data:`ldp_companion.data.paper_assets.ASSETS` names) ``tasks`` need."""
    return list(_check_tasks(tasks))


def _check_tasks(tasks) -> list[str]:
    return _check_names(tasks, TASKS, "tasks")


# --------------------------------------------------------------------------- networks

def conv_lenet(gen: torch.Generator, device) -> nn.Sequential:
    """Type I's MNIST network: conv(32) → conv(64) → fc 3136 → 512 → 10, tanh, every
    weight drawn from ``gen``."""
    model = nn.Sequential(
        nn.Conv2d(1, 32, 5, padding=2), nn.Tanh(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 5, padding=2), nn.Tanh(), nn.MaxPool2d(2), nn.Flatten(),
        nn.Linear(7 * 7 * 64, 512), nn.Tanh(), nn.Linear(512, 10))
    return _init_uniform(model, gen).to(device)


def sgd_model(task: str, n_features: int, gen: torch.Generator, device) -> nn.Sequential:
    """The network of ``task`` (:data:`MODELS`); ``n_features`` is the tabular input width
    (28 for Credit, 105 for Adult; unused for MNIST)."""
    if task == "mnist":
        return conv_lenet(gen, device)
    return _mlp(n_features, _HIDDEN[task], gen, device)


#: Examples per chunk of :func:`clipped_fraction`'s per-example gradients.
_CLIP_CHUNK = 16


def clipped_fraction(model: nn.Module, x: torch.Tensor, y: torch.Tensor,
                     clip: float) -> dict[str, float]:
    """Share of the per-example gradient entries of ``model`` on ``(x, y)`` that ℓ∞
    clipping to [-clip, clip] changes, per parameter tensor (counted over chunks of
    :data:`_CLIP_CHUNK` examples: the per-example gradients of 128 MNIST images through the
    MNIST network are 213 million numbers)."""
    params = {k: p.detach() for k, p in model.named_parameters()}
    per_example = vmap(grad(_example_loss(model)), in_dims=(None, 0, 0))
    counts = dict.fromkeys(params, 0)
    for start in range(0, len(x), _CLIP_CHUNK):
        grads = per_example(params, x[start:start + _CLIP_CHUNK], y[start:start + _CLIP_CHUNK])
        for k, g in grads.items():
            counts[k] += int((g.abs() > clip).sum())
    return {k: counts[k] / (params[k].numel() * len(x)) for k in params}


# --------------------------------------------------------------------------- data

def _standardised(x_tr: np.ndarray, x_te: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mean, std = x_tr.mean(axis=0), x_tr.std(axis=0)
    std = np.where(std > 0, std, 1.0)
    return ((x_tr - mean) / std).astype(np.float32), ((x_te - mean) / std).astype(np.float32)


@functools.lru_cache(maxsize=2)
def load_task(task: str, data_seed: int, n_max: int | None = None) -> tuple:
    """``(x_train, y_train, x_test, y_test)`` of ``task`` as Table II splits it, each part
    cut to ``n_max`` records when given. Labels are int64 for MNIST, float32 (0/1) for the
    binary tasks.

    Raises
    ------
    DataError
        Naming every missing file.
    """
    paper_assets.require(assets_needed([task]))
    n_train, n_test = SIZES[task]
    if task == "mnist":
        d = paper_assets.load_images("mnist")
        pick = np.random.default_rng(np.random.SeedSequence(data_seed, spawn_key=(_TEST_SALT,))
                                     ).permutation(len(d.y_test))[:n_test]
        x_tr, y_tr, x_te, y_te = d.x_train[:n_train], d.y_train[:n_train], d.x_test[pick], \
            d.y_test[pick]
    else:
        if task == "credit":
            x, y = paper_assets.load_credit()
            x_tr, x_te, y_tr, y_te = train_test_split(x, y, test_size=0.3, stratify=y,
                                                      random_state=data_seed)
        else:
            x_tr, y_tr, x_te, y_te, _ = paper_assets.load_adult()
        x_tr, x_te = _standardised(x_tr, x_te)
        y_tr, y_te = y_tr.astype(np.float32), y_te.astype(np.float32)
    return x_tr[:n_max], y_tr[:n_max], x_te[:n_max], y_te[:n_max]


# --------------------------------------------------------------------------- cells

def _evaluate(task: str, model: nn.Module, x: np.ndarray, y: np.ndarray, dev) -> dict:
    """Accuracy (a row with a non-finite output counts as wrong), AUC (non-finite scores read
    as 0) and the chance level of ``task``'s test part."""
    out = batched_outputs(model, x, dev, batch_size=_EVAL_BATCH)
    finite = np.isfinite(out).all(axis=1)
    out = np.nan_to_num(out, nan=0.0, posinf=0.0, neginf=0.0)
    majority = float(np.bincount(y.astype(np.int64)).max() / len(y))
    if task == "mnist":
        return {"accuracy": float(np.mean((out.argmax(axis=1) == y) & finite)), "auc": math.nan,
                "chance": majority}
    score = out[:, 0]
    auc = float(roc_auc_score(y, score)) if 0 < y.sum() < len(y) else math.nan
    return {"accuracy": float(np.mean(((score > 0) == (y > 0.5)) & finite)), "auc": auc,
            "chance": 0.5 if METRICS[task] == "auc" else majority}


def type1_paper_cell(*, task: str, mechanism: str, epsilon: float, run: int,
                     rng: np.random.Generator, data_seed: int, epochs: int, lr: float,
                     n_max: int | None, device: str | None) -> dict:
    """One cell of Fig. 3 with the paper's setup: ``round(epochs · n / lot)`` steps of
    :func:`~ldp_companion.tvg.experiments.dp_sgd` with Table II's batch, lot and clip
    (the lot is cut to half the training records when a quick run has fewer than twice it)
    and the noise of ``mechanism``.

    Returns ``score`` (the panel's metric, :data:`METRICS`), ``accuracy``, ``auc`` (NaN for
    MNIST), ``chance`` (the score of a constant guess: the test part's majority share, 0.5
    for AUC), ``noise_std`` (per-entry std on the largest gradient, the one Table II
    reports), ``lot``, ``steps`` and ``seconds``.
    """
    t0 = time.perf_counter()
    with one_thread():
        x_tr, y_tr, x_te, y_te = load_task(task, data_seed, n_max)
        dev = torch_device(device)
        gen = seed_torch(rng)
        model = sgd_model(task, x_tr.shape[1], gen, dev)
        setup = SETUP[task]
        lot = min(setup["lot"], len(y_tr) // 2)
        steps = max(1, round(epochs * len(y_tr) / lot))
        shapes = {k: p.shape for k, p in model.named_parameters()}
        stds = type1_stds(mechanism, epsilon, shapes, lot / len(y_tr), steps, setup["clip"])
        labels = as_tensor(y_tr, dev, torch.long if task == "mnist" else torch.float32)
        dp_sgd(model, as_tensor(x_tr, dev), labels, stds=stds, clip=setup["clip"], lot=lot,
               steps=steps, lr=lr, gen=gen, private=True, batch=setup["batch"])
        scores = _evaluate(task, model, x_te, y_te, dev)
    largest = max(shapes, key=lambda k: math.prod(shapes[k]))
    return {"score": scores[METRICS[task]], **scores, "noise_std": stds[largest], "lot": lot,
            "steps": steps, "seconds": time.perf_counter() - t0}


def _dispatch(*, per_task: dict, task: str, **cell):
    """Module-level entry of a grid cell (picklable for the workers)."""
    epochs, lr = per_task[task]
    return type1_paper_cell(task=task, epochs=epochs, lr=lr, **cell)


def type1_paper_grid(tasks, mechanisms, eps_grid, runs: int, seed: int, *, epochs=None,
                     lr=None, n_max: int | None = None, device: str | None = None,
                     n_jobs: int | None = 1, progress: bool | None = None) -> pd.DataFrame:
    """Fig. 3 on ``tasks`` with the paper's networks and Table II's setup.

    Parameters
    ----------
    tasks : list of str
        Among :data:`TASKS`.
    mechanisms : list of str
        Among :data:`~ldp_companion.tvg.experiments.TYPE1_MECHANISMS`; ``"none"`` (the
        same clipped SGD, no noise) runs once per run with ε = inf.
    eps_grid : list of float
        Total ε of the whole training at δ = 1e-5.
    runs, seed : int
        Repetitions per (mechanism, ε); the seed of the splits and every cell's generator.
    epochs, lr : number, mapping task -> number, or None
        Training epochs and SGD step size; None: :data:`PAPER_EPOCHS`,
        :data:`LEARNING_RATES`.
    n_max : int, optional
        Records of each part (train, test) at most, for a quick run.
    device : str, optional
        :func:`~ldp_companion.neural.device.torch_device`'s ``prefer`` (CUDA when present).
    n_jobs : int, optional
        Worker processes (default 1).
    progress : bool, optional

    Returns
    -------
    DataFrame
        Columns ``task, mechanism, epsilon, run, score, accuracy, auc, chance, noise_std,
        lot, steps, seconds, epochs, lr``.

    Raises
    ------
    DataError
        Before any training, naming every missing file of ``tasks``.
    """
    tasks = _check_tasks(tasks)
    mechanisms, eps_grid, runs, seed = _check_grid(mechanisms, TYPE1_MECHANISMS, eps_grid,
                                                   runs, seed)
    if n_max is not None and check_positive_int(n_max, "n_max") < 4:
        raise ValueError(f"n_max must be at least 4 (a lot of half the records), got {n_max}")
    n_epochs = _per_task(epochs, PAPER_EPOCHS, tasks, "epochs", check_positive_int)
    rates = _per_task(lr, LEARNING_RATES, tasks, "lr", _check_positive_real)
    torch_device(device)
    paper_assets.require(assets_needed(tasks))
    cells = [{"task": t, "mechanism": m, "epsilon": e, "run": r} for t in tasks
             for m in mechanisms for e in ([math.inf] if m == "none" else eps_grid)
             for r in range(runs)]
    fn = functools.partial(_dispatch, per_task={t: (n_epochs[t], rates[t]) for t in tasks},
                           data_seed=seed, n_max=n_max, device=device)
    results = run_grid(fn, cells, seed, n_jobs=n_jobs, progress=progress,
                       description="TVG paper Type I")
    frame = pd.DataFrame([{**c, **r} for c, r in zip(cells, results)])
    return frame.assign(epochs=frame["task"].map(n_epochs), lr=frame["task"].map(rates))
