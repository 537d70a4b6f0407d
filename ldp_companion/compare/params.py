"""Parameters of appendix C (the mechanisms on one scale) per profile. It needs the ``torch``
extra: chapter 4's DP-SGD baseline is calibrated by Opacus."""
from ldp_companion.execution.profiles import ChapterParams, Number, every_profile

__all__ = ["PARAMS"]

PARAMS = ChapterParams("C-compare", {
    "eps_table": ("claimed ε of the true-ε table", {"smoke": [1.0], "default": [0.5, 1.0, 2.0],
                                                    "paper": [0.5, 1.0, 2.0]}),
    "n_audit": ("outputs per input of each black-box audit of a scalar mechanism",
                {"smoke": 50_000, "default": 100_000, "paper": 2_000_000}),
    "n_tensor": ("outputs per input of each black-box audit of a tensor mechanism",
                 {"smoke": 2_000, "default": 5_000, "paper": 100_000}),
    "coverage_k": ("audits of each mechanism of known ε in the auditor's coverage test",
                   {"smoke": 20, "default": 100, "paper": 200}),
    "coverage_n": ("outputs per input of each audit of the auditor's coverage test",
                   {"smoke": 1_000, "default": 2_000, "paper": 10_000}),
    "tensor_shape": ("tensor shape of the tensor mechanisms (MNIST, TLDP Sec. V and TVG Sec. VIII;"
                     " smoke: a quarter of it, since an audit fits each entry)",
                     {"smoke": [14, 14], "default": [28, 28], "paper": [28, 28]}),
    "value_range": ("range Δ of a tensor entry (8-bit pixels, TLDP Table I)", every_profile(256.0)),
    "delta": ("δ of the (ε, δ) mechanisms (TVG's figures: 10⁻⁵)", every_profile(1e-5),
              Number(0.0, 1.0)),
    "eps_true": ("true ε grid of the utility comparison and the decision map",
                 {"smoke": [0.5, 1.0, 2.0, 4.0],
                  "default": [0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0],
                  "paper": [0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0]}),
    "x_grid": ("points of the input grid on [-1, 1] for the worst-case and uniform errors",
               {"smoke": 101, "default": 2001, "paper": 2001}),
    "tie": ("relative error gap under which two mechanisms tie in the decision map",
            every_profile(0.01)),
    "f1_runs": ("runs per (mechanism, true ε) of the downstream task (chapter 1's digits)",
                {"smoke": 2, "default": 5, "paper": 10}),
    "f1_epochs": ("training epochs of the downstream task (chapter 1's digits: 20)",
                  {"smoke": 5, "default": 20, "paper": 20}),
    "f1_level": ("family-wise confidence of the F1 decisions (t-tests, Bonferroni)",
                 every_profile(0.95), Number(0.5, 1.0)),
}, requires=("torch",))
