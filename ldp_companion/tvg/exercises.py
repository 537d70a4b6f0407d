"""Chapter 2's exercises and their answers, computed by the package (see
:mod:`ldp_companion.page.exercises`). Labels are the ``{exercise}`` labels of the page."""
from __future__ import annotations

import math

import numpy as np

from ldp_companion.page.exercises import ExerciseSet
from ldp_companion.tvg import bounds, covariance, noise, privacy

__all__ = ["EXERCISES", "MM_ANGLE", "RECORD_SHAPE", "LITERAL_SHAPE"]

EXERCISES = ExerciseSet("02-tvg")

#: Angle (degrees) between the two unit columns of the MM exercise's strategy.
MM_ANGLE = 60.0
#: Table III's MNIST feature batch (256 records of 16 × 5 × 5), the record exercise's tensor.
RECORD_SHAPE = (256, 16, 5, 5)
#: Table III's CIFAR-10 feature batch (256 records of 512 × 1 × 1), the literal-ŝ₂ exercise's
#: tensor (the page audits MNIST's).
LITERAL_SHAPE = (256, 512, 1, 1)
_DELTA = 1e-5


def _mm() -> dict:
    c = math.cos(math.radians(MM_ANGLE))
    a = np.array([[1.0, c], [0.0, math.sqrt(1 - c * c)]])     # unit columns at MM_ANGLE
    eye = np.eye(2)
    return {"ratio_angle": covariance.mm_error(eye, a, 1.0) / covariance.mm_error(eye, eye, 1.0)}


def _record() -> dict:
    record = math.prod(RECORD_SHAPE[1:])
    whole = noise.entry_std("gauss_analytic", RECORD_SHAPE, 1.0, value_range=2.0)
    one = noise.entry_std("gauss_analytic", RECORD_SHAPE, 1.0, value_range=2.0,
                          l2_sensitivity=2.0 * math.sqrt(record))
    return {"factor": whole / one}


def _literal() -> dict:
    sig = {c: noise.entry_std("idn", LITERAL_SHAPE, 1.0, _DELTA, value_range=2.0, shat=c)
           for c in bounds.SHAT_CONVENTIONS}
    record = math.prod(LITERAL_SHAPE[1:])
    return {"shrink": sig["consistent"] / sig["literal"],
            "eps_record": privacy.true_epsilon(2.0 * math.sqrt(record) / sig["literal"], _DELTA)}


EXERCISES.add("tvg-ex-mm", "derive", _mm, rtol=1e-6)
EXERCISES.add("tvg-ex-record", "derive", _record, rtol=1e-6)
EXERCISES.add("tvg-ex-literal", "audit", _literal, rtol=1e-4)
