"""A black-box lower bound on the ε a mechanism spends, from samples alone (DP-Sniper).

Following Bichsel, Steffen, Bogunovic and Vechev, "DP-Sniper: Black-box discovery of
differential privacy violations using classifiers" (IEEE S&P 2021), implemented here from the
paper. For a pair of inputs ``x, x'`` of a mechanism that we can only run:

1. **Learn a classifier** on ``n_train`` outputs from each input: an estimate of the log
   likelihood ratio ``log p(y | x) / p(y | x')`` of an output (:class:`HistogramRatio`: per
   coordinate, a histogram whose bins are the output's atoms and quantile cells of the rest,
   summed over coordinates as in naive Bayes; or :class:`LogisticRatio`: a logistic regression
   on the flattened output). Its value is the statistic.
2. **Threshold it**: the attack is the set of outputs whose statistic is above (or below) a
   threshold, the most powerful test at its level when the ratio is learned well
   (Neyman-Pearson). DP-Sniper picks the threshold that gives the set a target probability
   under ``x'``; here the threshold and the direction are chosen on a separate split, among
   all thresholds, by :func:`ldp_companion.auditing.audit.empirical_audit`.
3. **Bound**: on fresh outputs, Clopper-Pearson bounds on the set's probability under ``x``
   (lower) and ``x'`` (upper), each at level ``(1 - confidence) / 2``, give
   ``ε ≥ log(lower / upper)`` with probability at least ``confidence``.

Each step uses its own samples, so the bound holds whatever the classifier learned: a poor
classifier gives a weak bound, never a wrong one. Over several candidate pairs
(:func:`dp_sniper`), the pair is chosen on a first, smaller audit of each, and the reported
bound comes from a last audit of the chosen pair on fresh samples.

That guarantee is also tested, not only argued: :func:`auditor_coverage` audits mechanisms of
known ε (:func:`known_mechanisms`) many times and tests, with a one-sided binomial test, whether
the bounds exceed the exact ε more often than ``1 - confidence``. :func:`largest_bound` is the
most a bound from ``n`` outputs can say: an exact ε above it cannot be exceeded.
"""
from __future__ import annotations

import numbers
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from ldp_companion.auditing.audit import (
    EmpiricalAudit,
    clopper_pearson,
    empirical_audit,
    mechanism_sampler,
)
from ldp_companion.mechanisms import get_mechanism
from ldp_companion.mechanisms.base import ScalarMechanism
from ldp_companion.validation import check_positive_int, check_rng

__all__ = ["HistogramRatio", "LogisticRatio", "fit_ratio", "sniper_audit", "dp_sniper",
           "SniperAudit", "CLASSIFIERS", "CONFIDENCE", "largest_bound", "KnownMechanism",
           "known_mechanisms", "GAUSSIAN_KNOWN", "Coverage", "auditor_coverage"]

#: The classifiers :func:`fit_ratio` can learn.
CLASSIFIERS = ("histogram", "logistic")
#: Default confidence of a bound: it exceeds the true ε with probability at most 1 − this.
CONFIDENCE = 0.95


def _flat(y) -> np.ndarray:
    y = np.asarray(y, float)
    return y.reshape(y.shape[0], -1)


class HistogramRatio:
    """Per-coordinate histogram estimate of the log likelihood ratio, summed over coordinates.

    For each coordinate, a value that makes up at least ``atom_share`` of the pooled training
    outputs (an atom: a discrete output, or an entry a mechanism keeps exactly) gets its own
    bin; the other values fall into ``bins`` cells between quantiles of the pooled training
    outputs. A bin's log ratio is ``log((k_x + ½) / (n + ½ B)) - log((k_x' + ½) / (n + ½ B))``
    (``B`` the number of bins, Jeffreys smoothing).
    """

    def __init__(self, yx, yxp, bins: int = 200, atom_share: float = 0.002):
        yx, yxp = _flat(yx), _flat(yxp)
        self.atoms, self.edges, self.tables = [], [], []
        for j in range(yx.shape[1]):
            atoms, edges, table = self._fit_column(yx[:, j], yxp[:, j], bins, atom_share)
            self.atoms.append(atoms)
            self.edges.append(edges)
            self.tables.append(table)

    @staticmethod
    def _cells(column, atoms, edges) -> np.ndarray:
        """Bin index of each value: atoms first (0..a-1), then quantile cells."""
        cell = atoms.size + np.searchsorted(edges, column, side="right")
        if not atoms.size:
            return cell
        where = np.searchsorted(atoms, column)
        is_atom = atoms[np.minimum(where, atoms.size - 1)] == column
        return np.where(is_atom, where, cell)

    def _fit_column(self, cx, cxp, bins, atom_share):
        pooled = np.sort(np.concatenate([cx, cxp]))  # one sort: the values, their counts
        first = np.flatnonzero(np.r_[True, pooled[1:] != pooled[:-1]])
        counts = np.diff(np.r_[first, pooled.size])
        is_atom = counts >= max(2, atom_share * pooled.size)
        atoms = pooled[first[is_atom]]
        rest = pooled[np.repeat(~is_atom, counts)]  # sorted: the quantiles' partition is quick
        edges = (np.unique(np.quantile(rest, np.linspace(0, 1, bins + 1)[1:-1]))
                 if rest.size else np.array([]))
        size = atoms.size + edges.size + 1
        kx = np.bincount(self._cells(cx, atoms, edges), minlength=size)
        kxp = np.bincount(self._cells(cxp, atoms, edges), minlength=size)
        table = (np.log(kx + 0.5) - np.log(cx.size + 0.5 * size)
                 - np.log(kxp + 0.5) + np.log(cxp.size + 0.5 * size))
        return atoms, edges, table

    def __call__(self, y) -> np.ndarray:
        y = _flat(y)
        total = np.zeros(y.shape[0])
        for j, (atoms, edges, table) in enumerate(zip(self.atoms, self.edges, self.tables)):
            total += table[self._cells(y[:, j], atoms, edges)]
        return total


class LogisticRatio:
    """Logistic-regression estimate of the log likelihood ratio on the flattened output
    (scikit-learn, L2-regularised), for outputs whose coordinates are not independent."""

    def __init__(self, yx, yxp, C: float = 1.0):
        from sklearn.linear_model import LogisticRegression

        yx, yxp = _flat(yx), _flat(yxp)
        features = np.vstack([yx, yxp])
        self.mean, self.scale = features.mean(0), features.std(0) + 1e-12
        labels = np.r_[np.ones(len(yx)), np.zeros(len(yxp))]
        self.model = LogisticRegression(C=C, max_iter=500)
        self.model.fit((features - self.mean) / self.scale, labels)

    def __call__(self, y) -> np.ndarray:
        return self.model.decision_function((_flat(y) - self.mean) / self.scale)


def fit_ratio(sampler, x, x_prime, n_train: int, rng, classifier: str = "histogram",
              **options):
    """Learn the statistic of step 1 from ``n_train`` outputs of each input."""
    if classifier not in CLASSIFIERS:
        raise ValueError(f"classifier must be one of {CLASSIFIERS}, got {classifier!r}")
    yx = np.asarray(sampler(np.asarray(x, float), n_train, rng), float)
    yxp = np.asarray(sampler(np.asarray(x_prime, float), n_train, rng), float)
    kind = HistogramRatio if classifier == "histogram" else LogisticRatio
    return kind(yx, yxp, **options)


def sniper_audit(sampler, x, x_prime, n: int, rng, *, n_train: int | None = None,
                 classifier: str = "histogram", confidence: float = CONFIDENCE,
                 claimed_epsilon: float | None = None, delta: float = 0.0,
                 **options) -> EmpiricalAudit:
    """DP-Sniper's bound for one pair: a learned statistic (``n_train`` outputs per input,
    default ``n // 4``), then :func:`~ldp_companion.auditing.audit.empirical_audit` on ``n`` fresh
    outputs per input with that statistic (half choose the threshold, half bound)."""
    sampler, claimed_epsilon = _sampler(sampler, claimed_epsilon)
    n = check_positive_int(n, "n")
    n_train = max(2, n // 4) if n_train is None else check_positive_int(n_train, "n_train")
    rng = check_rng(rng)
    ratio = fit_ratio(sampler, x, x_prime, n_train, rng, classifier, **options)
    return empirical_audit(sampler, x, x_prime, n, rng, statistic=ratio,
                           confidence=confidence, claimed_epsilon=claimed_epsilon, delta=delta)


@dataclass(frozen=True)
class SniperAudit:
    """Result of :func:`dp_sniper`: the chosen pair and the bound of its final audit."""

    x: np.ndarray
    x_prime: np.ndarray
    audit: EmpiricalAudit
    screened: tuple  # (pair index, classifier, screening estimate) of every candidate

    @property
    def epsilon_lower(self) -> float:
        return self.audit.epsilon_lower

    @property
    def flagged(self) -> bool:
        return self.audit.flagged


def _sampler(sampler, claimed_epsilon):
    if isinstance(sampler, ScalarMechanism):
        claimed_epsilon = sampler.epsilon if claimed_epsilon is None else claimed_epsilon
        sampler = mechanism_sampler(sampler)
    if not callable(sampler):
        raise TypeError("sampler must be callable as sampler(x, n, rng) or a ScalarMechanism")
    return sampler, claimed_epsilon


def dp_sniper(sampler, pairs, n: int, rng, *, n_screen: int | None = None,
              classifier="histogram", confidence: float = CONFIDENCE,
              claimed_epsilon: float | None = None, delta: float = 0.0,
              **options) -> SniperAudit:
    """A black-box lower bound on ε over candidate input pairs.

    Parameters
    ----------
    sampler : callable or ScalarMechanism
        ``sampler(x, m, rng)`` returning ``m`` outputs for input ``x``, shape ``(m, ...)``.
    pairs : sequence of (x, x') pairs
        Candidate neighbouring inputs (for an LDP mechanism on [-1, 1]: ``(1, -1)``, ...).
    n : int
        Outputs per input of the final audit (a quarter more train its classifier).
    rng : numpy.random.Generator
    n_screen : int, optional
        Outputs per input of each candidate's screening audit (default ``n // 10``); the
        candidate with the largest screening estimate is audited again on fresh outputs.
    classifier : {"histogram", "logistic"} or a sequence of them
        With several, each (pair, classifier) is screened and the best is audited.
    confidence : float
        The final bound exceeds the true ε with probability at most ``1 - confidence``.
    claimed_epsilon : float, optional
        The budget the mechanism claims (a :class:`ScalarMechanism`'s own by default).
    delta : float
        For an (ε, δ) mechanism (the Gaussian ones): the bound is on ε at this δ.

    Returns
    -------
    SniperAudit
    """
    sampler, claimed_epsilon = _sampler(sampler, claimed_epsilon)
    pairs = [(np.asarray(a, float), np.asarray(b, float)) for a, b in pairs]
    if not pairs:
        raise ValueError("pairs must hold at least one (x, x') pair")
    for a, b in pairs:
        if a.shape != b.shape:
            raise ValueError(f"a pair's inputs must have one shape, got {a.shape} and {b.shape}")
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 8:
        raise ValueError(f"n must be an integer >= 8, got {n!r}")
    kinds = (classifier,) if isinstance(classifier, str) else tuple(classifier)
    bad = [k for k in kinds if k not in CLASSIFIERS]
    if bad or not kinds:
        raise ValueError(f"classifier must be one of {CLASSIFIERS} (or several), got "
                         f"{classifier!r}")
    rng = check_rng(rng)
    n_screen = max(8, n // 10) if n_screen is None else check_positive_int(n_screen, "n_screen")
    candidates = [(i, kind) for i in range(len(pairs)) for kind in kinds]
    screened = []
    for i, kind in candidates if len(candidates) > 1 else []:
        first = sniper_audit(sampler, *pairs[i], n_screen, rng, classifier=kind,
                             confidence=confidence, delta=delta, **options)
        screened.append((i, kind, first.epsilon_hat))
    best = (max(screened, key=lambda s: -np.inf if np.isnan(s[2]) else s[2])[:2]
            if screened else candidates[0])
    a, b = pairs[best[0]]
    final = sniper_audit(sampler, a, b, n, rng, classifier=best[1], confidence=confidence,
                         claimed_epsilon=claimed_epsilon, delta=delta, **options)
    return SniperAudit(a, b, final, tuple(screened))


# --------------------------------------------------------------------------------------
# Is the bound valid? Coverage over repeated audits
# --------------------------------------------------------------------------------------

#: An exceedance is a bound above ``exact · (1 + this)``: rounding is not a miss.
_RTOL = 1e-9


def _check_confidence(confidence) -> float:
    if isinstance(confidence, bool) or not isinstance(confidence, numbers.Real) \
            or not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be a real number in (0, 1), got {confidence!r}")
    return float(confidence)


def _check_delta(delta) -> float:
    if isinstance(delta, bool) or not isinstance(delta, numbers.Real) or not 0.0 <= delta < 1.0:
        raise ValueError(f"delta must be a real number in [0, 1), got {delta!r}")
    return float(delta)


def largest_bound(n: int, confidence: float = CONFIDENCE, delta: float = 0.0) -> float:
    """The largest bound :func:`dp_sniper` can report from ``n`` outputs per input.

    Every held-out output of one input falls in the region and none of the other's:
    ``log((CP_lower(m; m) - δ) / CP_upper(0; m))``, ``m = n - n // 2`` held-out outputs, each
    Clopper-Pearson bound at level ``α = (1 - confidence) / 2``; about
    ``log m - log(-log α)`` at δ = 0 (7.3 for n = 10⁴ at 95 %). A bound cannot exceed an exact
    ε at or above it: comparing the two tests nothing.

    Parameters
    ----------
    n : int
        Outputs per input of the final audit (>= 2).
    confidence : float
        The audit's confidence, in (0, 1).
    delta : float
        The δ the bound is on, in [0, 1).

    Returns
    -------
    float
        At least 0 (a reported bound is clipped at 0).
    """
    n = check_positive_int(n, "n")
    if n < 2:
        raise ValueError(f"n must be >= 2 (half the outputs choose the region), got {n}")
    alpha = (1.0 - _check_confidence(confidence)) / 2.0
    delta = _check_delta(delta)
    m = n - n // 2
    low, _ = clopper_pearson(m, m, alpha)
    _, high = clopper_pearson(0, m, alpha)
    with np.errstate(divide="ignore"):
        return max(0.0, float(np.log(max(float(low) - delta, 0.0)) - np.log(high)))


@dataclass(frozen=True)
class KnownMechanism:
    """A mechanism whose exact ε (at ``delta``) is known, for :func:`auditor_coverage`.

    Attributes
    ----------
    name : str
        How the coverage table names it.
    sampler : callable or ScalarMechanism
        As :func:`dp_sniper` takes it.
    pairs : tuple of (x, x') pairs
        The candidate pairs the auditor screens.
    epsilon : float
        The exact ε over ``pairs`` (at ``delta``), >= 0 and finite.
    delta : float
        The δ the bound is on (0: pure ε).
    classifier : str or tuple of str
        The classifier(s) :func:`dp_sniper` screens.
    """

    name: str
    sampler: Callable
    pairs: tuple
    epsilon: float
    delta: float = 0.0
    classifier: str | tuple = "histogram"

    def __post_init__(self):
        if isinstance(self.epsilon, bool) or not isinstance(self.epsilon, numbers.Real) \
                or not 0.0 <= self.epsilon < np.inf:
            raise ValueError(f"{self.name}: epsilon must be a finite real number >= 0, got "
                             f"{self.epsilon!r}")
        _check_delta(self.delta)


#: The Gaussian tensor of :func:`known_mechanisms`: calibrated to exactly this (ε, δ), where
#: 1,000 outputs give bounds of about half its ε (at δ = 10⁻⁵ they give 0).
GAUSSIAN_KNOWN = (2.0, 0.01)


def known_mechanisms() -> list[KnownMechanism]:
    """Cheap mechanisms whose exact ε is known in closed form, for :func:`auditor_coverage`.

    * Laplace on [-1, 1] at ε = 0.5 and 2 (Dwork et al. 2006; loss ε on the pair 1, -1);
    * Duchi et al.'s binary mechanism at ε = 1 (randomized response on two outputs);
    * Laplace at ε = 1 audited on one input twice, (0, 0): no pair of equal inputs is told
      apart, so the exact ε is 0 and every positive bound is an exceedance;
    * Gaussian noise on a 2×2 tensor (entries 0 against 1) calibrated to exactly
      :data:`GAUSSIAN_KNOWN` (the analytic Gaussian mechanism, Balle & Wang 2018, Thm. 8),
      audited at its δ by logistic regression.
    """
    from ldp_companion.tensor.calibration import gaussian_sigma

    eps, delta = GAUSSIAN_KNOWN
    sigma = gaussian_sigma(2.0, eps, delta, method="analytic")   # ‖1 - 0‖₂ on 2×2 is 2

    def gaussian(x, m, rng):
        x = np.asarray(x, float)
        return x + sigma * rng.standard_normal((m,) + x.shape)

    scalar = [(1.0, -1.0)]
    return [
        KnownMechanism("Laplace, ε = 0.5", get_mechanism("laplace", 0.5), scalar, 0.5),
        KnownMechanism("Laplace, ε = 2", get_mechanism("laplace", 2.0), scalar, 2.0),
        KnownMechanism("Duchi et al., ε = 1", get_mechanism("duchi", 1.0), scalar, 1.0),
        KnownMechanism("Laplace, one input twice", get_mechanism("laplace", 1.0),
                       [(0.0, 0.0)], 0.0),
        KnownMechanism(f"Gaussian 2×2, δ = {delta:g}", gaussian,
                       [(np.zeros((2, 2)), np.ones((2, 2)))], eps, delta, "logistic"),
    ]


@dataclass(frozen=True)
class Coverage:
    """Result of :func:`auditor_coverage`: every bound, and how many exceed the exact ε.

    Attributes
    ----------
    names : tuple of str
        The mechanisms, in order.
    exact : ndarray, shape (mechanisms,)
        Their exact ε.
    bounds : ndarray, shape (mechanisms, repeats)
        The black-box bound of every audit.
    confidence : float
        The confidence each audit ran at.
    caps : ndarray, shape (mechanisms,)
        The largest bound each audit could report (:func:`largest_bound`).
    """

    names: tuple
    exact: np.ndarray
    bounds: np.ndarray
    confidence: float
    caps: np.ndarray

    @property
    def error(self) -> float:
        """The nominal error level ``1 - confidence``: the most often a valid bound exceeds."""
        return 1.0 - self.confidence

    @property
    def exceeds(self) -> np.ndarray:
        """Per audit: is the bound above the exact ε (beyond rounding)?"""
        return self.bounds > self.exact[:, None] * (1.0 + _RTOL)

    @property
    def audits(self) -> int:
        return int(self.bounds.size)

    @property
    def hits(self) -> int:
        """How many bounds exceed their exact ε, over every audit."""
        return int(self.exceeds.sum())

    @property
    def p_value(self) -> float:
        """One-sided binomial test of :attr:`hits` against ``Binomial(audits, error)``: small
        when the bounds exceed the exact ε more often than a valid auditor's may."""
        return float(stats.binomtest(self.hits, self.audits, self.error,
                                     alternative="greater").pvalue)

    def table(self) -> pd.DataFrame:
        """One row per mechanism: exact ε, audits, exceedances, mean and largest bound, and
        the largest bound the audits could report."""
        return pd.DataFrame({"mechanism": list(self.names), "exact": self.exact,
                             "audits": self.bounds.shape[1],
                             "above exact": self.exceeds.sum(axis=1),
                             "mean bound": self.bounds.mean(axis=1),
                             "largest": self.bounds.max(axis=1), "cap": self.caps})


def auditor_coverage(mechanisms, repeats: int, n: int, rng: np.random.Generator, *,
                     confidence: float = CONFIDENCE) -> Coverage:
    """Is the black-box bound valid? Repeated audits of mechanisms whose exact ε is known.

    Each mechanism is audited ``repeats`` times by :func:`dp_sniper`, each audit on fresh
    outputs (successive draws of ``rng``: independent). A valid bound exceeds the exact ε with
    probability at most ``1 - confidence``, independently from audit to audit, so the number
    of exceedances over all audits is stochastically below ``Binomial(audits, 1 -
    confidence)``; :attr:`Coverage.p_value` is the one-sided binomial test
    (:func:`scipy.stats.binomtest`) of the count. A small p-value says the auditor's bounds
    are not valid lower bounds.

    Measured on :func:`known_mechanisms` at 95 % (``default_rng(0)``): with 20 audits each
    and n = 1,000 (appendix C's smoke profile), the auditor as written exceeds in 0 of 100
    audits (p = 1), the same auditor with its classifier trained, its threshold chosen and its
    bound computed on one sample (``same-sample-auditor`` of
    :mod:`ldp_companion.compare.mutants`) in 61 of 100 (p ≈ 5·10⁻⁵³); with 100 each and
    n = 2,000 (default), in 2 of 500 (p = 1) against 301 of 500 (p ≈ 3·10⁻²⁵²). The one-sample
    histograms learn the sample's own noise: every bound on one input twice (exact ε 0) and on
    Laplace is far above the truth. Choosing only the threshold on the bound's outputs (the
    classifier trained apart) is not caught at the nominal level: the choice penalises small
    regions (Bonferroni over the candidates), which keeps that auditor's exceedances near or
    under ``1 - confidence`` (at 95 %, 0 to 5 in 100 audits of these mechanisms, of
    randomized response over 16 to 64 outputs and of pure noise on up to 8×8 entries, n from
    100 to 10⁴; at 80 %, at most 24 in 100, on noise over 8×8 entries).

    Parameters
    ----------
    mechanisms : sequence of KnownMechanism
        At least one.
    repeats : int
        Audits per mechanism (>= 1).
    n : int
        Outputs per input of each audit (>= 8), as :func:`dp_sniper` takes it.
    rng : numpy.random.Generator
    confidence : float
        Each audit's confidence, in (0, 1).

    Returns
    -------
    Coverage
    """
    mechanisms = list(mechanisms)
    if not mechanisms or not all(isinstance(m, KnownMechanism) for m in mechanisms):
        raise ValueError("mechanisms must be a non-empty sequence of KnownMechanism")
    repeats = check_positive_int(repeats, "repeats")
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 8:
        raise ValueError(f"n must be an integer >= 8, got {n!r}")
    rng = check_rng(rng)
    confidence = _check_confidence(confidence)
    bounds = np.array([[dp_sniper(m.sampler, m.pairs, int(n), rng, classifier=m.classifier,
                                  confidence=confidence, delta=m.delta).epsilon_lower
                        for _ in range(repeats)] for m in mechanisms])
    return Coverage(tuple(m.name for m in mechanisms),
                    np.array([m.epsilon for m in mechanisms], float), bounds, confidence,
                    np.array([largest_bound(int(n), confidence, m.delta) for m in mechanisms]))
