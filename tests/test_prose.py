"""Numbers in a chapter's prose come from the run: no typed number that is neither glued nor
marked as a quote of the paper or a setting. The check is shown finding a typed number."""
from __future__ import annotations

import pytest

from ldp_companion import runner
from ldp_companion.prose import typed_numbers

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
