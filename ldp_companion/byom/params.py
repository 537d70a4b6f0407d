"""Parameters of appendix B (Bring your own mechanism) per profile."""
from ldp_companion.execution.profiles import N_JOBS, ChapterParams, every_profile

__all__ = ["PARAMS"]

_EPS4 = [0.5, 1.0, 2.0, 4.0]

PARAMS = ChapterParams("B-mechanism", {
    "eps_checks": ("ε values of the audits and moment checks",
                   {"smoke": [0.5, 2.0], "default": _EPS4, "paper": _EPS4}),
    "n_audit": ("samples per input of each empirical audit",
                {"smoke": 20_000, "default": 1_000_000, "paper": 1_000_000}),
    "n_mc": ("Monte Carlo samples per (ε, x) cell of the moment check",
             {"smoke": 20_000, "default": 1_000_000, "paper": 1_000_000}),
    "n_mean": ("users of the mean-estimation grid",
               {"smoke": 5_000, "default": 100_000, "paper": 100_000}),
    "runs_mean": ("repetitions of each mean-estimation cell",
                  {"smoke": 3, "default": 200, "paper": 200}),
    "n_jobs": ("worker processes of the mean-estimation grid (None: every core)",
               every_profile(None), N_JOBS),
})
