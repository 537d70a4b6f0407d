"""Harmony (Alg. 1; Nguyen et al. 2016) and its two steps reused by LHP (Alg. 3 steps 3-4).

Harmony discretises ``v`` to ``x = ±1`` with ``P(x = 1) = (1 + v) / 2``, keeps ``x`` w.p.
``e^eps / (e^eps + 1)`` and calibrates by ``(e^eps + 1) / (e^eps - 1)``. In one dimension its
output law is exactly that of Duchi et al.'s mechanism, so :class:`Harmony` subclasses
:class:`~ldp_companion.mechanisms.duchi.Duchi` and only replaces the sampler by the paper's
two-step one.
"""
from __future__ import annotations

import numpy as np

from ldp_companion.mechanisms.base import sample_from_uniform
from ldp_companion.mechanisms.duchi import Duchi, plus_minus
from ldp_companion.validation import check_probability, check_rng, check_unit_interval

__all__ = ["Harmony", "discretise", "randomized_response"]


def discretise(v, rng: np.random.Generator) -> np.ndarray:
    """Alg. 1 step 1 / Alg. 3 step 3: ``x = +1`` w.p. ``(1 + v) / 2``, else ``-1`` (int8).

    ``E[x] = v``.
    """
    v = check_unit_interval(v, "v")
    rng = check_rng(rng)
    return np.where(rng.random(v.shape) < 0.5 * (1.0 + v), 1, -1).astype(np.int8)


def randomized_response(bits, p_keep, rng: np.random.Generator) -> np.ndarray:
    """Alg. 1 step 2 / Alg. 3 step 4: keep each ±1 bit w.p. ``p_keep``, else flip it (int8).

    Parameters
    ----------
    bits : array_like of ±1
    p_keep : float or array_like
        Keep probabilities, broadcastable to ``bits``.
    rng : numpy.random.Generator
    """
    bits = _check_bits(bits)
    p_keep = check_probability(p_keep, "p_keep")
    rng = check_rng(rng)
    keep = rng.random(bits.shape) < p_keep
    return np.where(keep, bits, -bits).astype(np.int8)


def _check_bits(bits, name: str = "bits") -> np.ndarray:
    arr = np.asarray(bits)
    if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.integer)
                                 or np.issubdtype(arr.dtype, np.floating)):
        raise TypeError(f"{name} must hold ±1 numbers, got dtype {arr.dtype}")
    if not np.all((arr == 1) | (arr == -1)):
        raise ValueError(f"{name} must hold only +1 and -1")
    return arr.astype(np.int8)


class Harmony(Duchi):
    """Harmony (Alg. 1): outputs ``±C``, ``C = (e^eps + 1) / (e^eps - 1) = coth(eps / 2)``.

    Unbiased with ``Var[Y | v] = coth^2(eps / 2) - v^2``, largest at ``v = 0``.
    """

    name = "harmony"

    def _privatize(self, x, rng):
        return sample_from_uniform(self._from_uniform, x, rng)

    def _from_uniform(self, v, u):
        """Alg. 1's two steps on one uniform ``u`` per value.

        Step 1 sets ``x = +1`` iff ``u < q = (1 + v) / 2``. Given that outcome, ``u`` is
        uniform on ``[0, q)`` or on ``[q, 1)``, so its position there is step 2's
        independent uniform: with ``p = e^eps / (e^eps + 1)``, ``x = +1`` is kept iff
        ``u < q p`` and ``x = -1`` is flipped to ``+1`` iff ``u >= q + (1 - q) p``. The law
        is that of :func:`discretise` followed by :func:`randomized_response` (tested).
        """
        p = 1.0 / (1.0 + np.exp(-self.epsilon))
        t = np.multiply(v, 0.5 * p)
        t += 0.5 * p  # q p
        plus = u < t
        np.multiply(v, 0.5 * (1.0 - p), out=t)
        t += 0.5 * (1.0 + p)  # q + (1 - q) p
        plus |= u >= t
        return plus_minus(plus, self.C)
