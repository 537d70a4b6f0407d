"""Parameters of chapter 3 (Zhao et al. 2020) per profile: the one source the chapter's
parameter table, the README and ``python -m ldp_companion params`` read."""
from ldp_companion.profiles import ChapterParams, every_profile

__all__ = ["PARAMS"]

_EPS4 = [0.5, 1.0, 2.0, 4.0]  # the paper's ε grid of Sec. VII

PARAMS = ChapterParams("03-pm-three-outputs", {
    "eps_checks": ("ε values of the privacy and moment checks",
                   {"smoke": [0.5, 2.0], "default": _EPS4, "paper": _EPS4}),
    "n_mc": ("Monte Carlo samples per (mechanism, ε, x) cell",
             {"smoke": 20_000, "default": 1_000_000, "paper": 1_000_000}),
    "n_audit": ("samples per input of each empirical privacy audit",
                {"smoke": 20_000, "default": 1_000_000, "paper": 10_000_000}),
    "eps_dense": ("number of ε points of the closed-form figures (log-spaced on [0.05, 8])",
                  {"smoke": 80, "default": 600, "paper": 2000}),
    "pl_grid": ("points per axis of the Lemma 2–3 grid search",
                {"smoke": 41, "default": 241, "paper": 241}),
    "lp_grid": ("input grid of the LP over all three-output mechanisms",
                {"smoke": 41, "default": 201, "paper": 801}),
    "eps_grid": ("total ε per user in the experiments (Sec. VII)",
                 {"smoke": [0.5, 4.0], "default": _EPS4, "paper": _EPS4}),
    "data": ("data of Figs. 6 and 8–13: 'stand-ins' (offline) or 'paper' (the paper's files)",
             {"smoke": "stand-ins", "default": "stand-ins", "paper": "paper"}),
    "n_mean": ("users per mean-estimation data set (paper: the data set's size)",
               {"smoke": 5_000, "default": 100_000, "paper": 1_000_000}),
    "runs_mean": ("repetitions of each mean-estimation cell",
                  {"smoke": 3, "default": 10, "paper": 100}),
    "d_grid": ("attributes of the synthetic Gaussian data sets (Fig. 7; lost in the text)",
               {"smoke": [5, 20], "default": [5, 10, 20, 40], "paper": [5, 10, 20, 40]}),
    "eq36_points": ("number of per-attribute budgets ε1 of the Eq. (36) curve (on [0.5, 6])",
                    {"smoke": 120, "default": 300, "paper": 300}),
    "lemma13_n": ("users of the Lemma 13 error-rate check",
                  {"smoke": [1_000, 10_000], "default": [1_000, 10_000, 100_000],
                   "paper": [1_000, 10_000, 100_000]}),
    "lemma13_d": ("attributes of the Lemma 13 check (Gaussian data)",
                  {"smoke": [5, 20], "default": [5, 20], "paper": [5, 40]}),
    "lemma13_runs": ("repetitions of the Lemma 13 check per (n, d, mechanism, ε)",
                     {"smoke": 5, "default": 100, "paper": 100}),
    "outputs_grid": ("numbers of outputs 2m+1 of the discretization experiments",
                     {"smoke": [3, 11], "default": [3, 5, 7, 11, 21, 41],
                      "paper": [3, 5, 7, 11, 21, 41, 101]}),
    "disc_outputs": ("outputs 2m+1 of the discretized mechanisms in Figs. 11–13 (lost in the "
                     "text)", every_profile(11)),
    "n_erm": ("training vehicles of each LDP-FedSGD task (test set: a fifth of it)",
              {"smoke": 20_000, "default": 100_000, "paper": 1_000_000}),
    "d_erm": ("attributes of the synthetic LDP-FedSGD tasks (stand-ins)", {"smoke": 20, "default": 20, "paper": 20}),
    "duchi_md_max_d": ("largest d of the exact check of Duchi et al.'s d-dim. mechanism", {"smoke": 6, "default": 10, "paper": 10}),
    "erm_seeds": ("repetitions of each LDP-FedSGD cell (paper: 10-fold CV × 5)",
                  {"smoke": 1, "default": 3, "paper": 50}),
    "group_size": ("vehicles per group, one SGD step per group (Alg. 1; lost in the text)",
                   {"smoke": 1000, "default": 1000, "paper": 1000}),
    "eta0": ("step size: ηₜ is η0/√t (Alg. 1; lost in the text)",
             {"smoke": 1.0, "default": 1.0, "paper": 1.0}),
    "lam": ("L2 regularisation λ (lost in the text; Wang et al.'s value)",
            {"smoke": 1e-4, "default": 1e-4, "paper": 1e-4}),
    "n_jobs": ("worker processes of the experiment grids (None: every core)", every_profile(None)),
})
