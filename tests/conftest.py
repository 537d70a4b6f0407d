"""Shared test helpers."""
from __future__ import annotations

import contextlib
import math
import os

import pytest

IN_CI = os.environ.get("CI", "").lower() == "true"


@contextlib.contextmanager
def serving(folder):
    """A quiet HTTP server on 127.0.0.1 serving ``folder`` (download code is tested against
    it, never the internet); yields its base URL."""
    import functools
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


@pytest.fixture(scope="session")
def light_python(tmp_path_factory, worker_id):
    """The light install's python (:mod:`light_env`), installed once per session: the first
    xdist worker to need it installs it under a file lock, the other finds it made."""
    from filelock import FileLock
    from light_env import install

    root = tmp_path_factory.getbasetemp()
    root = root.parent if worker_id != "master" else root  # the workers' shared folder
    folder, python = root / "light", root / "light" / "env" / "bin" / "python"
    with FileLock(root / "light.lock"):
        if (folder / "skipped").is_file():
            skip_or_fail((folder / "skipped").read_text())
        if not (folder / "ready").is_file():
            folder.mkdir(exist_ok=True)
            try:
                assert install(folder, skip_or_fail) == python
            except pytest.skip.Exception as skipped:
                (folder / "skipped").write_text(str(skipped))
                raise
            (folder / "ready").touch()
    return python


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
