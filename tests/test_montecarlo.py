"""Monte Carlo moment checks: z-scores for the mean and the variance that a correct sampler
passes and a wrong one fails."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from ldp_companion import get_mechanism
from ldp_companion.auditing.montecarlo import (
    bonferroni_z,
    estimated_scale,
    means_match,
    moment_check,
    paired_differences,
)
from ldp_companion.mechanisms.laplace import Laplace

N = 200_000
XS = [-1.0, 0.0, 0.3, 1.0]


class _NoisyLaplace(Laplace):
    """Samples with a scale ``factor`` times the stated one, keeps the stated variance."""

    factor = 1.0

    def _privatize(self, x, rng):
        return x + rng.laplace(0.0, self.factor * self.scale, size=np.shape(x))


def test_bonferroni_bound():
    assert bonferroni_z(1, 0.05) == pytest.approx(stats.norm.isf(0.025), rel=1e-12)
    assert bonferroni_z(160) == pytest.approx(4.5178, abs=1e-4)
    with pytest.raises(ValueError):
        bonferroni_z(10, 1.5)


@pytest.mark.parametrize("name", ["laplace", "duchi", "pm", "hm_tp"])
def test_correct_sampler_passes(name):
    mc = moment_check(get_mechanism(name, 1.0), XS, N, np.random.default_rng(7))
    bound = bonferroni_z(len(XS))
    assert (mc["z"].abs() < bound).all() and (mc["z_var"].abs() < bound).all(), mc


@pytest.mark.parametrize("factor", [np.sqrt(2.0), np.sqrt(1.05)])
def test_wrong_variance_fails(factor):
    """A 2x variance error, and even a 5 % one, is far outside the bound at n = 2e5."""
    mech = type("Mutant", (_NoisyLaplace,), {"factor": factor})(1.0)
    mc = moment_check(mech, XS, N, np.random.default_rng(7))
    assert (mc["z_var"].abs() > bonferroni_z(len(XS))).all(), mc
    assert (mc["z"].abs() < bonferroni_z(len(XS))).all()  # the mean is still right


def test_means_match_passes_a_correct_formula_and_fails_a_wrong_factor():
    """288 cells of 10 runs of a chi-square(5)/5 MSE (relative sd 0.63 per run): the right
    expectation passes; twice it, or 1.25 times it, fails (pooled); one cell off by 10x fails."""
    rng = np.random.default_rng(5)
    expected = rng.uniform(0.01, 10.0, 288)
    runs = expected[:, None] * rng.chisquare(5, (288, 10)) / 5
    means, sds = runs.mean(axis=1), runs.std(axis=1, ddof=1)
    ok, summary = means_match(means, sds, expected, 10)
    assert ok.all(), summary
    for factor in (2.0, 1.25):
        ok, summary = means_match(means, sds, factor * expected, 10)
        assert not ok[-1], summary
    broken = expected.copy()
    broken[7] *= 10.0
    ok, _ = means_match(means, sds, broken, 10)
    assert not ok[7]
    with pytest.raises(ValueError):
        means_match(means, sds, expected, 1)


def test_paired_differences_per_setting_and_by_mapping():
    import pandas as pd

    idx = pd.MultiIndex.from_product([["a", "b"], [0, 1, 2]], names=["task", "seed"])
    runs = pd.DataFrame({"x": [1.0, 2, 3, 10, 20, 30], "y": [0.0, 0, 0, 1, 1, 1],
                         "z": [5.0, 5, 5, 0, 0, 0]}, index=idx)
    np.testing.assert_array_equal(paired_differences(runs, "task", "x", "y"),
                                  [[1, 2, 3], [9, 19, 29]])
    best = pd.Series({"a": "z", "b": "y"})  # the column compared depends on the setting
    np.testing.assert_array_equal(paired_differences(runs, "task", "x", best),
                                  [[-4, -3, -2], [9, 19, 29]])


def test_estimated_scale_of_laplace_and_gaussian_noise():
    rng = np.random.default_rng(2)
    n = 100_000
    b, se = estimated_scale(rng.laplace(0, 3.0, n))
    rse = se / b
    assert abs(b - 3.0) <= 4 * rse * b and rse == pytest.approx(1 / math.sqrt(n), rel=0.02)
    s, se = estimated_scale(rng.normal(0, 2.0, n), "gaussian")
    rse = se / s
    assert abs(s - 2.0) <= 4 * rse * s and rse == pytest.approx(math.sqrt(0.5 / n), rel=0.02)
    with pytest.raises(ValueError, match="noise"):
        estimated_scale([1.0, 2.0], "cauchy")
    with pytest.raises(ValueError, match="finite"):
        estimated_scale([1.0, np.nan])
