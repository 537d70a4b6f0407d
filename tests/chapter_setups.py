"""What a chapter's one smoke run finds in place, beyond the shared offline files.

A reader who fetched everything runs chapters 1 and 2 with the paper networks' data beside
the small real files; their smoke tests (``tests/test_chapters.py``) run that way, with tiny
stand-ins of the large files (:mod:`fake_assets`), so that one execution of each chapter
checks both the page and the paper-network path:

* chapter 1 (:func:`tldp_paper_networks`): CIFAR-10 and MobileNetV2 stand-ins beside the real
  MNIST, fitbit and CTG files; Types I-II run on them, Figs. 1-2's levels get computed
  verdicts, and Fig. 3's files are missing, so its claim says which;
* chapter 2 (:func:`tvg_from_fetched_ctg`): a stranger's path: ``data fetch tvg`` turns UCI's
  archive (its stand-in, served on 127.0.0.1) into ``CTG.csv`` in an empty data folder, and
  the chapter runs from that folder, with IMDB, GloVe, Credit and Adult stand-ins, so the
  claims of Figs. 3-5 on those panels get computed verdicts (SVHN's AlexNet is left out: 17 s
  on its stand-in; ``tests/test_tvg_paper.py`` runs it).

Each setup takes ``(tmp_path, monkeypatch)`` and returns the run's extra parameters and a
check ``after(folder, claims)`` of what the setup is for.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
from conftest import serving, skip_or_fail

from ldp_companion.data.datasets import DATA_ENV, REGISTRY, URL_ENV, cache_dir

REPO = Path(__file__).resolve().parent.parent


def _shared() -> Path:
    return Path(os.environ.get(DATA_ENV) or REPO.parent / "shared" / "data")


def tldp_paper_networks(tmp_path: Path, monkeypatch):
    """Chapter 1: the real offline files linked, CIFAR-10 and MobileNetV2 stand-ins beside."""
    from fake_assets import write_cifar, write_mobilenet

    real = cache_dir()
    if not (real / "MNIST").is_dir():
        skip_or_fail(f"the offline MNIST files are not in {real} (set {DATA_ENV})")
    data = tmp_path / "data"
    data.mkdir()
    for sub in ("MNIST", "fitbit", "ctg"):
        if (real / sub).exists():
            (data / sub).symlink_to(real / sub)
    write_cifar(data, np.random.default_rng(0))
    write_mobilenet(data)
    monkeypatch.setenv(DATA_ENV, str(data))
    parameters = {"paper_types": ["I", "II"], "paper_tasks": ["cifar10", "svhn"],
                  "paper_eps_12": [0.5], "paper_epochs": 1, "paper_runs": 1}

    def after(folder: Path, claims: pd.DataFrame) -> None:
        claims = claims.set_index("claim_id")
        for claim in ("fig1-other-data", "fig2-other-data"):
            assert claims.loc[claim, "verdict"] in ("holds", "partly", "fails"), claim
            note = claims.loc[claim, "note"]
            assert "Type I" in note or "Type II" in note, note
        assert claims.loc["fig3-other-data", "verdict"] == "not checked offline"
        assert "imdb (4)" in claims.loc["fig3-other-data", "note"]

    return parameters, after


#: Chapter 2's small files besides CTG, served as the public mirror serves them.
MNIST = ("mnist_test_images", "mnist_test_labels", "mnist_train_labels")


def tvg_from_fetched_ctg(tmp_path: Path, monkeypatch):
    """Chapter 2: ``data fetch tvg`` from a served stand-in of UCI's archive (made from the
    shared CTG records) into an empty data folder; the paper networks' stand-ins beside."""
    from ctg_standin import write_ctg_zip
    from fake_assets import write_adult, write_credit, write_glove, write_imdb

    from ldp_companion.__main__ import main

    shared = _shared()
    csv = shared / REGISTRY["ctg"]["path"]
    if not (csv.is_file() and all((shared / REGISTRY[n]["path"]).is_file() for n in MNIST)):
        skip_or_fail(f"{shared} lacks CTG.csv or the MNIST files chapter 2 also reads")
    served, root = tmp_path / "served", tmp_path / "data"
    served.mkdir()
    write_ctg_zip(served / REGISTRY["ctg"]["remote_name"], pd.read_csv(csv),
                  np.random.default_rng(0))
    for name in MNIST:
        (served / REGISTRY[name]["remote_name"]).write_bytes(
            (shared / REGISTRY[name]["path"]).read_bytes())
    monkeypatch.setenv(DATA_ENV, str(root))
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    with serving(served) as url:
        assert main(["data", "fetch", "tvg", "--profile", "smoke", "--mirror", url,
                     "--quiet"]) == 0
    monkeypatch.setenv(URL_ENV, "http://127.0.0.1:9")  # the run itself downloads nothing
    rng = np.random.default_rng(0)
    for write in (write_glove, write_imdb):
        write(root, rng)
    # Credit and Adult with 2,000 and 1,600 records, so that a lot of 256 samples at rate
    # about 1/6: at their usual 200 and 120 the lot is cut to half the records, and opacus'
    # RDP accountant took 11 s to find the noise at sampling rate 1/2
    write_credit(root, rng, n=2000)
    write_adult(root, rng, n=1600)
    parameters = {"paper_tasks": ["imdb"], "paper_epochs": 1, "paper_runs": 1,
                  "paper_tasks_1": ["credit", "adult"], "paper_epochs_1": 1}

    def after(folder: Path, claims: pd.DataFrame) -> None:
        import json

        read = json.loads((folder / "02-tvg.data.json").read_text())  # from the fetched folder
        assert read["ctg"]["sha256"] == REGISTRY["ctg"]["sha256"] and (root / "ctg").is_dir()
        claims = claims.set_index("claim_id")
        for cid in ("fig45-other-data", "fig3-other-data", "fig3-other-order"):
            assert claims.loc[cid, "verdict"] in ("holds", "fails", "inconclusive"), cid

    return parameters, after


#: The setup of each chapter whose smoke run needs one.
SETUPS = {"01-tldp": tldp_paper_networks, "02-tvg": tvg_from_fetched_ctg}
