"""Scalar LDP mechanisms on [-1, 1], looked up by name.

>>> from ldp_companion import get_mechanism
>>> m = get_mechanism("duchi", 1.0)
>>> print(round(m.worst_case_variance(), 4))
4.6827
"""
from __future__ import annotations

from ldp_companion.mechanisms.base import OutputLaw, ScalarMechanism
from ldp_companion.mechanisms.duchi import Duchi
from ldp_companion.mechanisms.harmony import Harmony
from ldp_companion.mechanisms.hybrid import HM, HMTP
from ldp_companion.mechanisms.laplace import Laplace
from ldp_companion.mechanisms.piecewise import PM, PMOpt, PMSub
from ldp_companion.mechanisms.three_outputs import ThreeOutputs

__all__ = ["OutputLaw", "ScalarMechanism", "get_mechanism", "mechanism_names", "REGISTRY"]

REGISTRY: dict[str, type[ScalarMechanism]] = {
    Laplace.name: Laplace,
    Duchi.name: Duchi,
    PM.name: PM,
    HM.name: HM,
    ThreeOutputs.name: ThreeOutputs,
    PMOpt.name: PMOpt,
    PMSub.name: PMSub,
    HMTP.name: HMTP,
    Harmony.name: Harmony,
}


def mechanism_names() -> list[str]:
    """Names accepted by :func:`get_mechanism`, in registration order."""
    return list(REGISTRY)


def get_mechanism(name: str, epsilon: float) -> ScalarMechanism:
    """Return the scalar mechanism ``name`` at privacy budget ``epsilon``.

    Raises
    ------
    ValueError
        If ``name`` is unknown (the message lists the known names) or ``epsilon`` <= 0.
    """
    if not isinstance(name, str) or name not in REGISTRY:
        raise ValueError(f"unknown mechanism {name!r}; known: {', '.join(REGISTRY)}")
    return REGISTRY[name](epsilon)
