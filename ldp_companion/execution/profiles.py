"""Chapter parameters by profile (``smoke`` | ``default`` | ``paper``).

A chapter's papermill ``parameters`` cell holds ``profile``, ``seed`` and one variable per
knob, ``None`` meaning "the profile's value". Each knob's meaning and its value per profile
live in the chapter's package, as a :class:`ChapterParams` (``ldp_companion/<chapter>/params.py``),
the one source the chapter, the *Reading and rerunning* page's table and
``python -m ldp_companion params`` read::

    PARAMS = ChapterParams("03-pm-three-outputs", {
        "n_mc": ("Monte Carlo samples per cell", {"smoke": 20_000, "default": 10**6,
                                                  "paper": 10**6}),
    })

and the chapter resolves its parameters cell in one line::

    cfg = PARAMS.resolve(globals())   # profile, seed and every knob, None -> profile's value
    cfg                               # shows the parameter table near the top of the chapter
    cfg.n_mc                          # the value in force

Every knob has a :class:`Kind` (what values it accepts): inferred from its values per profile
where they decide it (:func:`infer_kind`), declared as the spec's third element where they do
not (``"n_jobs": ("worker processes", every_profile(None), N_JOBS)``). The kind is the one
source of the check, of the error message and of the "allowed: ..." part of each meaning in
the chapter's parameter table. :meth:`ChapterParams.resolve` checks every value given, and every
name papermill injected, before the chapter does any work: a bad one stops it with one line naming
the parameter and its allowed range (``n_mc must be an integer ≥ 1, got 0``); a text where
the kind is not one (papermill's ``-p eps_checks "[0.5, 1]"``) is read as a Python literal.
"""
from __future__ import annotations

import ast
import difflib
import json
import math
import numbers
import re
from dataclasses import dataclass, field

import pandas as pd

from ldp_companion.verdicts.prose import format_value

__all__ = ["PROFILES", "EXTRAS", "MissingExtra", "require", "ChapterConfig", "ChapterParams",
           "resolve", "every_profile", "Kind", "Int", "Number", "EPS", "Choice",
           "Text", "Bool", "OneOf", "ListOf", "MapOf", "N_JOBS", "OPTIONAL_COUNT", "infer_kind"]

PROFILES = ("smoke", "default", "paper")

#: Optional extras of the package: the modules each brings (``pip install
#: "ldp_companion[torch]"``).
EXTRAS = {"torch": ("torch", "torchvision", "opacus", "dp_accounting")}


class MissingExtra(ImportError):
    """A chapter needs an optional extra of the package that is not installed."""


def require(chapter: str, extras) -> None:
    """Stop with one line saying what to install when ``chapter`` needs an extra that is not
    installed (:data:`EXTRAS`)."""
    import importlib.util

    for extra in extras:
        absent = [m for m in EXTRAS[extra] if importlib.util.find_spec(m) is None]
        if absent:
            raise MissingExtra(f"{chapter} needs the [{extra}] extra ({', '.join(absent)} not "
                               f"installed): pip install \"ldp_companion[{extra}]\"")


def every_profile(value) -> dict:
    """``{"smoke": value, "default": value, "paper": value}``: a knob that does not change with
    the profile."""
    return {p: value for p in PROFILES}


# --------------------------------------------------------------------------- kinds of values

class _Refused(Exception):
    """A value is not of a kind (internal: :meth:`Kind.check` turns it into the message; its
    text, if any, says which part of a list or dict is wrong)."""


class Kind:
    """What values a parameter accepts: one object gives its check, the range that the error
    message and the page's parameter table state, and the conversions allowed (``2e4`` ->
    ``20000`` for an integer knob; nothing lossy).

    Subclasses set :attr:`allowed` (the range in words, "an integer ≥ 1") and :attr:`plural`
    (the same for the entries of a list, "integers ≥ 1") and implement :meth:`convert`.
    """

    allowed = "any value"
    plural = "values"
    #: A ``str`` is a value of this kind; otherwise a ``str`` (papermill passes ``-p`` values
    #: that are not numbers as text) is read as a Python literal first.
    text = False

    def convert(self, value):
        """``value`` as the chapter uses it; :class:`_Refused` when it is not of this kind."""
        return value

    def check(self, name: str, value, example=None):
        """``value`` as the chapter uses it.

        Parameters
        ----------
        name : str
            The parameter, named by the message.
        value
            The value given (a ``str`` is read with :func:`ast.literal_eval` unless the kind
            takes text).
        example : optional
            A good value, shown in the ``-y`` hint when a text is not a Python literal.

        Raises
        ------
        ValueError
            One line naming ``name``, the allowed range and the value given.
        """
        if isinstance(value, str) and not self.text:
            value = self._literal(name, value, example)
        try:
            return self.convert(value)
        except _Refused as refused:
            why = f" ({refused})" if str(refused) else ""
            raise ValueError(f"{name} must be {self.allowed}, got {value!r}{why}") from None

    def _literal(self, name: str, text: str, example):
        try:
            return ast.literal_eval(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            shown = "VALUE" if example is None else json.dumps(example)
            raise ValueError(
                f"{name} must be {self.allowed}, got the text {text!r}, which is not a Python "
                f"literal (papermill passes a -p value that is not a number as text: give it "
                f"as YAML, -y '{name}: {shown}')") from None

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: {self.allowed}>"


def _bounds(low, high, closed: bool) -> str:
    """``"> 0"``, ``"≥ 1"``, ``"in (0, 1)"``: a range in words."""
    if high is None:
        return f"{'≥' if closed else '>'} {low:g}"
    return f"in {'[' if closed else '('}{low:g}, {high:g})"


class Int(Kind):
    """An integer in ``[low, high]`` (``high`` None: no upper bound); a float is accepted
    only when it is integral (``2e4``), and becomes an int."""

    def __init__(self, low: int = 1, high: int | None = None):
        self.low, self.high = low, high
        bounds = f"≥ {low}" if high is None else f"in [{low}, {high}]"
        self.allowed, self.plural = f"an integer {bounds}", f"integers {bounds}"

    def convert(self, value):
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise _Refused
        if not isinstance(value, numbers.Integral) and not (
                math.isfinite(value) and float(value).is_integer()):
            raise _Refused
        value = int(value)
        if value < self.low or (self.high is not None and value > self.high):
            raise _Refused
        return value


class Number(Kind):
    """A finite real number above ``low`` (at or above it when ``closed``) and below
    ``high``; it becomes a float."""

    def __init__(self, low: float = 0.0, high: float | None = None, *, closed: bool = False,
                 noun: tuple[str, str] = ("a finite number", "finite numbers")):
        self.low, self.high, self.closed = low, high, closed
        bounds = _bounds(low, high, closed)
        self.allowed, self.plural = f"{noun[0]} {bounds}", f"{noun[1]} {bounds}"

    def convert(self, value):
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise _Refused
        value = float(value)
        above = value >= self.low if self.closed else value > self.low
        if not (math.isfinite(value) and above and (self.high is None or value < self.high)):
            raise _Refused
        return value


#: A privacy budget ε: finite and > 0.
EPS = Number(0.0, noun=("a finite ε", "finite ε"))


def _same(a, b) -> bool:
    """``a == b`` without ``True == 1``, ``None == ...`` or ``"1" == 1`` passing."""
    if a is None or b is None:
        return a is b
    if isinstance(a, bool) != isinstance(b, bool) or isinstance(a, str) != isinstance(b, str):
        return False
    return a == b


class Choice(Kind):
    """One of ``options`` (strings, None, numbers)."""

    def __init__(self, *options):
        self.options = options
        self.shown = [format_value(o) for o in options]
        self.text = any(isinstance(o, str) for o in options)
        self.allowed = self.shown[0] if len(options) == 1 else "one of " + ", ".join(self.shown)
        self.plural = "names among " + ", ".join(self.shown)

    def convert(self, value):
        for option in self.options:
            if _same(value, option):
                return option
        raise _Refused


class Text(Kind):
    """A string that matches ``pattern`` in full (``allowed`` says which in words)."""

    text = True

    def __init__(self, pattern: str, allowed: str):
        self.pattern, self.allowed, self.plural = re.compile(pattern), allowed, allowed

    def convert(self, value):
        if not isinstance(value, str) or not self.pattern.fullmatch(value):
            raise _Refused
        return value


class Bool(Kind):
    """``True`` or ``False`` (not 0 or 1)."""

    allowed, plural = "True or False", "True or False"

    def convert(self, value):
        if not isinstance(value, bool):
            raise _Refused
        return value


class OneOf(Kind):
    """A value of the first of ``kinds`` that accepts it (``OneOf(Choice(None), Int(1))``)."""

    def __init__(self, *kinds: Kind):
        self.kinds = kinds
        self.text = any(k.text for k in kinds)
        parts = [p for k in kinds for p in (k.shown if isinstance(k, Choice) else [k.allowed])]
        self.allowed = ", ".join(parts[:-1]) + " or " + parts[-1]
        self.plural = self.allowed

    def convert(self, value):
        for kind in self.kinds:
            try:
                return kind.convert(value)
            except _Refused:
                pass
        raise _Refused


class ListOf(Kind):
    """A list (or tuple) whose entries are of kind ``item``; it becomes a list."""

    def __init__(self, item: Kind, *, nonempty: bool = True, distinct: bool = False):
        self.item, self.nonempty, self.distinct = item, nonempty, distinct
        head = "a non-empty list of" if nonempty else "a list, possibly empty, of"
        self.allowed = f"{head} {'distinct ' if distinct else ''}{item.plural}"
        self.plural = f"lists of {item.plural}"

    def convert(self, value):
        if not isinstance(value, (list, tuple)) or (self.nonempty and not value):
            raise _Refused
        items = [_entry(self.item, v, f"entry {v!r}") for v in value]
        repeated = [v for k, v in enumerate(items) if v in items[:k]]
        if self.distinct and repeated:
            raise _Refused(f"{repeated[0]!r} repeats")
        return items


class MapOf(Kind):
    """A non-empty dict from names among ``keys`` to values of kind ``value``."""

    def __init__(self, keys, value: Kind):
        self.keys, self.value = tuple(keys), value
        names = ", ".join(format_value(k) for k in self.keys)
        self.allowed = f"a dict from names among {names} to {value.plural}"
        self.plural = f"dicts from names among {names} to {value.plural}"

    def convert(self, value):
        if not isinstance(value, dict) or not value:
            raise _Refused
        unknown = [k for k in value if k not in self.keys]
        if unknown:
            raise _Refused(f"{unknown[0]!r} is not a known name")
        return {k: _entry(self.value, v, f"{k!r}: {v!r}") for k, v in value.items()}


def _entry(kind: Kind, value, shown: str):
    """One entry of a list or dict, converted by ``kind``; the refusal shows it (``shown``)."""
    try:
        return kind.convert(value)
    except _Refused:
        raise _Refused(f"{shown} is not {kind.allowed}") from None


#: Worker processes of a grid (:func:`ldp_companion.execution.grid.run_grid`): None (every core), -1
#: or a positive count.
N_JOBS = OneOf(Choice(None, -1), Int(1))
#: An optional size cap: None (no cap) or a positive count.
OPTIONAL_COUNT = OneOf(Choice(None), Int(1))

_PROFILE, _SEED = Choice(*PROFILES), Int(0)
_EPS_NAME = re.compile(r"(^|_)eps($|_)")


def infer_kind(name: str, per_profile: dict) -> Kind | None:
    """The kind that the profiles' values of parameter ``name`` imply, or None when they do
    not decide it (None in every profile, mixed types, a dict, a list empty in some profile).

    Integers -> :class:`Int` (≥ 1 when every value is, else ≥ 0); numbers -> :class:`Number`
    (> 0 when every value is, else ≥ 0; :data:`EPS` when the name is an ε, e.g. ``eps_grid``,
    ``sgd_eps``); strings -> :class:`Choice` among the values; lists -> a non-empty
    :class:`ListOf` those (distinct when every profile's list is).
    """
    values = [per_profile[p] for p in PROFILES]
    if not all(isinstance(v, list) for v in values):
        return _scalar_kind(name, values)
    item = _scalar_kind(name, [x for v in values for x in v])
    if item is None or not all(values):
        return None
    return ListOf(item, distinct=all(len(set(v)) == len(v) for v in values))


def _scalar_kind(name: str, values: list) -> Kind | None:
    if not values or any(v is None or isinstance(v, (list, dict)) for v in values):
        return None
    if all(isinstance(v, bool) for v in values):
        return Bool()
    if all(isinstance(v, str) for v in values):
        return Choice(*dict.fromkeys(values))
    if any(isinstance(v, bool) or not isinstance(v, numbers.Real) for v in values):
        return None
    low = min(values)
    if all(isinstance(v, numbers.Integral) for v in values):
        return Int(1 if low >= 1 else 0) if low >= 0 else None
    if _EPS_NAME.search(name):
        return EPS if low > 0 else None
    return Number(0.0, closed=low == 0) if low >= 0 else None


_READS: set = set()


def _note_read(name: str) -> None:
    """Note, once per cell, that the running notebook cell read parameter ``name``
    (``<chapter>.reads.json``, :mod:`ldp_companion.verdicts.run_records`: timing records scale a
    cell's time by the parameters it reads)."""
    from ldp_companion.verdicts import run_records

    cell = run_records.current_cell()
    if cell is None or (cell, name) in _READS:
        return
    _READS.add((cell, name))

    def add(reads: dict) -> None:
        reads[str(cell)] = sorted(set(reads.get(str(cell), [])) | {name})

    run_records.update("reads", add)


@dataclass
class ChapterConfig:
    """The parameters in force for one run of a chapter (attribute access by name)."""

    profile: str
    seed: int
    values: dict = field(default_factory=dict)
    spec: dict = field(default_factory=dict)
    overridden: set = field(default_factory=set)
    kinds: dict = field(default_factory=dict)

    def __getattr__(self, name):
        values = self.__dict__.get("values", {})
        if name in values:
            _note_read(name)
            return values[name]
        raise AttributeError(f"no parameter {name!r}; known: {', '.join(values)}")

    def table(self) -> pd.DataFrame:
        """Every parameter: meaning and allowed values (one column, so that the table fits
        the page's text column), value per profile, and the value in force in this run."""
        def meaning_and_range(meaning: str, kind) -> str:
            return meaning if kind is None else f"{meaning}; allowed: {kind.allowed}"

        rows = [{"parameter": "profile", "meaning": meaning_and_range(
                    "run size: smoke (tests), default (book), paper (the paper's setup)",
                    _PROFILE), **{p: p for p in PROFILES}, "this run": self.profile},
                {"parameter": "seed", "meaning": meaning_and_range(
                    "seed of every random draw", _SEED),
                 **{p: 0 for p in PROFILES}, "this run": self.seed}]
        for name, (meaning, per_profile) in self.spec.items():
            mark = " (set by caller)" if name in self.overridden else ""
            rows.append({"parameter": name,
                         "meaning": meaning_and_range(meaning, self.kinds.get(name)),
                         **{p: format_value(per_profile[p]) for p in PROFILES},
                         "this run": format_value(self.values[name]) + mark})
        return pd.DataFrame(rows).set_index("parameter")

    def _repr_html_(self) -> str:
        """The parameter table as the chapter page shows it: every meaning in full."""
        with pd.option_context("display.max_colwidth", None):
            return self.table().to_html(classes="ldp-params", escape=True)


def resolve(profile: str, spec: dict, *, seed: int = 0, kinds: dict | None = None,
            **overrides) -> ChapterConfig:
    """Merge a chapter's per-profile parameter spec with the caller's overrides, each checked.

    Parameters
    ----------
    profile : {"smoke", "default", "paper"}
    spec : dict
        ``name -> (meaning, {"smoke": v, "default": v, "paper": v})``.
    seed : int
        Seed of the chapter's random generators (≥ 0).
    kinds : dict, optional
        ``name -> Kind`` (:class:`ChapterParams` gives its own); by default the kinds the
        profiles' values imply (:func:`infer_kind`), a knob they do not decide taken as given.
    **overrides
        Values from the parameters cell; ``None`` keeps the profile's value.

    Raises
    ------
    ValueError
        One line naming an unknown parameter (and the closest known one), or a parameter whose
        value is outside its allowed range.
    """
    profile, seed = _PROFILE.check("profile", profile), _SEED.check("seed", seed)
    _check_names(overrides, ["profile", "seed", *spec], "")
    for name, (_, per_profile) in spec.items():
        missing = set(PROFILES) - set(per_profile)
        if missing:
            raise ValueError(f"parameter {name!r} has no value for profile(s) {sorted(missing)}")
    if kinds is None:
        kinds = {name: infer_kind(name, per) for name, (_, per) in spec.items()}
    values, overridden = {}, set()
    for name, (_, per_profile) in spec.items():
        given, kind = overrides.get(name), kinds.get(name)
        if given is None:
            values[name] = per_profile[profile]
            continue
        values[name] = given if kind is None else kind.check(name, given, _example(per_profile))
        overridden.add(name)
    return ChapterConfig(profile, seed, values, dict(spec), overridden, dict(kinds))


def _example(per_profile: dict):
    """A value of a knob to show in a hint: its first profile value that is not None."""
    return next((per_profile[p] for p in PROFILES if per_profile[p] is not None), None)


def _check_names(names, known: list, owner: str) -> None:
    """Refuse a parameter name that is not ``known``, naming the closest known one."""
    for name in names:
        if name not in known:
            close = difflib.get_close_matches(str(name), known, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ValueError(f"unknown parameter {name!r}{owner}{hint}; known: "
                             f"{', '.join(known)}")


def _injected_names(namespace: dict) -> list[str]:
    """The names papermill's injected-parameters cell assigned, or [] outside IPython or
    without one: IPython keeps the executed cells' sources in ``In``, and papermill's cell is
    the last one starting with ``# Parameters``."""
    cells = namespace.get("In")
    if not isinstance(cells, list):
        return []
    source = next((c for c in reversed(cells)
                   if isinstance(c, str) and c.lstrip().startswith("# Parameters")), None)
    if source is None:
        return []
    return [target.id for node in ast.parse(source).body if isinstance(node, ast.Assign)
            for target in node.targets if isinstance(target, ast.Name)]


def _entry_kind(chapter: str, name: str, entry) -> Kind:
    """The kind of one spec entry (declared or inferred), after checking the entry and that
    every profile's value is of that kind."""
    if not (isinstance(entry, tuple) and len(entry) in (2, 3) and isinstance(entry[0], str)
            and isinstance(entry[1], dict) and (len(entry) == 2 or isinstance(entry[2], Kind))):
        raise ValueError(f"{chapter}: parameter {name!r} must be (meaning, per_profile) or "
                         "(meaning, per_profile, kind)")
    if "=" in entry[0]:
        raise ValueError(f"{chapter}: the meaning of {name!r} contains '=', which "
                         "papermill cannot parse in a parameters-cell comment")
    missing = set(PROFILES) - set(entry[1])
    if missing:
        raise ValueError(f"{chapter}: parameter {name!r} has no value for {sorted(missing)}")
    kind = entry[2] if len(entry) == 3 else infer_kind(name, entry[1])
    if kind is None:
        raise ValueError(f"{chapter}: the values of {name!r} per profile do not decide what it "
                         "accepts; declare its kind as the entry's third element (e.g. N_JOBS)")
    for profile in PROFILES:
        try:
            kind.convert(entry[1][profile])
        except _Refused:
            raise ValueError(f"{chapter}: the {profile} value of {name!r}, "
                             f"{entry[1][profile]!r}, is not {kind.allowed}") from None
    return kind


class ChapterParams:
    """A chapter's parameter spec: each knob's meaning and value per profile.

    Parameters
    ----------
    chapter : str
        Chapter id (the notebook's file stem, e.g. ``"05-hiera"``).
    spec : dict
        ``name -> (meaning, {"smoke": v, "default": v, "paper": v})``, in the order of the
        chapter's parameters cell, or ``(meaning, per_profile, kind)`` with the :class:`Kind`
        of the values the knob accepts, where its values per profile do not decide it
        (:func:`infer_kind`: None in every profile, a list empty in some, a dict, more
        choices than the profiles use, a tighter range).
    requires : tuple of str
        Optional extras of the package the chapter needs (``("torch",)``): :meth:`resolve`,
        the chapter's first step, stops with one line saying what to install when one is
        missing.
    data_size : tuple of str
        Parameters that size the data every later cell works on (chapter 4's ``expand``):
        a timing projection (:mod:`ldp_companion.edition.planning`) scales each cell after the one
        that read them, not only the cells that read them.

    Raises
    ------
    ValueError
        If an entry is malformed, a knob's kind is neither declared nor implied by its
        values, or a profile's own value is not of its kind.
    """

    def __init__(self, chapter: str, spec: dict, requires: tuple = (), data_size: tuple = ()):
        unknown = set(requires) - set(EXTRAS)
        if unknown:
            raise ValueError(f"{chapter}: unknown extras {sorted(unknown)}; known: {list(EXTRAS)}")
        if set(data_size) - set(spec):
            raise ValueError(f"{chapter}: data_size names unknown parameters "
                             f"{sorted(set(data_size) - set(spec))}")
        self.chapter = chapter
        self.kinds = {name: _entry_kind(chapter, name, entry) for name, entry in spec.items()}
        self.spec = {name: tuple(entry[:2]) for name, entry in spec.items()}
        self.requires = tuple(requires)
        self.data_size = tuple(data_size)

    def require(self) -> None:
        """Stop with one line saying what to install when an extra the chapter needs is
        missing (a chapter's first import line, before anything imports torch)."""
        require(self.chapter, self.requires)

    @property
    def names(self) -> list[str]:
        """The knobs, in parameters-cell order (``profile`` and ``seed`` not included)."""
        return list(self.spec)

    def resolve(self, namespace: dict) -> ChapterConfig:
        """Resolve a chapter's parameters cell: ``cfg = PARAMS.resolve(globals())``.

        ``namespace`` must hold ``profile``, ``seed`` and every knob of the spec (the
        parameters cell defines them); ``None`` means the profile's value. Run by papermill,
        the names its injected-parameters cell assigned (IPython's ``In``) are checked too: a
        misspelt one is an error, not a knob silently left at its profile's value.

        Raises
        ------
        ValueError
            One line naming an unknown parameter, or a value outside its parameter's range
            (:class:`Kind`), before the chapter does any work.
        MissingExtra
            If an extra the chapter needs is not installed.
        """
        self.check_names(_injected_names(namespace))
        missing = [n for n in ["profile", "seed", *self.spec] if n not in namespace]
        if missing:
            raise ValueError(f"{self.chapter}: the parameters cell does not define {missing}")
        require(self.chapter, self.requires)
        return resolve(namespace["profile"], self.spec, seed=namespace["seed"],
                       kinds=self.kinds, **{n: namespace[n] for n in self.spec})

    def check_names(self, names) -> None:
        """Refuse a name among ``names`` that is not a parameter of the chapter (``profile``,
        ``seed`` or a knob), suggesting the closest one.

        Raises
        ------
        ValueError
            ``unknown parameter 'eps_gird' of 03-pm-three-outputs (did you mean
            'eps_grid'?); known: ...``.
        """
        _check_names(names, ["profile", "seed", *self.spec], f" of {self.chapter}")

    def parameters_cell(self) -> str:
        """The chapter's papermill parameters cell, generated from the spec.

        Each knob defaults to ``None`` and carries its meaning as the comment, which
        ``papermill --help-notebook`` shows (so a meaning must not contain ``=``).
        """
        rows = [("profile", '"default"', '"smoke" | "default" | "paper"'),
                ("seed", "0", "seed of every random draw")]
        rows += [(name, "None", meaning) for name, (meaning, _) in self.spec.items()]
        width = max(len(f"{n} = {v}") for n, v, _ in rows)
        return "\n".join(f"{n} = {v}".ljust(width) + f"  # {m}" for n, v, m in rows)

    def markdown_rows(self, number: str) -> list[str]:
        """Rows of the table of every chapter's parameters: chapter, parameter, meaning, value per
        profile."""
        return [f"| {number} | `{name}` | {meaning} | "
                + " | ".join(format_value(per[p]) for p in PROFILES) + " |"
                for name, (meaning, per) in self.spec.items()]
