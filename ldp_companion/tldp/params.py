"""Parameters of chapter 1 (Yuan, Tang, Huang & Wang, TLDP) per profile: the one source the
chapter's parameter table, the Rerun page and ``python -m ldp_companion params`` read."""
from ldp_companion.execution.profiles import (
    N_JOBS,
    OPTIONAL_COUNT,
    ChapterParams,
    Choice,
    Int,
    ListOf,
    MapOf,
    OneOf,
    every_profile,
)

__all__ = ["PARAMS"]

# ε grids of Figs. 1-3: the figures are images missing from the text we have, so the grids are
# ours; Types I/II reach below 1 and Type III "exceeds 100" in the paper's prose (Sec. V-C).
_EPS_12 = [0.1, 0.3, 1.0, 3.0, 10.0]
_EPS_3 = [1.0, 10.0, 30.0, 100.0, 300.0, 1000.0, 3000.0]
# The experiment types and data sets of the paper's networks (tldp.paper.TYPES, TASKS: this
# module imports no torch).
_TYPES = ("I", "II", "III")
_PAPER_TASKS = ("mnist", "cifar10", "svhn", "imdb", "darknet")


PARAMS = ChapterParams("01-tldp", {
    "eps_theory": ("nominal ε of the exact checks (p, Theorem 1's accounting, Table V)",
                   every_profile([0.1, 0.5, 1.0, 2.0, 10.0])),
    "n_window": ("draws per input of the one-entry window test (Theorem 1)",
                 {"smoke": 200_000, "default": 1_000_000, "paper": 1_000_000}),
    "n_loss": ("draws of the privacy-loss Monte Carlo on the MNIST extreme pair",
               {"smoke": 2_000, "default": 20_000, "paper": 20_000}),
    "n_attack": ("outputs per input of the distinguishing attack",
                 {"smoke": 4_000, "default": 20_000, "paper": 100_000}),
    "eps_attack": ("nominal ε of the attack and the empirical audits",
                   every_profile([0.1, 0.5, 1.0, 2.0])),
    "n_audit": ("outputs per input of each empirical audit (Appendix A's auditor)",
                {"smoke": 5_000, "default": 50_000, "paper": 1_000_000}),
    "n_error": ("noise tensors per Monte Carlo cell of Table V",
                {"smoke": 300, "default": 2_000, "paper": 10_000}),
    "eps_error": ("nominal ε of Table V", every_profile([0.5, 1.0, 2.0, 8.0])),
    "n_ks": ("tensors per side of Theorem 2's two-sample test", every_profile(500)),
    "tasks": ('data sets of Figs. 1–3 ("digits", "mnist": the MNIST test split)',
              every_profile(["digits", "mnist"])),
    "n_max": ("images used per data set (stratified; None: all)",
              {"smoke": 600, "default": 5_000, "paper": None}, OPTIONAL_COUNT),
    "epochs_1": ("training epochs of Fig. 1's model (paper: 10)",
                 {"smoke": 5, "default": {"digits": 20, "mnist": 10}, "paper": 20},
                 OneOf(Int(1), MapOf(("digits", "mnist"), Int(1)))),
    "epochs_2": ("training epochs of Fig. 2's linear head",
                 {"smoke": 5, "default": 10, "paper": 20}),
    "extractor_epochs": ("pretraining epochs of Fig. 2's feature extractor",
                         {"smoke": 10, "default": 40, "paper": 40}),
    "rounds": ("FedAvg rounds of Fig. 3 (one local epoch each)",
               {"smoke": 3, "default": 6, "paper": 20}),
    "eps_12": ("nominal ε of Figs. 1–2 (grid not stated in the paper)",
               {"smoke": [0.3, 3.0], "default": _EPS_12, "paper": [*_EPS_12, 30.0, 100.0]}),
    "eps_3": ("nominal ε of Fig. 3 (grid not stated in the paper)",
              {"smoke": [30.0, 1000.0], "default": _EPS_3, "paper": _EPS_3}),
    "runs": ("seeds per (mechanism, ε) in Figs. 1–3 (none stated in the paper)",
             {"smoke": 2, "default": 5, "paper": 10}),
    "n_jobs": ("worker processes of the experiment grids (None: every core)", every_profile(None),
               N_JOBS),
    "paper_types": ("experiment types run with the paper's own networks and data (Sec. V-A1)",
                    {"smoke": [], "default": [], "paper": list(_TYPES)},
                    ListOf(Choice(*_TYPES), nonempty=False, distinct=True)),
    "paper_tasks": ('their data sets ("mnist", "cifar10", "svhn"; Type III also "imdb", '
                    '"darknet")', every_profile(list(_PAPER_TASKS)),
                    ListOf(Choice(*_PAPER_TASKS), nonempty=False, distinct=True)),
    "paper_eps_12": ("nominal ε of the paper networks' Types I–II", every_profile(_EPS_12)),
    "paper_eps_3": ("nominal ε of the paper networks' Type III", every_profile(_EPS_3)),
    "paper_epochs": ("their epochs (Type III: rounds); None: the paper's 10 / 50 / 25",
                     every_profile(None),
                     OneOf(Choice(None), Int(1), MapOf(_PAPER_TASKS, Int(1)))),
    "paper_runs": ("seeds per cell of the paper networks' runs", every_profile(3)),
    "paper_n_max": ("training examples per data set in those runs (None: all)",
                    every_profile(None), OPTIONAL_COUNT),
}, requires=("torch",))
