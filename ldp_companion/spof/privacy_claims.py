"""The chapter's checks of the privacy of the coefficient release: Prop. 2 and Alg. 1, Step 5
(exact privacy loss, the independent auditor, a sampled lower bound), the noise the training
adds, the "sum of two Laplace draws" argument and the authors' shared draw; each computed here
and recorded in the chapter's ledger.

The paper's formulas for Δ̄, Δ̂ and the Laplace scales are typed in here from the paper, apart
from :mod:`~ldp_companion.spof.sensitivity`, so that a wrong constant there changes a verdict.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ldp_companion.auditing.montecarlo import estimated_scale
from ldp_companion.spof import privacy, sensitivity, train

__all__ = ["calibrations", "epsilon_table", "record_alg1", "predicted_epsilon",
           "record_predicted", "record_noise_scale", "kurtosis_blocks", "record_sum_laplace",
           "record_shared_draw"]

_BLOCKS = 10        # blocks of the kurtosis estimate (its standard error comes from them)
_FAR = 1e5          # a far point of the output space (the data-dependent c_j's log ratio)


def _paper_delta_bar(n: int) -> float:
    """Δ̄ = 3n/2 (App. B.I, Eq. 23), typed from the paper."""
    return 3 * n / 2


def _paper_delta_hat(n: int, cj: float) -> float:
    """Δ̂ = Δ̄ + n c_j (c_j/2 + 2) (Prop. 3), typed from the paper."""
    return _paper_delta_bar(n) + n * cj * (cj / 2 + 2)


def calibrations(eps: float, c: float, l: int) -> dict:
    """The releases whose privacy the chapter audits, by name: Prop. 2 (the sum query),
    Alg. 1 at ``c = 0`` with and without the √2 split, with a public ``c_j`` (``c`` and
    ``l·c``) and with the data-dependent ``c_j = c Σh`` (Σh = 3 against 3.5)."""
    return {
        "Prop. 2: sum query, Lap(Δ̄/ε)": privacy.prop2_release(eps),
        "Alg. 1, c = 0, √2 split": privacy.alg1_release(eps),
        "Alg. 1, c = 0, no split": privacy.alg1_release(eps, split="none"),
        f"Alg. 1, public c_j = {c:g}": privacy.alg1_release(eps, c, l=l),
        f"Alg. 1, public c_j = l·c = {l * c:g}": privacy.alg1_release(eps, c, "worst", l=l),
        "Alg. 1, c_j = c Σh (Σh = 3 vs 3.5)": privacy.alg1_release(eps, c, "data", l=l),
    }


def epsilon_table(cases: dict) -> pd.DataFrame:
    """The true ε of each release of :func:`calibrations`: closed form and exact auditor."""
    return pd.DataFrame(
        {"true ε (closed form)": [r.epsilon for r in cases.values()],
         "exact auditor": [privacy.audit_exact(r) for r in cases.values()]},
        index=list(cases))


def record_alg1(ledger, alg1: pd.DataFrame, cases: dict, *, eps: float, c: float, l: int,
                released: float, n_mc: int, rng) -> None:
    """Record ``prop2-eps``, ``alg1-sqrt2``, ``alg1-public`` and ``alg1-data-cj`` from
    :func:`epsilon_table`; ``released`` is the brute-force sensitivity of the released
    coefficients (21). The sampled lower bound audits Alg. 1 on one feature, ``n_mc`` draws
    (two uses of ``rng``)."""
    one = privacy.alg1_release(eps, n=1)  # one feature: the sampler reaches the supremum
    mc_one = privacy.audit_release(one, n_mc, rng)
    lower_one = privacy.empirical_lower_bound(one, n_mc, rng)
    data_case = list(cases.values())[5]
    q_far = np.full(data_case.mean_a.shape, _FAR)
    ledger.compare(
        "prop2-eps",
        "Prop. 2: perturbing α₂ + α₃ with Lap(Δ̄/ε) is ε-DP (exact privacy loss at ε = 1)",
        alg1.iloc[0, 0], "<=", eps, rtol=1e-12, names=("true ε", "ε"),
        note="conservative: the sum's sensitivity is 7, not 21")
    ledger.compare(
        "alg1-sqrt2",
        "Alg. 1, Step 5: Lap(Δ̂/(√2ε)) on α₂ and on α₃ is ε-DP (c = 0, ε = 1; exact loss"
        " and the auditor's sampled lower bound for one feature)",
        np.array([alg1.iloc[1, 0], lower_one.epsilon_lower]), "<=", eps, rtol=1e-12,
        names=("true ε, sampled lower bound", "ε"),
        note=f"Monte Carlo maximum over {n_mc:,} draws: {mc_one.max_log_ratio:.4f}")
    ledger.compare(
        "alg1-public",
        f"Alg. 1 with a public c_j ({c:g} and {l * c:g}): the release is ε-DP"
        " (exact loss at ε = 1)",
        alg1.iloc[3:5, 0].to_numpy(), "<=", eps, rtol=1e-12, names=("true ε", "ε"),
        note=f"over-noised: Δ̂ exceeds the released coefficients' sensitivity {released:.4g}")
    ledger.compare(
        "alg1-data-cj",
        "Alg. 1 with c_j = c·Σh (the code units summed): the release is ε-DP (exact loss"
        " at ε = 1)",
        alg1.iloc[5, 0], "<=", eps, names=("true ε", "ε"),
        note=("the log density ratio at q = 10⁵ in every coordinate is already"
              f" {float(data_case.log_ratio(q_far, reverse=True)):.0f}, and grows with q"))


def predicted_epsilon(brute: dict, *, n: int, l: int, c: float, eps: float) -> np.ndarray:
    """The ε the paper's formulas predict for each release of :func:`calibrations`: the
    brute-force sensitivity of what is released (``brute["sum"]`` for Prop. 2,
    ``brute["paper"]`` otherwise) over the paper's Laplace scale; ``inf`` for the
    data-dependent ``c_j``."""
    s2 = math.sqrt(2)  # Alg. 1, Step 5: Lap(Δ̂/(√2ε)); Prop. 2: Lap(Δ̄/ε) on the sum
    dbar = _paper_delta_bar(n)
    scale = np.array([dbar, dbar / s2, dbar, _paper_delta_hat(n, c) / s2,
                      _paper_delta_hat(n, l * c) / s2])
    released = np.array([brute["sum"]] + [brute["paper"]] * 4)
    return np.append(released / (scale / eps), np.inf)


def record_predicted(ledger, alg1: pd.DataFrame) -> None:
    """Record ``alg1-eps-predicted``: the auditor's ε of the first five releases against
    the column ``predicted`` (:func:`predicted_epsilon`)."""
    ledger.close(
        "alg1-eps-predicted",
        "The auditor's exact ε of each calibration (Prop. 2, Alg. 1 at c = 0 with and"
        " without the split, a public c_j) is the brute-force sensitivity over the paper's"
        " Laplace scale",
        alg1["predicted"].iloc[:5].to_numpy(), alg1["exact auditor"].iloc[:5].to_numpy(),
        rtol=1e-9)


def record_noise_scale(ledger, setup, *, n: int, eps: float, draws: int, rng) -> None:
    """Record ``alg1-noise-scale``: the noise the training's SPOF and FM steps add, drawn by
    the training's own code (``draws`` releases each, every code unit at ½), against the
    paper's scale Δ̂/(√2ε) (Prop. 3, Alg. 1, Step 5)."""
    h_half = setup.code / 2  # Σ_r h_r with every h_r = ½
    nu = {m: train.coefficient_noise(m, eps, draws, rng, setup=setup, h_sum=h_half)
          for m in ("spof", "fm")}
    est, se = np.array([estimated_scale(nu[m][:, k]) for m in nu for k in (0, 1)]).T
    s2 = math.sqrt(2)
    ledger.close(
        "alg1-noise-scale",
        "The training's SPOF step adds Lap(Δ̂/(√2ε)) to α₂ and to α₃, Δ̂ of Prop. 3 (mean"
        f" |noise| of {draws:,} releases, at c_j = c·Σh = {setup.c * h_half:g} and for FM at"
        " c = 0; ε = 1)",
        np.repeat([_paper_delta_hat(n, setup.c * h_half) / s2, _paper_delta_bar(n) / s2], 2)
        / eps,
        est, rtol=5 * (se / est).max())


def kurtosis_blocks(n_mc: int, rng) -> np.ndarray:
    """The excess kurtosis of sums of two Laplace draws, in ten blocks of ``n_mc // 10``."""
    return np.array([privacy.sample_excess_kurtosis(2, n_mc // _BLOCKS, rng)
                     for _ in range(_BLOCKS)])


def record_sum_laplace(ledger, blocks: np.ndarray, n_mc: int) -> float:
    """Record ``alg1-sum-laplace`` from :func:`kurtosis_blocks`; return the blocks'
    standard error."""
    se = blocks.std(ddof=1) / math.sqrt(len(blocks))
    ledger.close(
        "alg1-sum-laplace",
        "Alg. 1, Step 5: the sum of two independent Laplace draws is Laplace (excess"
        f" kurtosis 3; Monte Carlo, {n_mc:,} sums)",
        privacy.kurtosis_facts()["laplace"], blocks.mean(), atol=4 * se,
        note="closed form for the sum:"
        f" {privacy.kurtosis_facts()['sum_of_two_laplace']:g}")
    return se


def record_shared_draw(ledger, *, n: int, eps: float, rng) -> None:
    """Record ``alg1-shared-draw``: the authors' one Laplace draw on both coefficients gives
    a random record back exactly; independent draws do not."""
    x_secret = rng.uniform(0, 1, n)
    scale = float(sensitivity.laplace_scale(sensitivity.delta_bar(n), eps))
    leak = privacy.shared_draw_leak(x_secret, scale, rng)
    no_leak = privacy.shared_draw_leak(x_secret, scale, rng, shared=False)
    ledger.compare(
        "alg1-shared-draw",
        "The authors' code (one Laplace draw on both α₂ and α₃): the release reveals the"
        f" record exactly (largest reconstruction error, ε = 1, {n} features)",
        leak, "<=", 1e-9, names=("reconstruction error", "10⁻⁹"),
        note=f"with independent draws, as Alg. 1 says, the same attack errs by {no_leak:.0f}")
