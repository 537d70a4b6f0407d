"""The paper's own experiments of chapter 1 (TLDP, Sec. V-A1, Tables II-IV), for the `paper`
profile: the networks and data the offline experiments of :mod:`ldp_companion.tldp.experiments`
stand in for.

* Type I (Table II): torchvision's ImageNet-pretrained MobileNetV2, last layer replaced by a
  10-class layer, trained on perturbed MNIST (60,000; 1 channel, repeated to 3 after
  perturbation), CIFAR-10 (50,000) or SVHN (73,257) training images, scored on the clean test
  images. Adam 1e-3, cross-entropy, batch 64, 10 epochs.
* Type II (Table III): the same pretrained MobileNetV2 with every ReLU6 replaced by tanh and
  not fine-tuned maps an image to 1,280 features in (-1, 1); each training feature vector is
  perturbed, a Dropout + Linear(1280, 10) classifier is trained on them.
* Type III (Table IV): FedAvg with 3 clients (one local epoch a round, every parameter
  clipped to [-1, 1] and perturbed per tensor before upload) of MobileNetV2 (images), a
  2-layer BiLSTM with hidden size 256 on GloVe-100d vectors (IMDB, 500 tokens, 50 epochs in
  the paper) or an FCN 256-256-256-128 (CIC-Darknet2020, 25 epochs in the paper).

The data and weights come from :mod:`ldp_companion.data.paper_assets`; a missing file raises a
:class:`~ldp_companion.data.datasets.DataError` naming it. Cells run through
:func:`~ldp_companion.execution.grid.run_grid` like the offline grids, so a run is reproducible from
its seed. Deviations: a regex tokenizer instead of spaCy; BatchNorm running statistics averaged
by the server without noise (the authors' code does not perturb them either); every
parameter tensor is perturbed, the frozen GloVe embedding included (the code perturbs every
key holding "weight" or "bias").
"""
from __future__ import annotations

import functools
import math
import time

import numpy as np
import pandas as pd
import torch
from sklearn.model_selection import train_test_split
from torch import nn

from ldp_companion.data import paper_assets
from ldp_companion.execution.grid import run_grid
from ldp_companion.neural.device import one_thread, seed_torch_global, torch_device
from ldp_companion.neural.models import BiLSTMEncoder
from ldp_companion.neural.training import as_tensor, fit_classifier
from ldp_companion.tldp.experiments import (
    BATCH_SIZE,
    MECHANISMS,
    _aggregate,
    _check_names,
    _check_per_task,
    _perturb,
    _set_params,
    client_partition,
    f1_of_logits,
)
from ldp_companion.validation import check_epsilon, check_positive_int

__all__ = ["TASKS", "TASK_LABELS", "TYPES", "PAPER_EPOCHS", "REPORTED", "assets_needed",
           "run_present",
           "mobilenet", "BiLSTM", "fcn", "claim_assets", "reported_levels",
           "paper_data", "type1_cell", "type2_cell", "type3_cell", "paper_grid"]

#: The experiment types and the data sets each runs on (Sec. V-B).
TYPES = {"I": ("mnist", "cifar10", "svhn"), "II": ("mnist", "cifar10", "svhn"),
         "III": ("mnist", "cifar10", "svhn", "imdb", "darknet")}
TASKS = TYPES["III"]
#: Display names of the data sets.
TASK_LABELS = {"mnist": "MNIST", "cifar10": "CIFAR-10", "svhn": "SVHN", "imdb": "IMDB",
               "darknet": "DarkNet"}
#: Training epochs of Sec. V-A1 (Type III: FedAvg rounds of one local epoch).
PAPER_EPOCHS = {"mnist": 10, "cifar10": 10, "svhn": 10, "imdb": 50, "darknet": 25}
_ASSETS = {"mnist": ("mnist", "mobilenet_v2"), "cifar10": ("cifar10", "mobilenet_v2"),
           "svhn": ("svhn", "mobilenet_v2"), "imdb": ("imdb", "glove"), "darknet": ("darknet",)}
_EVAL_BATCH = 1024


def assets_needed(kind: str, tasks) -> list[str]:
    """The assets (:data:`ldp_companion.data.paper_assets.ASSETS` names) that experiment type
    ``kind`` needs for ``tasks``."""
    tasks = _check_tasks(kind, tasks)
    return list(dict.fromkeys(a for t in tasks for a in _ASSETS[t]))


def _check_tasks(kind, tasks) -> list[str]:
    if kind not in TYPES:
        raise ValueError(f"kind must be one of {list(TYPES)}, got {kind!r}")
    return _check_names(tasks, TYPES[kind], f"tasks of Type {kind}")


# --------------------------------------------------------------------------- models

def _init_linear(layer: nn.Linear, gen: torch.Generator) -> nn.Linear:
    bound = 1.0 / math.sqrt(layer.in_features)
    with torch.no_grad():
        for p in (layer.weight, layer.bias):
            p.copy_((2 * torch.rand(p.shape, generator=gen) - 1) * bound)
    return layer


@functools.lru_cache(maxsize=1)
def _mobilenet_state() -> dict:
    return paper_assets.mobilenet_v2_weights()


def mobilenet(n_classes: int, *, tanh: bool, gen: torch.Generator,
              device: torch.device) -> nn.Module:
    """torchvision's MobileNetV2 with the ImageNet weights, its last layer replaced by a
    ``n_classes`` layer drawn from ``gen``; with ``tanh`` every ReLU6 becomes tanh (Type II,
    features in (-1, 1))."""
    from torchvision.models import mobilenet_v2

    model = mobilenet_v2(weights=None)
    model.load_state_dict(_mobilenet_state())
    model.classifier[1] = _init_linear(nn.Linear(1280, n_classes), gen)
    if tanh:
        for parent in model.modules():
            for name, child in parent.named_children():
                if isinstance(child, nn.ReLU6):
                    setattr(parent, name, nn.Tanh())
    return model.to(device)


class BiLSTM(BiLSTMEncoder):
    """IMDB's model (Sec. V-A1): frozen GloVe embedding, 2-layer bidirectional LSTM with
    hidden size 256 and dropout 0.3, a linear layer on the last hidden states of both
    directions."""

    def __init__(self, vectors: np.ndarray, hidden: int = 256, n_classes: int = 2):
        super().__init__(vectors, hidden, layers=2, dropout=0.3)
        self.dropout = nn.Dropout(0.3)
        self.fc = nn.Linear(2 * hidden, n_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(self.dropout(super().forward(x)))


def fcn(n_features: int, n_classes: int = 2) -> nn.Sequential:
    """DarkNet's FCN (Sec. V-A1): hidden layers 256, 256, 256, 128, ReLU, dropout 0.3."""
    sizes = (n_features, 256, 256, 256, 128)
    layers: list[nn.Module] = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        layers += [nn.Linear(a, b), nn.ReLU(), nn.Dropout(0.3)]
    return nn.Sequential(*layers, nn.Linear(sizes[-1], n_classes))


# --------------------------------------------------------------------------- data

def _subsample(x, y, n_max, seed: int = 0):
    if n_max is None or n_max >= len(y):
        return x, y
    x, _, y, _ = train_test_split(x, y, train_size=int(n_max), stratify=y, random_state=seed)
    return x, y


@functools.lru_cache(maxsize=2)
def paper_data(task: str, n_max: int | None = None) -> tuple:
    """``(x_train, y_train, x_test, y_test)`` of a paper task (once per process); images on
    [-1, 1] with shape (n, channels, h, w), IMDB as GloVe indices, DarkNet features on
    [0, 1]. ``n_max`` subsamples the training part (stratified) for a quicker run."""
    if task in paper_assets.IMAGE_TASKS:
        d = paper_assets.load_images(task)
        parts = (d.x_train, d.y_train, d.x_test, d.y_test)
    elif task == "imdb":
        parts = paper_assets.load_imdb(_glove()[0])
    elif task == "darknet":
        parts = paper_assets.load_darknet()
    else:
        raise ValueError(f"task must be one of {TASKS}, got {task!r}")
    x_tr, y_tr = _subsample(parts[0], parts[1], n_max)
    return x_tr, y_tr, parts[2], parts[3]


@functools.lru_cache(maxsize=1)
def _glove():
    return paper_assets.load_glove()


def _model(task: str, n_features: int, gen: torch.Generator, device) -> nn.Module:
    """Type III's model of ``task`` (Table IV)."""
    if task in paper_assets.IMAGE_TASKS:
        return mobilenet(10, tanh=False, gen=gen, device=device)
    if task == "imdb":
        return BiLSTM(_glove()[1]).to(device)
    return fcn(n_features).to(device)


def _images_for_model(x: np.ndarray, device) -> torch.Tensor:
    """Images as float32 on ``device``, 1-channel images repeated to 3 (the authors' code)."""
    t = as_tensor(x, device)
    return t.expand(-1, 3, -1, -1).contiguous() if t.shape[1] == 1 else t


@torch.no_grad()
def _f1(model: nn.Module, x: torch.Tensor, y: np.ndarray) -> float:
    """Weighted F1 (Eq. 16) on ``x``, the outputs computed in batches."""
    model.eval()
    return f1_of_logits(torch.cat([model(x[s:s + _EVAL_BATCH])
                                   for s in range(0, len(x), _EVAL_BATCH)]), y)


# --------------------------------------------------------------------------- cells

def type1_cell(*, task: str, mechanism: str, epsilon: float, run: int,
               rng: np.random.Generator, epochs: int, lr: float, n_max: int | None,
               device: str | None) -> dict:
    """One Type I cell: perturb every training image, fine-tune MobileNetV2, F1 on clean
    test images."""
    t0 = time.perf_counter()
    with one_thread():
        x_tr, y_tr, x_te, y_te = paper_data(task, n_max)
        dev = torch_device(device)
        gen = seed_torch_global(rng)
        x = _perturb(mechanism, x_tr.astype(np.float64), epsilon, 2.0, rng)
        model = mobilenet(10, tanh=False, gen=gen, device=dev)
        fit_classifier(model, _images_for_model(x, dev), as_tensor(y_tr, dev, torch.long),
                       epochs=epochs, lr=lr, batch_size=BATCH_SIZE, gen=gen)
        f1 = _f1(model, _images_for_model(x_te, dev), y_te)
    return {"f1": f1, "tensor_size": int(np.prod(x_tr.shape[1:])), "n_train": len(y_tr),
            "seconds": time.perf_counter() - t0}


@functools.lru_cache(maxsize=1)
def _tanh_features(task: str, n_max: int | None, device: str | None):
    """Train and test features of the tanh MobileNetV2 (1,280 per image, in (-1, 1))."""
    x_tr, _, x_te, _ = paper_data(task, n_max)
    dev = torch_device(device)
    model = mobilenet(10, tanh=True, gen=torch.Generator().manual_seed(0), device=dev).eval()
    extractor = nn.Sequential(model.features, nn.AdaptiveAvgPool2d(1), nn.Flatten())
    out = []
    with torch.no_grad():
        for x in (x_tr, x_te):
            out.append(np.concatenate([
                extractor(_images_for_model(x[s:s + _EVAL_BATCH], dev)).double().cpu().numpy()
                for s in range(0, len(x), _EVAL_BATCH)]))
    return tuple(out)


def type2_cell(*, task: str, mechanism: str, epsilon: float, run: int,
               rng: np.random.Generator, epochs: int, lr: float, n_max: int | None,
               device: str | None) -> dict:
    """One Type II cell: perturb every training feature vector of the tanh MobileNetV2,
    train Dropout + Linear(1280, 10) on them, F1 on clean test features."""
    t0 = time.perf_counter()
    with one_thread():
        _, y_tr, _, y_te = paper_data(task, n_max)
        f_tr, f_te = _tanh_features(task, n_max, device)
        dev = torch_device(device)
        gen = seed_torch_global(rng)
        x = _perturb(mechanism, f_tr, epsilon, 2.0, rng)
        head = nn.Sequential(nn.Dropout(0.2), _init_linear(nn.Linear(1280, 10), gen)).to(dev)
        fit_classifier(head, as_tensor(x, dev), as_tensor(y_tr, dev, torch.long),
                       epochs=epochs, lr=lr, batch_size=BATCH_SIZE, gen=gen)
        f1 = _f1(head, as_tensor(f_te, dev), y_te)
    return {"f1": f1, "tensor_size": 1280, "n_train": len(y_tr),
            "seconds": time.perf_counter() - t0}


def _inputs(task: str, x: np.ndarray, dev) -> torch.Tensor:
    if task in paper_assets.IMAGE_TASKS:
        return _images_for_model(x, dev)
    return as_tensor(x, dev, torch.long if task == "imdb" else torch.float32)


def type3_cell(*, task: str, mechanism: str, epsilon: float, run: int,
               rng: np.random.Generator, epochs: int, lr: float, n_max: int | None,
               clip: float, clients: int, device: str | None) -> dict:
    """One Type III cell: FedAvg for ``epochs`` rounds of one local epoch; every client clips
    each parameter tensor to [-clip, clip] and perturbs it (value range 2 clip, Eq. 19)
    before upload; the server averages parameters (and, without noise, BatchNorm
    statistics)."""
    t0 = time.perf_counter()
    with one_thread():
        x_tr, y_tr, x_te, y_te = paper_data(task, n_max)
        dev = torch_device(device)
        gen = seed_torch_global(rng)
        model = _model(task, x_tr.shape[-1], gen, dev)
        x, y = _inputs(task, x_tr, dev), as_tensor(y_tr, dev, torch.long)
        parts = [torch.as_tensor(p, device=dev) for p in client_partition(y_tr, clients, rng)]
        params = [p.detach().clone() for p in model.parameters()]
        buffers = [b.detach().clone() for b in model.buffers()]
        for _ in range(epochs):
            uploads, stats = [], []
            for idx in parts:
                _load(model, params, buffers)
                fit_classifier(model, x[idx], y[idx], epochs=1, lr=lr, batch_size=BATCH_SIZE,
                               gen=gen)
                uploads.append([p.detach().clamp(-clip, clip) for p in model.parameters()])
                stats.append([b.detach().clone() for b in model.buffers()])
            params = _aggregate(uploads, mechanism, epsilon, clip, "client", rng)
            buffers = [_mean_buffer([s[k] for s in stats]) for k in range(len(buffers))]
        _load(model, params, buffers)
        f1 = _f1(model, _inputs(task, x_te, dev), y_te)
    return {"f1": f1, "n_params": sum(p.numel() for p in params), "n_train": len(y_tr),
            "seconds": time.perf_counter() - t0}


def _load(model: nn.Module, params: list, buffers: list) -> None:
    _set_params(model, params)
    with torch.no_grad():
        for b, v in zip(model.buffers(), buffers):
            b.copy_(v)


def _mean_buffer(values: list[torch.Tensor]) -> torch.Tensor:
    """The clients' mean of a floating buffer (BatchNorm statistics); counters from the first."""
    if values[0].is_floating_point():
        return torch.stack(values).mean(dim=0)
    return values[0]


# --------------------------------------------------------------------------- grid

_CELLS = {"I": type1_cell, "II": type2_cell, "III": type3_cell}


def paper_grid(kind: str, tasks, mechanisms, eps_grid, runs: int, seed: int, *,
               epochs=None, n_max: int | None = None, lr: float = 1e-3, clip: float = 1.0,
               clients: int = 3, device: str | None = None, n_jobs: int | None = 1,
               progress: bool | None = None) -> pd.DataFrame:
    """The paper's experiment of Type ``kind`` (``"I"``, ``"II"`` or ``"III"``) on ``tasks``.

    Parameters
    ----------
    kind : {"I", "II", "III"}
    tasks : list of str
        Data sets among :data:`TYPES` ``[kind]``.
    mechanisms : list of str
        Among :data:`ldp_companion.tldp.experiments.MECHANISMS`; ``"none"`` runs once with
        ε = inf.
    eps_grid : list of float
        Nominal ε.
    runs, seed : int
        Repetitions and the seed of every cell's generator.
    epochs : int, mapping task -> int, or None
        Training epochs (Type III: rounds); None: the paper's (:data:`PAPER_EPOCHS`).
    n_max : int, optional
        Subsample each training set (stratified) to at most ``n_max`` examples.
    lr, clip, clients : float, float, int
        Adam's learning rate (1e-3), Type III's L∞ clip C (1) and clients (3).
    device : str, optional
        :func:`~ldp_companion.neural.device.torch_device`'s ``prefer`` (CUDA when present).
    n_jobs : int, optional
        Worker processes (default 1: one GPU is shared best by one process).
    progress : bool, optional
        Progress bar, as in :func:`~ldp_companion.execution.grid.run_grid`.

    Returns
    -------
    DataFrame
        One row per cell: ``type, task, mechanism, epsilon, run, f1, n_train, seconds`` and
        the cell's own facts, plus ``epochs``.

    Raises
    ------
    DataError
        Before any training, naming every file of ``tasks`` that is missing.
    """
    tasks = _check_tasks(kind, tasks)
    mechanisms = _check_names(mechanisms, MECHANISMS, "mechanisms")
    eps_grid = [check_epsilon(e, "eps_grid entries") for e in np.atleast_1d(eps_grid)]
    runs = check_positive_int(runs, "runs")
    paper_assets.require(assets_needed(kind, tasks))
    per_task = _check_per_task(PAPER_EPOCHS if epochs is None else epochs, tasks, "epochs")
    per_task = {t: per_task[t] if isinstance(per_task, dict) else per_task for t in tasks}
    extra = {"clip": float(clip), "clients": check_positive_int(clients, "clients")} \
        if kind == "III" else {}
    cells = [{"task": t, "mechanism": m, "epsilon": e, "run": r}
             for t in tasks for m in mechanisms
             for e in ([math.inf] if m == "none" else eps_grid) for r in range(runs)]
    fn = functools.partial(_dispatch, kind=kind, per_task=per_task, extra=extra, lr=float(lr),
                           n_max=n_max, device=device)
    results = run_grid(fn, cells, seed, n_jobs=n_jobs, progress=progress,
                       description=f"TLDP paper Type {kind}")
    frame = pd.DataFrame([{"type": kind, **c, **r} for c, r in zip(cells, results)])
    return frame.assign(epochs=frame["task"].map(per_task))


def run_present(types, tasks, mechanisms, eps_12, eps_3, runs: int, seed: int, *,
                epochs=None, n_max: int | None = None) -> tuple[pd.DataFrame | None, list[str]]:
    """:func:`paper_grid` for every type of ``types`` on the data sets of ``tasks`` whose
    files are present (Type III at ``eps_3``, Types I–II at ``eps_12``).

    Returns
    -------
    runs : DataFrame or None
        The grids' rows together (None when nothing could run).
    skipped : list of str
        One message per distinct set of missing files, naming them
        (:func:`ldp_companion.data.paper_assets.missing_message`).
    """
    frames, skipped = [], {}
    for kind in types:
        ready, missing_files = paper_assets.split_ready(
            [t for t in tasks if t in TYPES[kind]], lambda t, kind=kind: assets_needed(kind, [t]))
        skipped.update({(kind, t): message for t, message in missing_files.items()})
        if ready:
            frames.append(paper_grid(kind, ready, mechanisms,
                                     eps_3 if kind == "III" else eps_12, runs, seed,
                                     epochs=epochs, n_max=n_max))
    runs_frame = pd.concat(frames, ignore_index=True) if frames else None
    return runs_frame, list(dict.fromkeys(skipped.values()))


def _dispatch(*, kind: str, per_task: dict, extra: dict, task: str, **cell):
    """Module-level entry of a grid cell (picklable for the workers)."""
    return _CELLS[kind](task=task, epochs=per_task[task], **extra, **cell)


# --------------------------------------------------------------------------- the paper's levels

#: F1 levels the paper reports in words (Sec. V-B), by ledger claim: (type, task) -> (TLDP's
#: best mean F1 is taken over ε below this, the level). Fig. 1: "approximately 90 % when ε is
#: below 1" (MNIST, SVHN), CIFAR-10 "stabilizes around 70 %"; Fig. 2: MNIST "a maximum of
#: about 80 %", CIFAR-10 and SVHN "around 40 %"; Fig. 3: IMDB, "both TLDP ≈ 80 %".
REPORTED = {
    "fig1-other-data": {("I", "cifar10"): (math.inf, 0.70), ("I", "svhn"): (1.0, 0.90)},
    "fig2-other-data": {("II", "mnist"): (math.inf, 0.80), ("II", "cifar10"): (math.inf, 0.40),
                        ("II", "svhn"): (math.inf, 0.40)},
    "fig3-other-data": {("III", "imdb"): (math.inf, 0.80)},
}
_TLDP = ("tldp_l", "tldp_g")


def claim_assets(claim: str) -> list[str]:
    """The assets the panels of ``claim`` (:data:`REPORTED`) need."""
    return list(dict.fromkeys(a for kind, task in REPORTED[claim]
                              for a in assets_needed(kind, [task])))


def reported_levels(frame: pd.DataFrame | None, claim: str) -> pd.DataFrame:
    """The paper's levels of ``claim`` (:data:`REPORTED`) beside this run's: for each
    (type, task) the run covers, TLDP-L's and TLDP-G's best mean F1 over the runs, at ε below
    the paper's bound.

    Returns
    -------
    DataFrame
        Index ``"Type I, SVHN"``…, columns ``paper``, ``ours``, ``eps`` (where ours is
        reached); empty when the run (None: no run) covers none of the claim's panels.
    """
    rows = {}
    if frame is None:
        frame = pd.DataFrame(columns=["type", "task", "mechanism", "epsilon", "f1"])
    for (kind, task), (below, level) in REPORTED[claim].items():
        cells = frame[(frame["type"] == kind) & (frame["task"] == task)
                      & frame["mechanism"].isin(_TLDP) & (frame["epsilon"] < below)]
        if cells.empty:
            continue
        means = cells.groupby(["mechanism", "epsilon"])["f1"].mean()
        rows[f"Type {kind}, {TASK_LABELS[task]}"] = {"paper": level, "ours": means.max(),
                                        "eps": means.idxmax()[1]}
    return pd.DataFrame(rows, index=["paper", "ours", "eps"]).T
