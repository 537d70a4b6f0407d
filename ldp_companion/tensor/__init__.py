"""Additive noise for tensors of any order, and batches of them (shared by chapters 1 and 2).

* :mod:`~ldp_companion.tensor.backend`: numpy and torch inputs alike: noise is drawn with an
  explicit generator and comes back as the input's type, dtype and device;
* :mod:`~ldp_companion.tensor.calibration`: the noise scales: per entry as TLDP's Alg. 1 sets
  them, for the whole tensor (ℓ1 for Laplace, ℓ2 for Gaussian: classical, analytic, zCDP),
  IDN's and MVG's budgets;
* :mod:`~ldp_companion.tensor.additive`: the mechanisms (Laplace, Gaussian, IDN, MVG) as one
  vectorized call on a tensor or a batch of tensors;
* :mod:`~ldp_companion.tensor.algebra`: mode-n products, Kolda's unfolding, vec and the
  Kronecker covariance (TVG Defs. 3–5, Lemma 1);
* :mod:`~ldp_companion.tensor.variate`: the tensor-variate Gaussian distribution (TVG Def. 8):
  sampling by mode products and the log-density of Eq. 9.

A *batch* is an array whose first axis indexes tensors (``batched=True``): each ``x[i]`` is
one tensor of size ``I = x[i].size``, and the calibration uses that ``I``.
"""
from ldp_companion.tensor.additive import (
    MECHANISMS,
    gaussian_mechanism,
    idn_mechanism,
    laplace_mechanism,
    mvg_mechanism,
)
from ldp_companion.tensor.backend import add_noise, draw_noise
from ldp_companion.tensor.calibration import (
    gaussian_sigma,
    idn_sigma,
    laplace_scale,
    mvg_budget,
    mvg_iid_sigma,
    tensor_size,
    zeta,
)

__all__ = ["MECHANISMS", "add_noise", "draw_noise", "gaussian_mechanism", "gaussian_sigma",
           "idn_mechanism", "idn_sigma", "laplace_mechanism", "laplace_scale", "mvg_budget",
           "mvg_iid_sigma", "mvg_mechanism", "tensor_size", "zeta"]
