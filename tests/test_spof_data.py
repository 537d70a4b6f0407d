"""Tests of :mod:`ldp_companion.spof.data`: the authors' Fitbit table, its x80 expansion,
column-max scaling, the 1 - MSE metric, the trivial baselines and the synthetic generator.

Reference values come from the SPOF brief (4.2 "Trivial-predictor baselines", 5.2 acceptance
test, errata 3). Every reference check is also run on a broken input (a mutant) to show it can
fail. The real-data tests read the shared offline folder (``$LDP_COMPANION_DATA`` if set, else
``../shared/data``); without it they are skipped, or fail when ``CI=true``.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from conftest import skip_or_fail
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy.special import ndtri
from scipy.stats import rankdata

from ldp_companion.data import datasets
from ldp_companion.spof import data as D

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("LDP_COMPANION_DATA") or REPO.parent / "shared" / "data")
FITBIT_FILE = datasets.REGISTRY["fitbit_daily_first"]["path"]

#: The brief's 13 numeric columns, in its order (Sec. 4.1).
BRIEF_COLUMNS = (
    "TotalSteps", "TotalDistance", "TrackerDistance", "LoggedActivitiesDistance",
    "VeryActiveDistance", "ModeratelyActiveDistance", "LightActiveDistance",
    "SedentaryActiveDistance", "VeryActiveMinutes", "FairlyActiveMinutes",
    "LightlyActiveMinutes", "SedentaryMinutes", "Calories")

# Brief 4.2 (456 rows; with 457 rows the values move in the 4th decimal) and errata 3 (x80).
RAW_REFERENCE = {"all zeros": 0.8920, "column means": 0.9761, "constant 0.5": 0.8538}
X80_REFERENCE = {"all zeros": 0.9076, "column means": 0.979, "constant 0.5": 0.855}
REFERENCE_TOL = 0.002

# Brief 5.2 acceptance test of the generator.
ACCEPT_MEANS = np.array([0.230, 0.170, 0.168, 0.027, 0.054, 0.075, 0.231, 0.019, 0.083, 0.020,
                         0.237, 0.692, 0.481, 0.481])
ACCEPT_MEAN_TOL = 0.03
ACCEPT_ZEROS, ACCEPT_ZEROS_TOL = 0.892, 0.01
TRACKER_P = 0.965
#: Strongly correlated pairs (column indices) checked against the brief's matrix.
STRONG_PAIRS = ((0, 1), (0, 6), (6, 10), (5, 9), (4, 8), (0, 12))
PAIR_TOL = 0.05
GEN_ROWS = 20_000
#: The brief's normal-score matrix, pinned here so that a mutated module constant is caught.
BRIEF_CORRELATION = D.CORRELATION.copy()


# --------------------------------------------------------------------------- fixtures, helpers

@pytest.fixture(scope="module")
def real() -> np.ndarray:
    """The real 457 x 14 table from the shared folder (skip when it is missing)."""
    if not (SHARED / FITBIT_FILE).is_file():
        skip_or_fail(f"Fitbit export is not in {SHARED} (set LDP_COMPANION_DATA)")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LDP_COMPANION_DATA", str(SHARED))
        return D.fitbit_table("first")


@pytest.fixture(scope="module")
def synthetic() -> np.ndarray:
    return D.synthetic_fitbit(GEN_ROWS, np.random.default_rng(2024))


def _reference_failures(scaled, reference) -> list[str]:
    """Names of the trivial baselines of ``scaled`` that miss ``reference`` by > tolerance."""
    got = D.trivial_accuracies(scaled)
    return [k for k, v in reference.items() if abs(got[k] - v) > REFERENCE_TOL]


def _normal_scores(x) -> np.ndarray:
    """Rank-based normal scores per column (average ranks for ties)."""
    return ndtri(rankdata(x, axis=0) / (x.shape[0] + 1))


def _acceptance_failures(table) -> list[str]:
    """The brief's generator acceptance checks; returns the names of those that fail."""
    failures = []
    scaled = D.normalize_colmax(table)
    if np.any(np.abs(scaled.mean(axis=0) - ACCEPT_MEANS) > ACCEPT_MEAN_TOL):
        failures.append("column means")
    if abs(D.trivial_accuracies(scaled)["all zeros"] - ACCEPT_ZEROS) > ACCEPT_ZEROS_TOL:
        failures.append("all zeros")
    corr = np.corrcoef(_normal_scores(table[:, :13]), rowvar=False)
    if corr[0, 1] < 0.95:
        failures.append("steps/distance correlation")
    rows, cols = np.array(STRONG_PAIRS).T
    if np.any(np.abs(corr[rows, cols] - BRIEF_CORRELATION[rows, cols]) > PAIR_TOL):
        failures.append("pair correlations")
    return failures


def _tracker_z(table) -> float:
    """z-score of the share of TrackerDistance == TotalDistance among rows with distance > 0.

    Rows with TotalDistance == 0 are left out: there both columns sit on their point mass at 0
    and are equal whether or not the generator copied one into the other.
    """
    moving = table[:, 1] > 0
    n = int(moving.sum())
    share = np.mean(table[moving, 2] == table[moving, 1])
    return (share - TRACKER_P) / np.sqrt(TRACKER_P * (1 - TRACKER_P) / n)


def _minutes_ok(table) -> bool:
    return bool(np.all(table[:, list(D.MINUTE_COLUMNS)].sum(axis=1) <= 1440 + 1e-9))


# --------------------------------------------------------------------------- layout

def test_columns_match_brief_and_loader():
    assert datasets.FITBIT_ACTIVITY_COLUMNS == BRIEF_COLUMNS
    assert D.COLUMNS[:13] == BRIEF_COLUMNS
    assert len(D.COLUMNS) == 14 and "Calories" in D.COLUMNS[13]
    assert D.QUANTILES.shape == (13, len(D.QUANTILE_LEVELS))
    assert D.CORRELATION.shape == (13, 13)
    np.testing.assert_array_equal(D.CORRELATION, D.CORRELATION.T)
    assert np.all(np.diff(D.QUANTILES, axis=1) >= 0)      # every quantile row is monotone


def test_real_table_layout(real):
    assert real.shape == (457, 14) and real.dtype == np.float64
    np.testing.assert_array_equal(real[:, 13], real[:, 12])
    assert real.min() == 0
    np.testing.assert_array_equal(real[:, :13], _load_raw())


def _load_raw():
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LDP_COMPANION_DATA", str(SHARED))
        return datasets.load_fitbit_daily(export="first", as_frame=False)


# --------------------------------------------------------------------------- real references

def test_real_trivial_accuracies(real):
    got = D.trivial_accuracies(D.normalize_colmax(real))
    print("raw 457 rows:", got)
    assert _reference_failures(D.normalize_colmax(real), RAW_REFERENCE) == []
    assert got["all zeros"] == pytest.approx(0.89224, abs=1e-5)


def test_raw_reference_fails_without_calories_copy(real):
    assert "all zeros" in _reference_failures(D.normalize_colmax(real[:, :13]), RAW_REFERENCE)


def test_raw_reference_fails_without_colmax_scaling(real):
    assert "all zeros" in _reference_failures(real / real.max(), RAW_REFERENCE)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        D.trivial_accuracies(real)                        # unscaled data is refused


def test_x80_reference(real):
    table = D.authors_expansion(real, np.random.default_rng(0))
    assert table.shape == (457 * 80, 14)
    got = D.trivial_accuracies(D.normalize_colmax(table))
    print("x80 (two-stage):", got)
    assert _reference_failures(D.normalize_colmax(table), X80_REFERENCE) == []


def test_x80_reference_fails_without_jitter(real):
    table = D.authors_expansion(real, np.random.default_rng(0), jitter=0.0)
    assert "all zeros" in _reference_failures(D.normalize_colmax(table), X80_REFERENCE)


def test_x80_reference_fails_for_one_stage(real):
    # One x80 stage jitters each copy once; the authors' copies of copies raise the maxima more.
    table = D.expand(real, 80, np.random.default_rng(0))
    assert "all zeros" in _reference_failures(D.normalize_colmax(table), X80_REFERENCE)


def test_acceptance_checks_pass_on_real_table(real):
    assert _acceptance_failures(real) == []


# --------------------------------------------------------------------------- expand

def _tagged(rows=10, cols=4) -> np.ndarray:
    """Rows identifiable after 2% jitter: column 0 is 2 ** (row index)."""
    x = np.random.default_rng(1).uniform(1, 2, (rows, cols))
    x[:, 0] = 2.0 ** np.arange(rows)
    return x


def test_expand_layout_and_determinism():
    x = _tagged()
    out = D.expand(x, 5, np.random.default_rng(3))
    assert out.shape == (50, 4) and out.dtype == np.float64
    np.testing.assert_array_equal(out[:10], x)
    np.testing.assert_array_equal(out, D.expand(x, 5, np.random.default_rng(3)))
    copy = D.expand(x, 1, np.random.default_rng(3))
    np.testing.assert_array_equal(copy, x)
    assert copy is not x and not np.shares_memory(copy, x)


def test_expand_jitter_is_multiplicative_and_uniform():
    x = _tagged()
    new = D.expand(x, 1001, np.random.default_rng(4), jitter=0.02)[10:]
    source = np.rint(np.log2(new[:, 0])).astype(int)
    ratio = new / x[source]
    assert abs(ratio.mean() - 1) < 1e-3 and abs(ratio.std() - 0.02) < 1e-3
    counts = np.bincount(source, minlength=10)             # 10 000 draws, 1000 expected each
    assert np.all(np.abs(counts - 1000) < 4 * np.sqrt(1000 * 0.9))


def _is_original(new, x) -> np.ndarray:
    """For each row of ``new``: is it exactly equal to some row of ``x``?"""
    return np.any(np.all(new[:, None, :] == x[None, :, :], axis=2), axis=1)


def test_expand_without_jitter_duplicates_with_jitter_does_not():
    x = _tagged()
    plain = D.expand(x, 20, np.random.default_rng(5), jitter=0.0)[10:]
    noisy = D.expand(x, 20, np.random.default_rng(5), jitter=0.02)[10:]
    assert np.all(_is_original(plain, x))
    assert not np.any(_is_original(noisy, x))


def test_authors_expansion_is_two_stages():
    x = _tagged()
    two = D.authors_expansion(x, np.random.default_rng(6))
    g = np.random.default_rng(6)
    np.testing.assert_array_equal(two, D.expand(D.expand(x, 20, g), 4, g))
    assert two.shape == (800, 4)


# --------------------------------------------------------------------------- scaling, metric

def test_normalize_colmax():
    x = np.array([[0.0, 2.0, 0.0], [5.0, 4.0, 0.0], [10.0, 1.0, 0.0]])
    before = x.copy()
    out = D.normalize_colmax(x)
    np.testing.assert_allclose(out, [[0, .5, 0], [.5, 1, 0], [1, .25, 0]])
    np.testing.assert_array_equal(x, before)
    with pytest.raises(ValueError, match=">= 0"):
        D.normalize_colmax(-x - 1)


@settings(max_examples=40, deadline=None)
@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=2, max_dims=2, max_side=8),
                  elements=st.floats(0, 1e6)))
def test_normalize_colmax_property(x):
    out = D.normalize_colmax(x)
    assert out.min() >= 0 and out.max() <= 1
    colmax = x.max(axis=0)
    assert np.all(np.abs(out * colmax - x) <= 1e-12 * colmax)
    assert np.all(out.max(axis=0)[colmax > 0] == 1)


def test_accuracy_and_broadcasting():
    target = np.array([[0.0, 1.0], [1.0, 1.0]])
    assert D.accuracy(target, target) == 1.0
    assert D.accuracy(np.zeros(2), target) == pytest.approx(0.25)
    row = np.array([0.5, 1.0])
    assert D.accuracy(row, target) == D.accuracy(np.tile(row, (2, 1)), target)
    with pytest.raises(ValueError, match="broadcast"):
        D.accuracy(np.zeros(3), target)
    with pytest.raises(ValueError, match="pred"):
        D.accuracy([np.nan, 0.0], target)


def test_trivial_accuracies_small_table():
    x = np.array([[0.0, 1.0], [1.0, 1.0]])
    got = D.trivial_accuracies(x)
    assert got == pytest.approx({"all zeros": 0.25, "column means": 0.875,
                                 "constant 0.5": 0.75})


def test_train_test_split():
    x = _tagged(rows=50)
    train, test = D.train_test_split(x, 0.2, np.random.default_rng(7))
    assert train.shape == (40, 4) and test.shape == (10, 4)
    both = np.concatenate([train, test])
    np.testing.assert_array_equal(np.sort(both[:, 0]), x[:, 0])
    again = D.train_test_split(x, 0.2, np.random.default_rng(7))
    np.testing.assert_array_equal(again[1], test)
    with pytest.raises(ValueError, match="empty"):
        D.train_test_split(x[:2], 0.1, np.random.default_rng(0))


# --------------------------------------------------------------------------- generator

def test_repair_correlation():
    np.testing.assert_allclose(D._repair_correlation(D.CORRELATION), D.CORRELATION, atol=1e-6)
    bad = np.array([[1, .9, -.9], [.9, 1, .9], [-.9, .9, 1]])
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.cholesky(bad)                           # the mutant: not positive-definite
    fixed = D._repair_correlation(bad)
    np.linalg.cholesky(fixed)
    np.testing.assert_allclose(np.diag(fixed), 1.0)
    np.testing.assert_array_equal(fixed, fixed.T)


def test_quantile_interpolation():
    levels = D.QUANTILE_LEVELS
    u = np.repeat(levels[:, None], 13, axis=1)
    np.testing.assert_allclose(D._quantile(u, levels, D.QUANTILES), D.QUANTILES.T)
    mid = D._quantile(np.full((1, 13), 0.375), levels, D.QUANTILES)[0]
    np.testing.assert_allclose(mid, D.QUANTILES[:, 2:4].mean(axis=1))
    low = D._quantile(np.full((1, 13), 0.05), levels, D.QUANTILES)[0]
    assert low[0] == 0 and low[11] > 32                   # flat segment: point mass at 0


def test_synthetic_layout(synthetic):
    assert synthetic.shape == (GEN_ROWS, 14) and synthetic.dtype == np.float64
    assert synthetic.min() >= 0
    np.testing.assert_array_equal(synthetic[:, 13], synthetic[:, 12])
    assert np.all(synthetic.max(axis=0)[:13] <= D.QUANTILES[:, -1])
    again = D.synthetic_fitbit(GEN_ROWS, np.random.default_rng(2024))
    np.testing.assert_array_equal(again, synthetic)


def test_synthetic_acceptance(synthetic):
    scaled = D.normalize_colmax(synthetic)
    print("generator column means:", np.round(scaled.mean(axis=0), 3))
    print("generator trivial accuracies:", D.trivial_accuracies(scaled))
    assert _acceptance_failures(synthetic) == []


def test_synthetic_minutes_and_tracker(synthetic):
    assert _minutes_ok(synthetic)
    z = _tracker_z(synthetic)
    print(f"tracker == total z-score {z:.2f} (n = {int((synthetic[:, 1] > 0).sum())})")
    assert abs(z) < 4


def test_acceptance_fails_for_independent_columns(monkeypatch):
    monkeypatch.setattr(D, "CORRELATION", np.eye(13))
    failures = _acceptance_failures(D.synthetic_fitbit(GEN_ROWS, np.random.default_rng(1)))
    assert "steps/distance correlation" in failures and "pair correlations" in failures
    # TotalDistance/TrackerDistance stay tied by the 0.965 copy, so that pair alone would pass:
    corr = np.corrcoef(_normal_scores(D.synthetic_fitbit(GEN_ROWS, np.random.default_rng(1))[
        :, 1:3]), rowvar=False)
    assert corr[0, 1] > 0.9


def test_acceptance_fails_for_shifted_marginals(monkeypatch):
    monkeypatch.setattr(D, "QUANTILES", D.QUANTILES + 0.25 * D.QUANTILES[:, -1:])
    failures = _acceptance_failures(D.synthetic_fitbit(GEN_ROWS, np.random.default_rng(1)))
    assert "column means" in failures and "all zeros" in failures


def test_minute_and_tracker_checks_fail_on_mutants(monkeypatch):
    monkeypatch.setattr(D, "_fit_minutes", lambda x: x)
    assert not _minutes_ok(D.synthetic_fitbit(GEN_ROWS, np.random.default_rng(1)))
    monkeypatch.undo()
    monkeypatch.setattr(D, "TRACKER_EQUALS_TOTAL", 0.93)
    assert abs(_tracker_z(D.synthetic_fitbit(GEN_ROWS, np.random.default_rng(1)))) > 4


# --------------------------------------------------------------------------- input validation

RNG = np.random.default_rng(0)
GOOD = np.ones((4, 3))
not_generator = st.one_of(st.none(), st.integers(), st.floats(), st.text(max_size=3),
                          st.just(np.random.RandomState(0)))


@settings(max_examples=25, deadline=None)
@given(st.integers(max_value=0))
def test_expand_refuses_factor_below_one(factor):
    with pytest.raises(ValueError, match="factor"):
        D.expand(GOOD, factor, RNG)


@settings(max_examples=25, deadline=None)
@given(st.one_of(st.floats(), st.text(max_size=3), st.booleans(), st.none()))
def test_expand_refuses_non_integer_factor(factor):
    with pytest.raises(TypeError, match="factor"):
        D.expand(GOOD, factor, RNG)


@settings(max_examples=25, deadline=None)
@given(st.one_of(st.floats(max_value=-1e-12), st.just(np.inf), st.just(np.nan)))
def test_expand_refuses_bad_jitter(jitter):
    with pytest.raises(ValueError, match="jitter"):
        D.expand(GOOD, 2, RNG, jitter=jitter)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 3), st.integers(0, 2), st.sampled_from([np.nan, np.inf, -np.inf]))
def test_tables_refuse_non_finite(i, j, bad):
    x = GOOD.copy()
    x[i, j] = bad
    for call in (lambda: D.expand(x, 2, RNG), lambda: D.normalize_colmax(x),
                 lambda: D.train_test_split(x, 0.5, RNG), lambda: D.trivial_accuracies(x)):
        with pytest.raises(ValueError, match="x must be finite"):
            call()


@settings(max_examples=25, deadline=None)
@given(hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=3))
def test_tables_refuse_wrong_shape(shape):
    if len(shape) == 2 and min(shape) > 0:
        return
    with pytest.raises(ValueError, match="x must be a non-empty 2-D array"):
        D.normalize_colmax(np.zeros(shape))


@settings(max_examples=25, deadline=None)
@given(st.one_of(st.floats(max_value=0), st.floats(min_value=1), st.just(np.nan)))
def test_split_refuses_fraction_outside_unit_interval(fraction):
    with pytest.raises(ValueError, match="test_fraction"):
        D.train_test_split(GOOD, fraction, RNG)


@settings(max_examples=25, deadline=None)
@given(st.integers(max_value=0))
def test_generator_refuses_rows_below_one(rows):
    with pytest.raises(ValueError, match="rows"):
        D.synthetic_fitbit(rows, RNG)


@settings(max_examples=25, deadline=None)
@given(not_generator)
def test_rng_must_be_generator(rng):
    for call in (lambda: D.synthetic_fitbit(5, rng), lambda: D.expand(GOOD, 2, rng),
                 lambda: D.train_test_split(GOOD, 0.5, rng)):
        with pytest.raises(TypeError, match="numpy.random.Generator"):
            call()


def test_type_errors_name_the_argument():
    with pytest.raises(TypeError, match="x must hold real numbers"):
        D.normalize_colmax(np.array([["a", "b"]]))
    with pytest.raises(TypeError, match="rows"):
        D.synthetic_fitbit(2.0, RNG)
    with pytest.raises(TypeError, match="test_fraction"):
        D.train_test_split(GOOD, "0.2", RNG)
    with pytest.raises(ValueError, match="export"):
        D.fitbit_table("third")


# --------------------------------------------------------------------------- issue 44

COLUMN = {name: i for i, name in enumerate(BRIEF_COLUMNS)}


def test_the_constraint_columns_are_named_by_the_loader():
    """The generator's constraint columns are the ones their names say (Sec. 5.2 of the
    brief): TrackerDistance copies TotalDistance, SedentaryMinutes is cut, Calories copied."""
    names = (D.COLUMNS[D._TOTAL], D.COLUMNS[D._TRACKER], D.COLUMNS[D._SEDENTARY],
             D.COLUMNS[D._CALORIES])
    assert names == ("TotalDistance", "TrackerDistance", "SedentaryMinutes", "Calories")
    assert D.COLUMNS[D._TRACKER] == BRIEF_COLUMNS[2]


def test_the_tracker_copy_lands_on_tracker_distance_and_a_shifted_index_fails(monkeypatch):
    """The stand-in's TrackerDistance equals TotalDistance in 96.5 % of the moving rows and no
    other distance column does; with the copy written to column 4 instead (the generated
    mutant ldp_companion.spof.data:68:45:x2) the tracker check fails (20,000 rows)."""
    table = D.synthetic_fitbit(GEN_ROWS, np.random.default_rng(3))
    moving = table[:, 1] > 0
    assert abs(_tracker_z(table)) < 4
    assert np.mean(table[moving, 4] == table[moving, 1]) < 0.01   # VeryActiveDistance
    monkeypatch.setattr(D, "_TRACKER", 4)
    bad = D.synthetic_fitbit(GEN_ROWS, np.random.default_rng(3))
    moving = bad[:, 1] > 0
    assert abs(_tracker_z(bad)) > 4
    assert np.mean(bad[moving, 4] == bad[moving, 1]) > 0.9


def test_the_real_table_s_tracker_share_is_the_generator_s(real):
    """Data fidelity: the stand-in's share of rows with TrackerDistance == TotalDistance is
    the real export's (441 of 457 rows), to the three decimals it is given in."""
    share = np.mean(real[:, COLUMN["TrackerDistance"]] == real[:, COLUMN["TotalDistance"]])
    assert abs(share - D.TRACKER_EQUALS_TOTAL) <= 5e-4
    assert int(round(share * len(real))) == 441
