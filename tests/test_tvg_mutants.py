"""Chapter 2's mutants (ldp_companion.tvg.mutants): each one, applied, changes the output of the
function it targets, and undoing it restores the original. Whether the chapter's verdicts notice
them is benchmarks/mutants.py's job (a chapter run per mutant)."""
from __future__ import annotations

import numpy as np
import pytest

from ldp_companion.tensor import calibration
from ldp_companion.tvg import bounds, noise, optimal, release
from ldp_companion.tvg.mutants import MUTANTS
from ldp_companion.verdicts.mutation import applied

BY_NAME = {m.name: m for m in MUTANTS}
P = np.array([4.0, 1.0, 0.25, 9.0])

# mutant -> a call of the targeted function (looked up at call time, so the mutant is used)
CALLS = {
    "idn-scale-half": lambda: bounds.idn_budget((5, 7, 3), 2.0, 1.0, 1e-5),
    "budget-times-4": lambda: bounds.budget(105, 2.0, 1.0, 1e-5),
    "zeta-no-cross-term": lambda: calibration.zeta(1000, 1e-5),
    "gauss-paper-quarter": lambda: noise.entry_std("gauss_paper", (256, 16, 5, 5), 1.0,
                                                   value_range=2.0),
    "alg1-exponent-sign": lambda: optimal.alg1_variances(P, 0.37),
    "mvg-sigma-tenth": lambda: calibration.mvg_iid_sigma(28, 10, 2.0, 1.0),
    "mvg-budget-times-4": lambda: calibration.mvg_budget(28, 10, 2.0, 1.0),
    "mvg-precision-double": lambda: release.mvg_binary_precisions(10, 3, 1.0),
    "gauss-analytic-double": lambda: calibration.gaussian_sigma(2.0, 1.0, 1e-5, "analytic"),
    "iid-release-half": lambda: release.iid_release(
        "idn", np.zeros((4, 5)), 1.0, rng=np.random.default_rng(0), value_range=2.0),
}


def test_there_are_at_least_four_mutants_each_with_a_call_here():
    assert len(MUTANTS) >= 4 and len(BY_NAME) == len(MUTANTS)
    assert set(CALLS) == set(BY_NAME)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_each_mutant_changes_its_function_and_is_undone(name):
    before = np.asarray(CALLS[name](), float)
    with applied(BY_NAME[name]):
        during = np.asarray(CALLS[name](), float)
    after = np.asarray(CALLS[name](), float)
    assert not np.allclose(during, before, rtol=1e-3)
    np.testing.assert_array_equal(after, before)


def test_the_analytic_mutant_leaves_the_other_gaussian_calibrations_alone():
    with applied(BY_NAME["gauss-analytic-double"]):
        assert calibration.gaussian_sigma(2.0, 1.0, 1e-5, "classic") == pytest.approx(
            2.0 * np.sqrt(2.0 * np.log(1.25e5)))
        assert calibration.gaussian_sigma(2.0, 2.0) == pytest.approx(1.0)


def test_the_gauss_mutant_leaves_the_other_mechanisms_alone():
    args = ("idn", (256, 16, 5, 5), 1.0)
    before = noise.entry_std(*args, value_range=2.0)
    with applied(BY_NAME["gauss-paper-quarter"]):
        assert noise.entry_std(*args, value_range=2.0) == before


def test_the_alg1_mutant_still_meets_the_constraint_but_misses_the_optimum():
    with applied(BY_NAME["alg1-exponent-sign"]):
        var = optimal.alg1_variances(P, 0.37)
    assert np.sum(1 / var) == pytest.approx(0.37, rel=1e-12)
    assert optimal.objective([P], [var]) > 1.1 * optimal.multimode_error([P], 0.37)
