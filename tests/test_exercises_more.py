"""The self-checking exercises of chapters 1 and 4 and of appendix A: each check accepts the
package's answers (and an answer reached the page's way), and rejects a wrong one."""
from __future__ import annotations

import math

import numpy as np
import pytest

from ldp_companion.appendix.exercises import CAP_N, largest_bound
from ldp_companion.auditing.audit import empirical_audit, mechanism_sampler
from ldp_companion.edition import book
from ldp_companion.mechanisms.mutants import DuchiSignError
from ldp_companion.page.exercises import Between
from ldp_companion.spof import noisy, taylor
from ldp_companion.spof import privacy as spof_privacy
from ldp_companion.spof.exercises import half_weights, polynomial_minimizer
from ldp_companion.tensor import gaussian_mechanism
from ldp_companion.tldp import algorithm as alg
from ldp_companion.tldp import privacy as tldp_privacy
from ldp_companion.tldp.exercises import AUDIT_N, audit_pair

CHAPTERS = {"01-tldp": ["tldp-ex-ceiling", "tldp-ex-rerun", "tldp-ex-audit"],
            "04-spof": ["spof-ex-minimizer", "spof-ex-audit", "spof-ex-half"],
            "A-audit": ["audit-ex-n"]}
LABELS = [(chapter, label) for chapter, labels in CHAPTERS.items() for label in labels]
KINDS = {"tldp-ex-ceiling": "derive", "tldp-ex-rerun": "run", "tldp-ex-audit": "audit",
         "spof-ex-minimizer": "derive", "spof-ex-audit": "audit", "spof-ex-half": "run",
         "audit-ex-n": "derive"}


def _ids(case):
    return case[1]


def correct_answers(chapter: str, label: str) -> dict:
    """What a student who got everything right stores (a range's midpoint for a range)."""
    answers = book.EXERCISES[chapter][label].answers()
    return {name: (v.low + v.high) / 2 if isinstance(v, Between) else v
            for name, v in answers.items()}


def wrong(value, expected):
    """A wrong answer: 10 % off, or just outside the accepted range."""
    if isinstance(expected, Between):
        return expected.high + 0.01 * max(1.0, abs(expected.high))
    return value * 1.1


def check(chapter: str, label: str, **answers):
    return book.EXERCISES[chapter].check(label, **answers)


def test_the_new_chapters_are_registered_in_page_order():
    for chapter, labels in CHAPTERS.items():
        assert [e.label for e in book.EXERCISES[chapter]] == labels
        assert [e.kind for e in book.EXERCISES[chapter]] == [KINDS[label] for label in labels]


@pytest.mark.parametrize("case", LABELS, ids=_ids)
def test_the_packages_answers_are_correct(case):
    chapter, label = case
    result = check(chapter, label, **correct_answers(chapter, label))
    assert result.correct, repr(result)


@pytest.mark.parametrize("case", LABELS, ids=_ids)
def test_each_wrong_answer_is_not_yet(case):
    chapter, label = case
    expected = book.EXERCISES[chapter][label].answers()
    good = correct_answers(chapter, label)
    for name in good:
        answers = dict(good, **{name: wrong(good[name], expected[name])})
        result = check(chapter, label, **answers)
        assert not result.correct and f"`{name}`" in repr(result), (name, repr(result))
        assert "not yet" in repr(result)
    if any(isinstance(v, Between) for v in expected.values()):  # below a range fails too
        name, rng_ = next((n, v) for n, v in expected.items() if isinstance(v, Between))
        result = check(chapter, label, **dict(good, **{name: rng_.low - 0.01}))
        assert not result.correct


@pytest.mark.parametrize("case", LABELS, ids=_ids)
def test_an_unfilled_scaffold_is_not_yet(case):
    chapter, label = case
    names = book.EXERCISES[chapter][label].names
    result = check(chapter, label, **{n: ... for n in names})
    assert not result.correct and "fill in" in repr(result)


# --- the answers against the closed forms and the page's way of reaching them ---------------

def test_tldp_ceiling_is_the_closed_form():
    answers = book.EXERCISES["01-tldp"]["tldp-ex-ceiling"].answers()
    assert answers["eps_peak"] == pytest.approx(1 / 195, rel=1e-6)
    assert answers["ceiling"] == pytest.approx(1 / (2 * math.e * 256 * 195), rel=1e-12)
    eps = np.logspace(-6, 1, 20_001)  # the page's grid
    p = alg.retain_prob(196, 256, eps)
    assert check("01-tldp", "tldp-ex-ceiling", eps_peak=eps[np.argmax(p)],
                 ceiling=p.max()).correct
    # the 28 × 28 values the page prints (a wrong I), and 1/I for 1/(I - 1), are caught
    assert not check("01-tldp", "tldp-ex-ceiling", eps_peak=1 / 783,
                     ceiling=alg.retain_prob_ceiling(784, 256)).correct
    assert not check("01-tldp", "tldp-ex-ceiling", eps_peak=1 / 196,
                     ceiling=answers["ceiling"]).correct


def test_tldp_rerun_predictions():
    answers = book.EXERCISES["01-tldp"]["tldp-ex-rerun"].answers()
    assert answers["r_sd"] == pytest.approx(1.0, rel=1e-9)
    assert answers["r_eps"] == pytest.approx(0.25) and answers["r_mu"] == pytest.approx(0.5)
    # the tempting wrong predictions: noise four times smaller, μ scaling like the true ε
    assert not check("01-tldp", "tldp-ex-rerun", r_sd=0.25, r_eps=0.25, r_mu=0.5).correct
    assert not check("01-tldp", "tldp-ex-rerun", r_sd=1.0, r_eps=0.25, r_mu=0.25).correct


def test_tldp_audit_range_holds_a_real_audit_and_excludes_the_claim():
    chapter, label = "01-tldp", "tldp-ex-audit"
    answers = book.EXERCISES[chapter][label].answers()
    x0, x1 = audit_pair()
    sampler = tldp_privacy.copies_sampler(gaussian_mechanism, 1.0, 17.0)
    low = empirical_audit(sampler, x0, x1, AUDIT_N, np.random.default_rng(7),
                          claimed_epsilon=1.0).epsilon_lower
    assert answers["eps_low"].low <= low <= answers["eps_low"].high
    assert answers["eps_low"].low > 1.0  # "stays at or below 1" is not yet
    mu_page = np.linalg.norm(x0 - x1) / (17.0 * math.sqrt(x0.size / 2.0))  # the page's way
    assert check(chapter, label, eps_low=low, mu_pair=mu_page,
                 eps_pair=tldp_privacy.gdp_epsilon(mu_page)).correct  # the accountant
    assert not check(chapter, label, eps_low=0.9, mu_pair=mu_page,
                     eps_pair=answers["eps_pair"]).correct
    # the worst pair's ε′ (μ = √2), which the page prints, is not this pair's
    assert not check(chapter, label, eps_low=low, mu_pair=mu_page,
                     eps_pair=tldp_privacy.gdp_epsilon(math.sqrt(2))).correct


def test_spof_minimizer_matches_the_grid():
    answers = book.EXERCISES["04-spof"]["spof-ex-minimizer"].answers()
    assert polynomial_minimizer(np.array([0.6, 0.9]), "paper") == pytest.approx([1.0, 1.0])
    z = np.linspace(-6, 6, 2401)  # the page's grid

    def sigma_at_argmin(x, variant):
        return 1 / (1 + np.exp(-z[np.argmin(taylor.polynomial(x, z, variant))]))

    assert check("04-spof", "spof-ex-minimizer", s_low=sigma_at_argmin(0.0, "exact"),
                 s_high=sigma_at_argmin(1.0, "exact"),
                 s_paper=sigma_at_argmin(0.75, "paper")).correct
    # σ(0) = ½ for the paper's (the minimiser z = 0 would be a concave polynomial's maximum)
    assert not check("04-spof", "spof-ex-minimizer", s_low=answers["s_low"],
                     s_high=answers["s_high"], s_paper=0.5).correct


def test_spof_audit_matches_the_exact_auditor():
    answers = book.EXERCISES["04-spof"]["spof-ex-audit"].answers()
    audited = spof_privacy.audit_exact(spof_privacy.alg1_release(1.0, 1.25))
    delta_hat = 21 + 14 * 1.25 * (1.25 / 2 + 2)  # Prop. 3
    assert answers["eps_true"] == pytest.approx(audited, rel=1e-9)
    assert answers["eps_true"] == pytest.approx(21 * math.sqrt(2) / delta_hat, rel=1e-9)
    assert answers["factor"] == pytest.approx(delta_hat / (21 * math.sqrt(2)), rel=1e-9)
    assert answers["sens"] == 14.0
    # the paper's claim (true ε = ε), the page's c_j = 2.5 and the paper's sensitivity (21)
    # are caught
    assert not check("04-spof", "spof-ex-audit", eps_true=1.0, factor=answers["factor"],
                     sens=14.0).correct
    assert not check("04-spof", "spof-ex-audit", eps_true=21 * math.sqrt(2) / 134.75,
                     factor=134.75 / (21 * math.sqrt(2)), sens=14.0).correct
    assert not check("04-spof", "spof-ex-audit", eps_true=answers["eps_true"],
                     factor=answers["factor"], sens=21.0).correct


def test_spof_half_accepts_another_seeds_monte_carlo():
    w, rng = half_weights(), np.random.default_rng(12345)
    p = [noisy.mc_prob_bj_below(7.0, 5.0, h, w, 200_000, rng) for h in (0.25, 0.5, 0.75)]
    assert check("04-spof", "spof-ex-half", p_low=p[0], p_half=p[1], p_high=p[2]).correct
    # swapping low and high (misreading which way h moves it) is caught
    assert not check("04-spof", "spof-ex-half", p_low=p[2], p_half=0.5, p_high=p[0]).correct


def test_spof_half_is_exactly_one_half_by_symmetry():
    d = np.linspace(-5, 5, 101)
    assert noisy.b_of_d(d, 0.5) - 1 == pytest.approx(np.tanh(d / 2), abs=1e-12)


def test_audit_cap_is_what_the_sign_error_mutant_reports():
    answers = book.EXERCISES["A-audit"]["audit-ex-n"].answers()
    res = empirical_audit(mechanism_sampler(DuchiSignError(1.0)), 1.0, -1.0, CAP_N,
                          np.random.default_rng(0))
    assert res.epsilon_lower == pytest.approx(answers["eps_sign"], rel=1e-12)
    m, alpha = CAP_N // 2, 0.025
    approx = math.log(m) - math.log(-math.log(alpha))  # the page's approximation
    assert check("A-audit", "audit-ex-n", eps_max=approx, eps_sign=res.epsilon_lower).correct
    # log(n) instead of log(n/2), and a two-sided level, are caught
    assert not check("A-audit", "audit-ex-n", eps_max=math.log(CAP_N) - math.log(-math.log(alpha)),
                     eps_sign=res.epsilon_lower).correct
    assert not check("A-audit", "audit-ex-n", eps_max=largest_bound(CAP_N, 0.975),
                     eps_sign=res.epsilon_lower).correct
