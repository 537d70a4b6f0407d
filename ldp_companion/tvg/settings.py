"""Tables II–III of Yang et al. 2021 (TVG) against the networks chapter 2 builds.

Table II gives the largest gradient of each Type I network, Table III the feature tensor
each Types II–III network releases (a batch of 256 records). :data:`PRINTED` types those
shapes from the paper; :func:`network_shapes` builds the networks of
:mod:`~ldp_companion.tvg.experiments`, :mod:`~ldp_companion.tvg.paper_sgd` and
:mod:`~ldp_companion.tvg.paper` (untrained, no data needed) and measures the same shapes, so a
network that does not match the paper's setting shows. The Credit FCN (28 × 10) and the Adult
MLP (105 × 12) are left out: their widths are the tables' own numbers, passed in, so their
shapes could not differ.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import torch

from ldp_companion.tvg.experiments import BATCH, lenet5
from ldp_companion.tvg.paper import alexnet32, bilstm, vgg16
from ldp_companion.tvg.paper_sgd import conv_lenet

__all__ = ["PRINTED", "network_shapes", "record_network_shapes", "SHAPE_LABELS"]

#: Readable headers of :func:`network_shapes`' table.
SHAPE_LABELS = {"printed": "printed shape", "built": "built here", "same": "same"}

#: Shapes printed in the paper: Table II's "Gradient Shape" (MNIST's "LeNet") and Table III's
#: "Feature Tensor Shape" (256 records a batch).
PRINTED = {
    ("Table II", "MNIST (conv32–conv64–fc512)"): (3136, 512),
    ("Table III", "MNIST (LeNet-5)"): (256, 16, 5, 5),
    ("Table III", "CIFAR-10 (VGG-16)"): (256, 512, 1, 1),
    ("Table III", "SVHN (AlexNet)"): (256, 256, 4, 4),
    ("Table III", "IMDB (BiLSTM)"): (256, 150),
}


def _largest_gradient(model: torch.nn.Module) -> tuple[int, ...]:
    """The largest parameter of ``model`` as the paper's gradient matrix: a weight
    (out, in, …) read input modes first, ``(in · …, out)``."""
    weight = max((p for p in model.parameters()), key=lambda p: p.numel())
    return (math.prod(weight.shape[1:]), weight.shape[0])


@torch.no_grad()
def network_shapes(seed: int = 0) -> pd.DataFrame:
    """Each shape of :data:`PRINTED` next to the one the chapter's network gives.

    The Type I network's largest gradient is read from its parameters; a Types II–III
    network's feature tensor is its extractor's output for one input (a 28 × 28 or 32 × 32
    image, 12 word indices for the BiLSTM, with random 100-d stand-in vectors) with the batch
    of :data:`~ldp_companion.tvg.experiments.BATCH` records in front.

    Returns
    -------
    DataFrame
        Indexed by (table, network); columns ``printed``, ``built`` (tuples) and ``same``.
    """
    gen = torch.Generator().manual_seed(int(seed))
    cpu = torch.device("cpu")
    image28, image32 = torch.zeros(1, 1, 28, 28), torch.zeros(1, 3, 32, 32)
    vectors = np.random.default_rng(seed).standard_normal((20, 100)).astype(np.float32)
    torch.manual_seed(int(seed))       # the LSTM draws from torch's global generator
    features = {
        "MNIST (LeNet-5)": lenet5(gen, cpu)[0](image28),
        "CIFAR-10 (VGG-16)": vgg16(gen, cpu)[0](image32),
        "SVHN (AlexNet)": alexnet32(gen, cpu)[0](image32),
        "IMDB (BiLSTM)": bilstm(vectors, gen, cpu)[0](torch.ones(1, 12, dtype=torch.long)),
    }
    built = {("Table II", "MNIST (conv32–conv64–fc512)"): _largest_gradient(conv_lenet(gen, cpu))}
    built |= {("Table III", k): (BATCH,) + tuple(v.shape[1:]) for k, v in features.items()}
    rows = [{"table": t, "network": n, "printed": shape, "built": built[(t, n)],
             "same": tuple(built[(t, n)]) == tuple(shape)} for (t, n), shape in PRINTED.items()]
    return pd.DataFrame(rows).set_index(["table", "network"])


def record_network_shapes(ledger, shapes: pd.DataFrame) -> None:
    """Record Tables II–III's shapes against the networks built here, from
    :func:`network_shapes`."""
    ledger.condition(
        "tables23-shapes",
        "Tables II–III: the networks built here give the printed tensor shapes (Type I"
        " MNIST's largest gradient; the feature tensors of LeNet-5, VGG-16, AlexNet and the"
        f" BiLSTM, batches of {BATCH})",
        shapes["same"].to_numpy(),
        evidence={"entries printed": [math.prod(p) for p in shapes["printed"]],
                  "entries built": [math.prod(b) for b in shapes["built"]]})
