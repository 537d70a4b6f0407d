"""Chapter 3's mechanisms for a tuple of attributes, for the table of true ε.

Zhao et al. (Sec. VI, Alg. 6) release a tuple ``x ∈ [-1, 1]^d`` by sampling ``k`` attributes and
running a scalar mechanism at ``ε/k`` on each (Lemma 12: ε-LDP); their baselines (Sec. VII-A)
are Laplace at ``ε/d`` on every attribute and Duchi et al.'s multi-dimensional mechanism. The
exact ε, for the worst pair (every attribute at 1 against every attribute at -1):

* Alg. 6 with Three-Outputs (discrete output): the largest ratio of its exact law over the
  tuples of ``{-1, 0, 1}^d`` (:func:`ldp_companion.pm.multidim.alg6_privacy_ratio`);
* Alg. 6 with a mechanism with a density (PM-SUB): the subset is drawn independently of
  ``x`` and each sampled attribute is released independently, so the loss is ``k`` times the
  scalar mechanism's exact ε at ``ε/k`` (:func:`ldp_companion.auditing.audit.exact_audit`);
* Laplace at ``ε/d``: ``d`` times Laplace's exact ε at ``ε/d``;
* Duchi et al.'s mechanism: the largest ratio of its exact law
  (:func:`ldp_companion.pm.multidim.duchi_md_privacy_ratio`).
"""
from __future__ import annotations

import math

import numpy as np

from ldp_companion.auditing import audit
from ldp_companion.compare.catalogue import Entry
from ldp_companion.mechanisms import get_mechanism
from ldp_companion.pm import multidim

__all__ = ["ATTRIBUTES", "TUPLE", "tuple_entries"]

#: Attributes of the tuple (small enough for the exact laws' enumeration).
ATTRIBUTES = 4
#: The multi-attribute mechanisms (all from Zhao et al., ch. 3).
TUPLE = ("alg6_three_outputs", "alg6_pm_sub", "laplace_split", "duchi_md")


def _pairs(d: int) -> list:
    return [(np.ones(d), -np.ones(d)), (-np.ones(d), np.ones(d))]


def _sampler(privatize):
    def sample(x, m, rng):
        return privatize(np.broadcast_to(np.asarray(x, float), (m, len(x))).copy(), rng)
    return sample


def _exact(key: str, eps: float, d: int) -> float:
    if key == "alg6_three_outputs":
        return math.log(multidim.alg6_privacy_ratio(d, eps, "three_outputs"))
    if key == "alg6_pm_sub":
        k = multidim.choose_k(eps, d)
        return k * audit.exact_audit(get_mechanism("pm_sub", eps / k)).epsilon
    if key == "laplace_split":
        return d * audit.exact_audit(get_mechanism("laplace", eps / d)).epsilon
    return math.log(multidim.duchi_md_privacy_ratio(d, eps))


def _privatize(key: str, eps: float):
    if key.startswith("alg6_"):
        name = key.removeprefix("alg6_")
        return lambda X, rng: multidim.alg6_privatize(X, eps, name, rng)
    if key == "laplace_split":
        return lambda X, rng: multidim.laplace_split_privatize(X, eps, rng)
    return lambda X, rng: multidim.duchi_md_privatize(X, eps, rng)


def tuple_entries(eps: float, d: int = ATTRIBUTES) -> list[Entry]:
    """Chapter 3's multi-attribute mechanisms at budget ``eps`` on ``d`` attributes, as
    :class:`~ldp_companion.compare.catalogue.Entry` rows of kind ``"tuple"``."""
    return [Entry(key, "pm", "tuple", eps, eps, _exact(key, eps, d),
                  _sampler(_privatize(key, eps)), _pairs(d)) for key in TUPLE]
