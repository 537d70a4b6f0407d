"""Browser check of the built site: math rendered, images load, nothing requested outside.

Needs the site built (`make book`) and Chromium; skips without them on a user's machine and
fails under CI=true. Screenshots go to ``_build/screenshots/``.
"""
from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlparse

import pytest
from conftest import parsed, serving, skip_or_fail, soup

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parent.parent
SITE = REPO / "_build" / "html"
SHOTS = REPO / "_build" / "screenshots"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--no-first-run"]
#: Every page of the built book, by a short name (the screenshot's), each visited once.
PAGES = {
    **{stem: f"book/generated/{stem}.html" for stem in (
        "01-tldp", "02-tvg", "03-pm-three-outputs", "04-spof", "05-hiera", "A-audit",
        "B-mechanism", "C-compare", "verdicts", "reproducibility", "rerun", "course",
        "reconstructions")},
    **{stem: f"book/{stem}.html" for stem in ("intro", "changelog", "references")},
}
#: Pages that must show typeset math, and pages that must show a figure.
MATH_PAGES = ("01-tldp", "02-tvg", "03-pm-three-outputs", "04-spof", "05-hiera", "A-audit",
              "intro")
FIGURE_PAGES = ("01-tldp", "02-tvg", "03-pm-three-outputs", "04-spof", "05-hiera", "A-audit",
                "C-compare")
RAW_TEX = ("\\varepsilon", "\\frac", "\\mathbb", "\\operatorname", "$$", "\\[", "\\(")

# Text of the page outside code blocks, where raw TeX would show if MathJax did not run.
_PROSE_TEXT = """() => {
  const body = document.body.cloneNode(true);
  body.querySelectorAll('pre, code, script, style, mjx-container, .MathJax_Preview')
      .forEach(e => e.remove());
  return body.textContent;
}"""
_BROKEN_IMAGES = """() => Array.from(document.images)
  .filter(i => !i.complete || i.naturalWidth === 0).map(i => i.src)"""


def _built_pages() -> list[Path]:
    """Every HTML page of the built book (skips, or fails under CI, when there is none)."""
    pages = sorted((SITE / "book").rglob("*.html"))
    if not pages:
        skip_or_fail(f"the site is not built ({SITE}); run `make book` first")
    return pages


@pytest.fixture(scope="module")
def server():
    if not (SITE / "index.html").exists():
        skip_or_fail(f"the site is not built ({SITE}); run `make book` first")
    with serving(SITE) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    from ldp_companion.edition import pdf_edition

    chromium = pdf_edition.chromium()
    if chromium is None:
        skip_or_fail(f"Chromium not found: {pdf_edition.INSTALL_CHROMIUM}")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        skip_or_fail("playwright (Python package) not installed")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
        yield b
        b.close()


PAGE_TIMEOUT_MS = 180_000

# A page has settled when its scripts ran ("load"), MathJax typeset, the fonts arrived and every
# eager image finished. Not "networkidle": it waits for 500 ms without a request, which under two
# test workers on a loaded machine sometimes never comes (two CI runs, 180 s each; playwright's
# own documentation discourages it).
_SETTLED = """async () => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) await MathJax.startup.promise;
  await document.fonts.ready;
  await Promise.all(Array.from(document.images)
    .filter(i => !i.complete && i.loading !== 'lazy')
    .map(i => new Promise(done => { i.addEventListener('load', done);
                                    i.addEventListener('error', done); })));
}"""


def _visit(browser, server, path):
    """Open one page; return (page, outside requests, failed local requests and the page's
    script errors)."""
    outside, failed = [], []
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    # a generous limit: a page's scripts wait for the CPU, and under the two test workers and a
    # loaded machine one chapter page took over playwright's default 30 s to settle (5 s quiet)
    context.set_default_timeout(PAGE_TIMEOUT_MS)
    page = context.new_page()

    def route(r):
        url = urlparse(r.request.url)
        if url.scheme in ("data", "blob", "about") or url.hostname == "127.0.0.1":
            r.continue_()
        else:
            outside.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.on("response", lambda resp: failed.append(f"{resp.status} {resp.url}")
            if resp.status >= 400 else None)
    page.on("pageerror", lambda error: failed.append(f"JS error: {error}"))
    page.goto(f"{server}/{path}", wait_until="load")
    if page.locator("script[src*='mathjax']").count():  # Sphinx loads it on pages with math
        page.wait_for_function("() => window.MathJax && MathJax.startup && "
                               "MathJax.startup.promise")
    page.evaluate(_SETTLED)
    return page, outside, failed


def test_every_built_page_is_visited():
    """The page list is the book: a new page is visited too."""
    built = {p.relative_to(SITE).as_posix() for p in _built_pages()}
    assert built == set(PAGES.values()), built ^ set(PAGES.values())


@pytest.mark.parametrize("name", list(PAGES))
def test_page_renders_offline_and_fits_its_column(browser, server, name):
    """One visit per page: nothing requested outside the machine, no failed request or
    script error, no broken image, no raw TeX, math typeset and figures shown where the page
    has them, and no table, formula or printed line wider than the text column."""
    page, outside, failed = _visit(browser, server, PAGES[name])
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=False)
    broken = page.evaluate(_BROKEN_IMAGES)
    prose = page.evaluate(_PROSE_TEXT)
    wide = page.evaluate(_WIDE_TABLES) + page.evaluate(_WIDE_MATH) + page.evaluate(_WIDE_OUTPUT)
    math, images = page.locator("mjx-container").count(), page.locator("img").count()
    verdicts = _verdicts_page_problems(page) if name == "verdicts" else []
    page.context.close()
    assert not outside, f"{name} requested URLs outside the machine: {outside}"
    assert not failed, f"{name} has failed requests or script errors: {failed}"
    assert broken == [], f"{name} has broken images"
    leftover = [t for t in RAW_TEX if t in prose]
    assert not leftover, f"{name} shows raw TeX: {leftover}"
    assert name not in MATH_PAGES or math > 5, f"{name}: MathJax rendered no math"
    assert name not in FIGURE_PAGES or images >= 1, f"{name} page has no figure"
    assert not wide, wide
    assert not verdicts, verdicts


def test_visit_catches_outside_requests_missing_files_and_broken_images(browser, tmp_path):
    (tmp_path / "page.html").write_text(
        "<html><body><p>x</p><img src='https://example.invalid/a.png' alt='a'>"
        "<img src='missing.png' alt='b'><script src='https://cdn.invalid/m.js'></script>"
        "<script>const once = 1;</script><script>const once = 2;</script>"
        "</body></html>")
    with serving(tmp_path) as url:
        page, outside, failed = _visit(browser, url, "page.html")
        broken = page.evaluate(_BROKEN_IMAGES)
        page.context.close()
    assert sorted(outside) == ["https://cdn.invalid/m.js", "https://example.invalid/a.png"]
    assert sorted(f.split()[0] for f in failed) == ["404", "JS"]
    assert any("once" in f for f in failed if f.startswith("JS error"))
    assert len(broken) == 2


def _verdicts_page_problems(page) -> list[str]:
    """What is wrong with the Verdicts page: an empty verdicts table, a first row not linking
    to a chapter, not one coverage bar and one item table per item list."""
    from ldp_companion.edition import book

    rows = page.locator("table.ldp-verdicts tbody tr")
    if rows.count() < 1:
        return ["the verdicts table is empty"]
    out = []
    link = rows.first.locator("a").first.get_attribute("href")
    if not re.match(r"0\d-[a-z-]+\.html(#|$)", link):  # the first chapter's page
        out.append(f"the first verdict links to {link}")
    if page.locator("div.ldp-coverage-bar").count() != len(book.ITEMS):
        out.append("not one coverage bar per item list")
    if page.locator("details table.ldp-items").count() != len(book.ITEMS):
        out.append("not one item table per item list")
    return out


# TeX that MathJax did not typeset: inline $...$, a backslash command, a braced sub/superscript,
# or a Greek letter with an underscore subscript ("ε_a"), anywhere outside math and code.
_TEX = re.compile(r"\$[^$\s][^$]*?\$|\\[A-Za-z]{2,}|[_^]\{|[α-ωΑ-Ω]_[A-Za-z0-9]")


def raw_tex(html) -> list[str]:
    """Fragments of raw TeX in the text of a built page (math and code excluded); ``html``
    is markup or its :func:`soup`."""
    tree = soup(html)
    hidden = {id(el) for el in tree.select(
        "script, style, pre, code, .math, .highlight, mjx-container")}
    text = " ".join(s for s in tree.strings if not any(id(p) in hidden for p in s.parents))
    return [text[max(0, m.start() - 30):m.end() + 10].replace("\n", " ")
            for m in _TEX.finditer(text)]


def test_raw_tex_detector_catches_what_a_reader_would_see():
    page = ('<p>claimed <span class="math">\\(\\max(\\varepsilon_a, \\varepsilon_b)\\)</span></p>'
            "<pre>r'$\\varepsilon$'</pre><td>Duchi $C_D$</td><td>q_{i→j}</td><td>ε_a</td>"
            "<p>$$x = 1$$ inside text, \\mu</p><td>max(εᵢ, εⱼ), ε₁, 5%–80%</td>")
    found = raw_tex(page)
    assert len(found) == 5, found  # $C_D$, q_{, ε_a, $$x = 1$$ ... \mu
    assert not raw_tex('<td>max(εᵢ, εⱼ), ε₁, q(i→j), 5%–80%</td>')


def test_no_raw_tex_on_any_built_page():
    pages = _built_pages()
    found = {p.relative_to(SITE).as_posix(): raw_tex(parsed(p)) for p in pages}
    found = {k: v for k, v in found.items() if v}
    assert not found, found


def printed_facts(html: str) -> int:
    """How many code outputs on a page print a figure's facts (a dict with 'width_px') or a
    ledger claim's repr (the verdicts table shows claims)."""
    return (html.count("&#39;width_px&#39;") + html.count("'width_px'")
            + html.count("Claim(chapter="))


def test_no_page_prints_a_figures_facts():
    pages = _built_pages()
    found = {p.relative_to(SITE).as_posix(): printed_facts(p.read_text()) for p in pages}
    assert not {k: v for k, v in found.items() if v}
    assert printed_facts("<pre>{&#39;width_px&#39;: 651, &#39;scale&#39;: 1.0}</pre>") == 1
    assert printed_facts("<pre>Claim(chapter=&#39;01-tldp&#39;, claim_id=...)</pre>") == 1


#: What must never show in a page's printed outputs (streams, tracebacks, plain reprs): a
#: warning, a traceback, an error; nor, in any output, a path of the machine that built the
#: book. (An HTML table may name an error as data: the Verdicts page lists what crashed a
#: mutant's run.)
_NOISE = re.compile(r"\w*(?:Warning|Error)\b:|Traceback \(most recent call last\)")
_PATHS = re.compile(r"site-packages|(?<![\w.])/(?:tmp|work|root|home|check|usr|opt|var)/")


def leaked_output(html) -> list[str]:
    """The warnings, tracebacks and machine paths in the code outputs of a built page, each
    with its context (:data:`_NOISE`, :data:`_PATHS`); ``html`` is markup or its tree."""
    outputs = soup(html).select("div.cell_output div.output")
    printed = " ".join(o.get_text(" ") for o in outputs if "text_html" not in o["class"])
    shown = " ".join(o.get_text(" ") for o in outputs)
    return [text[max(0, m.start() - 40):m.end() + 40].replace("\n", " ")
            for pattern, text in ((_NOISE, printed), (_PATHS, shown))
            for m in pattern.finditer(text)]


def test_leak_check_catches_warnings_tracebacks_and_paths():
    out = ('<div class="cell_output docutils container"><div class="output stderr">'
           '<pre>{}</pre></div></div>')
    table = ('<div class="cell_output docutils container"><div class="output text_html">'
             '<table><td>{}</td></table></div></div>')
    leaks = [
        "/home/ci/.venv/lib/python3.11/site-packages/joblib/x.py:787: UserWarning: A worker",
        "Traceback (most recent call last):\n  File \"x\", line 1",
        "ValueError: eps must be positive",
        "wrote /tmp/run/figure-1.csv",
    ]
    for text in leaks:
        assert leaked_output(out.format(text)), text
    clean = ("ε = 0.5: the warning level of the audit; runs/ holds 3 files; "
             "see figure-1.csv (error bars: ±2 s.e.)")
    assert not leaked_output(out.format(clean))
    assert not leaked_output(f"<p>{leaks[0]}</p>")  # prose may quote one; outputs may not
    assert not leaked_output(table.format("mutant: failed in cell 26: RuntimeError: shapes"))
    assert leaked_output(table.format("read /home/ci/data/ctg/CTG.csv"))


def test_no_page_shows_a_warning_a_traceback_or_a_machine_path():
    pages = _built_pages()
    found = {p.relative_to(SITE).as_posix(): leaked_output(parsed(p)) for p in pages}
    found = {k: v for k, v in found.items() if v}
    assert not found, found


def figures_on_page(html, page: Path) -> list[dict]:
    """Every <img> of a built page: its alt text, whether it links to the full-size file, and
    the facts :func:`ldp_companion.page.plotting.show` stored in its PNG."""
    from ldp_companion.page.plotting import png_facts

    out = []
    for img in soup(html).select("article img, main img"):
        src = (page.parent / img.get("src", "")).resolve()
        stored_alt, facts = png_facts(src) if src.suffix == ".png" and src.is_file() else ("", {})
        out.append({"src": img.get("src", ""), "alt": img.get("alt", ""), "stored_alt": stored_alt,
                    "linked": img.parent.name == "a", "facts": facts})
    return out


def figure_problems(figures: list[dict]) -> list[str]:
    """What a reader would trip over: no alt text (or the file path as alt), no click to enlarge,
    text below plotting.MIN_TEXT_PT at page width, a mechanism in a colour not its own, two
    curves a colour-blind reader cannot tell apart (plotting.cvd_clashes, stored by show)."""
    from matplotlib.colors import to_hex

    from ldp_companion.page.plotting import MECHANISM_COLORS, MECHANISM_LABELS, MIN_TEXT_PT

    colour_of = {MECHANISM_LABELS[n]: to_hex(c) for n, c in MECHANISM_COLORS.items()
                 if n in MECHANISM_LABELS}
    problems = []
    for f in figures:
        name = f["src"].rsplit("/", 1)[-1][:12]
        if not f["alt"] or "_images" in f["alt"] or f["alt"].endswith(".png"):
            problems.append(f"{name}: no alt text ({f['alt']!r})")
        if not f["facts"]:
            problems.append(f"{name}: not drawn through plotting.show (no stored facts)")
            continue
        if not f["linked"]:
            problems.append(f"{name}: does not link to the full-size image")
        if f["facts"]["min_text_pt"] is not None and f["facts"]["min_text_pt"] < MIN_TEXT_PT:
            problems.append(f"{name}: text {f['facts']['smallest_text']!r} at "
                            f"{f['facts']['min_text_pt']} pt")
        for text, hex_colour in f["facts"]["legend"].items():
            if text in colour_of and hex_colour != colour_of[text]:
                problems.append(f"{name}: {text} drawn in {hex_colour}, its colour is "
                                f"{colour_of[text]}")
        if "cvd_clashes" not in f["facts"]:
            problems.append(f"{name}: drawn before the colour-blind check (rebuild the book)")
        problems += [f"{name}: {clash}" for clash in f["facts"].get("cvd_clashes", [])]
    return problems


def test_figure_checks_catch_each_defect():
    """Mutants of a good figure record, one defect each: every one is reported."""
    from matplotlib.colors import to_hex

    from ldp_companion.page.plotting import color

    PM = to_hex(color("pm"))
    good = {"src": "../../_images/abc.png", "alt": "Two curves against ε.", "stored_alt": "x",
            "linked": True, "facts": {"min_text_pt": 10.4, "smallest_text": "PM",
                                      "legend": {"PM": PM, "a series": "#123456"},
                                      "cvd_clashes": []}}
    assert figure_problems([good]) == []
    mutants = [{"alt": ""}, {"alt": "../../_images/abc.png"}, {"linked": False},
               {"facts": {}}, {"facts": {**good["facts"], "min_text_pt": 6.1}},
               {"facts": {**good["facts"], "legend": {"PM": "#1f77b4"}}},
               {"facts": {**good["facts"], "cvd_clashes": ["'PM' and 'HM' are 5.2 apart"]}}]
    for change in mutants:
        assert len(figure_problems([{**good, **change}])) == 1, change


def test_every_figure_has_alt_text_readable_text_and_its_colours():
    pages = sorted((SITE / "book" / "generated").glob("*.html"))
    if not pages:
        skip_or_fail(f"the site is not built ({SITE}); run `make book` first")
    figures = {p.name: figures_on_page(parsed(p), p) for p in pages}
    assert sum(map(len, figures.values())) >= 15, {k: len(v) for k, v in figures.items()}
    problems = {k: figure_problems(v) for k, v in figures.items()}
    problems = {k: v for k, v in problems.items() if v}
    assert not problems, problems


@pytest.mark.parametrize("page, first", [("03-pm-three-outputs", "3.1"), ("05-hiera", "5.1"),
                                         ("A-audit", "A.1")])
def test_exercises_and_proofs_are_numbered_per_chapter_on_the_page(page, first):
    html_file = SITE / "book" / "generated" / f"{page}.html"
    if not html_file.exists():
        skip_or_fail(f"the site is not built ({html_file}); run `make book` first")
    html = html_file.read_text()
    numbers = re.findall(r"Exercise (\w+\.\d+)", html)
    assert numbers and numbers[0] == first, numbers[:3]
    assert all(n.split(".")[0] == first.split(".")[0] for n in numbers)
    # the proof directives too: "Algorithm 3.1", never a book-wide "Algorithm 4" that
    # clashes with the paper's own numbers
    for kind in ("Definition", "Theorem", "Algorithm"):
        shown = re.findall(rf'caption-number">{kind} ([\w.]+) ', html)
        assert all(n.split(".")[0] == first.split(".")[0] for n in shown), (kind, shown[:4])
        assert not shown or shown[0] == first, (kind, shown[:4])


# --- tables a reader can read ---------------------------------------------------------------
def table_problems(html) -> list[str]:
    """Tables that show code instead of words: a header or row name that reads like code
    (``tables.raw_labels``: ``gauss_analytic``, ``0.500000``, ``nan``) or pandas' bare
    0, 1, 2, ... index as the first column. The parameter tables' first column is exempt: it
    names the papermill parameters a reader passes."""
    from ldp_companion.page.tables import raw_labels

    out = []
    for table in soup(html).select("article table, main table"):
        name = " ".join(table.get("class", [])) or table.get("id", "table")
        caption = table.find("caption")
        name += f" ({caption.get_text(' ', strip=True)[:40]!r})" if caption else ""
        heads = [th.get_text(" ", strip=True) for th in table.select("thead th")]
        rows = [th.get_text(" ", strip=True) for th in table.select("tbody th")]
        raw = raw_labels(heads + ([] if "ldp-params" in table.get("class", []) else rows))
        if raw:
            out.append(f"{name}: labels that read like code {raw[:6]}")
        first = [tr.find(["td", "th"]) for tr in table.select("tbody tr")]
        first = [c.get_text(strip=True) for c in first if c is not None]
        if len(first) >= 2 and first == [str(i) for i in range(len(first))]:
            out.append(f"{name}: pandas' row numbers 0..{len(first) - 1} as a column")
        cut = [td.get_text(strip=True)[-30:] for td in table.select("td")
               if td.get_text(strip=True).endswith("...")]
        if cut:
            out.append(f"{name}: cells cut to '...' (pandas' display.max_colwidth): {cut[:3]}")
    return out


def test_table_check_catches_code_labels_and_bare_row_numbers():
    import pandas as pd

    from ldp_companion.page.tables import show_table

    good = show_table(pd.DataFrame({"mechanism": ["PM", "HM"], "ε": [0.5, 1.0]}),
                      "Two mechanisms").to_html()
    assert table_problems(f"<main>{good}</main>") == []
    tables = [pd.DataFrame({"x": [1, 2]}, index=["gauss_analytic", "PM"]).to_html(),  # code
              pd.DataFrame({0.5: [1], 1.0: [2]}, index=["PM"]).style.to_html(),  # 0.500000
              pd.DataFrame({"mechanism": ["PM", "HM"]}).to_html(),          # 0, 1 as a column
              pd.DataFrame({"kinds": ["derive and check, " * 5]}, index=["PM"]).to_html()]
    with pd.option_context("display.max_colwidth", 50):  # pandas' default cuts the last one
        tables[-1] = pd.DataFrame({"kinds": ["derive and check, " * 5]},
                                  index=["PM"])._repr_html_()
    for html in tables:
        assert len(table_problems(f"<main>{html}</main>")) == 1, html


def test_every_table_reads_as_words():
    pages = _built_pages()
    problems = {p.name: table_problems(parsed(p)) for p in pages}
    problems = {k: v for k, v in problems.items() if v}
    assert not problems, problems


# The text column's inner width, and the column itself (the start of a page check's body).
_COLUMN = """\
  const column = document.querySelector('main article, .bd-article, article') || document.body;
  const style = getComputedStyle(column);
  const width = column.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
"""

# Tables wider than the text column: the reader scrolls sideways to reach the last column.
_WIDE_TABLES = """() => {
""" + _COLUMN + """  return Array.from(column.querySelectorAll('table'))
    .filter(t => t.scrollWidth > width + 1)
    .map(t => `${Array.from(t.querySelectorAll('caption, th')).map(e => e.textContent.trim())
                 .filter(x => x).join(' | ').slice(0, 80)}: ${t.scrollWidth} px in a `
              + `${Math.round(width)} px column`);
}"""


# Printed results wider than the text column: the reader scrolls sideways to read a number.
_WIDE_OUTPUT = """() => {
""" + _COLUMN + """  return Array.from(column.querySelectorAll('div.cell_output div.output pre'))
    .filter(p => p.scrollWidth > width + 1)
    .map(p => `${p.textContent.trim().slice(0, 60)}: ${p.scrollWidth} px in a `
              + `${Math.round(width)} px column`);
}"""


# Display formulas wider than their box: cut off, or a scrollbar a reader may not see.
_WIDE_MATH = """() => Array.from(document.querySelectorAll('mjx-container[display="true"]'))
  .filter(m => m.scrollWidth > m.clientWidth + 1)
  .map(m => `${m.textContent.slice(0, 60)}: ${m.scrollWidth} px in ${m.clientWidth} px`)"""


def test_formula_width_check_catches_a_wide_formula(browser):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.set_content("<div style='width: 300px'>"
                     "<mjx-container display='true' style='display: block; overflow-x: auto'>"
                     "<span style='display: inline-block; width: 500px'>a + b</span>"
                     "</mjx-container><mjx-container display='true' style='display: block'>"
                     "<span style='display: inline-block; width: 200px'>c</span>"
                     "</mjx-container></div>")
    assert page.evaluate(_WIDE_MATH) == ["a + b: 500 px in 300 px"]
    page.close()


def test_table_width_check_catches_a_wide_table(browser):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    cells = "".join(f"<td>{i * 1.234567e6:.6e}</td>" for i in range(14))
    out = "<div class='cell_output'><div class='output stream'><pre>{}</pre></div></div>"
    page.set_content(f"<main><article style='width: 688px'><table><caption>wide</caption>"
                     f"<tr>{cells}</tr></table><table><tr><td>1</td></tr></table>"
                     + out.format("x = 1; " * 40) + out.format("x = 1\n" * 40)
                     + "</article></main>")
    assert len(page.evaluate(_WIDE_TABLES)) == 1
    assert len(page.evaluate(_WIDE_OUTPUT)) == 1  # the long line, not the forty short ones
    page.close()


def test_each_script_appears_once_on_a_page():
    """sphinx-thebe's inline script is added twice; the book's extension keeps one of each."""
    from sphinx.builders.html._assets import _JavaScript

    from ldp_companion.edition.sphinx_once import unique_scripts

    body = 'const THEBE_JS_URL = "x"'
    scripts = [_JavaScript("a.js"), _JavaScript(None, body=body), _JavaScript("b.js"),
               _JavaScript("", body=body), _JavaScript("a.js"), _JavaScript("", body="other")]
    kept = unique_scripts(scripts)
    assert [(s.filename, s.attributes.get("body")) for s in kept] == [
        ("a.js", None), (None, body), ("b.js", None), ("", "other")]
    pages = _built_pages()
    twice = [p.name for p in pages if p.read_text().count("const THEBE_JS_URL") > 1]
    assert not twice, twice


def test_each_id_appears_once_on_a_page():
    """sphinx-proof and sphinx-exercise give every body one id; the book's extension numbers
    the repeats, and no built page holds an id twice."""
    from collections import Counter

    from ldp_companion.edition.sphinx_once import unique_ids

    body = ('<div id="a"><p id="x"></p><p id="x"></p><p id="x-2"></p><p id="x"></p></div>'
            '<section id="b"></section>')
    assert re.findall(r'id="([^"]+)"', unique_ids(body)) == ["a", "x", "x-3", "x-2", "x-4", "b"]
    pages = _built_pages()
    twice = {}
    for page in pages:
        counts = Counter(re.findall(r'\sid="([^"]+)"', page.read_text()))
        repeated = sorted(k for k, v in counts.items() if v > 1)
        if repeated:
            twice[page.name] = repeated[:5]
    assert not twice, twice
