"""Deliberate bugs in what chapter 3's claims rest on (:mod:`ldp_companion.verdicts.mutation`).

``benchmarks/mutants.py pm`` runs the chapter at ``smoke`` once per mutant and lists the
verdicts each one flips; every mutant must flip at least one verdict shown on the page. Each is a
slip one could make transcribing the paper: a constant, a dropped term, a factor in a
probability, an average that is a sum.
"""
from __future__ import annotations

import numpy as np

from ldp_companion.verdicts.mutation import Mutant, scaled

__all__ = ["MUTANTS"]


def _pm_sub_with_pm_t(original):
    """PM-SUB's ``t`` taken as ``e^{ε/2}`` (PM's) instead of ``e^{ε/3}`` (Alg. 4)."""
    from ldp_companion.mechanisms.piecewise import Piecewise

    def __init__(self, epsilon):
        Piecewise.__init__(self, epsilon, np.exp(self.check_budget(epsilon) / 2.0))
    return __init__


def _variance_without_x2(original):
    """Eq. (31) without its ``(t + 1) x^2 / (E - 1)`` term."""
    def _variance(self, x):
        t, E, Em1 = self._t, self._E, self._Em1
        return (t + E) * ((t + 1.0) ** 3 + Em1) / (3.0 * t**2 * Em1**2) + 0.0 * x
    return _variance


def _nearest_rounding(original):
    """Alg. 5 rounding to the nearest grid point instead of up with probability
    ``(y - z_i) m / A``: biased."""
    def discretize(y, A, n_outputs, rng):
        m = (int(n_outputs) - 1) // 2
        return np.round(np.asarray(y, float) / (A / m)) * (A / m)
    return discretize


def _sum_not_mean(original):
    """The server adds the group's reports up instead of averaging them (Alg. 1, step 3)."""
    def _aggregator(*args, **kwargs):
        mean = original(*args, **kwargs)
        return lambda grads, rng: grads.shape[0] * mean(grads, rng)
    return _aggregator


MUTANTS = [
    Mutant("pm-sub-t-of-pm", "PM-SUB uses PM's t = e^(ε/2) instead of e^(ε/3) (Alg. 4)",
           "ldp_companion.mechanisms.piecewise:PMSub.__init__", _pm_sub_with_pm_t),
    Mutant("three-outputs-a-half", "Three-Outputs' P(0 | 0) of Eq. (5) halved",
           "ldp_companion.mechanisms.three_outputs:p00", scaled(0.5)),
    Mutant("piecewise-variance-no-x2", "the piecewise variance (Eq. (31)) drops its x² term",
           "ldp_companion.mechanisms.piecewise:Piecewise._variance", _variance_without_x2),
    Mutant("hm-tp-beta-half", "HM-TP's mixing weight β (Lemma 10) halved",
           "ldp_companion.mechanisms.hybrid:hm_tp_beta", scaled(0.5)),
    Mutant("discretize-nearest", "Alg. 5 rounds to the nearest grid point, not at random",
           "ldp_companion.pm.discretize:discretize", _nearest_rounding),
    Mutant("fedsgd-sum-not-mean", "LDP-FedSGD's server sums the group's gradients instead "
           "of averaging them (Alg. 1)", "ldp_companion.pm.fedsgd:_aggregator", _sum_not_mean),
]
