"""Parameters of chapter 5 (Hao, Wu & Wan 2023) per profile: the one source the chapter's
parameter table, the Rerun page and ``python -m ldp_companion params`` read."""
from ldp_companion.execution.profiles import (
    N_JOBS,
    ChapterParams,
    Choice,
    Int,
    ListOf,
    MapOf,
    Number,
    every_profile,
)

__all__ = ["PARAMS"]

# Base ε of Figs. 1-2: the paper does not state its grid; this one spans its plotted range.
_EPS_GRID = [0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.5, 2.0]
_BASES = [0.1, 0.5, 1.0, 2.0]
# μ counts reports over the k = 5 levels of Sec. 6 (Table 1: μ in 1..k).
_MU = Int(1, 5)


PARAMS = ChapterParams("05-hiera", {
    "eps_theory": ("base ε of the exact checks (levels, GRR, PLC, Theorem 2)",
                   every_profile(_BASES)),
    "n_mc": ("draws per χ² test (PLC, LHP's output law) and per moment check",
             {"smoke": 200_000, "default": 2_000_000, "paper": 2_000_000}),
    "n_unbiased": ("users (uniform data) in the unbiasedness / variance Monte Carlo",
                   {"smoke": 2_000, "default": 20_000, "paper": 20_000}),
    "runs_unbiased": ("repetitions T of the unbiasedness / variance Monte Carlo",
                      {"smoke": 300, "default": 2_000, "paper": 3_000}),
    "eps_unbiased": ("base ε of the unbiasedness / variance Monte Carlo",
                     every_profile([0.5, 1.0])),
    "n_clip": ("users in the clipping-bias check (small pools)", every_profile(2_000)),
    "runs_clip": ("repetitions of the clipping-bias check",
                  {"smoke": 1_000, "default": 10_000, "paper": 10_000}),
    "n_audit": ("LHP outputs per input of each empirical audit of Theorem 2",
                {"smoke": 200_000, "default": 2_000_000, "paper": 10_000_000}),
    "eps_audit": ("base ε of the empirical audits",
                  {"smoke": [0.5, 1.0], "default": [0.5, 1.0, 2.0], "paper": [0.5, 1.0, 2.0]}),
    "eps_grid": ("base ε of Figs. 1–2 (the paper does not state its grid)",
                 {"smoke": [0.2, 1.0, 2.0], "default": _EPS_GRID, "paper": _EPS_GRID}),
    "n_synth": ("users per synthetic data set (Figs. 1–2; unstated in the paper)",
                {"smoke": 20_000, "default": 50_000, "paper": 1_000_000}),
    "n_real": ("users resampled from each real stand-in (Figs. 1–2; paper: US 1.52 M)",
               {"smoke": 20_000, "default": 50_000, "paper": 1_520_000}),
    "runs": ("repetitions T per (data set, ε) in Figs. 1–2 (paper: 100)",
             {"smoke": 10, "default": 100, "paper": 100}),
    "mu_list": ("data reuse counts μ of Fig. 1 (paper: 1..k)", every_profile([1, 2, 3, 4, 5]),
                ListOf(_MU, distinct=True)),
    "mu_compare": ("μ of HierA in Figs. 2–3 (paper: 2 in Fig. 2, unstated in Fig. 3)",
                   every_profile(2), _MU),
    "sgd_sizes": ("users per regression task of Fig. 3 (paper: US 1.52 M, BR 3.86 M)",
                  {"smoke": {"401ksubs": 3_000, "census2000": 5_000},
                   "default": {"401ksubs": 9_275, "census2000": 29_501},
                   "paper": {"401ksubs": 1_520_000, "census2000": 3_860_000}},
                  MapOf(("401ksubs", "census2000"), Int(1))),
    "sgd_eps": ("base ε of Fig. 3", {"smoke": [0.5, 2.0], "default": [0.5, 1.0, 2.0],
                                     "paper": [0.25, 0.5, 1.0, 2.0]}),
    "cv_folds": ("folds of the cross-validation (Fig. 3; Sec. 6.3: 5)", every_profile(5), Int(2)),
    "cv_repeats": ("repetitions of the cross-validation (Fig. 3; Sec. 6.3: 10)",
                   {"smoke": 1, "default": 2, "paper": 10}),
    "lr_schedule": ('SGD step size γₜ: "1/t" (Sec. 6.3) or "1/sqrt(t)"', every_profile("1/t"),
                    Choice("1/t", "1/sqrt(t)")),
    "lr0": ("first step size γ₁ (unstated in the paper)", every_profile(1.0)),
    "lam": ("ridge coefficient λ (Sec. 6.3)", every_profile(1e-4), Number(0.0, closed=True)),
    "multidim": ("how a (d+1)-vector gradient is reported (unstated in the paper)",
                 every_profile("sample_one"), Choice("sample_one", "all_full", "split")),
    "bias_level": ("level of the gradient's bias component (unstated in the paper)",
                   every_profile("target"), Choice("target", "max_protection")),
    "n_jobs": ("worker processes of the experiment grids (None: every core)", every_profile(None),
               N_JOBS),
})
