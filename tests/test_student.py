"""The coursework kit: self-checking exercises, the student edition, per-chapter numbering."""
from __future__ import annotations

import re

import nbformat
import numpy as np
import pytest

from ldp_companion.__main__ import main
from ldp_companion.edition import book
from ldp_companion.edition.sphinx_exercises import chapter_prefix, renumber
from ldp_companion.edition.student import (
    SCAFFOLD,
    SELF_CHECK,
    answer_strings,
    edition,
    grade,
    leaks,
    split_solutions,
)
from ldp_companion.execution import runner
from ldp_companion.page.exercises import KINDS, Between, ExerciseSet

CHAPTERS = runner.chapters()


def _demo() -> ExerciseSet:
    ex = ExerciseSet("99-demo")
    ex.add("demo-ex-root", "derive", lambda: {"root": np.sqrt(2.0)}, rtol=1e-6)
    ex.add("demo-ex-range", "audit", lambda: {"low": Between(0.9, 1.05), "who": "duchi"})
    return ex


# --- the self-check -------------------------------------------------------------------------

def test_a_check_says_correct_only_for_the_right_answer():
    ex = _demo()
    assert ex.check("demo-ex-root", root=1.41421356).correct
    wrong = ex.check("demo-ex-root", root=1.5)  # a wrong constant is caught
    assert not wrong.correct and "not yet" in repr(wrong)
    assert "1.414" not in repr(wrong)  # the answer is never printed
    assert not ex.check("demo-ex-root", root=np.sqrt(2.0) * (1 + 1e-5)).correct


@pytest.mark.parametrize("blank", [..., None])
def test_an_unfilled_scaffold_is_not_yet_not_a_crash(blank):
    result = _demo().check("demo-ex-root", root=blank)
    assert not result.correct and "fill in `root`" in repr(result)


def test_ranges_strings_and_types():
    ex = _demo()
    assert ex.check("demo-ex-range", low=1.0, who="duchi").correct
    assert not ex.check("demo-ex-range", low=1.2, who="duchi").correct
    assert not ex.check("demo-ex-range", low=1.0, who="pm").correct
    assert "should be a number" in repr(ex.check("demo-ex-range", low="1", who="duchi"))
    assert "should be a number" in repr(ex.check("demo-ex-root", root="1.41"))
    assert "shape" in repr(ex.check("demo-ex-root", root=[1.4, 1.4]))


def test_a_page_mistake_raises():
    ex = _demo()
    with pytest.raises(ValueError, match="expects the answers root"):
        ex.check("demo-ex-root", rooot=1.4)
    with pytest.raises(ValueError, match="unknown exercise 'nope'; 99-demo has"):
        ex.check("nope", root=1.4)
    with pytest.raises(ValueError, match="kind must be one of"):
        ex.add("demo-ex-other", "essay", lambda: {})
    with pytest.raises(ValueError, match="declared twice"):
        ex.add("demo-ex-root", "derive", lambda: {"root": 1.0})
    with pytest.raises(ValueError, match="low <= high"):
        Between(1.0, 0.0)


# --- the student edition --------------------------------------------------------------------

_PAGE = """# Title

:::{exercise}
:label: demo-ex-root

Find the square root of two.
:::

```{code-cell} ipython3
:tags: [scaffold, remove-cell]

root = ...  # your code here
```

:::{solution-start} demo-ex-root
:class: dropdown
:::

Newton's method from one converges quickly to the square root.

```{code-cell} ipython3
root = 2 ** 0.5  # the solution cell of the demo page
```

:::{solution-end}
:::

```{code-cell} ipython3
:tags: [self-check, remove-cell]

EXERCISES.check("demo-ex-root", root=root)
```

:::{exercise}
:label: demo-ex-text

Why?
:::

:::{solution} demo-ex-text
:class: dropdown

Because the derivation of the text solution says so, at length.
:::

The end.
"""


def _page(tmp_path, text=_PAGE):
    path = tmp_path / "99-demo.md"
    path.write_text(text)
    return path


def test_student_edition_drops_solutions_and_shows_scaffold_and_check(tmp_path):
    nb, removed = edition(_page(tmp_path))
    text = "\n".join(c.source for c in nb.cells)
    assert "Newton" not in text and "2 ** 0.5" not in text and "at length" not in text
    assert "solution" not in text.replace("solutions", "")  # no directive left
    assert "Find the square root" in text and "The end." in text
    tags = {t for c in nb.cells if c.cell_type == "code" for t in c.metadata.get("tags", [])}
    assert {SCAFFOLD, SELF_CHECK} <= tags and "remove-cell" not in tags
    assert "Student edition" in nb.cells[1].source
    assert len(removed) == 4 and not leaks(nb, removed, {})  # 2 markdown runs, 1 code cell, 1 block


def test_instructor_edition_keeps_solutions(tmp_path):
    nb, removed = edition(_page(tmp_path), "instructor")
    text = "\n".join(c.source for c in nb.cells)
    assert "Newton" in text and "2 ** 0.5" in text and removed == []
    assert "Instructor edition" in nb.cells[1].source
    with pytest.raises(ValueError, match="edition must be one of"):
        edition(_page(tmp_path), "teacher")


def test_an_unclosed_solution_is_refused(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(
        ":::{solution} x\nno end")])
    with pytest.raises(ValueError, match="not closed"):
        split_solutions(nb.cells)


def test_leak_check_catches_a_left_solution_line_and_a_printed_answer(tmp_path):
    """Mutants of a clean student edition: each leak is reported."""
    nb, removed = edition(_page(tmp_path))
    answers = {"demo-ex-root": {"root": np.sqrt(2.0)}}
    assert not leaks(nb, removed, answers)
    leaky = nbformat.from_dict(nb)
    leaky.cells.append(nbformat.v4.new_markdown_cell("Because the derivation of the text "
                                                     "solution says so, at length."))
    assert any("solution line" in f for f in leaks(leaky, removed, answers))
    page = _page(tmp_path).read_text()  # a line the page also has outside its solution
    reused = nbformat.from_dict(nb)
    reused.cells.append(
        nbformat.v4.new_code_cell("root = 2 ** 0.5  # the solution cell of the demo page"))
    assert not leaks(reused, removed, answers, page + "\n" + reused.cells[-1].source)
    assert leaks(reused, removed, answers, page)
    printed = nbformat.from_dict(nb)
    out = nbformat.v4.new_output("execute_result", {"text/plain": "root ≈ 1.4142"})
    printed.cells.append(nbformat.v4.new_code_cell("root", outputs=[out]))
    assert leaks(printed, removed, answers) == ["demo-ex-root: root = 1.4142"]


def test_answer_strings_skip_what_is_not_distinctive():
    assert answer_strings(4.0) == [] and answer_strings(True) == []
    assert answer_strings("pm") == [] and answer_strings(Between(0, 1)) == []
    assert answer_strings(5.4995) == ["5.4995", "5.500"]
    assert answer_strings(np.array([0.5, 2.0])) == ["0.5000"]


@pytest.mark.parametrize("source", CHAPTERS, ids=lambda p: p.stem)
def test_student_edition_leaks_no_solution(source):
    exercises = book.EXERCISES.get(source.stem)
    nb, removed = edition(source)
    answers = exercises.answers() if exercises else {}
    assert not leaks(nb, removed, answers, source.read_text())
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code")
    assert any("parameters" in c.metadata.get("tags", []) for c in nb.cells)


def _labels(text: str, directive: str) -> list[str]:
    return re.findall(rf":::\{{{directive}\}}\n:label: (\S+)", text)


@pytest.mark.parametrize("chapter", sorted(book.EXERCISES))
def test_every_exercise_has_a_scaffold_a_solution_and_a_self_check(chapter):
    exercises = book.EXERCISES[chapter]
    text = (runner.REPO / "notebooks" / f"{chapter}.md").read_text()
    labels = _labels(text, "exercise")
    assert labels == [e.label for e in exercises], "page order = declared order"
    cells = __import__("jupytext").read(runner.REPO / "notebooks" / f"{chapter}.md").cells
    checks = [c.source for c in cells if SELF_CHECK in c.metadata.get("tags", [])]
    scaffolds = [c.source for c in cells if SCAFFOLD in c.metadata.get("tags", [])]
    assert len(checks) == len(scaffolds) == len(labels)
    for exercise, check, scaffold in zip(exercises, checks, scaffolds):
        assert f'EXERCISES.check("{exercise.label}"' in check
        for name in exercise.names:
            assert re.search(rf"^{name} = \.\.\.  # your code here$", scaffold, re.M), name
            assert f"{name}={name}" in check
        assert f":::{{solution-start}} {exercise.label}" in text


@pytest.mark.parametrize("chapter", ["03-pm-three-outputs", "05-hiera"])
def test_chapters_3_and_5_have_every_kind_of_exercise(chapter):
    kinds = [e.kind for e in book.EXERCISES[chapter]]
    assert len(kinds) >= 3 and set(kinds) == set(KINDS)


def _names(code: str, ctx) -> set[str]:
    import ast

    try:
        tree = ast.parse(code)
    except SyntaxError:  # IPython magics: not Python
        return set()
    found = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ctx)}
    if ctx is ast.Store:
        found |= {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
        found |= {(a.asname or a.name).split(".")[0] for n in ast.walk(tree)
                  if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
    return found


def solution_only_names_used(source) -> list[str]:
    """Names that only a solution's code defines but a cell the student keeps reads: the
    student edition would stop there with a NameError."""
    import ast

    nb = __import__("jupytext").read(source)
    kept, _ = split_solutions(nb.cells)
    kept_code = [c.source for c in kept if c.cell_type == "code"]
    removed = [c.source for c in nb.cells if c.cell_type == "code"
               and all(c.source != k for k in kept_code)]
    defined_kept = set().union(*(_names(c, ast.Store) for c in kept_code))
    only = set().union(*(_names(c, ast.Store) for c in removed)) - defined_kept
    return sorted(only & set().union(*(_names(c, ast.Load) for c in kept_code)))


@pytest.mark.parametrize("source", CHAPTERS, ids=lambda p: p.stem)
def test_student_edition_needs_nothing_a_solution_defines(source):
    """Run as handed out, no cell reads a name that only a removed solution defines (checked
    on the code, so the chapters are not executed a second time; the chapter test runs each
    chapter, and one student edition runs below)."""
    assert solution_only_names_used(source) == []


def test_solution_name_check_fails_when_a_kept_cell_reads_a_solution_variable(tmp_path):
    page = (":::{exercise}\n:label: x-ex\nQ\n:::\n\n```{code-cell} ipython3\nanswer = ...\n```\n\n"
            ":::{solution-start} x-ex\n:::\n\n```{code-cell} ipython3\nhelper = 2\n"
            "answer = helper\n```\n\n:::{solution-end}\n:::\n\n```{code-cell} ipython3\n"
            "print(helper)\n```\n")
    path = tmp_path / "X-x.md"
    path.write_text(page)
    assert solution_only_names_used(path) == ["helper"]


def test_sealed_answers_say_correct_to_every_answer_and_not_yet_to_a_wrong_one():
    from ldp_companion.page.exercises import Between

    for chapter, exercises in book.EXERCISES.items():
        sealed = exercises.sealed()
        for e in exercises:
            answers = {k: ((v.low + v.high) / 2 if isinstance(v, Between) else v)
                       for k, v in e.answers().items()}
            assert sealed.check(e.label, **answers).correct, (chapter, e.label)
            numeric = {k for k, v in e.answers().items()
                       if not isinstance(v, (Between, bool, str, np.bool_))}
            if numeric:
                wrong = {k: (np.asarray(v, float) * (1 + max(50 * e.rtol, 1e-2)) + 50 * e.atol
                             if k in numeric else v) for k, v in answers.items()}
                said = sealed.check(e.label, **wrong)
                assert not said.correct, (chapter, e.label)
                # a rounded answer is told what precision the check wants
                assert "right to about" in repr(said) and "not a rounded one" in repr(said)
        text = sealed.to_json()
        for e in exercises:  # the sealed form shows no answer
            for v in e.answers().values():
                if not isinstance(v, (Between, bool, str, np.bool_)):
                    for shown in answer_strings(v):
                        assert shown not in text, (chapter, e.label, shown)


@pytest.mark.chapter
def test_a_sealed_student_edition_runs_at_smoke_with_scaffolds_unfilled(tmp_path):
    source = runner.find_chapter("A")
    nb, _ = edition(source, "student", book.EXERCISES[source.stem].sealed())
    assert not any("EXERCISES" in c.source for c in nb.cells if c.cell_type == "code"
                   and SELF_CHECK in c.metadata.get("tags", []))
    handed_out = tmp_path / "student" / f"{source.stem}.ipynb"
    handed_out.parent.mkdir()
    nbformat.write(nb, handed_out)
    out = runner.execute(handed_out, tmp_path / "run", {"profile": "smoke", "seed": 0},
                         record=False)
    ran = nbformat.read(out, as_version=4)
    errors = [o for c in ran.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors
    graded = grade(out)
    assert len(graded) == len(book.EXERCISES[source.stem])
    assert set(graded["result"]) <= {"not yet"}
    assert all(why.startswith("fill in `") for why in graded["why"])


def test_cli_writes_both_editions(tmp_path, capsys):
    assert main(["student", "--out", str(tmp_path / "s"), "--chapters", "pm", "hiera"]) == 0
    assert main(["student", "--edition", "instructor", "--out", str(tmp_path / "i"),
                 "--chapters", "05"]) == 0
    assert sorted(p.name for p in (tmp_path / "s").iterdir()) == [
        "03-pm-three-outputs.ipynb", "05-hiera.ipynb"]
    student = (tmp_path / "s" / "05-hiera.ipynb").read_text()
    instructor = (tmp_path / "i" / "05-hiera.ipynb").read_text()
    assert "**Solution.**" in instructor and "**Solution.**" not in student
    assert "wrote" in capsys.readouterr().out


_MYST = re.compile(r"^:{3,}\{"
                   r"|\{(?:ref|numref|cite|cite:t|cite:p|glue:text|glue|abbr|prf:ref|doc)\}`"
                   r"|^\([\w.-]+\)=\s*$|^`{3,}\{glue", re.M)


@pytest.mark.parametrize("source", CHAPTERS, ids=lambda p: p.stem)
@pytest.mark.parametrize("which", ["student", "instructor"])
def test_editions_are_plain_markdown_that_jupyter_shows(source, which):
    nb, _ = edition(source, which)
    left = [m.group(0) for c in nb.cells if c.cell_type == "markdown"
            for m in _MYST.finditer(c.source)]
    assert not left, left[:10]


def test_plain_markdown_renders_directives_roles_and_labels():
    from ldp_companion.edition.plain_markdown import render

    page = ("(pm-sec)=\n## The mechanisms\n\n:::{exercise}\n:label: pm-ex\nCompute $x$.\n:::\n"
            "See {ref}`pm-sec`, {ref}`the proof <pm-sec>`, {cite:t}`zhao2020ldpfl` and "
            "{cite:p}`zhao2020ldpfl`; {abbr}`57.2% (Sec. VIII)` faster; "
            "{glue:text}`pm-gain:.3g` better.")
    out = render(page)
    assert out.splitlines()[0] == "## The mechanisms"
    assert "> **Exercise.**" in out and "> Compute $x$." in out
    assert "See The mechanisms, the proof, Zhao et al. (2020) and (Zhao et al. 2020)" in out
    assert "57.2% faster" in out and "[pm-gain: computed when the notebook runs]" in out
    assert not _MYST.search(out)
    links = render("[the Verdicts page](verdicts), [audit](A-audit), [write](byom-write), "
                   "[web](https://a.org/x), [here](#sec), [csv](figdata/f.csv)")
    assert links == ("the Verdicts page (in the book), [audit](A-audit.ipynb), write (in the "
                     "book), [web](https://a.org/x), [here](#sec), [csv](figdata/f.csv)")


def test_a_student_notebook_has_no_dead_relative_link(tmp_path):
    """Every relative link of every handed-out notebook opens a file handed out beside it."""
    import os

    from ldp_companion.edition import student

    student.write_editions(tmp_path, runner.chapters())
    dead = []
    for path in sorted(tmp_path.glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type != "markdown":
                continue
            for target in re.findall(r"\]\(([^)\s]+)\)", cell.source):
                name = target.split("#")[0]
                if name and not re.match(r"^[a-z][\w+.-]*:", name) \
                        and not os.path.exists(tmp_path / name):
                    dead.append(f"{path.name}: {target}")
    assert not dead, dead


# --- per-chapter numbering ------------------------------------------------------------------

def test_exercises_are_numbered_per_chapter():
    numbers = {  # Sphinx's numbering across the book, as it comes
        "book/generated/03-pm-three-outputs": {"exercise": {"a": (4,), "b": (5,)}},
        "book/generated/05-hiera": {"exercise": {"c": (9,), "d": (8,)}, "figure": {"f": (2,)}},
        "book/generated/A-audit": {"exercise": {"e": (12,)}},
        "book/intro": {"exercise": {"g": (13,)}},
    }
    changed = renumber(numbers)
    assert numbers["book/generated/03-pm-three-outputs"]["exercise"] == {"a": (3, 1), "b": (3, 2)}
    assert numbers["book/generated/05-hiera"]["exercise"] == {"d": (5, 1), "c": (5, 2)}
    assert numbers["book/generated/05-hiera"]["figure"] == {"f": (2,)}
    assert numbers["book/generated/A-audit"]["exercise"] == {"e": ("A", 1)}
    assert numbers["book/intro"]["exercise"] == {"g": (1,)}
    assert len(changed) == 4 and renumber(numbers) == []  # a second pass changes nothing


def test_chapter_prefix():
    assert chapter_prefix("book/generated/01-tldp") == 1
    assert chapter_prefix("book/generated/B-mechanism") == "B"
    assert chapter_prefix("book/rerun") is None


def test_grade_reads_the_self_checks(tmp_path):
    """An answered, an unanswered and an unrun exercise, as a teacher would collect them."""
    def check_cell(label, shown=None):
        outputs = ([nbformat.v4.new_output("execute_result", {"text/plain": shown})]
                   if shown else [])
        cell = nbformat.v4.new_code_cell(f'EXERCISES.check("{label}", a=a)', outputs=outputs)
        cell.metadata["tags"] = [SELF_CHECK]
        return cell

    nb = nbformat.v4.new_notebook(cells=[
        check_cell("x-ex-1", "x-ex-1: correct"),
        check_cell("x-ex-2", "x-ex-2: not yet (`a` is not within the tolerance)"),
        check_cell("x-ex-3")])
    graded = grade(nb)
    assert graded.to_dict("list") == {
        "exercise": ["x-ex-1", "x-ex-2", "x-ex-3"],
        "result": ["correct", "not yet", "not run"],
        "why": ["", "`a` is not within the tolerance", ""]}
