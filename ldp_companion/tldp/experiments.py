"""Experiment grids of chapter 1 (TLDP, Yuan et al.): the three experiment types of Sec. V-B.

* **Type I** (Sec. V-B1, Table II, Fig. 1, titled "private testing data" although the text
  perturbs the *training* images): every training image (one image = one tensor) is perturbed
  once, a small torch model is trained on the perturbed images and scored on the clean test
  images.
* **Type II** (Sec. V-B2, Table III, Fig. 2): a tanh feature extractor pretrained on clean
  public data maps each image to a feature vector in (-1, 1); the training feature vectors
  (one vector = one tensor) are perturbed and a linear head is trained on them.
* **Type III** (Sec. V-B3, Table IV, Fig. 3, titled "private SGD"): FedAvg with 3 clients;
  every round each client trains one local epoch, clips every parameter to [-C, C] and
  perturbs each parameter tensor before upload (or, as in the paper's text, the server
  perturbs the averaged parameters).

The metric is weighted F1 on clean test data (Eqs. 13-16, ``f1_score(average="weighted")``).
Each cell (task, mechanism, ε, run) has its own numpy generator,
``cell_rng(seed, {task, mechanism, epsilon, run})`` (:mod:`ldp_companion.execution.grid`), which
drives the perturbation, the clients' split, the model's initialisation and the batch order (through
:func:`~ldp_companion.neural.device.seed_torch`). The cells of one (task, mechanism), every ε and
run, are trained side by side as one batched model (:mod:`ldp_companion.tldp.stacked`; the
same weights as one cell at a time), one call through :func:`ldp_companion.execution.grid.run_grid`
per (task, mechanism); torch runs on one thread inside a call, so a serial run and a joblib run
give identical tables (except the ``seconds`` column, wall time).

Deviations from the paper (Tables II-IV): small torch MLPs instead of an ImageNet-pretrained
MobileNetV2 (and a tanh MLP pretrained on a public split instead of the tanh-swapped
MobileNetV2 of Type II); scikit-learn digits and the MNIST *test* split (the training images
are not available offline) instead of MNIST/CIFAR-10/SVHN/IMDB/DarkNet; data on [-1, 1] with
Δ = 2 (Eqs. 17-18) instead of the Δ = 256 printed in the tables; per-sample feature tensors in
Type II; noise before upload by default in Type III.
"""
from __future__ import annotations

import functools
import math
import numbers
import time
from collections.abc import Mapping

import numpy as np
import pandas as pd
import torch
from sklearn.metrics import f1_score
from torch import nn

from ldp_companion.execution.grid import cell_rng, run_grid
from ldp_companion.neural.device import one_thread, seed_torch, torch_device
from ldp_companion.neural.training import as_tensor, fit_classifier
from ldp_companion.tldp import mechanisms as tldp_mechanisms
from ldp_companion.tldp.data import TASKS, Task, load_task
from ldp_companion.tldp.stacked import fit_stacked, stacked_logits, stacked_mlp
from ldp_companion.validation import check_epsilon, check_positive_int

__all__ = ["TASK_NAMES", "MECHANISMS", "NOISE_AT", "cached_task", "client_partition",
           "f1_of_logits", "type1_cell", "type2_cell", "type3_cell", "type1_grid", "type2_grid",
           "type3_grid", "type1_laplace_at_i_eps"]

TASK_NAMES = tuple(TASKS)

#: Names understood by :func:`ldp_companion.tldp.mechanisms.perturb`; ``"none"`` = clean data.
MECHANISMS = ("none", "tldp_l", "tldp_g", "tldp_l_w", "tldp_g_w", "laplace", "gaussian", "idn",
              "mvg")

#: Where Type III adds noise: each client before upload (LDP) or the server after averaging.
NOISE_AT = ("client", "server")

#: Batch size of every model (Tables II-IV).
BATCH_SIZE = 64

#: Salt of the generator that pretrains the Type II feature extractor (from the grid's seed).
_EXTRACTOR_SALT = 2

#: Δ of Type II's features: tanh activations lie in (−1, 1) (Eq. 18, ``s₂ = 2√I``).
FEATURE_RANGE = 2.0


# --------------------------------------------------------------------------- data

@functools.lru_cache(maxsize=8)
def cached_task(name: str, seed: int, n_max: int | None = None) -> Task:
    """:func:`~ldp_companion.tldp.data.load_task` with default fractions, once per process."""
    return load_task(name, seed=seed, n_max=n_max)


def client_partition(y: np.ndarray, clients: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Split sample indices into ``clients`` disjoint parts, stratified by label.

    The samples are shuffled with ``rng``, grouped by label (stable sort) and dealt
    round-robin, so every part holds each class's share within one sample.
    """
    y = np.asarray(y)
    order = rng.permutation(len(y))
    order = order[np.argsort(y[order], kind="stable")]
    slot = np.empty(len(y), dtype=np.int64)
    slot[order] = np.arange(len(y)) % clients
    return [np.flatnonzero(slot == k) for k in range(clients)]


def _perturb(mechanism: str, x: np.ndarray, epsilon: float, value_range: float,
             rng: np.random.Generator) -> np.ndarray:
    """:func:`ldp_companion.tldp.mechanisms.perturb` on a batch of tensors (``x[i]`` = one
    tensor), looked up at call time (a test can monkeypatch it); identity for ``"none"``."""
    if mechanism == "none":
        return x
    out = tldp_mechanisms.perturb(mechanism, x, epsilon, value_range=value_range, rng=rng)
    return np.asarray(out, dtype=np.float64)


# --------------------------------------------------------------------------- torch helpers

def _mlp(sizes: tuple[int, ...], activation: str, device: torch.device,
         gen: torch.Generator) -> nn.Sequential:
    """``Flatten`` then linear layers of ``sizes`` with ``activation`` between them, every
    weight and bias drawn from U(-1/sqrt(fan_in), 1/sqrt(fan_in)) (torch's default) with
    ``gen``."""
    act = {"relu": nn.ReLU, "tanh": nn.Tanh}[activation]
    layers: list[nn.Module] = [nn.Flatten()]
    for i, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        layers += [nn.Linear(n_in, n_out, device="meta")] + ([act()] if i < len(sizes) - 2
                                                             else [])
    model = nn.Sequential(*layers).to_empty(device=device)
    with torch.no_grad():
        for m in model:
            if isinstance(m, nn.Linear):
                bound = 1.0 / math.sqrt(m.in_features)
                for p in (m.weight, m.bias):
                    draw = torch.rand(p.shape, generator=gen, dtype=p.dtype)
                    p.copy_((2 * draw - 1) * bound)
    return model


def f1_of_logits(logits: torch.Tensor, y: np.ndarray) -> float:
    """Weighted F1 (Eq. 16) of the predictions ``logits.argmax(1)`` against ``y``; a row with
    a non-finite output counts as a wrong prediction."""
    pred = logits.argmax(dim=1).cpu().numpy()
    pred[~torch.isfinite(logits).all(dim=1).cpu().numpy()] = -1
    return float(f1_score(y, pred, average="weighted", labels=np.unique(y), zero_division=0))


@torch.no_grad()
def _weighted_f1(model: nn.Module, x: torch.Tensor, y: np.ndarray) -> float:
    """Weighted F1 (Eq. 16) of ``model`` on ``x``; NaN outputs count as wrong predictions."""
    model.eval()
    return f1_of_logits(model(x), y)


def _labels(y: np.ndarray, device: torch.device) -> torch.Tensor:
    return as_tensor(y, device, torch.long)


def _for_task(value, task: str):
    """``value[task]`` for a per-task mapping, else ``value``."""
    return value[task] if isinstance(value, Mapping) else value


def _perturbed_runs(mechanism: str, x: np.ndarray, value_range: float, epsilons: list[float],
                    rngs: list[np.random.Generator], device: torch.device) -> tuple:
    """Run i's torch generator (``seed_torch(rngs[i])``, drawn first) and its copy of the
    batch ``x`` perturbed at ``epsilons[i]`` with ``rngs[i]``: the generators and the
    copies stacked, float32 of shape (R, *x.shape), written in place (no float64 stack)."""
    gens, out = [], np.empty((len(rngs), *x.shape), dtype=np.float32)
    for i, (epsilon, rng) in enumerate(zip(epsilons, rngs)):
        gens.append(seed_torch(rng))
        out[i] = _perturb(mechanism, x, epsilon, value_range, rng)
    return gens, torch.from_numpy(out).to(device)


def _results(f1s: list[float], t0: float, **extra) -> list[dict]:
    """One row per run; ``seconds`` is the runs' shared wall time divided among them (they
    train side by side)."""
    seconds = (time.perf_counter() - t0) / len(f1s)
    return [{"f1": f1, **extra, "seconds": seconds} for f1 in f1s]


@torch.no_grad()
def _stacked_f1(params: list[torch.Tensor], x: torch.Tensor, y: np.ndarray) -> list[float]:
    """Each run's weighted F1 (Eq. 16) on ``x`` (n, in), NaN outputs counting as wrong."""
    return [f1_of_logits(logits, y) for logits in stacked_logits(params, x)]


# --------------------------------------------------------------------------- Type I

def _type1_runs(*, task: str, mechanism: str, epsilons: list[float],
                rngs: list[np.random.Generator], data_seed: int, n_max: int | None,
                epochs: int | Mapping[str, int], hidden: int, lr: float,
                device: str | None) -> list[dict]:
    """Type I runs (Sec. V-B1) of one task and mechanism, trained side by side: run i
    perturbs every training image at ``epsilons[i]`` with its generator ``rngs[i]``, trains,
    scores on the clean test images.

    ``epochs`` may be a mapping task -> epochs. Returns one dict per run: ``f1``,
    ``tensor_size`` (I), ``n_train``, ``value_range`` (the Δ passed to the mechanism) and
    ``seconds``.
    """
    t0 = time.perf_counter()
    with one_thread():
        data = cached_task(task, data_seed, n_max)
        dev = torch_device(device)
        gens, x = _perturbed_runs(mechanism, data.x_train, data.value_range, epsilons, rngs,
                                  dev)
        size = math.prod(data.tensor_shape)
        sizes = (size, hidden, data.n_classes) if hidden else (size, data.n_classes)
        params = stacked_mlp(sizes, gens, dev)
        y = _labels(data.y_train, dev).expand(len(rngs), -1)
        fit_stacked(params, x.flatten(2), y,
                    epochs=_for_task(epochs, task), lr=lr, batch_size=BATCH_SIZE, gens=gens)
        f1s = _stacked_f1(params, as_tensor(data.x_test, dev).flatten(1), data.y_test)
    return _results(f1s, t0, tensor_size=size, n_train=len(data.y_train),
                    value_range=data.value_range)


def type1_cell(*, task: str, mechanism: str, epsilon: float, run: int, rng: np.random.Generator,
               **settings) -> dict:
    """One Type I cell (Sec. V-B1): :func:`_type1_runs` with the one generator ``rng``
    (``run`` only names the repetition; it is part of the cell's key, hence of ``rng``)."""
    return _type1_runs(task=task, mechanism=mechanism, epsilons=[epsilon], rngs=[rng],
                       **settings)[0]


# --------------------------------------------------------------------------- Type II

@functools.lru_cache(maxsize=8)
def _features(task: str, data_seed: int, n_max: int | None, hidden: int, epochs: int,
              device: str | None) -> tuple[np.ndarray, np.ndarray, float]:
    """Train the tanh extractor on the clean public split (once per process) and return the
    train and test features (in (-1, 1)) and the extractor's own clean test F1."""
    data = cached_task(task, data_seed, n_max)
    dev = torch_device(device)
    gen = seed_torch(np.random.default_rng(np.random.SeedSequence(data_seed,
                                                                  spawn_key=(_EXTRACTOR_SALT,))))
    model = _mlp((math.prod(data.tensor_shape), hidden, data.n_classes), "tanh", dev, gen)
    fit_classifier(model, as_tensor(data.x_public, dev), _labels(data.y_public, dev),
                   epochs=epochs, lr=1e-3, batch_size=BATCH_SIZE, gen=gen)
    f1 = _weighted_f1(model, as_tensor(data.x_test, dev), data.y_test)
    extractor = model[:3].eval()            # Flatten, Linear, Tanh
    with torch.no_grad():
        feats = [extractor(as_tensor(x, dev)).double().cpu().numpy()
                 for x in (data.x_train, data.x_test)]
    for f in feats:
        f.setflags(write=False)
    return feats[0], feats[1], f1


def _type2_runs(*, task: str, mechanism: str, epsilons: list[float],
                rngs: list[np.random.Generator], data_seed: int, n_max: int | None,
                epochs: int | Mapping[str, int], hidden: int, extractor_epochs: int,
                lr: float, device: str | None) -> list[dict]:
    """Type II runs (Sec. V-B2) of one task and mechanism, trained side by side: run i
    perturbs every training feature vector at ``epsilons[i]`` with its generator
    ``rngs[i]``, trains a linear head, scores on the clean test features.

    Returns one dict per run: ``f1``, ``tensor_size`` (the feature dimension), ``n_train``,
    ``extractor_f1`` (the pretrained extractor's own clean test F1, the same in every cell),
    ``value_range`` (the Δ passed to the mechanism) and ``seconds``.
    """
    t0 = time.perf_counter()
    with one_thread():
        data = cached_task(task, data_seed, n_max)
        f_train, f_test, extractor_f1 = _features(task, data_seed, n_max, hidden,
                                                  extractor_epochs, device)
        dev = torch_device(device)
        gens, x = _perturbed_runs(mechanism, f_train, FEATURE_RANGE, epsilons, rngs, dev)
        heads = stacked_mlp((hidden, data.n_classes), gens, dev)
        y = _labels(data.y_train, dev).expand(len(rngs), -1)
        fit_stacked(heads, x, y, epochs=_for_task(epochs, task),
                    lr=lr, batch_size=BATCH_SIZE, gens=gens)
        f1s = _stacked_f1(heads, as_tensor(f_test, dev), data.y_test)
    return _results(f1s, t0, tensor_size=hidden, n_train=len(data.y_train),
                    extractor_f1=extractor_f1, value_range=FEATURE_RANGE)


def type2_cell(*, task: str, mechanism: str, epsilon: float, run: int, rng: np.random.Generator,
               **settings) -> dict:
    """One Type II cell (Sec. V-B2): :func:`_type2_runs` with the one generator ``rng``."""
    return _type2_runs(task=task, mechanism=mechanism, epsilons=[epsilon], rngs=[rng],
                       **settings)[0]


# --------------------------------------------------------------------------- Type III

def _set_params(model: nn.Module, values: list[torch.Tensor]) -> None:
    with torch.no_grad():
        for p, v in zip(model.parameters(), values):
            p.copy_(v)


def _aggregate(uploads: list[list[torch.Tensor]], mechanism: str, epsilon: float, clip: float,
               noise_at: str, rng: np.random.Generator) -> list[torch.Tensor]:
    """Server side of one round: the mean of the clients' clipped parameter tensors, each
    tensor perturbed by every client before upload or once by the server after averaging."""
    out = []
    for k, ref in enumerate(uploads[0]):
        stacked = torch.stack([u[k] for u in uploads]).double().cpu().numpy()
        if noise_at == "client":
            avg = _perturb(mechanism, stacked, epsilon, 2 * clip, rng).mean(axis=0)
        else:
            avg = _perturb(mechanism, stacked.mean(axis=0, keepdims=True), epsilon, 2 * clip,
                           rng)[0]
        out.append(torch.as_tensor(avg, dtype=ref.dtype).to(ref.device))
    return out


def _client_rows(parts: list[list[np.ndarray]], device: torch.device) -> list[torch.Tensor]:
    """Client k's training rows in every run, shape (R, n_k), from run r's split
    ``parts[r]`` (the same part sizes in every run: :func:`client_partition` deals by rank)."""
    return [torch.stack([torch.as_tensor(p[k]) for p in parts]).to(device)
            for k in range(len(parts[0]))]


def _type3_runs(*, task: str, mechanism: str, epsilons: list[float],
                rngs: list[np.random.Generator], data_seed: int, n_max: int | None,
                rounds: int, hidden: int, lr: float, clip: float, clients: int,
                noise_at: str, device: str | None) -> list[dict]:
    """Type III runs (Sec. V-B3) of one task and mechanism, trained side by side: FedAvg
    over ``rounds`` rounds of one local epoch, with every parameter tensor clipped to
    [-clip, clip] and perturbed (value range 2 clip, Eq. 19) at ``epsilons[i]`` in run i;
    run i's split, initial model, batch order and noise come from ``rngs[i]``.

    Returns one dict per run: ``f1`` of the final global model, the model's parameter
    tensors (``n_tensors``, ``n_params``, ``tensor_sizes`` as a comma-separated string),
    ``n_train``, ``value_range`` (the Δ passed to the mechanism, ``2 clip``) and ``seconds``.
    """
    t0 = time.perf_counter()
    with one_thread():
        data = cached_task(task, data_seed, n_max)
        dev = torch_device(device)
        gens = [seed_torch(rng) for rng in rngs]
        parts = [client_partition(data.y_train, clients, rng) for rng in rngs]
        size = math.prod(data.tensor_shape)
        sizes = (size, hidden, data.n_classes) if hidden else (size, data.n_classes)
        state = [p.detach() for p in stacked_mlp(sizes, gens, dev)]
        x, y = as_tensor(data.x_train, dev).flatten(1), _labels(data.y_train, dev)
        for _ in range(rounds):
            uploads = [[] for _ in rngs]                # run r: every client's tensors
            for rows in _client_rows(parts, dev):
                local = [p.clone().requires_grad_() for p in state]
                fit_stacked(local, x, y, rows=rows, epochs=1, lr=lr, batch_size=BATCH_SIZE,
                            gens=gens)
                clipped = [p.detach().clamp(-clip, clip) for p in local]
                for r, run in enumerate(uploads):
                    run.append([p[r] for p in clipped])
            averaged = [_aggregate(up, mechanism, epsilon, clip, noise_at, rng)
                        for up, epsilon, rng in zip(uploads, epsilons, rngs)]
            state = [torch.stack(layer) for layer in zip(*averaged)]
        f1s = _stacked_f1(state, as_tensor(data.x_test, dev).flatten(1), data.y_test)
    numels = [p[0].numel() for p in state]
    return _results(f1s, t0, n_tensors=len(numels), n_params=sum(numels),
                    tensor_sizes=",".join(map(str, numels)), n_train=len(data.y_train),
                    value_range=2 * clip)


def type3_cell(*, task: str, mechanism: str, epsilon: float, run: int, rng: np.random.Generator,
               **settings) -> dict:
    """One Type III cell (Sec. V-B3): :func:`_type3_runs` with the one generator ``rng``."""
    return _type3_runs(task=task, mechanism=mechanism, epsilons=[epsilon], rngs=[rng],
                       **settings)[0]


# --------------------------------------------------------------------------- grids

def _check_names(values, known, name: str) -> list[str]:
    if isinstance(values, str):
        values = [values]
    values = list(values)
    bad = [v for v in values if not isinstance(v, str) or v not in known]
    if not values or bad or len(set(values)) != len(values):
        raise ValueError(f"{name} must be a non-empty list of distinct names among "
                         f"{list(known)}; got {values!r}")
    return values


def _check_grid(tasks, mechanisms, eps_grid, runs, seed, n_max) -> tuple:
    tasks = _check_names(tasks, TASK_NAMES, "tasks")
    mechanisms = _check_names(mechanisms, MECHANISMS, "mechanisms")
    if isinstance(eps_grid, numbers.Real):
        eps_grid = [eps_grid]
    eps_grid = [check_epsilon(e, "eps_grid entries") for e in eps_grid]
    if not eps_grid or len(set(eps_grid)) != len(eps_grid):
        raise ValueError(f"eps_grid must be a non-empty list of distinct values, got {eps_grid}")
    runs = check_positive_int(runs, "runs")
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    if n_max is not None and (isinstance(n_max, bool) or not isinstance(n_max, numbers.Integral)
                              or n_max < 30):
        raise ValueError(f"n_max must be None or an integer >= 30, got {n_max!r}")
    return tasks, mechanisms, eps_grid, runs, int(seed), n_max


def _check_per_task(value, tasks: list[str], name: str) -> int | dict[str, int]:
    """A positive integer, or a mapping giving one for every task."""
    if not isinstance(value, Mapping):
        return check_positive_int(value, name)
    missing = [t for t in tasks if t not in value]
    if missing:
        raise ValueError(f"{name} has no value for tasks {missing}")
    return {t: check_positive_int(value[t], name) for t in tasks}


def _check_lr(lr) -> float:
    if isinstance(lr, bool) or not isinstance(lr, numbers.Real) or not 0 < lr < math.inf:
        raise ValueError(f"lr must be a finite number > 0, got {lr!r}")
    return float(lr)


def _check_hidden(hidden, allow_zero: bool) -> int:
    if allow_zero and hidden == 0 and not isinstance(hidden, bool):
        return 0
    return check_positive_int(hidden, "hidden")


def _cells(task: str, mechanism: str, eps: tuple, runs: int) -> list[dict]:
    """The keys of the cells (task, mechanism, ε, run) of one task and mechanism."""
    return [{"task": task, "mechanism": mechanism, "epsilon": e, "run": r}
            for e in eps for r in range(runs)]


def _runs_of_group(runs_fn, seed: int, *, task: str, mechanism: str, eps: tuple, runs: int,
                   rng: np.random.Generator) -> list[dict]:
    """``runs_fn`` on every cell (ε, run) of one task and mechanism, the cell's run with the
    generator ``cell_rng(seed, {task, mechanism, epsilon, run})``: the one a grid of single
    cells gives it. ``rng`` (the generator :func:`~ldp_companion.execution.grid.run_grid` gives the
    group) is not used."""
    cells = _cells(task, mechanism, eps, runs)
    return runs_fn(task=task, mechanism=mechanism, epsilons=[c["epsilon"] for c in cells],
                   rngs=[cell_rng(seed, c) for c in cells])


def _run(runs_fn, tasks, mechanisms, eps_grid, runs, seed, n_jobs, progress,
         description) -> pd.DataFrame:
    """Every (task, mechanism, ε, run) cell, the cells of one (task, mechanism) in one call
    of ``runs_fn``; ``"none"`` runs once per (task, run), ε = inf."""
    groups = [{"task": t, "mechanism": m, "runs": runs,
               "eps": (math.inf,) if m == "none" else tuple(eps_grid)}
              for t in tasks for m in mechanisms]
    results = run_grid(functools.partial(_runs_of_group, runs_fn, seed), groups, seed,
                       n_jobs=n_jobs, progress=progress, description=description)
    return pd.DataFrame([{**cell, **row} for group, rows in zip(groups, results)
                         for cell, row in zip(_cells(**group), rows)])


def type1_grid(tasks, mechanisms, eps_grid, runs: int, seed: int, *,
               epochs: int | Mapping[str, int],
               n_max: int | None = None, hidden: int = 64, lr: float = 1e-3,
               device: str | None = None, n_jobs: int | None = None,
               progress: bool | None = None) -> pd.DataFrame:
    """Type I grid (Sec. V-B1, Table II, Fig. 1): models trained on perturbed training images.

    Every training image (one tensor of shape (8, 8) or (28, 28), Δ = 2 on [-1, 1], Eq. 17) is
    perturbed once by ``mechanism`` at ``ε``; an MLP (ReLU hidden layer, Adam, cross-entropy,
    batch 64 as in Table II) is trained on the perturbed images; weighted F1 on the clean
    test images.

    Parameters
    ----------
    tasks : list of {"digits", "mnist"}
    mechanisms : list of str
        Among :data:`MECHANISMS`; ``"none"`` (clean training) runs once per run with ε = inf.
    eps_grid : list of float
        Privacy budgets (> 0), as passed to the mechanism (the paper's nominal ε).
    runs : int
        Repetitions per (task, mechanism, ε).
    seed : int
        Seed of the data splits and of every cell's generator.
    epochs : int or mapping
        Training epochs, or a mapping task -> epochs (the paper: 10 epochs of MobileNetV2).
    n_max : int, optional
        Subsample each task to at most ``n_max`` images before splitting.
    hidden : int
        Hidden units of the MLP; 0 gives multinomial logistic regression.
    lr : float
        Adam learning rate (the paper: 1e-3).
    device : str, optional
        :func:`~ldp_companion.neural.device.torch_device`'s ``prefer``.
    n_jobs : int, optional
        Worker processes (:func:`~ldp_companion.execution.grid.run_grid`).
    progress : bool, optional
        Progress bar (:func:`~ldp_companion.execution.grid.progress_bar`; None: only under
        ``python -m ldp_companion run``).

    Returns
    -------
    DataFrame
        Columns ``task, mechanism, epsilon, run, f1, tensor_size, n_train, value_range,
        seconds, epochs`` (``value_range`` is the Δ passed to the mechanisms; ``seconds``,
        the wall time of the cell's (task, mechanism) divided among its cells, is the only
        column that differs between runs).

    Notes
    -----
    Deviations: an MLP instead of the ImageNet-pretrained MobileNetV2; digits and the MNIST
    test split instead of MNIST/CIFAR-10/SVHN; Δ = 2 (the paper's code and Eq. 17) instead of
    the Δ = 256 printed in Table II.
    """
    tasks, mechanisms, eps_grid, runs, seed, n_max = _check_grid(
        tasks, mechanisms, eps_grid, runs, seed, n_max)
    epochs = _check_per_task(epochs, tasks, "epochs")
    fn = functools.partial(_type1_runs, data_seed=seed, n_max=n_max, epochs=epochs,
                           hidden=_check_hidden(hidden, True), lr=_check_lr(lr), device=device)
    torch_device(device)
    frame = _run(fn, tasks, mechanisms, eps_grid, runs, seed, n_jobs, progress, "TLDP Type I")
    return frame.assign(epochs=[_for_task(epochs, t) for t in frame["task"]])


def type2_grid(tasks, mechanisms, eps_grid, runs: int, seed: int, *,
               epochs: int | Mapping[str, int], extractor_epochs: int = 40,
               n_max: int | None = None, hidden: int = 64, lr: float = 1e-2,
               device: str | None = None, n_jobs: int | None = None,
               progress: bool | None = None) -> pd.DataFrame:
    """Type II grid (Sec. V-B2, Table III, Fig. 2): a linear head trained on perturbed
    features.

    A one-hidden-layer tanh MLP is trained on the clean public split (``extractor_epochs``
    epochs, Adam 1e-3); its hidden layer maps an image to ``hidden`` features in (-1, 1)
    (Δ = 2, Eq. 18). Every training feature vector (one tensor of ``hidden`` entries) is
    perturbed once; a linear head is trained on them (``epochs`` epochs of Adam at ``lr``);
    weighted F1 on the clean test features.

    Parameters
    ----------
    tasks, mechanisms, eps_grid, runs, seed, n_max, device, n_jobs, progress
        As in :func:`type1_grid`.
    epochs : int or mapping
        Epochs of the linear head (or a mapping task -> epochs).
    extractor_epochs : int
        Epochs of the extractor's pretraining on the public split.
    hidden : int
        Feature dimension (the tensor size I of Type II).
    lr : float
        Adam learning rate of the head.

    Returns
    -------
    DataFrame
        Columns ``task, mechanism, epsilon, run, f1, tensor_size, n_train, extractor_f1,
        value_range, seconds, epochs``.

    Notes
    -----
    Deviations: the paper's extractor is an ImageNet-pretrained MobileNetV2 with every ReLU6
    replaced by tanh (1280 features, not fine-tuned); ours is a small tanh MLP pretrained on
    in-domain public data, so our Type II is easier than the paper's. The paper's code
    perturbs the whole N x 1280 feature matrix as one tensor; we perturb per sample (LDP
    protects each record).
    """
    tasks, mechanisms, eps_grid, runs, seed, n_max = _check_grid(
        tasks, mechanisms, eps_grid, runs, seed, n_max)
    epochs = _check_per_task(epochs, tasks, "epochs")
    fn = functools.partial(_type2_runs, data_seed=seed, n_max=n_max, epochs=epochs,
                           hidden=_check_hidden(hidden, False),
                           extractor_epochs=check_positive_int(extractor_epochs,
                                                               "extractor_epochs"),
                           lr=_check_lr(lr), device=device)
    torch_device(device)
    frame = _run(fn, tasks, mechanisms, eps_grid, runs, seed, n_jobs, progress, "TLDP Type II")
    return frame.assign(epochs=[_for_task(epochs, t) for t in frame["task"]])


def type3_grid(tasks, mechanisms, eps_grid, runs: int, seed: int, *, rounds: int,
               n_max: int | None = None, hidden: int = 64, lr: float = 1e-2, clip: float = 1.0,
               clients: int = 3, noise_at: str = "client", device: str | None = None,
               n_jobs: int | None = None, progress: bool | None = None) -> pd.DataFrame:
    """Type III grid (Sec. V-B3, Table IV, Fig. 3): FedAvg with perturbed model parameters.

    The training split is partitioned (stratified) among ``clients`` clients (3 in the
    paper). Each round every client starts from the global model, trains one local epoch
    (Adam at ``lr``, batch 64), clips every parameter to [-clip, clip] (L∞ clipping, C = 1)
    and, with ``noise_at="client"``, perturbs each parameter tensor separately (one tensor =
    one weight matrix or bias vector, value range 2 clip, Eq. 19) before upload; the server
    averages. With ``noise_at="server"`` (the paper's text) the server perturbs the averaged
    tensors instead. Weighted F1 of the final global model on clean test data.

    Parameters
    ----------
    tasks, mechanisms, eps_grid, runs, seed, n_max, device, n_jobs, progress
        As in :func:`type1_grid`.
    rounds : int
        FedAvg rounds (one local epoch each).
    hidden : int
        Hidden units of the MLP (0: logistic regression, 2 tensors).
    lr : float
        Adam learning rate of the local epochs.
    clip : float
        C of the clipping (Table IV: 1).
    clients : int
        Number of clients (3 in the paper).
    noise_at : {"client", "server"}
        Who perturbs the parameters.

    Returns
    -------
    DataFrame
        Columns ``task, mechanism, epsilon, run, f1, n_tensors, n_params, tensor_sizes,
        n_train, value_range, seconds, rounds, clients, noise_at, clip``. Each client releases every
        tensor of ``tensor_sizes`` once per round (``rounds * n_tensors`` releases, which the
        paper does not compose); with ``noise_at="server"`` the releases are the server's.

    Notes
    -----
    Deviations: an MLP instead of MobileNetV2 / BiLSTM / FCN; digits and the MNIST test split
    only; noise before upload by default (the paper's code; its text adds it after averaging);
    the global model is not clamped after averaging (the paper's code clamps it).
    """
    tasks, mechanisms, eps_grid, runs, seed, n_max = _check_grid(
        tasks, mechanisms, eps_grid, runs, seed, n_max)
    if noise_at not in NOISE_AT:
        raise ValueError(f"noise_at must be one of {NOISE_AT}, got {noise_at!r}")
    if isinstance(clip, bool) or not isinstance(clip, numbers.Real) or not 0 < clip < math.inf:
        raise ValueError(f"clip must be a finite number > 0, got {clip!r}")
    rounds = check_positive_int(rounds, "rounds")
    clients = check_positive_int(clients, "clients")
    fn = functools.partial(_type3_runs, data_seed=seed, n_max=n_max, rounds=rounds,
                           hidden=_check_hidden(hidden, True), lr=_check_lr(lr),
                           clip=float(clip), clients=clients, noise_at=noise_at, device=device)
    torch_device(device)
    frame = _run(fn, tasks, mechanisms, eps_grid, runs, seed, n_jobs, progress,
                 "TLDP Type III")
    return frame.assign(rounds=rounds, clients=clients, noise_at=noise_at, clip=float(clip))


def type1_laplace_at_i_eps(tasks, eps_grid, runs: int, seed: int, *,
                           epochs: int | Mapping[str, int], n_max: int | None = None,
                           n_jobs: int | None = None) -> pd.DataFrame:
    """Type I with the Laplace baseline run at ``I·ε`` for each ε of ``eps_grid``: what TLDP-L
    at ε really is (Theorem 2: ``b = Δ/ε`` is the baseline's ``b₁ = IΔ/(Iε)``), per task
    (``I`` its tensor size). Arguments as in :func:`type1_grid`; the rows' ``epsilon`` is
    the ``I·ε`` the baseline ran at."""
    tasks = _check_names(tasks, TASK_NAMES, "tasks")
    return pd.concat([
        type1_grid([t], ["laplace"], [math.prod(TASKS[t]) * e for e in eps_grid], runs, seed,
                   epochs=epochs, n_max=n_max, n_jobs=n_jobs)
        for t in tasks])
