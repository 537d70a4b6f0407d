"""Every mechanism the TLDP experiments compare, by name, on a batch of tensors.

``perturb(name, x, epsilon, value_range=Δ, rng=rng)`` perturbs each ``x[i]`` as one tensor:

* ``"tldp_l"``, ``"tldp_g"``: TLDP (Alg. 1);
* ``"tldp_l_w"``, ``"tldp_g_w"``: weighted TLDP (Alg. 2) with intensity weights (Sec. V-B1;
  the entries are taken to lie in ``[−Δ/2, Δ/2]``, so ``w = x/Δ + 1/2``);
* ``"laplace"``, ``"gaussian"``: the baselines of Thm. 2 (``b₁ = IΔ/ε``, ``σ₁² = IΔ²/2ε``);
* ``"idn"``, ``"mvg"``: IDN and MVG with utility subspace ``W = E`` and ``δ = 10⁻⁵``
  (Sec. V-A2);
* ``"none"``: the clean data.
"""
from __future__ import annotations

from ldp_companion.tensor.additive import (
    gaussian_mechanism,
    idn_mechanism,
    laplace_mechanism,
    mvg_mechanism,
)
from ldp_companion.tensor.backend import check_tensor
from ldp_companion.tensor.calibration import check_value_range
from ldp_companion.tldp.algorithm import _intensity_weights, _tldp
from ldp_companion.validation import check_epsilon

__all__ = ["NAMES", "LABELS", "DELTA", "perturb"]

#: δ of the (ε, δ) baselines in every figure of the paper (Sec. V-A2).
DELTA = 1e-5

LABELS = {"tldp_l": "TLDP-L", "tldp_g": "TLDP-G", "tldp_l_w": "TLDP-L-w",
          "tldp_g_w": "TLDP-G-w", "laplace": "Laplace", "gaussian": "Gaussian", "idn": "IDN",
          "mvg": "MVG", "none": "no noise"}
NAMES = tuple(LABELS)


def _weighted(x, epsilon, value_range, rng, noise):
    """Alg. 2 with intensity weights on checked arguments (clipped to [0, 1] by
    :func:`~ldp_companion.tldp.algorithm.intensity_weights`' definition)."""
    w = _intensity_weights(x, value_range, -value_range / 2.0)  # data centred on 0
    return _tldp(x, epsilon, value_range, rng, noise, w, batched=True)


_PERTURB = {
    "tldp_l": lambda x, e, d, rng: _tldp(x, e, d, rng, "laplace", None, batched=True),
    "tldp_g": lambda x, e, d, rng: _tldp(x, e, d, rng, "gaussian", None, batched=True),
    "tldp_l_w": lambda x, e, d, rng: _weighted(x, e, d, rng, "laplace"),
    "tldp_g_w": lambda x, e, d, rng: _weighted(x, e, d, rng, "gaussian"),
    "laplace": lambda x, e, d, rng: laplace_mechanism(x, e, d, rng=rng, batched=True),
    "gaussian": lambda x, e, d, rng: gaussian_mechanism(x, e, d, rng=rng, batched=True),
    "idn": lambda x, e, d, rng: idn_mechanism(x, e, d, rng=rng, delta=DELTA, batched=True),
    "mvg": lambda x, e, d, rng: mvg_mechanism(x, e, d, rng=rng, delta=DELTA, batched=True),
    "none": lambda x, e, d, rng: x,
}


def perturb(name: str, x, epsilon, *, value_range, rng):
    """Perturb a batch of tensors ``x`` (shape ``(n, *tensor_shape)``) with mechanism
    ``name`` at the paper's (nominal) ε; returns the same type and shape."""
    if name not in _PERTURB:
        raise ValueError(f"mechanism must be one of {NAMES}, got {name!r}")
    x = check_tensor(x, batched=True)
    return _PERTURB[name](x, check_epsilon(epsilon), check_value_range(value_range), rng)
