"""Torch device and random-generator helpers shared by every chapter that trains a torch model.

* :func:`torch_device` picks the device a model runs on ("cuda" when available, else "cpu"),
  or checks the caller's choice.
* :func:`seed_torch` derives a :class:`torch.Generator` from a numpy generator, so that a grid
  cell's ``numpy.random.Generator`` (:func:`ldp_companion.execution.grid.cell_rng`) also drives
  model initialisation and batch order, never torch's global seed.
* :func:`seed_torch_global` also seeds torch's global generator from it (dropout, LSTMs).
* :func:`one_thread` runs torch on one thread inside a grid cell (identical results in any
  process), then restores the previous setting.
"""
from __future__ import annotations

import contextlib

import numpy as np
import torch

from ldp_companion.validation import check_rng

__all__ = ["DEVICES", "torch_device", "seed_torch", "seed_torch_global", "one_thread"]

#: Device kinds :func:`torch_device` accepts (``"cuda:N"`` picks the N-th GPU).
DEVICES = ("cpu", "cuda")


def torch_device(prefer: str | None = None) -> torch.device:
    """The device to run torch models on.

    Parameters
    ----------
    prefer : {None, "cpu", "cuda", "cuda:N"}
        ``None``: "cuda" when a GPU is available, else "cpu". ``"cpu"`` forces the CPU.
        ``"cuda"`` or ``"cuda:N"`` asks for a GPU and fails if there is none (or no N-th one).

    Returns
    -------
    torch.device

    Raises
    ------
    ValueError
        ``prefer`` names an unknown device kind, or a GPU that is not available.
    """
    if prefer is None:
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if not isinstance(prefer, str):
        raise ValueError(f"prefer must be None or one of {DEVICES} (or 'cuda:N'), "
                         f"got {prefer!r}")
    kind, _, index = prefer.partition(":")
    if kind not in DEVICES or (index and (kind != "cuda" or not index.isdigit())):
        raise ValueError(f"prefer must be None or one of {DEVICES} (or 'cuda:N'), "
                         f"got {prefer!r}")
    if kind == "cpu":
        return torch.device("cpu")
    if not torch.cuda.is_available():
        raise ValueError(f"prefer={prefer!r} but CUDA is not available on this machine")
    if index and int(index) >= torch.cuda.device_count():
        raise ValueError(f"prefer={prefer!r} but only {torch.cuda.device_count()} CUDA "
                         "device(s) are available")
    return torch.device(prefer)


def seed_torch(rng: np.random.Generator) -> torch.Generator:
    """A CPU :class:`torch.Generator` seeded by one draw ``rng.integers(2**63)``.

    Parameters
    ----------
    rng : numpy.random.Generator
        Advanced by exactly one draw.

    Returns
    -------
    torch.Generator
        On the CPU: draw random tensors (initial weights, permutations) on the CPU with it
        and move them to the model's device, so results do not depend on the device's RNG.
    """
    rng = check_rng(rng)
    gen = torch.Generator(device="cpu")
    gen.manual_seed(int(rng.integers(2**63)))
    return gen


def seed_torch_global(rng: np.random.Generator) -> torch.Generator:
    """:func:`seed_torch` (same argument, same generator returned), and torch's global seed
    drawn from that generator: for models whose dropout and LSTM initial weights use the
    global generator."""
    gen = seed_torch(rng)
    torch.manual_seed(int(torch.randint(2**62, (1,), generator=gen)))
    return gen


@contextlib.contextmanager
def one_thread():
    """Run torch on one CPU thread inside the ``with`` block, then restore the old setting.

    Grid cells run under it so that a serial run and a joblib run (one worker per core) give
    bit-identical results and do not oversubscribe the cores.

    Yields
    ------
    None

    Examples
    --------
    >>> import torch
    >>> with one_thread():
    ...     torch.get_num_threads()
    1
    """
    old = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(old)
