"""Chapter parameters by profile (``smoke`` | ``default`` | ``paper``).

A chapter's papermill ``parameters`` cell holds ``profile``, ``seed`` and one variable per
knob, ``None`` meaning "the profile's value". Each knob's meaning and its value per profile
live in the chapter's package, as a :class:`ChapterParams` (``ldp_companion/<chapter>/params.py``),
the one source the chapter, the README table and ``python -m ldp_companion params`` read::

    PARAMS = ChapterParams("03-pm-three-outputs", {
        "n_mc": ("Monte Carlo samples per cell", {"smoke": 20_000, "default": 10**6,
                                                  "paper": 10**6}),
    })

and the chapter resolves its parameters cell in one line::

    cfg = PARAMS.resolve(globals())   # profile, seed and every knob, None -> profile's value
    cfg                               # shows the parameter table near the top of the chapter
    cfg.n_mc                          # the value in force
"""
from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

__all__ = ["PROFILES", "EXTRAS", "MissingExtra", "require", "ChapterConfig", "ChapterParams", "resolve", "format_value",
           "every_profile"]

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


_READS: set = set()


def _note_read(name: str) -> None:
    """Note, once per cell, that the running notebook cell read parameter ``name``
    (``<chapter>.reads.json``, :mod:`ldp_companion.run_records`: timing records scale a
    cell's time by the parameters it reads)."""
    from ldp_companion import run_records

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

    def __getattr__(self, name):
        values = self.__dict__.get("values", {})
        if name in values:
            _note_read(name)
            return values[name]
        raise AttributeError(f"no parameter {name!r}; known: {', '.join(values)}")

    def table(self) -> pd.DataFrame:
        """Every parameter: meaning, value per profile, and the value in force in this run."""
        rows = [{"parameter": "profile", "meaning": "run size: smoke (tests), default (book), "
                 "paper (the paper's setup)", **{p: p for p in PROFILES},
                 "this run": self.profile},
                {"parameter": "seed", "meaning": "seed of every random draw",
                 **{p: 0 for p in PROFILES}, "this run": self.seed}]
        for name, (meaning, per_profile) in self.spec.items():
            mark = " (set by caller)" if name in self.overridden else ""
            rows.append({"parameter": name, "meaning": meaning,
                         **{p: format_value(per_profile[p]) for p in PROFILES},
                         "this run": format_value(self.values[name]) + mark})
        return pd.DataFrame(rows).set_index("parameter")

    def _repr_html_(self) -> str:
        """The parameter table as the chapter page shows it: every meaning in full."""
        with pd.option_context("display.max_colwidth", None):
            return self.table().to_html(classes="ldp-params", escape=True)


def resolve(profile: str, spec: dict, *, seed: int = 0, **overrides) -> ChapterConfig:
    """Merge a chapter's per-profile parameter spec with the caller's overrides.

    Parameters
    ----------
    profile : {"smoke", "default", "paper"}
    spec : dict
        ``name -> (meaning, {"smoke": v, "default": v, "paper": v})``.
    seed : int
        Seed of the chapter's random generators.
    **overrides
        Values from the parameters cell; ``None`` keeps the profile's value.
    """
    if profile not in PROFILES:
        raise ValueError(f"profile must be one of {PROFILES}, got {profile!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    unknown = set(overrides) - set(spec)
    if unknown:
        raise ValueError(f"unknown parameter(s) {sorted(unknown)}; known: {sorted(spec)}")
    values, overridden = {}, set()
    for name, (meaning, per_profile) in spec.items():
        missing = set(PROFILES) - set(per_profile)
        if missing:
            raise ValueError(f"parameter {name!r} has no value for profile(s) {sorted(missing)}")
        given = overrides.get(name)
        values[name] = per_profile[profile] if given is None else given
        if given is not None:
            overridden.add(name)
    return ChapterConfig(profile, seed, values, dict(spec), overridden)


class ChapterParams:
    """A chapter's parameter spec: each knob's meaning and value per profile.

    Parameters
    ----------
    chapter : str
        Chapter id (the notebook's file stem, e.g. ``"05-hiera"``).
    spec : dict
        ``name -> (meaning, {"smoke": v, "default": v, "paper": v})``, in the order of the
        chapter's parameters cell.
    requires : tuple of str
        Optional extras of the package the chapter needs (``("torch",)``): :meth:`resolve`,
        the chapter's first step, stops with one line saying what to install when one is
        missing.
    data_size : tuple of str
        Parameters that size the data every later cell works on (chapter 4's ``expand``):
        a timing projection (:mod:`ldp_companion.planning`) scales each cell after the one
        that read them, not only the cells that read them.
    """

    def __init__(self, chapter: str, spec: dict, requires: tuple = (), data_size: tuple = ()):
        unknown = set(requires) - set(EXTRAS)
        if unknown:
            raise ValueError(f"{chapter}: unknown extras {sorted(unknown)}; known: {list(EXTRAS)}")
        for name, entry in spec.items():
            if not (isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[0], str)
                    and isinstance(entry[1], dict)):
                raise ValueError(f"{chapter}: parameter {name!r} must be (meaning, per_profile)")
            if "=" in entry[0]:
                raise ValueError(f"{chapter}: the meaning of {name!r} contains '=', which "
                                 "papermill cannot parse in a parameters-cell comment")
            missing = set(PROFILES) - set(entry[1])
            if missing:
                raise ValueError(f"{chapter}: parameter {name!r} has no value for {sorted(missing)}")
        if set(data_size) - set(spec):
            raise ValueError(f"{chapter}: data_size names unknown parameters "
                             f"{sorted(set(data_size) - set(spec))}")
        self.chapter = chapter
        self.spec = dict(spec)
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
        parameters cell defines them); ``None`` means the profile's value.
        """
        missing = [n for n in ["profile", "seed", *self.spec] if n not in namespace]
        if missing:
            raise ValueError(f"{self.chapter}: the parameters cell does not define {missing}")
        require(self.chapter, self.requires)
        return resolve(namespace["profile"], self.spec, seed=namespace["seed"],
                       **{n: namespace[n] for n in self.spec})

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
        """Rows of the README's parameter table: chapter, parameter, meaning, value per profile."""
        return [f"| {number} | `{name}` | {meaning} | "
                + " | ".join(format_value(per[p]) for p in PROFILES) + " |"
                for name, (meaning, per) in self.spec.items()]


_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def format_value(value) -> str:
    """A parameter value as the README shows it: ``10⁶``, ``2·10⁴``, ``[3, 5, …, 101]``."""
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, int) and abs(value) >= 10_000:
        exp = len(str(abs(value))) - 1
        mant = value / 10**exp
        if round(mant, 2) != mant:  # more than three significant digits: write it out
            return f"{value:,}"
        head = "" if mant == 1 else f"{mant:g}·"
        return f"{head}10{str(exp).translate(_SUPERSCRIPT)}"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, dict):
        return ", ".join(f"{k}: {format_value(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        items = [format_value(v) for v in value]
        if len(items) > 8:
            items = items[:2] + ["…"] + items[-1:]
        return "[" + ", ".join(items) + "]"
    return repr(value)
