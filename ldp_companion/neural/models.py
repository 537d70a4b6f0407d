"""Torch building blocks that more than one chapter's paper networks use.

* :class:`BiLSTMEncoder`: a frozen GloVe embedding and a bidirectional LSTM whose last hidden
  states of both directions are the text's features (chapter 1's IMDB classifier, chapter 2's
  IMDB feature extractor).
"""
from __future__ import annotations

import numpy as np
import torch
from torch import nn

__all__ = ["BiLSTMEncoder"]


class BiLSTMEncoder(nn.Module):
    """Frozen GloVe embedding and a bidirectional LSTM; ``forward`` maps (n, tokens) word
    indices to the (n, 2 ``hidden``) concatenated last hidden states of the top layer's two
    directions, each in (-1, 1) (an LSTM's hidden state is ``o · tanh(c)``).

    Parameters
    ----------
    vectors : ndarray, shape (words, dim)
        GloVe vectors. Index 0 pads and the last index is the unknown word (both zero), as
        :func:`ldp_companion.data.paper_assets.load_imdb` numbers the words.
    hidden : int
        Hidden size per direction.
    layers : int
    dropout : float
        Dropout between LSTM layers (only with ``layers > 1``).
    """

    def __init__(self, vectors: np.ndarray, hidden: int, layers: int = 1,
                 dropout: float = 0.0):
        super().__init__()
        table = np.zeros((len(vectors) + 2, vectors.shape[1]), dtype=np.float32)
        table[1:-1] = vectors                    # row 0 pads, the last row: unknown word
        self.embedding = nn.Embedding.from_pretrained(torch.from_numpy(table), freeze=True,
                                                      padding_idx=0)
        self.lstm = nn.LSTM(vectors.shape[1], hidden, num_layers=layers, bidirectional=True,
                            dropout=dropout if layers > 1 else 0.0, batch_first=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        _, (h, _) = self.lstm(self.embedding(x))
        return torch.cat([h[-2], h[-1]], dim=1)
