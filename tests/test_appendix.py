"""Appendix A's package: the audits the page runs, the claims it records, its tables and
its figure."""
from __future__ import annotations

import numpy as np
import pytest

from ldp_companion.appendix import audits, claims, views
from ldp_companion.appendix.figures import audit_figure
from ldp_companion.appendix.items import CLAIM_REFS
from ldp_companion.mechanisms.mutants import MUTANTS
from ldp_companion.page.tables import raw_labels
from ldp_companion.verdicts.ledger import Ledger

EPS = [0.5, 2.0]


@pytest.fixture(scope="module")
def empirical():
    table, seconds = audits.empirical_table(EPS, 20_000, np.random.default_rng(0))
    assert isinstance(seconds, float)
    return table


def _verdicts(ledger):
    return ledger.table().set_index("claim_id")["verdict"].to_dict()


def test_exact_table_finds_each_claim_and_its_worst_pair():
    table = audits.exact_table(EPS, names=["laplace", "duchi"])
    assert list(table["mechanism"]) == ["Laplace", "Laplace", "Duchi", "Duchi"]
    np.testing.assert_allclose(table["audited ε"], table["claimed ε"], rtol=1e-9)
    assert set(table["worst pair"]) <= {"(+1.00, -1.00)", "(-1.00, +1.00)"}  # the ends


def test_audit_cases_list_correct_mechanisms_then_mutants_with_their_true_epsilon():
    cases = audits.audit_cases(EPS)
    assert len(cases) == (len(audits.CORRECT) + len(MUTANTS)) * len(EPS)
    assert [c[1] for c in cases[:4]] == ["laplace", "laplace", "duchi", "duchi"]
    assert all(c[2] == c[3] for c in cases[:4])  # a correct mechanism's truth is its claim
    half = next(c for c in cases if c[1] == "LaplaceHalfScale")
    assert half[3] == pytest.approx(2 * half[2])  # its docstring: true ε = 2ε


def test_empirical_table_flags_mutants_and_is_reproducible(empirical):
    correct, mutant = empirical[~empirical["mutant"]], empirical[empirical["mutant"]]
    assert not correct["flagged"].any()
    assert mutant["flagged"].sum() >= len(mutant) - 1  # LaplaceScaleShort at ε = 0.5 is close
    assert (empirical["test accuracy"] <= 1).all()
    again, _ = audits.empirical_table(EPS, 20_000, np.random.default_rng(0))
    assert again.equals(empirical)


def test_tensor_table_stays_below_the_true_loss():
    table = audits.tensor_table(500, np.random.default_rng(1), scale=2.0, delta=1.0)
    assert list(table["true ε of the pair"]) == [0.5, 1.0]
    assert (table["audited lower bound"] <= table["true ε of the pair"]).all()


@pytest.mark.parametrize("call, error", [
    (lambda: audits.exact_table([0.0]), ValueError),
    (lambda: audits.audit_cases([np.nan]), ValueError),
    (lambda: audits.empirical_table(EPS, 0, np.random.default_rng(0)), ValueError),
    (lambda: audits.empirical_table(EPS, 100, 0), TypeError),
    (lambda: audits.tensor_table(100, np.random.default_rng(0), scale=-1.0), ValueError),
])
def test_the_audits_refuse_bad_input(call, error):
    with pytest.raises(error):
        call()


def test_claims_are_recorded_with_computed_verdicts(empirical):
    ledger = Ledger("test", refs=CLAIM_REFS)
    claims.record_exact(ledger, audits.exact_table(EPS, names=["pm"]))
    counts = claims.record_empirical(ledger, empirical, 20_000)
    claims.record_tensor(ledger, audits.tensor_table(500, np.random.default_rng(1)))
    verdicts = _verdicts(ledger)
    assert verdicts["exact-all"] == verdicts["empirical-correct"] == "holds"
    assert verdicts["empirical-below-truth"] == verdicts["tensor"] == "holds"
    assert verdicts["empirical-mutants"] in ("holds", "partly")
    assert counts["mutants"] == len(MUTANTS) * len(EPS) and counts["flagged correct"] == 0
    assert counts["exceed"] <= counts["allowed"]


def test_a_wrong_exact_table_fails_its_claim():
    ledger = Ledger("test", refs=CLAIM_REFS)
    table = audits.exact_table(EPS, names=["duchi"])
    claims.record_exact(ledger, table.assign(**{"audited ε": table["audited ε"] * 1.01}))
    assert _verdicts(ledger)["exact-all"] == "fails"


def test_tables_read_as_words(empirical):
    exact = audits.exact_table(EPS, names=["laplace", "pm"])
    tensor = audits.tensor_table(200, np.random.default_rng(2))
    for styler in (views.exact_view(exact), views.empirical_view(empirical),
                   views.tensor_view(tensor)):
        shown = styler.data
        assert not raw_labels(list(shown.columns)) and styler.caption
        assert "0.500000" not in styler.to_html()
    html = views.empirical_view(empirical).to_html()
    assert "∞" in html and ">yes<" in html and "mutant" not in html


def test_audit_figure_draws_both_panels_alike_and_counts_in_its_caption(empirical):
    import matplotlib.pyplot as plt

    fig, caption = audit_figure(empirical)
    left, right = fig.axes
    flagged = int(empirical.loc[empirical["mutant"], "flagged"].sum())
    assert f"({flagged} of {int(empirical['mutant'].sum())} mutant audits" in caption
    colours = [{text: tuple(h.get_facecolor()[0]) for h, text in
                zip(*ax.get_legend_handles_labels()) if hasattr(h, "get_facecolor")}
               for ax in (left, right)]
    assert colours[0]["within claim"] == colours[1]["within claim"]
    assert colours[0]["above claim (flagged)"] == colours[1]["above claim (flagged)"]
    plt.close(fig)
