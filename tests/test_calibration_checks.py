"""Issue 44: every TVG/MVG/IDN/UDN calibration and every Gaussian row of appendix C's true-ε
table has a check on the page that a wrong constant turns. Each check is run here as written
(it holds) and with a deliberate bug (a mutant of the chapter's ``mutants`` module, or a
constant off by 0.1, 0.5 or 2), which must change its verdict."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from ldp_companion.verdicts.ledger import Ledger
from ldp_companion.verdicts.mutation import Mutant, applied, scaled

DELTA = 1e-5


#: Every claim these tests record, each citing one place (a test ledger's refs).
_REFS = dict.fromkeys(["thm4-calibration", "table4-mvg", "release-noise", "gauss-calibration",
                       "table5-laplace", "table5-gaussian", "table5-mvg", "table5-idn",
                       "table5-tldp-l", "table5-tldp-g", "table5-mvg-squared",
                       "table5-g-below-l", "true-eps-tensor-exact", "true-eps-tensor-noise",
                       "square-wave-law"], "Sec. X")


def _verdicts(record, *args, **kwargs) -> dict:
    """Verdicts of the claims ``record(ledger, *args)`` writes, in a ledger that takes any id."""
    ledger = Ledger("t", refs=_REFS)
    record(ledger, *args, **kwargs)
    return ledger.table().set_index("claim_id")["verdict"].to_dict()


def _by_name(module):
    return {m.name: m for m in module.MUTANTS}


# ------------------------------------------------------------------ chapter 2: MVG, Eq. 30

@pytest.fixture(scope="module")
def workloads():
    from ldp_companion.tvg import theorem_checks as thm
    return thm.udn_cases(np.random.default_rng([0, 2]))


def test_printed_mvg_budget_matches_the_brief_s_ratios_and_the_package():
    """The brief's reference values (errata): TVG's budget over √(mn) and MVG's is 37.5072 at
    256×400 and 46.4649 at 3136×512 (γ = √(mn), s₂ = 2√(mn), ε = 1)."""
    from ldp_companion.tensor.calibration import mvg_budget
    from ldp_companion.tvg import reference

    for (m, n), ratio in (((256, 400), 37.5072), ((3136, 512), 46.4649)):
        s2, g = 2 * math.sqrt(m * n), math.sqrt(m * n)
        b = reference.mvg_budget(m, n, s2, 1.0, DELTA, g)
        assert reference.budget(m * n, s2, 1.0, DELTA) / math.sqrt(m * n) / b == \
            pytest.approx(ratio, abs=5e-5)
        assert mvg_budget(m, n, s2, 1.0, DELTA, g) == pytest.approx(b, rel=1e-12)


def test_the_mvg_reference_uses_none_of_the_package():
    from ldp_companion.tvg import reference
    before = reference.mvg_budget(28, 10, 2.0, 1.0, DELTA, 1.0)
    with applied(Mutant("m", "B_MVG x 4", "ldp_companion.tensor.calibration:mvg_budget",
                        scaled(4.0))):
        assert reference.mvg_budget(28, 10, 2.0, 1.0, DELTA, 1.0) == before


def _thm4(workloads):
    from ldp_companion.tvg import calibration_checks as cc
    table = cc.mvg_condition(DELTA, workloads, shapes=[(28, 10), (256, 400)],
                             epsilons=(0.1, 10.0))
    return _verdicts(cc.record_mvg_calibration, table)["thm4-calibration"]


def test_eq30_check_holds_as_written_and_its_shortfall_breaks_the_condition(workloads):
    from ldp_companion.tvg import calibration_checks as cc
    table = cc.mvg_condition(DELTA, workloads, shapes=[(28, 10)], epsilons=(1.0,))
    assert set(table["noise"].str.split(" ").str[0]) == {"mvg_iid_sigma", "chapter", "Type"}
    np.testing.assert_allclose(table["left / B_MVG"], 1.0, rtol=1e-9)
    np.testing.assert_allclose(table[f"left / B_MVG at {cc.SHORTFALL} σ"], 1 / 0.99**2,
                               rtol=1e-9)
    assert _thm4(workloads) == "holds"


@pytest.mark.parametrize("name", ["mvg-sigma-tenth", "mvg-budget-times-4",
                                  "mvg-precision-double"])
def test_each_mvg_mutant_of_chapter_2_turns_the_eq30_check(workloads, name):
    from ldp_companion.tvg import mutants
    with applied(_by_name(mutants)[name]):
        assert _thm4(workloads) in ("fails", "partly")


@pytest.mark.parametrize("factor", [0.1, 0.5, 2.0])
def test_the_eq30_check_sees_mvg_iid_sigma_off_either_way(workloads, factor):
    with applied(Mutant("s", "σ off", "ldp_companion.tensor.calibration:mvg_iid_sigma",
                        scaled(factor))):
        assert _thm4(workloads) == "partly"   # the other two MVG noises still hold


def test_table4_mvg_holds_and_a_wrong_budget_or_sigma_turns_it():
    from ldp_companion.tvg import calibration_checks as cc
    from ldp_companion.tvg import noise
    from ldp_companion.tvg.mutants import MUTANTS
    shapes = {"Credit (I)": ((28, 10), 0.1), "IMDB": ((256, 150), 1.0)}

    def verdict():
        return _verdicts(cc.record_mvg_table4, cc.mvg_table4_ratios(DELTA, shapes))[
            "table4-mvg"]

    assert verdict() == "holds"
    with applied(next(m for m in MUTANTS if m.name == "mvg-budget-times-4")):
        assert verdict() == "fails"

    def mvg_double(original):
        def entry_std(mechanism, *args, **kwargs):
            out = original(mechanism, *args, **kwargs)
            return 2.0 * out if mechanism == "mvg" else out
        return entry_std
    with applied(Mutant("e", "mvg σ x 2", "ldp_companion.tvg.noise:entry_std", mvg_double)):
        assert noise.entry_std("mvg", (28, 10), 1.0, value_range=0.2) > 0
        assert verdict() == "fails"


# ------------------------------------------------------------------ chapter 2: the releases

def _release_verdict(workloads, n=4):
    from ldp_companion.tvg import calibration_checks as cc
    table = cc.release_noise(np.random.default_rng(7), n, DELTA, shape=(32, 50),
                             workload=workloads[-1])
    return _verdicts(cc.record_release_noise, table)["release-noise"]


def test_release_noise_holds_and_a_release_ignoring_its_sigma_fails(workloads):
    from ldp_companion.tvg import mutants
    assert _release_verdict(workloads) == "holds"
    with applied(_by_name(mutants)["iid-release-half"]):
        assert _release_verdict(workloads) == "partly"   # the directional cells still hold


def test_release_noise_sees_a_directional_release_drawing_sigma_squared(workloads):
    """A directional release that applies σ² where σ belongs (U₁ = W_U diag(σ²))."""
    def release_sq(original):
        from ldp_companion.tvg import release

        def directional_release(mechanism, x, w, epsilon, delta=1e-5, *, rng, value_range,
                                tau=0.9):
            if mechanism not in release.DIRECTIONAL:
                return original(mechanism, x, w, epsilon, delta, rng=rng,
                                value_range=value_range, tau=tau)
            basis, sd = release.directional_noise(mechanism, w, np.shape(x), epsilon, delta,
                                                  value_range=value_range, tau=tau)
            draw = rng.standard_normal(np.shape(x))
            u = np.diag(sd**2) if basis is None else basis * sd**2
            return np.asarray(x, float) + u @ draw
        return directional_release

    with applied(Mutant("d", "σ² for σ", "ldp_companion.tvg.release:directional_release",
                        release_sq)):
        assert _release_verdict(workloads) == "partly"   # the i.i.d. cells still hold


# ------------------------------------------------------------------ chapter 2: analytic Gaussian

def _analytic_scaled(factor):
    """``make`` for ``gaussian_sigma`` with the analytic calibration's σ times ``factor``."""
    def make(original):
        def gaussian_sigma(l2_sensitivity, epsilon, delta=1e-5, method="zcdp"):
            out = original(l2_sensitivity, epsilon, delta, method)
            return factor * out if method == "analytic" else out
        return gaussian_sigma
    return make


@pytest.mark.parametrize("factor", [0.5, 2.0])
def test_gauss_calibration_sees_the_analytic_sigma_off(factor):
    from ldp_companion.tvg import mutants, table4
    shapes = {"Credit (I)": ((28, 10), 0.1)}

    def verdict():
        return _verdicts(table4.record_gauss_calibration,
                         table4.gauss_calibration(DELTA, shapes))["gauss-calibration"]

    assert verdict() == "holds"
    mutant = _by_name(mutants)["gauss-analytic-double"] if factor == 2.0 else Mutant(
        "a", "analytic σ off", "ldp_companion.tensor.calibration:gaussian_sigma",
        _analytic_scaled(factor))
    with applied(mutant):
        assert verdict() == "partly"    # the paper's and the classical Gaussian still hold


# ------------------------------------------------------------------ chapter 1: Table V's MVG

def _table5(n=200):
    from ldp_companion.tldp import claims, error
    tv = error.table_v({"MNIST": (28, 28)}, 256.0, [1.0, 8.0], n, np.random.default_rng(0))
    return _verdicts(claims.record_table5, tv, n)


def test_table5_mvg_squared_holds_and_the_printed_entry_fails():
    v = _table5()
    assert v["table5-mvg-squared"] == "holds" and v["table5-mvg"] == "fails"


@pytest.mark.parametrize("factor", [0.1, 0.5, 2.0])
def test_table5_mvg_squared_sees_the_mvg_baseline_off(factor):
    from ldp_companion.tldp import mutants
    mutant = _by_name(mutants)["mvg-sigma-tenth"] if factor == 0.1 else Mutant(
        "s", "σ off", "ldp_companion.tensor.calibration:mvg_iid_sigma", scaled(factor))
    with applied(mutant):
        assert _table5()["table5-mvg-squared"] == "fails"


# ------------------------------------------------------------------ appendix C: the rows

SHAPE, RANGE = (28, 28), 256.0


def test_predicted_exact_meets_the_briefs_reference_values():
    """TLDP's brief: the Gaussian baseline spends 6.57 at ε = 1 (μ = √2), TLDP-G 951.93 on
    MNIST at ε = 1 (μ = 39.598); TVG's: IDN's σ = s₂/c."""
    from ldp_companion.compare import row_checks as rc
    assert rc.predicted_exact("gaussian", 1.0, SHAPE, RANGE, DELTA) == pytest.approx(6.57,
                                                                                    abs=0.005)
    assert rc.predicted_exact("tldp_g", 1.0, SHAPE, RANGE, DELTA) == pytest.approx(951.93,
                                                                                  abs=0.005)
    # at a tiny budget TLDP-G keeps entries with probability above δ: no finite ε
    assert rc.predicted_exact("tldp_g", 1e-4, SHAPE, RANGE, DELTA) == math.inf
    with pytest.raises(ValueError):
        rc.predicted_exact("laplace", 1.0, SHAPE, RANGE, DELTA)


def _rows(eps=(1.0,), n=100):
    from ldp_companion.compare import row_checks as rc
    table = rc.tensor_rows(list(eps), SHAPE, RANGE, DELTA, np.random.default_rng(8), n=n)
    return _verdicts(rc.record_tensor_rows, table, n)


def test_the_row_checks_hold_as_written():
    v = _rows()
    assert v["true-eps-tensor-exact"] == "holds" and v["true-eps-tensor-noise"] == "holds"


@pytest.mark.parametrize("name, exact, noise", [
    ("mvg-exact-sigma-tenth", "partly", "partly"),   # exact ε off, sampler right: both see it
    ("idn-sigma-half", "partly", "holds"),           # sampler and exact ε both off together
    ("udn-sampler-double", "holds", "partly"),       # the sampler alone off
    ("tldp-g-exact-half", "partly", "holds"),        # TLDP-G's μ conversion off
])
def test_each_row_mutant_of_appendix_c_turns_a_row_check(name, exact, noise):
    from ldp_companion.compare import mutants
    with applied(_by_name(mutants)[name]):
        v = _rows()
    assert (v["true-eps-tensor-exact"], v["true-eps-tensor-noise"]) == (exact, noise)


@pytest.mark.parametrize("factor", [0.1, 0.5, 2.0])
@pytest.mark.parametrize("target", ["mvg_iid_sigma", "idn_sigma"])
def test_the_exact_check_sees_a_tvg_calibration_off_either_way(factor, target):
    with applied(Mutant("s", "σ off", f"ldp_companion.tensor.calibration:{target}",
                        scaled(factor))):
        assert _rows()["true-eps-tensor-exact"] == "partly"


def test_the_exact_check_sees_the_gaussian_baseline_off():
    def zcdp_half(original):
        def gaussian_sigma(l2_sensitivity, epsilon, delta=1e-5, method="zcdp"):
            out = original(l2_sensitivity, epsilon, delta, method)
            return 0.5 * out if method == "zcdp" else out
        return gaussian_sigma
    with applied(Mutant("g", "zCDP σ halved", "ldp_companion.tensor.calibration:gaussian_sigma",
                        zcdp_half)):
        assert _rows()["true-eps-tensor-exact"] == "partly"


# ------------------------------------------------------------------ appendix C: Square Wave

def _square_wave(n=50_000):
    from ldp_companion.compare import row_checks as rc
    fit = rc.square_wave_fit([0.5, 2.0], n, np.random.default_rng(9))
    return fit, _verdicts(rc.record_square_wave_law, fit, n)["square-wave-law"]


def test_square_wave_law_holds_and_its_mass_is_one():
    fit, verdict = _square_wave()
    assert verdict == "holds"
    np.testing.assert_allclose(fit["mass"], 1.0, rtol=1e-12)


def test_square_wave_law_sees_a_law_written_for_another_epsilon():
    from ldp_companion.compare import mutants
    with applied(_by_name(mutants)["square-wave-law-2eps"]):
        assert _square_wave()[1] == "fails"


def test_square_wave_law_sees_a_sampler_off_by_a_constant():
    """The sampler's in-window probability 2bp scaled by 0.9 (its law unchanged)."""
    from ldp_companion.byom.square_wave import SquareWave

    def wrong(original):
        def _privatize(self, x, rng):
            p = self.p
            try:
                self.p = 0.9 * p
                return original(self, x, rng)
            finally:
                self.p = p
        return _privatize
    with applied(Mutant("w", "window mass x 0.9",
                        "ldp_companion.byom.square_wave:SquareWave._privatize", wrong)):
        assert SquareWave(1.0).p > 0
        assert _square_wave()[1] == "fails"


# ------------------------------------------------------------------ appendix C: item 7

def test_the_claimed_ratio_of_tldp_g_to_its_gaussian_is_i():
    from ldp_companion.compare import utility
    errors = pd.DataFrame({
        "task": "t", "mechanism": ["gaussian", "tldp_g"] * 2, "epsilon": [1.0, 1.0, 2.0, 2.0],
        "basis": "claimed", "budget": [1.0, 1.0, 2.0, 2.0],
        "error": [784 * 256**2 / 2, 256**2 / 2, 784 * 256**2 / 4, 256**2 / 4]})
    assert utility.claimed_ratio(errors, "gaussian", "tldp_g") == pytest.approx(784)
    errors.loc[0, "error"] *= 2
    with pytest.raises(ValueError):
        utility.claimed_ratio(errors, "gaussian", "tldp_g")


def test_the_decided_by_construction_claims_are_gone():
    from ldp_companion.compare import claims, items
    assert not hasattr(claims, "record_tensor_claims")
    for cid in ("tldpg-beats-gaussian-claimed", "tldpg-beats-gaussian-true", "true-eps-pm"):
        assert cid not in items.CLAIM_REFS
