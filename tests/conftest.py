"""Shared test helpers."""
from __future__ import annotations

import contextlib
import functools
import math
import os
from pathlib import Path

import pytest
from hypothesis import settings
from threadpoolctl import threadpool_info

from ldp_companion.execution.grid import JOBS_ENV

IN_CI = os.environ.get("CI", "").lower() == "true"

# Grids called with n_jobs=None (every chapter's) run in their own process during the tests,
# the chapter kernels' too (they inherit it): xdist already keeps both cores busy, and at
# smoke size starting two workers that import torch cost more than the cells (chapter 4's
# Fig. 3: 11.7 s on two workers, 4.5 s in the kernel). The book's build runs them on every
# core; serial and parallel tables are compared by the grids' own tests (n_jobs=2).
os.environ[JOBS_ENV] = "1"

#: The BLAS thread counts this test process started with (before any test limited them).
STARTING_BLAS_THREADS = sorted({i["num_threads"] for i in threadpool_info()
                                if i["user_api"] == "blas"})

# Property tests draw the same examples on every run, seeded like every other test: a failure
# is found again by whoever reruns, and CI does not turn red by chance (a run found a case at
# the edge of a tolerance that 60 other runs had not drawn).
settings.register_profile("seeded", derandomize=True, database=None)
settings.load_profile("seeded")


def soup(html):
    """The parsed tree of ``html`` (markup), or ``html`` itself when it is one already."""
    from bs4 import BeautifulSoup

    return BeautifulSoup(html, "html.parser") if isinstance(html, str) else html


@functools.cache
def parsed(page: Path):
    """A built page's tree, parsed once per test process: the site's and the PDF's checks read
    every page, and parsing them all takes about 2 s. The checks only read the tree, never
    change it."""
    return soup(page.read_text())


@contextlib.contextmanager
def serving(folder):
    """A quiet HTTP server on 127.0.0.1 serving ``folder`` (download code is tested against
    it, never the internet); yields its base URL."""
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0),
                                functools.partial(Quiet, directory=str(folder)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


@pytest.fixture(scope="session")
def paper_asset_root(tmp_path_factory):
    """Tiny stand-ins of every paper asset (``fake_assets.write_all``), written once."""
    from fake_assets import write_all

    root = tmp_path_factory.mktemp("paper-assets")
    write_all(root)
    return root


def _light_folder(tmp_path_factory) -> Path:
    """Where the light install goes: the folder both xdist workers share."""
    root = tmp_path_factory.getbasetemp()
    if "PYTEST_XDIST_WORKER" in os.environ:  # an xdist worker: the workers' shared folder
        root = root.parent
    return root / "light"


def _needs_light(item) -> bool:
    """A test that runs in the light install (:mod:`light_env`)."""
    from light_env import LIGHT

    if "light_python" in getattr(item, "fixturenames", ()):
        return True
    source = getattr(item, "callspec", None) and item.callspec.params.get("source")
    return item.originalname == "test_chapter_runs_at_smoke" and source.stem in LIGHT


def pytest_collection_modifyitems(items):
    """The chapter executions first (the light install's last, as it installs meanwhile), the
    quick tests after: with ``--dist worksteal`` (``make test``) a worker that runs out of
    tests takes quick ones from the other, and no long run starts at the end alone."""
    def rank(item) -> int:
        if item.get_closest_marker("chapter") is None:
            return 2
        return 1 if _needs_light(item) else 0

    items.sort(key=rank)  # stable: the same order on every xdist worker


def pytest_configure(config):
    """An xdist worker skips the interpreter's final teardown (:func:`_exit_now`)."""
    if hasattr(config, "workerinput"):
        import atexit

        atexit.register(_exit_now)


def _exit_now() -> None:
    """The last of an xdist worker's exit handlers (registered at its start, so every handler
    the session added has run, after joblib has shut its workers down): leave without the
    interpreter's teardown. The controller waits for its workers to exit, and freeing a
    worker's heap (torch alone: 0.6-0.8 s) took 2-4 s at the end of every ``make test``. The
    worker has sent its results by then; the handlers this skips are the two registered
    before the session (execnet's gateway group, logging's flush), with nothing to do here."""
    import sys

    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(0)


@pytest.fixture(autouse=True)
def _one_thread_per_worker(request):
    """Every test but the determinism ones computes at one BLAS/OpenMP/torch thread: xdist
    keeps both cores busy already, and two workers each spinning two OpenMP threads on two
    cores made small torch fits 10-40x slower (a classifier fit: 2.3 s free, 0.2 s at one
    thread). The determinism tests keep the machine's own settings, the BLAS free, as their
    contract says (``.ci/run`` runs them again at one thread)."""
    if request.node.get_closest_marker("determinism") is not None:
        yield
        return
    from ldp_companion.execution import threads

    with contextlib.suppress(ImportError):  # loaded now, so that its threads are limited too
        import torch  # noqa: F401
    with threads.fixed(1):
        yield


@pytest.fixture(scope="session", autouse=True)
def _light_install_started(tmp_path_factory, request):
    """At a session's first test, when any of its tests needs the light install, start it
    in the background (once for both xdist workers): its 30 s of building and pip overlap
    the other tests instead of holding a worker and the other one waiting for it."""
    from light_env import start

    if any(_needs_light(item) for item in request.session.items):
        start(_light_folder(tmp_path_factory))


@pytest.fixture(scope="session")
def light_python(tmp_path_factory):
    """The light install's python (:mod:`light_env`), installed once per session in the
    background (:func:`light_env.start`), waited for here."""
    from light_env import start, wait

    folder = _light_folder(tmp_path_factory)
    start(folder)  # already started, unless the session's collection missed this test
    return wait(folder, skip_or_fail)


@pytest.fixture
def short_reviews(monkeypatch):
    """IMDB's stand-in reviews padded to 16 tokens, not the paper's 500 (``load_imdb``'s
    default): the BiLSTM's backward pass over 500 steps took 25 s of a 27 s grid test; the
    stand-ins' reviews have 12 tokens, so every word is still read."""
    import functools

    from ldp_companion.data import paper_assets

    monkeypatch.setattr(paper_assets, "load_imdb",
                        functools.partial(paper_assets.load_imdb, max_len=16))


def skip_or_fail(reason: str):
    """Skip on a user's machine; fail under CI=true, where every tool must be present."""
    if IN_CI:
        pytest.fail(f"{reason} (CI=true: this must not be skipped)")
    pytest.skip(reason)


def assert_printed(value, printed: str):
    """``value`` rounds to ``printed`` at its printed decimals (a paper's or a reference
    table's value, e.g. ``"0.1839"``)."""
    decimals = len(printed.split(".")[1]) if "." in printed else 0
    tol = 0.5 * 10.0**-decimals * (1 + 1e-9) + 1e-15
    assert abs(value - float(printed)) <= tol, f"{value!r} does not round to {printed}"


def assert_sig(value, printed: str):
    """``value`` rounds to ``printed`` at its printed significant digits (``"2.8e-74"``)."""
    mantissa = printed.lower().split("e")[0].replace("-", "").replace(".", "").lstrip("0")
    p = float(printed)
    tol = 0.5 * 10.0 ** (math.floor(math.log10(abs(p))) - len(mantissa) + 1) * (1 + 1e-9)
    assert abs(value - p) <= tol, f"{value!r} does not round to {printed}"


#: A one-claim chapter page (Laplace's worst-case variance) for the mutation harness's tests.
TOY_PAGE = '''---
jupytext:
  text_representation: {extension: .md, format_name: myst}
kernelspec: {display_name: Python 3, language: python, name: python3}
---
```{code-cell} ipython3
:tags: [parameters]
profile = "smoke"
seed = 0
```
```{code-cell} ipython3
from ldp_companion.verdicts.ledger import Ledger
from ldp_companion.mechanisms.laplace import Laplace
ledger = Ledger("99-toy", refs={"var": "Lemma 1"})
ledger.close("var", "Var of Laplace at eps 1 is 8", 8.0, Laplace(1.0).worst_case_variance(), \
rtol=1e-9)
ledger.save()
```
'''
