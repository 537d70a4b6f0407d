"""Chapter 2's independent references (tvg.reference), calibration audits (tvg.audits) and the
Tables II–III shape check (tvg.settings): each agrees with the package where the package is
right, and each is shown catching a wrong constant, a dropped term or a wrong network."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from ldp_companion.tvg import audits, bounds, noise, privacy, reference, release, settings
from ldp_companion.verdicts.ledger import Ledger
from ldp_companion.verdicts.mutation import Mutant, applied, scaled

DELTA = 1e-5
MNIST = (256, 16, 5, 5)


# ----------------------------------------------------------------- reference (50 digits)

def test_printed_budget_matches_the_brief_and_the_package_everywhere():
    # the brief's example: I = 8, s2 = 1, eps = 1 gives zeta^2 = 50.22, B = 0.019526
    assert reference.zeta2(8, DELTA) == pytest.approx(50.22, abs=0.005)
    assert reference.budget(8, 1.0, 1.0, DELTA) == pytest.approx(0.019526, abs=5e-7)
    for size in (1, 8, 105, 102_400, 1_605_632):
        for s2 in (1.0, 2 * math.sqrt(size)):
            for eps in (0.1, 1.0, 100.0, 1e7):
                assert bounds.budget(size, s2, eps, DELTA) == pytest.approx(
                    reference.budget(size, s2, eps, DELTA), rel=1e-12)


def test_the_printed_form_in_doubles_would_lose_digits_that_50_digits_keep():
    # at I = 1.6 million and eps = 0.1 the printed (-beta + sqrt(...)) cancels in doubles
    size, s2, eps = 1_605_632, 2 * math.sqrt(1_605_632), 0.1
    forms = bounds.budget_forms(size, s2, eps, DELTA)
    printed = forms["(-β + √(β² + 8αε))² / 4α²"]
    exact = reference.budget(size, s2, eps, DELTA)
    assert abs(printed / exact - 1) > 1e-10
    assert bounds.budget(size, s2, eps, DELTA) == pytest.approx(exact, rel=1e-13)


def test_idn_budget_and_alg1_variances_are_the_printed_ones():
    assert bounds.idn_budget((5, 7, 3), 2.0, 1.0, DELTA) == pytest.approx(
        reference.idn_budget((5, 7, 3), 2.0, 1.0, DELTA), rel=1e-12)
    p = np.array([4.0, 1.0, 0.25, 9.0])
    from ldp_companion.tvg.optimal import alg1_variances
    np.testing.assert_allclose(alg1_variances(p, 0.37), reference.alg1_variances(p, 0.37),
                               rtol=1e-13)


@pytest.mark.parametrize("mu", [0.003, 0.06, 1.0, 5.0, 30.0])
def test_exact_gaussian_epsilon_agrees_with_the_package_audit(mu):
    eps = reference.gaussian_epsilon(mu, DELTA)
    assert privacy.true_epsilon(mu, DELTA) == pytest.approx(eps, rel=1e-9)
    assert reference.gaussian_delta(mu, eps) == pytest.approx(DELTA, rel=1e-9)


def test_exact_gaussian_epsilon_edge_cases():
    assert reference.gaussian_epsilon(1e-6, DELTA) == 0.0     # delta(0) <= delta already
    with pytest.raises(ValueError):
        reference.gaussian_epsilon(-1.0, DELTA)
    with pytest.raises(ValueError):
        reference.gaussian_epsilon(1.0, 1.5)


def test_the_reference_uses_none_of_the_package():
    """A mutant of the package's bound or zeta leaves the reference unchanged."""
    before = reference.budget(105, 2.0, 1.0, DELTA)
    with applied(Mutant("b", "B x 4", "ldp_companion.tvg.bounds:_budget", scaled(4.0))):
        assert reference.budget(105, 2.0, 1.0, DELTA) == before
    with applied(Mutant("z", "zeta x 2", "ldp_companion.tensor.calibration:zeta",
                        scaled(2.0))):
        assert reference.budget(105, 2.0, 1.0, DELTA) == before


# ----------------------------------------------------------------- calibration audits

def _verdict(table) -> str:
    return Ledger("t", refs={"c": "Theorem 1"}).close(
        "c", "calibration", table["predicted"], table["audited"], rtol=1e-6,
        atol=1e-10).verdict


def test_idn_audit_is_the_brief_reference_and_agrees_with_its_prediction():
    row = audits.calibration_audit("idn", MNIST, 1.0, DELTA)
    assert row["audited"] == pytest.approx(0.007246, abs=5e-7)     # brief, Thm 3 row
    assert row["audited"] == pytest.approx(row["predicted"], rel=1e-9)


@pytest.mark.parametrize("mechanism, kw", [
    ("tvg", {}), ("udn", {}), ("idn", {}), ("gauss_paper", {}), ("gauss_l2", {}),
    ("gauss_analytic", {}),
    ("udn", {"w": np.random.default_rng(3).standard_normal((30, 20))}),
    ("idn", {"w": np.random.default_rng(4).standard_normal((8, 20))}),
])
def test_every_audited_mechanism_meets_its_prediction(mechanism, kw):
    shape = (20, 16) if "w" in kw else (5, 7, 3)
    table = audits.calibration_table(mechanism, [shape], (0.1, 1.0, 10.0), DELTA, **kw)
    assert _verdict(table) == "holds"


@pytest.mark.parametrize("target, mechanism, kw", [
    ("ldp_companion.tvg.bounds:_idn_budget", "idn", {}),
    ("ldp_companion.tvg.bounds:_budget", "tvg", {}),
    ("ldp_companion.tvg.bounds:_budget", "udn",
     {"w": np.random.default_rng(3).standard_normal((30, 20))}),
    ("ldp_companion.tvg.noise:entry_std", "gauss_paper", {}),
])
def test_noise_four_times_too_small_in_variance_fails_the_audit(target, mechanism, kw):
    shape = (20, 16) if "w" in kw else (5, 7, 3)
    factor = 0.5 if target.endswith("entry_std") else 4.0   # sigma halved either way
    with applied(Mutant("m", "noise halved", target, scaled(factor))):
        table = audits.calibration_table(mechanism, [shape], (1.0,), DELTA, **kw)
    assert _verdict(table) == "fails"
    assert table["audited"].iloc[0] > 1.5 * table["predicted"].iloc[0]


def test_the_udn_audit_needs_a_full_rank_workload():
    with pytest.raises(ValueError, match="full column rank"):
        audits.calibration_audit("udn", (20, 4), 1.0, DELTA, w=np.ones((3, 20)))
    with pytest.raises(ValueError, match="mechanism"):
        audits.calibration_audit("mvg", (20, 4), 1.0, DELTA)


def test_budget_ratio_is_theorem2_and_3_improvement_and_sees_a_wrong_bound():
    assert audits.budget_ratio("udn", MNIST, 1.0, DELTA) == pytest.approx(16 * 25, rel=1e-9)
    assert audits.budget_ratio("udn", MNIST, 1.0, DELTA, modes="first") == pytest.approx(
        1.0, rel=1e-9)
    assert audits.budget_ratio("idn", MNIST, 1.0, DELTA, modes="first") == pytest.approx(
        256, rel=1e-9)
    w = np.random.default_rng(5).standard_normal((12, 40))
    assert audits.budget_ratio("idn", (40, 9), 1.0, DELTA, w=w, modes="first") == \
        pytest.approx(40, rel=1e-9)
    with applied(Mutant("m", "B_IDN x 4", "ldp_companion.tvg.bounds:_idn_budget",
                        scaled(4.0))):
        assert audits.budget_ratio("idn", MNIST, 1.0, DELTA, modes="first") == \
            pytest.approx(4 * 256, rel=1e-9)
    with pytest.raises(ValueError, match="modes"):
        audits.budget_ratio("udn", MNIST, 1.0, DELTA, modes="some")


def test_directional_noise_is_what_the_release_adds():
    rng = np.random.default_rng(6)
    w = rng.standard_normal((5, 12))
    basis, sigma = release.directional_noise("udn", w, (12, 30), 1.0, DELTA, value_range=2.0)
    out = release.directional_release("udn", np.zeros((12, 30)), w, 1.0, DELTA,
                                      rng=np.random.default_rng(7), value_range=2.0)
    draw = np.random.default_rng(7).standard_normal((12, 30))
    np.testing.assert_allclose(out, (basis * sigma) @ draw, rtol=1e-12)
    with pytest.raises(ValueError, match="mechanism"):
        release.directional_noise("tvg", w, (12, 30), 1.0, DELTA, value_range=2.0)
    with pytest.raises(ValueError, match="shape"):
        release.directional_noise("udn", w, (11, 30), 1.0, DELTA, value_range=2.0)


def test_the_literal_shat_audit_is_the_brief_reference():
    sigma = noise.entry_std("idn", MNIST, 1.0, DELTA, value_range=2.0, shat="literal")
    assert reference.gaussian_epsilon(2 * math.sqrt(400) / sigma, DELTA) == pytest.approx(
        279, rel=0.01)


# ----------------------------------------------------------------- Tables II-III shapes

def test_the_networks_give_the_printed_shapes():
    shapes = settings.network_shapes(0)
    assert shapes["same"].all() and len(shapes) == len(settings.PRINTED)


def test_a_network_with_a_wrong_layer_is_caught(monkeypatch):
    def narrow(gen, device):
        return torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(3136, 256))
    monkeypatch.setattr(settings, "conv_lenet", narrow)
    shapes = settings.network_shapes(0)
    assert not shapes.loc[("Table II", "MNIST (conv32–conv64–fc512)"), "same"]
    assert shapes["same"].sum() == len(shapes) - 1
