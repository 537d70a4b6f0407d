"""HierA: hierarchical aggregation for numerical data under LDP (Hao, Wu & Wan, Sensors 2023).

One module per idea of the paper:

* :mod:`~ldp_companion.hiera.levels`: the levels ``D_1..D_k`` and budgets ``eps_1 > ... > eps_k``;
* :mod:`~ldp_companion.hiera.grr`: GRR for the level report;
* :mod:`~ldp_companion.hiera.graded_laplace`: the graded Laplace baseline (Sec. 3.1);
* :mod:`~ldp_companion.hiera.protocol`: LHP (Alg. 3) and PLC (Alg. 4);
* :mod:`~ldp_companion.hiera.aggregate`: HierA's pools and estimate (Alg. 5);
* :mod:`~ldp_companion.hiera.analysis`: variances, predicted MAE, expected estimates;
* :mod:`~ldp_companion.hiera.privacy`: exact log ratios against Theorem 2;
* :mod:`~ldp_companion.hiera.data`: synthetic data of Sec. 6;
* :mod:`~ldp_companion.hiera.sgd`: mini-batch SGD linear regression (Sec. 5);
* :mod:`~ldp_companion.hiera.experiments`: the experiment grids of Figs. 1-3 (Sec. 6);
* :mod:`~ldp_companion.hiera.reference`: the reconstructed reference values the chapter
  compares with;
* :mod:`~ldp_companion.hiera.mechanism_checks`, :mod:`~ldp_companion.hiera.unbiasedness`,
  :mod:`~ldp_companion.hiera.theorem2`, :mod:`~ldp_companion.hiera.reuse` and
  :mod:`~ldp_companion.hiera.comparison`: the chapter's checks, one module per section
  (tables computed, claims recorded in its ledger);
* :mod:`~ldp_companion.hiera.figures`: the chapter's figures;
* :mod:`~ldp_companion.hiera.params`: the chapter's parameters per profile;
* :mod:`~ldp_companion.hiera.mutants`: deliberate bugs the chapter's verdicts must catch.

Harmony (Alg. 1) is a registered scalar mechanism, shared with the other chapters:
:mod:`ldp_companion.mechanisms.harmony` (re-exported here).
"""
from ldp_companion.hiera.aggregate import (
    POOL_RULES,
    aggregate,
    aggregate_counts,
    block_top,
    estimate_mean,
    pool_plan,
    pool_sums,
    report_counts,
)
from ldp_companion.hiera.analysis import (
    METHODS,
    LevelSummary,
    expected_estimate,
    mean_user_variance,
    predicted_mae,
    reported_level_second_moment,
    summarize,
    uniform_summary,
    user_variance,
)
from ldp_companion.hiera.data import (
    scale_to_unit,
    truncated_exponential,
    truncated_gaussian,
    uniform,
)
from ldp_companion.hiera.graded_laplace import GradedLaplace
from ldp_companion.hiera.grr import grr, grr_matrix
from ldp_companion.hiera.levels import Levels, paper_levels
from ldp_companion.hiera.privacy import (
    PARTS,
    claimed_bound,
    composed_bound,
    joint_log_ratio,
    privacy_matrix,
)
from ldp_companion.hiera.protocol import (
    FLIP_RULES,
    lhp,
    plc,
    plc_counts,
    plc_keep_probability,
    report_probabilities,
)
from ldp_companion.hiera.sgd import (
    SGDResult,
    cross_val_mse,
    estimate_gradient,
    ldp_linreg,
    ols_beta,
)
from ldp_companion.mechanisms.harmony import Harmony, discretise, randomized_response

__all__ = [
    "Levels", "paper_levels", "grr", "grr_matrix", "Harmony", "discretise",
    "randomized_response", "GradedLaplace", "FLIP_RULES", "lhp", "report_probabilities",
    "plc", "plc_keep_probability", "plc_counts", "POOL_RULES", "block_top", "pool_plan",
    "report_counts", "pool_sums", "aggregate_counts", "aggregate", "estimate_mean", "METHODS",
    "LevelSummary", "summarize", "uniform_summary", "reported_level_second_moment",
    "user_variance", "mean_user_variance", "predicted_mae", "expected_estimate", "PARTS",
    "joint_log_ratio", "privacy_matrix", "claimed_bound", "composed_bound", "uniform",
    "truncated_gaussian", "truncated_exponential", "scale_to_unit", "SGDResult", "ldp_linreg",
    "estimate_gradient", "cross_val_mse", "ols_beta",
]
