"""Bring your own mechanism: the registry and the checks every registered mechanism gets."""
from __future__ import annotations

import numpy as np
import pytest

from ldp_companion.byom.checks import check_mechanism
from ldp_companion.mechanisms import (
    REGISTRY,
    OutputLaw,
    ScalarMechanism,
    get_mechanism,
    register_mechanism,
    unregister_mechanism,
)
from ldp_companion.mechanisms.compare import worst_case_table
from ldp_companion.page.plotting import label
from ldp_companion.verdicts.ledger import Ledger


class Coin(ScalarMechanism):
    """A two-point mechanism written from scratch: ±C with P(+C | x) = (1 + x / C) / 2."""

    name = "test_coin"
    label = "Coin (test)"

    def _c(self):
        return (np.exp(self.epsilon) + 1) / np.expm1(self.epsilon)

    def _privatize(self, x, rng):
        c = self._c()
        return np.where(rng.random(x.shape) < 0.5 * (1 + x / c), c, -c)

    def _variance(self, x):
        return self._c() ** 2 - x**2

    def worst_case_variance(self):
        return float(self._c() ** 2)

    def _output_law(self, x):
        c = self._c()
        return OutputLaw.discrete([-c, c], [0.5 * (1 - x / c), 0.5 * (1 + x / c)])


class CoinShrunk(Coin):
    """Broken: C 20 % too small, so P(+C | 1) / P(+C | -1) exceeds e^ε (true ε 1.32 at 1)."""

    name = "test_coin_shrunk"

    def _c(self):
        return 0.8 * super()._c()


@pytest.fixture
def rng():
    return np.random.default_rng(2026)


@pytest.fixture
def registered():
    names = []

    def add(cls):
        register_mechanism(cls)
        names.append(cls.name)
        return cls

    yield add
    for name in names:
        unregister_mechanism(name)


def _verdicts(name, rng):
    ledger = Ledger("test", refs={f"{name}-{k}": "Sec. 1" for k in
                                  ("exact", "empirical", "law", "mc")})
    check_mechanism(ledger, name, [0.5, 1.0], rng, n_audit=20_000, n_mc=20_000)
    return ledger.table().set_index("claim_id")["verdict"].to_dict()


def test_a_registered_mechanism_is_audited_and_holds(registered, rng):
    registered(Coin)
    assert isinstance(get_mechanism("test_coin", 1.0), Coin)
    assert _verdicts("test_coin", rng) == {f"test_coin-{k}": "holds" for k in
                                           ("exact", "empirical", "law", "mc")}


def test_a_broken_registered_mechanism_fails_its_audits(registered, rng):
    registered(CoinShrunk)
    verdicts = _verdicts("test_coin_shrunk", rng)
    assert verdicts["test_coin_shrunk-exact"] == "fails"
    assert verdicts["test_coin_shrunk-empirical"] == "fails"
    # its law and sampler agree with its own variance: only the audits see the bug
    assert verdicts["test_coin_shrunk-law"] == verdicts["test_coin_shrunk-mc"] == "holds"


def test_a_wrong_variance_fails_the_moment_checks(registered, rng):
    class CoinWrongVariance(Coin):
        name = "test_coin_var"

        def _variance(self, x):
            return 1.1 * super()._variance(x)

    registered(CoinWrongVariance)
    verdicts = _verdicts("test_coin_var", rng)
    # mass and mean are right, every variance is wrong: each check holds only in part
    assert verdicts["test_coin_var-law"] == verdicts["test_coin_var-mc"] == "partly"
    assert verdicts["test_coin_var-exact"] == "holds"


def test_a_registered_mechanism_joins_the_comparisons(registered):
    registered(Coin)
    table = worst_case_table(["duchi", "test_coin"], [0.5, 2.0])
    np.testing.assert_allclose(table["test_coin"], table["duchi"], rtol=1e-12)  # same law
    assert label("test_coin") == "Coin (test)" and label("pm") == "PM"


def test_registration_refuses_what_it_cannot_use(registered):
    class NoLaw(ScalarMechanism):
        name = "test_no_law"

        def _privatize(self, x, rng):
            return x

        def _variance(self, x):
            return 0 * x

        def worst_case_variance(self):
            return 0.0

    with pytest.raises(TypeError, match="does not implement _output_law"):
        register_mechanism(NoLaw)
    with pytest.raises(TypeError, match="subclass of ScalarMechanism"):
        register_mechanism(object)
    for bad in ("Square Wave", "abstract", "", 3):
        with pytest.raises(ValueError, match="lower-case identifier"):
            register_mechanism(type("Bad", (Coin,), {"name": bad}))
    with pytest.raises(ValueError, match="one of the papers' mechanisms"):
        register_mechanism(type("Shadow", (Coin,), {"name": "pm"}))
    registered(Coin)
    with pytest.raises(ValueError, match="already registered"):
        register_mechanism(type("Other", (Coin,), {"name": "test_coin"}))
    again = type("Again", (Coin,), {"name": "test_coin"})
    assert register_mechanism(again, replace=True) is again and REGISTRY["test_coin"] is again
    with pytest.raises(ValueError, match="stays registered"):
        unregister_mechanism("duchi")
    with pytest.raises(ValueError, match="is not registered"):
        unregister_mechanism("test_never")


@pytest.mark.determinism  # the BLAS free here, one thread in .ci/run's second pass
def test_scalar_mean_grid_is_the_same_with_one_or_two_workers_and_a_class_as_factory():
    from ldp_companion.byom.experiments import scalar_mean_grid

    data = {"u": np.linspace(-1, 1, 500)}
    mechs = {"pm": "pm", "coin": Coin}  # a class defined here: the workers get it pickled
    one = scalar_mean_grid(data, mechs, [0.5, 2.0], 3, seed=4, n_jobs=1)
    two = scalar_mean_grid(data, mechs, [0.5, 2.0], 3, seed=4, n_jobs=2)
    import pandas as pd

    pd.testing.assert_frame_equal(one, two, check_exact=True)
    assert len(one) == 12 and set(one["mechanism"]) == {"pm", "coin"}
    duchi_var = get_mechanism("duchi", 0.5).variance(data["u"]).mean() / 500
    assert one.query("mechanism == 'coin' and epsilon == 0.5")["expected_mse"].iloc[0] == \
        pytest.approx(duchi_var, rel=1e-12)


def test_scalar_mean_grid_refuses_bad_input():
    from ldp_companion.byom.experiments import scalar_mean_grid

    with pytest.raises(ValueError, match="unknown mechanism 'nope'"):
        scalar_mean_grid({"u": [0.0]}, {"x": "nope"}, [1.0], 1, 0)
    with pytest.raises(TypeError, match="a name or a factory"):
        scalar_mean_grid({"u": [0.0]}, {"x": 3}, [1.0], 1, 0)
    with pytest.raises(ValueError, match="1-d"):
        scalar_mean_grid({"u": [[0.0]]}, {"x": "pm"}, [1.0], 1, 0)
    with pytest.raises(ValueError):
        scalar_mean_grid({"u": [2.0]}, {"x": "pm"}, [1.0], 1, 0)


def test_mse_matches_accepts_right_expectations_and_catches_a_wrong_one():
    from ldp_companion.byom.experiments import mse_matches, scalar_mean_grid

    data = {"u": np.linspace(-1, 1, 2_000)}
    table = scalar_mean_grid(data, {"pm": "pm", "duchi": "duchi"}, [0.5, 2.0], 200, seed=1,
                             n_jobs=1)
    ok, summary = mse_matches(table)
    assert ok.all() and summary["cells"] == 4
    wrong = table.assign(expected_mse=table["expected_mse"] * 2)  # a factor 2 (sensitivity 2)
    assert not mse_matches(wrong)[0].any()
