"""Typed numbers in a chapter's prose: the numbers a run computes belong glued from the run.

A number typed into a page's prose goes stale when the code changes: a wrong constant
leaves "ε ≈ 781" standing while the run now says 390. :func:`typed_numbers` finds every
number in the prose of a MyST chapter that is neither

* glued from the run (``{glue}`name```, ``{glue:text}`name:.3f```, a ``{glue:md}`` block),
* marked as a quote of the paper or as a setting: inside quotation marks ("about 90 % F1")
  or inside an ``{abbr}`` role whose title says where it comes from
  (``{abbr}`256 (the paper's Δ for 8-bit images)```), nor
* part of what is not a value: code cells and inline code, math, labels, links, citations,
  item references ("Theorem 2", "Fig. 3", "Eq. (22)", "Table V"), list numbering, years.

Only numbers a run could compute are looked for: decimals, percentages, powers of ten,
and integers of three digits or more. Small integers (a sensitivity of 2, 30 attributes,
3 runs) are counts and settings, not results.

A chapter package also builds text that the page shows as prose: the statements, notes and
reasons of its claims (the verdicts table), the captions and alt text of its figures and
tables. :func:`typed_numbers_in_package` reads that text in the package's Python source
(plain strings and the constant parts of f-strings) and finds the numbers typed into it, with
the same rule written for strings (:func:`typed_numbers_in_code`): a number quoted from the
paper is in quotation marks, a setting is named ("Δ = 256"), anything the run computes is
formatted from the value the code has.
"""
from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["TypedNumber", "typed_numbers", "NUMBER", "PAGE_TEXT", "PAGE_HELPERS",
           "typed_numbers_in_text", "typed_numbers_in_code", "typed_numbers_in_package",
           "page_positions", "REFERENCE_MODULES", "format_value"]

#: A number a run could compute: a decimal, a percentage, a power of ten, a number of three
#: or more digits (with thousands separators), a mantissa × 10ⁿ or an e-notation.
NUMBER = re.compile(
    r"(?<![\w.,])[−-]?(?:"
    r"\d+(?:\.\d+)?\s?×\s?10[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]*"
    r"|10[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+"
    r"|\d+(?:\.\d+)?e[−-]?\d+"
    r"|\d+\.\d+(?:\s?%)?"
    r"|\d{1,3}(?:,\d{3})+(?:\s?%)?"
    r"|\d{3,}(?:\s?%)?"
    r"|\d+\s?%"
    r")(?![\w])")

_ITEM_WORDS = (r"Theorems?|Thms?\.|Lemmas?|Propositions?|Props?\.|Corollary|Corollaries|Cor\.|"
               r"Definitions?|Defs?\.|Alg\.|Algs\.|Algorithms?|Figs?\.|Figures?|Tables?|"
               r"Eqs?\.|Equations?|Sec\.|Secs\.|Sections?|§|App\.|Appendix|Appendices|"
               r"Remarks?|Chapters?|chapters?|Steps?|steps?|Exercises?|Parts?|parts?|"
               r"Examples?|Assumptions?|Remark|Types?")
_ITEM_NUMBER = r"\(?[0-9IVXA-Z]+(?:[.\-–][0-9IVXA-Za-z]+)*[a-z]?\)?(?![A-Za-z])"
_ITEM = re.compile(rf"(?:{_ITEM_WORDS})\s*{_ITEM_NUMBER}"
                   rf"(?:\s*(?:,|–|-|and|to|/|or)\s*(?!{_ITEM_WORDS}){_ITEM_NUMBER})*")

_INLINE_MATH = re.compile(r"(?<![\\$])\$[^$\n]+?\$")
_ROLES = re.compile(r"\{(?:glue(?::\w+)?|math|cite(?::\w+)?|numref|ref|doc|eq|prf:ref|"
                    r"download|term)\}`[^`]*`")
_CODE = re.compile(r"`[^`\n]*`")
_YEAR = re.compile(r"\b(?:1[89]|20)\d\d[a-z]?\b")

# Spans that are not prose, in the order they are masked.
_MASKS = [
    re.compile(r"\A---\n.*?\n---\n", re.S),                       # front matter
    re.compile(r"^(`{3,})\{code-cell\}.*?^\1\s*$", re.S | re.M),  # code cells
    re.compile(r"^(`{3,})\{glue(?::\w+)?\}.*?^\1\s*$", re.S | re.M),  # glued blocks
    re.compile(r"^(`{3,})\{math\}.*?^\1\s*$", re.S | re.M),       # math blocks
    re.compile(r"^(`{3,})(?!\{).*?^\1\s*$", re.S | re.M),         # plain code blocks
    re.compile(r"<!--.*?-->", re.S),                              # HTML comments
    re.compile(r"\$\$.*?\$\$", re.S),                             # display math
    _INLINE_MATH,                                                 # inline math
    _ROLES,                                                       # roles that hold no prose
    _CODE,                                                        # inline code
    re.compile(r"^\([^)\s]+\)=\s*$", re.M),                       # labels
    re.compile(r"^\s*:[\w-]+:.*$", re.M),                         # directive options
    re.compile(r"\]\([^)]*\)"),                                   # link targets
    re.compile(r"^\s*(?:\d+\.|[-*])\s", re.M),                    # list markers
    _ITEM,                                                        # "Theorem 2", "Fig. 3"
    _YEAR,                                                        # years
]
_INLINE_CODE = 9  # index of the inline-code mask: {abbr} markers are read before it
_ABBR = re.compile(r"\{abbr\}`([^`]*)`")
_QUOTE = re.compile(r"“[^”]*”|\"[^\"\n]*\"")


@dataclass(frozen=True)
class TypedNumber:
    """A number typed into prose: its line (1-based), the number, and the line's text."""

    line: int
    number: str
    text: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.number!r} in {self.text.strip()[:100]!r}"


def _blank(match: re.Match) -> str:
    """The match replaced by spaces, keeping its line breaks (so line numbers survive)."""
    return re.sub(r"[^\n]", " ", match.group(0))


def _marked(source: str) -> tuple[str, list[str]]:
    """``source`` with every ``{abbr}`` role blanked, and the roles that give no title (a
    marker must say where its number comes from)."""
    untitled = [m.group(1) for m in _ABBR.finditer(source)
                if not re.search(r"\([^)]*\w[^)]*\)\s*$", m.group(1))]
    return _ABBR.sub(_blank, source), untitled


def typed_numbers(source: str) -> list[TypedNumber]:
    """Every number in the prose of a MyST page ``source`` that is neither glued nor marked
    (see the module's docstring), in page order.

    Raises
    ------
    ValueError
        If an ``{abbr}`` marker gives no title (``{abbr}`256``` instead of
        ``{abbr}`256 (the paper's Δ)```).
    """
    if not isinstance(source, str):
        raise TypeError(f"source must be the page's text, got {type(source).__name__}")
    text = source
    for mask in _MASKS[:_INLINE_CODE]:
        text = mask.sub(_blank, text)
    text, untitled = _marked(text)
    for mask in _MASKS[_INLINE_CODE:-2]:
        text = mask.sub(_blank, text)
    if untitled:
        raise ValueError(f"{{abbr}} markers without a title saying where the number comes "
                         f"from: {untitled}")
    text = _QUOTE.sub(_blank, text)
    for mask in _MASKS[-2:]:
        text = mask.sub(_blank, text)
    lines = source.splitlines()
    out = []
    for i, line in enumerate(text.splitlines()):
        out.extend(TypedNumber(i + 1, m.group(0), lines[i]) for m in NUMBER.finditer(line))
    return out


# --- Text a chapter package builds in Python --------------------------------------------------

#: The names (of parameters, variables, module constants and dict keys) under which a chapter
#: package hands text to the page: a claim's ``statement``, ``note``, ``reason`` and ``ours``
#: (the verdicts table), a figure's or a table's ``caption`` and a figure's ``alt`` text.
PAGE_TEXT = ("statement", "note", "reason", "ours", "caption", "alt")
#: The modules outside the chapter packages whose functions put such arguments on the page.
PAGE_HELPERS = ("verdicts/ledger.py", "page/plotting.py", "page/tables.py",
                "execution/figure_data.py")
#: The modules of a chapter package that state the paper's side, not the run's: where each
#: reference value comes from (``NOTE`` and ``RECONSTRUCTED``, the Reconstructions page).
#: Like a claim's ``paper`` value, they are not read.
REFERENCE_MODULES = ("reconstructions.py",)

_SUP = "⁰¹²³⁴⁵⁶⁷⁸⁹"
# A symbol: one letter with subscripts, primes or an index, or a norm (ε, ε1, σ₁², b_j, |z|).
_SYMBOL = rf"(?<![\w|])(?:\|[^\W\d_]\w?\||[^\W\d_](?:_\w)?)[₀-₉{_SUP}′'\d]*(?![\w(])"
# A value of any size: 2, 0.99, 1,000, −2, 10⁻⁵, 3×10⁵, 1e-9, ½, 5 %.
_VALUE = (rf"[−-]?(?:\d+(?:,\d{{3}})*(?:\.\d+)?(?:e[−-]?\d+)?(?:\s?×\s?10)?[{_SUP}⁻]*"
          r"|[½¼¾])(?:\s?%)?")
_VALUES = rf"[{{\[(]?{_VALUE}(?:\s?(?:,|and|or|to|–)\s?{_VALUE})*[}}\])]?"
# Spans of a string built in Python that hold no typed result, in the order they are masked
# (see typed_numbers_in_code).
_CODE_MASKS = [
    _INLINE_MATH, _ROLES, _CODE,
    _QUOTE,                                                         # "quoted" from the paper
    re.compile(r"\((?:the |all the )?(?:paper|authors)[^():]*:[^()]*\)"),  # (paper: 100)
    re.compile(rf"{_SYMBOL}\s?(?:=|≤|<|≥|>|∈|in|from)\s?{_VALUES}"),  # Δ = 256, ε ≤ 100
    re.compile(rf"\((?:{_VALUE}|[^\W\d_]′?),\s?{_VALUE}\)-(?:L?DP|GDP)"),  # (1, 10⁻⁵)-DP
    re.compile(rf"{_VALUE}\s(?:lower |upper )?(?:confidence|(?:lower |upper )?(?:confidence )?"
               rf"bounds?|\w+ quantile|chance of)|family-wise (?:error )?{_VALUE}"),  # levels
    re.compile(rf"(?<![\d{_SUP}])\d+(?:\s?×\s?\d+)+(?![\d{_SUP}⁻])"),  # a shape: 256×16×5×5
    re.compile(r"(?<![\w−-])\d+(?:,\d{3})*-(?!fold)(?=[^\W\d_]{2})"),  # a size: 201-point
    re.compile(rf"(?<![^\W\d])[^\W\d_][₀-₉{_SUP}′]*\s?[−+×·]\s?{_VALUE}"  # a formula:
               rf"|/{_VALUE}|{_VALUE}/"),                     # 0.5x − 0.25, δ⁴/192, 1.25/δ
    _ITEM,                                                          # "Theorem 2", "Fig. 3"
    _YEAR,
]


def typed_numbers_in_text(text: str) -> list[str]:
    """The numbers typed into ``text``, a string built for the page: those that are not
    quoted from the paper, not a setting named as such and not part of what is no value
    (the rule of :func:`typed_numbers_in_code`)."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a string, got {type(text).__name__}")
    for mask in _CODE_MASKS:
        text = mask.sub(_blank, text)
    return [m.group(0) for m in NUMBER.finditer(text)]


def _callee(func: ast.expr) -> str:
    return func.id if isinstance(func, ast.Name) else \
        func.attr if isinstance(func, ast.Attribute) else ""


def _page_word(name: str) -> bool:
    """A variable or constant named for page text: ``caption``, ``NOTE``, ``_CLOSE_STATEMENT``."""
    return name.lower().strip("_").split("_")[-1] in PAGE_TEXT


def _parameters(node: ast.AST) -> list[str]:
    """The parameters a call fills by position: a function's (less a method's ``self``) or
    the annotated fields of a class (a named tuple, a data class); ``[]`` for anything else."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        names = [a.arg for a in node.args.posonlyargs + node.args.args]
        return names[1:] if names[:1] in (["self"], ["cls"]) else names
    if isinstance(node, ast.ClassDef):
        return [s.target.id for s in node.body
                if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]
    return []


def page_positions(tree: ast.AST) -> dict[str, set[int]]:
    """``name -> positions`` of the arguments that a call to a function (or a named tuple, a
    data class) defined in ``tree`` passes to a :data:`PAGE_TEXT` parameter."""
    out: dict[str, set[int]] = {}
    for node in ast.walk(tree):
        spots = {i for i, name in enumerate(_parameters(node)) if name in PAGE_TEXT}
        if spots:
            out.setdefault(node.name, set()).update(spots)
    return out


def _scopes(tree: ast.AST) -> dict[int, ast.AST]:
    """``id(node) ->`` the innermost function (or the module) that holds the node."""
    out: dict[int, ast.AST] = {}
    stack = [(tree, tree)]
    while stack:
        node, scope = stack.pop()
        inner = node if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else scope
        for child in ast.iter_child_nodes(node):
            out[id(child)] = inner
            stack.append((child, inner))
    return out


def _module_value(name: ast.expr, module: ast.Module) -> ast.expr | None:
    """What a module constant ``name`` is bound to at the module's top level."""
    if not isinstance(name, ast.Name):
        return None
    for stmt in module.body:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else \
            [stmt.target] if isinstance(stmt, ast.AnnAssign) and stmt.value else []
        if any(isinstance(t, ast.Name) and t.id == name.id for t in targets):
            return stmt.value
    return None


def _elements(iterable: ast.expr, module: ast.Module) -> list[ast.expr]:
    """What a for loop over ``iterable`` binds, where it is written out: the elements of a
    literal list or tuple (or of a module constant), or the pairs of a module dict's
    ``.items()``."""
    if (isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Attribute)
            and iterable.func.attr == "items" and not iterable.args):
        table = _module_value(iterable.func.value, module)
        if isinstance(table, ast.Dict):
            return [ast.Tuple(elts=[k, v]) for k, v in zip(table.keys, table.values) if k]
    values = _module_value(iterable, module) if isinstance(iterable, ast.Name) else iterable
    return list(values.elts) if isinstance(values, (ast.List, ast.Tuple)) else []


def _unpack(target: ast.expr, value: ast.expr, name: str) -> list[ast.expr]:
    """The part of ``value`` that an assignment to ``target`` binds to ``name``."""
    if isinstance(target, ast.Name):
        return [value] if target.id == name else []
    if (isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List))
            and len(target.elts) == len(value.elts)):
        return [v for t, e in zip(target.elts, value.elts) for v in _unpack(t, e, name)]
    return []


def _bound(name: str, scope: ast.AST, module: ast.Module) -> list[ast.expr]:
    """The expressions bound to ``name`` in ``scope`` by assignments and for loops, or by the
    module's top level when the scope binds none."""
    found = []
    for node in ast.walk(scope):
        if isinstance(node, ast.Assign):
            found += [v for t in node.targets for v in _unpack(t, node.value, name)]
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            found += _unpack(node.target, node.value, name)
        elif isinstance(node, (ast.For, ast.comprehension)):
            found += [v for e in _elements(node.iter, module)
                      for v in _unpack(node.target, e, name)]
    if not found and scope is not module:
        value = _module_value(ast.Name(id=name), module)
        found = [value] if value is not None else []
    return found


def _page_expressions(tree: ast.Module, positions: dict) -> list[ast.expr]:
    """The expressions whose text the page shows: arguments passed to :data:`PAGE_TEXT`
    parameters (by keyword, or by position to a function of ``positions``), values assigned to
    variables and constants named for page text, and dict values under such keys."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            spots = positions.get(_callee(node.func), set())
            starred = [i for i, a in enumerate(node.args) if isinstance(a, ast.Starred)]
            args = node.args[:starred[0]] if starred else node.args
            out += [a for i, a in enumerate(args) if i in spots]
            out += [k.value for k in node.keywords if k.arg in PAGE_TEXT]
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and _page_word(t.id) for t in targets):
                out.append(node.value)
        elif isinstance(node, ast.Dict):
            out += [v for k, v in zip(node.keys, node.values)
                    if isinstance(k, ast.Constant) and k.value in PAGE_TEXT]
    return out


def _resolved(expr: ast.expr, scopes: dict, module: ast.Module, depth: int = 0) -> list:
    """``expr``, or what a name ``expr`` is bound to (followed a few steps)."""
    if not isinstance(expr, ast.Name):
        return [expr]
    if depth > 3:
        return []
    scope = scopes.get(id(expr), module)
    return [r for value in _bound(expr.id, scope, module)
            for r in _resolved(value, scopes, module, depth + 1)]


def _forwarded(tree: ast.Module, positions: dict) -> dict[str, set[int]]:
    """Positions of the parameters whose value a function of ``tree`` puts into page text
    (``what`` in ``statement=f"{what} (...)"``): a call passing text there builds page text
    too."""
    scopes, out = _scopes(tree), {}
    for expr in _page_expressions(tree, positions):
        for value in _resolved(expr, scopes, tree) + [expr]:
            for node in ast.walk(value):
                scope = scopes.get(id(node))
                names = _parameters(scope) if isinstance(node, ast.Name) else []
                if names and node.id in names:
                    out.setdefault(scope.name, set()).add(names.index(node.id))
    return out


def _with_forwarded(trees: list, positions: dict) -> dict[str, set[int]]:
    """``positions`` grown by :func:`_forwarded` over ``trees`` until nothing is added."""
    spots = {name: set(p) for name, p in positions.items()}
    while True:
        grown = False
        for tree in trees:
            for name, p in _forwarded(tree, spots).items():
                if not p <= spots.get(name, set()):
                    spots.setdefault(name, set()).update(p)
                    grown = True
        if not grown:
            return spots


def _strings(expr: ast.expr):
    """``(constant, span, text)`` for each string constant of ``expr`` outside formatted
    fields and comparisons; ``span`` is the f-string it is part of, or the constant (for its
    lines)."""
    stack = [(expr, None)]
    while stack:
        node, joined = stack.pop()
        if isinstance(node, (ast.FormattedValue, ast.Compare)):
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node, joined or node, node.value
        inner = node if isinstance(node, ast.JoinedStr) else joined
        stack.extend((child, inner) for child in ast.iter_child_nodes(node))


def _line_of(number: str, span: ast.AST, lines: list[str]) -> int:
    """The line (1-based) of ``span`` on which ``number`` is written."""
    first = getattr(span, "lineno", 1)
    last = getattr(span, "end_lineno", first) or first
    return next((i for i in range(first, last + 1) if number in lines[i - 1]), first)


def _merged(*maps: dict) -> dict[str, set[int]]:
    out: dict[str, set[int]] = {}
    for positions in maps:
        for name, p in positions.items():
            out.setdefault(name, set()).update(p)
    return out


@functools.cache
def _helper_positions() -> dict[str, set[int]]:
    """:func:`page_positions` of the :data:`PAGE_HELPERS` (``Ledger.close``'s statement,
    ``show``'s caption, ...)."""
    return _merged(*(page_positions(ast.parse((Path(__file__).parents[1] / name).read_text()))
                     for name in PAGE_HELPERS))


def typed_numbers_in_code(source: str, positions: dict | None = None) -> list[TypedNumber]:
    """Every number typed into the text that the Python module ``source`` builds for a page.

    The page text is found by name (:data:`PAGE_TEXT`): what a call passes to a parameter so
    named (by keyword; by position to a function of ``positions`` or of the module, see
    :func:`page_positions`), what is assigned to a variable or module constant so named
    (``caption = ...``, ``_CLOSE_STATEMENT = ...``) and the values of dicts under such keys.
    A name found there is followed to what it is bound to (an assignment, a for loop over a
    literal or a module constant); a parameter found there (``f"{what} ..."``) makes the
    arguments of calls to its function page text too. Docstrings, comments, table cells and
    the ``paper`` value of a claim are not read; of the page text, the constant parts are
    (an f-string's formatted fields are computed). A number (:data:`NUMBER`) there is typed
    unless it is

    * quoted from the paper: inside quotation marks (“reaches approximately 90%”), or in a
      parenthesis that names the paper or its authors before a colon ("(paper: 100)");
    * named as a setting: a symbol set to it, bounded by it or ranging over it ("Δ = 256",
      "h = 0, ½, 0.99", "ε ≤ 100", "ε ∈ {0.01, 0.1}", "c from 0 to 2.5"); the parameters of
      a privacy guarantee ("(1, 10⁻⁵)-DP"); a confidence or test level ("the 95 % lower
      bound", "family-wise error 1e-3"); a shape ("256×16×5×5"); a size ("a 201-point
      grid");
    * no value: a constant of a formula ("0.5x − 0.25", "δ⁴/192"), an item reference
      ("Eq. (118)", "Table IV"), a year, inline code or math.

    An expression is not a symbol ("ln((3+√65)/2) = 1.710392" is typed: compute it), nor is
    an approximation a setting ("ε ≈ 781" is typed).
    """
    if not isinstance(source, str):
        raise TypeError(f"source must be a module's text, got {type(source).__name__}")
    tree = ast.parse(source)
    spots = _with_forwarded([tree], _merged(_helper_positions(), positions or {},
                                            page_positions(tree)))
    scopes, lines, seen, out = _scopes(tree), source.splitlines(), set(), []
    for expr in _page_expressions(tree, spots):
        for value in _resolved(expr, scopes, tree):
            for node, span, text in _strings(value):
                if id(node) in seen:
                    continue
                seen.add(id(node))
                for number in typed_numbers_in_text(text):
                    line = _line_of(number, span, lines)
                    out.append(TypedNumber(line, number, lines[line - 1]))
    return sorted(out, key=lambda t: t.line)


def typed_numbers_in_package(folder) -> list[str]:
    """``"package/module.py:line: number in text"`` for each number typed into the page text
    of a chapter package ``folder`` (:func:`typed_numbers_in_code`, with the page parameters
    of the package's functions and of :data:`PAGE_HELPERS`), less its
    :data:`REFERENCE_MODULES`."""
    folder = Path(folder)
    if not folder.is_dir() or not (folder / "__init__.py").is_file():
        raise ValueError(f"folder must be a chapter package's folder, got {folder}")
    modules = sorted(folder.glob("*.py"))
    trees = [ast.parse(path.read_text()) for path in modules]
    positions = _with_forwarded(trees, _merged(_helper_positions(), *map(page_positions, trees)))
    return [f"{folder.name}/{path.name}:{t.line}: {t.number!r} in {t.text.strip()[:100]!r}"
            for path in modules if path.name not in REFERENCE_MODULES
            for t in typed_numbers_in_code(path.read_text(), positions)]


# --------------------------------------------------------------------------- parameter values

_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def format_value(value) -> str:
    """A parameter value as the book writes it: ``10⁶``, ``2·10⁴``, ``[3, 5, …, 101]``."""
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
