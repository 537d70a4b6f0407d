"""Bad parameters are refused at the door (issue 43, item 5).

Every knob of every chapter has a :class:`~ldp_companion.execution.profiles.Kind`; the tests below
generate bad values from it, so a new parameter is covered by construction:

* the command line (``python -m ldp_companion run CH -p NAME VALUE``) refuses a bad name or
  value in-process, with one line naming the parameter, exit status 2 and nothing written;
* ``PARAMS.resolve(globals())``, the chapter's first step in the kernel, refuses the same
  values, and a name papermill injected that the chapter does not have;
* a few real papermill runs prove the kernel wiring (one per failure type).
"""
from __future__ import annotations

import json
import math
import re
import subprocess
import sys

import nbformat
import pytest

from ldp_companion.__main__ import cli, main
from ldp_companion.edition import book
from ldp_companion.execution import runner
from ldp_companion.execution.profiles import (
    EPS,
    N_JOBS,
    PROFILES,
    Bool,
    ChapterParams,
    Choice,
    Int,
    Kind,
    ListOf,
    MapOf,
    Number,
    OneOf,
    Text,
    infer_kind,
)

KNOBS = [(stem, name) for stem, spec in book.PARAMS.items() for name in spec.names]


# --------------------------------------------------------------------------- bad values by kind

def bad_values(kind: Kind) -> list:
    """Values that ``kind`` must refuse: the wrong type, out of range, NaN / inf, empty,
    repeated, a name not allowed."""
    if isinstance(kind, OneOf):  # what every alternative refuses
        return [v for v in _unique(b for k in kind.kinds for b in bad_values(k))
                if not _accepts(kind, v)]
    return _BAD[type(kind)](kind)


def _int_bad(kind: Int) -> list:
    bad = ["abc", kind.low - 1, kind.low + 0.5, True, math.nan, [kind.low]]
    return bad + ([kind.high + 1] if kind.high is not None else [])


def _number_bad(kind: Number) -> list:
    bad = ["abc", math.nan, math.inf, -math.inf, True, [1.0],
           kind.low - 1.0 if kind.closed else kind.low]
    return bad + ([kind.high] if kind.high is not None else [])


def _list_bad(kind: ListOf) -> list:
    good = _good(kind.item)
    bad = [good, "abc"] + [[b] for b in bad_values(kind.item) if not isinstance(b, list)]
    bad += [[]] if kind.nonempty else []
    return bad + ([[good, good]] if kind.distinct else [])


def _map_bad(kind: MapOf) -> list:
    good = _good(kind.value)
    return [{}, {"no_such_name": good}, [kind.keys[0]], "abc",
            *({kind.keys[0]: b} for b in bad_values(kind.value) if not isinstance(b, list))]


_BAD = {
    Int: _int_bad,
    Number: _number_bad,
    ListOf: _list_bad,
    MapOf: _map_bad,
    Choice: lambda k: ["no-such-choice", 12345.5, True, [k.options[0]]],
    Text: lambda k: ["no-such-text", 3, None],
    Bool: lambda k: ["maybe", 1, None],
}


def _good(kind: Kind):
    """A value ``kind`` accepts."""
    if isinstance(kind, OneOf):
        return _good(kind.kinds[-1])
    return {Int: lambda k: k.low, Number: lambda k: k.low + 0.5 if k.high else k.low + 1.0,
            Choice: lambda k: k.options[0], Text: lambda k: "cuda:0", Bool: lambda k: True,
            ListOf: lambda k: [_good(k.item)],
            MapOf: lambda k: {k.keys[0]: _good(k.value)}}[type(kind)](kind)


def _accepts(kind: Kind, value) -> bool:
    try:
        kind.check("x", value)
    except ValueError:
        return False
    return True


def _unique(values) -> list:
    out = []
    for v in values:
        if not any(repr(v) == repr(w) for w in out):
            out.append(v)
    return out


def _text(value) -> str:
    """``value`` as typed after ``-p NAME`` on the command line (argparse takes ``-inf`` for
    an option, `` -inf`` for a value)."""
    text = value if isinstance(value, str) else repr(value)
    return f" {text}" if text.startswith("-") and not re.fullmatch(r"-[\d.]+", text) else text


def _namespace(stem: str, **given) -> dict:
    """A parameters cell as the kernel holds it: every knob None but those given."""
    return {"profile": "smoke", "seed": 0, **{n: None for n in book.PARAMS[stem].names}, **given}


class _Executed(Exception):
    """runner.execute was reached: the command line checked everything and went on."""


@pytest.fixture
def no_execution(monkeypatch):
    """The command line stops where it would start papermill, with the parameters it passes."""
    def execute(source, out, params, **kwargs):
        raise _Executed(params, kwargs.get("resolved"))

    monkeypatch.setattr(runner, "execute", execute)


# --------------------------------------------------------------------------- every knob, every path

@pytest.mark.parametrize("stem, name", KNOBS, ids=[f"{s}:{n}" for s, n in KNOBS])
def test_every_bad_value_is_refused_in_one_line_naming_the_parameter(
        stem, name, tmp_path, capsys, monkeypatch, no_execution):
    kind = book.PARAMS[stem].kinds[name]
    bad = bad_values(kind)
    assert len(bad) >= 3, f"{stem}:{name} ({kind.allowed}) gets too few bad values: {bad}"
    out = tmp_path / "out"
    for value in bad:
        # (a) the command line: exit 2, one stderr line naming the parameter, nothing written
        argv = ["ldp-companion", "run", stem, "-p", name, _text(value), "--out", str(out)]
        monkeypatch.setattr("sys.argv", argv)
        assert cli() == 2, f"{name}={value!r} was accepted"
        err = capsys.readouterr().err
        assert err.startswith(f"error: {name} must be {kind.allowed}, got "), err
        assert err.count("\n") == 1 and not out.exists(), err
        # (b) the kernel: PARAMS.resolve(globals()) refuses the value as papermill injects it
        with pytest.raises(ValueError, match=f"^{name} must be "):
            book.PARAMS[stem].resolve(_namespace(stem, **{name: value}))


@pytest.mark.parametrize("stem", book.PARAMS)
def test_every_knob_given_its_smoke_value_is_accepted(stem, tmp_path, monkeypatch,
                                                      no_execution):
    spec = book.PARAMS[stem]
    smoke = {n: per["smoke"] for n, (_, per) in spec.spec.items()}
    given = {n: v for n, v in smoke.items() if v is not None}
    argv = ["run", stem, "-p", "profile", "default"]
    for name, value in given.items():
        argv += ["-p", name, _text(value)]
    with pytest.raises(_Executed) as executed:
        main([*argv, "--out", str(tmp_path / "out")])
    params, resolved = executed.value.args
    assert params == {"profile": "default", "seed": 0, **given}
    assert resolved == {"profile": "default", "seed": 0, **smoke}
    cfg = spec.resolve(_namespace(stem, profile="default", **given))
    assert cfg.values == smoke and cfg.overridden == set(given)


def test_the_command_line_passes_values_as_their_kind_converts_them(tmp_path, no_execution):
    with pytest.raises(_Executed) as executed:
        main(["run", "pm", "-p", "n_mc", "2e4", "-p", "eps_checks", "(0.5, 1)",
              "-p", "n_jobs", "None", "--out", str(tmp_path)])
    params, resolved = executed.value.args
    assert params["n_mc"] == 20000 and type(params["n_mc"]) is int
    assert params["eps_checks"] == [0.5, 1.0] and params["n_jobs"] is None
    assert resolved["n_jobs"] is None and not any(tmp_path.iterdir())


@pytest.mark.parametrize("stem", book.PARAMS)
def test_every_profile_value_is_of_its_kind(stem):
    spec = book.PARAMS[stem]
    for name, (_, per) in spec.spec.items():
        for profile in PROFILES:
            assert spec.kinds[name].check(name, per[profile]) == per[profile], (name, profile)


# --------------------------------------------------------------------------- misspelt names

def test_a_misspelt_name_on_the_command_line_names_the_closest(tmp_path, capsys, monkeypatch,
                                                               no_execution):
    out = tmp_path / "out"
    monkeypatch.setattr("sys.argv", ["ldp-companion", "run", "pm", "-p", "eps_gird", "1",
                                     "--out", str(out)])
    assert cli() == 2
    err = capsys.readouterr().err
    assert err.startswith("error: unknown parameter 'eps_gird' of 03-pm-three-outputs "
                          "(did you mean 'eps_grid'?); known: profile, seed, eps_checks,")
    assert err.count("\n") == 1 and not out.exists()


def test_the_kernel_refuses_a_name_papermill_injected_that_the_chapter_lacks():
    params = book.PARAMS["03-pm-three-outputs"]
    history = ["import x", "# Parameters\nprofile = \"smoke\"\neps_gird = [1.0]\n", "cfg = ..."]
    with pytest.raises(ValueError, match=r"unknown parameter 'eps_gird' .*'eps_grid'"):
        params.resolve({**_namespace("03-pm-three-outputs"), "In": history})
    history[1] = "# Parameters\nprofile = \"smoke\"\neps_grid = [1.0]\n"
    namespace = {**_namespace("03-pm-three-outputs", eps_grid=[1.0]), "In": history}
    assert params.resolve(namespace).eps_grid == [1.0]


# --------------------------------------------------------------------------- the kinds themselves

def test_kinds_are_inferred_from_the_profiles_values():
    def kind(**per):
        return infer_kind(per.pop("name", "x"), per)

    assert kind(smoke=10, default=100, paper=1000).allowed == "an integer ≥ 1"
    assert kind(smoke=0, default=1, paper=1).allowed == "an integer ≥ 0"
    assert kind(smoke=0.5, default=1.0, paper=1.0).allowed == "a finite number > 0"
    assert kind(smoke=0.0, default=1.0, paper=1.0).allowed == "a finite number ≥ 0"
    assert kind(name="eps_x", smoke=1.0, default=2.0, paper=2.0) is EPS
    assert kind(name="sgd_eps", smoke=[1.0], default=[0.5, 2], paper=[2.0]).item is EPS
    assert kind(smoke="a", default="b", paper="a").allowed == 'one of "a", "b"'
    assert kind(smoke=True, default=False, paper=True).allowed == "True or False"
    assert kind(smoke=[1, 2], default=[3], paper=[3]).allowed == (
        "a non-empty list of distinct integers ≥ 1")
    assert not kind(smoke=[28, 28], default=[28, 28], paper=[28, 28]).distinct
    for undecided in ({"smoke": None, "default": None, "paper": None},
                      {"smoke": [], "default": ["a"], "paper": ["a"]},
                      {"smoke": 1, "default": {"a": 1}, "paper": 1},
                      {"smoke": -1, "default": 1, "paper": 1}):
        assert infer_kind("x", undecided) is None


def test_a_knob_whose_kind_is_undecided_or_whose_profile_value_is_bad_is_refused():
    every = {p: None for p in PROFILES}
    with pytest.raises(ValueError, match="'n_jobs' per profile do not decide"):
        ChapterParams("99-x", {"n_jobs": ("workers", every)})
    assert ChapterParams("99-x", {"n_jobs": ("workers", every, N_JOBS)}).kinds["n_jobs"] is N_JOBS
    with pytest.raises(ValueError, match="the paper value of 'n', 0, is not an integer ≥ 1"):
        ChapterParams("99-x", {"n": ("size", {"smoke": 1, "default": 1, "paper": 0}, Int(1))})
    with pytest.raises(ValueError, match="per_profile, kind"):
        ChapterParams("99-x", {"n": ("size", {p: 1 for p in PROFILES}, "int")})


def test_an_integer_knob_takes_an_integral_float_and_nothing_lossy():
    n = Int(1)
    assert n.check("n", 2e4) == 20000 and type(n.check("n", "2e4")) is int
    assert n.check("n", "20000.0") == 20000
    for bad in (2.5, "2.5", True, math.inf):
        with pytest.raises(ValueError, match="n must be an integer ≥ 1"):
            n.check("n", bad)


def test_a_list_error_names_the_entry_at_fault():
    grid = ListOf(EPS, distinct=True)
    with pytest.raises(ValueError, match=r"got \[0.5, -1\] \(entry -1 is not a finite ε > 0\)"):
        grid.check("eps_checks", "[0.5, -1]")
    with pytest.raises(ValueError, match=r"\(0.5 repeats\)"):
        grid.check("eps_checks", [0.5, 0.5])
    sizes = MapOf(("a", "b"), Int(1))
    with pytest.raises(ValueError, match=r"\('a': 0 is not an integer ≥ 1\)"):
        sizes.check("sizes", {"a": 0})


def test_a_text_that_is_no_literal_says_to_pass_it_as_yaml():
    with pytest.raises(ValueError) as err:
        book.PARAMS["B-mechanism"].resolve(_namespace("B-mechanism", eps_checks="[0.5, 1"))
    assert "-y 'eps_checks: [0.5, 2.0]'" in str(err.value) and "\n" not in str(err.value)
    cfg = book.PARAMS["B-mechanism"].resolve(_namespace("B-mechanism", eps_checks="[0.5, 1]"))
    assert cfg.eps_checks == [0.5, 1.0]


def test_the_allowed_range_is_on_the_chapter_page():
    cfg = book.PARAMS["03-pm-three-outputs"].resolve(_namespace("03-pm-three-outputs"))
    table = cfg.table()
    assert table.loc["n_mc", "meaning"].endswith("; allowed: an integer ≥ 1")
    assert table.loc["n_jobs", "meaning"].endswith("; allowed: None, -1 or an integer ≥ 1")
    assert table.loc["profile", "meaning"].endswith('; allowed: one of "smoke", "default", '
                                                   '"paper"')


def test_the_declared_names_are_the_packages():
    """The params modules import no torch, so they spell the packages' names out."""
    from ldp_companion.hiera import experiments as hx
    from ldp_companion.hiera import sgd
    from ldp_companion.neural import device
    from ldp_companion.pm import experiments as px
    from ldp_companion.spof import experiments as sx
    from ldp_companion.spof import train
    from ldp_companion.tldp import data
    from ldp_companion.tldp import paper as tp
    from ldp_companion.tvg import paper as vp
    from ldp_companion.tvg import paper_sgd

    def names(stem, name):
        kind = book.PARAMS[stem].kinds[name]
        kind = kind.item if isinstance(kind, ListOf) else kind
        return tuple(kind.options if isinstance(kind, Choice) else kind.keys)

    tldp = book.PARAMS["01-tldp"].kinds
    assert names("01-tldp", "tasks") == tuple(data.TASKS)
    assert names("01-tldp", "paper_types") == tuple(tp.TYPES)
    assert names("01-tldp", "paper_tasks") == tp.TASKS
    assert tuple(tldp["paper_epochs"].kinds[-1].keys) == tp.TASKS
    assert names("02-tvg", "paper_tasks") == vp.TASKS
    assert names("02-tvg", "paper_tasks_1") == paper_sgd.TASKS
    assert names("03-pm-three-outputs", "data") == px.DATA_SOURCES
    assert names("04-spof", "source") == sx.SOURCES
    assert names("04-spof", "conditions") == train.CONDITIONS
    assert set(device.DEVICES) < set(book.PARAMS["04-spof"].kinds["device"].kinds[0].options)
    assert names("05-hiera", "lr_schedule") == sgd.LR_SCHEDULES
    assert names("05-hiera", "multidim") == sgd.MULTIDIM
    assert names("05-hiera", "bias_level") == sgd.BIAS_LEVELS
    assert names("05-hiera", "sgd_sizes") == tuple(hx.SGD_TASKS)


# --------------------------------------------------------------------------- real papermill runs

def _first_cells(stem: str, folder) -> str:
    """A notebook of the chapter's parameters cell and its first step (resolve), as the
    chapter has them."""
    package = book.PACKAGES[stem].__name__
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {
        "name": "python3", "display_name": "Python 3", "language": "python"}})
    nb.cells = [nbformat.v4.new_code_cell(book.PARAMS[stem].parameters_cell(),
                                          metadata={"tags": ["parameters"]}),
                nbformat.v4.new_code_cell(
                    f"import json\nfrom {package}.params import PARAMS\n"
                    "cfg = PARAMS.resolve(globals())\nprint(json.dumps(cfg.values))")]
    path = folder / f"{stem}.ipynb"
    nbformat.write(nb, path)
    return str(path)


def _papermill(notebook: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "papermill", notebook, notebook + ".out",
                           "-k", "python3", "--no-progress-bar", *args],
                          capture_output=True, text=True, timeout=120)


def test_papermill_reads_a_list_given_as_text_and_refuses_a_bad_one(tmp_path):
    """``papermill nb out -p eps_checks "[0.5, 1]"``: the text is read as a list; a bad list
    stops the chapter's first step, naming the parameter."""
    nb = _first_cells("B-mechanism", tmp_path)
    done = _papermill(nb, "-p", "eps_checks", "[0.5, 1]", "-p", "n_mc", "2e4")
    assert done.returncode == 0, done.stderr[-2000:]
    out = nbformat.read(nb + ".out", as_version=4)
    values = json.loads(out.cells[-1].outputs[0]["text"])
    assert values["eps_checks"] == [0.5, 1.0] and values["n_mc"] == 20000
    done = _papermill(nb, "-p", "eps_checks", "[0.5, -1]")
    assert done.returncode != 0
    assert ("ValueError: eps_checks must be a non-empty list of distinct finite ε > 0, got "
            "[0.5, -1] (entry -1 is not a finite ε > 0)") in done.stderr


def test_papermill_with_a_misspelt_name_stops_naming_the_closest(tmp_path):
    done = _papermill(_first_cells("B-mechanism", tmp_path), "-p", "n_audt", "10")
    assert done.returncode != 0
    assert ("ValueError: unknown parameter 'n_audt' of B-mechanism (did you mean 'n_audit'?)"
            in done.stderr), done.stderr[-2000:]


def test_a_real_chapter_stops_at_its_first_step_on_a_misspelt_name(tmp_path):
    """The Python API (runner.execute) on a real chapter: the error names the parameter and
    the close match, and no cell after the chapter's first step ran."""
    source = runner.find_chapter("audit")
    with pytest.raises(RuntimeError, match=r"unknown parameter 'n_audt' of A-audit "
                                           r"\(did you mean 'n_audit'\?\)") as err:
        runner.execute(source, tmp_path, {"profile": "smoke", "seed": 0, "n_audt": 10},
                       record=False)
    kept = re.search(r"notebook: (\S+?\.ipynb)", str(err.value))  # the runner keeps it
    nb = nbformat.read(kept.group(1), as_version=4)
    failed = [k for k, c in enumerate(nb.cells) if c.cell_type == "code" and any(
        o.get("output_type") == "error" for o in c.get("outputs", []))]
    assert len(failed) == 1 and "PARAMS.resolve(globals())" in nb.cells[failed[0]].source
    later = [c for c in nb.cells[failed[0] + 1:] if c.cell_type == "code"]
    assert later and not any(c.get("execution_count") for c in later), str(err.value)
