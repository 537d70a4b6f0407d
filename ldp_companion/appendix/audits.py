"""The audits appendix A runs: every scalar mechanism exactly, correct mechanisms and their
mutants from samples, and a tensor mechanism from samples.

Each function returns the table the page shows and its claims check
(:mod:`~ldp_companion.appendix.claims`). The audits themselves are the shared block
:mod:`ldp_companion.auditing.audit`; the mutants are :mod:`ldp_companion.mechanisms.mutants`.
"""
from __future__ import annotations

import time

import numpy as np
import pandas as pd

from ldp_companion.auditing.audit import (
    additive_laplace_sampler,
    empirical_audit,
    exact_audit,
    ldp_accuracy_bound,
    mechanism_sampler,
)
from ldp_companion.mechanisms import get_mechanism, mechanism_names
from ldp_companion.mechanisms.mutants import MUTANTS
from ldp_companion.page.plotting import label
from ldp_companion.validation import check_epsilons, check_positive_int, check_rng

__all__ = ["CORRECT", "TENSOR_SHAPE", "exact_table", "audit_cases", "empirical_table",
           "tensor_table"]

#: The correct mechanisms audited from samples beside the mutants.
CORRECT = ("laplace", "duchi")
#: The tensor of Sec. A.3: a 28×28 input (an image's size).
TENSOR_SHAPE = (28, 28)


def _grid(eps_grid) -> list[float]:
    return [float(e) for e in check_epsilons(eps_grid, "eps_grid")]


def exact_table(eps_grid, names=None) -> pd.DataFrame:
    """The exact audit (Sec. A.1) of every registered scalar mechanism at every ε.

    Parameters
    ----------
    eps_grid : sequence of float
        Claimed budgets.
    names : sequence of str, optional
        Mechanism names (default: every registered one, in registration order).

    Returns
    -------
    DataFrame
        One row per (mechanism, ε): ``mechanism`` (display name), ``claimed ε``,
        ``audited ε`` (:func:`~ldp_companion.auditing.audit.exact_audit` on the 41-point grid) and
        ``worst pair`` (the inputs attaining it).
    """
    eps_grid = _grid(eps_grid)
    rows = []
    for name in mechanism_names() if names is None else names:
        for eps in eps_grid:
            a = exact_audit(get_mechanism(name, eps))
            rows.append({"mechanism": label(name), "claimed ε": eps, "audited ε": a.epsilon,
                         "worst pair": f"({a.x:+.2f}, {a.x_prime:+.2f})"})
    return pd.DataFrame(rows)


def audit_cases(eps_grid) -> list[tuple]:
    """What Sec. A.2 audits from samples, in order: the correct mechanisms, then the mutants.

    Returns
    -------
    list of (mechanism, name, claimed ε, true ε)
        One per (mechanism, ε); a mutant's true ε is the one its docstring derives (``inf``
        where some output is impossible under the other input).
    """
    eps_grid = _grid(eps_grid)
    return _cases(eps_grid)


def _cases(eps_grid) -> list[tuple]:
    cases = [(get_mechanism(n, e), n, e, e) for n in CORRECT for e in eps_grid]
    return cases + [(cls(e), cls.__name__, e, float(true(e)))
                    for cls, true in MUTANTS for e in eps_grid]


def empirical_table(eps_grid, n: int, rng: np.random.Generator) -> tuple[pd.DataFrame, float]:
    """Empirical audits (Sec. A.2) of correct mechanisms and mutants at ``x = 1, x′ = −1``.

    Each audit is :func:`~ldp_companion.auditing.audit.empirical_audit` at its default confidence
    0.95, in the order of :func:`audit_cases` (one stream of ``rng``).

    Parameters
    ----------
    eps_grid : sequence of float
        Claimed budgets.
    n : int
        Outputs per input of each audit.
    rng : numpy.random.Generator

    Returns
    -------
    table : DataFrame
        One row per audit: ``mechanism, claimed ε, true ε, audited lower bound, flagged``
        (bound above the claim), ``test accuracy`` (best threshold test on the held-out
        half), ``LDP accuracy bound`` (``e^ε / (1 + e^ε)``) and ``mutant``.
    seconds : float
        Wall time per audit.
    """
    cases = _cases(_grid(eps_grid))
    n, rng = check_positive_int(n, "n"), check_rng(rng)
    rows, started = [], time.perf_counter()
    for mech, name, eps, true_eps in cases:
        res = empirical_audit(mechanism_sampler(mech), 1.0, -1.0, n, rng)
        rows.append({"mechanism": label(name), "claimed ε": eps, "true ε": true_eps,
                     "audited lower bound": res.epsilon_lower,
                     "flagged": res.epsilon_lower > eps, "test accuracy": res.test_accuracy,
                     "LDP accuracy bound": ldp_accuracy_bound(eps),
                     "mutant": name not in CORRECT})
    return pd.DataFrame(rows), (time.perf_counter() - started) / len(cases)


def tensor_table(n: int, rng: np.random.Generator, *, scale: float = 2.0,
                 delta: float = 1.0) -> pd.DataFrame:
    """Empirical audit (Sec. A.3) of Laplace noise on a 28×28 tensor, at two noise scales.

    Two inputs differ by ``delta`` in one entry; with Laplace noise of scale ``b`` on every
    entry their privacy loss is exactly ``delta / b``. The audit runs at ``b = scale`` and
    ``b = scale / 2`` with the projection statistic (the likelihood-ratio test here).

    Parameters
    ----------
    n : int
        Outputs per input of each audit.
    rng : numpy.random.Generator
    scale, delta : float
        The larger noise scale and the change of the one entry.

    Returns
    -------
    DataFrame
        ``noise scale, true ε of the pair, audited lower bound``, one row per scale.
    """
    n, rng = check_positive_int(n, "n"), check_rng(rng)
    scale, delta = (float(check_epsilons(v, name)) for v, name in ((scale, "scale"),
                                                                   (delta, "delta")))
    x0 = np.zeros(TENSOR_SHAPE)
    x1 = x0.copy()
    x1[TENSOR_SHAPE[0] // 2, TENSOR_SHAPE[1] // 2] = delta
    rows = [{"noise scale": s, "true ε of the pair": delta / s,
             "audited lower bound": empirical_audit(additive_laplace_sampler(s), x1, x0, n,
                                                    rng).epsilon_lower}
            for s in (scale, scale / 2)]
    return pd.DataFrame(rows)
