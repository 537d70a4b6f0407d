"""Deliberate bugs in what chapter 5's claims rest on, for :mod:`ldp_companion.verdicts.mutation`.

Each :class:`~ldp_companion.verdicts.mutation.Mutant` breaks one piece of Hao, Wu & Wan (2023) as
the package implements it: the graded Laplace noise scale (Sec. 3.1), GRR's keep probability
(Alg. 3 step 2), the budgets of the Sec. 6 levels, the budget of LHP's bit (Alg. 3 step 4),
the compensation copies that keep every user's weight equal (Alg. 5 step 5) and the clipping
of step 6. ``benchmarks/mutants.py hiera`` runs the chapter once per mutant and lists the
verdicts each one flips; every one must flip at least one.
"""
from __future__ import annotations

import functools

import numpy as np

from ldp_companion.verdicts.mutation import Mutant, scaled

__all__ = ["MUTANTS"]


def _grr_half_budget(original):
    """GRR (its checked core ``_grr``, which :func:`~ldp_companion.hiera.grr.grr` and LHP
    call) run at half the budget it is given: the level report keeps its level too rarely."""
    @functools.wraps(original)
    def _grr(t, epsilon, k, rng):
        return original(t, 0.5 * np.asarray(epsilon, dtype=np.float64), k, rng)
    return _grr


def _budgets_off_by_one(original):
    """``paper_levels`` with budgets ``(k + 1, ..., 2) * base``: an ``arange`` off by one."""
    @functools.wraps(original)
    def paper_levels(base_epsilon, k=5):
        levels = original(base_epsilon, k)
        return type(levels)(levels.intervals, levels.epsilons + float(base_epsilon))
    return paper_levels


def _bit_at_true_level(original):
    """LHP (Alg. 3; its checked core ``_lhp``, which :func:`~ldp_companion.hiera.lhp` and the
    SGD gradients call) with step 4 at the budget of the *true* level: the aggregator, which
    debiases with the reported level's ``c``, no longer gets unbiased bits."""
    from ldp_companion.hiera import protocol

    @functools.wraps(original)
    def _lhp(v, t, levels, rng):
        t_star = protocol._grr(t, levels.epsilons[t - 1], levels.k, rng)
        x = np.where(rng.random(v.shape) < 0.5 * (1.0 + v), 1, -1).astype(np.int8)
        keep = rng.random(x.shape) < levels.p[t - 1]
        return t_star, np.where(keep, x, -x).astype(np.int8)
    return _lhp


def _no_compensation(original):
    """Alg. 5's pool plan (its checked core ``_pool_plan``) without the compensation copies,
    whatever the caller asks."""
    @functools.wraps(original)
    def _pool_plan(k, mu, rule="paper", compensation=True):
        return original(k, mu, rule, False)
    return _pool_plan


def _no_clipping(original):
    """Alg. 5 step 6 (its checked core ``_pool_sums``) without the clipping of the debiased
    counts to ``[0, N_j]``."""
    @functools.wraps(original)
    def _pool_sums(counts, levels, mu, rng, **options):
        return original(counts, levels, mu, rng, **{**options, "clip": False})
    return _pool_sums


MUTANTS = [
    Mutant("graded-laplace-scale-half",
           "graded Laplace's noise scale halved: 1/ε of the value's level instead of 2/ε "
           "(Sec. 3.1)",
           "ldp_companion.hiera.graded_laplace:GradedLaplace.scale", scaled(0.5)),
    Mutant("grr-half-budget",
           "the level report's GRR run at half its budget (Alg. 3 step 2)",
           "ldp_companion.hiera.grr:_grr", _grr_half_budget),
    Mutant("level-budgets-off-by-one",
           "the Sec. 6 level budgets (k+1, ..., 2)·ε instead of (k, ..., 1)·ε",
           "ldp_companion.hiera.levels:paper_levels", _budgets_off_by_one),
    Mutant("bit-at-true-level",
           "LHP's value bit perturbed at the true level's budget instead of the reported "
           "level's (Alg. 3 step 4)",
           "ldp_companion.hiera.protocol:_lhp", _bit_at_true_level),
    Mutant("no-compensation",
           "Alg. 5 pools without the compensation copies: reports of high levels weigh less",
           "ldp_companion.hiera.aggregate:_pool_plan", _no_compensation),
    Mutant("no-clipping",
           "Alg. 5 step 6 without the clipping of the debiased pool counts",
           "ldp_companion.hiera.aggregate:_pool_sums", _no_clipping),
]
