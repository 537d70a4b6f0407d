"""Appendix B's page machinery: data sets, claims, tables, figures and the exercise's answers
(the registry and ``check_mechanism`` are tested in ``test_byom.py``)."""
from __future__ import annotations

import numpy as np
import pytest
from test_byom import Coin, CoinShrunk

from ldp_companion.byom import claims, figures, views
from ldp_companion.byom.checks import XS, check_mechanism
from ldp_companion.byom.exercises import (
    EXERCISES,
    WINDOW_B,
    WINDOW_EPS,
    li_half_width,
    square_wave_worst_case_variance,
)
from ldp_companion.byom.experiments import mean_datasets, scalar_mean_grid
from ldp_companion.byom.items import CLAIM_REFS
from ldp_companion.edition import book
from ldp_companion.mechanisms import register_mechanism, unregister_mechanism
from ldp_companion.mechanisms.compare import worst_case_table
from ldp_companion.page.tables import raw_labels
from ldp_companion.verdicts.ledger import Ledger


def _verdicts(ledger):
    return ledger.table().set_index("claim_id")["verdict"].to_dict()


@pytest.fixture
def coins():
    for cls in (Coin, CoinShrunk):
        register_mechanism(cls, replace=True)
    yield
    for cls in (Coin, CoinShrunk):
        unregister_mechanism(cls.name)


def test_mean_datasets_are_in_the_domain_and_reproducible():
    data = mean_datasets(300, np.random.default_rng(0))
    assert list(data) == ["uniform", "body-mass index (diabetes)"]
    for x in data.values():
        assert x.shape == (300,) and np.all(np.abs(x) <= 1)
    again = mean_datasets(300, np.random.default_rng(0))
    assert all(np.array_equal(data[k], again[k]) for k in data)
    with pytest.raises(ValueError):
        mean_datasets(0, np.random.default_rng(0))
    with pytest.raises(TypeError):
        mean_datasets(10, 0)


def test_moment_summary_takes_the_largest_per_epsilon(coins):
    ledger = Ledger("test", refs={f"test_coin-{k}": "Sec. 1" for k in
                                  ("exact", "empirical", "law", "mc")})
    result = check_mechanism(ledger, "test_coin", [0.5, 2.0], np.random.default_rng(3),
                             n_audit=2_000, n_mc=2_000)
    summary = views.moment_summary(result["moments"])
    assert list(summary.index) == [0.5, 2.0] and len(result["moments"]) == 2 * len(XS)
    first = result["moments"].query("epsilon == 0.5")
    assert summary.loc[0.5, "|z| mean"] == first["z"].abs().max()
    for styler in (views.audit_view(result, "test_coin"), views.moments_view(result["moments"])):
        assert styler.caption and not raw_labels(list(styler.data.columns))
        assert "_" not in "".join(map(str, styler.data.columns))


def test_worst_case_claim_and_figure(coins):
    wc = worst_case_table(["pm", "test_coin"], [0.5, 1.0])
    ledger = Ledger("test", refs=CLAIM_REFS)
    claims.record_worst_case(ledger, wc, name="test_coin")
    assert _verdicts(ledger)["sw-worst-case"] == "fails"  # Coin is Duchi: below PM here
    fig, caption = figures.worst_case_figure(wc, highlight="test_coin")
    assert "Coin (test)" in caption and "PM (dashed)" in caption
    assert len(fig.axes[0].lines) == 2
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_mean_grid_claims_and_figure():
    data = mean_datasets(2_000, np.random.default_rng(0))
    table = scalar_mean_grid(data, {"pm": "pm", "duchi": "duchi"}, [0.5, 2.0], 20, 0,
                             n_jobs=1)
    ledger = Ledger("test", refs=CLAIM_REFS)
    claims.record_mean_grid(ledger, table, name="duchi")
    verdicts = _verdicts(ledger)
    assert verdicts["sw-mean-mse"] == "holds" and "sw-vs-pm" in verdicts
    fig, caption = figures.mean_figure(table)
    assert "20 runs of 2,000 users" in caption and len(fig.axes) >= 2
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_check_mutant_records_what_catches_it(coins):
    ledger = Ledger("test", refs=CLAIM_REFS)
    scratch, result = claims.check_mutant(ledger, "test_coin_shrunk", [0.5, 1.0],
                                          np.random.default_rng(5), n_audit=5_000, n_mc=5_000)
    assert _verdicts(ledger) == {"mutant-caught": "holds", "mutant-moments": "holds"}
    assert _verdicts(scratch)["test_coin_shrunk-exact"] == "fails"
    assert set(result) == {"exact", "empirical", "moments"}


def _piecewise_variance(eps, b):
    """The debiased output's variance at v = 1 by integrating its piecewise density."""
    e = np.exp(eps)
    p, q = e / (2 * b * e + 1), 1 / (2 * b * e + 1)
    pieces = [(-b, 1 - b, q), (1 - b, 1 + b, p)]  # (from, to, density) of y~ at v = 1
    m1 = sum(d * (hi**2 - lo**2) / 2 for lo, hi, d in pieces)
    m2 = sum(d * (hi**3 - lo**3) / 3 for lo, hi, d in pieces)
    return (2 / (2 * b * (p - q))) ** 2 * (m2 - m1**2)


@pytest.mark.parametrize("eps, b", [(1.0, None), (1.0, 0.5), (0.5, 0.2), (4.0, 1.0)])
def test_the_closed_form_matches_the_integrated_density(eps, b):
    width = li_half_width(eps) if b is None else b
    assert square_wave_worst_case_variance(eps, b) == pytest.approx(
        _piecewise_variance(eps, width), rel=1e-12)


def test_li_half_width_at_one():
    assert li_half_width(1.0) == pytest.approx(1 / (2 * np.e * (np.e - 2)), rel=1e-12)
    with pytest.raises(ValueError):
        square_wave_worst_case_variance(1.0, b=0.0)


def test_the_exercise_accepts_its_answers_and_rejects_li_et_al_s_window():
    answers = EXERCISES["byom-ex-window"].answers()
    assert answers["var_wide"] == pytest.approx(_piecewise_variance(WINDOW_EPS, WINDOW_B))
    assert answers["beats_pm"] is True
    grid = np.linspace(0.05, 2, 400)
    values = [square_wave_worst_case_variance(WINDOW_EPS, b) for b in grid]
    assert answers["b_best"] == pytest.approx(grid[int(np.argmin(values))], abs=0.01)
    assert EXERCISES.check("byom-ex-window", **answers).correct
    li = square_wave_worst_case_variance(WINDOW_EPS)  # the page's b, not the exercise's
    assert not EXERCISES.check("byom-ex-window", var_wide=li, b_best=answers["b_best"],
                               beats_pm=True).correct
    assert not EXERCISES.check("byom-ex-window", var_wide=answers["var_wide"],
                               b_best=answers["b_best"], beats_pm=False).correct


@pytest.mark.skipif("B-mechanism" not in book.EXERCISES,
                    reason="appendix B's exercises are not registered in book.EXERCISES yet")
def test_the_exercise_is_registered():
    assert book.EXERCISES["B-mechanism"] is EXERCISES
