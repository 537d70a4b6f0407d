"""Parameters of appendix A (How we audit privacy) per profile."""
from ldp_companion.execution.profiles import ChapterParams

__all__ = ["PARAMS"]

PARAMS = ChapterParams("A-audit", {
    "n_audit": ("samples per input of each empirical audit",
                {"smoke": 20_000, "default": 1_000_000, "paper": 1_000_000}),
    "eps_grid": ("claimed ε values audited", {"smoke": [0.5, 2.0], "default": [0.5, 1.0, 2.0],
                                              "paper": [0.25, 0.5, 1.0, 2.0, 4.0]}),
    "n_tensor": ("samples per input of the 28×28 tensor audit",
                 {"smoke": 2_000, "default": 20_000, "paper": 20_000}),
})
