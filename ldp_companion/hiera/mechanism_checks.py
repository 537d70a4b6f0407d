"""Chapter 5's checks of the mechanisms themselves: the levels and GRR (Sec. 3), the pools of
Alg. 5, PLC (Sec. 4.2, Alg. 4), LHP's output law (Alg. 3) and the baselines' samplers.

Each check has a function that computes its table and a ``record_*`` function that records
its claims in the chapter's ledger (statements and references with them).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from ldp_companion.auditing.montecarlo import moment_check
from ldp_companion.hiera import reference as ref
from ldp_companion.hiera.aggregate import pool_plan, report_counts
from ldp_companion.hiera.grr import grr_matrix
from ldp_companion.hiera.levels import paper_levels
from ldp_companion.hiera.protocol import (
    FLIP_RULES,
    lhp,
    plc,
    plc_keep_probability,
    report_probabilities,
)
from ldp_companion.mechanisms import get_mechanism
from ldp_companion.mechanisms.harmony import randomized_response
from ldp_companion.page.plotting import label

__all__ = ["K", "RULES", "P_MIN", "MOMENT_LABELS", "levels_table", "record_levels", "pool_plans",
           "pool_table", "record_pools", "plc_table", "record_plc", "plc_sampling",
           "record_plc_sampling", "lhp_law", "record_lhp_law", "baseline_moments",
           "record_baseline_moments"]

K = 5                      # number of levels (Sec. 6)
RULES = ("paper", "block")  # pool rules of Alg. 5: as resolved from the text, the prototype's
P_MIN = 0.01               # acceptance level of the χ² tests
#: Columns of :func:`baseline_moments` that the chapter shows, with their display names.
MOMENT_LABELS = {"mean": "mean", "var": "variance", "var_closed_form": "closed form",
                 "reconstructed": "reconstructed", "z": "z (mean)", "z_var": "z (variance)"}


def levels_table(bases=tuple(ref.P)) -> pd.DataFrame:
    """Intervals, budgets, ``p_t``, ``c_t`` and GRR probabilities of the Sec. 6 levels.

    Rows are indexed by (base ε, level); ``GRR keep`` is ``G[t, t]`` and ``GRR other`` the
    probability of moving to one given other level (Sec. 3.1, Alg. 3 steps 2 and 4).
    """
    tabs = {}
    for base in bases:
        L = paper_levels(base)
        G = grr_matrix(L.epsilons)
        tabs[base] = pd.DataFrame({
            "interval": [f"[{lo:g}, {hi:g}{']' if L.closed_right(t) else ')'}"
                         for t, (lo, hi) in enumerate(L.intervals, 1)],
            "εₜ": L.epsilons, "pₜ": L.p, "cₜ": L.c, "GRR keep": np.diag(G),
            "GRR other": G[np.arange(L.k), (np.arange(L.k) + 1) % L.k],
        }, index=pd.RangeIndex(1, L.k + 1, name="level"))
    return pd.concat(tabs, names=["base ε"])


def record_levels(ledger, table: pd.DataFrame) -> None:
    """Claims ``levels-p-c`` and ``grr-matrix``: :func:`levels_table` against the
    reconstructed references."""
    col = lambda b, c: table.loc[b, c].to_numpy()  # noqa: E731
    ledger.close(
        "levels-p-c",
        "Keep probabilities pₜ and cₜ = tanh(εₜ/2) of the Sec. 6 levels "
        f"(reconstructed reference, base {' and '.join(f'{b:g}' for b in ref.P)})",
        paper=np.r_[ref.P[0.5], ref.P[1.0], ref.C[0.5], ref.C[1.0]],
        ours=np.r_[col(0.5, "pₜ"), col(1.0, "pₜ"), col(0.5, "cₜ"), col(1.0, "cₜ")],
        atol=5e-7, section="hiera-mechanisms")
    ledger.close(
        "grr-matrix",
        "GRR level report: keep and move probabilities per true level "
        f"(reconstructed reference, base {' and '.join(f'{b:g}' for b in ref.GRR)})",
        paper=np.concatenate([np.r_[d, o] for d, o in ref.GRR.values()]),
        ours=np.concatenate([table.loc[b, ["GRR keep", "GRR other"]].to_numpy().T.ravel()
                             for b in ref.GRR]),
        atol=5e-5, section="hiera-mechanisms")


def pool_plans(k: int = K) -> dict:
    """``(rule, μ) -> W``: :func:`~ldp_companion.hiera.pool_plan` for both rules, every μ."""
    return {(rule, mu): pool_plan(k, mu, rule) for rule in RULES for mu in range(1, k + 1)}


def _pool_entries(W) -> list[str]:
    """'(copies of V_j; converted source levels)' for each pool j of a pool plan W."""
    return [f"({W[j, j]}; {','.join(str(l + 1) for l in range(j) if W[l, j]) or '–'})"
            for j in range(W.shape[0])]


def pool_table(plans: dict) -> pd.DataFrame:
    """One row per (rule, μ), one column per pool ``j``: its copies and source levels."""
    k = next(iter(plans.values())).shape[0]
    return pd.DataFrame({f"{rule}, μ = {mu}": _pool_entries(W) for (rule, mu), W in plans.items()},
                        index=pd.RangeIndex(1, k + 1, name="pool j")).T


def record_pools(ledger, plans: dict) -> None:
    """Claim ``pool-weights``: with compensation every report counts μ times (paper rule) or
    once (block rule), Alg. 5 step 5."""
    k = next(iter(plans.values())).shape[0]
    row_sums_ok = [np.all(W.sum(axis=1) == (mu if rule == "paper" else 1))
                   for (rule, mu), W in plans.items()]
    no_comp = pool_plan(k, k, "paper", compensation=False).sum(axis=1)
    ledger.condition(
        "pool-weights",
        "Alg. 5 step 5: with the compensation copies every report "
        "counts equally often (μ times, paper rule; once, block rule)",
        ok=np.array(row_sums_ok),
        evidence={"counts per level, every plan": np.concatenate(
            [W.sum(axis=1) for W in plans.values()])},
        ours=f"without compensation, μ = {k}: counts per level {no_comp.tolist()}",
        section="hiera-mechanisms")


def plc_table(bases) -> pd.DataFrame:
    """For every base ε and pair ``i < j``: PLC's keep probability ``q`` (Alg. 4), the
    probability that the converted bit agrees with ``x`` (correct and printed rules), ``p_j``,
    ``2q - 1`` and ``c_j / c_i`` (Sec. 4.2)."""
    rows = []
    for base in bases:
        L = paper_levels(base)
        p, c, e = L.p, L.c, L.epsilons
        for i in range(L.k):
            for j in range(i + 1, L.k):
                q = plc_keep_probability(e[i], e[j])
                qp = plc_keep_probability(e[i], e[j], flip_rule="paper")
                rows.append({"base ε": base, "i→j": f"{i + 1}→{j + 1}", "q": q, "pⱼ": p[j],
                             "agree (q)": p[i] * q + (1 - p[i]) * (1 - q), "2q − 1": 2 * q - 1,
                             "cⱼ / cᵢ": c[j] / c[i],
                             "agree (printed)": p[i] * qp + (1 - p[i]) * (1 - qp)})
    return pd.DataFrame(rows)


def _downward_keep_probabilities(base: float = 1.0) -> list[float]:
    """The 'keep probability' the PLC formula would need for ``j < i`` (above 1)."""
    L = paper_levels(base)
    return [(L.p[i] + L.p[j] - 1) / (2 * L.p[i] - 1) for i in range(L.k) for j in range(i)]


def _package_refuses_upward(base: float = 1.0) -> bool:
    L = paper_levels(base)
    try:
        plc_keep_probability(L.epsilons[-1], L.epsilons[0])
    except ValueError:
        return True
    return False


def record_plc(ledger, tab: pd.DataFrame) -> None:
    """Claims ``plc-identity``, ``plc-printed-flip``, ``plc-q-table`` and ``plc-direction``
    (Sec. 4.2, Alg. 4) from :func:`plc_table`."""
    sec = "hiera-check-plc"
    ledger.close(
        "plc-identity",
        "PLC with q = (pᵢ + pⱼ − 1)/(2pᵢ − 1) yields a level-j bit: "
        "p_i q + (1 − p_i)(1 − q) = p_j and 2q − 1 = c_j/c_i (all i < j, all bases)",
        paper=np.r_[tab["pⱼ"], tab["cⱼ / cᵢ"]], ours=np.r_[tab["agree (q)"], tab["2q − 1"]],
        atol=1e-12, section=sec)
    gap = (tab["agree (printed)"] - (1 - tab["pⱼ"])).abs().max()
    ledger.close(
        "plc-printed-flip",
        "Sec. 4.2 as printed: flipping with probability (pᵢ + pⱼ − 1)/(2pᵢ − 1) yields a"
        " level-j bit",
        paper=tab["pⱼ"], ours=tab["agree (printed)"], atol=1e-12,
        note=(f"the printed rule agrees with x w.p. 1 − p_j (max deviation {gap:.1e}); a "
              "one-line typo: Alg. 4 step 3 prints the correct keep probability, which the"
              " paper's own results use"),
        section=sec)
    ledger.close(
        "plc-q-table",
        "PLC keep probabilities q(i→j) (reconstructed reference, base"
        f" {' and '.join(f'{b:g}' for b in ref.Q)})",
        paper=np.r_[ref.Q[0.5], ref.Q[1.0]],
        ours=np.r_[tuple(tab.loc[tab["base ε"] == b, "q"] for b in ref.Q)],
        atol=5e-7, section=sec)
    # "we can only perturb low-level data into high-level data": j < i needs q > 1
    q_down, refused = _downward_keep_probabilities(), _package_refuses_upward()
    ledger.condition(
        "plc-direction",
        "PLC only converts towards more protected levels (j > i): the other "
        "way would need a keep probability above 1",
        ok=np.array([min(q_down) > 1, refused]),
        evidence={"smallest keep probability for j < i": min(q_down)},
        ours=f"smallest 'q' for j < i at base 1: {min(q_down):.4f}; package refuses: {refused}",
        section=sec)


def _chi2_two_samples(bits, other) -> float:
    """χ² homogeneity p-value of two ±1 samples (2 × 2 table)."""
    table = [[np.sum(bits == 1), np.sum(bits == -1)], [np.sum(other == 1), np.sum(other == -1)]]
    return stats.chi2_contingency(table, correction=False)[1]


def plc_sampling(base: float, n: int, rng: np.random.Generator) -> pd.DataFrame:
    """``n`` bits with ``x = +1`` perturbed at level 1 and converted 1 → k by PLC (correct and
    printed rules), against ``n`` direct level-k bits: share of +1 and χ² p-value."""
    L = paper_levels(base)
    ones = np.ones(n, dtype=np.int8)
    level1 = randomized_response(ones, L.p[0], rng)
    converted = {r: plc(level1, L.epsilons[0], L.epsilons[-1], rng, flip_rule=r)
                 for r in FLIP_RULES}
    direct = randomized_response(ones, L.p[-1], rng)
    samples = [*converted.values(), direct]
    return pd.DataFrame(
        {"share of +1": [np.mean(s == 1) for s in samples],
         "χ² p-value vs direct": [_chi2_two_samples(converted[r], direct) for r in FLIP_RULES]
         + [np.nan]},
        index=[f"PLC 1→{L.k}, {r} rule" for r in FLIP_RULES] + [f"direct level {L.k}"])


def record_plc_sampling(ledger, tab: pd.DataFrame, n: int, base: float) -> None:
    """Claim ``plc-chi2``: the converted bits follow a direct level-k report."""
    p_ok, p_printed = tab.iloc[0, 1], tab.iloc[1, 1]
    ledger.compare(
        "plc-chi2",
        "PLC 1→5 of level-1 bits is distributed like a direct level-5 report "
        f"(χ² p > {P_MIN}, n = {n:,} bits each, base {base})",
        p_ok, ">", P_MIN, names=("χ² p-value", "level"),
        ours=f"p = {p_ok:.3f} (printed rule: p = {p_printed:.1e})", section="hiera-check-plc")


def lhp_law(bases, inputs, n: int, rng: np.random.Generator) -> pd.DataFrame:
    """χ² goodness of fit of LHP's sampler (Alg. 3) to its exact law
    ``P(t*, y | v) = G[t, t*] (1 + y v c_t*) / 2`` over the ``2k`` outputs, ``n`` reports
    per (base, input)."""
    rows = []
    for base in bases:
        L = paper_levels(base)
        for v0 in inputs:
            t_star, bits = lhp(np.full(n, v0), L, rng)
            observed = report_counts(t_star, bits, L.k).ravel()
            expected = report_probabilities(v0, L).ravel() * n
            rows.append({"base ε": base, "v": v0, "level": int(L.level_of(v0)),
                         "χ² p-value": stats.chisquare(observed, expected)[1]})
    return pd.DataFrame(rows)


def record_lhp_law(ledger, tab: pd.DataFrame, n: int) -> None:
    """Claim ``lhp-law`` (Bonferroni over the inputs of :func:`lhp_law`)."""
    p_law = P_MIN / len(tab)
    ledger.compare(
        "lhp-law",
        "LHP's sampler follows P(t*, y | v) = G[t, t*] (1 + y v cₜ*)/2 "
        f"(χ² p > {p_law:.4f} at {len(tab)} inputs, n = {n:,} each)",
        tab["χ² p-value"], ">", p_law, names=("χ² p-values", "level / inputs"),
        ours=f"smallest p = {tab['χ² p-value'].min():.3f}", section="hiera-check-lhp")


def baseline_moments(n: int, rng: np.random.Generator) -> pd.DataFrame:
    """Monte Carlo mean and variance of Harmony and PM at ``v = 0`` (``n`` draws each),
    their closed forms and the reconstructed variances (:data:`reference.MOMENTS`)."""
    return pd.concat(
        [moment_check(get_mechanism(name, e), [0.0], n, rng).assign(
            mechanism=label(name), epsilon=e, reconstructed=r) for name, e, r in ref.MOMENTS],
        ignore_index=True)


def record_baseline_moments(ledger, mom: pd.DataFrame, n: int, z_max: float) -> None:
    """Claims ``baseline-variances`` and ``baseline-samplers`` from :func:`baseline_moments`."""
    ledger.close("baseline-variances", "Closed-form variances of Harmony and PM at v = 0",
                 paper=mom["reconstructed"], ours=mom["var_closed_form"], rtol=5e-4,
                 section="hiera-check-lhp")
    ledger.compare(
        "baseline-samplers",
        "Harmony's two-step sampler and PM are unbiased with the "
        f"closed-form variance (|z| of the mean and of the variance < {z_max:g}), n = {n:,}",
        mom[["z", "z_var"]].abs().to_numpy(), "<", z_max,
        names=("|z| (mean, variance)", "z bound"),
        ours=(f"max |z| {mom['z'].abs().max():.2f} (mean), {mom['z_var'].abs().max():.2f} "
              f"(variance); max rel. var. error {mom['rel_var_error'].abs().max():.4f}"),
        section="hiera-check-lhp")
