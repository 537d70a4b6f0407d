"""Chapter parameters by profile (``smoke`` | ``default`` | ``paper``).

A chapter's papermill ``parameters`` cell holds ``profile``, ``seed`` and one variable per
knob, ``None`` meaning "the profile's value". The next cell declares each knob's meaning and
its value per profile, and :func:`resolve` merges the two::

    cfg = resolve(profile, {
        "n_mc": ("Monte Carlo samples per cell", {"smoke": 20_000, "default": 10**6,
                                                  "paper": 10**6}),
    }, seed=seed, n_mc=n_mc)
    cfg.table()   # the parameter table shown near the top of the chapter
    cfg.n_mc      # the value in force
"""
from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

__all__ = ["PROFILES", "ChapterConfig", "resolve"]

PROFILES = ("smoke", "default", "paper")


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
                         **{p: _short(per_profile[p]) for p in PROFILES},
                         "this run": _short(self.values[name]) + mark})
        return pd.DataFrame(rows).set_index("parameter")


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


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
