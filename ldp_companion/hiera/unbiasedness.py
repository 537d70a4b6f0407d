"""Theorem 3 (HierA's estimate is unbiased) checked by Monte Carlo, with the variance derived
in :mod:`~ldp_companion.hiera.analysis`, the broken variants (no compensation copies, the
printed flip rule of Sec. 4.2) and the clipping of Alg. 5 step 6.

:func:`unbiasedness_grid` and :func:`clipping_grid` run the Monte Carlo; the ``record_*``
functions record the chapter's claims from their tables.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ldp_companion.auditing.montecarlo import paired_differences
from ldp_companion.hiera import reference as ref
from ldp_companion.hiera.analysis import expected_estimate, uniform_summary
from ldp_companion.hiera.data import truncated_gaussian, uniform
from ldp_companion.hiera.experiments import HierAConfig, mae_table, mean_grid, predicted_grid
from ldp_companion.hiera.levels import paper_levels
from ldp_companion.hiera.mechanism_checks import RULES
from ldp_companion.verdicts.paired import within_margin

__all__ = ["Z_MAX", "BIAS_SHARE", "SHOWN", "LABELS", "FORMATS", "unbiased_configs",
           "broken_configs", "unbiasedness_grid", "record_unbiasedness", "no_compensation_limits",
           "record_compensation", "clipping_grid", "record_clipping"]

Z_MAX = 4.0        # |z| bound of the Monte Carlo checks (two-sided tail 6e-5 per check)
BIAS_SHARE = 0.01  # a bias under 1 % of the sd changes the MSE by under 0.01 %
#: Columns of :func:`unbiasedness_grid`'s table that the chapter shows, their display
#: names (baselines included) and number formats.
SHOWN = ["bias", "bias_se", "z", "limit_bias", "var MC / formula"]
LABELS = {"epsilon": "base ε", "config": "aggregation", "bias_se": "s.e.",
          "limit_bias": "limit", "var MC / formula": "var ratio", "harmony": "Harmony",
          "pm": "PM", "graded_laplace": "graded Laplace"}
FORMATS = {"bias": "{:+.5f}", "s.e.": "{:.5f}", "z": "{:+.2f}", "limit": "{:+.4f}",
           "var ratio": "{:.3f}", "MSE": "{:.4g}"}


def unbiased_configs(mu_list) -> list[HierAConfig]:
    """Alg. 5 as Theorem 3 states it (compensation, correct flip rule, no clipping), both
    pool rules and every μ."""
    return [HierAConfig(mu, rule, clip=False) for rule in RULES for mu in mu_list]


def broken_configs(mu_list, mu_compare: int) -> list[HierAConfig]:
    """The variants Theorem 3 does not cover: no compensation (each μ > 1) and the printed
    flip rule (at ``mu_compare``)."""
    return [HierAConfig(mu, "paper", clip=False, compensation=False) for mu in mu_list
            if mu > 1] + [HierAConfig(mu_compare, "paper", clip=False, flip_rule="paper")]


def unbiasedness_grid(n: int, bases, runs: int, seed: int, rng: np.random.Generator, *,
                      configs, n_jobs=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Monte Carlo of HierA's unclipped estimate on ``n`` uniform users (drawn from ``rng``).

    Returns the run-by-run grid (:func:`~ldp_companion.hiera.experiments.mean_grid`) and one
    row per (base ε, configuration): bias, its s.e., ``z``, the large-n ``limit_bias``, the
    formula's ``variance`` and the ratio ``var MC / formula``.
    """
    v = {"uniform": uniform(n, rng)}
    grid = mean_grid(v, bases, runs, seed, configs=configs, n_jobs=n_jobs)
    pred = predicted_grid(v, bases, configs=configs)
    tab = mae_table(grid).merge(pred[["epsilon", "config", "variance", "limit_bias"]],
                                on=["epsilon", "config"])
    tab["z"] = tab["bias"] / tab["bias_se"]
    tab["var MC / formula"] = tab["var"] / tab["variance"]
    return grid, tab


def record_unbiasedness(ledger, tab: pd.DataFrame, good, mu_list, bases, n: int,
                        runs: int) -> None:
    """Claims ``thm3-unbiased`` (the ``good`` rows) and ``variance-formula`` (the good rows
    and the baselines) from :func:`unbiasedness_grid`'s table."""
    sec = "hiera-check-unbiased"
    ledger.compare(
        "thm3-unbiased",
        f"Theorem 3: HierA's estimate is unbiased (no clipping; μ = {mu_list}, both"
        f" pool rules, base {bases}; n = {n:,}, T = {runs:,}, |z| < {Z_MAX:g})",
        tab.loc[good, "z"].abs(), "<", Z_MAX, names=("|z| of the bias", "z bound"),
        ours=f"max |z| = {tab.loc[good, 'z'].abs().max():.2f}", section=sec)
    valid = good | ~tab["method"].eq("hiera")
    band = Z_MAX * np.sqrt(2 / (runs - 1))
    ratio = tab.loc[valid, "var MC / formula"]
    ledger.compare(
        "variance-formula",
        "The variance formulas (HierA both rules, Harmony, PM, graded "
        f"Laplace) match the Monte Carlo (|ratio − 1| < {band:.3f})",
        (ratio - 1).abs(), "<", band, names=("|var MC / formula − 1|", "band"),
        ours=f"ratios in [{ratio.min():.3f}, {ratio.max():.3f}]", section=sec)


def no_compensation_limits() -> pd.DataFrame:
    """Large-n bias without the compensation copies (paper rule, uniform data) at the
    (base ε, μ) of :data:`reference.NO_COMPENSATION`, with the reconstructed values."""
    ours = []
    for b, mu in ref.NO_COMPENSATION:
        L = paper_levels(b)
        U = uniform_summary(L)
        ours.append(expected_estimate(U, L, mu, compensation=False) - U.mean)
    return pd.DataFrame({"reconstructed": list(ref.NO_COMPENSATION.values()), "ours": ours},
                        index=pd.MultiIndex.from_tuples(list(ref.NO_COMPENSATION),
                                                        names=["base ε", "μ"]))


def record_compensation(ledger, limits: pd.DataFrame, grid: pd.DataFrame, tab: pd.DataFrame,
                        good, broken) -> None:
    """Claims ``compensation-bias``, ``compensation-needed`` and ``compensation-limit-mc``:
    without the compensation copies (Alg. 5 step 5) the estimate is biased, run by run,
    towards its large-n limit; the broken variants' bias matches that limit."""
    sec = "hiera-check-unbiased"
    ledger.close("compensation-bias",
                 "Bias without the compensation copies (paper rule, uniform data, large n)",
                 paper=limits["reconstructed"].tolist(), ours=limits["ours"].tolist(),
                 atol=5e-4, section=sec)
    nc = tab[~good & tab["method"].eq("hiera")]
    no_comp = [c.label for c in broken if not c.compensation]
    runs = grid[grid["config"].isin(no_comp)].pivot_table(
        index=["config", "epsilon"], columns="run", values="error")
    towards = np.sign(nc.set_index(["config", "epsilon"])["limit_bias"])
    ledger.difference(
        "compensation-needed",
        "Alg. 5: the compensation copies are needed for unbiasedness (without them the "
        "estimate is biased, run by run in the direction of its large-n limit)",
        runs.to_numpy() * towards.loc[runs.index].to_numpy()[:, None],
        note="; ".join(f"{r.config} at base {r.epsilon:g}: {r.bias:+.4f}"
                       for r in nc.itertuples() if r.config in no_comp),
        section=sec)
    ledger.compare(
        "compensation-limit-mc",
        "The broken variants' Monte Carlo bias (no compensation; printed flip rule)"
        f" matches its large-n limit (|bias − limit| < {Z_MAX:g} standard errors)",
        (nc["bias"] - nc["limit_bias"]).abs() / nc["bias_se"], "<", Z_MAX,
        names=("|bias − limit| / s.e.", "z bound"), section=sec)


def clipping_grid(n: int, base: float, runs: int, seed: int, rng: np.random.Generator, *,
                  mu: int, n_jobs=None) -> tuple[pd.DataFrame, np.ndarray, float]:
    """Clipped and unclipped HierA (Alg. 5 step 6) on the same reports of ``n`` truncated
    Gaussian users (drawn from ``rng``), ``runs`` times.

    Returns the table (bias, s.e., ``z``, MSE per configuration), the run-by-run shift of
    the clipped estimate from the unclipped one (whose mean is the clipping's bias: the
    unclipped estimate is exactly unbiased, Thm 3) and the unclipped estimator's sd.
    """
    configs = [HierAConfig(mu, "paper", clip=c) for c in (True, False)]
    v = {"Gaussian": truncated_gaussian(n, rng)}
    grid = mean_grid(v, [base], runs, seed, configs=configs, baselines=(), n_jobs=n_jobs)
    tab = mae_table(grid)
    tab["z"] = tab["bias"] / tab["bias_se"]
    tab["MSE"] = tab["var"] + tab["bias"] ** 2
    shift = paired_differences(
        grid.pivot_table(index=["dataset", "epsilon", "run"], columns="config",
                         values="error"),
        ["dataset", "epsilon"], configs[0].label, configs[1].label)
    pred = predicted_grid(v, [base], configs=configs[1:], baselines=())
    return tab, shift, float(np.sqrt(pred.loc[0, "variance"]))


def record_clipping(ledger, shift, sd: float, *, n: int, base: float, runs: int) -> None:
    """Claim ``thm3-clipping``: the clipping moves the estimate by less than
    :data:`BIAS_SHARE` of its sd (an equivalence test on the paired shifts)."""
    ledger.difference(
        "thm3-clipping",
        "Theorem 3 for Alg. 5 as written, with the clipping of step 6: unbiased, i.e. the"
        f" clipping moves the estimate by less than {BIAS_SHARE:.0%} of its standard"
        f" deviation (n = {n:,}, base {base:g}, T = {runs:,}; paired"
        " with the unclipped aggregation of the same reports)",
        within_margin(shift, BIAS_SHARE * sd),
        note=(f"mean shift {shift.mean():+.4f} against a margin of {BIAS_SHARE * sd:.4f}; "
              "the proof ignores the clipping"),
        section="hiera-check-unbiased")
