"""Chapter 5's exercises and their answers, computed by the package (see
:mod:`ldp_companion.page.exercises`). Labels are the ``{exercise}`` labels of the page."""
from __future__ import annotations

import numpy as np

from ldp_companion.hiera.analysis import reported_level_second_moment
from ldp_companion.hiera.levels import Levels, paper_levels
from ldp_companion.hiera.privacy import privacy_matrix
from ldp_companion.hiera.protocol import plc_keep_probability
from ldp_companion.page.exercises import Between, ExerciseSet

__all__ = ["EXERCISES", "PLC_BASE", "SGD_D"]

EXERCISES = ExerciseSet("05-hiera")

#: Base ε of the PLC exercise: not one of the page's ``eps_theory`` bases, whose keep
#: probabilities the page prints.
PLC_BASE = 0.3
#: Attributes of the SGD exercise.
SGD_D = 10


def _plc() -> dict:
    levels = paper_levels(PLC_BASE)
    return {"q15": plc_keep_probability(levels.epsilons[0], levels.epsilons[4])}


def _rao_blackwell() -> dict:
    levels = Levels.from_cuts([0.0], [2.0, 1.0])
    m1, m2 = (reported_level_second_moment(levels, mu) for mu in (1, 2))
    return {"excess": float(m2[0] - m1[0])}


def _theorem2() -> dict:
    # the level-5 diagonal entry of Theorem 2's table at base 1, as a ratio, and the reported
    # level of the output that attains it
    return {"ratio": float(np.exp(privacy_matrix(paper_levels(1.0))[4, 4])), "d_star": 1}


def _sgd() -> dict:
    # sd of the first step's noise, (d + 1) coth(eps/2) / sqrt(G) with G = d ln d / eps^2
    def sd(eps):
        return (SGD_D + 1) / np.tanh(eps / 2) * eps / np.sqrt(SGD_D * np.log(SGD_D))

    return {"sd_ratio": float(sd(0.5) / sd(2.0))}


def _rerun() -> dict:
    # the unclipped estimator's MAE is sqrt(2 Var(m*) / pi), and Var(m*) falls like 1 / n
    return {"factor": 0.5}


def _audit() -> dict:
    # a level-1 bit converted by PLC is randomized response at eps_5: its loss is eps_5
    eps5 = float(paper_levels(1.0).epsilons[4])
    return {"eps_exact": eps5, "eps_low": Between(eps5 - 0.15, eps5 + 0.05)}


EXERCISES.add("hiera-ex-plc", "derive", _plc, rtol=1e-6)
EXERCISES.add("hiera-ex-rao-blackwell", "derive", _rao_blackwell, rtol=1e-6)
EXERCISES.add("hiera-ex-theorem2", "derive", _theorem2, rtol=1e-3)
EXERCISES.add("hiera-ex-sgd", "derive", _sgd, rtol=1e-3)
EXERCISES.add("hiera-ex-rerun", "run", _rerun, rtol=0.0, atol=0.02)
EXERCISES.add("hiera-ex-audit", "audit", _audit, rtol=1e-6)
