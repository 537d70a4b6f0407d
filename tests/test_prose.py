"""Numbers in a chapter's prose come from the run: no typed number that is neither glued nor
marked as a quote of the paper or a setting, on the page nor in the captions, statements and
notes the chapter packages build in Python. The checks are shown finding a typed number."""
from __future__ import annotations

from pathlib import Path

import pytest

from ldp_companion.edition import book
from ldp_companion.execution import runner
from ldp_companion.verdicts.prose import (
    typed_numbers,
    typed_numbers_in_code,
    typed_numbers_in_package,
    typed_numbers_in_text,
)

PAGE = """---
jupytext: {}
---
# 3. A chapter

The run finds ε ≈ 781 at the paper's ε = 1, 0.26 F1 and a 36 % saving.
Glued: {glue:text}`eps-true:.0f` and {glue}`gap`; quoted: the paper says "about 90 % F1".
Marked: {abbr}`256 (the paper's Δ for 8-bit images)`; code `n = 1000` and $10^{-5}$.
Theorem 2, Fig. 13, Eq. (22), Table IV and Tables II–IV, Sec. V-C; Yang et al. 2021.

```{code-cell} ipython3
x = 0.123
```

```{glue:md} findings
```

(label-123)=
1. a list item with 42 things, 3 runs and ×10 nothing
"""


def test_typed_numbers_are_found_and_glued_quoted_marked_ones_are_not():
    found = typed_numbers(PAGE)
    assert [t.number for t in found] == ["781", "0.26", "36 %"]
    assert {t.line for t in found} == {6}


@pytest.mark.parametrize("text, number", [
    ("it costs 1,234 s", "1,234"), ("a 4.27 atol", "4.27"), ("δ = 10⁻⁵ here", "10⁻⁵"),
    ("about 3×10⁵ users", "3×10⁵"), ("lr 1e-4", "1e-4"), ("12% off", "12%"),
    ("at chance until ε ≈ 10⁴", "10⁴")])
def test_each_form_of_a_computed_number_is_found(text, number):
    assert [t.number for t in typed_numbers(text)] == [number]


def test_a_marker_must_say_where_its_number_comes_from():
    with pytest.raises(ValueError, match="without a title"):
        typed_numbers("the paper's {abbr}`256` levels")
    with pytest.raises(TypeError):
        typed_numbers(None)


@pytest.mark.parametrize("source", runner.chapters(), ids=lambda p: p.stem)
def test_no_chapter_types_a_number_the_run_computes(source):
    found = typed_numbers(source.read_text())
    assert not found, (f"{source.stem}: typed numbers in the prose; glue them from the run, "
                       "or mark a quote of the paper with quotation marks or "
                       "{abbr}`N (where it comes from)`:\n" + "\n".join(map(str, found)))


# --- Text a chapter package builds in Python -------------------------------------------------

MODULE = '''"""A chapter module: 0.123 in a docstring is no page text."""
from ldp_companion.page.plotting import show

PAPER_CLAIMS = {"c1": "Fig. 2: MNIST reaches about 80 %", "c2": "Fig. 3: IMDB “around 80%”"}
_CLOSE_STATEMENT = "IDN is close to Optimized (gap below 0.05)"


def fig(ledger, gain, n):
    caption = (f"Weighted F1 over {n:,} runs; the gain is {gain:.2f} %, at Δ = 256 and"
               f" δ = 10⁻⁵, p is 0.31 at ε = 1")
    ledger.close("gain", f"Sec. VIII: SPOF is 2.90% better, ours {gain:.3f}", 2.9, gain,
                 atol=1.0, note="within 1,234 runs", paper="2.90%")
    for claim, statement in PAPER_CLAIMS.items():
        ledger.not_checked(claim, statement, "no data (the paper: 100 runs)")
    record(ledger, "the run finds ε ≈ 781")
    return show(caption, alt="a line falls below 0.5; 64×64 images")


def record(ledger, what):
    ledger.compare("x", f"{what} (|z| < 3.1)", 1.0, "<", 2.0)
'''


def test_typed_numbers_in_page_text_built_in_python_are_found():
    found = {(t.line, t.number) for t in typed_numbers_in_code(MODULE)}
    assert found == {(4, "80 %"), (5, "0.05"), (10, "0.31"), (11, "2.90%"), (12, "1,234"),
                     (15, "781"), (16, "0.5")}


def test_text_that_is_not_the_page_or_is_computed_is_not_read():
    source = MODULE.replace("0.31", "{p:.2f}").replace("2.90%", "“2.90%”")
    found = {t.number for t in typed_numbers_in_code(source)}
    assert not found & {"0.123", "0.31", "2.90%", "100", "3.1", "256", "10⁻⁵", "64×64"}


@pytest.mark.parametrize("text, typed", [
    ("ε ≈ 781 and a 3.52 % gain", ["781", "3.52 %"]),
    ("ln((3+√65)/2) = 1.710392", ["1.710392"]),
    ("above chance + 0.05", ["0.05"]),
    ("Pr[b_j < 1] ≥ 0.5", ["0.5"]),
    ("“Pr[b_j < 1] ≥ 0.5” and \"about 90 % F1\"", []),
    ("(paper: 1.52 M); (the authors' code: 10⁻³)", []),
    ("Δ = 256, h = 0, ½, 0.99; δ = 10⁻³ and 10⁻²; ε ∈ {0.01, 0.1}; |z| ≤ 0.3", []),
    ("ε in [0.05, 15]; c from 0 to 2.5; I from 1 to 1.6 million", []),
    ("(1, 10⁻⁵)-DP and (ε, 10⁻⁵)-DP", []),
    ("the 95 % lower bound; 99.9% binomial quantile; family-wise error 1e-3", []),
    ("a 256×16×5×5 tensor, a 201-point grid, 1,000-draw audits", []),
    ("a 781-fold gain", ["781"]),
    ("α₃ = 0.5x − 0.25; δ⁴/192; ln(1.25/δ)", []),
    ("Appendix E, Eq. (118); Table IV; Sec. 6.3; Yang et al. 2021", [])])
def test_which_numbers_in_page_text_are_typed(text, typed):
    assert typed_numbers_in_text(text) == typed


def test_the_package_scan_names_the_file_and_line_of_a_planted_number(tmp_path):
    package = tmp_path / "chapter"
    package.mkdir()
    (package / "__init__.py").write_text("")
    glued = ('def fig(fig, first):\n'
             '    caption = (f"p falls to zero from ε ≈ {first:.2f} (I = 784), and"\n'
             '               f" TLDP-L first reaches {0.9:.0%} of the no-noise F1")\n'
             '    return Shown(fig, caption, "log10 p against ε for five sizes")\n')
    (package / "figures.py").write_text(glued)
    (package / "reconstructions.py").write_text('NOTE = "the paper prints 1.29"\n')
    assert typed_numbers_in_package(package) == []
    (package / "figures.py").write_text(glued.replace("{0.9:.0%}", "90 %"))
    assert typed_numbers_in_package(package) == [
        "chapter/figures.py:3: '90 %' in 'f\" TLDP-L first reaches 90 % of the no-noise F1\")'"]


def test_the_scanners_refuse_what_is_not_text_or_a_package(tmp_path):
    with pytest.raises(TypeError):
        typed_numbers_in_text(3.5)
    with pytest.raises(TypeError):
        typed_numbers_in_code(None)
    with pytest.raises(ValueError, match="chapter package"):
        typed_numbers_in_package(tmp_path)


@pytest.mark.parametrize("chapter", list(book.PACKAGES), ids=str)
def test_no_chapter_package_types_a_number_into_page_text(chapter):
    found = typed_numbers_in_package(Path(book.PACKAGES[chapter].__file__).parent)
    assert not found, (f"{chapter}: numbers typed into the captions, statements and notes the "
                       "package builds; format them from the value the code has, or mark a "
                       "quote of the paper with quotation marks or (paper: ...):\n"
                       + "\n".join(found))
