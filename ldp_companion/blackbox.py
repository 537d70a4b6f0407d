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
   all thresholds, by :func:`ldp_companion.audit.empirical_audit`.
3. **Bound**: on fresh outputs, Clopper-Pearson bounds on the set's probability under ``x``
   (lower) and ``x'`` (upper), each at level ``(1 - confidence) / 2``, give
   ``ε ≥ log(lower / upper)`` with probability at least ``confidence``.

Each step uses its own samples, so the bound holds whatever the classifier learned: a poor
classifier gives a weak bound, never a wrong one. Over several candidate pairs
(:func:`dp_sniper`), the pair is chosen on a first, smaller audit of each, and the reported
bound comes from a last audit of the chosen pair on fresh samples.
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from ldp_companion.audit import EmpiricalAudit, empirical_audit, mechanism_sampler
from ldp_companion.mechanisms.base import ScalarMechanism
from ldp_companion.validation import check_positive_int, check_rng

__all__ = ["HistogramRatio", "LogisticRatio", "fit_ratio", "sniper_audit", "dp_sniper",
           "SniperAudit", "CLASSIFIERS", "CONFIDENCE"]

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
        where = np.searchsorted(atoms, column)
        is_atom = (where < atoms.size) & (atoms[np.minimum(where, max(atoms.size - 1, 0))]
                                          == column) if atoms.size else np.zeros(column.shape,
                                                                                 bool)
        cell = atoms.size + np.searchsorted(edges, column, side="right")
        return np.where(is_atom, where, cell)

    def _fit_column(self, cx, cxp, bins, atom_share):
        pooled = np.concatenate([cx, cxp])
        values, counts = np.unique(pooled, return_counts=True)
        atoms = values[counts >= max(2, atom_share * pooled.size)]
        rest = pooled[~np.isin(pooled, atoms)]
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
    default ``n // 4``), then :func:`~ldp_companion.audit.empirical_audit` on ``n`` fresh
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
