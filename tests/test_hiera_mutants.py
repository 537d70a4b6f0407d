"""Chapter 5's mutants (ldp_companion.hiera.mutants): each one, once applied, changes what the
function it targets returns; and the chapter's short summary is computed from the verdicts."""
from __future__ import annotations

import numpy as np
import pytest

from ldp_companion import hiera as H
from ldp_companion.hiera.mutants import MUTANTS
from ldp_companion.verdicts.mutation import applied


def _counts_that_clip():
    """Report counts whose debiased pool means leave [-1, 1] (all bits +1, small pools)."""
    return np.tile([[4, 0]], (5, 1))


#: What each mutant's target returns on a fixed input, read through the package's namespace
#: at call time (so a replaced binding is seen).
PROBES = {
    "graded-laplace-scale-half":
        lambda: H.GradedLaplace(H.paper_levels(1.0)).scale(np.array([-0.9, 0.0, 0.9])),
    "grr-half-budget":
        lambda: H.grr(np.full(2_000, 1), np.full(2_000, 2.0), 5, np.random.default_rng(0)),
    "level-budgets-off-by-one": lambda: H.paper_levels(0.5).epsilons,
    "bit-at-true-level":
        lambda: H.lhp(np.linspace(-1, 1, 2_000), H.paper_levels(0.2),
                      np.random.default_rng(1))[1],
    "no-compensation": lambda: H.pool_plan(5, 3),
    "no-clipping":
        lambda: H.pool_sums(_counts_that_clip(), H.paper_levels(0.1), 2,
                            np.random.default_rng(2))[0],
}


def test_every_mutant_has_a_probe_and_a_unique_name():
    names = [m.name for m in MUTANTS]
    assert len(names) == len(set(names)) >= 4
    assert set(PROBES) == set(names)


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.name)
def test_applying_a_mutant_changes_its_target_and_is_undone(mutant):
    before = np.asarray(PROBES[mutant.name](), float)
    with applied(mutant):
        during = np.asarray(PROBES[mutant.name](), float)
    after = np.asarray(PROBES[mutant.name](), float)
    assert during.shape == before.shape
    assert not np.allclose(during, before), f"{mutant.name} changes nothing"
    np.testing.assert_array_equal(after, before)


def test_the_mutants_break_what_they_say():
    by = {m.name: m for m in MUTANTS}
    with applied(by["graded-laplace-scale-half"]):
        # 1/ε₅, not 2/ε₅
        assert H.GradedLaplace(H.paper_levels(1.0)).scale(1.0) == pytest.approx(1.0)
    with applied(by["level-budgets-off-by-one"]):
        np.testing.assert_allclose(H.paper_levels(0.5).epsilons, [3.0, 2.5, 2.0, 1.5, 1.0])
    with applied(by["no-compensation"]):
        assert H.pool_plan(5, 3).sum(axis=1).tolist() == [3, 3, 3, 2, 1]
    # GRR at half the budget keeps level 1 at base 2 (ε₁ = 10) w.p. 1/(1 + 4e^-5),
    # not 1/(1 + 4e^-10)
    with applied(by["grr-half-budget"]):
        kept = np.mean(H.grr(np.full(200_000, 1), np.full(200_000, 10.0), 5,
                             np.random.default_rng(3)) == 1)
    p = 1 / (1 + 4 * np.exp(-5.0))
    assert abs(kept - p) < 4 * np.sqrt(p * (1 - p) / 200_000)


def _config(profile):
    from ldp_companion.hiera.params import PARAMS

    return PARAMS.resolve({"profile": profile, "seed": 0, **{n: None for n in PARAMS.spec}})


def test_the_figures_are_reduced_in_every_profile_and_say_why():
    """Figs. 1-3 run on stand-in data in every profile, so even the paper profile earns
    'reduced'; a smaller run also names the sizes that differ."""
    from ldp_companion.hiera.items import ITEMS

    paper = ITEMS.resolve(_config("paper"))
    smoke = ITEMS.resolve(_config("smoke"))
    for ref in ("Fig. 1", "Fig. 2", "Fig. 3"):
        item = ITEMS.item(ref)
        assert item.status == "reproduced" and item.setup and "TODO" not in item.differs
        assert "stand in" in item.differs
        assert paper.item(ref).status == "reduced"
        assert paper.item(ref).differs == item.differs          # only the stand-ins differ
        assert smoke.item(ref).status == "reduced"
    assert smoke.item("Fig. 1").differs.startswith("runs 10 (paper setup: 100); n_real")
    assert "cv_repeats 1 (paper setup: 10)" in smoke.item("Fig. 3").differs
    assert paper.item("Theorem 2") == ITEMS.item("Theorem 2")   # checked items are untouched
