"""The table of true ε: for every mechanism, the ε claimed, the exact ε, the black-box bound.

For each :class:`~ldp_companion.compare.catalogue.Entry`, the black-box auditor
(:func:`ldp_companion.auditing.blackbox.dp_sniper`) bounds from samples alone the ε the mechanism
spends (at the entry's δ). The verdict on the paper's claim:

* ``fails`` when the exact ε exceeds the claim, or the black-box bound does (the table's bounds
  hold together with probability 95 %, :func:`family_confidence`, so a bound alone can prove a
  violation);
* ``holds`` when the exact ε is within the claim (and the bound does not contradict it);
* ``inconclusive`` when the law is not known and the bound stays within the claim: a lower
  bound cannot prove a mechanism private.

The auditor itself is checked first (Sec. C.1): :func:`auditor_validation` on correct
mechanisms and on broken ones (Appendix A's mutants, :func:`broken_entries`), and
:func:`auditor_coverage`, the binomial test of its bounds over repeated audits.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ldp_companion.auditing import blackbox
from ldp_companion.compare.catalogue import Entry, scalar_entries, tensor_entries
from ldp_companion.compare.multiattribute import tuple_entries
from ldp_companion.compare.records import record_entries

__all__ = ["true_epsilon_table", "verdict", "family_confidence", "auditor_validation",
           "broken_entries", "auditor_coverage", "NOISE_CUT", "BROKEN_SHAPE"]

_RTOL = 1e-9  # an exact ε equal to the claim up to rounding is within it


def verdict(claimed: float, exact: float | None, lower: float) -> str:
    """The verdict on "the mechanism spends at most ``claimed``" (see the module)."""
    over = claimed * (1 + _RTOL)
    if lower > over or (exact is not None and exact > over):
        return "fails"
    return "holds" if exact is not None else "inconclusive"


#: The auditor's classifiers: per-coordinate histograms find atoms (a scalar mechanism's
#: discrete outputs, TLDP's kept entries); logistic regression finds a linear score (additive
#: Gaussian noise on a tensor). A tensor mechanism is screened with both.
CLASSIFIERS = {"scalar": "histogram", "tensor": ("histogram", "logistic"),
               "record": ("histogram", "logistic"), "tuple": ("histogram", "logistic")}


def family_confidence(m: int) -> float:
    """The confidence of each of ``m`` audits for all ``m`` bounds to hold together with
    probability :data:`~ldp_companion.auditing.blackbox.CONFIDENCE` (Bonferroni: ``1 - (1 - c)/m``).
    A table of many bounds at 95 % each would hold a few wrong ones by chance."""
    return 1.0 - (1.0 - blackbox.CONFIDENCE) / max(1, int(m))


def _row(entry, n: int, rng, confidence: float = blackbox.CONFIDENCE) -> dict:
    found = blackbox.dp_sniper(entry.sampler, entry.pairs, n, rng,
                               classifier=CLASSIFIERS[entry.kind], confidence=confidence,
                               claimed_epsilon=entry.claimed, delta=entry.delta)
    return {"paper": entry.paper, "mechanism": entry.key, "kind": entry.kind,
            "budget": entry.eps, "delta": entry.delta, "claimed": entry.claimed,
            "exact": np.nan if entry.exact is None else entry.exact,
            "black-box lower bound": found.epsilon_lower,
            "verdict": verdict(entry.claimed, entry.exact, found.epsilon_lower),
            "largest bound": blackbox.largest_bound(n, confidence, entry.delta)}


def true_epsilon_table(eps_table, *, n_audit: int, n_tensor: int, shape, value_range: float,
                       delta: float, rng: np.random.Generator,
                       max_diff: float | None = None) -> pd.DataFrame:
    """One row per (mechanism, budget): the scalar mechanisms, chapter 3's multi-attribute
    ones and chapter 4's record releases audited with ``n_audit`` outputs per input, the
    tensor ones (``shape``, calibrated with range ``value_range``, judged on the pair all 0 /
    all ``max_diff``, default ``value_range``; δ = ``delta`` for the Gaussian ones) with
    ``n_tensor``. Column ``largest bound``: the most an audit of the row could report
    (:func:`~ldp_companion.auditing.blackbox.largest_bound`)."""
    audits = []
    for eps in eps_table:
        audits += [(e, n_audit) for e in scalar_entries(float(eps))]
        audits += [(e, n_audit) for e in tuple_entries(float(eps))]
        audits += [(e, n_audit) for e in record_entries(float(eps))]
        audits += [(e, n_tensor) for e in tensor_entries(float(eps), shape, value_range, delta,
                                                         max_diff)]
    confidence = family_confidence(len(audits))
    return pd.DataFrame([_row(e, n, rng, confidence) for e, n in audits])


#: How many times too small the noise of :func:`broken_entries`' releases is.
NOISE_CUT = 4.0
#: Shape of the broken tensor release: small, since a tensor audit is the costly one (on 4×4
#: the loss spreads over 16 entries and 2,000 outputs no longer see it).
BROKEN_SHAPE = (2, 2)


def broken_entries(eps: float, value_range: float,
                   max_diff: float | None = None) -> list[Entry]:
    """A tensor, a tuple and a record release at budget ``eps`` with their Laplace noise
    :data:`NOISE_CUT` times too small, each claiming ``eps``. A Laplace release's loss scales
    with 1/scale, so each spends ``NOISE_CUT`` times its correct ε (exact, from its law):

    * tensor: TLDP's Laplace baseline (Thm. 2, Eq. 6, scale ``IΔ/ε``) on a
      :data:`BROKEN_SHAPE` tensor calibrated with range ``value_range``, the pair all-0 /
      all-``max_diff`` (default ``value_range``; 8-bit images: Δ − 1, so it spends
      ``NOISE_CUT (Δ − 1)/Δ`` times ε);
    * tuple: chapter 3's Laplace at ``ε/d`` on each of ``d`` attributes (Sec. VII-A);
    * record: chapter 4's Alg. 2 release (Eq. 14's gradient plus ``Lap(ΔSGD/ε)`` per feature).
    """
    from ldp_companion.auditing import audit
    from ldp_companion.compare import multiattribute, records
    from ldp_companion.compare.catalogue import tensor_exact
    from ldp_companion.mechanisms import get_mechanism
    from ldp_companion.spof import privacy, train
    from ldp_companion.tensor import MECHANISMS

    cut, d = NOISE_CUT, multiattribute.ATTRIBUTES

    def tensor(x, m, rng):
        batch = np.broadcast_to(np.asarray(x, float), (m,) + np.shape(x)).copy()
        return np.asarray(MECHANISMS["laplace"](batch, cut * eps, value_range, rng=rng,
                                                batched=True))

    split = get_mechanism("laplace", cut * eps / d)
    right = records._releases(eps, train.Setup())["spof_alg2"]
    record = privacy.PairRelease(right.mean_a, right.mean_b, right.scale_a / cut,
                                 right.scale_b / cut)
    pair = [(np.zeros(BROKEN_SHAPE),
             np.full(BROKEN_SHAPE, float(value_range if max_diff is None else max_diff)))]
    return [
        Entry("tensor Laplace", "tldp", "tensor", eps, eps,
              tensor_exact("laplace", cut * eps, BROKEN_SHAPE, value_range, 0.0, max_diff),
              tensor, pair),
        Entry("tuple Laplace at ε/d", "pm", "tuple", eps, eps,
              d * audit.exact_audit(split).epsilon,
              multiattribute._sampler(split.privatize), multiattribute._pairs(d)),
        Entry("record Alg. 2", "spof", "record", eps, eps, record.epsilon,
              records._laplace_sampler(record), records.RECORD_PAIRS),
    ]


def _validation_cases(eps_table, n: int, n_tensor: int, value_range: float,
                      max_diff: float | None = None) -> list:
    """(name, status, sampler, pairs, claimed, true ε, classifier, n) of every audit of
    :func:`auditor_validation`."""
    from ldp_companion.auditing import audit
    from ldp_companion.compare.catalogue import SCALAR, SCALAR_PAIRS, scalar_mechanism
    from ldp_companion.mechanisms.mutants import MUTANTS

    cases = []
    for eps in eps_table:
        for name in SCALAR:
            m = scalar_mechanism(name, float(eps))
            cases.append((m.name, "correct", m, SCALAR_PAIRS, m.epsilon,
                          audit.exact_audit(m).epsilon, "histogram", n))
    cases += [(cls.__name__, "mutant", cls(1.0), SCALAR_PAIRS, 1.0, true(1.0), "histogram", n)
              for cls, true in MUTANTS]
    return cases + _broken_cases(n, n_tensor, value_range, max_diff)


def _broken_cases(n: int, n_tensor: int, value_range: float,
                  max_diff: float | None = None) -> list:
    """:func:`_validation_cases`' audits of :func:`broken_entries` (ε = 1): each release once
    per classifier, the tensor with ``n_tensor`` outputs per input."""
    return [(e.key, "mutant", e.sampler, e.pairs, e.claimed, e.exact, kind,
             n_tensor if e.kind == "tensor" else n)
            for e in broken_entries(1.0, value_range, max_diff)
            for kind in blackbox.CLASSIFIERS]


def auditor_validation(eps_table, n: int, rng: np.random.Generator, *,
                       n_tensor: int | None = None, value_range: float = 256.0,
                       max_diff: float | None = None) -> pd.DataFrame:
    """The auditor on mechanisms whose ε is known: the catalogue's scalar mechanisms at each
    budget (correct: true ε = exact ε), Appendix A's mutants at ε = 1 and
    :func:`broken_entries` at ε = 1 (broken: true ε from their docstrings and laws), the
    latter audited once by each classifier alone, so that logistic regression is validated
    on a tensor, a tuple and a record (the tensor with ``n_tensor`` outputs per input, default
    ``n``, calibrated with range ``value_range`` and judged on the pair all 0 / all
    ``max_diff``). Columns: mechanism, status, classifier, budget, true ε, bound, flagged."""
    n_tensor = n if n_tensor is None else n_tensor
    cases = _validation_cases(eps_table, n, n_tensor, value_range, max_diff)
    confidence = family_confidence(len(cases))
    rows = []
    for name, status, sampler, pairs, claimed, true, kind, size in cases:
        found = blackbox.dp_sniper(sampler, pairs, size, rng, classifier=kind,
                                   confidence=confidence, claimed_epsilon=claimed)
        rows.append({"mechanism": name, "status": status, "classifier": kind,
                     "budget": claimed, "true": true, "bound": found.epsilon_lower,
                     "flagged": found.flagged})
    return pd.DataFrame(rows)


def auditor_coverage(repeats: int, n: int, rng: np.random.Generator) -> blackbox.Coverage:
    """:func:`ldp_companion.auditing.blackbox.auditor_coverage` on
    :func:`~ldp_companion.auditing.blackbox.known_mechanisms`: ``repeats`` audits of each, ``n``
    outputs per input, at the auditor's confidence."""
    return blackbox.auditor_coverage(blackbox.known_mechanisms(), repeats, n, rng)
