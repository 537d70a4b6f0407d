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

__all__ = ["OutputLaw", "ScalarMechanism", "get_mechanism", "mechanism_names", "REGISTRY",
           "BUILT_IN", "register_mechanism", "unregister_mechanism"]

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
#: The papers' mechanisms, which :func:`register_mechanism` never replaces.
BUILT_IN = frozenset(REGISTRY)


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


def register_mechanism(cls: type[ScalarMechanism], *, replace: bool = False):
    """Add a scalar mechanism of your own to the registry, under ``cls.name``.

    From then on ``get_mechanism(cls.name, epsilon)`` returns it, so everything that takes a
    mechanism's name takes it too: the exact and empirical audits, the Monte Carlo moment
    checks, :func:`~ldp_companion.mechanisms.compare.worst_case_table` and ``crossover``, the
    mean-estimation grids. Usable as a class decorator.

    Parameters
    ----------
    cls : type
        A subclass of :class:`ScalarMechanism` that implements ``_privatize``, ``_variance``,
        ``worst_case_variance`` and ``_output_law``, with a ``name`` of its own (lower case,
        digits and ``_``) and optionally a display ``label``.
    replace : bool
        Replace a mechanism registered earlier under the same name (re-running a notebook
        cell); the papers' mechanisms (:data:`BUILT_IN`) are never replaced.

    Returns
    -------
    cls

    Raises
    ------
    TypeError
        If ``cls`` is not a concrete subclass of :class:`ScalarMechanism`.
    ValueError
        If its name is malformed or taken.
    """
    import inspect
    import re

    if not (isinstance(cls, type) and issubclass(cls, ScalarMechanism)):
        raise TypeError(f"register_mechanism takes a subclass of ScalarMechanism, got {cls!r}")
    if inspect.isabstract(cls):
        missing = ", ".join(sorted(cls.__abstractmethods__))
        raise TypeError(f"{cls.__name__} does not implement {missing}")
    name = cls.name
    if not isinstance(name, str) or not re.fullmatch(r"[a-z][a-z0-9_]*", name) \
            or name == ScalarMechanism.name:
        raise ValueError(f"{cls.__name__}.name must be its own lower-case identifier "
                         f"(e.g. 'square_wave'), got {name!r}")
    if name in BUILT_IN:
        raise ValueError(f"{name!r} is one of the papers' mechanisms; choose another name")
    if name in REGISTRY and not replace and REGISTRY[name] is not cls:
        raise ValueError(f"{name!r} is already registered ({REGISTRY[name].__name__}); "
                         "pass replace=True to replace it")
    REGISTRY[name] = cls
    return cls


def unregister_mechanism(name: str) -> None:
    """Remove a mechanism added with :func:`register_mechanism` (not one of the papers')."""
    if name in BUILT_IN:
        raise ValueError(f"{name!r} is one of the papers' mechanisms and stays registered")
    if name not in REGISTRY:
        raise ValueError(f"{name!r} is not registered")
    del REGISTRY[name]
