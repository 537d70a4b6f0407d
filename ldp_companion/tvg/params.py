"""Parameters of chapter 2 (Yang et al., TVG) per profile: the one source the chapter's
parameter table, the Rerun page and ``python -m ldp_companion params`` read."""
from ldp_companion.execution.profiles import (
    N_JOBS,
    ChapterParams,
    Choice,
    Int,
    ListOf,
    MapOf,
    Number,
    OneOf,
    every_profile,
)

__all__ = ["PARAMS"]

# ε grids of Figs. 3–5: the figures are images missing from the text we have, so the grids are
# ours. The paper's prose speaks of "ε small" and "ε ≥ 1"; with its sensitivities every
# mechanism sits at chance until ε ≈ 10⁴ on MNIST-sized tensors, so the grids reach 10⁷.
_EPS_3 = [1.0, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7]
_EPS_2 = [1e2, 1e4, 1e5, 1e6, 1e7]
_EPS_1 = [0.5, 2.0, 8.0, 32.0, 128.0]
_EPS_CTG = [0.1, 1.0, 10.0, 100.0, 1000.0]
# The data sets of the paper's networks (tvg.paper.TASKS, tvg.paper_sgd.TASKS: this module
# imports no torch) and what their knobs accept.
_TASKS = ("cifar10", "svhn", "imdb")
_TASKS_1 = ("mnist", "credit", "adult")


def _per_task(tasks: tuple, kind):
    """None (the paper's value per data set), one value, or a dict data set -> value."""
    return OneOf(Choice(None), kind, MapOf(tasks, kind))


PARAMS = ChapterParams("02-tvg", {
    "n_mc": ("draws of the Monte Carlo checks of Def. 8 and Eq. 23 (n_mc/800 tensors in the "
             "releases' noise check)",
             {"smoke": 20_000, "default": 100_000, "paper": 200_000}),
    "n_lemma2": ("random shapes and factors of the Lemma 2 check",
                 {"smoke": 200, "default": 2_000, "paper": 2_000}),
    "n_alg1": ("random workloads W of the Alg. 1 checks (IDN ≤ UDN, SLSQP)",
               {"smoke": 100, "default": 2_000, "paper": 2_000}),
    "delta": ("δ of every (ε, δ) statement (all the paper's figures: 10⁻⁵)",
              every_profile(1e-5), Number(0.0, 1.0)),
    "eps_ctg": ("ε of the CTG covariance panel (Fig. 5)", every_profile(_EPS_CTG)),
    "ctg_runs": ("noise draws per (mechanism, ε) of the CTG panel",
                 {"smoke": 4, "default": 20, "paper": 50}),
    "eps_3": ("ε of Fig. 5's MNIST panel (Type III, private test features)",
              {"smoke": [1e2, 1e6], "default": _EPS_3, "paper": _EPS_3}),
    "eps_2": ("ε of Fig. 4's MNIST panel (Type II, private training features)",
              {"smoke": [1e4, 1e6], "default": _EPS_2, "paper": _EPS_2}),
    "eps_1": ("total ε of Fig. 3's private SGD (Type I)",
              {"smoke": [2.0, 32.0], "default": _EPS_1, "paper": _EPS_1}),
    "runs": ("seeds per (mechanism, ε) in Figs. 3–5 (the paper does not say)",
             {"smoke": 2, "default": 5, "paper": 10}),
    "n_train_3": ("MNIST test-split images that train Type III's LeNet-5",
                  {"smoke": 1_500, "default": 8_000, "paper": 8_000}),
    "n_test_3": ("private test images released in Type III",
                 {"smoke": 512, "default": 2_000, "paper": 2_000}),
    "epochs_3": ("training epochs of Type III's LeNet-5", {"smoke": 1, "default": 2, "paper": 5}),
    "n_public_2": ("public images that train Type II's feature extractor",
                   {"smoke": 1_000, "default": 4_000, "paper": 4_000}),
    "n_private_2": ("private training images whose features Type II releases",
                    {"smoke": 768, "default": 4_000, "paper": 4_000}),
    "head_epochs_2": ("training epochs of Type II's head on the noisy features",
                      {"smoke": 2, "default": 3, "paper": 10}),
    "clip_1": ("ℓ∞ clip C of Type I's per-example gradients (Table II: 10⁻⁴, 0.1, 1)",
               every_profile(1.0)),
    "lot_1": ("expected lot size of Type I's Poisson sampling (Table II: 128–256)",
              every_profile(64)),
    "epochs_1": ("epochs of Type I's private SGD (the paper does not say)",
                 {"smoke": 5, "default": 30, "paper": 30}),
    "n_jobs": ("worker processes of the experiment grids (None: every core)", every_profile(None),
               N_JOBS),
    "paper_tasks": ('data sets of Figs. 4–5 run with the paper\'s networks ("cifar10": '
                    'VGG-16, "svhn": AlexNet, "imdb": BiLSTM; need their files)',
                    {"smoke": [], "default": [], "paper": list(_TASKS)},
                    ListOf(Choice(*_TASKS), nonempty=False, distinct=True)),
    "paper_epochs": ("training epochs of those networks (None: 20, 20, 10)", every_profile(None),
                     _per_task(_TASKS, Int(1))),
    "paper_runs": ("seeds per (mechanism, ε) of the paper networks' runs (Figs. 3–5)",
                   every_profile(3)),
    "paper_n_max": ("records per part (public, private, test; train, test in Fig. 3) in "
                    "those runs (None: all)",
                    every_profile(None), OneOf(Choice(None), Int(4))),  # Type I: lots of ≥ 2
    "paper_tasks_1": ('data sets of Fig. 3 run with the paper\'s Type I setup (Table II; '
                      '"mnist": conv32–conv64–fc512, "credit": FCN, "adult": MLP; need '
                      'their files)', {"smoke": [], "default": [],
                                       "paper": list(_TASKS_1)},
                      ListOf(Choice(*_TASKS_1), nonempty=False, distinct=True)),
    "paper_epochs_1": ("training epochs of those runs (None: 10, 5, 20)", every_profile(None),
                       _per_task(_TASKS_1, Int(1))),
    "paper_lr_1": ("SGD step sizes of those runs (None: 30, 1, 0.1)", every_profile(None),
                   _per_task(_TASKS_1, Number(0.0))),
    "mnist_images": ('MNIST images of Types II–III: "test" (the test split, offline; sizes '
                     'above) or "all" (70,000, the paper\'s 60,000 / 10,000 split; needs '
                     'the training images)', {"smoke": "test", "default": "test",
                                               "paper": "all"}),
}, requires=("torch",))
