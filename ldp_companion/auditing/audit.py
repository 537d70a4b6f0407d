"""Measure the epsilon a mechanism really gives.

Two audits, one view:

* **Exact audit** (:func:`exact_audit`, :func:`law_log_ratio`). From the exact output law
  (:class:`~ldp_companion.mechanisms.base.OutputLaw`) of a scalar mechanism, compute
  ``sup_y log p(y | x) / p(y | x')`` over a grid of input pairs. No sampling error: this
  is the epsilon the implementation's law gives, to rounding.
* **Empirical audit** (:func:`empirical_audit`). For any mechanism we can only sample from
  (scalar, vector or image outputs), a one-sided **lower confidence bound** on epsilon,
  in the style of Jagielski, Ullman and Oprea (2020) and Nasr et al. (2021): reduce each
  output to a scalar statistic, pick a rejection region on one half of the samples, and
  bound the ratio of the region's probabilities under ``x`` and ``x'`` on the other half
  with Clopper--Pearson intervals.
* **Distinguishing-attack view** (:func:`best_test_accuracy`, :func:`ldp_accuracy_bound`).
  Kairouz, Oh and Viswanath (2015): under epsilon-LDP no test between ``x`` and ``x'``
  with balanced priors is right more than ``e^eps / (1 + e^eps)`` of the time.
"""
from __future__ import annotations

import numbers
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from scipy import special, stats

from ldp_companion.mechanisms.base import OutputLaw, ScalarMechanism
from ldp_companion.validation import (
    check_epsilon,
    check_positive_int,
    check_rng,
    check_unit_interval,
)

__all__ = [
    "law_log_ratio", "exact_audit", "ExactAudit",
    "Region", "EmpiricalAudit", "empirical_audit", "mechanism_sampler", "loop_sampler",
    "additive_laplace_sampler", "projection_statistic", "clopper_pearson",
    "best_test_accuracy", "ldp_accuracy_bound", "plot_audit", "allowed_exceedances",
    "audit_samplers", "largest_excess",
]

# Breakpoints closer than this (relative) are merged: they are the same point up to
# rounding, and the sliver between them would otherwise pair one law's value on one side
# with the other law's value on the other side.
_MERGE_RTOL = 1e-12
# A tail whose log ratio grows by more than this (relative) per span is unbounded.
_SLOPE_RTOL = 1e-9
# A statistic with at most this many distinct values is treated as discrete.
_MAX_ATOMS = 64
# Atoms of two laws closer than this (relative) are the same output.
_ATOM_RTOL = 1e-12


# --------------------------------------------------------------------------------------
# Exact audit
# --------------------------------------------------------------------------------------

def _atom_log_ratio(p: OutputLaw, q: OutputLaw) -> tuple[float, float]:
    """Largest ``log P_p(y) / P_q(y)`` over the atoms of ``p`` (``+inf`` if ``q`` lacks one)."""
    keep = p.masses > 0
    atoms, masses = p.atoms[keep], p.masses[keep]
    if atoms.size == 0:
        return -np.inf, np.nan
    same = np.isclose(atoms[:, None], q.atoms[None, :], rtol=_ATOM_RTOL, atol=_ATOM_RTOL)
    q_masses = (same * q.masses[None, :]).sum(axis=1)
    with np.errstate(divide="ignore"):
        ratio = np.log(masses) - np.log(q_masses)
    i = int(np.argmax(ratio))
    return float(ratio[i]), float(atoms[i])


def _cut_points(p: OutputLaw, q: OutputLaw) -> np.ndarray:
    """Union of both laws' breakpoints and finite support ends, near-duplicates merged."""
    parts = [p.breakpoints, np.asarray(p.support, float)]
    if q.has_density:
        parts += [q.breakpoints, np.asarray(q.support, float)]
    pts = np.unique(np.concatenate([np.ravel(a) for a in parts]))
    pts = pts[np.isfinite(pts)]
    if pts.size == 0:
        return np.zeros(1)
    gap_ok = np.diff(pts) > _MERGE_RTOL * np.maximum(1.0, np.abs(pts[1:]))
    return pts[np.concatenate([[True], gap_ok])]


def _density_log_ratio(p: OutputLaw, q: OutputLaw) -> tuple[float, float]:
    """Largest ``log p(y) / q(y)`` over the continuous part of ``p``.

    Between consecutive cut points (and on each tail) both log-densities are affine, so
    their difference ``f`` is affine there: its supremum over a cell is one of its limits
    at the cell's ends. We evaluate ``f`` at two interior points (1/3 and 2/3 of the cell,
    so no value is read at a jump) and extrapolate linearly to both ends. On a tail ``f``
    is unbounded if it grows towards infinity. A cell where ``p`` is positive and ``q`` is
    zero gives ``+inf``; a cell where ``p`` is zero is skipped.
    """
    if not p.has_density:
        return -np.inf, np.nan
    pts = _cut_points(p, q)
    span = max(1.0, pts[-1] - pts[0])
    a = np.concatenate([[pts[0] - span], pts])       # cell starts (left tail first)
    b = np.concatenate([pts, [pts[-1] + span]])      # cell ends (right tail last)
    y1, y2 = a + (b - a) / 3.0, a + 2.0 * (b - a) / 3.0
    lp1, lp2 = p.logpdf(y1), p.logpdf(y2)
    if q.has_density:
        lq1, lq2 = q.logpdf(y1), q.logpdf(y2)
    else:
        lq1 = lq2 = np.full_like(y1, -np.inf)
    p_pos = np.isfinite(lp1) & np.isfinite(lp2)
    q_pos = np.isfinite(lq1) & np.isfinite(lq2)
    with np.errstate(invalid="ignore"):
        f1, f2 = lp1 - lq1, lp2 - lq2
        fa, fb = 2.0 * f1 - f2, 2.0 * f2 - f1         # exact limits of an affine f
    tol = _SLOPE_RTOL * np.maximum(1.0, np.maximum(np.abs(f1), np.abs(f2)))
    grows_out = np.zeros(a.size, bool)
    grows_out[0], grows_out[-1] = fa[0] > fb[0] + tol[0], fb[-1] > fa[-1] + tol[-1]
    value = np.where(p_pos & ~q_pos, np.inf, np.maximum(fa, fb))
    value = np.where(p_pos & q_pos & grows_out, np.inf, value)
    value = np.where(p_pos, value, -np.inf)
    i = int(np.argmax(value))
    return float(value[i]), _arg_point(a[i], b[i], fa[i], fb[i], tol[i], i, a.size)


def _arg_point(a, b, fa, fb, tol, i, n_cells) -> float:
    """An output attaining a cell's value: the end it is reached at, else the midpoint."""
    if i == 0 and fa > fb + tol:
        return -np.inf
    if i == n_cells - 1 and fb > fa + tol:
        return np.inf
    if fa > fb + tol:
        return float(a)
    if fb > fa + tol:
        return float(b)
    return float(0.5 * (a + b))


def law_log_ratio(law_x: OutputLaw, law_x2: OutputLaw) -> tuple[float, float]:
    """Exact ``sup_y log p(y | x) / p(y | x')`` between two output laws.

    Atoms are compared mass by mass (an atom of ``law_x`` that ``law_x2`` lacks gives
    ``+inf``); the continuous parts are compared on every cell between consecutive
    breakpoints of either law and on both tails, using the :class:`OutputLaw` contract
    that each log-density is affine there (see :func:`_density_log_ratio`).

    Parameters
    ----------
    law_x, law_x2 : OutputLaw
        Laws of the output for inputs ``x`` and ``x'``.

    Returns
    -------
    log_ratio : float
        The supremum; ``+inf`` if some output is possible under ``x`` but not ``x'``.
    y : float
        An output attaining it (a cell's end is reported as the limit point; ``±inf``
        for an unbounded tail).
    """
    if not isinstance(law_x, OutputLaw) or not isinstance(law_x2, OutputLaw):
        raise TypeError("law_log_ratio takes two OutputLaw objects")
    atom = _atom_log_ratio(law_x, law_x2)
    dens = _density_log_ratio(law_x, law_x2)
    return atom if atom[0] >= dens[0] else dens


@dataclass(frozen=True)
class ExactAudit:
    """Result of :func:`exact_audit`.

    Attributes
    ----------
    epsilon : float
        ``max`` over ordered grid pairs of the exact log ratio (may be ``inf``).
    x, x_prime, y : float
        The inputs and output attaining it.
    claimed_epsilon : float
        The mechanism's stated budget.
    """

    epsilon: float
    x: float
    x_prime: float
    y: float
    claimed_epsilon: float

    @property
    def flagged(self) -> bool:
        """True if the audited epsilon exceeds the claim by more than 1e-9 (relative)."""
        return bool(self.epsilon > self.claimed_epsilon * (1.0 + 1e-9))


def _default_grid() -> np.ndarray:
    return np.arange(-20, 21) / 20.0                # 41 points, -1, 0 and 1 exact


def exact_audit(mechanism: ScalarMechanism, x_grid=None) -> ExactAudit:
    """Exact privacy loss of a scalar mechanism over all ordered pairs of a grid.

    Parameters
    ----------
    mechanism : ScalarMechanism
        Anything with ``output_law(x)`` and ``epsilon``.
    x_grid : array_like, optional
        Inputs in [-1, 1], at least two distinct. Default: 41 points from -1 to 1 in
        steps of 0.05 (both ends and 0 included).

    Returns
    -------
    ExactAudit
    """
    if not isinstance(mechanism, ScalarMechanism):
        raise TypeError(f"mechanism must be a ScalarMechanism, got {type(mechanism).__name__}")
    grid = _default_grid() if x_grid is None else check_unit_interval(x_grid, "x_grid")
    grid = np.unique(np.ravel(grid))
    if grid.size < 2:
        raise ValueError("x_grid needs at least two distinct inputs")
    laws = [mechanism.output_law(float(x)) for x in grid]
    best = (-np.inf, 0, 1, np.nan)
    for i, law_i in enumerate(laws):
        for j, law_j in enumerate(laws):
            if i != j:
                val, y = law_log_ratio(law_i, law_j)
                if val > best[0]:
                    best = (val, i, j, y)
    val, i, j, y = best
    return ExactAudit(epsilon=float(val), x=float(grid[i]), x_prime=float(grid[j]),
                      y=float(y), claimed_epsilon=float(mechanism.epsilon))


# --------------------------------------------------------------------------------------
# Empirical audit
# --------------------------------------------------------------------------------------

Sampler = Callable[[np.ndarray, int, np.random.Generator], np.ndarray]


def mechanism_sampler(mechanism: ScalarMechanism) -> Sampler:
    """Batched sampler ``(x, n, rng) -> (n, *x.shape)`` for a :class:`ScalarMechanism`."""
    if not isinstance(mechanism, ScalarMechanism):
        raise TypeError(f"mechanism must be a ScalarMechanism, got {type(mechanism).__name__}")

    def sample(x, n, rng):
        x = np.asarray(x, float)
        return mechanism.privatize(np.broadcast_to(x, (n,) + x.shape), rng)

    return sample


def additive_laplace_sampler(scale: float) -> Sampler:
    """Batched sampler of ``x + Lap(scale)`` on every entry, for inputs of any shape.

    Two inputs differing by ``delta_i`` in entry ``i`` have privacy loss exactly
    ``sum_i |delta_i| / scale`` -- a tensor mechanism whose true epsilon is known.
    """
    scale = check_epsilon(scale, "scale")

    def sample(x, n, rng):
        x = np.asarray(x, float)
        return x + rng.laplace(0.0, scale, size=(n,) + x.shape)

    return sample


def loop_sampler(mech: Callable[[np.ndarray, np.random.Generator], np.ndarray]) -> Sampler:
    """Batched sampler from a one-draw function ``mech(x, rng) -> output``.

    For mechanisms that cannot draw a batch; it calls ``mech`` once per output, so it is
    slow. Prefer writing ``sampler(x, n, rng)`` directly.
    """
    if not callable(mech):
        raise TypeError("mech must be callable as mech(x, rng)")

    def sample(x, n, rng):
        return np.stack([np.asarray(mech(x, rng), float) for _ in range(n)])

    return sample


def projection_statistic(x, x_prime) -> Callable[[np.ndarray], np.ndarray]:
    """The statistic ``s(y) = <y, x - x'>`` (flattened), vectorized over a batch.

    For additive noise with a log-concave, direction-symmetric density (Gaussian; Laplace
    along one coordinate) this is the likelihood-ratio statistic between ``x`` and ``x'``,
    so threshold sets on it are the most powerful tests.
    """
    direction = (np.asarray(x, float) - np.asarray(x_prime, float)).ravel()
    if not np.any(direction):
        raise ValueError("x and x_prime are equal: the projection statistic needs them to "
                         "differ (pass a statistic)")
    shape = np.shape(x)

    def statistic(y):
        y = np.asarray(y, float)
        if y.shape[1:] != shape:
            raise ValueError(f"the projection statistic needs outputs of shape {shape} (the "
                             f"inputs' shape), got {y.shape[1:]}; pass a statistic")
        return y.reshape(y.shape[0], -1) @ direction

    return statistic


def clopper_pearson(k, n, alpha):
    """One-sided Clopper--Pearson bounds for a binomial proportion.

    Returns ``(lower, upper)`` with ``P(p >= lower) >= 1 - alpha`` and, separately,
    ``P(p <= upper) >= 1 - alpha``; vectorized over ``k``.
    """
    k = np.asarray(k, float)
    with np.errstate(invalid="ignore"):
        lower = stats.beta.ppf(alpha, np.maximum(k, 1), n - k + 1)
        upper = stats.beta.ppf(1.0 - alpha, k + 1, np.maximum(n - k, 1))
    return np.where(k <= 0, 0.0, lower), np.where(k >= n, 1.0, upper)


def _log_ratio_lower(k_num, k_den, n, alpha, delta=0.0):
    """``log((lower(p_num) - delta) / upper(p_den))`` from counts out of ``n`` (``-inf`` when
    the lower bound does not exceed ``delta``)."""
    lower, _ = clopper_pearson(k_num, n, alpha)
    _, upper = clopper_pearson(k_den, n, alpha)
    with np.errstate(divide="ignore"):
        return np.log(np.maximum(lower - delta, 0.0)) - np.log(upper)


def _wilson_log_ratio_lower(k_num, k_den, n, z, delta=0.0):
    """Fast stand-in for :func:`_log_ratio_lower` (Wilson score bounds at ``z``), used
    only to rank candidate regions; the reported bound is always Clopper--Pearson."""
    def wilson(k, sign):
        p = np.asarray(k, float) / n
        centre = p + z * z / (2 * n)
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
        return (centre + sign * half) / (1 + z * z / n)
    with np.errstate(divide="ignore"):
        return (np.log(np.maximum(wilson(k_num, -1) - delta, 0.0))
                - np.log(wilson(k_den, +1)))


@dataclass(frozen=True)
class Region:
    """A rejection region ``{s  op  threshold}`` on the scalar statistic."""

    op: str
    threshold: float

    _OPS = {">=": np.greater_equal, "<": np.less, "<=": np.less_equal, ">": np.greater,
            "==": np.equal, "!=": np.not_equal}

    def contains(self, s) -> np.ndarray:
        """Boolean mask of the statistics inside the region."""
        return self._OPS[self.op](np.asarray(s), self.threshold)

    def __str__(self) -> str:
        return f"S {self.op} {self.threshold:.6g}"


@dataclass(frozen=True)
class EmpiricalAudit:
    """Result of :func:`empirical_audit`.

    Attributes
    ----------
    epsilon_lower : float
        Lower confidence bound on epsilon (at least 0; ``inf`` is impossible).
    epsilon_hat : float
        Point estimate ``log(count_num / count_den)`` on the held-out half.
    region : Region
        Rejection region chosen on the first half.
    swapped : bool
        False: the bound is on ``log P(S in R | x) / P(S in R | x')``; True: on the
        reverse ratio.
    count_x, count_x_prime : int
        Held-out outputs in the region, under ``x`` and under ``x'``.
    n : int
        Outputs drawn per input (half select the region, the rest are held out).
    n_holdout : int
        Held-out outputs per input.
    confidence : float
        ``P(epsilon_lower > true epsilon) <= 1 - confidence``.
    claimed_epsilon : float or None
        The budget the mechanism claims, if given.
    delta : float
        The δ of the (ε, δ) bound (0: pure ε).
    """

    epsilon_lower: float
    epsilon_hat: float
    region: Region
    swapped: bool
    count_x: int
    count_x_prime: int
    n: int
    n_holdout: int
    confidence: float
    claimed_epsilon: float | None = None
    delta: float = 0.0
    stat_x: np.ndarray = field(default=None, repr=False, compare=False)
    stat_x_prime: np.ndarray = field(default=None, repr=False, compare=False)

    @property
    def flagged(self) -> bool:
        """True if the lower bound exceeds the claimed epsilon (a privacy violation)."""
        return self.claimed_epsilon is not None and self.epsilon_lower > self.claimed_epsilon

    @property
    def test_accuracy(self) -> float:
        """Accuracy of the best threshold test on the held-out statistics."""
        return best_test_accuracy(self.stat_x, self.stat_x_prime)


def _check_confidence(confidence) -> float:
    if isinstance(confidence, bool) or not isinstance(confidence, numbers.Real):
        raise TypeError(f"confidence must be a real number, got {type(confidence).__name__}")
    value = float(confidence)
    if not 0.0 < value < 1.0:
        raise ValueError(f"confidence must lie in the open interval (0, 1), got {confidence!r}")
    return value


def _check_inputs(x, x_prime) -> tuple[np.ndarray, np.ndarray]:
    arrs = []
    for name, v in (("x", x), ("x_prime", x_prime)):
        a = np.asarray(v)
        if a.dtype == bool or not (np.issubdtype(a.dtype, np.integer)
                                   or np.issubdtype(a.dtype, np.floating)):
            raise TypeError(f"{name} must hold real numbers, got dtype {a.dtype}")
        if not np.all(np.isfinite(a)):
            raise ValueError(f"{name} must be finite (no NaN or inf)")
        arrs.append(a.astype(float))
    if arrs[0].shape != arrs[1].shape:
        raise ValueError(f"x and x_prime must have the same shape, got {arrs[0].shape} "
                         f"and {arrs[1].shape}")
    return arrs[0], arrs[1]


def _statistics(sampler, statistic, x, n, rng, batch_size) -> np.ndarray:
    """Draw ``n`` outputs for ``x`` in batches and reduce each to its statistic."""
    out = []
    for start in range(0, n, batch_size):
        m = min(batch_size, n - start)
        y = np.asarray(sampler(x, m, rng))
        if y.ndim == 0 or y.shape[0] != m:
            raise ValueError(f"sampler(x, {m}, rng) must return an array with {m} rows, "
                             f"got shape {y.shape}")
        s = np.asarray(statistic(y), float)
        if s.shape != (m,):
            raise ValueError(f"statistic must map {m} outputs to shape ({m},), got {s.shape}")
        if np.any(np.isnan(s)):
            raise ValueError("statistic returned NaN")
        out.append(s)
    return np.concatenate(out)


def _candidate_thresholds(pooled_sorted: np.ndarray, max_thresholds: int) -> np.ndarray:
    """All distinct values, or a subset dense in the middle and in both tails."""
    values = np.unique(pooled_sorted)
    if values.size <= max(max_thresholds, _MAX_ATOMS):
        return values
    N = pooled_sorted.size
    k = max_thresholds // 4
    ranks = np.concatenate([np.linspace(0, N - 1, 2 * k),
                            np.geomspace(1, N, k) - 1, N - np.geomspace(1, N, k)])
    return np.unique(pooled_sorted[np.clip(ranks.astype(np.int64), 0, N - 1)])


def _region_counts(sx: np.ndarray, sxp: np.ndarray, c: np.ndarray, discrete: bool):
    """Counts of each candidate region under ``x`` and ``x'`` (statistics pre-sorted)."""
    def tails(s):
        lt = np.searchsorted(s, c, side="left")
        le = np.searchsorted(s, c, side="right")
        cols = {">=": s.size - lt, "<": lt, "<=": le, ">": s.size - le}
        if discrete:
            cols.update({"==": le - lt, "!=": s.size - (le - lt)})
        return cols
    return tails(sx), tails(sxp)


def _select_region(sx, sxp, alpha, max_thresholds, delta=0.0) -> tuple[Region, bool]:
    """Region and direction maximizing the epsilon lower bound on the selection half.

    The bounds compared (Wilson score bounds, a fast close match of Clopper--Pearson) are
    simultaneous over all candidates (Bonferroni: level ``alpha`` divided by their
    number), so a far-tail region with a few lucky counts does not beat a broad region
    whose ratio is as large but well estimated.
    """
    sx, sxp = np.sort(sx), np.sort(sxp)
    c = _candidate_thresholds(np.sort(np.concatenate([sx, sxp])), max_thresholds)
    discrete = c.size <= _MAX_ATOMS     # all distinct values were kept
    kx, kxp = _region_counts(sx, sxp, c, discrete)
    z = stats.norm.isf(alpha / (2 * len(kx) * c.size))
    best = (-np.inf, Region(">=", float(c[0])), False)
    for op in kx:
        for swapped in (False, True):
            num, den = (kxp[op], kx[op]) if swapped else (kx[op], kxp[op])
            score = _wilson_log_ratio_lower(num, den, sx.size, z, delta)
            i = int(np.argmax(score))
            if score[i] > best[0]:
                best = (score[i], Region(op, float(c[i])), swapped)
    return best[1], best[2]


def empirical_audit(sampler, x, x_prime, n: int, rng: np.random.Generator, *,
                    statistic: Callable[[np.ndarray], np.ndarray] | None = None,
                    confidence: float = 0.95, claimed_epsilon: float | None = None,
                    batch_size: int | None = None,
                    max_thresholds: int = 2000, delta: float = 0.0) -> EmpiricalAudit:
    """Lower confidence bound on the epsilon of a mechanism, from samples.

    Draw ``n`` outputs under ``x`` and ``n`` under ``x'``; reduce each to a scalar
    statistic ``S``. On the first half of each sample choose a rejection region ``R``
    (``{S >= c}``, ``{S > c}``, ``{S <= c}``, ``{S < c}``, and for statistics with at most
    64 distinct values ``{S == c}``, ``{S != c}``) and a direction (``x`` over ``x'`` or the
    reverse) maximizing the bound below on that half. On the held-out half, count
    ``k`` and ``k'`` outputs in ``R`` and report

        ``log( CP_lower(k) / CP_upper(k') )``

    with one-sided Clopper--Pearson bounds, each at level ``(1 - confidence) / 2``
    (Bonferroni), clipped below at 0. This is the auditing recipe of Jagielski, Ullman and
    Oprea (2020) and Nasr et al. (2021), for the pure-LDP case.

    **Guarantee.** If the mechanism is epsilon-LDP then for every fixed region
    ``P(S in R | x) <= e^eps P(S in R | x')`` (post-processing), and both directions.
    The region and direction depend on the first half only, which is independent of the
    held-out half; conditionally on them the two Clopper--Pearson bounds both hold with
    probability at least ``confidence`` (union bound), and then the reported value is at
    most ``log(P(R | num) / P(R | den)) <= eps``. Integrating over the first half,
    ``P(epsilon_lower > eps) <= 1 - confidence``. Choosing the region on the same data
    used for the bound would void this.

    Parameters
    ----------
    sampler : callable or ScalarMechanism
        ``sampler(x, m, rng)`` returning ``m`` independent outputs for input ``x`` as an
        array of shape ``(m, *output_shape)``. A :class:`ScalarMechanism` is wrapped with
        :func:`mechanism_sampler` (and its epsilon is the default claim). Wrap a one-draw
        function ``M(x, rng)`` with :func:`loop_sampler`.
    x, x_prime : array_like
        The two inputs, of equal shape (scalars, vectors, images...).
    n : int
        Outputs per input, >= 2.
    rng : numpy.random.Generator
        Source of randomness (the sampler's and nothing else).
    statistic : callable, optional
        Maps a batch of outputs ``(m, *output_shape)`` to ``(m,)`` reals. Default
        :func:`projection_statistic` ``<y, x - x'>``.
    confidence : float
        In (0, 1).
    claimed_epsilon : float, optional
        Budget to compare against (sets :attr:`EmpiricalAudit.flagged`).
    batch_size : int, optional
        Outputs per sampler call; default keeps a batch near 2**23 numbers.
    max_thresholds : int
        Most candidate thresholds tried in the selection half.
    delta : float
        For an (ε, δ) guarantee: ``P(R | x) <= e^ε P(R | x') + δ`` for every region, so the
        bound becomes ``log((CP_lower(k) - δ) / CP_upper(k'))``. Default 0 (pure ε).

    Returns
    -------
    EmpiricalAudit
    """
    if isinstance(sampler, ScalarMechanism):
        claimed_epsilon = sampler.epsilon if claimed_epsilon is None else claimed_epsilon
        sampler = mechanism_sampler(sampler)
    if not callable(sampler):
        raise TypeError("sampler must be callable as sampler(x, n, rng) or a ScalarMechanism")
    x, x_prime = _check_inputs(x, x_prime)
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise TypeError(f"n must be an integer, got {type(n).__name__}")
    if n < 2:
        raise ValueError(f"n must be >= 2 (half the samples choose the region), got {n}")
    n = int(n)
    rng = check_rng(rng)
    confidence = _check_confidence(confidence)
    statistic = projection_statistic(x, x_prime) if statistic is None else statistic
    if not callable(statistic):
        raise TypeError("statistic must be callable")
    if batch_size is None:
        batch_size = max(1, 2**23 // max(1, x.size))
    batch_size = check_positive_int(batch_size, "batch_size")
    max_thresholds = check_positive_int(max_thresholds, "max_thresholds")
    if isinstance(delta, bool) or not isinstance(delta, numbers.Real) or not 0 <= delta < 1:
        raise ValueError(f"delta must be in [0, 1), got {delta!r}")

    sx = _statistics(sampler, statistic, x, n, rng, batch_size)
    sxp = _statistics(sampler, statistic, x_prime, n, rng, batch_size)
    half, alpha = n // 2, (1.0 - confidence) / 2.0
    region, swapped = _select_region(sx[:half], sxp[:half], alpha, max_thresholds, delta)
    hx, hxp = sx[half:], sxp[half:]
    kx, kxp = int(region.contains(hx).sum()), int(region.contains(hxp).sum())
    num, den = (kxp, kx) if swapped else (kx, kxp)
    bound = float(_log_ratio_lower(num, den, hx.size, alpha, delta))
    with np.errstate(divide="ignore", invalid="ignore"):
        estimate = float(np.log(num) - np.log(den))
    return EmpiricalAudit(epsilon_lower=max(0.0, bound), epsilon_hat=estimate, region=region,
                          swapped=swapped, count_x=kx, count_x_prime=kxp, n=n,
                          n_holdout=hx.size, confidence=confidence,
                          claimed_epsilon=claimed_epsilon, delta=float(delta), stat_x=hx,
                          stat_x_prime=hxp)


# --------------------------------------------------------------------------------------
# Distinguishing-attack view
# --------------------------------------------------------------------------------------

def best_test_accuracy(stat_x, stat_x_prime=None) -> float:
    """Accuracy of the best threshold test between ``x`` and ``x'`` (balanced priors).

    The test says "x" when ``S > c`` (or when ``S <= c``); its balanced accuracy is
    ``(1 + |F_x'(c) - F_x(c)|) / 2``, maximized over ``c``: half of one plus the
    Kolmogorov--Smirnov distance. Computed on the given samples (an
    :class:`EmpiricalAudit`'s held-out half), so it is an estimate, slightly optimistic
    (by ``O(1/sqrt(n))``) since ``c`` is fitted to them.

    Parameters
    ----------
    stat_x : array_like or EmpiricalAudit
        Statistics under ``x``; or an audit, whose held-out statistics are used.
    stat_x_prime : array_like, optional
        Statistics under ``x'`` (not given with an audit).
    """
    if isinstance(stat_x, EmpiricalAudit):
        stat_x, stat_x_prime = stat_x.stat_x, stat_x.stat_x_prime
    a = np.sort(np.ravel(np.asarray(stat_x, float)))
    b = np.sort(np.ravel(np.asarray(stat_x_prime, float)))
    if a.size == 0 or b.size == 0:
        raise ValueError("best_test_accuracy needs statistics under both inputs")
    c = np.concatenate([a, b])
    gap = np.abs(np.searchsorted(a, c, "right") / a.size - np.searchsorted(b, c, "right") / b.size)
    return float(0.5 * (1.0 + gap.max()))


def ldp_accuracy_bound(epsilon):
    """``e^eps / (1 + e^eps)``: no test between two inputs of an eps-LDP mechanism is
    right more often, with balanced priors (Kairouz, Oh and Viswanath 2015: false alarm
    ``a`` and miss ``b`` satisfy ``a + e^eps b >= 1`` and ``e^eps a + b >= 1``).

    Vectorized; ``epsilon >= 0`` (``inf`` gives 1).
    """
    eps = np.asarray(epsilon, float)
    if np.any(np.isnan(eps)) or np.any(eps < 0):
        raise ValueError("epsilon must be >= 0")
    out = special.expit(eps)
    return float(out) if out.ndim == 0 else out


def plot_audit(claimed, audited, ax=None, labels=None, cap: float = np.inf):
    """Claimed epsilon (x axis) against audited epsilon (y axis), with the diagonal.

    Points above the diagonal break their claim and are drawn as red crosses; audited values
    at or above ``cap`` (infinite ones always) are red upward triangles at the top of the axes,
    and the legend says which. The legend sits below the axes, clear of the points.

    Parameters
    ----------
    claimed, audited : array_like
        Same length.
    ax : matplotlib.axes.Axes, optional
        Drawn into; a new figure otherwise.
    labels : sequence of str, optional
        One annotation per point.
    cap : float, optional
        Audited values at or above it are drawn at the top (default: only infinite ones).

    Returns
    -------
    matplotlib.axes.Axes
    """
    import matplotlib.pyplot as plt

    claimed = np.atleast_1d(np.asarray(claimed, float))
    audited = np.atleast_1d(np.asarray(audited, float))
    if claimed.shape != audited.shape:
        raise ValueError("claimed and audited must have the same length")
    if labels is not None and len(labels) != claimed.size:
        raise ValueError("labels must have one entry per point")
    if ax is None:
        _, ax = plt.subplots(figsize=(4.5, 4.5))
    finite = np.isfinite(audited) & (audited < cap)
    capped = np.isfinite(cap) and (~finite).any()  # points drawn at the top: the top is ≥ cap
    top = 1.1 * max(claimed.max(), audited[finite].max() if finite.any() else 0.0,
                    cap if capped else 0.0, 1e-9)
    ax.plot([0, top], [0, top], color="0.5", linestyle="--", linewidth=1, label="audited = claimed")
    above = audited > claimed
    for sel, marker, colour, text in ((finite & ~above, "o", "#0077bb", "within claim"),
                                      (finite & above, "x", "#cc3311", "above claim (flagged)"),
                                      (~finite, "^", "#cc3311", "audited = ∞" if np.isinf(cap)
                                       else f"audited ≥ {cap:g} (at the top)")):
        if sel.any():
            ax.scatter(claimed[sel], np.where(finite[sel], audited[sel], top), marker=marker,
                       color=colour, zorder=3, label=text)
    for i, text in enumerate(labels or []):
        ax.annotate(text, (claimed[i], audited[i] if finite[i] else top), fontsize=9,
                    xytext=(3, 3), textcoords="offset points")
    ax.set_xlim(0, top)
    ax.set_ylim(0, top * 1.05)
    ax.set_xlabel("claimed ε")
    ax.set_ylabel("audited ε")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.25), ncol=2, fontsize=9)
    return ax


def allowed_exceedances(n_audits: int, confidence: float = 0.95, level: float = 0.999) -> int:
    """How many of ``n_audits`` independent audits of correct mechanisms may exceed the truth.

    Each audit's lower bound exceeds the true epsilon with probability at most
    ``1 - confidence``, so the count of exceedances is stochastically below
    Binomial(n_audits, 1 - confidence); this returns that binomial's ``level`` quantile.
    A larger count is evidence (at ``1 - level``) that a mechanism breaks its claim.
    """
    from scipy import stats

    if isinstance(n_audits, bool) or not isinstance(n_audits, (int, np.integer)) or n_audits < 1:
        raise ValueError(f"n_audits must be a positive integer, got {n_audits!r}")
    _check_confidence(confidence)
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    return int(stats.binom.ppf(level, n_audits, 1.0 - confidence))


def largest_excess(audits):
    """Per mechanism, the largest ``audited lower bound - claimed ε`` of
    :func:`audit_samplers`' table: above 0 where the mechanism is flagged; what a chapter's
    ledger compares with 0."""
    gap = audits["audited lower bound"] - audits["claimed ε"]
    return gap.groupby(audits["mechanism"], sort=False).max()


def audit_samplers(mechanisms: dict, eps_grid, n: int, rng: np.random.Generator, *,
                   family_error: float = 0.05, x: float = 1.0, x_prime: float = -1.0):
    """Empirical audit of several mechanisms' samplers at several budgets, judged per mechanism.

    Each audit's lower bound is taken at confidence ``1 - family_error / (number of audits)``
    (Bonferroni), so that a set of correct samplers is flagged anywhere with probability at
    most ``family_error``; a mechanism is flagged when any of its bounds exceeds its claim. A
    sampler that breaks its claim at every budget is then caught once per mechanism, not
    diluted in a pooled count.

    Parameters
    ----------
    mechanisms : dict
        ``name -> factory``, ``factory(epsilon)`` returning a :class:`ScalarMechanism`.
    eps_grid : sequence of float
        Claimed budgets.
    n : int
        Outputs per input of each audit.
    rng : numpy.random.Generator
    family_error : float
        Chance that any correct sampler is flagged.
    x, x_prime : float
        The pair of inputs audited.

    Returns
    -------
    DataFrame with columns ``mechanism, claimed ε, audited lower bound, flagged`` (one row per
    audit).
    """
    import pandas as pd

    eps_grid = [check_epsilon(e) for e in eps_grid]
    if not 0.0 < family_error < 1.0:
        raise ValueError(f"family_error must be in (0, 1), got {family_error!r}")
    confidence = 1.0 - family_error / (len(mechanisms) * len(eps_grid))
    rows = []
    for name, factory in mechanisms.items():
        for eps in eps_grid:
            res = empirical_audit(mechanism_sampler(factory(eps)), x, x_prime, n, rng,
                                  confidence=confidence)
            rows.append({"mechanism": name, "claimed ε": eps,
                         "audited lower bound": res.epsilon_lower,
                         "flagged": bool(res.epsilon_lower > eps)})
    return pd.DataFrame(rows)
