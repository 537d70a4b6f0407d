"""The PDF edition: every page of the book, typeset, with its figures; the site links it.

The built PDF (``make pdf`` after ``make book``) is checked where it exists; under CI=true it
must. The assembly is also checked on a two-page stand-in site, without a browser.
"""
from __future__ import annotations

import hashlib
import re
import tomllib
import unicodedata
from pathlib import Path

import pytest
from conftest import parsed, skip_or_fail

from ldp_companion.edition import pdf_edition
from ldp_companion.execution import runner

REPO = runner.REPO
SITE = REPO / "_build" / "html"
PDF = SITE / pdf_edition.PDF_NAME
RAW_TEX = ("\\varepsilon", "\\frac", "\\mathbb", "\\operatorname", "$$", "\\(", "\\[",
           "\\sum", "\\mathcal")


def _page(title: str, body: str, links: str = "") -> str:
    return (f'<html><head><link rel="stylesheet" href="../_static/x.css"></head><body>'
            f'<article class="bd-article"><section id="top"><h1>{title}'
            f'<a class="headerlink" href="#top">#</a></h1>{links}{body}'
            f'<div class="cell tag_hide-input"><details class="hide above-input">'
            f"<summary>Show code</summary><pre>secret = 1</pre></details>"
            f'<div class="cell_output">shown</div></div>'
            f'<section id="part"><h2>Part</h2><img src="../_images/f.png"></section>'
            f"</section></article></body></html>")


def test_assemble_joins_the_pages_and_keeps_links_inside(tmp_path):
    site, root = tmp_path / "html", tmp_path
    (root / "_toc.yml").write_text("root: book/intro\nparts:\n  - chapters:\n"
                                   "      - file: book/ch\n")
    (site / "book").mkdir(parents=True)
    (site / "_images").mkdir()
    (site / "_images" / "f.png").write_bytes(b"png")
    (site / "book" / "intro.html").write_text(_page("Intro", "<p>hello</p>",
                                                    '<a href="ch.html#part">to ch</a>'))
    (site / "book" / "ch.html").write_text(_page("1. Chapter", "<p>body</p>",
                                                 '<a href="#part">here</a>'))
    doc = pdf_edition.assemble(site, root, version="9.9", commit="abc" * 14)
    assert doc.index("Intro") < doc.index("1. Chapter")  # the contents' order
    assert 'href="#ch--part"' in doc and 'id="ch--part"' in doc and 'id="intro--part"' in doc
    assert "secret = 1" not in doc and "shown" in doc  # hidden code dropped, output kept
    assert "headerlink" not in doc
    assert (site / "_images" / "f.png").as_uri() in doc
    assert "Version 9.9" in doc and "commit abcabcabca" in doc
    assert '<a href="#ch">1. Chapter</a>' in doc  # the table of contents links the chapter
    (site / "book" / "ch.html").unlink()
    with pytest.raises(FileNotFoundError, match="make book"):
        pdf_edition.assemble(site, root, version="9.9", commit=None)


@pytest.fixture(scope="module")
def reader():
    """The built PDF, opened with pdfium (its text and images read in seconds)."""
    if not PDF.exists():
        skip_or_fail(f"the PDF edition is not built ({PDF}); run `make pdf` after `make book`")
    import pypdfium2

    document = pypdfium2.PdfDocument(str(PDF))
    yield document
    document.close()


@pytest.fixture(scope="module")
def text(reader):
    return [page.get_textpage().get_text_bounded() for page in reader]


def _titles() -> list[str]:
    out = []
    for page in pdf_edition.pages(REPO):
        h1 = parsed(SITE / page.with_suffix(".html")).select_one("article.bd-article h1")
        out.append(re.sub(r"#$", "", h1.get_text(" ", strip=True)).strip())
    return out


@pytest.mark.browser
def test_pdf_has_every_page_title_and_the_version(reader, text):
    flat = unicodedata.normalize("NFKC", re.sub(r"\s+", " ", "\n".join(text)))  # ﬁ → fi
    for title in _titles():
        words = re.sub(r"\s+", " ", title)
        assert words in flat, f"{title!r} is not in the PDF"
    version = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    assert f"Version {version}" in text[0]
    outline = [mark.get_title() for mark in reader.get_toc()]
    assert any("HierA" in t for t in outline), outline  # bookmarks for the chapters


def text_problems(pages: list[str]) -> list[str]:
    """Raw TeX (MathJax did not typeset it) or "??" (a reference Sphinx did not resolve) on
    the pages of a PDF's text."""
    out = []
    for number, page in enumerate(pages, 1):
        leftover = [t for t in RAW_TEX if t in page]
        if leftover:
            out.append(f"page {number} shows raw TeX {leftover}")
        if "??" in page:
            out.append(f"page {number} has an unresolved reference (??)")
    return out


def test_text_check_catches_raw_tex_and_unresolved_references():
    assert text_problems(["ε-LDP holds", "see Table 3.1"]) == []
    problems = text_problems(["ε-LDP", r"the bound \frac{1}{2}"])
    assert len(problems) == 1 and problems[0].startswith("page 2 shows raw TeX")
    assert text_problems(["see Figure ??"]) == ["page 1 has an unresolved reference (??)"]


@pytest.mark.browser
def test_pdf_has_no_raw_tex_and_no_unresolved_reference(text):
    problems = text_problems(text)
    assert not problems, problems[:10]


@pytest.mark.browser
def test_pdf_has_every_figure(reader):
    """Every figure of the site's pages is embedded (matched by pixel size, and counted)."""
    from PIL import Image

    figures = {hashlib.sha256(f.read_bytes()).hexdigest(): f for f in _figure_files()}
    assert len(figures) >= 30
    import pypdfium2.raw as pdfium_c

    embedded = [tuple(image.get_px_size()) for page in reader
                for image in page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_IMAGE], max_depth=3)]
    expected = []
    for f in figures.values():
        with Image.open(f) as image:
            expected.append(image.size)
    missing = [s for s in expected if s not in set(embedded)]
    assert not missing, f"{len(missing)} figures of the site are not in the PDF: {missing[:5]}"
    assert len(embedded) >= len(expected)


def _figure_files() -> list[Path]:
    files = []
    for page in pdf_edition.pages(REPO):
        path = SITE / page.with_suffix(".html")
        files += [(path.parent / i["src"]).resolve() for i in
                  parsed(path).select("article.bd-article img[src]") if i["src"].endswith(".png")]
    return [f for f in files if f.is_file()]


@pytest.mark.browser
def test_the_site_links_the_pdf():
    intro = (SITE / "book" / "intro.html").read_text()
    assert 'href="../ldp-companion.pdf"' in intro
    if not PDF.exists():
        skip_or_fail("the PDF edition is not built (make pdf)")
