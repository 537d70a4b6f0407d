"""Exercises that check themselves: each chapter's answers, computed by the package.

A chapter package declares its exercises in an :class:`ExerciseSet` (``<chapter>/exercises.py``):
for each exercise its label (the ``:label:`` of the page's ``{exercise}`` directive), its kind
(:data:`KINDS`), the names of the answers the student writes, and a function that computes the
expected answers from the package's closed forms. On the page, a self-check cell after the
exercise calls :meth:`ExerciseSet.check` with the student's values; it says ``correct`` or
``not yet`` and why, and never prints the expected value.

>>> from ldp_companion.page.exercises import ExerciseSet
>>> ex = ExerciseSet("demo")
>>> ex.add("demo-ex-two", "derive", lambda: {"two": 2.0}, rtol=1e-6)
>>> ex.check("demo-ex-two", two=...)
demo-ex-two: not yet (fill in `two`)
>>> ex.check("demo-ex-two", two=2.0)
demo-ex-two: correct
"""
from __future__ import annotations

import numbers
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

__all__ = ["KINDS", "Between", "CheckResult", "Exercise", "ExerciseSet", "SealedAnswers"]

#: The three kinds of exercise (issue "coursework kit"): a derivation checked by a number, a
#: rerun with other parameters and a prediction, and an audit of a claim the page did not audit.
KINDS = {"derive": "derive and check", "run": "run and interpret", "audit": "audit a claim"}


@dataclass(frozen=True)
class Between:
    """An expected answer that may lie anywhere in ``[low, high]`` (a random outcome, e.g. an
    audit's lower bound, whose exact value depends on the student's seed)."""

    low: float
    high: float

    def __post_init__(self):
        if not self.low <= self.high:
            raise ValueError(f"Between needs low <= high, got [{self.low}, {self.high}]")


@dataclass(frozen=True)
class CheckResult:
    """What a self-check cell shows: ``correct`` or ``not yet`` with the reasons."""

    label: str
    problems: tuple = ()

    @property
    def correct(self) -> bool:
        return not self.problems

    def __repr__(self) -> str:
        if self.correct:
            return f"{self.label}: correct"
        return f"{self.label}: not yet ({'; '.join(self.problems)})"


@dataclass(frozen=True)
class Exercise:
    """One exercise: its label, kind, answer names and how the answers are judged.

    Parameters
    ----------
    label : str
        The ``:label:`` of the ``{exercise}`` directive on the page.
    kind : str
        A key of :data:`KINDS`.
    expected : callable
        ``() -> {name: value}``: the answers, computed by the package. A value is a number or an
        array (compared with ``rtol``/``atol``), a :class:`Between` range, or a bool or string
        (compared exactly).
    rtol, atol : float
        Tolerances of numeric answers.
    """

    label: str
    kind: str
    expected: Callable[[], dict]
    rtol: float = 1e-6
    atol: float = 0.0
    _cache: dict = field(default_factory=dict, compare=False, repr=False)

    def answers(self) -> dict:
        """The expected answers (computed once)."""
        if not self._cache:
            self._cache.update(self.expected())
        return dict(self._cache)

    @property
    def names(self) -> tuple:
        return tuple(self.answers())

    def judge(self, name: str, given, expected) -> str | None:
        """Why ``given`` is not an acceptable ``name``, or None when it is."""
        if given is None or given is Ellipsis:
            return f"fill in `{name}`"
        if isinstance(expected, (bool, np.bool_, str)):
            return None if given == expected else f"`{name}` is not right"
        if isinstance(expected, Between):
            if not _is_real(given):
                return f"`{name}` should be a number"
            ok = expected.low <= float(given) <= expected.high
            return None if ok else f"`{name}` is outside the range a correct run gives"
        arr = np.asarray(given) if not isinstance(given, str) else None
        if arr is None or arr.dtype == bool or not np.issubdtype(arr.dtype, np.number):
            return f"`{name}` should be a number" + ("s" if np.ndim(expected) else "")
        if arr.shape != np.shape(expected):
            return f"`{name}` should have shape {np.shape(expected)}, got {arr.shape}"
        if np.allclose(arr, expected, rtol=self.rtol, atol=self.atol, equal_nan=False):
            return None
        return (f"`{name}` is not within the tolerance ({_tolerance(self.rtol, self.atol)}); "
                "give the computed value, not a rounded one")


def _judged(label: str, answers: dict, expected: dict, judge) -> CheckResult:
    """``judge(name, given, expected)`` of each answer; a page that passes other names than
    the exercise's is refused (a mistake of the page, not of the student)."""
    if set(answers) != set(expected):
        raise ValueError(f"{label} expects the answers {', '.join(expected)}, "
                         f"got {', '.join(answers) or 'none'}")
    problems = [p for name, value in expected.items()
                if (p := judge(name, answers[name], value)) is not None]
    return CheckResult(label, tuple(problems))


def _is_real(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _tolerance(rtol: float, atol: float) -> str:
    parts = ([f"{rtol:.0e} relative"] if rtol else []) + ([f"{atol:g} absolute"] if atol else [])
    return " + ".join(parts) or "exact"


class ExerciseSet:
    """A chapter's exercises, by label, in page order."""

    def __init__(self, chapter: str):
        self.chapter = chapter
        self._exercises: dict[str, Exercise] = {}

    def add(self, label: str, kind: str, expected: Callable[[], dict], *,
            rtol: float = 1e-6, atol: float = 0.0) -> None:
        """Declare an exercise (see :class:`Exercise`)."""
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {tuple(KINDS)}, got {kind!r}")
        if label in self._exercises:
            raise ValueError(f"exercise {label!r} is declared twice")
        self._exercises[label] = Exercise(label, kind, expected, rtol, atol)

    def __iter__(self):
        return iter(self._exercises.values())

    def __len__(self) -> int:
        return len(self._exercises)

    def __getitem__(self, label: str) -> Exercise:
        if label not in self._exercises:
            raise ValueError(f"unknown exercise {label!r}; {self.chapter} has: "
                             f"{', '.join(self._exercises)}")
        return self._exercises[label]

    def check(self, label: str, **answers) -> CheckResult:
        """Judge the student's ``answers`` (keyword per answer name) to exercise ``label``.

        Raises
        ------
        ValueError
            If ``label`` is unknown or the names differ from the exercise's (a mistake of the
            page, not of the student).
        """
        exercise = self[label]
        return _judged(label, answers, exercise.answers(), exercise.judge)

    def answers(self) -> dict[str, dict]:
        """Every exercise's expected answers (label -> name -> value), for the leak tests."""
        return {e.label: e.answers() for e in self}

    def sealed(self, salt: str | None = None) -> SealedAnswers:
        """The answers sealed for a student edition (:class:`SealedAnswers`): it can say
        ``correct`` or ``not yet`` but does not hold the answers."""
        import secrets

        salt = salt or secrets.token_hex(8)
        return SealedAnswers({e.label: {n: _seal(v, e.rtol, e.atol, salt)
                                        for n, v in e.answers().items()} for e in self},
                             salt)


# --- answers a student edition carries without showing them ------------------------------

def _digest(salt: str, text: str) -> str:
    import hashlib

    return hashlib.sha256(f"{salt}|{text}".encode()).hexdigest()[:16]


def _step_exponent(value: float, rtol: float, atol: float) -> int:
    """The power of ten that quantizes ``value`` to about its tolerance."""
    tol = max(atol, rtol * abs(value), 1e-300)
    return int(np.floor(np.log10(tol)))


def _seal(value, rtol: float, atol: float, salt: str) -> dict:
    if isinstance(value, Between):
        return {"kind": "between", "low": value.low, "high": value.high}
    if isinstance(value, (bool, np.bool_, str)):
        return {"kind": "exact", "hash": _digest(salt, repr(value if isinstance(value, str)
                                                             else bool(value)))}
    arr = np.asarray(value, float)
    flat = arr.ravel()
    exps = [_step_exponent(v, rtol, atol) for v in flat]
    return {"kind": "number", "shape": list(arr.shape), "exponents": exps,
            "hashes": [_digest(salt, f"{round(v / 10.0 ** e)}e{e}") for v, e in zip(flat, exps)]}


class SealedAnswers:
    """Self-checks without the answers: what a student edition carries.

    Each numeric answer is kept as a salted hash of its value rounded to about its tolerance
    (the power of ten below ``max(atol, rtol·|answer|)``); a given value is correct when it
    rounds to the same integer or a neighbour, so the check accepts what the original
    tolerance accepts, give or take a factor of ten. Ranges (:class:`Between`) are kept as
    they are: they say where a random outcome may fall, not what it is. Strings and booleans
    are hashed.
    """

    def __init__(self, seals: dict, salt: str):
        self.seals, self.salt = seals, salt

    def to_json(self) -> str:
        import json

        return json.dumps({"salt": self.salt, "seals": self.seals}, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> SealedAnswers:
        import json

        data = json.loads(text)
        return cls(data["seals"], data["salt"])

    def _judge(self, name: str, given, seal: dict) -> str | None:
        if given is None or given is Ellipsis:
            return f"fill in `{name}`"
        if seal["kind"] == "between":
            if not _is_real(given):
                return f"`{name}` should be a number"
            ok = seal["low"] <= float(given) <= seal["high"]
            return None if ok else f"`{name}` is outside the range a correct run gives"
        if seal["kind"] == "exact":
            shown = repr(given if isinstance(given, str) else bool(given)) \
                if isinstance(given, (str, bool, np.bool_)) else None
            ok = shown is not None and _digest(self.salt, shown) == seal["hash"]
            return None if ok else f"`{name}` is not right"
        arr = np.asarray(given) if not isinstance(given, str) else None
        if arr is None or arr.dtype == bool or not np.issubdtype(arr.dtype, np.number):
            return f"`{name}` should be a number" + ("s" if seal["shape"] else "")
        if list(arr.shape) != seal["shape"]:
            return f"`{name}` should have shape {tuple(seal['shape'])}, got {arr.shape}"
        for v, e, h in zip(arr.astype(float).ravel(), seal["exponents"], seal["hashes"]):
            k = round(float(v) / 10.0 ** e) if np.isfinite(v) else None
            if k is None or all(_digest(self.salt, f"{k + d}e{e}") != h for d in (-1, 0, 1)):
                return (f"`{name}` is not within the tolerance: it must be right to about "
                        f"{10.0 ** e:.0e}; give the computed value, not a rounded one")
        return None

    def check(self, label: str, **answers) -> CheckResult:
        """Judge the student's ``answers`` to exercise ``label`` (as :meth:`ExerciseSet.check`)."""
        if label not in self.seals:
            raise ValueError(f"unknown exercise {label!r}; known: {', '.join(self.seals)}")
        return _judged(label, answers, self.seals[label], self._judge)
