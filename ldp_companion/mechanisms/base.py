"""The scalar-mechanism interface and the exact output law.

Every scalar mechanism maps an input ``x`` in [-1, 1] to a random output ``Y`` with
``E[Y | x] = x``. It exposes

* ``privatize(x, rng)``: vectorized sampling, same shape as ``x``;
* ``variance(x)``: closed form of ``Var[Y | x]``;
* ``worst_case_variance()``: ``max_x Var[Y | x]``;
* ``output_law(x)``: the exact law of ``Y | x`` as an :class:`OutputLaw`, which the privacy
  checks (:mod:`ldp_companion.auditing.audit`) and the tests use.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from scipy import integrate

from ldp_companion.validation import check_epsilon, check_rng, check_unit_interval

__all__ = ["OutputLaw", "ScalarMechanism", "sample_from_uniform"]

_EMPTY = np.zeros(0)

#: Entries per block in :func:`sample_from_uniform`: 2^14 float64 (128 KiB) per array, so a
#: sampler's few temporaries stay in the core's cache instead of streaming through memory.
CHUNK = 1 << 14


def sample_from_uniform(from_uniform: Callable[[np.ndarray, np.ndarray], np.ndarray],
                        x: np.ndarray, rng: np.random.Generator,
                        chunk: int = CHUNK) -> np.ndarray:
    """``from_uniform(x, u)`` with one uniform ``u`` per entry of ``x``, block by block.

    The uniforms are drawn in blocks of ``chunk`` from ``rng`` in order, which for numpy's
    generators yields exactly the values of one ``rng.random(x.size)`` call: the output does
    not depend on ``chunk``. Blocks keep the arithmetic in cache (about twice as fast as
    whole-array passes at 10^7 entries; ``benchmarks/throughput.py``). Working on 1-d blocks
    also keeps in-place arithmetic valid for 0-d ``x``.

    Parameters
    ----------
    from_uniform : callable
        ``(x_block, u_block) -> y_block``, both 1-d of the same length; may reuse
        ``u_block`` as scratch.
    x : ndarray
        Validated inputs, any shape.
    rng : numpy.random.Generator
    chunk : int
        Block length.
    """
    flat = x.reshape(-1)
    out = np.empty(flat.size)
    u = np.empty(min(chunk, flat.size))
    for start in range(0, flat.size, chunk):
        stop = min(start + chunk, flat.size)
        block = u[: stop - start]
        rng.random(out=block)
        out[start:stop] = from_uniform(flat[start:stop], block)
    return out.reshape(x.shape)


@dataclass(frozen=True)
class OutputLaw:
    """Exact law of a mechanism's output for one input: atoms plus a continuous part.

    The continuous part has log-density ``logpdf`` (weighted by its mass, so atoms and
    density together integrate to 1). Contract used by the exact privacy audit: between
    consecutive ``breakpoints``, and beyond the outermost ones, ``logpdf`` is an affine
    function of ``y`` (constant for the piecewise mechanisms, linear for Laplace), and it is
    ``-inf`` outside ``support``.

    Parameters
    ----------
    atoms, masses : ndarray
        Output values with positive probability and their probabilities.
    breakpoints : ndarray
        Sorted points where the continuous log-density may jump or change slope.
    support : tuple of float
        Closed support of the continuous part (may be infinite); ``(nan, nan)`` if none.
    logpdf : callable or None
        Log-density of the continuous part, vectorized.
    """

    atoms: np.ndarray = field(default_factory=lambda: _EMPTY)
    masses: np.ndarray = field(default_factory=lambda: _EMPTY)
    breakpoints: np.ndarray = field(default_factory=lambda: _EMPTY)
    support: tuple = (np.nan, np.nan)
    logpdf: Callable[[np.ndarray], np.ndarray] | None = None

    @classmethod
    def discrete(cls, atoms, masses) -> OutputLaw:
        """A law with atoms only."""
        return cls(atoms=np.asarray(atoms, float), masses=np.asarray(masses, float))

    @classmethod
    def piecewise_constant(cls, edges, densities, atoms=_EMPTY, masses=_EMPTY) -> OutputLaw:
        """A law whose continuous part has density ``densities[i]`` on
        ``[edges[i], edges[i+1])``."""
        edges = np.asarray(edges, float)
        dens = np.asarray(densities, float)
        if edges.ndim != 1 or dens.shape != (edges.size - 1,) or np.any(np.diff(edges) < 0):
            raise ValueError("edges must be increasing with len(edges) == len(densities) + 1")
        with np.errstate(divide="ignore"):
            logd = np.log(dens)

        def logpdf(y):
            y = np.asarray(y, float)
            idx = np.clip(np.searchsorted(edges, y, side="right") - 1, 0, dens.size - 1)
            inside = (y >= edges[0]) & (y <= edges[-1])
            return np.where(inside, logd[idx], -np.inf)

        return cls(atoms=np.asarray(atoms, float), masses=np.asarray(masses, float),
                   breakpoints=edges, support=(edges[0], edges[-1]), logpdf=logpdf)

    @property
    def has_density(self) -> bool:
        return self.logpdf is not None

    def _pieces(self):
        """Intervals between consecutive breakpoints, tails included, within the support."""
        lo, hi = self.support
        pts = np.unique(np.concatenate([[lo], self.breakpoints, [hi]]))
        pts = pts[(pts >= lo) & (pts <= hi)]
        return list(zip(pts[:-1], pts[1:]))

    def expect(self, fn: Callable[[np.ndarray], np.ndarray]) -> float:
        """``E[fn(Y)]`` by exact sums over atoms and adaptive quadrature on each piece."""
        total = float(np.sum(self.masses * fn(self.atoms))) if self.atoms.size else 0.0
        logpdf = self.logpdf
        if logpdf is not None:  # has_density
            for a, b in self._pieces():
                val, _ = integrate.quad(lambda y: fn(np.asarray(y)) * np.exp(logpdf(y)),
                                        a, b, epsabs=1e-13, epsrel=1e-12, limit=200)
                total += val
        return total

    def mass(self) -> float:
        """Total probability (1 for a valid law)."""
        return self.expect(np.ones_like)

    def mean(self) -> float:
        return self.expect(lambda y: y)

    def var(self) -> float:
        m = self.mean()
        return self.expect(lambda y: (y - m) ** 2)


class ScalarMechanism(ABC):
    """Base class of the unbiased scalar mechanisms on [-1, 1].

    Subclasses implement ``_privatize``, ``_variance``, ``worst_case_variance`` and
    ``_output_law`` on validated input; the public methods validate.

    Parameters
    ----------
    epsilon : float
        Privacy budget, finite, > 0 and at most :attr:`max_epsilon`.

    Attributes
    ----------
    max_epsilon : float
        The largest budget the closed forms handle in float64 (``inf`` when there is no
        limit); a larger ``epsilon`` is refused with a message naming both.
    """

    name: str = "abstract"
    #: Display name in tables and figures (None: the book's label for ``name``, else ``name``).
    label: str | None = None
    max_epsilon: float = float("inf")

    def __init__(self, epsilon: float):
        self.epsilon = self.check_budget(epsilon)

    @classmethod
    def check_budget(cls, epsilon) -> float:
        """``epsilon`` as a float: finite, > 0 and at most :attr:`max_epsilon`."""
        eps = check_epsilon(epsilon)
        if eps > cls.max_epsilon:
            raise ValueError(f"{cls.name} supports epsilon up to {cls.max_epsilon:g} (its "
                             f"closed forms overflow float64 beyond it), got epsilon={eps:g}")
        return eps

    def __repr__(self) -> str:
        return f"{type(self).__name__}(epsilon={self.epsilon:g})"

    def privatize(self, x, rng: np.random.Generator, clip: bool = False) -> np.ndarray:
        """Draw one private output per entry of ``x`` (same shape as ``x``).

        Parameters
        ----------
        x : array_like
            Inputs in [-1, 1].
        rng : numpy.random.Generator
            Source of randomness.
        clip : bool
            Clip inputs to [-1, 1] instead of refusing values outside it.
        """
        arr = check_unit_interval(x, "x", clip=clip)
        return np.asarray(self._privatize(arr, check_rng(rng)))

    def variance(self, x) -> np.ndarray:
        """Closed-form ``Var[Y | x]`` (same shape as ``x``)."""
        return self._variance(check_unit_interval(x, "x"))

    def output_law(self, x: float) -> OutputLaw:
        """Exact law of ``Y | x`` for one input ``x``."""
        arr = check_unit_interval(x, "x")
        if arr.ndim != 0:
            raise ValueError("output_law takes one scalar input x")
        return self._output_law(float(arr))

    @abstractmethod
    def _privatize(self, x: np.ndarray, rng: np.random.Generator) -> np.ndarray: ...

    @abstractmethod
    def _variance(self, x: np.ndarray) -> np.ndarray: ...

    @abstractmethod
    def worst_case_variance(self) -> float:
        """``max_{x in [-1, 1]} Var[Y | x]`` in closed form."""

    @abstractmethod
    def _output_law(self, x: float) -> OutputLaw: ...
