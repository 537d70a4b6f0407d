"""The paper's own Types II–III networks of chapter 2 (TVG, Sec. VIII-C/D, Table III), for the
`paper` profile: the CIFAR-10, SVHN and IMDB panels of Figs. 4–5, which the offline grids of
:mod:`ldp_companion.tvg.experiments` (a tanh LeNet-5 on MNIST) do not cover.

* CIFAR-10: VGG-16 for 32 × 32 images (13 convolutions in five blocks, each block ending
  with a 2 × 2 max-pool), features 512 × 1 × 1 (Table III).
* SVHN: AlexNet for 32 × 32 images (five convolutions, three max-pools), features
  256 × 4 × 4 (Table III).
* IMDB: a bidirectional LSTM (75 units a direction) on frozen GloVe-100d vectors, features
  the 150 last hidden states (Table III's 150).

Every activation is tanh, as the paper requires for ``b − a = 2`` (the LSTM's hidden state
is ``o · tanh(c)``, in (-1, 1) too). The head on the features is Flatten → Linear(F, 128)
→ tanh → Linear(128, classes); the paper does not give it. Type II trains the network on
one half of the training set (public) and a fresh head on the other half's noisy features,
released in batches of 256 with ``W = E``; Type III trains the network on the whole training
set and releases the test features in batches of 256 with ``W`` = the head's first weight
(128 × F). The paper gives neither the split of these data sets nor the epochs: the halves
follow its MNIST split (30,000 / 30,000), and :data:`PAPER_EPOCHS` is our choice. Training:
Adam 1e-3, batch 64. Data and vectors come from :mod:`ldp_companion.data.paper_assets`; a missing
file raises a :class:`~ldp_companion.data.datasets.DataError` naming it before any training.
"""
from __future__ import annotations

import functools
import math
import time

import numpy as np
import pandas as pd
import torch
from torch import nn

from ldp_companion.data import paper_assets
from ldp_companion.execution.grid import run_grid
from ldp_companion.neural.device import one_thread, seed_torch_global, torch_device
from ldp_companion.neural.models import BiLSTMEncoder
from ldp_companion.neural.training import as_tensor, batched_outputs, fit_classifier
from ldp_companion.tvg.experiments import (
    TYPE2_MECHANISMS,
    TYPE3_MECHANISMS,
    _accuracy,
    _check_grid,
    _check_names,
    _init_uniform,
    _per_task,
    release_directional_batches,
    release_iid_batches,
)
from ldp_companion.validation import check_positive_int

__all__ = ["TASKS", "TASK_LABELS", "MODELS", "FEATURE_SHAPES", "PAPER_EPOCHS", "KINDS",
           "assets_needed", "ready_tasks", "vgg16", "alexnet32", "bilstm", "paper_model",
           "type2_cell", "type3_cell", "paper_grid", "paper_grids"]

TASKS = ("cifar10", "svhn", "imdb")
TASK_LABELS = {"cifar10": "CIFAR-10", "svhn": "SVHN", "imdb": "IMDB"}
MODELS = {"cifar10": "VGG-16", "svhn": "AlexNet", "imdb": "BiLSTM"}
#: Shape of one record's features (Table III).
FEATURE_SHAPES = {"cifar10": (512, 1, 1), "svhn": (256, 4, 4), "imdb": (150,)}
#: Training epochs of the networks (the paper gives none; our choice).
PAPER_EPOCHS = {"cifar10": 20, "svhn": 20, "imdb": 10}
#: The experiment types with the paper's networks, and their mechanisms.
KINDS = {"II": TYPE2_MECHANISMS, "III": TYPE3_MECHANISMS}
_ASSETS = {"cifar10": ("cifar10",), "svhn": ("svhn",), "imdb": ("imdb", "glove")}
_HEAD_HIDDEN, _FIT_BATCH, _EVAL_BATCH = 128, 64, 1024
_PERM_SALT, _MODEL_SALT = 21, 22   # generators derived from the grid's seed only
_VGG16 = (64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M",
          512, 512, 512, "M")


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
    return list(dict.fromkeys(a for t in _check_tasks(tasks) for a in _ASSETS[t]))


def _check_tasks(tasks) -> list[str]:
    return _check_names(tasks, TASKS, "tasks")


# --------------------------------------------------------------------------- networks

def _head(n_features: int, n_classes: int) -> nn.Sequential:
    return nn.Sequential(nn.Flatten(), nn.Linear(n_features, _HEAD_HIDDEN), nn.Tanh(),
                         nn.Linear(_HEAD_HIDDEN, n_classes))


def vgg16(gen: torch.Generator, device, n_classes: int = 10) -> nn.Sequential:
    """tanh VGG-16 for 3 × 32 × 32 images: ``model[0]`` maps them to 512 × 1 × 1 features in
    (-1, 1), ``model[1]`` is the head; every weight drawn from ``gen``."""
    layers, channels = [], 3
    for v in _VGG16:
        if v == "M":
            layers.append(nn.MaxPool2d(2))
        else:
            layers += [nn.Conv2d(channels, v, 3, padding=1), nn.Tanh()]
            channels = v
    model = nn.Sequential(nn.Sequential(*layers), _head(512, n_classes))
    return _init_uniform(model, gen).to(device)


def alexnet32(gen: torch.Generator, device, n_classes: int = 10) -> nn.Sequential:
    """tanh AlexNet for 3 × 32 × 32 images: ``model[0]`` maps them to 256 × 4 × 4 features
    in (-1, 1), ``model[1]`` is the head; every weight drawn from ``gen``."""
    extractor = nn.Sequential(
        nn.Conv2d(3, 64, 3, padding=1), nn.Tanh(), nn.MaxPool2d(2),
        nn.Conv2d(64, 192, 3, padding=1), nn.Tanh(), nn.MaxPool2d(2),
        nn.Conv2d(192, 384, 3, padding=1), nn.Tanh(),
        nn.Conv2d(384, 256, 3, padding=1), nn.Tanh(),
        nn.Conv2d(256, 256, 3, padding=1), nn.Tanh(), nn.MaxPool2d(2))
    model = nn.Sequential(extractor, _head(256 * 4 * 4, n_classes))
    return _init_uniform(model, gen).to(device)


def bilstm(vectors: np.ndarray, gen: torch.Generator, device,
           n_classes: int = 2) -> nn.Sequential:
    """IMDB's network: ``model[0]`` a :class:`~ldp_companion.neural.models.BiLSTMEncoder` with 75
    units a direction (150 features), ``model[1]`` the head. The LSTM draws its initial
    weights from torch's global generator: seed it first
    (:func:`~ldp_companion.neural.device.seed_torch_global`)."""
    model = nn.Sequential(BiLSTMEncoder(vectors, 75), _init_uniform(_head(150, n_classes), gen))
    return model.to(device)


@functools.lru_cache(maxsize=1)
def _glove():
    return paper_assets.load_glove()


def paper_model(task: str, gen: torch.Generator, device) -> nn.Sequential:
    """The network of ``task`` (:data:`MODELS`)."""
    if task == "cifar10":
        return vgg16(gen, device)
    if task == "svhn":
        return alexnet32(gen, device)
    return bilstm(_glove()[1], gen, device)


# --------------------------------------------------------------------------- data

@functools.lru_cache(maxsize=1)
def _data(task: str) -> tuple:
    """``(x_train, y_train, x_test, y_test)``: images on [-1, 1] (n, 3, 32, 32), or IMDB as
    GloVe indices (n, 500)."""
    if task == "imdb":
        return paper_assets.load_imdb(_glove()[0])
    d = paper_assets.load_images(task)
    return d.x_train, d.y_train, d.x_test, d.y_test


def _parts(task: str, data_seed: int, n_max: int | None) -> tuple:
    """Public half, private half (of a fixed permutation of the training set) and test part,
    each cut to ``n_max`` records when given."""
    x_tr, y_tr, x_te, y_te = _data(task)
    perm = np.random.default_rng(np.random.SeedSequence(data_seed, spawn_key=(_PERM_SALT,))
                                 ).permutation(len(y_tr))
    half = len(perm) // 2
    pub, priv, test = perm[:half][:n_max], perm[half:][:n_max], np.arange(len(y_te))[:n_max]
    return (x_tr[pub], y_tr[pub]), (x_tr[priv], y_tr[priv]), (x_te[test], y_te[test])


def _inputs(task: str, x: np.ndarray, dev) -> torch.Tensor:
    return as_tensor(x, dev, torch.long if task == "imdb" else torch.float32)


def _accuracy_of(model: nn.Module, task: str, x: np.ndarray, y: np.ndarray, dev) -> float:
    """:func:`~ldp_companion.tvg.experiments._accuracy`, computed in batches."""
    parts = [(len(y[s:s + _EVAL_BATCH]), _accuracy(model, _inputs(task, x[s:s + _EVAL_BATCH],
                                                                   dev), y[s:s + _EVAL_BATCH]))
             for s in range(0, len(y), _EVAL_BATCH)]
    return sum(n * a for n, a in parts) / len(y)


def _features(extractor: nn.Module, task: str, x: np.ndarray, dev) -> np.ndarray:
    """Features of ``x`` (n, F) as float64, computed in batches."""
    return batched_outputs(extractor, x, dev, batch_size=_EVAL_BATCH,
                           dtype=torch.long if task == "imdb" else torch.float32)


@functools.lru_cache(maxsize=2)
def _trained(task: str, data_seed: int, part: str, epochs: int, n_max: int | None,
             device: str | None):
    """The network trained on the public half (``part="public"``, Type II) or the whole
    training set (Type III), once per process; with the features and labels it releases
    and the clean test accuracy."""
    dev = torch_device(device)
    pub, priv, (x_te, y_te) = _parts(task, data_seed, n_max)
    x, y = pub if part == "public" else tuple(np.concatenate(p) for p in zip(pub, priv))
    gen = seed_torch_global(np.random.default_rng(
        np.random.SeedSequence(data_seed, spawn_key=(_MODEL_SALT,))))
    model = paper_model(task, gen, dev)
    fit_classifier(model, _inputs(task, x, dev), as_tensor(y, dev, torch.long), epochs=epochs,
                   lr=1e-3, batch_size=_FIT_BATCH, gen=gen)
    clean = _accuracy_of(model, task, x_te, y_te, dev)
    released = priv if part == "public" else (x_te, y_te)
    return (model, _features(model[0], task, released[0], dev), released[1],
            _features(model[0], task, x_te, dev), y_te, clean)


# --------------------------------------------------------------------------- cells

def type2_cell(*, task: str, mechanism: str, epsilon: float, run: int,
               rng: np.random.Generator, data_seed: int, epochs: int, head_epochs: int,
               n_max: int | None, device: str | None) -> dict:
    """One Type II cell (Fig. 4): a fresh head trained on the private half's noisy features
    (:func:`~ldp_companion.tvg.experiments.release_iid_batches`), scored on the clean test
    features. Returns ``accuracy``, ``clean_accuracy`` (the public network's) and
    ``seconds``."""
    t0 = time.perf_counter()
    with one_thread():
        _, f_priv, y_priv, f_test, y_test, clean = _trained(task, data_seed, "public",
                                                            epochs, n_max, device)
        dev = torch_device(device)
        gen = seed_torch_global(rng)
        noisy = release_iid_batches(mechanism, f_priv, epsilon, rng)
        head = _init_uniform(_head(f_priv.shape[1], int(y_test.max()) + 1), gen).to(dev)
        fit_classifier(head, as_tensor(noisy, dev), as_tensor(y_priv, dev, torch.long),
                       epochs=head_epochs, lr=1e-3, batch_size=_FIT_BATCH, gen=gen)
        acc = _accuracy(head, as_tensor(f_test, dev), y_test)
    return {"accuracy": acc, "clean_accuracy": clean, "seconds": time.perf_counter() - t0}


def type3_cell(*, task: str, mechanism: str, epsilon: float, run: int,
               rng: np.random.Generator, data_seed: int, epochs: int, head_epochs: int,
               n_max: int | None, device: str | None) -> dict:
    """One Type III cell (Fig. 5): the test features released with ``W`` = the head's first
    weight (:func:`~ldp_companion.tvg.experiments.release_directional_batches`), through
    the trained head. Returns ``accuracy``, ``clean_accuracy`` and ``seconds``."""
    t0 = time.perf_counter()
    with one_thread():
        model, feats, labels, _, _, clean = _trained(task, data_seed, "all", epochs, n_max,
                                                     device)
        w = model[1][1].weight.detach().double().cpu().numpy()
        noisy = release_directional_batches(mechanism, feats, w, epsilon, rng)
        dev = next(model.parameters()).device
        acc = _accuracy(model[1], as_tensor(noisy, dev), labels)
    return {"accuracy": acc, "clean_accuracy": clean, "seconds": time.perf_counter() - t0}


_CELLS = {"II": type2_cell, "III": type3_cell}


def _dispatch(*, kind: str, per_task: dict, task: str, **cell):
    """Module-level entry of a grid cell (picklable for the workers)."""
    return _CELLS[kind](task=task, epochs=per_task[task], **cell)


def paper_grid(kind: str, tasks, mechanisms, eps_grid, runs: int, seed: int, *,
               epochs=None, head_epochs: int = 5, n_max: int | None = None,
               device: str | None = None, n_jobs: int | None = 1,
               progress: bool | None = None) -> pd.DataFrame:
    """Fig. 4 (``kind="II"``) or Fig. 5 (``"III"``) on ``tasks`` with the paper's networks.

    Parameters
    ----------
    kind : {"II", "III"}
    tasks : list of str
        Among :data:`TASKS`.
    mechanisms : list of str
        Among :data:`KINDS` ``[kind]``; ``"none"`` runs once per run with ε = inf.
    eps_grid : list of float
    runs, seed : int
        Repetitions per (mechanism, ε); the seed of the split, the networks' training and
        every cell's generator.
    epochs : int, mapping task -> int, or None
        Training epochs of the networks; None: :data:`PAPER_EPOCHS`.
    head_epochs : int
        Training epochs of Type II's head on noisy features.
    n_max : int, optional
        Records of each part (public, private, test) at most, for a quick run.
    device : str, optional
        :func:`~ldp_companion.neural.device.torch_device`'s ``prefer`` (CUDA when present).
    n_jobs : int, optional
        Worker processes (default 1: each worker trains its own copy of the networks).
    progress : bool, optional

    Returns
    -------
    DataFrame
        Columns ``type, task, mechanism, epsilon, run, accuracy, clean_accuracy, seconds,
        epochs``.

    Raises
    ------
    DataError
        Before any training, naming every missing file of ``tasks``.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {list(KINDS)}, got {kind!r}")
    tasks = _check_tasks(tasks)
    mechanisms, eps_grid, runs, seed = _check_grid(mechanisms, KINDS[kind], eps_grid, runs,
                                                   seed)
    if n_max is not None:
        n_max = check_positive_int(n_max, "n_max")
    per_task = _per_task(epochs, PAPER_EPOCHS, tasks, "epochs", check_positive_int)
    head_epochs = check_positive_int(head_epochs, "head_epochs")
    torch_device(device)
    paper_assets.require(assets_needed(tasks))
    cells = [{"task": t, "mechanism": m, "epsilon": e, "run": r} for t in tasks
             for m in mechanisms for e in ([math.inf] if m == "none" else eps_grid)
             for r in range(runs)]
    fn = functools.partial(_dispatch, kind=kind, per_task=per_task, data_seed=seed,
                           head_epochs=head_epochs, n_max=n_max, device=device)
    results = run_grid(fn, cells, seed, n_jobs=n_jobs, progress=progress,
                       description=f"TVG paper Type {kind}")
    frame = pd.DataFrame([{"type": kind, **c, **r} for c, r in zip(cells, results)])
    return frame.assign(epochs=frame["task"].map(per_task))


def paper_grids(tasks, mechanisms, eps_by_kind: dict, runs: int, seed: int, *, epochs=None,
                n_max: int | None = None) -> pd.DataFrame | None:
    """:func:`paper_grid` for each experiment type of ``eps_by_kind`` (``{"II": ε grid,
    "III": ε grid}``) on ``tasks``, in one frame; None when ``tasks`` is empty."""
    frames = [paper_grid(kind, tasks, mechanisms, eps, runs, seed, epochs=epochs, n_max=n_max)
              for kind, eps in eps_by_kind.items() if tasks]
    return pd.concat(frames, ignore_index=True) if frames else None
