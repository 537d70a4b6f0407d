"""The distributed autoencoder (DA) of Sec. III in torch, with a leading replicate axis.

``m`` users each own a sigmoid encoder ``h_j = σ(W_jᵀ x_j)`` (``W_j``: n × l); one decoder
``Ŵ`` (ml × n) reconstructs ``x̂_{j,i} = σ(z_{j,i})``, ``z_{j,i} = Ŵ_{(:i[j])}ᵀ h_j`` (Eq. 5). User
j only ever touches rows ``(j-1)l+1 … jl`` of ``Ŵ``, so the paper's decoder is block-diagonal:
``m`` separate autoencoders (``decoder="block"``). The authors' code instead decodes the
concatenation ``[h_1, …, h_m]`` with one linear layer plus a bias (``decoder="concat"``).

Every parameter carries a leading axis of ``R`` replicates: ``R`` independent Monte Carlo runs
(different seeds, different ε) train in one loop. Replicates never mix, so the gradient of the
summed loss is each replicate's own gradient, and Adam (elementwise) keeps them apart.

Shapes: records ``x`` (R, m, n); ``W`` (R, m, n, l); ``V`` (R, m, l, n) holds ``Ŵ`` as ``m``
blocks; biases ``bw`` (R, m, l) and ``bv`` (R, m, n) (block) or (R, n) (concat).
"""
from __future__ import annotations

import math

import torch
from torch.nn import functional as F

__all__ = ["DECODERS", "init_params", "encode", "user_logits", "concat_logits",
           "reconstruct", "bce_sum", "polynomial_sum", "user_norms"]

#: Decoder layouts: ``"block"`` (the paper's Ŵ, Eq. 5) or ``"concat"`` (the authors' code).
DECODERS = ("block", "concat")


def _uniform(shape, bound, gen, device, dtype):
    u = torch.rand(shape, generator=gen, dtype=torch.float64)
    return ((2.0 * u - 1.0) * bound).to(device=device, dtype=dtype).requires_grad_(True)


def init_params(replicates: int, users: int, n: int, l: int, gen: torch.Generator, *,
                decoder: str = "block", bias: bool = False, device=None,
                dtype=torch.float32) -> dict:
    """Initial parameters, ``U(±1/√fan_in)`` as torch's ``nn.Linear`` (the paper gives none).

    Parameters
    ----------
    replicates, users, n, l : int
        ``R``, ``m``, features and code units.
    gen : torch.Generator
        CPU generator: the draws do not depend on the device.
    decoder : {"block", "concat"}
        See :data:`DECODERS`; the concat decoder's fan-in is ``m l``.
    bias : bool
        Add encoder and decoder biases (the paper has none; the authors' code has them).

    Returns
    -------
    dict of torch.Tensor
        ``W``, ``V`` and, with ``bias``, ``bw``, ``bv``; leaves that require grad.
    """
    if decoder not in DECODERS:
        raise ValueError(f"decoder must be one of {DECODERS}, got {decoder!r}")
    for name, v in (("replicates", replicates), ("users", users), ("n", n), ("l", l)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    fan_dec = l if decoder == "block" else users * l
    kw = dict(gen=gen, device=device, dtype=dtype)
    params = {"W": _uniform((replicates, users, n, l), 1 / math.sqrt(n), **kw),
              "V": _uniform((replicates, users, l, n), 1 / math.sqrt(fan_dec), **kw)}
    if bias:
        params["bw"] = _uniform((replicates, users, l), 1 / math.sqrt(n), **kw)
        out = (replicates, users, n) if decoder == "block" else (replicates, n)
        params["bv"] = _uniform(out, 1 / math.sqrt(fan_dec), **kw)
    return params


def encode(params: dict, x: torch.Tensor) -> torch.Tensor:
    """``h_j = σ(W_jᵀ x_j (+ b))`` (Eq. 5) for records ``x`` (R, m, n) → (R, m, l)."""
    pre = torch.einsum("rmn,rmnl->rml", x, params["W"])
    if "bw" in params:
        pre = pre + params["bw"]
    return torch.sigmoid(pre)


def user_logits(params: dict, h: torch.Tensor, shift: float = 0.0) -> torch.Tensor:
    """Block-decoder logits ``z_{j,i} = (Ŵ_{(:i[j])} + c)ᵀ h_j`` (Eq. 5; Alg. 1 Step 3 adds the
    stabilization ``c`` to every decoder weight, so the logit gains ``c_j = c Σ_r h_{j,r}``).

    ``h`` (R, m, l) → (R, m, n).
    """
    z = torch.einsum("rml,rmln->rmn", h, params["V"] + shift)
    if "bv" in params and params["bv"].dim() == 3:
        z = z + params["bv"]
    return z


def concat_logits(params: dict, h: torch.Tensor) -> torch.Tensor:
    """Concat-decoder logits ``Σ_j V_jᵀ h_j + b`` (the authors' code) → (R, n)."""
    z = torch.einsum("rml,rmln->rn", h, params["V"])
    if "bv" in params:
        z = z + params["bv"]
    return z


def reconstruct(params: dict, x: torch.Tensor, *, decoder: str = "block",
                shift: float = 0.0) -> torch.Tensor:
    """Reconstructions of a table ``x`` (T, n) by every replicate's model.

    Block decoder: every user's autoencoder reconstructs every row → (R, m, T, n).
    Concat decoder: every encoder sees the same row (the authors' code) → (R, 1, T, n).
    """
    pre = torch.einsum("tn,rmnl->rmtl", x, params["W"])
    if "bw" in params:
        pre = pre + params["bw"][:, :, None, :]
    h = torch.sigmoid(pre)
    if decoder == "concat":
        z = torch.einsum("rmtl,rmln->rtn", h, params["V"])
        if "bv" in params:
            z = z + params["bv"][:, None, :]
        return torch.sigmoid(z)[:, None]
    z = torch.einsum("rmtl,rmln->rmtn", h, params["V"] + shift)
    if "bv" in params:
        z = z + params["bv"][:, :, None, :]
    return torch.sigmoid(z)


def bce_sum(z: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """The exact loss of Eq. 6 summed over every entry: ``Σ sp(z) - x z``."""
    return (F.softplus(z) - x * z).sum()


def polynomial_sum(z: torch.Tensor, a2: torch.Tensor, a3: torch.Tensor) -> torch.Tensor:
    """The perturbed polynomial loss ``Σ α̃₂ z + α̃₃ z²`` (Eq. 12 without the constant α₁)."""
    return (a2 * z + a3 * z * z).sum()


def user_norms(grads: dict) -> torch.Tensor:
    """ℓ2 norm of each (replicate, user)'s block of a gradient dict → (R, m).

    With the block decoder user j's loss reaches only ``W_j``, ``V_j`` and its biases, so the
    per-record gradient of a batch of one record per user is that block.
    """
    total = 0.0
    for g in grads.values():
        total = total + g.pow(2).flatten(2).sum(-1)
    return total.sqrt()
