"""Chapter parameters by profile."""
from __future__ import annotations

import pytest

from ldp_companion.execution.profiles import resolve

SPEC = {"n": ("samples", {"smoke": 10, "default": 100, "paper": 1000})}


def test_profile_values_and_override():
    assert resolve("smoke", SPEC).n == 10
    cfg = resolve("paper", SPEC, seed=3, n=7)
    assert (cfg.n, cfg.seed) == (7, 3)
    table = cfg.table()
    assert table.loc["n", "default"] == "100" and "set by caller" in table.loc["n", "this run"]


def test_parameter_table_on_the_page_keeps_every_meaning_whole():
    meaning = "users per synthetic data set (Figs. 1–2; unstated in the paper) " * 3
    cfg = resolve("smoke", {"n": (meaning, {"smoke": 20_000, "default": 10**6, "paper": 10**6}),
                            "grid": ("ε grid", {p: [0.1 * k for k in range(1, 30)]
                                                for p in ("smoke", "default", "paper")})})
    html = cfg._repr_html_()
    assert meaning.strip() in html and "..." not in html
    assert "2·10⁴" in html and "10⁶" in html
    assert "[0.1, 0.2, …, 2.9]" in html  # long lists shortened with their ends, as :g


@pytest.mark.parametrize("kwargs, match", [
    ({"profile": "huge"}, "profile"),
    ({"profile": "smoke", "seed": -1}, "seed"),
    ({"profile": "smoke", "typo": 1}, "unknown parameter"),
])
def test_bad_input(kwargs, match):
    profile = kwargs.pop("profile")
    with pytest.raises(ValueError, match=match):
        resolve(profile, SPEC, **kwargs)


def test_spec_must_cover_every_profile():
    with pytest.raises(ValueError, match="no value for profile"):
        resolve("smoke", {"n": ("samples", {"smoke": 1})})


def test_unknown_attribute():
    with pytest.raises(AttributeError, match="known: n"):
        _ = resolve("smoke", SPEC).m


def test_a_chapter_without_its_extra_says_in_one_line_what_to_install(monkeypatch):
    from ldp_companion.execution import profiles
    from ldp_companion.execution.profiles import ChapterParams, MissingExtra

    spec = {"runs": ("runs", {"smoke": 1, "default": 2, "paper": 3})}
    ns = {"profile": "smoke", "seed": 0, "runs": None}
    assert ChapterParams("01-x", spec, requires=("torch",)).resolve(ns).runs == 1  # installed
    monkeypatch.setitem(profiles.EXTRAS, "torch", ("torch", "no_such_module_ldp"))
    with pytest.raises(MissingExtra) as err:
        ChapterParams("01-x", spec, requires=("torch",)).resolve(ns)
    assert str(err.value) == ('01-x needs the [torch] extra (no_such_module_ldp not installed): '
                              'pip install "ldp_companion[torch]"')
    assert ChapterParams("03-x", spec).resolve(ns).runs == 1  # a chapter that needs nothing
    with pytest.raises(ValueError, match="unknown extras"):
        ChapterParams("01-x", spec, requires=("tensorflow",))


def test_the_command_line_records_every_value_a_run_used():
    from ldp_companion.__main__ import _resolved
    from ldp_companion.edition import book

    got = _resolved("05-hiera", {"profile": "default", "seed": 0})
    assert got["profile"] == "default" and got["seed"] == 0
    assert set(book.PARAMS["05-hiera"].names) <= set(got)
    spec = book.PARAMS["05-hiera"].spec
    name = next(iter(spec))
    assert got[name] == spec[name][1]["default"]


@pytest.mark.parametrize("chapter", ["01-tldp", "02-tvg", "04-spof"])
def test_a_torch_chapter_checks_its_extra_before_it_imports_anything(chapter):
    """Run without the extra, the chapter's first cell after the parameters stops with the
    one-line message, before any import of torch could fail with a bare ModuleNotFoundError."""
    import jupytext

    from ldp_companion.edition import book
    from ldp_companion.execution import runner

    assert book.PARAMS[chapter].requires == ("torch",)
    cells = [c for c in jupytext.read(runner.find_chapter(chapter)).cells
             if c.cell_type == "code" and not {"parameters", "reproduction-card"}
             & set(c.metadata.get("tags", []))]
    lines = [line for line in cells[0].source.splitlines() if line.strip()]
    package = book.PACKAGES[chapter].__name__
    assert lines[:2] == [f"from {package}.params import PARAMS", lines[1]], lines[:2]
    assert lines[1].startswith("PARAMS.require()")
