"""The black-box auditor's validity, tested: over repeated audits of mechanisms of known ε its
bounds exceed the exact ε no more often than 1 − confidence, and an invalid auditor (the
mutant ``same-sample-auditor``: classifier, threshold and bound on one sample) fails the same
binomial test. Also: the largest bound n outputs can give, the validation on broken tensor,
tuple and record releases, and ``blackbox-agrees`` over the rows that can fail.

Seeded runs; the sizes are stated in each test (appendix C's smoke profile: 20 audits of each
of the 5 mechanisms, n = 1,000 outputs per input).
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from ldp_companion.auditing import blackbox
from ldp_companion.compare import claims, true_epsilon
from ldp_companion.compare.mutants import MUTANTS, SAME_SAMPLE
from ldp_companion.verdicts.ledger import Ledger

K, N = 20, 1_000


def _coverage(seed: int = 0) -> blackbox.Coverage:
    return blackbox.auditor_coverage(blackbox.known_mechanisms(), K, N,
                                     np.random.default_rng(seed))


@pytest.fixture(scope="module")
def as_written():
    return _coverage()


@pytest.fixture(scope="module")
def same_sample():
    original = blackbox.sniper_audit
    blackbox.sniper_audit = SAME_SAMPLE.make(original)
    try:
        return _coverage()
    finally:
        blackbox.sniper_audit = original


def _verdict(coverage) -> str:
    ledger = Ledger("C-compare", refs={"auditor-coverage": "Sec. C.1"})
    claims.record_coverage(ledger, coverage)
    return ledger.table().set_index("claim_id").loc["auditor-coverage", "verdict"]


def test_the_auditor_passes_the_coverage_test(as_written):
    """100 audits at 95 %: a valid auditor may exceed in 5 % of them; this one exceeds in none
    (the bound is conservative: two Clopper-Pearson bounds must both err)."""
    assert as_written.audits == K * len(blackbox.known_mechanisms())
    assert as_written.hits <= 2 and as_written.p_value > 0.5
    assert np.all(as_written.bounds <= as_written.caps[:, None])
    assert _verdict(as_written) == "holds"


def test_the_same_sample_auditor_fails_it(same_sample):
    """The histograms learn the one sample's noise: every bound on one input twice (exact ε
    0) and on Laplace exceeds the truth, 60 of 100 in all (p ≈ 10⁻⁵²)."""
    table = same_sample.table().set_index("mechanism")
    assert table.loc["Laplace, one input twice", "above exact"] == K
    assert table.loc["Laplace, ε = 0.5", "above exact"] == K
    assert same_sample.hits >= 50 and same_sample.p_value < 1e-30
    assert _verdict(same_sample) == "fails"


def test_the_mutant_is_listed_and_targets_the_auditor():
    assert SAME_SAMPLE in MUTANTS
    module, name = SAME_SAMPLE.target.split(":")
    assert (module == "ldp_companion.auditing.blackbox"
            and getattr(blackbox, name) is blackbox.sniper_audit)


def test_the_p_value_is_the_binomial_tail():
    """4 exceedances in 20 audits at 95 %: P(Binomial(20, 0.05) ≥ 4); a bound within rounding
    of its exact ε is no exceedance, a positive bound on an exact ε of 0 is one."""
    bounds = np.array([[0.0, 1e-3, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                       [1.0 + 1e-12, 1.2, 1.5, 1.01, 0.9, 0.5, 0.2, 0.0, 0.99, 1.0]])
    cov = blackbox.Coverage(("zero", "one"), np.array([0.0, 1.0]), bounds, 0.95,
                            np.array([5.0, 5.0]))
    assert cov.hits == 4 and cov.audits == 20
    assert cov.p_value == pytest.approx(stats.binom.sf(3, 20, 0.05), rel=1e-12)
    assert cov.table()["above exact"].tolist() == [1, 3]


def test_largest_bound_is_the_all_in_region_bound():
    """``log(α^{1/m} / (1 − α^{1/m}))`` with m held-out outputs, α = (1 − c)/2; a mechanism
    whose outputs never overlap is bounded at exactly that (n = 2,000: 5.60)."""
    for n, c in ((2_000, 0.95), (1_001, 0.99)):
        m, alpha = n - n // 2, (1 - c) / 2
        low = alpha ** (1 / m)
        assert blackbox.largest_bound(n, c) == pytest.approx(math.log(low / (1 - low)),
                                                             rel=1e-9)
    assert blackbox.largest_bound(2_000, 0.95, 1e-3) < blackbox.largest_bound(2_000, 0.95)
    assert blackbox.largest_bound(10, 0.95, 0.9) == 0.0      # δ above any lower bound

    def apart(x, m, rng):                                     # M(x) = x: ε is infinite
        return np.full((m, 1), float(np.ravel(x)[0]))

    found = blackbox.dp_sniper(apart, [(np.ones(1), -np.ones(1))], 2_000,
                               np.random.default_rng(1))
    assert found.epsilon_lower == pytest.approx(blackbox.largest_bound(2_000), rel=1e-9)


@pytest.mark.parametrize("call,match", [
    (lambda: blackbox.auditor_coverage([], 2, 100, np.random.default_rng(0)), "non-empty"),
    (lambda: blackbox.auditor_coverage(blackbox.known_mechanisms()[:1], 0, 100,
                                       np.random.default_rng(0)), "repeats"),
    (lambda: blackbox.auditor_coverage(blackbox.known_mechanisms()[:1], 2, 4,
                                       np.random.default_rng(0)), "n must be"),
    (lambda: blackbox.auditor_coverage(blackbox.known_mechanisms()[:1], 2, 100,
                                       np.random.default_rng(0), confidence=1.0),
     "confidence"),
    (lambda: blackbox.KnownMechanism("x", None, [], math.inf), "finite"),
    (lambda: blackbox.KnownMechanism("x", None, [], 1.0, delta=1.0), "delta"),
    (lambda: blackbox.largest_bound(1), "n must be"),
])
def test_bad_arguments_are_refused(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# --- the validation on broken tensor, tuple and record releases -----------------------------

def test_broken_releases_spend_four_times_their_claim():
    """Laplace noise 4× too small: 4 ε for the tensor and the tuple, 4 × Alg. 2's own exact ε
    (ε) for the record, each from its law."""
    entries = {e.kind: e for e in true_epsilon.broken_entries(1.0, 256.0)}
    assert set(entries) == {"tensor", "tuple", "record"}
    for entry in entries.values():
        assert entry.claimed == 1.0 and entry.exact == pytest.approx(4.0, rel=1e-9)
    rng = np.random.default_rng(9)
    y = entries["tensor"].sampler(np.zeros(true_epsilon.BROKEN_SHAPE), 200_000, rng)
    scale = 256.0 * 4 / 4.0                                   # IΔ/(4ε), I = 4
    assert np.abs(y).mean() == pytest.approx(scale, rel=0.01)  # E|Lap(b)| = b


def test_validation_audits_each_broken_release_with_each_classifier():
    cases = true_epsilon._broken_cases(1_000, 500, 256.0)
    assert sorted((name, kind) for name, *_, kind, _ in cases) == sorted(
        (e.key, kind) for e in true_epsilon.broken_entries(1.0, 256.0)
        for kind in ("histogram", "logistic"))
    assert {size for *_, size in cases} == {1_000, 500}   # the tensor with n_tensor


@pytest.mark.parametrize("kind", ["tensor", "tuple", "record"])
def test_logistic_regression_catches_each_broken_release(kind):
    """From samples alone (tensor: 2,000 outputs per input, as at smoke; tuple and record:
    20,000), at a family confidence of 1 − 5 %/21, the bound tops the claim and stays under
    the exact ε."""
    entry = next(e for e in true_epsilon.broken_entries(1.0, 256.0) if e.kind == kind)
    found = blackbox.dp_sniper(entry.sampler, entry.pairs, 2_000 if kind == "tensor" else
                               20_000, np.random.default_rng(11), classifier="logistic",
                               confidence=true_epsilon.family_confidence(21),
                               claimed_epsilon=entry.claimed)
    assert found.flagged and found.epsilon_lower <= entry.exact


# --- blackbox-agrees over the rows that can fail ----------------------------------------------

def test_blackbox_agrees_leaves_out_rows_that_cannot_fail():
    """An infinite exact ε and one above the largest bound cannot be exceeded: left out and
    counted. A bound over a finite exact ε below the cap fails the claim."""
    table = pd.DataFrame({"exact": [1.0, math.inf, 9.0, 0.5],
                          "black-box lower bound": [0.8, 5.0, 5.0, 0.0],
                          "largest bound": [5.6, 5.6, 5.6, 5.6]})
    assert claims.checkable(table).tolist() == [True, False, False, True]
    assert claims.checkable(table.drop(columns="largest bound")).tolist() == [
        True, False, True, True]

    def agrees(frame):
        ledger = Ledger("C-compare", refs={"blackbox-agrees": "Sec. C.2"})
        real, claims._PAPER_CLAIMS = claims._PAPER_CLAIMS, {}
        try:
            claims.record_true_epsilon(ledger, frame)
        finally:
            claims._PAPER_CLAIMS = real
        return ledger.claims()[0]

    claim = agrees(table)
    assert claim.verdict == "holds" and "2 of 4 rows; 2 left out" in claim.statement
    assert claim.note.startswith("1 of the 2 bounds compared are 0")
    assert agrees(table.assign(**{"black-box lower bound": [1.2, 5.0, 5.0, 0.0]})).verdict \
        == "partly"
