"""SPOF data: the Fitbit daily-activity table as the authors used it, and a synthetic stand-in.

Sec. VIII of the paper trains its distributed autoencoder on the Fitbit fitness-tracker data
("total distance, total steps, calories burned, and eleven other parameters which are all
positive"), each column "normalized by the maximum column value", with "n = 14" features and
"36480 training samples for m = 2". The authors' code pins down what that means; this module
rebuilds it.

Column layout (``n = 14``)
--------------------------
Columns 1-13 are the 13 numeric columns of ``dailyActivity_merged.csv`` in the 2016-03-12 ..
2016-04-11 export (Zenodo record 53894), in file order (:data:`COLUMNS`); ``Id`` and
``ActivityDate`` are dropped. Column 14 is Calories again: the authors' table duplicates it.
The file has only 13 numeric columns; the duplicate is why the paper's count ("total distance,
total steps, calories burned, and eleven other parameters") comes to ``n = 14``.

Rows
----
The file has 457 rows; the authors' JSON copy of it held 456. We use all 457, which moves the
trivial-predictor accuracies in the fourth decimal only (all zeros 0.8922 instead of 0.8920).
The paper's 36 480 training rows are not real records: they are 456 x 80 rows, the originals
plus jittered copies (each a random row times ``1 + N(0, 0.02^2)`` entry by entry), built in
two stages, x20 and then x4 of that file (:func:`authors_expansion`; one stage is
:func:`expand`). With 457 rows the x80 table has 36 560 rows.

Metric
------
The paper never defines "accuracy". The authors compute ``1 - MSE`` over all entries of the
column-max-scaled data (:func:`accuracy`). On these data, predicting all zeros already scores
0.892 (raw table) or 0.908 (x80 table); :func:`trivial_accuracies` gives these baselines.

Synthetic stand-in
------------------
:func:`synthetic_fitbit` draws rows from a Gaussian copula with the empirical marginal
quantiles (:data:`QUANTILES`) and normal-score correlations (:data:`CORRELATION`) of the real
table, for users without the file.

Everything here is numpy only and vectorized over rows.
"""
from __future__ import annotations

import numbers

import numpy as np
from scipy import special

from ldp_companion.data import datasets
from ldp_companion.validation import check_positive_int, check_rng

__all__ = [
    "COLUMNS", "MINUTE_COLUMNS", "MINUTES_PER_DAY", "QUANTILE_LEVELS", "QUANTILES",
    "CORRELATION", "TRACKER_EQUALS_TOTAL", "AUTHORS_STAGES",
    "fitbit_table", "expand", "authors_expansion", "normalize_colmax", "train_test_split",
    "accuracy", "trivial_accuracies", "synthetic_fitbit",
]

#: The 14 feature columns: the 13 numeric Fitbit columns in file order, then Calories again.
COLUMNS = (
    "TotalSteps", "TotalDistance", "TrackerDistance", "LoggedActivitiesDistance",
    "VeryActiveDistance", "ModeratelyActiveDistance", "LightActiveDistance",
    "SedentaryActiveDistance", "VeryActiveMinutes", "FairlyActiveMinutes",
    "LightlyActiveMinutes", "SedentaryMinutes", "Calories", "Calories (copy)",
)

#: Indices of VeryActive-, FairlyActive-, LightlyActive- and SedentaryMinutes.
MINUTE_COLUMNS = (8, 9, 10, 11)
MINUTES_PER_DAY = 1440.0
_TOTAL, _TRACKER, _SEDENTARY, _CALORIES = 1, 2, 11, 12

# The three tables below are summaries computed from the authors' 456-row table (the
# 2016-03-12 export as their JSON held it), computed once with numpy. They are the
# only information the synthetic generator uses.

#: Probability levels of the marginal quantile table.
QUANTILE_LEVELS = np.array([0.0, 0.10, 0.25, 0.50, 0.75, 0.90, 0.95, 0.99, 1.0])

#: Marginal quantiles in raw units, one row per column of COLUMNS[:13], one column per level.
QUANTILES = np.array([
    [0, 0, 1987, 6044, 10200, 13560, 15630, 21780, 28500],        # TotalSteps
    [0, 0, 1.397, 4.105, 7.172, 9.625, 11.24, 19.19, 27.53],      # TotalDistance (km)
    [0, 0, 1.27, 4.105, 7.123, 9.42, 11.14, 19.19, 27.53],        # TrackerDistance
    [0, 0, 0, 0, 0, 0, 0.444, 4.873, 6.727],                      # LoggedActivitiesDistance
    [0, 0, 0, 0, 1.31, 3.41, 5.763, 11.88, 21.92],                # VeryActiveDistance
    [0, 0, 0, 0.03, 0.675, 1.41, 2.09, 3.698, 6.4],               # ModeratelyActiveDistance
    [0, 0, 0.8625, 2.93, 4.462, 5.65, 6.52, 8.111, 12.51],        # LightActiveDistance
    [0, 0, 0, 0, 0, 0, 0.01, 0.04, 0.1],                          # SedentaryActiveDistance
    [0, 0, 0, 0, 25, 55, 78.5, 119.1, 202],                       # VeryActiveMinutes
    [0, 0, 0, 1, 16, 33, 46.5, 110.1, 660],                       # FairlyActiveMinutes
    [0, 0, 65.5, 181, 257.2, 312, 349, 482.2, 720],               # LightlyActiveMinutes
    [32, 598.5, 728.8, 1058, 1286, 1440, 1440, 1440, 1440],       # SedentaryMinutes
    [0, 1328, 1776, 2064, 2669, 3323, 3717, 4226, 4562],          # Calories
], dtype=np.float64)

#: Normal-score (Gaussian-copula) correlation of COLUMNS[:13], rounded to two decimals.
CORRELATION = np.array([
    [1.00, .99, .99, .15, .79, .70, .81, .09, .75, .67, .71, -.40, .58],
    [.99, 1.00, .99, .18, .79, .70, .81, .09, .75, .67, .70, -.40, .61],
    [.99, .99, 1.00, .11, .79, .70, .80, .10, .75, .67, .68, -.39, .61],
    [.15, .18, .11, 1.00, .19, .11, .12, .07, .24, .13, .13, -.12, .17],
    [.79, .79, .79, .19, 1.00, .71, .43, .07, .95, .70, .36, -.27, .47],
    [.70, .70, .70, .11, .71, 1.00, .48, .03, .69, .95, .43, -.34, .43],
    [.81, .81, .80, .12, .43, .48, 1.00, .09, .42, .45, .88, -.44, .46],
    [.09, .09, .10, .07, .07, .03, .09, 1.00, .05, .03, .14, .07, .07],
    [.75, .75, .75, .24, .95, .69, .42, .05, 1.00, .70, .33, -.29, .51],
    [.67, .67, .67, .13, .70, .95, .45, .03, .70, 1.00, .40, -.33, .50],
    [.71, .70, .68, .13, .36, .43, .88, .14, .33, .40, 1.00, -.48, .38],
    [-.40, -.40, -.39, -.12, -.27, -.34, -.44, .07, -.29, -.33, -.48, 1.00, -.03],
    [.58, .61, .61, .17, .47, .43, .46, .07, .51, .50, .38, -.03, 1.00],
])

#: The authors' x80 expansion: a x20 file, then x4 of that file (456 x 20 x 4 = 36 480 rows).
AUTHORS_STAGES = (20, 4)

#: Share of real rows with TrackerDistance == TotalDistance (441 of 457).
TRACKER_EQUALS_TOTAL = 0.965


# --------------------------------------------------------------------------- checks

def _check_table(x, name: str = "x") -> np.ndarray:
    """Return ``x`` as a float64 2-D array with at least one row and column, all finite."""
    arr = np.asarray(x)
    if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.integer)
                                 or np.issubdtype(arr.dtype, np.floating)):
        raise TypeError(f"{name} must hold real numbers, got dtype {arr.dtype}")
    if arr.ndim != 2 or arr.shape[0] < 1 or arr.shape[1] < 1:
        raise ValueError(f"{name} must be a non-empty 2-D array (rows, columns), "
                         f"got shape {arr.shape}")
    arr = arr.astype(np.float64, copy=False)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    return arr


def _check_real_array(x, name: str) -> np.ndarray:
    """Return ``x`` as a non-empty finite float64 array of any shape."""
    arr = np.asarray(x)
    if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.integer)
                                 or np.issubdtype(arr.dtype, np.floating)):
        raise TypeError(f"{name} must hold real numbers, got dtype {arr.dtype}")
    arr = arr.astype(np.float64, copy=False)
    if arr.size == 0 or not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be non-empty and finite (no NaN or inf)")
    return arr


def _check_real(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    return float(value)


# --------------------------------------------------------------------------- real data

def fitbit_table(export: str = "first") -> np.ndarray:
    """The authors' 14-column Fitbit table in raw units (Sec. VIII; ``n = 14``).

    Parameters
    ----------
    export : {"first", "second", "both"}
        Which Zenodo export to read (see :func:`ldp_companion.data.datasets.load_fitbit_daily`).
        The authors used ``"first"`` (2016-03-12 .. 2016-04-11, 457 rows in the file, 456 in
        their JSON); all rows of the file are kept.

    Returns
    -------
    ndarray, shape (rows, 14)
        float64, columns :data:`COLUMNS`: the 13 numeric activity columns, then Calories
        duplicated as column 14, as in the authors' table. All entries are >= 0.
    """
    raw = datasets.load_fitbit_daily(export=export, as_frame=False)
    return np.concatenate([raw, raw[:, _CALORIES:_CALORIES + 1]], axis=1)


def expand(x, factor, rng, jitter: float = 0.02) -> np.ndarray:
    """Enlarge a table with jittered copies, as the authors built their 36 480 rows.

    The paper's "36480 training samples" (Sec. VIII) are the 456 real rows times 80: the
    authors' code draws random original rows and multiplies each entry by ``1 + N(0, 0.02^2)``.
    Their code does it in two stages, x20 and then x4 of that file (:func:`authors_expansion`);
    this function is one stage. The difference matters: copies of copies carry compounded
    jitter, which raises the column maxima, so after column-max scaling the all-zeros accuracy
    is 0.9075 +- 0.0010 for the two-stage x80 table but 0.9038 +- 0.0003 for a single x80
    stage (457 rows, over seeds).

    Parameters
    ----------
    x : array_like, shape (N, n)
        Finite real table.
    factor : int
        Output has ``factor * N`` rows; ``factor >= 1``. ``factor = 1`` returns a copy.
    rng : numpy.random.Generator
        Source of the row choices and the jitter.
    jitter : float
        Standard deviation of the multiplicative noise, finite and ``>= 0``. With 0 the new
        rows are exact duplicates of original rows.

    Returns
    -------
    ndarray, shape (factor * N, n)
        float64: the N original rows first, then ``(factor - 1) * N`` rows, each a uniformly
        random original row (drawn with replacement) times ``1 + N(0, jitter^2)`` element-wise.
        Zeros stay zero; a large ``jitter`` can flip signs.
    """
    x = _check_table(x)
    factor = check_positive_int(factor, "factor")
    rng = check_rng(rng)
    jitter = _check_real(jitter, "jitter")
    if not np.isfinite(jitter) or jitter < 0:
        raise ValueError(f"jitter must be finite and >= 0, got {jitter!r}")
    extra = (factor - 1) * x.shape[0]
    picks = x[rng.integers(0, x.shape[0], size=extra)]
    noise = 1.0 + jitter * rng.standard_normal(picks.shape)
    return np.concatenate([x, picks * noise], axis=0)


def authors_expansion(x, rng, jitter: float = 0.02) -> np.ndarray:
    """The authors' x80 table: :func:`expand` by 20, then the result by 4 (Sec. VIII setup).

    This is how the paper's 36 480 training rows (456 x 80) were built; after column-max
    scaling its all-zeros accuracy is the 0.9076 of the flat SPOF curve (the authors' result files).

    Parameters
    ----------
    x : array_like, shape (N, n)
        Finite real table (the 457 x 14 :func:`fitbit_table`).
    rng : numpy.random.Generator
        Source of randomness for both stages.
    jitter : float
        Standard deviation of the multiplicative noise in each stage, finite and ``>= 0``.

    Returns
    -------
    ndarray, shape (80 * N, n)
        float64: the N originals, then 19 N first-stage rows, then 60 N second-stage rows
        (random rows of the first-stage file, jittered again).
    """
    first, second = AUTHORS_STAGES
    return expand(expand(x, first, rng, jitter), second, rng, jitter)


def normalize_colmax(x) -> np.ndarray:
    """Divide each column by its maximum, without subtracting the minimum (Sec. VIII).

    The paper: each column "is normalized by the maximum column value in that column ... This
    normalization ensures that the input data satisfies the assumption 0 <= x_{j,i} <= 1."

    Parameters
    ----------
    x : array_like, shape (N, n)
        Finite table with every entry ``>= 0`` (negative entries are refused, since the
        result would leave [0, 1]).

    Returns
    -------
    ndarray, shape (N, n)
        float64 in [0, 1]; each column with a positive maximum has maximum exactly 1, an
        all-zero column stays zero.
    """
    x = _check_table(x)
    if x.min() < 0:
        raise ValueError(f"x must be >= 0 for column-max scaling; its minimum is {x.min():.6g}")
    colmax = x.max(axis=0)
    safe = np.where(colmax > 0, colmax, 1.0)
    return x / safe


def train_test_split(x, test_fraction, rng) -> tuple[np.ndarray, np.ndarray]:
    """Random train/test split of the rows (the authors use 80/20, Sec. VIII setup).

    Parameters
    ----------
    x : array_like, shape (N, n)
        Finite table.
    test_fraction : float
        Share of rows in the test set, strictly between 0 and 1. The test set has
        ``floor(test_fraction * N + 0.5)`` rows; both parts must be non-empty.
    rng : numpy.random.Generator
        Source of the random permutation.

    Returns
    -------
    train, test : ndarray
        float64 arrays of shape (N - N_test, n) and (N_test, n); together a permutation of
        the rows of ``x``.
    """
    x = _check_table(x)
    test_fraction = _check_real(test_fraction, "test_fraction")
    rng = check_rng(rng)
    if not 0 < test_fraction < 1:
        raise ValueError(f"test_fraction must be in (0, 1), got {test_fraction!r}")
    rows = x.shape[0]
    n_test = int(np.floor(test_fraction * rows + 0.5))
    if n_test < 1 or n_test > rows - 1:
        raise ValueError(f"test_fraction={test_fraction!r} of {rows} rows leaves the train or "
                         "test set empty")
    order = rng.permutation(rows)
    return x[order[n_test:]], x[order[:n_test]]


def accuracy(pred, target) -> float:
    """The authors' "accuracy": ``1 - mean squared error`` over all entries.

    The paper reports reconstruction "accuracy" (Sec. VIII, Fig. 2-3) without defining it;
    the authors' code computes ``1 - MSE`` over every entry of the column-max-scaled data.

    Parameters
    ----------
    pred : array_like
        Predictions; broadcast against ``target`` (e.g. one (n,) row for every record).
    target : array_like
        Targets, e.g. shape (N, n).

    Returns
    -------
    float
        ``1 - mean((pred - target)^2)`` over the broadcast shape.
    """
    pred = _check_real_array(pred, "pred")
    target = _check_real_array(target, "target")
    try:
        diff = pred - target
    except ValueError as err:
        raise ValueError(f"pred of shape {pred.shape} does not broadcast against target of "
                         f"shape {target.shape}") from err
    return float(1.0 - np.mean(diff * diff))


def trivial_accuracies(x) -> dict[str, float]:
    """Accuracies of the three data-free predictors, the floor of every SPOF accuracy plot.

    Parameters
    ----------
    x : array_like, shape (N, n)
        Scaled data, every entry in [0, 1] (see :func:`normalize_colmax`).

    Returns
    -------
    dict
        ``"all zeros"``: ``1 - E[x^2]``; ``"column means"``: predicting each column's mean
        (the means of ``x`` itself); ``"constant 0.5"``: predicting 0.5 everywhere. On the
        real table: 0.892 / 0.976 / 0.854 (raw), 0.908 / 0.979 / 0.855 (x80 expanded).
    """
    x = _check_table(x)
    if x.min() < 0 or x.max() > 1:
        raise ValueError(f"x must lie in [0, 1] (scale it first); got values in "
                         f"[{x.min():.6g}, {x.max():.6g}]")
    return {
        "all zeros": accuracy(np.zeros(x.shape[1]), x),
        "column means": accuracy(x.mean(axis=0), x),
        "constant 0.5": accuracy(np.full(x.shape[1], 0.5), x),
    }


# --------------------------------------------------------------------------- synthetic data

def _repair_correlation(r, floor: float = 1e-6) -> np.ndarray:
    """Nearest positive-definite correlation by eigenvalue clipping, then unit diagonal."""
    r = (np.asarray(r, dtype=np.float64) + np.asarray(r, dtype=np.float64).T) / 2
    values, vectors = np.linalg.eigh(r)
    fixed = (vectors * np.maximum(values, floor)) @ vectors.T
    scale = 1.0 / np.sqrt(np.diag(fixed))
    fixed = fixed * scale[:, None] * scale[None, :]
    return (fixed + fixed.T) / 2


def _quantile(u: np.ndarray, levels: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Piecewise-linear inverse CDF of each column, evaluated at ``u`` of shape (rows, k)."""
    seg = np.clip(np.searchsorted(levels, u, side="right") - 1, 0, len(levels) - 2)
    frac = (u - levels[seg]) / (levels[seg + 1] - levels[seg])
    cols = np.arange(table.shape[0])
    low, high = table[cols, seg], table[cols, seg + 1]
    return low + frac * (high - low)


def _fit_minutes(x: np.ndarray) -> np.ndarray:
    """Make the four minute columns sum to at most 1440 (a day), in place.

    SedentaryMinutes is lowered to ``1440 - active`` but not below 0; in the rare rows where
    the three active columns alone exceed 1440 they are scaled down proportionally.
    """
    active_cols = list(MINUTE_COLUMNS[:3])
    active = x[:, active_cols].sum(axis=1)
    shrink = MINUTES_PER_DAY / np.maximum(active, MINUTES_PER_DAY)
    x[:, active_cols] *= shrink[:, None]
    room = np.maximum(MINUTES_PER_DAY - x[:, active_cols].sum(axis=1), 0.0)
    x[:, _SEDENTARY] = np.minimum(x[:, _SEDENTARY], room)
    return x


def synthetic_fitbit(rows, rng) -> np.ndarray:
    """Synthetic stand-in for the 14-column Fitbit table (Gaussian copula).

    Draws ``z ~ N(0, R)`` with ``R`` the normal-score correlation :data:`CORRELATION`
    (projected to the nearest positive-definite correlation matrix by eigenvalue clipping
    and rescaled to unit diagonal), maps ``u = Phi(z)`` through each column's piecewise-linear
    inverse CDF (:data:`QUANTILES` at :data:`QUANTILE_LEVELS`; flat segments give the point
    masses at 0 and at 1440 sedentary minutes), then applies the constraints of the real
    table: TrackerDistance is set to TotalDistance in each row with probability
    :data:`TRACKER_EQUALS_TOTAL`; the four minute columns are cut to sum to at most 1440
    (SedentaryMinutes first, not below 0); column 14 copies Calories. Steps per km are
    not made consistent with the distances. Use it where the real file (Sec. VIII's
    Fitbit data) is unavailable; expand and scale it like the real table.

    Parameters
    ----------
    rows : int
        Number of rows, ``>= 1``.
    rng : numpy.random.Generator
        Source of randomness.

    Returns
    -------
    ndarray, shape (rows, 14)
        float64 in raw units, columns :data:`COLUMNS`, all entries >= 0.
    """
    rows = check_positive_int(rows, "rows")
    rng = check_rng(rng)
    chol = np.linalg.cholesky(_repair_correlation(CORRELATION))
    z = rng.standard_normal((rows, chol.shape[0])) @ chol.T
    x = _quantile(special.ndtr(z), QUANTILE_LEVELS, QUANTILES)
    same = rng.random(rows) < TRACKER_EQUALS_TOTAL
    x[same, _TRACKER] = x[same, _TOTAL]
    x = _fit_minutes(x)
    return np.concatenate([x, x[:, _CALORIES:_CALORIES + 1]], axis=1)
