"""The runs of one experiment cell trained side by side: R small MLPs as one batched model.

The grids of Figs. 1-3 repeat every (task, mechanism, ε) over several runs; each run trains
the same small MLP on its own perturbed data, from its own initial weights, in its own batch
order. Training the runs one after another pays torch's per-step overhead R times for
matrix products too small to keep the core busy. Here the R models' weights are stacked,
shape (R, out, in), and each step computes all R models with batched products
(``torch.bmm``):

* the loss is the **sum** over runs of each run's mean cross-entropy, so each run's weights
  get exactly the gradient of its own loss;
* one fused Adam step updates every run's weight tensors: Adam is element-wise, so this
  takes the steps R separate Adams take (a stack is updated slice by slice where its
  rounding could differ from one run's alone);
* every run draws its initial weights and its batch order from its own ``torch.Generator``,
  in the order the single-run code draws them.

So run r ends with the weights :func:`ldp_companion.neural.training.fit_classifier` gives it alone
(bit for bit on the CPU this was written on; up to float rounding anywhere).
"""
from __future__ import annotations

import math

import torch
from torch.nn import functional as F
from torch.optim.adam import adam

__all__ = ["stacked_mlp", "stacked_logits", "fit_stacked"]


def stacked_mlp(sizes: tuple[int, ...], gens: list[torch.Generator],
                device: torch.device) -> list[torch.Tensor]:
    """The weights of ``len(gens)`` MLPs with layer sizes ``sizes``, stacked.

    Run r's weights are drawn from ``gens[r]`` as ``torch.nn.Linear``'s default
    initialisation draws them, layer by layer, weight then bias, each entry from
    U(-1/√fan_in, 1/√fan_in).

    Parameters
    ----------
    sizes : tuple of int
        Input size, hidden sizes, number of classes.
    gens : list of torch.Generator
        One CPU generator per run.
    device : torch.device

    Returns
    -------
    list of Tensor
        ``[W₁, b₁, W₂, b₂, ...]``, ``Wₖ[r]`` of shape (out, in) (``nn.Linear``'s weight of
        run r) and ``bₖ[r]`` of shape (out,): float32 leaves requiring gradients.
    """
    runs = []
    for gen in gens:
        tensors = []
        for n_in, n_out in zip(sizes[:-1], sizes[1:]):
            bound = 1.0 / math.sqrt(n_in)
            for shape in ((n_out, n_in), (n_out,)):
                tensors.append((2 * torch.rand(shape, generator=gen) - 1) * bound)
        runs.append(tensors)
    return [torch.stack(layer).to(device).requires_grad_() for layer in zip(*runs)]


class _StackedLinear(torch.autograd.Function):
    """``x @ w.T + b`` for every run r: ``x`` (R, n, in), ``w`` (R, out, in), ``b`` (R, out).

    The backward pass forms each product in the order ``F.linear``'s backward forms it
    (``g.T @ x`` for the weight), so each run's gradient is the one a single ``nn.Linear``
    gets, bit for bit; autograd's own ``bmm`` backward forms ``x.T @ g``, which rounds
    differently.
    """

    @staticmethod
    def forward(ctx, x, w, b):
        ctx.save_for_backward(x, w)
        return torch.baddbmm(b.unsqueeze(1), x, w.transpose(1, 2))

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        gx = torch.bmm(g, w) if ctx.needs_input_grad[0] else None
        return gx, torch.bmm(g.transpose(1, 2), x), g.sum(1)


def stacked_logits(params: list[torch.Tensor], x: torch.Tensor,
                   activation: str = "relu") -> torch.Tensor:
    """The R models' outputs (R, n, classes) on ``x``: (R, n, in), run r's inputs, or
    (n, in), the same inputs for every run; ``activation`` ("relu" or "tanh") between
    the layers."""
    act = {"relu": torch.relu, "tanh": torch.tanh}[activation]
    h = x if x.dim() == 3 else x.expand(len(params[0]), *x.shape)
    for k in range(0, len(params), 2):
        if k:
            h = act(h)
        h = _StackedLinear.apply(h, params[k], params[k + 1])
    return h


#: A run's tensor whose size is a multiple of this many entries is updated by the fused Adam
#: kernel in whole vector steps (no scalar tail), so a stack of such tensors can be updated
#: as one tensor with the same rounding as each alone.
_WHOLE_VECTORS = 64


def _adam_tensors(tensors: list[torch.Tensor]) -> list[torch.Tensor]:
    """The tensors one Adam step updates: a stack whose runs' slices fill whole vector steps
    as one tensor, any other stack slice by slice (views): the kernel's scalar tail, which
    rounds differently, must fall where it falls for one run alone."""
    out = []
    for t in tensors:
        out += [t] if t[0].numel() % _WHOLE_VECTORS == 0 else list(t.unbind())
    return out


def fit_stacked(params: list[torch.Tensor], x: torch.Tensor, y: torch.Tensor, *, epochs: int,
                lr: float, batch_size: int, gens: list[torch.Generator],
                rows: torch.Tensor | None = None, activation: str = "relu") -> None:
    """Train the stacked models in place: run r does what
    ``fit_classifier(model_r, x[r], y[r], epochs=..., lr=..., batch_size=..., gen=gens[r])``
    does, for every r at once.

    Parameters
    ----------
    params : list of Tensor
        From :func:`stacked_mlp` (leaves requiring gradients).
    x : Tensor, shape (R, n, in), or (N, in) with ``rows``
        Run r's training inputs (flattened), float32; or a pool of inputs.
    y : Tensor, shape (R, n), or (N,) with ``rows``
        Run r's class indices (``expand`` a shared label vector); or the pool's.
    epochs, lr, batch_size
        As in :func:`~ldp_companion.neural.training.fit_classifier` (Adam with torch's defaults,
        fused).
    gens : list of torch.Generator
        Run r's batch order: one ``randperm`` per epoch from ``gens[r]``.
    rows : Tensor, shape (R, n), optional
        Run r's i-th sample is the pool's row ``rows[r, i]`` (no copy of the pool per run).
    activation : {"relu", "tanh"}
    """
    if rows is None:
        runs, n = y.shape
        x, y = x.reshape(runs * n, -1), y.reshape(runs * n)
        rows = torch.arange(runs * n, device=x.device).view(runs, n)
    runs, n = rows.shape
    weights = _adam_tensors([p.detach() for p in params])
    moments = [_adam_tensors([torch.zeros_like(p) for p in params]) for _ in range(2)]
    steps = [torch.zeros((), device=x.device) for _ in weights]
    for _ in range(epochs):
        order = torch.stack([torch.randperm(n, generator=g) for g in gens]).to(x.device)
        epoch_rows = rows.gather(1, order)
        for start in range(0, n, batch_size):
            idx = epoch_rows[:, start:start + batch_size].flatten()
            xb = x.index_select(0, idx).view(runs, -1, x.shape[1])
            logits = stacked_logits(params, xb, activation)
            loss = F.cross_entropy(logits.flatten(0, 1), y.index_select(0, idx),
                                   reduction="sum") / xb.shape[1]
            grads = _adam_tensors(torch.autograd.grad(loss, params))
            with torch.no_grad():
                adam(weights, grads, *moments, [], steps, fused=True, amsgrad=False,
                     beta1=0.9, beta2=0.999, lr=lr, weight_decay=0.0, eps=1e-8,
                     maximize=False)
