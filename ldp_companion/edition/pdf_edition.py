"""The PDF edition: the built site's pages, in the table of contents' order, as one book.

:func:`assemble` joins the article of every page of ``_toc.yml`` into one HTML document: a
title page (title, version, date, commit), a table of contents with links, then each page
starting on a new sheet. Each page's anchors are prefixed with its name, and links between
pages become links inside the document, so cross-references, citations and the verdict tables'
links still lead somewhere. Cells whose code the site hides behind a toggle lose their code (the
page shows the output), as do the buttons and the heading links. :func:`build` prints the
document with the Chromium the browser tests use (MathJax typesets the formulas first, from the
site's own copy), with page numbers and the chapters as PDF bookmarks, and writes
``_build/html/ldp-companion.pdf``, which the introduction links.

``make pdf`` runs ``python -m ldp_companion pdf`` after ``make book``. It needs Chromium
(``apt-get install -y --no-install-recommends chromium``) and the ``book`` extra (playwright,
pypdf, beautifulsoup4).
"""
from __future__ import annotations

import html
import os
import re
import shutil
import time
from datetime import date
from pathlib import Path
from urllib.parse import unquote, urlsplit

__all__ = ["PDF_NAME", "pages", "assemble", "build", "chromium", "require_chromium",
           "INSTALL_CHROMIUM", "CHROMIUM_ENV"]

PDF_NAME = "ldp-companion.pdf"
_CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                   "--disable-component-update", "--disable-sync", "--no-first-run"]
_DROP = (".headerlink", "button", ".toggle-button", ".prev-next-area", "script",
         "details.above-input", "#searchbox")  # above-input: code the site hides
_PRINT_CSS = """
@page { size: A4; margin: 16mm 14mm 18mm 14mm; }
html { font-size: 10.5pt; }
body { font-family: "DejaVu Sans", "Liberation Sans", sans-serif; color: #111; margin: 0; }
section.pdf-page { break-before: page; }
section.pdf-page:first-of-type { break-before: auto; }
.title-page { height: 250mm; display: flex; flex-direction: column; justify-content: center;
              text-align: center; break-after: page; }
.title-page h1 { font-size: 2.4em; margin-bottom: 0.2em; }
.title-page p { margin: 0.3em 0; }
.title-page .subtitle { font-size: 1.25em; color: #333; margin-bottom: 2em; }
nav.pdf-toc { break-after: page; }
nav.pdf-toc ol { list-style: none; padding-left: 0; }
nav.pdf-toc li { margin: 0.25em 0; }
nav.pdf-toc li li { margin-left: 1.5em; font-size: 0.9em; }
nav.pdf-toc a { color: #111; text-decoration: none; }
h1 { font-size: 1.8em; } h2 { font-size: 1.35em; break-after: avoid; }
h3 { font-size: 1.15em; break-after: avoid; }
img { max-width: 100% !important; height: auto !important; break-inside: avoid; }
figure, .cell_output img { break-inside: avoid; }
pre { white-space: pre-wrap !important; overflow-wrap: anywhere; font-size: 8.5pt !important;
      overflow: visible !important; }
table { max-width: 100%; font-size: 8.5pt; border-collapse: collapse; }
/* a table that fits one page stays whole, so its caption never ends a page alone */
table { break-inside: avoid; } caption { break-after: avoid; } tr { break-inside: avoid; }
table td, table th { overflow-wrap: anywhere; padding: 2px 4px; }
div.cell_output { overflow: visible !important; max-height: none !important; }
div.cell_output table { max-width: 100%; }
details { display: block; } details > summary { font-weight: 600; }
.toggle-hidden, .toggle-details__content { display: block !important; \
visibility: visible !important; }
a { color: #0b4f8a; }
"""


#: Names a Chromium (or Chrome) program to print with, in place of the first on PATH.
CHROMIUM_ENV = "LDP_COMPANION_CHROMIUM"
#: How to install the Chromium the PDF edition and the site's browser tests need.
INSTALL_CHROMIUM = "apt-get install -y --no-install-recommends chromium"


def chromium() -> str | None:
    """The Chromium the book prints with: :data:`CHROMIUM_ENV` when it names a program, else
    the first Chromium on PATH; None when there is none."""
    named = os.environ.get(CHROMIUM_ENV)
    if named:
        return shutil.which(named)
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def require_chromium() -> str:
    """The path of :func:`chromium`; a one-line RuntimeError saying what to install when there
    is none (or :data:`CHROMIUM_ENV` names no program)."""
    found = chromium()
    if found is not None:
        return found
    named = os.environ.get(CHROMIUM_ENV)
    if named:
        raise RuntimeError(f"{CHROMIUM_ENV}={named} is not a program: {INSTALL_CHROMIUM}, or "
                           f"set {CHROMIUM_ENV} to a Chromium")
    raise RuntimeError(f"no Chromium found: {INSTALL_CHROMIUM} (or set {CHROMIUM_ENV} to a "
                       "Chromium)")


def pages(root: Path) -> list[Path]:
    """The source files of the book's pages in reading order (``_toc.yml``), without suffix."""
    import yaml

    toc = yaml.safe_load((root / "_toc.yml").read_text())
    out = [toc["root"]]
    for part in toc.get("parts", []):
        out += [c["file"] for c in part.get("chapters", [])]
    return [Path(p) for p in out]


def _slug(page: Path) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", page.name).strip("-")


def _rewrite(article, page: Path, site: Path, slugs: dict[Path, str]) -> None:
    """Prefix the article's ids with its page's slug and point links into the document."""
    slug = slugs[page]
    here = (site / page).parent
    for tag in article.select("[id]"):
        tag["id"] = f"{slug}--{tag['id']}"
    for tag in article.select("a[href]"):
        href = tag["href"]
        parts = urlsplit(href)
        if parts.scheme or href.startswith("//"):
            continue
        if not parts.path:
            tag["href"] = f"#{slug}--{parts.fragment}" if parts.fragment else f"#{slug}"
            continue
        target = Path(os.path.normpath(here / unquote(parts.path)))
        key = target.relative_to(site).with_suffix("") if target.is_relative_to(site) else None
        if key in slugs and target.suffix == ".html":
            other = slugs[key]
            tag["href"] = f"#{other}--{parts.fragment}" if parts.fragment else f"#{other}"
        else:
            tag["href"] = target.as_uri() if target.exists() else href
    for tag in article.select("img[src]"):
        src = urlsplit(tag["src"])
        if not src.scheme:
            tag["src"] = Path(os.path.normpath(here / unquote(src.path))).as_uri()


def assemble(site: Path, root: Path, *, version: str, commit: str | None) -> str:
    """The whole book as one HTML document (see the module's description)."""
    from bs4 import BeautifulSoup

    order = pages(root)
    slugs = {p: _slug(p) for p in order}
    head_links, bodies, toc = [], [], []
    for page in order:
        path = site / page.with_suffix(".html")
        if not path.is_file():
            raise FileNotFoundError(f"{path} is missing: build the site first (make book)")
        soup = BeautifulSoup(path.read_text(), "html.parser")
        if not head_links:
            for link in soup.select('link[rel~="stylesheet"]'):
                target = Path(os.path.normpath(path.parent / urlsplit(link["href"]).path))
                head_links.append(f'<link rel="stylesheet" href="{target.as_uri()}">')
        article = soup.select_one("article.bd-article")
        for tag in article.select(", ".join(_DROP)):
            tag.decompose()
        for tag in article.select("details"):  # dropdowns print open: nothing is lost
            tag["open"] = ""
        _rewrite(article, page.with_suffix(""), site, slugs)
        title = article.find("h1")
        name = title.get_text(" ", strip=True) if title else page.stem
        subs = [(h.get("id") or (h.find_parent("section") or {}).get("id"),
                 h.get_text(" ", strip=True)) for h in article.find_all("h2")]
        items = "".join(f'<li><a href="#{i}">{html.escape(t)}</a></li>' for i, t in subs if i)
        toc.append(f'<li><a href="#{slugs[page]}">{html.escape(name)}</a>'
                   + (f"<ol>{items}</ol>" if items else "") + "</li>")
        bodies.append(f'<section class="pdf-page" id="{slugs[page]}">{article}</section>')
    mathjax = (site / "_static" / "mathjax" / "tex-chtml.js").as_uri()
    state = f"commit {commit[:10]}" if commit else "no git commit recorded"
    title_page = (
        '<div class="title-page"><h1>LDP companion</h1>'
        '<p class="subtitle">A reference companion to five papers on local differential '
        "privacy: every derivation checked, every experiment rerun</p>"
        f"<p>Version {html.escape(version)} · {date.today():%d %B %Y} · {state}</p>"
        "<p>The LDP companion team</p>"
        "<p>The verdicts, figures and tables of this edition are those of the build it was "
        "printed from.</p></div>")
    contents = ('<nav class="pdf-toc"><h1>Contents</h1><ol>' + "".join(toc) + "</ol></nav>")
    return ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<title>LDP companion</title>" + "".join(head_links)
            + f"<style>{_PRINT_CSS}</style>"
            '<script>window.MathJax = {"options": {"processHtmlClass": '
            '"tex2jax_process|mathjax_process|math|output_area"}}</script>'
            f'<script defer src="{mathjax}"></script></head><body>'
            + title_page + contents + "".join(bodies) + "</body></html>")


def build(site: Path, root: Path, out: Path | None = None, *, version: str,
          commit: str | None, timeout_s: float = 600) -> Path:
    """Print the assembled book to ``out`` (default ``site/ldp-companion.pdf``).

    Raises
    ------
    RuntimeError
        In one line: no Chromium (saying what to install), no playwright, or a Chromium that
        does not start.
    FileNotFoundError
        A page of the site is missing (build it first).
    """
    browser_path = require_chromium()
    try:
        from playwright.sync_api import Error as BrowserError
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing = 'playwright is not installed: pip install "ldp_companion[book]"'
        raise RuntimeError(missing) from None
    out = Path(out or site / PDF_NAME)
    work = root / "_build" / "pdf"
    work.mkdir(parents=True, exist_ok=True)
    document = work / "book.html"
    document.write_text(assemble(site, root, version=version, commit=commit))
    started = time.perf_counter()
    with sync_playwright() as p:
        try:
            browser = p.chromium.launch(executable_path=browser_path, args=_CHROMIUM_FLAGS)
        except BrowserError as err:
            why = " ".join(str(err).split())[:200]
            raise RuntimeError(f"Chromium {browser_path} did not start ({why}): "
                               f"{INSTALL_CHROMIUM}") from None
        page = browser.new_page()
        page.set_default_timeout(timeout_s * 1000)
        page.goto(document.as_uri(), wait_until="load")
        page.wait_for_function("window.MathJax && MathJax.startup && MathJax.startup.promise")
        page.evaluate("MathJax.startup.promise")
        footer = ('<div style="font-size:8px;width:100%;text-align:center;color:#555">'
                  '<span class="pageNumber"></span> / <span class="totalPages"></span></div>')
        tmp = out.with_suffix(".tmp.pdf")
        page.pdf(path=str(tmp), format="A4", print_background=True,
                 display_header_footer=True, header_template="<span></span>",
                 footer_template=footer, outline=True, tagged=True,
                 margin={"top": "16mm", "bottom": "18mm", "left": "14mm", "right": "14mm"})
        browser.close()
    os.replace(tmp, out)
    print(f"PDF edition: {out} ({out.stat().st_size / 1e6:.1f} MB, "
          f"{time.perf_counter() - started:.0f} s)")
    return out
