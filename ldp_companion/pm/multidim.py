"""Multiple numeric attributes: Alg. 6 (Eq. (36), Lemmas 12–14) and the two baselines.

Sec. VI of the PM/Three-Outputs paper (with Appendices R–T) and the baselines of Sec. VII-A.
A user holds ``x`` in ``[-1, 1]^d``.

* **Alg. 6** (after Wang et al.): sample ``k = max(1, min(d, floor(eps / 2.5)))`` of the
  ``d`` attributes without replacement, perturb each with a scalar mechanism at budget
  ``eps / k``, scale by ``d / k``, report 0 elsewhere. Unbiased and ``eps``-LDP (Lemma 12);
  per coordinate ``Var[y_j] = (d/k) E[Y^2 | x_j; eps/k] - x_j^2``.
* **Laplace split** (baseline): every attribute gets ``x_j + Lap(2 d / eps)`` (budget
  ``eps / d`` each), variance ``8 d^2 / eps^2``.
* **Duchi et al.'s multi-dimensional mechanism** (baseline): output ``B s`` with ``s`` in
  ``{-1, 1}^d``; for even ``d`` the ties ``s . v = 0`` must be split (each tie point gets
  mass ``2^-d``). The "ties in ``T^-``" transcription breaks ``eps``-LDP and is available
  as ``ties="minus"`` only to show that.

Mechanism arguments are a registered scalar mechanism name (:func:`~ldp_companion.get_mechanism`)
or a callable ``epsilon -> ScalarMechanism`` (e.g. a discretized mechanism). The functions
that take any name (:func:`estimate_mean`, :func:`per_coordinate_variance`,
:func:`expected_mse`) also accept the baselines :data:`LAPLACE_SPLIT` and :data:`DUCHI_MD`.
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from ldp_companion.mechanisms import REGISTRY, get_mechanism
from ldp_companion.mechanisms.base import ScalarMechanism
from ldp_companion.validation import (
    check_epsilon,
    check_positive_int,
    check_rng,
    check_unit_interval,
)

__all__ = ["K_THRESHOLD", "LAPLACE_SPLIT", "DUCHI_MD", "multidim_names", "choose_k",
           "resolve_mechanism", "alg6_privatize", "alg6_variance", "alg6_output_law",
           "alg6_privacy_ratio", "laplace_split_privatize", "duchi_md_constant",
           "duchi_md_privatize", "duchi_md_law", "duchi_md_privacy_ratio", "estimate_mean",
           "per_coordinate_variance", "expected_mse", "lemma13_scale", "max_second_moment",
           "k_rule_objective", "k_rule_argmin"]

#: Eq. (36): the per-attribute budget ``eps / k`` should be about 2.5 (Appendix S, Fig. 28;
#: the number is lost from the paper's text and rebuilt here after Wang et al. [8]).
K_THRESHOLD = 2.5
#: Baseline name: Laplace with budget ``eps / d`` on every attribute.
LAPLACE_SPLIT = "laplace_split"
#: Baseline name: Duchi et al.'s multi-dimensional mechanism (split ties).
DUCHI_MD = "duchi_md"
_TIES = ("split", "minus")


def multidim_names() -> list[str]:
    """Names accepted by :func:`estimate_mean`: the registered scalar mechanisms under Alg. 6,
    then the two baselines."""
    return list(REGISTRY) + [LAPLACE_SPLIT, DUCHI_MD]


# --------------------------------------------------------------------------- checks

def _check_tuples(X, clip: bool = False) -> np.ndarray:
    """``X`` as a float (n, d) array in [-1, 1], n, d >= 1."""
    arr = check_unit_interval(X, "X", clip=clip)
    if arr.ndim != 2 or arr.shape[0] < 1 or arr.shape[1] < 1:
        raise ValueError(f"X must be a 2-D array (n users, d attributes), got shape {arr.shape}")
    return arr


def _check_ties(ties) -> str:
    if ties not in _TIES:
        raise ValueError(f"ties must be one of {_TIES}, got {ties!r}")
    return ties


def choose_k(epsilon: float, d: int, threshold: float = K_THRESHOLD) -> int:
    """Eq. (36): ``k = max(1, min(d, floor(eps / threshold)))`` attributes per user.

    Parameters
    ----------
    epsilon : float
        Total budget, > 0.
    d : int
        Number of attributes, >= 1.
    threshold : float
        Target per-attribute budget (2.5 in the paper, after Wang et al.).
    """
    eps = check_epsilon(epsilon)
    d = check_positive_int(d, "d")
    thr = check_epsilon(threshold, "threshold")
    return max(1, min(d, int(math.floor(eps / thr))))


def _resolve_k(k, epsilon: float, d: int) -> int:
    if k is None:
        return choose_k(epsilon, d)
    k = check_positive_int(k, "k")
    if k > d:
        raise ValueError(f"k must be <= d = {d}, got {k}")
    return k


def resolve_mechanism(mechanism, epsilon: float) -> ScalarMechanism:
    """A scalar mechanism at budget ``epsilon`` from a registered name or a factory.

    Parameters
    ----------
    mechanism : str or callable
        A name of :func:`~ldp_companion.mechanisms.mechanism_names`, or a callable
        ``epsilon -> ScalarMechanism``.
    """
    if isinstance(mechanism, str):
        if mechanism in (LAPLACE_SPLIT, DUCHI_MD):
            raise ValueError(f"{mechanism!r} is a multi-dimensional baseline, not a scalar "
                             "mechanism for Alg. 6")
        return get_mechanism(mechanism, epsilon)
    if callable(mechanism):
        mech = mechanism(epsilon)
        if not isinstance(mech, ScalarMechanism):
            raise TypeError("a mechanism factory must return a ScalarMechanism, got "
                            f"{type(mech).__name__}")
        return mech
    raise TypeError("mechanism must be a registered name or a callable epsilon -> "
                    f"ScalarMechanism, got {type(mechanism).__name__}")


# --------------------------------------------------------------------------- Alg. 6

def _alg6_sample(X, mech: ScalarMechanism, k: int, rng):
    """Sampled columns ``(n, k)`` and their reports ``(d/k) M(x_j, eps/k)``, shape ``(n, k)``.

    Never builds an ``(n, d)`` noise matrix; for ``k > 1`` the ``k`` distinct columns are the
    ``k`` smallest of ``d`` uniform keys per user (uniform without replacement).
    """
    n, d = X.shape
    if k == 1:
        cols = rng.integers(d, size=(n, 1))
    else:
        cols = np.argpartition(rng.random((n, d)), k - 1, axis=1)[:, :k]
    vals = np.take_along_axis(X, cols, axis=1)
    return cols, (d / k) * mech.privatize(vals, rng)


def alg6_privatize(X, epsilon: float, mechanism, rng: np.random.Generator, *, k=None,
                   clip: bool = False) -> np.ndarray:
    """Alg. 6: each user's report, shape ``(n, d)``, ``k`` non-zero entries per row at most.

    Parameters
    ----------
    X : array_like, shape (n, d)
        One tuple per user, entries in [-1, 1].
    epsilon : float
        Total budget per user.
    mechanism : str or callable
        Scalar mechanism (see :func:`resolve_mechanism`), run at ``epsilon / k``.
    rng : numpy.random.Generator
    k : int, optional
        Attributes per user; default Eq. (36) (:func:`choose_k`).
    clip : bool
        Clip ``X`` to [-1, 1] instead of refusing values outside it.

    Returns
    -------
    ndarray, shape (n, d)
        ``y_j = (d/k) M(x_j, eps/k)`` on the sampled attributes, 0 elsewhere (Lemma 12:
        ``E[y] = x``).
    """
    X = _check_tuples(X, clip)
    eps = check_epsilon(epsilon)
    rng = check_rng(rng)
    k = _resolve_k(k, eps, X.shape[1])
    cols, vals = _alg6_sample(X, resolve_mechanism(mechanism, eps / k), k, rng)
    out = np.zeros_like(X)
    np.put_along_axis(out, cols, vals, axis=1)
    return out


def alg6_variance(X, epsilon: float, mechanism, *, k=None) -> np.ndarray:
    """``Var[y_j] = (d/k) E[Y^2 | x_j; eps/k] - x_j^2`` for every entry (Lemma 12; Lemma 14
    for Three-Outputs), shape ``(n, d)``."""
    return _alg6_variance(_check_tuples(X), check_epsilon(epsilon), mechanism, k)


def _alg6_variance(X, eps: float, mechanism, k) -> np.ndarray:
    """:func:`alg6_variance` on checked arguments."""
    d = X.shape[1]
    k = _resolve_k(k, eps, d)
    mech = resolve_mechanism(mechanism, eps / k)
    return (d / k) * (mech.variance(X) + X**2) - X**2


def alg6_output_law(x, epsilon: float, mechanism, *, k=None):
    """Exact law of Alg. 6's report for one tuple ``x`` and a discrete scalar mechanism.

    Sums over the ``C(d, k)`` subsets and the atoms of each sampled coordinate. A sampled
    coordinate reporting 0 gives the same vector as an unsampled one, and those merge.

    Returns
    -------
    outputs : ndarray, shape (n_outputs, d)
    probs : ndarray, shape (n_outputs,)
    """
    x = check_unit_interval(x, "x")
    if x.ndim != 1 or x.size < 1:
        raise ValueError(f"x must be one tuple (1-D, d >= 1), got shape {x.shape}")
    eps = check_epsilon(epsilon)
    d = x.size
    k = _resolve_k(k, eps, d)
    mech = resolve_mechanism(mechanism, eps / k)
    laws = [mech.output_law(float(v)) for v in x]
    if any(law.has_density for law in laws):
        raise ValueError("alg6_output_law needs a mechanism with a discrete output (atoms)")
    law: dict[tuple, float] = {}
    p_subset = 1.0 / math.comb(d, k)
    for subset in itertools.combinations(range(d), k):
        choices = [zip(laws[j].atoms, laws[j].masses) for j in subset]
        for combo in itertools.product(*choices):
            y = [0.0] * d
            prob = p_subset
            for j, (atom, mass) in zip(subset, combo):
                y[j] = (d / k) * atom + 0.0   # + 0.0 turns -0.0 into 0.0
                prob *= mass
            law[tuple(y)] = law.get(tuple(y), 0.0) + prob
    outputs = np.array(list(law.keys()), dtype=float)
    return outputs, np.array(list(law.values()))


def alg6_privacy_ratio(d: int, epsilon: float, mechanism="three_outputs", *, k=None,
                       x_points=(-1.0, 0.0, 1.0)) -> float:
    """``max_y max_{x, x'} P(y | x) / P(y | x')`` of Alg. 6 over ``x`` in ``x_points^d``.

    Exact for mechanisms whose pmf is affine on [-1, 0] and on [0, 1] (Duchi,
    Three-Outputs): then ``P(y | x)`` is multi-affine on each orthant, so the extremes over
    ``[-1, 1]^d`` sit at points with coordinates in {-1, 0, 1}. Lemma 12: at most ``e^eps``.
    Enumerates ``3^d`` inputs; meant for ``d <= 4``.
    """
    d = check_positive_int(d, "d")
    pts = np.unique(check_unit_interval(x_points, "x_points"))
    table: dict[tuple, list] = {}
    inputs = list(itertools.product(pts, repeat=d))
    for i, x in enumerate(inputs):
        outputs, probs = alg6_output_law(np.array(x), epsilon, mechanism, k=k)
        for y, p in zip(map(tuple, outputs), probs):
            table.setdefault(y, [0.0] * len(inputs))[i] = p
    P = np.array(list(table.values()))
    if np.any(P <= 0):
        return math.inf
    return float(np.max(P.max(axis=1) / P.min(axis=1)))


# --------------------------------------------------------------------------- baselines

def laplace_split_privatize(X, epsilon: float, rng: np.random.Generator, *,
                            clip: bool = False) -> np.ndarray:
    """Laplace baseline: ``x_j + Lap(2 d / eps)`` on all ``d`` attributes (budget ``eps/d``
    each: approach (i) of Sec. VI, (ii) of Sec. VII-A); variance ``8 d^2 / eps^2`` per
    coordinate."""
    return _laplace_split(_check_tuples(X, clip), check_epsilon(epsilon), check_rng(rng))


def _laplace_split(X, eps: float, rng) -> np.ndarray:
    """:func:`laplace_split_privatize` on checked arguments."""
    return X + rng.laplace(0.0, 2.0 * X.shape[1] / eps, size=X.shape)


def duchi_md_constant(d: int, epsilon: float) -> float:
    """``B = (E + 1)/(E - 1) * 2^{d-1} / C(d - 1, floor(d/2))``.

    Duchi et al.'s constant [22], as used by Wang et al. [8]; not given in the paper, whose
    Sec. VI (ii) only names the mechanism.

    With it the report is unbiased and ``Var = B^2 - x_j^2`` per coordinate.
    """
    d = check_positive_int(d, "d")
    eps = check_epsilon(epsilon)
    return (2.0 ** (d - 1) / math.comb(d - 1, d // 2)) / math.tanh(eps / 2.0)


def _duchi_md_signs(X, rng):
    """Step 1: ``v_j`` in {-1, 1} with ``P(v_j = 1) = (1 + x_j) / 2``."""
    return np.where(rng.random(X.shape) < 0.5 * (1.0 + X), 1.0, -1.0)


def _uniform_signs(shape, rng):
    return np.where(rng.random(shape) < 0.5, 1.0, -1.0)


def duchi_md_privatize(X, epsilon: float, rng: np.random.Generator, *, ties: str = "split",
                       clip: bool = False) -> np.ndarray:
    """Duchi et al.'s multi-dimensional mechanism, shape ``(n, d)``, entries ``±B``.

    Parameters
    ----------
    X : array_like, shape (n, d)
    epsilon : float
    rng : numpy.random.Generator
    ties : {"split", "minus"}
        ``"split"`` (correct): draw ``s`` uniform; a tie ``s . v = 0`` is reported as is
        (mass ``2^-d`` per tie point); otherwise with ``s+ = sgn(s . v) s`` report ``B s+``
        with probability ``E/(E+1)``, else ``-B s+``. ``"minus"`` (broken, for
        demonstration): uniform on ``T+ = {s . v > 0}`` with probability ``E/(E+1)``, else
        uniform on ``T- = {s . v <= 0}``; for even ``d`` its privacy ratio exceeds ``e^eps``
        (see :func:`duchi_md_privacy_ratio`) and it is biased.
    clip : bool
        Clip ``X`` to [-1, 1] instead of refusing values outside it.
    """
    return _duchi_md(_check_tuples(X, clip), check_epsilon(epsilon), check_rng(rng),
                     _check_ties(ties))


def _duchi_md(X, eps: float, rng, ties: str) -> np.ndarray:
    """:func:`duchi_md_privatize` on checked arguments."""
    n, d = X.shape
    v = _duchi_md_signs(X, rng)
    plus = rng.random(n) < math.exp(eps) / (math.exp(eps) + 1.0)
    if ties == "split":
        s = _uniform_signs(X.shape, rng)
        dot = np.einsum("ij,ij->i", s, v)
        sign = np.where(dot == 0, 1.0, np.sign(dot) * np.where(plus, 1.0, -1.0))
        return duchi_md_constant(d, eps) * s * sign[:, None]
    s = np.empty_like(X)
    todo = np.arange(n)
    while todo.size:  # rejection sampling: T+ has probability >= 1/4, T- >= 1/2
        cand = _uniform_signs((todo.size, d), rng)
        dot = np.einsum("ij,ij->i", cand, v[todo])
        cand *= np.where(dot < 0, -1.0, 1.0)[:, None]      # map onto dot >= 0
        dot = np.abs(dot)
        want_plus = plus[todo]
        # T+: keep dot > 0. T-: negate (dot <= 0) and keep strict points w.p. 1/2 so that
        # strict and tie points are equally likely.
        keep = np.where(want_plus, dot > 0, (dot == 0) | (rng.random(todo.size) < 0.5))
        cand[~want_plus] *= -1.0
        s[todo[keep]] = cand[keep]
        todo = todo[~keep]
    return duchi_md_constant(d, eps) * s


def duchi_md_law(d: int, epsilon: float, ties: str = "split"):
    """Exact ``P(s | v)`` of Duchi et al.'s multi-dimensional mechanism on ``{-1, 1}^d``.

    Returns
    -------
    signs : ndarray, shape (2^d, d)
        All sign vectors (rows index both ``v`` and the output ``s``).
    P : ndarray, shape (2^d, 2^d)
        ``P[a, b] = P(s = signs[b] | v = signs[a])``. With ``ties="split"``:
        ``2E / ((E+1) 2^d)`` on ``s . v > 0``, ``2 / ((E+1) 2^d)`` on ``s . v < 0``,
        ``2^-d`` on ties. With ``ties="minus"``: uniform ``E/(E+1)`` on ``T+`` and
        ``1/(E+1)`` on ``T- = {s . v <= 0}``.
    """
    d = check_positive_int(d, "d")
    eps = check_epsilon(epsilon)
    ties = _check_ties(ties)
    E = math.exp(eps)
    signs = np.array(list(itertools.product([-1.0, 1.0], repeat=d)))
    dot = signs @ signs.T
    if ties == "split":
        P = np.where(dot > 0, 2 * E, np.where(dot < 0, 2.0, E + 1.0)) / ((E + 1.0) * 2.0**d)
    else:
        n_plus = (dot > 0).sum(axis=1, keepdims=True)
        P = np.where(dot > 0, E / ((E + 1.0) * n_plus), 1.0 / ((E + 1.0) * (2**d - n_plus)))
    return signs, P


def duchi_md_privacy_ratio(d: int, epsilon: float, ties: str = "split") -> float:
    """``max_s max_{x, x'} P(s | x) / P(s | x')`` by enumeration of ``{-1, 1}^d``.

    ``P(s | x)`` is a mixture over ``v`` with weights multi-affine in ``x``, so the extremes
    are at the vertices ``x = v``. ``e^eps`` with split ties; with ``ties="minus"`` and even
    ``d`` it is ``3 e^eps`` (d = 2), ``2.2 e^eps`` (d = 4), ``1.65 e^eps`` (d = 10).
    Enumerates a ``2^d x 2^d`` table; meant for ``d <= 12``.
    """
    _, P = duchi_md_law(d, epsilon, ties)
    return float(np.max(P.max(axis=0) / P.min(axis=0)))


# --------------------------------------------------------------------------- mean estimation

def estimate_mean(X, epsilon: float, mechanism, rng: np.random.Generator, *, k=None,
                  ties: str = "split", clip: bool = False) -> np.ndarray:
    """The aggregator's estimate of the column means of ``X`` from one report per user.

    Alg. 6 reports are aggregated with :func:`numpy.bincount` over the sampled columns, so no
    ``(n, d)`` noise matrix is built (an implementation choice); the baselines
    :data:`LAPLACE_SPLIT` and :data:`DUCHI_MD` perturb all ``d`` attributes.

    Parameters
    ----------
    X : array_like, shape (n, d)
        Entries in [-1, 1].
    epsilon : float
        Budget per user.
    mechanism : str or callable
        A name of :func:`multidim_names` or a factory ``epsilon -> ScalarMechanism``.
    rng : numpy.random.Generator
    k : int, optional
        Alg. 6's attributes per user (default Eq. (36)); ignored by the baselines.
    ties : {"split", "minus"}
        Only for :data:`DUCHI_MD` (see :func:`duchi_md_privatize`).
    clip : bool
        Clip ``X`` to [-1, 1] instead of refusing values outside it.

    Returns
    -------
    ndarray, shape (d,)
    """
    return _estimate_mean(_check_tuples(X, clip), check_epsilon(epsilon), mechanism,
                          check_rng(rng), k, _check_ties(ties))


def _estimate_mean(X, eps: float, mechanism, rng, k=None, ties: str = "split") -> np.ndarray:
    """:func:`estimate_mean` on checked arguments (the hot path of the experiment grids)."""
    if isinstance(mechanism, str) and mechanism == LAPLACE_SPLIT:
        return _laplace_split(X, eps, rng).mean(axis=0)
    if isinstance(mechanism, str) and mechanism == DUCHI_MD:
        return _duchi_md(X, eps, rng, ties).mean(axis=0)
    n, d = X.shape
    k = _resolve_k(k, eps, d)
    cols, vals = _alg6_sample(X, resolve_mechanism(mechanism, eps / k), k, rng)
    return np.bincount(cols.ravel(), weights=vals.ravel(), minlength=d) / n


def per_coordinate_variance(X, epsilon: float, mechanism, *, k=None) -> np.ndarray:
    """``Var[y_ij]`` of one user's report, shape ``(n, d)``, for any :func:`multidim_names`.

    Alg. 6: :func:`alg6_variance`; Duchi-md: ``B^2 - x^2``; Laplace split: ``8 d^2/eps^2``.
    """
    return _per_coordinate_variance(_check_tuples(X), check_epsilon(epsilon), mechanism, k)


def _per_coordinate_variance(X, eps: float, mechanism, k=None) -> np.ndarray:
    """:func:`per_coordinate_variance` on checked arguments."""
    d = X.shape[1]
    if isinstance(mechanism, str) and mechanism == LAPLACE_SPLIT:
        return np.full_like(X, 8.0 * d**2 / eps**2)
    if isinstance(mechanism, str) and mechanism == DUCHI_MD:
        return duchi_md_constant(d, eps) ** 2 - X**2
    return _alg6_variance(X, eps, mechanism, k)


def expected_mse(X, epsilon: float, mechanism, *, k=None) -> float:
    """Expected MSE of :func:`estimate_mean`: ``(1 / (n^2 d)) sum_j sum_i Var[y_ij]``.

    Not given in the paper; derived here from the per-coordinate variance of Lemma 12.
    """
    return _expected_mse(_check_tuples(X), check_epsilon(epsilon), mechanism, k)


def _expected_mse(X, eps: float, mechanism, k=None) -> float:
    """:func:`expected_mse` on checked arguments."""
    var = _per_coordinate_variance(X, eps, mechanism, k)
    return float(var.mean() / var.shape[0])


def lemma13_scale(n: int, d: int, epsilon: float) -> float:
    """Lemma 13's rate ``sqrt(d ln d) / (eps sqrt(n))`` (needs ``d >= 2``).

    With probability ``1 - beta``, ``max_j |mean_j(y) - mean_j(x)| = O(sqrt(d log(d/beta)) /
    (eps sqrt(n)))``; our simulations find the ratio of the two between 1.7 and 2.8.
    """
    n = check_positive_int(n, "n")
    d = check_positive_int(d, "d")
    if d < 2:
        raise ValueError(f"d must be >= 2 for the ln d rate, got {d}")
    return math.sqrt(d * math.log(d)) / (check_epsilon(epsilon) * math.sqrt(n))


# --------------------------------------------------------------------------- choice of k

def max_second_moment(mechanism: ScalarMechanism) -> float:
    """``max_x E[Y^2 | x] = max_x (Var[Y | x] + x^2)``, exact.

    For every registered mechanism the second moment is quadratic in ``x`` on [-1, 0] and on
    [0, 1]; a :class:`~ldp_companion.pm.discretize.Discretized` mechanism supplies
    its own knots.
    """
    from ldp_companion.pm.discretize import _max_piecewise_quadratic

    if not isinstance(mechanism, ScalarMechanism):
        raise TypeError(f"mechanism must be a ScalarMechanism, got {type(mechanism).__name__}")
    knots = mechanism.knots() if hasattr(mechanism, "knots") else np.array([-1.0, 0.0, 1.0])
    return float(_max_piecewise_quadratic(lambda x: mechanism.variance(x) + x**2, knots))


def k_rule_objective(mechanism, eps1) -> np.ndarray:
    """``h(eps1) = eps1 * max_x E[Y^2 | x; eps1]``, Appendix S's objective; vectorized.

    The paper's text lost the formula (Eq. (166), Fig. 28); derived here: under Alg. 6 with
    ``k = eps / eps1`` the worst per-coordinate variance is
    ``(d / k) max E[Y^2] - x^2 = (d / eps) h(eps1) - x^2``, so the best per-attribute
    budget minimises ``h``.
    """
    e1 = np.atleast_1d(np.asarray(eps1, float))
    out = np.array([e * max_second_moment(resolve_mechanism(mechanism, float(e))) for e in e1])
    return out.reshape(np.shape(eps1)) if np.ndim(eps1) else out[0]


def k_rule_argmin(mechanism, lo: float = 0.5, hi: float = 8.0, n_grid: int = 301):
    """``(argmin, min)`` of :func:`k_rule_objective` on ``[lo, hi]``: the best grid point of
    ``n_grid``, refined by a bounded scalar search between its neighbours."""
    from scipy import optimize

    lo, hi = check_epsilon(lo, "lo"), check_epsilon(hi, "hi")
    grid = np.linspace(lo, hi, check_positive_int(n_grid, "n_grid"))
    vals = k_rule_objective(mechanism, grid)
    i = int(np.argmin(vals))
    a, b = grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]
    res = optimize.minimize_scalar(lambda e: float(k_rule_objective(mechanism, e)),
                                   bounds=(a, b), method="bounded", options={"xatol": 1e-8})
    return (float(res.x), float(res.fun)) if res.fun <= vals[i] else (float(grid[i]),
                                                                       float(vals[i]))
