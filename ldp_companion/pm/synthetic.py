"""Seeded offline stand-ins (ours) for the data sets of the PM/Three-Outputs paper, Sec. VII.

The paper's WISDM, IPUMS census (BR, MX) and Vehicle (SensIT) extracts are not downloadable
here, so the chapter runs on generators with the papers' *shapes* (numbers of numeric and
categorical attributes, cardinalities, binarised dimensions) and plausible marginals. They are
stand-ins: absolute MSE and error values will differ from the paper's. Every numeric
attribute is min-max scaled to [-1, 1] as in §VII of the paper, and every categorical one
binarises to ``k - 1`` columns in {-1, 1} (:func:`binarize`).

scikit-learn's bundled tables give "real-feature" variants (:func:`resample_table`): they are
tiny, so users are drawn with replacement from the empirical distribution.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ldp_companion.data import datasets
from ldp_companion.validation import check_positive_int, check_rng

__all__ = ["Table", "binarize", "gaussian", "wisdm_like", "census_like", "vehicle_like",
           "regression_task", "classification_task", "resample_table",
           "WISDM_ACTIVITY_FREQ", "CENSUS_CARDINALITIES", "SKLEARN_TABLES"]

#: WISDM v1.1 activity frequencies (walking, jogging, upstairs, downstairs, sitting,
#: standing), from the data set's documentation (the paper does not give them).
WISDM_ACTIVITY_FREQ = (0.386, 0.312, 0.112, 0.091, 0.055, 0.044)
#: Categorical cardinalities of the census stand-ins (our choice): BR sums to 94 (90
#: binarised dimensions with 6 numeric), MX to 103 (94 with 5 numeric), the dimensions
#: Wang et al. [8] report (the paper's Sec. VII-B lost its own numbers).
CENSUS_CARDINALITIES = {"BR": (2, 2, 3, 5, 6, 8, 10, 12, 20, 26),
                        "MX": (2, 2, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 15, 18)}
_CENSUS_NUMERIC = {"BR": 6, "MX": 5}
SKLEARN_TABLES = ("breast_cancer", "diabetes", "digits")


@dataclass(frozen=True)
class Table:
    """A synthetic table: numeric attributes, categorical codes and optional targets.

    Attributes
    ----------
    numeric : ndarray, shape (n, d_num)
        In [-1, 1].
    categorical : ndarray, shape (n, d_cat)
        int64 codes, column ``j`` in ``0 .. cardinalities[j] - 1``.
    cardinalities : tuple of int
    target : ndarray, shape (n,), or None
        Regression target in [-1, 1].
    label : ndarray, shape (n,), or None
        Class label in {-1, 1}.
    """

    numeric: np.ndarray
    categorical: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.int64))
    cardinalities: tuple = ()
    target: np.ndarray | None = None
    label: np.ndarray | None = None

    def design_matrix(self) -> np.ndarray:
        """Numeric columns then each categorical binarised (:func:`binarize`), in [-1, 1]."""
        parts = [self.numeric] + [binarize(self.categorical[:, j], c)
                                  for j, c in enumerate(self.cardinalities)]
        return np.hstack(parts)


def binarize(codes, cardinality: int) -> np.ndarray:
    """The paper's encoding (§VII-B) of a categorical attribute with ``k`` values.

    Value ``l < k - 1`` (0-based) gives +1 on binary column ``l`` and -1 on the others; the
    last value gives -1 everywhere. Shape ``(n, k - 1)``.
    """
    k = check_positive_int(cardinality, "cardinality")
    if k < 2:
        raise ValueError(f"cardinality must be >= 2, got {k}")
    codes = np.asarray(codes)
    if codes.ndim != 1 or not np.issubdtype(codes.dtype, np.integer):
        raise ValueError("codes must be a 1-D integer array")
    if codes.size and (codes.min() < 0 or codes.max() >= k):
        raise ValueError(f"codes must lie in 0..{k - 1}")
    return np.where(codes[:, None] == np.arange(k - 1)[None, :], 1.0, -1.0)


def _scaled(a):
    return datasets.scale_to_unit_interval(a)


def gaussian(n: int, d: int, mu: float = 0.0, sd: float = 0.25, *,
             rng: np.random.Generator) -> np.ndarray:
    """The paper's synthetic data: ``N(mu, sd^2)`` entries clipped to [-1, 1], shape (n, d).

    The paper's ``d``, ``mu``, ``sd`` and ``n`` are lost from its text (Sec. VII-A); our
    defaults are ``d`` in {5, 10, 20, 40}, ``mu = 0``, ``sd = 1/4``, ``n = 10^6``.
    """
    n, d = check_positive_int(n, "n"), check_positive_int(d, "d")
    mu, sd = float(mu), float(sd)
    if not (np.isfinite(mu) and np.isfinite(sd) and sd >= 0):
        raise ValueError("mu must be finite and sd finite and >= 0")
    return np.clip(check_rng(rng).normal(mu, sd, size=(n, d)), -1.0, 1.0)


def wisdm_like(n: int, *, rng: np.random.Generator) -> Table:
    """WISDM stand-in: 3 numeric accelerations and 2 categoricals (user, activity).

    Accelerations (x, y, z, in m/s^2 before scaling) are ``t_5``-distributed around
    activity-dependent means, mimicking the heavy tails of the phone accelerometer; then
    min-max scaled to [-1, 1]. User: 36 values, mildly unequal; activity: 6 values with
    :data:`WISDM_ACTIVITY_FREQ`. ``design_matrix()`` has 3 + 35 + 5 = 43 columns.
    """
    n, rng = check_positive_int(n, "n"), check_rng(rng)
    activity = rng.choice(6, size=n, p=np.array(WISDM_ACTIVITY_FREQ) / sum(WISDM_ACTIVITY_FREQ))
    user = rng.choice(36, size=n, p=rng.dirichlet(np.full(36, 8.0)))
    means = np.array([[0.6, 8.5, 0.3], [-0.2, 6.0, -0.5], [0.4, 8.0, 0.8],
                      [0.5, 9.0, 0.6], [6.0, 1.5, 7.5], [-1.0, 9.5, 0.5]])
    scales = np.array([[4.5, 4.0, 3.5], [6.5, 6.0, 5.0], [3.5, 3.5, 3.0],
                       [3.5, 3.5, 3.0], [0.6, 0.8, 0.6], [0.7, 0.6, 0.8]])
    acc = means[activity] + scales[activity] * rng.standard_t(5, size=(n, 3))
    return Table(numeric=_scaled(acc), categorical=np.column_stack([user, activity]),
                 cardinalities=(36, 6))


def census_like(country: str, n: int, *, rng: np.random.Generator,
                noise_sd: float = 0.1) -> Table:
    """IPUMS census stand-in for ``"BR"`` (6 numeric, 10 categorical, 90 binarised columns)
    or ``"MX"`` (5 numeric, 14 categorical, 94 columns).

    Numeric attributes: an age-like Beta(2, 3) variable, a log-normal income-like one, then
    mixtures of skewed and symmetric ones; categoricals with
    :data:`CENSUS_CARDINALITIES` and Dirichlet-drawn (unequal) frequencies. The target
    "total income" is linear in the design matrix plus ``N(0, noise_sd^2)`` noise, min-max
    scaled to [-1, 1]; ``label`` is +1 above the target's mean, -1 otherwise (Wang et al.'s
    binarisation; the paper does not say how it binarises).
    """
    if country not in CENSUS_CARDINALITIES:
        raise ValueError(f"country must be 'BR' or 'MX', got {country!r}")
    n, rng = check_positive_int(n, "n"), check_rng(rng)
    cards = CENSUS_CARDINALITIES[country]
    d_num = _CENSUS_NUMERIC[country]
    cols = [rng.beta(2.0, 3.0, size=n), rng.lognormal(0.0, 0.8, size=n)]
    for j in range(d_num - 2):
        cols.append(rng.gamma(2.0 + j, size=n) if j % 2 == 0 else rng.normal(size=n))
    numeric = _scaled(np.column_stack(cols))
    cat = np.column_stack([rng.choice(c, size=n, p=rng.dirichlet(np.full(c, 2.0)))
                           for c in cards])
    table = Table(numeric=numeric, categorical=cat, cardinalities=cards)
    design = table.design_matrix()
    w = rng.normal(0.0, 1.0, size=design.shape[1]) / np.sqrt(design.shape[1])
    income = _scaled(design @ w + rng.normal(0.0, float(noise_sd), size=n))
    label = np.where(income > income.mean(), 1.0, -1.0)
    return Table(numeric=numeric, categorical=cat, cardinalities=cards, target=income,
                 label=label)


def vehicle_like(n: int, *, rng: np.random.Generator, d: int = 100,
                 n_factors: int = 5, label_noise: float = 0.5) -> Table:
    """Vehicle (SensIT acoustic/seismic) stand-in: ``d = 100`` correlated numeric features
    and a label in {-1, 1}.

    Features: ``n_factors`` Gaussian latent factors through random loadings plus independent
    noise, min-max scaled to [-1, 1] (the sensors' features are strongly correlated).
    Label: sign of a random linear score plus ``N(0, label_noise^2)`` times its spread.
    """
    n, rng = check_positive_int(n, "n"), check_rng(rng)
    d, f = check_positive_int(d, "d"), check_positive_int(n_factors, "n_factors")
    latent = rng.normal(size=(n, f))
    raw = latent @ rng.normal(size=(f, d)) + 0.7 * rng.normal(size=(n, d))
    X = _scaled(raw)
    score = (X - X.mean(axis=0)) @ rng.normal(size=d)
    score += float(label_noise) * score.std() * rng.normal(size=n)
    return Table(numeric=X, label=np.where(score >= 0, 1.0, -1.0))


def regression_task(n: int, d: int, *, rng: np.random.Generator, sd: float = 0.5,
                    noise_sd: float = 0.1):
    """Synthetic linear problem, our reduced-scale setup for Sec. VII-B:
    ``X = clip(N(0, sd^2))^d``, ``y = X theta* + N(0, noise_sd^2)`` with ``theta* ~ N(0, I/d)``.

    Returns
    -------
    X : ndarray (n, d); y : ndarray (n,); theta_star : ndarray (d,)
        The noise floor of the MSE is ``noise_sd^2``.
    """
    X = gaussian(n, d, 0.0, sd, rng=rng)
    theta = rng.normal(0.0, 1.0 / np.sqrt(d), size=d)
    return X, X @ theta + rng.normal(0.0, float(noise_sd), size=X.shape[0]), theta


def classification_task(n: int, d: int, *, rng: np.random.Generator, sd: float = 0.5,
                        noise_sd: float = 0.5):
    """Synthetic binary problem: ``X`` as :func:`regression_task`,
    ``y = sign(X theta* + N(0, noise_sd^2))`` in {-1, 1}, ``theta* ~ N(0, I/d)``.

    Returns
    -------
    X : ndarray (n, d); y : ndarray (n,); theta_star : ndarray (d,)
    """
    X = gaussian(n, d, 0.0, sd, rng=rng)
    theta = rng.normal(0.0, 1.0 / np.sqrt(d), size=d)
    score = X @ theta + rng.normal(0.0, float(noise_sd), size=X.shape[0])
    return X, np.where(score >= 0, 1.0, -1.0), theta


def resample_table(name: str, n: int, *, rng: np.random.Generator):
    """A scikit-learn bundled table scaled to [-1, 1] and resampled to ``n`` users.

    Rows are drawn with replacement, i.e. users from the table's empirical distribution.

    Parameters
    ----------
    name : {"breast_cancer", "diabetes", "digits"}
        ``breast_cancer`` (569 x 30): label +1 benign, -1 malignant (Vehicle/SVM stand-in);
        ``diabetes`` (442 x 10): target min-max scaled to [-1, 1] (linear regression);
        ``digits`` (1797 x 64): the digit 0..9 as target (mean estimation over 64 pixels).
    n : int
    rng : numpy.random.Generator

    Returns
    -------
    X : ndarray, shape (n, d)
        Features min-max scaled on the full table, in [-1, 1].
    y : ndarray, shape (n,)
    """
    loaders = {"breast_cancer": datasets.load_breast_cancer,
               "diabetes": datasets.load_diabetes, "digits": datasets.load_digits}
    if name not in loaders:
        raise ValueError(f"name must be one of {SKLEARN_TABLES}, got {name!r}")
    n, rng = check_positive_int(n, "n"), check_rng(rng)
    X, y = loaders[name]()
    X = datasets.scale_to_unit_interval(X)
    if name == "breast_cancer":
        y = np.where(y == 1, 1.0, -1.0)
    elif name == "diabetes":
        y = datasets.scale_to_unit_interval(y)
    idx = rng.integers(X.shape[0], size=n)
    return X[idx], y[idx]
