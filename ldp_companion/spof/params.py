"""Parameters of chapter 4 (Habib, Chou & Kim, SPOF) per profile: the one source the
chapter's parameter table, the Rerun page and ``python -m ldp_companion params`` read."""
from ldp_companion.execution.profiles import (
    N_JOBS,
    ChapterParams,
    Choice,
    Number,
    OneOf,
    Text,
    every_profile,
)

__all__ = ["PARAMS"]

# ε grid: the paper's text gives none; the authors' final figure scripts use these five.
_EPS = [0.01, 0.1, 1.0, 10.0, 20.0]
# Fig. 2's sweep: c from 0 to 2.5 (Sec. VIII: "we vary c_{j,i} from 0 to 2.5").
_C = [0.0, 0.625, 1.25, 1.875, 2.5]

PARAMS = ChapterParams("04-spof", {
    "source": ("the table: 'fitbit' (the real 2016-03-12 export) or 'synthetic' (a copula "
               "fitted to it, for readers without the file)", every_profile("fitbit"),
               Choice("fitbit", "synthetic")),
    "expand": ("copies of each row in the training table (the authors: ×80, 36 480 rows)",
               {"smoke": 1, "default": 20, "paper": 80}),
    "runs": ("Monte Carlo runs per (method, condition, ε) (the paper: 100)",
             {"smoke": 2, "default": 10, "paper": 100}),
    "eps_grid": ("ε of Fig. 3 (the paper gives none; the authors' scripts use these)",
                 {"smoke": [0.1, 20.0], "default": _EPS, "paper": _EPS}),
    "conditions": ("Fig. 3's input conditions: without and with environmental noise",
                   every_profile(["noiseless", "noisy"])),
    "c_grid": ("stabilization constants c of Fig. 2", {"smoke": [0.0, 2.5], "default": _C,
                                                        "paper": _C}),
    "eps_fig2": ("ε of Fig. 2 (the authors' file: 10)", every_profile(10.0)),
    "runs_fig2": ("runs per c in Fig. 2 (the authors' file: 10)",
                  {"smoke": 2, "default": 10, "paper": 10}),
    "c": ("stabilization constant c of Fig. 3 (Sec. VIII: 2.5)", every_profile(2.5),
          Number(0.0, closed=True)),
    "users": ("users m (Sec. VIII: 2)", every_profile(2)),
    "code": ("code units l (compression l/n is 0.5)", every_profile(7)),
    "clip": ("clipping norm C of DP-SGD (Sec. VIII: 4)", every_profile(4.0)),
    "sigma_env": ("σ of the environmental noise (Sec. VIII: 5)", every_profile(5.0)),
    "delta": ("δ of the parameter-space DP-SGD (the paper's ε is pure)", every_profile(1e-5),
              Number(0.0, 1.0)),
    "lr": ("Adam's learning rate (the paper gives none; the authors' code: 10⁻³)",
           every_profile(1e-3)),
    "epochs": ("passes over the training rows (the authors' final code: 1)", every_profile(1)),
    "timing_repeats": ("repeats of the time-per-epoch measurement",
                       {"smoke": 1, "default": 2, "paper": 5}),
    "n_mc": ("draws of the Monte Carlo checks (Prop. 4, the privacy audit)",
             {"smoke": 20_000, "default": 200_000, "paper": 1_000_000}),
    "device": ("torch device (None: CUDA when present). The CPU by default: a training step "
               "is about 200 operator calls on tensors of a few hundred numbers (batch size 1), "
               "which a GPU runs slower than one CPU core",
               every_profile("cpu"),
               OneOf(Choice(None, "cpu", "cuda"), Text(r"cuda:\d+", '"cuda:N"'))),
    "n_jobs": ("worker processes of the experiment grids (None: every core)",
               every_profile(None), N_JOBS),
}, requires=("torch",), data_size=("expand",))
