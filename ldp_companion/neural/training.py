"""Small torch training helpers shared by the chapters that train classifiers (1 and 2).

* :func:`as_tensor`: a numpy array on a device, with a dtype;
* :func:`fit_classifier`: mini-batch Adam on the cross-entropy, the batch order drawn from an
  explicit ``torch.Generator`` (so a grid cell's generator fixes it);
* :func:`batched_outputs`: a model's outputs on many inputs, a batch at a time.
"""
from __future__ import annotations

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

__all__ = ["as_tensor", "fit_classifier", "batched_outputs"]


def as_tensor(x, device: torch.device, dtype=torch.float32) -> torch.Tensor:
    """``x`` (array-like) as a new tensor of ``dtype`` on ``device``."""
    return torch.tensor(np.asarray(x), dtype=dtype, device=device)


def fit_classifier(model: nn.Module, x: torch.Tensor, y: torch.Tensor, *, epochs: int,
                   lr: float, batch_size: int, gen: torch.Generator) -> None:
    """Train ``model`` in place: ``epochs`` passes of mini-batch Adam (fused: the same updates
    as the default, faster on the CPU) on the cross-entropy of ``model(x)`` against the class
    indices ``y``, each pass in an order drawn from ``gen``."""
    opt = torch.optim.Adam(model.parameters(), lr=lr, fused=True)
    n = len(y)
    model.train()
    for _ in range(epochs):
        order = torch.randperm(n, generator=gen).to(x.device)
        for start in range(0, n, batch_size):
            idx = order[start:start + batch_size]
            opt.zero_grad(set_to_none=True)
            F.cross_entropy(model(x[idx]), y[idx]).backward()
            opt.step()


@torch.no_grad()
def batched_outputs(model: nn.Module, x, device: torch.device, *, dtype=torch.float32,
                    batch_size: int = 1024) -> np.ndarray:
    """``model(x)`` in evaluation mode, ``batch_size`` inputs at a time, each output flattened
    to a row: an (n, outputs) float64 array on the CPU."""
    model.eval()
    out = [model(as_tensor(x[s:s + batch_size], device, dtype)).flatten(1).double().cpu()
           for s in range(0, len(x), batch_size)]
    return torch.cat(out).numpy()
