"""`make book` executes chapters in parallel and re-executes only what changed."""
from __future__ import annotations

import json
import shutil

import pytest

from ldp_companion.execution import runner

CHAPTER = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
    format_version: 0.13
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

# {title}

```{{code-cell}} ipython3
:tags: [parameters]

profile = "default"
seed = 0
```

```{{code-cell}} ipython3
print("{title}", profile, seed)
```
"""


@pytest.fixture
def tiny_book(tmp_path):
    """A book of two tiny chapters next to a copy of the package source (the cache hashes it)."""
    (tmp_path / "notebooks").mkdir()
    for name in ("01-one", "02-two"):
        (tmp_path / "notebooks" / f"{name}.md").write_text(CHAPTER.format(title=name))
    shutil.copytree(runner.REPO / "ldp_companion", tmp_path / "ldp_companion",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


@pytest.mark.chapter
def test_second_build_executes_nothing_and_a_touched_chapter_only_itself(tiny_book):
    out = tiny_book / "generated"

    def build(**kw):
        return runner.execute_book("smoke", 0, out, tiny_book, summary_pages=(), jobs=2, **kw)

    assert build() == {"01-one": "executed", "02-two": "executed"}
    first = json.loads((out / "01-one.run.json").read_text())
    assert build() == {"01-one": "cache", "02-two": "cache"}
    again = json.loads((out / "01-one.run.json").read_text())
    assert again["from_cache"] and again["finished"] == first["finished"]
    src = tiny_book / "notebooks" / "02-two.md"
    src.write_text(src.read_text() + "\nOne more sentence.\n")
    assert build() == {"01-one": "cache", "02-two": "executed"}
    record = json.loads((out / "build.json").read_text())  # the Reproducibility page reads it
    assert record["executed"] == ["02-two"] and record["cache"] == ["01-one"]
    assert record["profile"] == "smoke" and isinstance(record["wall_seconds"], float)
    # a change in a shared module the chapters can import re-executes both; FORCE re-executes all
    shared = tiny_book / "ldp_companion" / "validation.py"
    shared.write_text(shared.read_text() + "\n# touched\n")
    assert build() == {"01-one": "executed", "02-two": "executed"}
    assert build(force=True) == {"01-one": "executed", "02-two": "executed"}


def test_cache_key_follows_source_parameters_and_only_imported_chapter_packages(tiny_book):
    src = tiny_book / "notebooks" / "01-one.md"
    pkg = tiny_book / "ldp_companion"
    key = runner.cache_key(src, {"profile": "smoke"}, pkg)
    assert key == runner.cache_key(src, {"profile": "smoke"}, pkg)
    assert key != runner.cache_key(src, {"profile": "default"}, pkg)
    # the chapter imports no chapter package: editing one (hiera) leaves its key alone
    (pkg / "hiera" / "levels.py").write_text((pkg / "hiera" / "levels.py").read_text() + "\n#\n")
    assert key == runner.cache_key(src, {"profile": "smoke"}, pkg)
    src.write_text(src.read_text().replace("print(",
                                           "from ldp_companion.hiera import levels\nprint("))
    assert runner.cache_key(src, {"profile": "smoke"}, pkg) != key
    files = runner.package_sources(src, pkg)
    assert pkg / "hiera" / "levels.py" in files and pkg / "pm" / "theory.py" not in files


def test_the_digest_knows_every_chapter_package():
    """A chapter package the code digest does not list would count as shared code: every
    chapter's cache key and every grid's stored cells would follow it."""
    from ldp_companion.edition import book
    from ldp_companion.execution.grid_store import CHAPTER_PACKAGES, COMPARE

    names = {module.__name__.split(".")[-1] for module in book.PACKAGES.values()}
    assert names == {*CHAPTER_PACKAGES, COMPARE}


def test_cache_key_leaves_out_the_floors_above_and_follows_what_appendix_c_reads(tiny_book):
    """A chapter never imports the edition or the command line (the layout test): editing a
    card keeps every chapter's cache (and a paper run's grid cells). Appendix C's page imports
    ``compare``'s modules, which read chapter packages: editing one of those re-executes it."""
    src, pkg = tiny_book / "notebooks" / "01-one.md", tiny_book / "ldp_companion"
    key = runner.cache_key(src, {"profile": "smoke"}, pkg)
    for above in (pkg / "edition" / "cards.py", pkg / "__main__.py"):
        above.write_text(above.read_text() + "\n# touched\n")
        assert runner.cache_key(src, {"profile": "smoke"}, pkg) == key, above.name
    src.write_text(src.read_text().replace(
        "print(", "from ldp_companion.compare import true_epsilon\nprint("))
    before = runner.cache_key(src, {"profile": "smoke"}, pkg)
    (pkg / "tldp" / "algorithm.py").write_text((pkg / "tldp" / "algorithm.py").read_text()
                                              + "\n#\n")
    assert runner.cache_key(src, {"profile": "smoke"}, pkg) != before
    files = runner.package_sources(src, pkg)
    assert pkg / "spof" / "train.py" in files and pkg / "edition" / "book.py" not in files


def test_the_digest_follows_imports_inside_functions_and_not_a_module_no_import_reaches(
        tiny_book):
    """The key hashes the modules the page's code can reach by its imports (those inside a
    function too), not the whole floor: the black-box auditor, which the tiny page cannot
    reach, is left out until a module the page imports imports it, even lazily."""
    src, pkg = tiny_book / "notebooks" / "01-one.md", tiny_book / "ldp_companion"
    key = runner.cache_key(src, {"profile": "smoke"}, pkg)
    blackbox = pkg / "auditing" / "blackbox.py"
    assert blackbox not in runner.package_sources(src, pkg)
    blackbox.write_text(blackbox.read_text() + "\n# touched\n")
    assert runner.cache_key(src, {"profile": "smoke"}, pkg) == key
    shared = pkg / "validation.py"  # the runner imports it: in every page's reach
    shared.write_text(shared.read_text() + "\n\ndef _later():\n"
                      "    from ldp_companion.auditing import blackbox  # noqa: F401\n")
    assert blackbox in runner.package_sources(src, pkg)
    key = runner.cache_key(src, {"profile": "smoke"}, pkg)
    blackbox.write_text(blackbox.read_text() + "\n# touched again\n")
    assert runner.cache_key(src, {"profile": "smoke"}, pkg) != key


def test_the_package_imports_its_modules_by_name_outside_the_mutation_harness():
    """The digest reads imports from the code: a module imported through a string
    (``importlib.import_module``, ``__import__``) would run without being hashed. Only the
    mutation harness does that, and no chapter can reach it."""
    import re

    package = runner.REPO / "ldp_companion"
    harness = {package / "verdicts" / "mutation.py", package / "verdicts" / "mutation_generated.py"}
    dynamic = sorted(str(p.relative_to(package)) for p in package.rglob("*.py")
                     if p not in harness
                     and re.search(r"import_module\(|__import__\(", p.read_text()))
    assert dynamic == []
    for chapter in runner.chapters():
        assert not harness & set(runner.package_sources(chapter)), chapter.stem


def test_the_smoke_check_names_a_module_the_digest_misses():
    """The smoke test's check (:func:`smoke_checks.unreached`) against a kernel that ran a
    module no import of chapter 2 reaches."""
    from smoke_checks import unreached

    source = runner.find_chapter("02")
    assert unreached(source, ["ldp_companion", "ldp_companion.tvg.params"]) == []
    assert unreached(source, ["ldp_companion.verdicts.mutation"]) == \
        ["ldp_companion.verdicts.mutation"]


def test_cache_key_follows_the_data_folder(tiny_book, tmp_path):
    """A data file added (say, the paper's CIFAR-10 batches), replaced or removed changes the
    key, so `make book` re-executes the chapters that may now read it."""
    src, pkg = tiny_book / "notebooks" / "01-one.md", tiny_book / "ldp_companion"
    data = tmp_path / "data"
    (data / "MNIST" / "raw").mkdir(parents=True)

    def key():
        return runner.cache_key(src, {"profile": "smoke"}, pkg, data)

    before = key()
    assert key() == before
    batch = data / "cifar-10-batches-py" / "data_batch_1"
    batch.parent.mkdir()
    batch.write_bytes(b"x")
    added = key()
    assert added != before
    batch.write_bytes(b"xy")
    assert key() != added
    batch.unlink()
    batch.parent.rmdir()
    assert key() == before                          # back to what the folder held


def test_a_kernel_that_dies_at_start_is_started_again_but_a_failing_cell_is_not(
        tiny_book, monkeypatch):
    import papermill

    root = tiny_book
    source = runner.chapters(root)[0]
    real, calls = papermill.execute_notebook, []

    def flaky(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("Kernel died before replying to kernel_info")
        return real(*args, **kwargs)

    monkeypatch.setattr(papermill, "execute_notebook", flaky)
    assert runner.execute(source, root / "out", {"profile": "smoke"}, record=False).exists()
    assert len(calls) == 2
    calls.clear()

    def broken(*args, **kwargs):  # any other failure is the chapter's: no second run
        calls.append(1)
        raise RuntimeError("something else")

    monkeypatch.setattr(papermill, "execute_notebook", broken)
    with pytest.raises(RuntimeError, match="something else"):
        runner.execute(source, root / "out", {"profile": "smoke"}, record=False)
    assert len(calls) == 1


def test_the_run_record_names_the_gpus_torch_sees(monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert runner.machine().endswith(" cores")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda i: f"GPU {i}")
    assert runner.machine().endswith(" cores, GPU 0, GPU 1")


@pytest.mark.chapter
def test_a_book_run_records_every_resolved_parameter(tiny_book):
    """With ``resolve`` (the command line passes the chapters' own), each chapter's record
    holds every value in force, not only the profile and seed (their hash is the provenance
    lines' "parameters")."""
    out = tiny_book / "generated"

    def resolve(chapter, params):
        return {**params, "size": 10 * int(chapter[:2])}

    runner.execute_book("smoke", 0, out, tiny_book, summary_pages=(), jobs=2, resolve=resolve)
    records = {c: json.loads((out / f"{c}.run.json").read_text()) for c in ("01-one", "02-two")}
    assert [r["resolved"] for r in records.values()] == [
        {"profile": "smoke", "seed": 0, "size": 10}, {"profile": "smoke", "seed": 0, "size": 20}]
    assert all(r["parameters"] == {"profile": "smoke", "seed": 0} for r in records.values())


def test_a_relative_import_is_read_from_the_module_s_own_package():
    """The package imports by absolute name today; a relative import, should one come, is
    resolved from the importing module's package (or from the package an ``__init__`` is)."""
    from ldp_companion.execution import reach

    pkg = runner.REPO / "ldp_companion"
    assert "ldp_companion.tldp.checks" in reach.imports(
        "from . import checks", "ldp_companion.tldp.claims", pkg)
    assert "ldp_companion.validation" in reach.imports(
        "from .. import validation", "ldp_companion.tldp.claims", pkg)
    assert "ldp_companion.tldp.algorithm" in reach.imports(
        "from .algorithm import tldp", "ldp_companion.tldp", pkg)
    assert "ldp_companion.tldp.checks" not in reach.imports(
        "from . import checks", "ldp_companion.tvg.claims", pkg)
