"""One epoch-loop that trains the distributed autoencoder with every method of Sec. VIII.

Methods (:data:`METHODS`):

* ``"nonprivate"``: the exact loss of Eq. 6, no noise.
* ``"spof"``: Alg. 1 as written: the paper's coefficients (Eq. 12), the stabilization ``c``
  (Step 3), ``Lap(Δ̂/(√2 ε))`` on ``α₂`` and ``α₃`` (Step 5, Prop. 3), independent draws.
* ``"spof_exact"``: the corrected functional mechanism: the exact coefficients (``α₃ = 1/8``,
  data-independent, released without noise), ``c = 0`` and ``Lap(n/ε)`` on ``α₂``, whose L1
  sensitivity is ``n``: ε-DP per release.
* ``"fm"``: the paper's FM baseline, SPOF with ``m = 1`` and ``c = 0``.
* ``"dpsgd_logit"``: Alg. 2 in logit space: ``σ(z) - x`` at the current logit (Eq. 14 takes it
  at the expansion point, which does not learn), ℓ2-clipped to ``C`` (Eq. 15), plus
  ``Lap(Δ_SGD/ε)`` per feature, ``Δ_SGD = 2n`` (twice Eqs. 24–27's ``n``: the logit moves with
  the record), back-propagated to the parameters.
* ``"dpsgd_param"``: DP-SGD as usually run: each record's parameter gradient of the exact loss
  clipped to ``C`` in ℓ2, plus Gaussian noise ``σ C``; ``σ`` twice Opacus's RDP accountant's for
  ``(ε, δ)`` over the run's epochs (a replaced record moves the clipped gradient by up to
  ``2C``; each record is used once per epoch; no sampling amplification is claimed).
* ``"authors_v1"``: the semantics of the authors' published SPOF code (v1): concat decoder with
  biases, the same record to every encoder, coefficients computed from the model's own output
  ``x̂``, the loss variable ``a = h_jᵀ(V_j + c)`` with the decoder detached, one Laplace draw
  per feature shared by ``α₂``, ``α₃`` and both users, scale ``21/(√2 ε)``.

Conditions: ``"noiseless"``, and ``"noisy"`` (Sec. VI): the encoder sees ``x + n``,
``n ~ N(0, σ² I)``; the loss targets and the accuracy are on the clean ``x``. SPOF then uses
Thm. 1's ``b_j`` (computed exactly as ``Σ_r ĥ_r / h_r``, detached): coefficients ``b_j α``,
sensitivity ``b_j Δ̄ + n c_j (c_j/2 + 2)``, loss in the observed logit ``ẑ/b_j``.

Every run carries ``R`` replicates (:mod:`ldp_companion.spof.model`); each has its own ε, its
own record order and its own noise, all drawn from one ``torch.Generator``.
"""
from __future__ import annotations

import dataclasses
import functools
import math
import time
import warnings

import numpy as np
import torch

from ldp_companion.neural.device import seed_torch, torch_device
from ldp_companion.spof import model, sensitivity, taylor
from ldp_companion.validation import (
    check_epsilon,
    check_epsilons,
    check_positive_int,
    check_rng,
    check_unit_interval,
)

__all__ = ["METHODS", "CONDITIONS", "Setup", "REPLACEMENT", "noise_multiplier",
           "gaussian_noise_multiplier", "train", "accuracy",
           "coefficient_noise", "gradient_noise", "clip_gradients"]

METHODS = ("nonprivate", "spof", "spof_exact", "fm", "dpsgd_logit", "dpsgd_param",
           "authors_v1")
CONDITIONS = ("noiseless", "noisy")


@dataclasses.dataclass(frozen=True)
class Setup:
    """Hyper-parameters of Sec. VIII (and, where the paper is silent, of the authors' code).

    Attributes
    ----------
    users : int
        ``m`` (Sec. VIII: 2).
    code : int
        ``l``, code units (7 for ``n = 14``: compression 0.5).
    c : float
        Stabilization constant ``c_{j,i}`` (Sec. VIII: 2.5).
    reading : {"data", "public", "worst"}
        Which ``c_j`` enters ``Δ̂`` (:data:`~ldp_companion.spof.sensitivity.CJ_READINGS`).
    split : {"sqrt2", "none"}
        Alg. 1 Step 5's budget split (:data:`~ldp_companion.spof.sensitivity.SPLITS`).
    shared_noise : bool
        Add one Laplace draw to both ``α₂`` and ``α₃`` (the authors' code) instead of two.
    clip : float
        ``C`` (Sec. VIII: 4).
    sigma_env : float
        ``σ`` of the environmental noise (Sec. VIII: 5).
    delta : float
        δ of ``dpsgd_param`` (the paper's DP-SGD is pure ε; ours needs a δ).
    lr : float
        Adam's learning rate (the authors' code: 10⁻³; the paper gives none).
    epochs : int
        Passes over the training records (the authors' final code: 1).
    """

    users: int = 2
    code: int = 7
    c: float = 2.5
    reading: str = "data"
    split: str = "sqrt2"
    shared_noise: bool = False
    clip: float = 4.0
    sigma_env: float = 5.0
    delta: float = 1e-5
    lr: float = 1e-3
    epochs: int = 1

    def __post_init__(self):
        for name in ("users", "code", "epochs"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"{name} must be a positive integer, got {v!r}")
        for name in ("c", "clip", "sigma_env", "lr", "delta"):
            v = getattr(self, name)
            if not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
                raise ValueError(f"{name} must be a finite number >= 0, got {v!r}")
        if not 0 < self.delta < 1 or self.clip == 0 or self.lr == 0:
            raise ValueError("delta must be in (0, 1); clip and lr must be > 0")
        if self.reading not in sensitivity.CJ_READINGS:
            raise ValueError(f"reading must be one of {sensitivity.CJ_READINGS}, "
                             f"got {self.reading!r}")
        if self.split not in sensitivity.SPLITS:
            raise ValueError(f"split must be one of {sensitivity.SPLITS}, got {self.split!r}")


#: Def. 1's neighbours differ in one user's record: the clipped gradient moves by up to 2C,
#: twice the add/remove sensitivity C that Opacus's accountant calibrates for.
REPLACEMENT = 2.0


def gaussian_noise_multiplier(epsilon: float, setup: Setup) -> float:
    """Noise std over ``C`` of ``dpsgd_param``: ``REPLACEMENT`` × :func:`noise_multiplier`
    (``setup.epochs`` steps, ``setup.delta``), so that a record *replaced* (Def. 1) spends
    ``(ε, δ)``: 8.10 at ε = 1, δ = 10⁻⁵, one epoch."""
    return REPLACEMENT * noise_multiplier(epsilon, setup.epochs, setup.delta)


@functools.lru_cache(maxsize=256)
def noise_multiplier(epsilon: float, steps: int, delta: float) -> float:
    """Gaussian noise multiplier ``σ`` (noise std over the clip norm) of ``steps`` full-data
    compositions reaching ``(ε, δ)``, by Opacus's RDP accountant.

    Orders reach 10⁶ so that ε down to 0.01 is found (Opacus's default orders stop at 63).
    Values at ``δ = 10⁻⁵``, one epoch: 276.6 (ε = 0.01), 4.05 (ε = 1), 0.305 (ε = 20).
    """
    from opacus.accountants.utils import get_noise_multiplier

    epsilon = check_epsilon(epsilon)
    alphas = ([1 + x / 10.0 for x in range(1, 100)] + list(range(12, 64))
              + list(np.geomspace(64, 1e6, 60)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return float(get_noise_multiplier(target_epsilon=epsilon, target_delta=delta,
                                          sample_rate=1.0, steps=int(steps), accountant="rdp",
                                          epsilon_tolerance=1e-3 * epsilon, alphas=alphas))


def accuracy(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """The authors' accuracy ``1 - MSE`` per replicate (the paper does not define it):
    ``pred`` (R, ..., n) against ``target`` broadcastable to it → (R,)."""
    return 1.0 - (pred - target).pow(2).flatten(1).mean(1)


# ---------------------------------------------------------------- the steps of each method

@dataclasses.dataclass
class _Context:
    setup: Setup
    method: str
    noisy: bool
    eps: torch.Tensor          # (R, 1, 1)
    n: int
    c: float
    sigma_mult: torch.Tensor | None
    gen: torch.Generator
    clip_count: torch.Tensor | None = None     # (R,) records whose logit gradient Eq. 15 clipped


def _b_factor(p, x, x_in, ctx):
    """Thm. 1's ``b_j = Σ_r b_{j,r}`` with ``b_{j,r} = ĥ_r / h_r`` (exact: ``ĥ = b ⊙ h``),
    detached; 1 without environmental noise (the paper's noiseless formulas)."""
    if not ctx.noisy:
        return torch.ones((), device=x.device)
    with torch.no_grad():
        return (model.encode(p, x_in) / model.encode(p, x)).sum(-1, keepdim=True)


def _laplace(shape, gen, device):
    """Unit Laplace draws (density ``e^{-|v|}/2``) from a CPU generator."""
    e = torch.empty((2,) + tuple(shape)).exponential_(generator=gen)
    return (e[0] - e[1]).to(device)


def _step_nonprivate(p, x, x_in, a2, a3, ctx):
    model.bce_sum(model.user_logits(p, model.encode(p, x_in)), x).backward()


def _perturb(a2, a3, hs, b, ctx):
    """Alg. 1, Step 5 (Prop. 3, Thm. 1): the released coefficients ``(b α₂ + ν₂, b α₃ + ν₃)``
    with ``ν ~ Lap(Δ̂/(√2 ε))`` (``spof_exact``: ``Lap(b n/ε)`` on α₂ only). ``hs`` is
    ``Σ_r h_{j,r}`` (R, m, 1), ``b`` Thm. 1's factor."""
    s, n = ctx.setup, ctx.n
    if ctx.method == "spof_exact":      # only α₂ varies with x: L1 sensitivity n (b_j n)
        scale = sensitivity._laplace_scale(b * n, ctx.eps, "none")
        return b * a2 + scale * _laplace(a2.shape, ctx.gen, a2.device), b * a3
    cj = {"data": ctx.c * hs, "public": ctx.c + 0 * hs, "worst": s.code * ctx.c + 0 * hs}
    delta = sensitivity._delta_hat(n, cj[s.reading], b)               # Prop. 3, Thm. 1
    scale = sensitivity._laplace_scale(delta, ctx.eps, s.split)
    lap = _laplace((2,) + tuple(a2.shape), ctx.gen, a2.device)
    second = lap[0] if s.shared_noise else lap[1]
    return b * a2 + scale * lap[0], b * a3 + scale * second


def _step_spof(p, x, x_in, a2, a3, ctx):
    h = model.encode(p, x_in)
    z = model.user_logits(p, h, shift=ctx.c)
    b = _b_factor(p, x, x_in, ctx)
    noisy_a2, noisy_a3 = _perturb(a2, a3, h.detach().sum(-1, keepdim=True), b, ctx)
    model.polynomial_sum(z / b, noisy_a2, noisy_a3).backward()


def _clip(g, clip):
    """Eq. 15: ``g / max(1, ‖g‖₂ / C)`` over the last axis, and ``‖g‖₂``."""
    norm = g.norm(dim=-1, keepdim=True)
    return g / torch.clamp(norm / clip, min=1.0), norm


def _release_gradient(g, b, ctx):
    """Alg. 2, Steps 4-6: clip the logit gradient ``g`` (Eq. 15) and add ``Lap(Δ_SGD/ε)`` per
    feature, ``Δ_SGD = 2 b_j n`` unclipped (twice Eqs. 24-27's: the gradient is taken at the
    current logit, which moves with the record;
    :func:`~ldp_companion.spof.sensitivity.delta_sgd_current`), ``2nC`` clipped. Returns the
    released gradient and which records were clipped (R, m, 1)."""
    s, n = ctx.setup, ctx.n
    g, norm = _clip(g, s.clip)
    clipped = norm >= s.clip
    delta = torch.where(clipped, sensitivity._delta_sgd_current(n, True, s.clip, b),
                        sensitivity._delta_sgd_current(n, False, s.clip, b))
    return g + delta / ctx.eps * _laplace(g.shape, ctx.gen, g.device), clipped


def _step_dpsgd_logit(p, x, x_in, a2, a3, ctx):
    z = model.user_logits(p, model.encode(p, x_in))
    b = _b_factor(p, x, x_in, ctx)
    with torch.no_grad():   # Eq. 14 at z, b_j-scaled (Eq. 27)
        g, clipped = _release_gradient(b * (torch.sigmoid(z) - x), b, ctx)
        if ctx.clip_count is not None:
            ctx.clip_count += clipped.flatten(1).sum(1)
    (z * (g / b)).sum().backward()                      # back to the observed logit


def _step_dpsgd_param(p, x, x_in, a2, a3, ctx):
    s = ctx.setup
    loss = model.bce_sum(model.user_logits(p, model.encode(p, x_in)), x)
    names = list(p)
    grads = torch.autograd.grad(loss, [p[k] for k in names])
    factor = torch.clamp(s.clip / model.user_norms(dict(zip(names, grads))), max=1.0)
    for k, g in zip(names, grads):
        shape = g.shape[:2] + (1,) * (g.dim() - 2)
        noise = torch.randn(g.shape, generator=ctx.gen).to(g.device)
        p[k].grad = g * factor.view(shape) + ctx.sigma_mult.view(-1, *[1] * (g.dim() - 1)) \
            * s.clip * noise


def _step_authors_v1(p, x, x_in, a2, a3, ctx):
    h = model.encode(p, x_in)
    out = torch.sigmoid(model.concat_logits(p, h))[:, None, :]      # x̂, (R, 1, n)
    a = torch.einsum("rml,rmln->rmn", h, p["V"].detach() + ctx.c)
    scale = sensitivity.delta_bar(ctx.n) / (math.sqrt(2.0) * ctx.eps)
    nu = scale * _laplace(out.shape, ctx.gen, x.device)             # one draw, shared
    model.polynomial_sum(a, 0.5 - out + nu, 0.5 * out - 0.25 + nu).backward()


_STEPS = {"nonprivate": _step_nonprivate, "spof": _step_spof, "spof_exact": _step_spof,
          "fm": _step_spof, "dpsgd_logit": _step_dpsgd_logit, "dpsgd_param": _step_dpsgd_param,
          "authors_v1": _step_authors_v1}


# ------------------------------------------------- the training's noise, for the checks

def _real(value, name, low=0.0, high=math.inf) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)) \
            or not math.isfinite(value) or not low <= value <= high:
        raise ValueError(f"{name} must be a finite number in [{low}, {high}], got {value!r}")
    return float(value)


def coefficient_noise(method: str, epsilon: float, n_draws: int, rng: np.random.Generator, *,
                      setup: Setup = Setup(), x: float = 0.0, h_sum: float | None = None,
                      b: float = 1.0, n: int = 14) -> np.ndarray:
    """The noise Alg. 1, Step 5 adds to the coefficients, drawn by the training step's own code.

    ``n_draws`` releases of one record whose ``n`` features all equal ``x``, each perturbed as
    :func:`train` perturbs a record (Prop. 3's ``Δ̂``, Thm. 1's ``b``, the setup's reading of
    ``c_j`` and split), minus the noiseless ``b α``: for the paper's calibration every entry is
    ``Lap(Δ̂/(√2 ε))``, whose mean absolute value is the scale.

    Parameters
    ----------
    method : {"spof", "fm", "spof_exact"}
        ``"fm"`` has ``c = 0``; ``"spof_exact"`` perturbs α₂ only, with ``Lap(b n/ε)``.
    epsilon : float
        The budget of one release.
    n_draws : int
        Releases.
    rng : numpy.random.Generator
    setup : Setup
        ``c``, ``reading``, ``split``, ``shared_noise``, ``code`` as in training.
    x : float
        The record's value, in [0, 1].
    h_sum : float, optional
        ``Σ_r h_{j,r}`` in [0, l] (``c_j = c Σ_r h_{j,r}`` for ``reading="data"``); default
        ``l/2`` (every code unit at ½).
    b : float
        Thm. 1's ``b_j`` (> 0; 1 without environmental noise).
    n : int
        Features.

    Returns
    -------
    ndarray, shape (n_draws, 2, n)
        The noise on α₂ (``[:, 0]``) and on α₃ (``[:, 1]``).
    """
    if method not in ("spof", "fm", "spof_exact"):
        raise ValueError(f"method must be 'spof', 'fm' or 'spof_exact', got {method!r}")
    if not isinstance(setup, Setup):
        raise TypeError(f"setup must be a Setup, got {type(setup).__name__}")
    eps, n_draws, n = check_epsilon(epsilon), check_positive_int(n_draws, "n_draws"), \
        check_positive_int(n, "n")
    x = _real(x, "x", 0.0, 1.0)
    h_sum = _real(0.5 * setup.code if h_sum is None else h_sum, "h_sum", 0.0, setup.code)
    b = _real(b, "b", 0.0)
    if b == 0:
        raise ValueError("b must be > 0")
    gen = seed_torch(check_rng(rng))
    coeffs, c = _layout(method, setup)[3:]
    _, a2, a3 = (torch.tensor(np.broadcast_to(v, (1, 1, n)).copy(), dtype=torch.float64)
                 for v in taylor.coefficients(np.full(n, x), coeffs))
    ctx = _Context(setup, method, False, torch.full((n_draws, 1, 1), eps, dtype=torch.float64),
                   n, c, None, gen)
    bt = torch.tensor(b, dtype=torch.float64)
    shape = (n_draws, 1, n)
    q2, q3 = _perturb(a2.expand(shape), a3.expand(shape),
                      torch.full((n_draws, 1, 1), h_sum, dtype=torch.float64), bt, ctx)
    return torch.stack([q2 - bt * a2, q3 - bt * a3], dim=1)[:, :, 0].numpy()


def gradient_noise(epsilon: float, n_draws: int, rng: np.random.Generator, *,
                   setup: Setup = Setup(), z: float = 0.0, x: float = 0.0, b: float = 1.0,
                   n: int = 14) -> tuple:
    """The noise Alg. 2's step adds to the clipped logit gradient, drawn by the training
    step's own code (``dpsgd_logit``).

    The gradient ``b (σ(z) - x)`` of one record whose ``n`` logits all equal ``z`` and features
    ``x`` is clipped (Eq. 15) and released with ``Lap(Δ_SGD/ε)`` per feature as in
    :func:`train`; the result minus the clipped gradient is the noise: ``Lap(2 b n/ε)`` when the
    gradient is not clipped (twice App. B.II's at ``a = 0``), ``Lap(2nC/ε)`` when it is.

    Returns
    -------
    (ndarray, ndarray)
        The noise, shape (n_draws, n), and whether each release was clipped (n_draws,).
    """
    if not isinstance(setup, Setup):
        raise TypeError(f"setup must be a Setup, got {type(setup).__name__}")
    eps, n_draws, n = check_epsilon(epsilon), check_positive_int(n_draws, "n_draws"), \
        check_positive_int(n, "n")
    z, x = _real(z, "z", -math.inf), _real(x, "x", 0.0, 1.0)
    b = _real(b, "b", 0.0)
    if b == 0:
        raise ValueError("b must be > 0")
    gen = seed_torch(check_rng(rng))
    ctx = _Context(setup, "dpsgd_logit", False,
                   torch.full((n_draws, 1, 1), eps, dtype=torch.float64), n, 0.0, None, gen)
    bt = torch.tensor(b, dtype=torch.float64)
    g = bt * (torch.sigmoid(torch.full((n_draws, 1, n), z, dtype=torch.float64)) - x)
    released, clipped = _release_gradient(g, bt, ctx)
    return (released - _clip(g, setup.clip)[0])[:, 0].numpy(), clipped[:, 0, 0].numpy()


def clip_gradients(g, clip: float) -> np.ndarray:
    """Eq. 15 as the training step applies it: each row of ``g`` divided by
    ``max(1, ‖row‖₂ / C)``.

    Parameters
    ----------
    g : array_like, shape (..., n)
        Gradients (finite).
    clip : float
        ``C`` (> 0).
    """
    g = np.asarray(g, dtype=float)
    if g.ndim < 1 or not np.all(np.isfinite(g)):
        raise ValueError("g must be a finite array of gradients (last axis: features)")
    clip = _real(clip, "clip", 0.0)
    if clip == 0:
        raise ValueError("clip must be > 0")
    return _clip(torch.from_numpy(g), clip)[0].numpy()


# ---------------------------------------------------------------------------- the loop

def _layout(method, setup):
    """(users, decoder, bias, coefficient set, stabilization c) of a method."""
    if method == "authors_v1":
        return setup.users, "concat", True, "paper", setup.c
    if method == "fm":
        return 1, "block", False, "paper", 0.0
    if method == "spof":
        return setup.users, "block", False, "paper", setup.c
    return setup.users, "block", False, "exact", 0.0


def _check_inputs(method, condition, x_train, x_test, epsilons):
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    if condition not in CONDITIONS:
        raise ValueError(f"condition must be one of {CONDITIONS}, got {condition!r}")
    x_train = check_unit_interval(x_train, "x_train", low=0.0)
    x_test = check_unit_interval(x_test, "x_test", low=0.0)
    if x_train.ndim != 2 or x_test.ndim != 2 or x_train.shape[1] != x_test.shape[1]:
        raise ValueError("x_train and x_test must be 2-D tables with the same columns, got "
                         f"shapes {x_train.shape} and {x_test.shape}")
    eps = np.atleast_1d(np.asarray(epsilons, dtype=float))
    if eps.ndim != 1 or eps.size == 0:
        raise ValueError("epsilons must be a non-empty 1-D sequence (one per replicate)")
    return x_train, x_test, check_epsilons(eps, "epsilons")


def _evaluate(p, x_test, noise, decoder, shift):
    with torch.no_grad():
        pred = model.reconstruct(p, x_test + noise, decoder=decoder, shift=shift)
        return accuracy(pred, x_test).cpu().numpy(), pred.mean((1, 2, 3)).cpu().numpy()


def train(method: str, x_train, x_test, epsilons, *, condition: str = "noiseless",
          setup: Setup = Setup(), rng: np.random.Generator, device=None) -> dict:
    """Train ``len(epsilons)`` replicates of the DA with ``method`` and test them.

    Parameters
    ----------
    method : str
        One of :data:`METHODS`.
    x_train, x_test : array_like
        Tables in [0, 1] (rows × n). The block-decoder methods deal the training rows to the
        ``m`` users as disjoint shards in a random order, one record per user per step
        (batch size 1); ``authors_v1`` gives the same record to every encoder.
    epsilons : sequence of float
        One ε per replicate (ignored by ``"nonprivate"``).
    condition : {"noiseless", "noisy"}
        Without or with environmental noise ``N(0, σ²)`` on the encoder input (Sec. VI).
    setup : Setup
        Hyper-parameters.
    rng : numpy.random.Generator
        Seeds the replicates' initial weights, orders and noise (one draw).
    device : str, optional
        ``None``: CUDA when present, else the CPU.

    Returns
    -------
    dict
        ``accuracy`` (R,) = ``1 - MSE`` on the clean test table (input noisy in the noisy
        condition) of the model Alg. 1 returns, ``(W_j, Ŵ)`` (Step 3's shift ``c`` lives in
        the loss only, as in the authors' code), ``accuracy_shifted`` (R,) the same with the
        decoder ``Ŵ + c`` the loss saw, ``mean_output`` (R,) the mean reconstruction (of
        ``Ŵ``), ``clipped_fraction`` (R,) the share of records whose logit gradient Eq. 15
        clipped (``dpsgd_logit``; NaN for the other methods), ``seconds_per_epoch``.
    """
    x_train, x_test, eps = _check_inputs(method, condition, x_train, x_test, epsilons)
    if not isinstance(setup, Setup):
        raise TypeError(f"setup must be a Setup, got {type(setup).__name__}")
    gen, dev = seed_torch(check_rng(rng)), torch_device(device)
    users, decoder, bias, coeffs, c = _layout(method, setup)
    n, reps = x_train.shape[1], len(eps)
    p = model.init_params(reps, users, n, setup.code, gen, decoder=decoder, bias=bias,
                          device=dev)
    opt = torch.optim.Adam(list(p.values()), lr=setup.lr)
    feeds = 1 if decoder == "concat" else users
    steps = len(x_train) // feeds
    if steps < 1:
        raise ValueError(f"x_train has {len(x_train)} rows, fewer than the {feeds} users")
    sigma = None
    if method == "dpsgd_param":
        sigma = torch.tensor([gaussian_noise_multiplier(float(e), setup) for e in eps],
                             device=dev, dtype=torch.float32)
    ctx = _Context(setup, method, condition == "noisy",
                   torch.tensor(eps, dtype=torch.float32, device=dev).view(-1, 1, 1), n,
                   c, sigma, gen)
    if method == "dpsgd_logit":
        ctx.clip_count = torch.zeros(reps, device=dev)
    xt = torch.tensor(x_train, dtype=torch.float32, device=dev)
    _, a2_all, a3_all = (torch.tensor(a, dtype=torch.float32, device=dev)
                         for a in taylor.coefficients(x_train, coeffs))
    step = _STEPS[method]
    start = time.perf_counter()
    for _ in range(setup.epochs):
        order = torch.argsort(torch.rand(reps, len(x_train), generator=gen), dim=1)
        order = order[:, :steps * feeds].reshape(reps, steps, feeds).to(dev)
        for t in range(steps):
            idx = order[:, t].expand(reps, users) if feeds == 1 else order[:, t]
            x = xt[idx]
            x_in = x
            if ctx.noisy:
                x_in = x + setup.sigma_env * torch.randn(x.shape, generator=gen).to(dev)
            opt.zero_grad(set_to_none=True)
            step(p, x, x_in, a2_all[idx], a3_all[idx], ctx)
            opt.step()
    seconds = (time.perf_counter() - start) / setup.epochs
    xs = torch.tensor(x_test, dtype=torch.float32, device=dev)
    noise = torch.zeros_like(xs)
    if ctx.noisy:
        noise = setup.sigma_env * torch.randn(xs.shape, generator=gen).to(dev)
    acc, mean_out = _evaluate(p, xs, noise, decoder, 0.0)
    shifted = _evaluate(p, xs, noise, decoder, c)[0] if decoder == "block" else acc
    clipped = np.full(reps, np.nan)
    if ctx.clip_count is not None:
        clipped = ctx.clip_count.cpu().numpy() / (setup.epochs * steps * users)
    return {"accuracy": acc, "accuracy_shifted": shifted, "mean_output": mean_out,
            "clipped_fraction": clipped, "seconds_per_epoch": seconds}
