"""Experiment grids of chapter 2 (TVG, Yang et al. 2021): the three neural experiment types
of Sec. VIII, at a scale that runs offline on two CPU cores.

* **Type I** (Sec. VIII-B, Fig. 3, "private SGD"): DP-SGD with Poisson sampling, per-example
  gradients clipped *element-wise* to [-C, C] (ℓ∞ clipping, the paper's choice) and noise
  added to every parameter tensor. "Optimized" is the paper's baseline: DP-SGD's Gaussian
  noise calibrated by the moments (here RDP) accountant. The TVG mechanisms (IDN, UDN, MVG)
  run per step at ``(ε₀, δ₀)`` from :func:`~ldp_companion.tvg.privacy.tvg_step_epsilon`
  (amplification by sampling, then Kairouz composition). The matrix mechanism with
  ``W = E`` is not a separate curve: its optimal strategies are the orthogonal matrices, which
  make it the Gaussian mechanism, i.e. the "Optimized" curve.
* **Type II** (Sec. VIII-C, Fig. 4, Table III, "private training features"): a tanh LeNet-5
  trained on a public split is the feature extractor; the private split's feature tensors
  (batches of 256 records of 16 × 5 × 5 features, Table III) are released with ``W = E``
  (i.i.d. noise of :func:`~ldp_companion.tvg.noise.entry_std`) and a fresh head is trained
  on them.
* **Type III** (Sec. VIII-D, Fig. 5, "private test data"): a trained tanh LeNet-5 reads
  private test images; each batch of 256 feature tensors, reshaped to a 400 × 256 matrix
  (features × records, allowed by Cor. 1), is released with the utility subspace ``W`` = the
  first fully-connected layer (Alg. 1: UDN, IDN; MVG on the same directions) and the noisy
  features go through the trained head.

Features come out of a tanh, so every entry lies in (-1, 1) and ``b − a = 2``: the ℓ2
sensitivity of a tensor of ``I`` entries is ``2√I`` (Eqs. 34–36). Every figure uses
``δ = 1e-5``.

Each cell (mechanism, ε, run) is one call of a module-level cell function through
:func:`ldp_companion.execution.grid.run_grid`; the cell's numpy generator drives the noise and
(through :func:`~ldp_companion.neural.device.seed_torch`) the head's initialisation and batch
order, and torch runs on one thread inside a cell, so serial and joblib runs give identical tables
(except ``seconds``). The models shared by every cell (Types II–III) are trained once per
process from generators derived from the grid's seed only.

Deviations from the paper: the MNIST *test* split (10,000 images; the training images are
not available offline) is split into train/private/test parts; a few epochs instead of full
training; the breast-cancer data (AUC, as for the paper's Credit panel) instead of the
paper's Type I data sets, with a 30 → 12 → 1 MLP. The paper's own networks and data run in
:mod:`ldp_companion.tvg.paper` (Types II–III) and :mod:`ldp_companion.tvg.paper_sgd` (Type I)
where their files are present.
"""
from __future__ import annotations

import functools
import math
import numbers
import time

import numpy as np
import pandas as pd
import torch
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from torch import nn
from torch.func import functional_call, grad, vmap
from torch.nn import functional as F

from ldp_companion.data import paper_assets
from ldp_companion.data.datasets import load_breast_cancer, load_mnist_test
from ldp_companion.execution.grid import run_grid
from ldp_companion.neural.device import one_thread, seed_torch, torch_device
from ldp_companion.neural.training import as_tensor, fit_classifier
from ldp_companion.tvg.noise import entry_std
from ldp_companion.tvg.privacy import gaussian_noise_multiplier, tvg_step_epsilon
from ldp_companion.tvg.release import directional_release, iid_release
from ldp_companion.validation import check_epsilon, check_positive_int

__all__ = ["DELTA", "PAPER_EPS_MAX", "FEATURE_SHAPE", "BATCH", "N_MNIST", "MNIST_SOURCES",
           "PAPER_MNIST_SIZES", "TYPE1_MECHANISMS", "TYPE2_MECHANISMS", "TYPE3_MECHANISMS",
           "lenet5", "lenet5_head", "clip_per_example", "type1_stds", "dp_sgd", "type1_cell",
           "type2_cell", "type3_cell", "type1_grid", "type2_grid", "type3_grid",
           "release_iid_batches", "release_directional_batches"]

#: δ of every figure of Sec. VIII.
DELTA = 1e-5
#: Shape of one record's LeNet-5 features (the input of the first fully-connected layer).
FEATURE_SHAPE = (16, 5, 5)
#: Records per released feature tensor (Table III).
BATCH = 256
#: Images in the MNIST test split, all the MNIST images available offline.
N_MNIST = 10_000
#: The largest ε the chapter takes the paper's Figs. 3–5 to show: the images are not in the
#: text we have, whose prose speaks of "ε small" and "ε ≥ 1" (our reading, a generous bound).
PAPER_EPS_MAX = 100.0
#: MNIST images the grids draw from: the test split (offline) or all 70,000 (the training
#: images come from :mod:`ldp_companion.data.paper_assets`).
MNIST_SOURCES = {"test": N_MNIST, "all": 70_000}
#: Part sizes with all 70,000 images: Type III trains on 60,000 and releases 10,000 (the
#: paper's split); Type II's public and private parts share the 60,000.
PAPER_MNIST_SIZES = {"n_train_3": 60_000, "n_test_3": 10_000, "n_public_2": 30_000,
                     "n_private_2": 30_000, "n_test_2": 10_000}

TYPE1_MECHANISMS = ("none", "optimized", "idn", "udn", "mvg")
TYPE2_MECHANISMS = ("none", "gauss_paper", "gauss_l2", "gauss_analytic", "idn", "udn", "mvg")
#: ``"idn_iid"`` is IDN with ``W = E`` (no utility subspace), the others as in Fig. 5.
TYPE3_MECHANISMS = ("none", "gauss_paper", "gauss_l2", "gauss_analytic", "idn", "idn_iid",
                    "udn", "mvg")

_FIT_BATCH = 64                    # mini-batch of every Adam fit
_PERM_SALT, _MODEL_SALT = 11, 12   # generators derived from the grid's seed only
_FEATURES = math.prod(FEATURE_SHAPE)


# --------------------------------------------------------------------------- models

def _init_uniform(model: nn.Module, gen: torch.Generator) -> nn.Module:
    """Draw every weight and bias of ``model``'s linear and conv layers from
    U(-1/√fan_in, 1/√fan_in) with ``gen`` (torch's default bound, seeded by the caller)."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (nn.Linear, nn.Conv2d)):
                bound = 1.0 / math.sqrt(m.weight[0].numel())
                for p in (m.weight, m.bias):
                    draw = torch.rand(p.shape, generator=gen, dtype=p.dtype)
                    p.copy_(((2 * draw - 1) * bound).to(p.device))
    return model


def lenet5_head(gen: torch.Generator, device: torch.device) -> nn.Sequential:
    """LeNet-5's classifier on the 16 × 5 × 5 features: flatten 400 → 120 – tanh – 84 – tanh
    → 10, initialised from ``gen``."""
    head = nn.Sequential(nn.Flatten(), nn.Linear(_FEATURES, 120), nn.Tanh(), nn.Linear(120, 84),
                         nn.Tanh(), nn.Linear(84, 10))
    return _init_uniform(head.to(device), gen)


def lenet5(gen: torch.Generator, device: torch.device) -> nn.Sequential:
    """tanh LeNet-5 (Sec. VIII-C/D): ``model[0]`` the feature extractor, ``model[1]`` the head.

    Extractor: conv 1 → 6 (5 × 5, padding 2) – tanh – avgpool 2 – conv 6 → 16 (5 × 5) – tanh
    – avgpool 2, giving features of shape :data:`FEATURE_SHAPE` in (-1, 1) (the paper swaps
    the activations for tanh so that ``b − a = 2``); head: :func:`lenet5_head`.

    Parameters
    ----------
    gen : torch.Generator
        Draws every initial weight (CPU generator).
    device : torch.device

    Returns
    -------
    nn.Sequential
        ``Sequential(extractor, head)`` mapping (n, 1, 28, 28) images to (n, 10) logits.
    """
    extractor = nn.Sequential(nn.Conv2d(1, 6, 5, padding=2), nn.Tanh(), nn.AvgPool2d(2),
                              nn.Conv2d(6, 16, 5), nn.Tanh(), nn.AvgPool2d(2))
    extractor = _init_uniform(extractor.to(device), gen)
    return nn.Sequential(extractor, lenet5_head(gen, device))


@torch.no_grad()
def _accuracy(model: nn.Module, x: torch.Tensor, y: np.ndarray) -> float:
    """Share of correct argmax predictions; a row with a non-finite logit counts as wrong."""
    model.eval()
    logits = model(x)
    ok = (logits.argmax(dim=1).cpu().numpy() == y) & torch.isfinite(logits).all(1).cpu().numpy()
    return float(ok.mean())


@torch.no_grad()
def _features(extractor: nn.Module, images: np.ndarray, device: torch.device) -> np.ndarray:
    """The extractor's features of ``images`` as a read-only float64 array (n, 16, 5, 5)."""
    extractor.eval()
    out = extractor(as_tensor(images[:, None], device)).double().cpu().numpy()
    out.setflags(write=False)
    return out


# --------------------------------------------------------------------------- MNIST models

@functools.lru_cache(maxsize=2)
def _mnist(source: str = "test") -> tuple[np.ndarray, np.ndarray]:
    """MNIST images on [0, 1], shape (n, 28, 28), and labels: the test split, or all 70,000
    (training images first)."""
    if source == "test":
        return load_mnist_test()
    d = paper_assets.load_images("mnist")
    images = np.concatenate([d.x_train, d.x_test])[:, 0].astype(np.float64)
    return (images + 1.0) / 2.0, np.concatenate([d.y_train, d.y_test])


def _mnist_split(data_seed: int, *sizes: int, source: str = "test"
                 ) -> list[tuple[np.ndarray, np.ndarray]]:
    """Consecutive parts of ``sizes`` images of a fixed permutation (from ``data_seed``)."""
    images, labels = _mnist(source)
    perm = np.random.default_rng(np.random.SeedSequence(data_seed, spawn_key=(_PERM_SALT,))
                                 ).permutation(len(labels))
    ends = np.cumsum((0,) + sizes)
    return [(images[perm[a:b]], labels[perm[a:b]]) for a, b in zip(ends[:-1], ends[1:])]


def _trained_lenet(data_seed: int, images: np.ndarray, labels: np.ndarray, epochs: int,
                   dev: torch.device) -> nn.Sequential:
    gen = seed_torch(np.random.default_rng(np.random.SeedSequence(data_seed,
                                                                  spawn_key=(_MODEL_SALT,))))
    model = lenet5(gen, dev)
    fit_classifier(model, as_tensor(images[:, None], dev), as_tensor(labels, dev, torch.long),
                   epochs=epochs, lr=1e-3, batch_size=_FIT_BATCH, gen=gen)
    return model.eval()


@functools.lru_cache(maxsize=4)
def _type3_model(data_seed: int, n_train: int, n_test: int, epochs: int, device: str | None,
                 source: str = "test"):
    """Train LeNet-5 on the first ``n_train`` images (once per process); return the model,
    the next ``n_test`` images' features and labels, W (fc1 weight) and the clean accuracy."""
    dev = torch_device(device)
    (x_tr, y_tr), (x_te, y_te) = _mnist_split(data_seed, n_train, n_test, source=source)
    model = _trained_lenet(data_seed, x_tr, y_tr, epochs, dev)
    clean = _accuracy(model, as_tensor(x_te[:, None], dev), y_te)
    w = model[1][1].weight.detach().double().cpu().numpy()
    w.setflags(write=False)
    return model, _features(model[0], x_te, dev), y_te, w, clean


@functools.lru_cache(maxsize=4)
def _type2_features(data_seed: int, n_public: int, n_private: int, n_test: int, epochs: int,
                    device: str | None, source: str = "test"):
    """Train LeNet-5 on the public split (once per process); return the private and test
    features and labels and the public model's clean test accuracy."""
    dev = torch_device(device)
    (x_pub, y_pub), (x_pr, y_pr), (x_te, y_te) = _mnist_split(data_seed, n_public, n_private,
                                                              n_test, source=source)
    model = _trained_lenet(data_seed, x_pub, y_pub, epochs, dev)
    acc = _accuracy(model, as_tensor(x_te[:, None], dev), y_te)
    return _features(model[0], x_pr, dev), y_pr, _features(model[0], x_te, dev), y_te, acc


def _batches(n: int):
    return [slice(a, min(a + BATCH, n)) for a in range(0, n, BATCH)]


def release_iid_batches(mechanism: str, feats: np.ndarray, epsilon: float,
                        rng: np.random.Generator) -> np.ndarray:
    """Type II's release: records ``feats`` (n, ...) in consecutive batches of :data:`BATCH`,
    each tensor released once at (ε, :data:`DELTA`) with ``W = E`` (``b − a = 2``)."""
    noisy = np.empty_like(feats)
    for part in _batches(len(feats)):
        batch = feats[part]
        noisy[part] = iid_release(mechanism, batch, epsilon, DELTA, rng=rng, value_range=2.0,
                                  gamma=math.sqrt(batch.size))
    return noisy


def release_directional_batches(mechanism: str, flat: np.ndarray, w: np.ndarray,
                                epsilon: float, rng: np.random.Generator) -> np.ndarray:
    """Type III's release: records ``flat`` (n, features) in consecutive batches of
    :data:`BATCH`, each a (features, b) matrix released with utility subspace ``w``."""
    noisy = np.empty_like(flat)
    for part in _batches(len(flat)):
        noisy[part] = _release_type3(mechanism, flat[part].T, w, epsilon, rng).T
    return noisy


# --------------------------------------------------------------------------- Type III

def _release_type3(mechanism: str, x: np.ndarray, w: np.ndarray, epsilon: float,
                   rng: np.random.Generator) -> np.ndarray:
    """Release one (400, b) matrix (features × records) of Type III."""
    if mechanism == "idn_iid":
        return iid_release("idn", x, epsilon, DELTA, rng=rng, value_range=2.0)
    return directional_release(mechanism, x, w, epsilon, DELTA, rng=rng, value_range=2.0)


def type3_cell(*, mechanism: str, epsilon: float, run: int, rng: np.random.Generator,
               data_seed: int, n_train: int, n_test: int, epochs: int,
               device: str | None, mnist: str = "test") -> dict:
    """One Type III cell (Sec. VIII-D, Fig. 5): noisy test features through a trained head.

    The test features are released in consecutive batches of up to :data:`BATCH` records,
    each as a matrix (400, b) with the utility subspace ``W`` = the fc1 weight (120 × 400);
    ``run`` only names the repetition. Returns ``accuracy``, ``clean_accuracy`` (the model on
    the clean test images, the same in every cell) and ``seconds``.
    """
    t0 = time.perf_counter()
    with one_thread():
        model, feats, labels, w, clean = _type3_model(data_seed, n_train, n_test, epochs,
                                                      device, mnist)
        noisy = release_directional_batches(mechanism, feats.reshape(len(feats), -1), w,
                                            epsilon, rng)
        dev = next(model.parameters()).device
        acc = _accuracy(model[1], as_tensor(noisy, dev), labels)
    return {"accuracy": acc, "clean_accuracy": clean, "seconds": time.perf_counter() - t0}


# --------------------------------------------------------------------------- Type II

def type2_cell(*, mechanism: str, epsilon: float, run: int, rng: np.random.Generator,
               data_seed: int, n_public: int, n_private: int, n_test: int,
               extractor_epochs: int, head_epochs: int, device: str | None,
               mnist: str = "test") -> dict:
    """One Type II cell (Sec. VIII-C, Fig. 4): a head trained on noisy private features.

    Each batch of up to :data:`BATCH` private feature tensors (shape (b, 16, 5, 5), Table III)
    is released once at (ε, δ) with ``W = E`` (disjoint batches: parallel composition); a
    fresh head (:func:`lenet5_head`, initialised from the cell's generator) is trained on the
    noisy features (Adam 1e-3, batch 64) and scored on the clean test features. Returns
    ``accuracy``, ``extractor_accuracy`` (the public model's clean test accuracy) and
    ``seconds``.
    """
    t0 = time.perf_counter()
    with one_thread():
        f_priv, y_priv, f_test, y_test, ext_acc = _type2_features(
            data_seed, n_public, n_private, n_test, extractor_epochs, device, mnist)
        dev = torch_device(device)
        gen = seed_torch(rng)
        noisy = release_iid_batches(mechanism, f_priv, epsilon, rng)
        head = lenet5_head(gen, dev)
        fit_classifier(head, as_tensor(noisy, dev), as_tensor(y_priv, dev, torch.long),
                       epochs=head_epochs, lr=1e-3, batch_size=_FIT_BATCH, gen=gen)
        acc = _accuracy(head, as_tensor(f_test, dev), y_test)
    return {"accuracy": acc, "extractor_accuracy": ext_acc,
            "seconds": time.perf_counter() - t0}


# --------------------------------------------------------------------------- Type I

@functools.lru_cache(maxsize=4)
def _credit_data(data_seed: int):
    """Breast cancer, stratified 70/30 split from ``data_seed``, columns scaled to [-1, 1]
    by the training part's min and max (test values may fall slightly outside)."""
    x, y = load_breast_cancer()
    x_tr, x_te, y_tr, y_te = train_test_split(x, y, test_size=0.3, stratify=y,
                                              random_state=data_seed)
    low, high = x_tr.min(axis=0), x_tr.max(axis=0)
    scale = lambda a: 2 * (a - low) / np.where(high > low, high - low, 1.0) - 1  # noqa: E731
    return scale(x_tr), y_tr.astype(float), scale(x_te), y_te


def clip_per_example(grads: dict[str, torch.Tensor], clip: float) -> dict[str, torch.Tensor]:
    """Clip every entry of every per-example gradient to [-clip, clip] (ℓ∞ clipping, the
    paper's Type I choice, Sec. VIII-B): one example then changes each entry of the summed
    gradient by at most ``2 clip`` (replace-one), whatever the other entries."""
    return {k: g.clamp(-clip, clip) for k, g in grads.items()}


def _matrix_shape(name: str, shape: torch.Size) -> tuple[int, int]:
    """A parameter as the paper's gradient matrix, input modes first: a weight (out, in, *k)
    as (in · prod(k), out), so a linear layer's (out, in) reads "28 × 10" as Table II does
    and a convolution's 5 × 5 kernels stack under their input channels; a bias of d entries
    as (d, 1)."""
    if len(shape) >= 2:
        return math.prod(shape[1:]), shape[0]
    return math.prod(shape), 1


@functools.lru_cache(maxsize=64)
def _noise_multiplier(epsilon: float, q: float, steps: int) -> float:
    return gaussian_noise_multiplier(epsilon, q, steps, DELTA)


@functools.lru_cache(maxsize=64)
def _step_epsilon(epsilon: float, q: float, steps: int) -> float:
    return tvg_step_epsilon(epsilon, q, steps, DELTA)


def type1_stds(mechanism: str, epsilon: float, shapes: dict, q: float, steps: int,
               clip: float) -> dict[str, float]:
    """Per-entry noise std of every parameter tensor of a Type I run (see
    :func:`type1_grid`): ``shapes`` maps parameter names to shapes, ``q`` is the sampling
    rate, ``steps`` the number of noisy steps, ``clip`` the ℓ∞ clip C; the total budget is
    ``(epsilon, DELTA)``."""
    if mechanism == "none":
        return {k: 0.0 for k in shapes}
    if mechanism == "optimized":
        d = sum(math.prod(s) for s in shapes.values())
        std = _noise_multiplier(epsilon, q, steps) * 2 * clip * math.sqrt(d)
        return {k: std for k in shapes}
    eps0, delta0, n = _step_epsilon(epsilon, q, steps), DELTA / (2 * steps * q), len(shapes)
    return {k: entry_std(mechanism, _matrix_shape(k, s), eps0 / n, delta0 / n,
                         value_range=2 * clip, gamma=clip * math.sqrt(math.prod(s)))
            for k, s in shapes.items()}


def _mlp(n_in: int, hidden: int, gen: torch.Generator, device: torch.device) -> nn.Sequential:
    return _init_uniform(nn.Sequential(nn.Linear(n_in, hidden), nn.Tanh(),
                                       nn.Linear(hidden, 1)).to(device), gen)


def _example_loss(model: nn.Module):
    """The loss of one example as a function of the parameters: logistic for float labels
    (one output), cross-entropy for integer labels."""
    def loss(p, xi, yi):
        out = functional_call(model, p, (xi[None],))
        if yi.is_floating_point():
            return F.binary_cross_entropy_with_logits(out[0, 0], yi)
        return F.cross_entropy(out, yi[None])
    return loss


def dp_sgd(model: nn.Module, x: torch.Tensor, y: torch.Tensor, *, stds: dict, clip: float,
           lot: int, steps: int, lr: float, gen: torch.Generator, private: bool,
           batch: int | None = None) -> None:
    """Type I's private SGD (Sec. VIII-B), in place on ``model``'s parameters.

    Each of ``steps`` steps samples every example with probability ``q = lot / n`` (a
    "lot", drawn with ``gen`` on the CPU), computes the lot's per-example gradients
    ``batch`` at a time (``torch.func``; the paper's "batches" grouped into a lot), clips
    each entry to [-clip, clip] when ``private`` (:func:`clip_per_example`), sums them,
    adds one draw of noise of per-entry std ``stds[name]`` to every parameter tensor,
    divides by ``lot`` and takes an SGD step of size ``lr``.
    """
    params = {k: p.detach() for k, p in model.named_parameters()}
    per_example = vmap(grad(_example_loss(model)), in_dims=(None, 0, 0))
    q = lot / len(y)
    for _ in range(steps):
        picked = torch.nonzero(torch.rand(len(y), generator=gen) < q).ravel().to(x.device)
        total = {k: torch.zeros_like(p) for k, p in params.items()}
        chunks = torch.split(picked, batch or len(picked)) if len(picked) else ()
        for chunk in chunks:
            grads = per_example(params, x[chunk], y[chunk])
            if private:
                grads = clip_per_example(grads, clip)
            for k in total:
                total[k] += grads[k].sum(0)
        for k, p in params.items():
            noise = torch.randn(p.shape, generator=gen, dtype=p.dtype).to(p.device)
            params[k] = p - lr * (total[k] + stds[k] * noise) / lot
    with torch.no_grad():
        for k, p in model.named_parameters():
            p.copy_(params[k])


def type1_cell(*, mechanism: str, epsilon: float, run: int, rng: np.random.Generator,
               data_seed: int, clip: float, lot: int, epochs: int, hidden: int, lr: float,
               device: str | None) -> dict:
    """One Type I cell (Sec. VIII-B, Fig. 3): private SGD of an MLP on breast cancer.

    Runs ``T = round(epochs · n_train / lot)`` steps of :func:`type1_grid`'s DP-SGD with the
    noise of ``mechanism``. Returns ``auc`` (ROC AUC on the test split), ``accuracy``,
    ``noise_std`` (the first-layer weight's per-entry noise std, 0 for "none") and
    ``seconds``.
    """
    t0 = time.perf_counter()
    with one_thread():
        x_tr, y_tr, x_te, y_te = _credit_data(data_seed)
        dev = torch_device(device)
        gen = seed_torch(rng)
        model = _mlp(x_tr.shape[1], hidden, gen, dev)
        steps = max(1, round(epochs * len(y_tr) / lot))
        shapes = {k: p.shape for k, p in model.named_parameters()}
        stds = type1_stds(mechanism, epsilon, shapes, lot / len(y_tr), steps, clip)
        dp_sgd(model, as_tensor(x_tr, dev), as_tensor(y_tr, dev), stds=stds, clip=clip, lot=lot,
                steps=steps, lr=lr, gen=gen, private=mechanism != "none")
        with torch.no_grad():
            score = model(as_tensor(x_te, dev))[:, 0].double().cpu().numpy()
    score = np.nan_to_num(score, nan=0.0)
    return {"auc": float(roc_auc_score(y_te, score)), "accuracy": float(np.mean((score > 0)
                                                                                == y_te)),
            "noise_std": stds["0.weight"], "seconds": time.perf_counter() - t0}


# --------------------------------------------------------------------------- grids

def _check_names(values, known, name: str) -> list[str]:
    """``values`` (one name or a list) as a non-empty list of distinct names among ``known``."""
    values = [values] if isinstance(values, str) else list(values)
    bad = [v for v in values if not isinstance(v, str) or v not in known]
    if not values or bad or len(set(values)) != len(values):
        raise ValueError(f"{name} must be a non-empty list of distinct names among "
                         f"{list(known)}; got {values!r}")
    return values


def _per_task(value, default: dict, tasks: list, name: str, check) -> dict:
    """``value`` (one number, a mapping task -> number, or None for ``default``) for each of
    ``tasks``, each checked by ``check(number, name)``."""
    value = default if value is None else value
    if isinstance(value, dict) and not set(tasks) <= set(value):
        raise ValueError(f"{name} has no value for {sorted(set(tasks) - set(value))}")
    return {t: check(value[t] if isinstance(value, dict) else value, name) for t in tasks}


def _check_grid(mechanisms, known, eps_grid, runs, seed) -> tuple:
    mechanisms = _check_names(mechanisms, known, "mechanisms")
    if isinstance(eps_grid, numbers.Real):
        eps_grid = [eps_grid]
    eps_grid = [check_epsilon(e, "eps_grid entries") for e in eps_grid]
    if not eps_grid or len(set(eps_grid)) != len(eps_grid):
        raise ValueError(f"eps_grid must be a non-empty list of distinct values, got {eps_grid}")
    runs = check_positive_int(runs, "runs")
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return mechanisms, eps_grid, runs, int(seed)


def _check_mnist_sizes(source: str, **sizes: int) -> str:
    """Check the part sizes against the images of ``source`` (and that its files are there:
    a :class:`~ldp_companion.data.datasets.DataError` names those missing); return ``source``."""
    if source not in MNIST_SOURCES:
        raise ValueError(f"mnist must be one of {list(MNIST_SOURCES)}, got {source!r}")
    for name, value in sizes.items():
        check_positive_int(value, name)
    if sum(sizes.values()) > MNIST_SOURCES[source]:
        raise ValueError(f"{' + '.join(sizes)} = {sum(sizes.values())} exceeds the "
                         f"{MNIST_SOURCES[source]} MNIST images of mnist={source!r}")
    if source == "all":
        paper_assets.require("mnist")
    return source


def _check_positive_real(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 < value < math.inf:
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return float(value)


def _run(fn, mechanisms, eps_grid, runs, seed, n_jobs, progress, description,
         task) -> pd.DataFrame:
    """Every (mechanism, ε, run) cell; ``"none"`` runs once per run with ε = inf."""
    cells = [{"mechanism": m, "epsilon": e, "run": r} for m in mechanisms
             for e in ([math.inf] if m == "none" else eps_grid) for r in range(runs)]
    results = run_grid(fn, cells, seed, n_jobs=n_jobs, progress=progress,
                       description=description)
    return pd.DataFrame([{"task": task, **c, **r} for c, r in zip(cells, results)])


def type3_grid(mechanisms, eps_grid, runs: int, seed: int, *, n_train: int = 8000,
               n_test: int = 2000, epochs: int = 3, mnist: str = "test",
               device: str | None = None, n_jobs: int | None = None,
               progress: bool | None = None) -> pd.DataFrame:
    """Type III grid (Sec. VIII-D, Fig. 5): private test data through a trained LeNet-5.

    A tanh LeNet-5 (:func:`lenet5`) is trained once per process on the first ``n_train``
    images of a fixed permutation of the MNIST test split (Adam 1e-3, batch 64,
    ``epochs``); the next ``n_test`` images are the private test data. Their features are
    released in batches of 256 records, each reshaped to a 400 × b matrix (Cor. 1) and
    perturbed with utility subspace ``W`` = the fc1 weight (120 × 400): IDN and UDN by
    Alg. 1, MVG on the same directions; the Gaussian baselines and ``"idn_iid"`` (IDN with
    ``W = E``) add i.i.d. noise (Eqs. 34–36, ``b − a = 2``, δ = :data:`DELTA`). The noisy
    features go through the trained head; accuracy on the labels.

    Parameters
    ----------
    mechanisms : list of str
        Among :data:`TYPE3_MECHANISMS`; ``"none"`` runs once per run with ε = inf.
    eps_grid : list of float
        Privacy budgets ε > 0 of each released batch.
    runs : int
        Repetitions per (mechanism, ε).
    seed : int
        Seed of the data split, of the model's training and of every cell's generator.
    n_train, n_test : int
        Training and private test images (``n_train + n_test <= 10000``, or 70,000 with
        ``mnist="all"``).
    mnist : {"test", "all"}
        The images drawn from: the MNIST test split, or all 70,000 (the training images are
        a :mod:`~ldp_companion.data.paper_assets` file; :data:`PAPER_MNIST_SIZES` gives the
        paper's split).
    epochs : int
        Training epochs of the LeNet-5.
    device : str, optional
        :func:`~ldp_companion.neural.device.torch_device`'s ``prefer``.
    n_jobs : int, optional
        Worker processes (:func:`~ldp_companion.execution.grid.run_grid`); each trains its own copy
        of the (identical) model.
    progress : bool, optional
        Progress bar (:func:`~ldp_companion.execution.grid.progress_bar`; None: only under
        ``python -m ldp_companion run``).

    Returns
    -------
    DataFrame
        Columns ``task, mechanism, epsilon, run, accuracy, clean_accuracy, seconds``.
    """
    mechanisms, eps_grid, runs, seed = _check_grid(mechanisms, TYPE3_MECHANISMS, eps_grid,
                                                   runs, seed)
    mnist = _check_mnist_sizes(mnist, n_train=n_train, n_test=n_test)
    fn = functools.partial(type3_cell, data_seed=seed, n_train=int(n_train),
                           n_test=int(n_test), epochs=check_positive_int(epochs, "epochs"),
                           device=device, mnist=mnist)
    torch_device(device)
    return _run(fn, mechanisms, eps_grid, runs, seed, n_jobs, progress, "TVG Type III",
                "mnist")


def type2_grid(mechanisms, eps_grid, runs: int, seed: int, *, n_public: int = 4000,
               n_private: int = 4000, n_test: int = 2000, extractor_epochs: int = 3,
               head_epochs: int = 5, mnist: str = "test", device: str | None = None,
               n_jobs: int | None = None, progress: bool | None = None) -> pd.DataFrame:
    """Type II grid (Sec. VIII-C, Fig. 4, Table III): a head trained on private features.

    A tanh LeNet-5 is trained once per process on the public split (the first ``n_public``
    images of a fixed permutation of the MNIST test split); its convolutional part extracts
    16 × 5 × 5 features in (-1, 1) from the next ``n_private`` (private) and ``n_test``
    (test) images. The private features are released in batches of 256 records (tensors
    of shape (256, 16, 5, 5), Table III) with ``W = E`` (i.i.d. noise, Eqs. 34–36,
    ``b − a = 2``, δ = :data:`DELTA`); a fresh head is trained on them for ``head_epochs``
    and scored on the clean test features.

    Parameters
    ----------
    mechanisms : list of str
        Among :data:`TYPE2_MECHANISMS`; ``"none"`` runs once per run with ε = inf.
    eps_grid, runs, seed, mnist, device, n_jobs, progress
        As in :func:`type3_grid`.
    n_public, n_private, n_test : int
        Sizes of the three parts (sum ``<= 10000``, or 70,000 with ``mnist="all"``).
    extractor_epochs, head_epochs : int
        Training epochs of the public LeNet-5 and of each cell's head.

    Returns
    -------
    DataFrame
        Columns ``task, mechanism, epsilon, run, accuracy, extractor_accuracy, seconds``.
    """
    mechanisms, eps_grid, runs, seed = _check_grid(mechanisms, TYPE2_MECHANISMS, eps_grid,
                                                   runs, seed)
    mnist = _check_mnist_sizes(mnist, n_public=n_public, n_private=n_private, n_test=n_test)
    fn = functools.partial(
        type2_cell, data_seed=seed, n_public=int(n_public), n_private=int(n_private),
        n_test=int(n_test), extractor_epochs=check_positive_int(extractor_epochs,
                                                                 "extractor_epochs"),
        head_epochs=check_positive_int(head_epochs, "head_epochs"), device=device, mnist=mnist)
    torch_device(device)
    return _run(fn, mechanisms, eps_grid, runs, seed, n_jobs, progress, "TVG Type II",
                "mnist")


def type1_grid(mechanisms, eps_grid, runs: int, seed: int, *, clip: float = 1.0,
               lot: int = 64, epochs: int = 30, hidden: int = 12, lr: float = 0.1,
               device: str | None = None, n_jobs: int | None = None,
               progress: bool | None = None) -> pd.DataFrame:
    """Type I grid (Sec. VIII-B, Fig. 3): private SGD of an MLP on breast cancer, ROC AUC.

    Data: :func:`~ldp_companion.data.datasets.load_breast_cancer`, a stratified 70/30 split from
    ``seed``, columns scaled to [-1, 1]. Model: 30 → ``hidden`` (tanh) → 1 (logistic).
    Each of ``T = round(epochs · n_train / lot)`` steps samples every training example with
    probability ``q = lot / n_train``, clips each per-example gradient element-wise to
    [-C, C] (:func:`clip_per_example`), sums, adds noise to every parameter tensor, divides
    by ``lot`` and takes an SGD step of size ``lr``.

    Noise (replace-one: one example changes each entry by at most 2C, so a tensor of ``I``
    entries has ℓ2 sensitivity ``2C√I``):

    * ``"optimized"``: DP-SGD's Gaussian mechanism, std ``z · 2C√d`` on every entry, ``d``
      the number of parameters and ``z`` from the RDP accountant
      (:func:`~ldp_companion.tvg.privacy.gaussian_noise_multiplier`);
    * ``"idn"``, ``"udn"``, ``"mvg"``: per step ``(ε₀, δ₀)`` with ε₀ from
      :func:`~ldp_companion.tvg.privacy.tvg_step_epsilon` and ``δ₀ = δ / (2 T q)``, split
      evenly over the ``L`` parameter tensors (basic composition); each tensor (a weight
      (out, in) read as the matrix (in, out), a bias as (d, 1)) gets
      :func:`~ldp_companion.tvg.noise.entry_std` at ``(ε₀/L, δ₀/L)``, ``b − a = 2C``;
    * ``"none"``: plain SGD (no clipping, no noise) with the same sampling and steps.

    Parameters
    ----------
    mechanisms : list of str
        Among :data:`TYPE1_MECHANISMS`; ``"none"`` runs once per run with ε = inf.
    eps_grid : list of float
        Total ε of the whole training at δ = :data:`DELTA`.
    runs, seed, device, n_jobs, progress
        As in :func:`type3_grid` (``seed`` fixes the split).
    clip : float
        C of the ℓ∞ clipping.
    lot : int
        Expected lot size (``1 <= lot < n_train``).
    epochs : int
        Expected passes over the training data.
    hidden : int
        Hidden units.
    lr : float
        SGD step size on the (noisy) average gradient.

    Returns
    -------
    DataFrame
        Columns ``task, mechanism, epsilon, run, auc, accuracy, noise_std, seconds``.
    """
    mechanisms, eps_grid, runs, seed = _check_grid(mechanisms, TYPE1_MECHANISMS, eps_grid,
                                                   runs, seed)
    n_train = len(_credit_data(seed)[1])
    lot = check_positive_int(lot, "lot")
    if lot >= n_train:
        raise ValueError(f"lot must be < the {n_train} training examples, got {lot}")
    fn = functools.partial(type1_cell, data_seed=seed, clip=_check_positive_real(clip, "clip"),
                           lot=lot, epochs=check_positive_int(epochs, "epochs"),
                           hidden=check_positive_int(hidden, "hidden"),
                           lr=_check_positive_real(lr, "lr"), device=device)
    torch_device(device)
    return _run(fn, mechanisms, eps_grid, runs, seed, n_jobs, progress, "TVG Type I",
                "breast_cancer")
