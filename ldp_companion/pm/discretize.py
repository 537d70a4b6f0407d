"""Discretization post-processing of a continuous output (Alg. 5, Lemmas 8–9).

Sec. V-D of the PM/Three-Outputs paper. A continuous output ``Y`` in
``[-A, A]`` is rounded at random onto the grid ``z_i = i A / m``, ``i = -m, ..., m``
(``2m + 1`` outputs): if ``Y`` lies in ``[z_i, z_{i+1}]`` the result is ``z_{i+1}`` with
probability ``(Y - z_i) m / A`` and ``z_i`` otherwise (Lemma 8, Eq. (35)). So
``E[Z | Y] = Y`` and the variance grows by ``E[(Y - z_i)(z_{i+1} - Y)] >= 0`` (Lemma 9).

The paper's "number of segments" (Sec. VII-C) may mean ``m`` or ``2m``, so everything here
is parametrized by the number of outputs ``2m + 1`` (odd, >= 3): our choice.

For the hybrids HM and HM-TP only the continuous branch (PM or PM-SUB) is discretized, on its
own ``[-A, A]``; the Three-Outputs / Duchi atoms are kept (our choice: Sec. VII-C discretizes
HM and HM-TP without saying how).

Exact law. With ``h = A / m`` and the hat function ``phi_i(y) = max(0, 1 - |y - z_i| / h)``,
``P(Z = z_i | Y = y) = phi_i(y)``, so ``P(Z = z_i | x) = int f(y | x) phi_i(y) dy``. The density
of the piecewise family is ``q = p / E`` on ``[-A, A]`` plus ``p - q`` on the band
``[L(x), R(x)]``, and the hat's antiderivative is the piecewise quadratic :func:`_hat_cdf`.
"""
from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from ldp_companion.mechanisms.base import OutputLaw, ScalarMechanism
from ldp_companion.mechanisms.hybrid import Mixture
from ldp_companion.mechanisms.piecewise import Piecewise
from ldp_companion.validation import check_epsilon, check_rng

__all__ = ["Discretized", "discretize", "discretized", "check_n_outputs",
           "worst_case_by_outputs", "DISCRETIZABLE"]

#: Registered mechanisms with a continuous branch that Alg. 5 applies to.
DISCRETIZABLE = ("pm", "pm_sub", "pm_opt", "hm", "hm_tp")


def check_n_outputs(n_outputs) -> int:
    """Return ``n_outputs`` as an int after checking it is odd and >= 3 (``2m + 1``, m >= 1)."""
    if isinstance(n_outputs, bool) or not isinstance(n_outputs, numbers.Integral):
        raise TypeError(f"n_outputs must be an integer, got {type(n_outputs).__name__}")
    if n_outputs < 3 or n_outputs % 2 == 0:
        raise ValueError(f"n_outputs must be odd and >= 3 (2m + 1 outputs), got {n_outputs}")
    return int(n_outputs)


def discretize(y, A: float, n_outputs: int, rng: np.random.Generator) -> np.ndarray:
    """Alg. 5: round each ``y`` in ``[-A, A]`` at random onto the grid ``{i A / m}``.

    Parameters
    ----------
    y : array_like
        Continuous outputs, every entry in ``[-A, A]``.
    A : float
        Half-width of the output range, > 0.
    n_outputs : int
        Number of grid points ``2m + 1`` (odd, >= 3).
    rng : numpy.random.Generator

    Returns
    -------
    ndarray
        Same shape as ``y``; every entry is exactly ``i * (A / m)`` for an integer
        ``|i| <= m``, and ``E[Z | y] = y`` (Lemma 8, Eq. (35)).
    """
    A = check_epsilon(A, "A")
    m = (check_n_outputs(n_outputs) - 1) // 2
    rng = check_rng(rng)
    arr = np.asarray(y, dtype=np.float64)
    if not np.all(np.isfinite(arr)) or (arr.size and np.abs(arr).max() > A):
        raise ValueError(f"y must be finite and lie in [-A, A] = [{-A:.6g}, {A:.6g}]")
    h = A / m
    s = (arr + A) / h                        # position in cells, in [0, 2m]
    cell = np.minimum(np.floor(s), 2 * m - 1)
    up = rng.random(arr.shape) < (s - cell)  # P(up) = (y - z_i) m / A
    return (cell - m + up) * h


def _hat_cdf(u):
    """``T(u) = int_{-inf}^u max(0, 1 - |s|) ds``: 0, ``(1+u)^2/2``, ``1-(1-u)^2/2``, 1."""
    u = np.clip(u, -1.0, 1.0)
    return np.where(u < 0.0, 0.5 * (1.0 + u) ** 2, 1.0 - 0.5 * (1.0 - u) ** 2)


def _gap_integral(y, A: float, h: float, m: int):
    """``G(y) = int_{-A}^y (s - z_lo(s)) (z_lo(s) + h - s) ds``, ``z_lo`` the grid point below.

    Each full cell contributes ``h^3 / 6``; a partial cell of length ``r`` contributes
    ``r^2 h / 2 - r^3 / 3``.
    """
    s = (np.asarray(y, float) + A) / h
    cells = np.clip(np.floor(s), 0, 2 * m - 1)
    r = (s - cells) * h
    return cells * h**3 / 6.0 + r * r * (0.5 * h - r / 3.0)


def _max_piecewise_quadratic(f, knots):
    """Max over ``x`` in ``[knots[0], knots[-1]]`` of ``f(x)`` (each column), ``f`` quadratic
    between consecutive ``knots``.

    On each piece, with ``u`` in [-1, 1] the position relative to the midpoint, ``f`` is
    ``f_mid + b u + g u^2`` with ``b = (f_b - f_a)/2``, ``g = (f_a + f_b)/2 - f_mid``; its
    interior maximum is ``f_mid - b^2 / (4 g)`` when ``g < 0`` and ``|b / (2 g)| < 1``.
    Since ``|b| < 2|g|`` there, the vertex value is within ``|g|`` of ``f_mid``: no
    cancellation blow-up on short pieces.
    """
    a, b = knots[:-1], knots[1:]
    fa, fm, fb = f(a), f(0.5 * (a + b)), f(b)
    slope = 0.5 * (fb - fa)
    curv = 0.5 * (fa + fb) - fm
    with np.errstate(divide="ignore", invalid="ignore"):
        inside = (curv < 0) & (np.abs(slope) < -2.0 * curv)
        vertex = np.where(inside, fm - slope**2 / (4.0 * curv), -np.inf)
    return np.max(np.maximum(np.maximum(fa, fb), vertex), axis=0)


class Discretized(ScalarMechanism):
    """A piecewise mechanism (or the continuous branch of a hybrid) followed by Alg. 5.

    Parameters
    ----------
    mechanism : Piecewise or Mixture
        PM / PM-SUB / PM-OPT (any member of the family of Eqs. (26)–(32)), or HM / HM-TP;
        for a :class:`~ldp_companion.mechanisms.hybrid.Mixture` only its piecewise branch is
        discretized.
    n_outputs : int
        Grid size ``2m + 1`` (odd, >= 3).

    Notes
    -----
    ``Var[Z | x] = Var[Y | x] + q m h^3 / 3 + (p - q)(G(R(x)) - G(L(x)))`` for the piecewise
    branch (``G`` the integral of the rounding variance ``(y - z_i)(z_{i+1} - y)``, see
    :func:`_gap_integral`), and the hybrid mixes it with Three-Outputs' variance. Between the
    knots where ``L(x)`` or ``R(x)`` crosses a grid point (and ``x = 0``, Three-Outputs'
    kink) the variance and every ``P(Z = z_i | x)`` are quadratic in ``x``, so
    :meth:`worst_case_variance` and :meth:`privacy_ratio` are exact maxima over those pieces.
    """

    name = "discretized"

    def __init__(self, mechanism, n_outputs: int):
        if isinstance(mechanism, Piecewise):
            self.piecewise, self.three_outputs, self.weight = mechanism, None, 1.0
        elif isinstance(mechanism, Mixture):
            self.piecewise = mechanism.piecewise
            self.three_outputs, self.weight = mechanism.three_outputs, mechanism.weight
        else:
            raise TypeError("Discretized takes a Piecewise (pm, pm_sub, pm_opt) or a Mixture "
                            f"(hm, hm_tp), got {type(mechanism).__name__}")
        super().__init__(mechanism.epsilon)
        self.base = mechanism
        self.n_outputs = check_n_outputs(n_outputs)
        self.m = (self.n_outputs - 1) // 2
        self.A = self.piecewise.A
        self.h = self.A / self.m
        self.grid = (np.arange(2 * self.m + 1) - self.m) * self.h  # as :func:`discretize`

    def __repr__(self) -> str:
        return f"Discretized({self.base!r}, n_outputs={self.n_outputs})"

    # ------------------------------------------------------------------ sampling

    def _privatize(self, x, rng):
        pw = self.piecewise
        if self.three_outputs is None:
            return discretize(pw.privatize(x, rng), self.A, self.n_outputs, rng)
        use_pw = rng.random(x.shape) < self.weight
        out = np.empty_like(x)
        out[use_pw] = discretize(pw.privatize(x[use_pw], rng), self.A, self.n_outputs, rng)
        out[~use_pw] = self.three_outputs.privatize(x[~use_pw], rng)
        return out

    # ------------------------------------------------------------------ exact law

    def grid_pmf(self, x) -> np.ndarray:
        """``P(Z = z_i | x)`` of the discretized piecewise branch, shape ``x.shape + (2m+1,)``.

        ``q h [T((A - z_i)/h) - T((-A - z_i)/h)] + (p - q) h [T((R - z_i)/h) - T((L - z_i)/h)]``
        with ``T`` the hat function's antiderivative (:func:`_hat_cdf`).
        """
        pw, h, z = self.piecewise, self.h, self.grid
        xx = np.asarray(x, float)[..., None]
        q = pw.p / np.exp(self.epsilon)
        full = h * (_hat_cdf((self.A - z) / h) - _hat_cdf((-self.A - z) / h))
        band = h * (_hat_cdf((pw.R(xx) - z) / h) - _hat_cdf((pw.L(xx) - z) / h))
        return q * full + (pw.p - q) * band

    def atoms_and_pmf(self, x):
        """All output values and ``P(Z = value | x)``, shape ``x.shape + (n_values,)``.

        The grid (weight ``w``) plus, for a hybrid with ``w < 1``, the Three-Outputs atoms
        (weight ``1 - w``); the atom 0 is shared with the grid's middle point.
        """
        xx = np.asarray(x, float)
        pmf = self.weight * self.grid_pmf(xx) if self.weight > 0 else None
        if self.three_outputs is None or self.weight == 1.0:
            return self.grid, pmf
        to = self.three_outputs
        probs3 = np.stack(np.broadcast_arrays(*to.probabilities(xx)), axis=-1)
        atoms3 = np.array([-to.C, 0.0, to.C])
        if to.a == 0.0:  # Duchi: no 0 output
            atoms3, probs3 = atoms3[[0, 2]], probs3[..., [0, 2]]
        if pmf is None:
            return atoms3, probs3
        atoms, inv = np.unique(np.concatenate([self.grid, atoms3]), return_inverse=True)
        out = np.zeros(xx.shape + (atoms.size,))
        np.add.at(out, (..., inv[: self.grid.size]), pmf)
        np.add.at(out, (..., inv[self.grid.size:]), (1.0 - self.weight) * probs3)
        return atoms, out

    def _output_law(self, x):
        atoms, pmf = self.atoms_and_pmf(x)
        return OutputLaw.discrete(atoms, pmf)

    # ------------------------------------------------------------------ variance

    def _grid_variance(self, x):
        """``Var[Z | x]`` of the discretized piecewise branch (Lemma 9's added term)."""
        pw, A, h, m = self.piecewise, self.A, self.h, self.m
        q = pw.p / np.exp(self.epsilon)
        added = q * m * h**3 / 3.0 + (pw.p - q) * (_gap_integral(pw.R(x), A, h, m)
                                                  - _gap_integral(pw.L(x), A, h, m))
        return pw._variance(x) + added

    def _variance(self, x):
        w = self.weight
        var = np.zeros(np.shape(x))
        if w > 0:
            var += w * self._grid_variance(x)
        if self.three_outputs is not None and w < 1.0:
            var += (1.0 - w) * self.three_outputs._variance(x)
        return var[()]  # a numpy scalar for a 0-d x, like the other mechanisms

    def knots(self) -> np.ndarray:
        """Inputs in [-1, 1] between which the law is quadratic in ``x``: -1, 0, 1 and the
        ``x`` where ``L(x) = B (t x - 1)`` or ``R(x) = B (t x + 1)`` hits a grid point."""
        pw = self.piecewise
        z_over_b = self.grid / pw.B
        cand = np.concatenate([(z_over_b + 1.0) / pw.t, (z_over_b - 1.0) / pw.t,
                               [-1.0, 0.0, 1.0]])
        return np.unique(cand[np.abs(cand) <= 1.0])

    def worst_case_variance(self) -> float:
        """``max_x Var[Z | x]``, exact: the max of a quadratic on each piece of :meth:`knots`."""
        return float(_max_piecewise_quadratic(self._variance, self.knots()))

    def privacy_ratio(self) -> float:
        """``max_z max_x P(z | x) / min_x P(z | x)``, exact over the pieces of :meth:`knots`.

        Post-processing (Sec. V-D) keeps ``eps``-LDP (Definition 1), so this is at most
        ``e^eps``; it is strictly below for ``m = 1``.
        """
        knots = self.knots()

        def pmf(xs):
            return self.atoms_and_pmf(xs)[1]

        hi = _max_piecewise_quadratic(pmf, knots)
        lo = -_max_piecewise_quadratic(lambda xs: -pmf(xs), knots)
        return float(np.max(hi / lo))


def discretized(name: str, epsilon: float, n_outputs: int) -> Discretized:
    """Registered mechanism ``name`` (one of :data:`DISCRETIZABLE`) followed by Alg. 5."""
    from ldp_companion.mechanisms import get_mechanism

    if name not in DISCRETIZABLE:
        raise ValueError(f"only mechanisms with a continuous output can be discretized: "
                         f"{', '.join(DISCRETIZABLE)}; got {name!r}")
    return Discretized(get_mechanism(name, epsilon), n_outputs)


def worst_case_by_outputs(name: str, eps_grid, outputs_grid) -> pd.DataFrame:
    """Worst-case variance of ``name`` discretized to each number of outputs (Lemma 9).

    Returns a DataFrame indexed by ε with one column per number of outputs and a last column
    ``"continuous"`` (the mechanism without Alg. 5).
    """
    from ldp_companion.mechanisms import get_mechanism

    eps = [check_epsilon(float(e), "eps_grid entries") for e in np.ravel(eps_grid)]
    outs = [check_n_outputs(int(k)) for k in outputs_grid]
    data = {k: [discretized(name, e, k).worst_case_variance() for e in eps] for k in outs}
    data["continuous"] = [get_mechanism(name, e).worst_case_variance() for e in eps]
    return pd.DataFrame(data, index=pd.Index(eps, name="epsilon"))
