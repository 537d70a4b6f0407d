"""The experiments' settings of Yang et al. 2021 (TVG, Tables II–III) next to chapter 2's: which
MNIST images a run uses, the paper's setup against ours, Table II's setup for the paper's own
networks, and how much of MNIST's per-example gradient the paper's clip changes.
"""
from __future__ import annotations

import pandas as pd
import torch

from ldp_companion.data import paper_assets
from ldp_companion.data.datasets import load_mnist_test
from ldp_companion.neural.training import as_tensor
from ldp_companion.page.plotting import tick_text
from ldp_companion.page.tables import show_table
from ldp_companion.tvg import paper_sgd
from ldp_companion.tvg.experiments import PAPER_MNIST_SIZES

__all__ = ["MNIST_NAMES", "mnist_setup", "grid_options", "settings_table", "clipped_share",
           "clipped_share_view", "table2_setup", "table2_view"]

#: What each value of the ``mnist_images`` parameter uses.
MNIST_NAMES = {"test": "MNIST test split", "all": "MNIST, all 70,000 images"}
_N_TEST_2 = 2000          # Type II's clean test images (MNIST test split)
_PROBE = 128              # test images of the clipping probe
_LAYER_NAMES = {"0": "conv 32", "3": "conv 64", "7": "fc 512", "9": "fc 10"}


def mnist_setup(cfg) -> tuple[str, dict, str | None]:
    """Which MNIST images Types II–III use, and how many per part.

    ``cfg.mnist_images == "all"`` takes the paper's split of all 70,000 images when MNIST's
    training images are in the data folder; otherwise the offline test split with the sizes
    of the parameters cell.

    Returns
    -------
    (str, dict, str or None)
        ``"test"`` or ``"all"``; the sizes (``n_train_3``, ``n_test_3``, ``n_public_2``,
        ``n_private_2``, ``n_test_2``); a message when ``"all"`` was asked for and the files
        are missing.
    """
    mnist, message = cfg.mnist_images, None
    if mnist == "all" and paper_assets.missing("mnist"):
        message = ("The paper's MNIST split is skipped. "
                   + paper_assets.missing_message("mnist"))
        mnist = "test"
    if mnist == "all":
        return mnist, dict(PAPER_MNIST_SIZES), message
    sizes = {k: getattr(cfg, k) for k in ("n_train_3", "n_test_3", "n_public_2",
                                           "n_private_2")}
    return mnist, {**sizes, "n_test_2": _N_TEST_2}, message


def grid_options(cfg, mnist: str, sizes: dict, kind: str | None = None) -> dict:
    """The keyword arguments of each experiment type's grid (``"I"``:
    :func:`~ldp_companion.tvg.experiments.type1_grid`, ``"II"``, ``"III"``) beyond its
    mechanisms, ε grid, runs and seed: the sizes of :func:`mnist_setup`, the run's epochs,
    clip, lot and worker processes; only ``kind``'s when given (the cell that runs the grid
    then reads its parameters itself, which the timing records see)."""
    options = {  # each read only when asked for: a timing record charges a cell what it reads
        "I": lambda: {"clip": cfg.clip_1, "lot": cfg.lot_1, "epochs": cfg.epochs_1,
                      "n_jobs": cfg.n_jobs},
        "II": lambda: {"n_public": sizes["n_public_2"], "n_private": sizes["n_private_2"],
                       "n_test": sizes["n_test_2"], "head_epochs": cfg.head_epochs_2,
                       "mnist": mnist, "n_jobs": cfg.n_jobs},
        "III": lambda: {"n_train": sizes["n_train_3"], "n_test": sizes["n_test_3"],
                        "epochs": cfg.epochs_3, "mnist": mnist, "n_jobs": cfg.n_jobs},
    }
    if kind is not None:
        return options[kind]()
    return {k: make() for k, make in options.items()}


def settings_table(cfg, mnist: str, sizes: dict) -> pd.DataFrame:
    """Tables II–III's setup next to this run's, one row per experiment type."""
    name = MNIST_NAMES[mnist]
    return pd.DataFrame({
        "paper (Tables II–III)": [
            "MNIST / Credit / Adult; LeNet, FCN, MLP; lot 128–256; ℓ∞ clip 10⁻⁴, 0.1, 1",
            "MNIST, CIFAR-10, SVHN, IMDB; LeNet, VGG-16, AlexNet, BiLSTM; batches of 256",
            "the same four, features of the last conv layer; CTG covariance (2126 records)",
        ],
        "this chapter": [
            ("breast cancer (569 records, AUC as for Credit); MLP 30→12→1; lot"
             f" {cfg.lot_1}; ℓ∞ clip {cfg.clip_1:g}; {cfg.epochs_1} epochs"),
            (f"{name}: LeNet-5 (tanh) extractor on {sizes['n_public_2']:,} public images,"
             f" features of {sizes['n_private_2']:,} private images in batches of 256"),
            (f"{name}: LeNet-5 trained on {sizes['n_train_3']:,} images,"
             f" {sizes['n_test_3']:,} test images released; the real CTG table (2126 × 21)"),
        ],
    }, index=["Type I (Fig. 3)", "Type II (Fig. 4)", "Type III (Fig. 5)"])


def clipped_share(seed: int, n: int = _PROBE) -> pd.DataFrame:
    """Share of each parameter's per-example gradient entries that Table II's MNIST clip
    (10⁻⁴) changes, for the conv32–conv64–fc512 network at initialisation and ``n`` MNIST
    test images: one row, a column per parameter."""
    images, digits = load_mnist_test()
    probe = paper_sgd.conv_lenet(torch.Generator().manual_seed(int(seed)), "cpu")
    share = paper_sgd.clipped_fraction(
        probe, as_tensor(images[:n, None] * 2 - 1, "cpu"),
        as_tensor(digits[:n], "cpu", torch.long), paper_sgd.SETUP["mnist"]["clip"])
    name = {k: _LAYER_NAMES[k.split(".")[0]] + " " + k.split(".")[1] for k in share}
    return pd.Series(share, name="share of entries clipped").rename(name).to_frame().T


def clipped_share_view(seed: int, n: int = _PROBE):
    """:func:`clipped_share` for the page, with its caption."""
    return show_table(
        clipped_share(seed, n),
        f"MNIST network at initialisation, {n} test images: share of each parameter's"
        f" per-example gradient entries that the clip of"
        f" {tick_text(paper_sgd.SETUP['mnist']['clip'])} changes", formats="{:.1%}")


def table2_setup() -> pd.DataFrame:
    """Table II's setup as built here (network, largest gradient, sizes, batch, lot, clip)
    and how many files of each data set are missing from the data folder."""
    return pd.DataFrame({
        "network": paper_sgd.MODELS,
        "largest gradient": {t: "{} × {}".format(*s)
                             for t, s in paper_sgd.GRADIENT_SHAPES.items()},
        "train / test": {t: "{:,} / {:,}".format(*n) for t, n in paper_sgd.SIZES.items()},
        **{k: {t: v[k] for t, v in paper_sgd.SETUP.items()} for k in ("batch", "lot", "clip")},
        "files missing": {t: len(paper_assets.missing(t).get(t, [])) for t in paper_sgd.TASKS},
    }).rename(index=paper_sgd.TASK_LABELS)


def table2_view():
    """:func:`table2_setup` for the page, with its caption."""
    return show_table(
        table2_setup(),
        "Table II's setup as built here, and the files of each panel in the data folder",
        formats={"clip": "{:g}"})
