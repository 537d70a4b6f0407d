"""What backs the exact ε of appendix C's table (Sec. C.2): checks that a wrong constant in a
calibration, or a sampler that ignores its calibration, would turn.

The table's verdicts on the papers' claims compare an exact ε with a claim, often with a wide
margin (IDN and MVG spend a small fraction of what they claim), so they cannot see an exact ε
ten times off. These checks pin the exact column itself:

* :func:`tensor_rows`: for each tensor row with Gaussian noise (TLDP's Gaussian baseline, IDN,
  UDN, MVG, TLDP-G and its weighted form), the exact ε of the table
  (:func:`~ldp_companion.compare.catalogue.tensor_exact`) next to the one the papers' printed
  calibrations give, evaluated without the package's calibration code (TLDP's Eq. 8 and
  Alg. 1; TVG's Eqs. 21, 28 and 30 and the exact Gaussian privacy profile in 50 digits,
  :mod:`ldp_companion.tvg.reference`), and the variance of the noise the row's sampler draws
  (Monte Carlo) next to the σ² its exact ε is computed from. The Laplace rows (the tensor
  baseline, TLDP-L) are read from a privacy-loss distribution (:mod:`~ldp_companion.compare.
  catalogue`'s ``laplace_epsilon``) and are not covered here;
* :func:`square_wave_fit`: Square Wave's exact ε is computed from its output law
  (:meth:`~ldp_companion.mechanisms.base.ScalarMechanism.output_law`), written in the same
  class as its sampler. A χ² test of that law against draws of the sampler makes the law the
  sampler's, so that the exact ε is the sampler's too;
* :func:`gaussian_record_rows`: chapter 4's parameter-space DP-SGD row, its exact ε against
  the ε of the noise its sampler draws for the two records (measured μ).
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats

from ldp_companion.auditing.montecarlo import bonferroni_z
from ldp_companion.compare.catalogue import (
    noise_sigma,
    scalar_mechanism,
    tensor_entries,
    tensor_exact,
    udn_noise,
    udn_workload,
)
from ldp_companion.compare.records import RECORD_PAIRS, record_entries
from ldp_companion.tensor.calibration import gaussian_epsilon, tensor_size
from ldp_companion.tldp.algorithm import log_retain_prob
from ldp_companion.tldp.privacy import atom_delta, gaussian_mu
from ldp_companion.tvg import reference
from ldp_companion.validation import check_positive_int, check_rng

__all__ = ["GAUSSIAN_ROWS", "NOISE_RELEASES", "predicted_exact", "tensor_rows",
           "record_tensor_rows", "SQUARE_WAVE_INPUTS", "square_wave_fit", "record_square_wave_law",
           "RECORD_DRAWS", "gaussian_record_rows", "record_gaussian_record_rows"]

#: The tensor rows whose noise is Gaussian (their ε at δ is judged; the Laplace rows are not).
GAUSSIAN_ROWS = ("gaussian", "idn", "udn", "mvg", "tldp_g", "tldp_g_w")
#: Releases of the zero tensor per row and budget in the noise check: 200 releases of a 28×28
#: tensor measure a per-entry σ² to 0.4 % (one standard error), UDN's per direction to 2 %.
NOISE_RELEASES = 200
#: The smallest UDN precision Alg. 1 uses, as a share of the largest (the companion's floor
#: for the directions ``W`` does not see, :mod:`ldp_companion.tvg.optimal`).
_P_FLOOR = 1e-12


def _udn_mu(eps: float, shape, value_range: float, delta: float, max_diff: float) -> float:
    """Worst Mahalanobis length of UDN's noise for a change of norm ``max_diff · √I``: Eq.
    28's smallest σ² with Theorem 2's printed ``B`` for ``s₂ = Δ√I`` (50 digits), ``Pᵢ`` the
    squared singular values of the row's workload (zero beyond its rank, floored)."""
    size, i1 = tensor_size(shape), int(shape[0])
    s2 = value_range * math.sqrt(size)
    p = np.zeros(i1)
    sv = np.linalg.svd(udn_workload(shape), compute_uv=False)
    p[:sv.size] = sv**2
    p = np.maximum(p, _P_FLOOR * p.max())
    var = reference.alg1_variances(p, reference.budget(size, s2, eps, delta))
    return max_diff * math.sqrt(size) / math.sqrt(min(var))


def predicted_exact(key: str, eps: float, shape, value_range: float, delta: float,
                    max_diff: float | None = None) -> float:
    """The ε at ``delta`` the papers' printed calibrations (for range Δ = ``value_range``)
    give row ``key`` of the table, for the extreme pair (every entry moves by ``max_diff``,
    default Δ; UDN: any change of norm ``max_diff · √I``), without the package's calibration
    code.

    Gaussian baseline: TLDP's Eq. 8, ``σ₁² = IΔ²/2ε``; IDN: TVG's Eq. 21 with ``ŝ₂ = Δ√I``,
    ``σ² = I₁/B_IDN``; MVG: Eq. 30 with ``γ = s₂/2``, ``σ² = √(mn)/B_MVG``; UDN: Eq. 28 with
    Theorem 2's ``B`` (:func:`_udn_mu`); TLDP-G: ``N(0, Δ²/2ε)`` on every entry (Alg. 1),
    ``μ = √(2Iε) · d/Δ`` (chapter 1's :func:`~ldp_companion.tldp.privacy.gaussian_mu`), at
    ``δ − Pr[some entry kept]`` (infinite when that is δ or more). The ε is the exact
    Gaussian profile's, solved in 50 digits.
    """
    shape = tuple(int(s) for s in shape)
    size, i1 = tensor_size(shape), shape[0]
    s2 = value_range * math.sqrt(size)          # the ℓ2 sensitivity the noise is calibrated for
    d = value_range if max_diff is None else float(max_diff)
    distance = d * math.sqrt(size)              # the pair's ℓ2 distance
    if key in ("tldp_g", "tldp_g_w"):
        kept = float(atom_delta(size, log_retain_prob(size, value_range, eps, "gaussian")))
        if kept >= delta:
            return math.inf
        return reference.gaussian_epsilon(
            float(gaussian_mu(size, value_range, eps, max_diff=d)), delta - kept)
    if key == "gaussian":
        mu = distance / math.sqrt(size * value_range**2 / (2.0 * eps))
    elif key == "idn":
        mu = distance / math.sqrt(i1 / reference.idn_budget(shape, value_range, eps, delta))
    elif key == "mvg":
        m, n = i1, size // i1
        mu = distance / math.sqrt(math.sqrt(m * n) / reference.mvg_budget(m, n, s2, eps, delta,
                                                                            s2 / 2.0))
    elif key == "udn":
        mu = _udn_mu(eps, shape, value_range, delta, d)
    else:
        raise ValueError(f"key must be one of {GAUSSIAN_ROWS}, got {key!r}")
    return reference.gaussian_epsilon(mu, delta)


def _calibrated(key: str, eps: float, shape, value_range: float, delta: float) -> np.ndarray:
    """The noise variances the row's exact ε is computed from: per entry, or per direction of
    UDN's basis."""
    if key == "udn":
        return udn_noise(eps, shape, value_range, delta)[1] ** 2
    if key in ("tldp_g", "tldp_g_w"):                # Alg. 1: σ² = Δ²/2ε
        return np.array([value_range**2 / (2.0 * eps)])
    return np.array([noise_sigma(key, eps, shape, value_range, delta) ** 2])


def _measured(key: str, draws: np.ndarray, eps, shape, value_range, delta):
    """Mean square of the noise and its standard error, per entry (pooled) or per direction
    of UDN's basis."""
    n = draws.shape[0]
    if key == "udn":
        basis, _ = udn_noise(eps, shape, value_range, delta)
        rows = int(shape[0])
        z = draws.reshape(n, rows, -1)
        sq = np.einsum("ij,njk->nik", basis.T, z) ** 2        # (draw, direction, column)
        sq = np.moveaxis(sq, 1, 0).reshape(rows, -1)
        return sq.mean(axis=1), sq.std(axis=1, ddof=1) / math.sqrt(sq.shape[1])
    sq = (draws**2).ravel()
    return np.array([sq.mean()]), np.array([sq.std(ddof=1) / math.sqrt(sq.size)])


def tensor_rows(eps_table, shape, value_range: float, delta: float,
                rng: np.random.Generator, n: int = NOISE_RELEASES, *,
                max_diff: float | None = None) -> pd.DataFrame:
    """For each Gaussian tensor row (:data:`GAUSSIAN_ROWS`) at each budget: the table's exact
    ε, the printed calibrations' (:func:`predicted_exact`), both for the pair all 0 / all
    ``max_diff`` (default ``value_range``), and, per noise cell (UDN: per direction), the σ²
    the exact ε is computed from and the mean square of the noise its sampler adds to the
    zero tensor over ``n`` releases, with its standard error.

    Returns
    -------
    DataFrame
        One row per cell: ``mechanism``, ``budget``, ``cell`` (−1: every entry; UDN: the
        direction), ``exact``, ``predicted``, ``calibrated σ²``, ``measured σ²``, ``s.e.``.
    """
    n = check_positive_int(n, "n")
    rng = check_rng(rng)
    shape = tuple(int(s) for s in shape)
    rows = []
    for eps in eps_table:
        eps = float(eps)
        entries = {e.key: e for e in tensor_entries(eps, shape, value_range, delta, max_diff)}
        for key in GAUSSIAN_ROWS:
            exact = tensor_exact(key, eps, shape, value_range, delta, max_diff)
            predicted = predicted_exact(key, eps, shape, value_range, delta, max_diff)
            draws = entries[key].sampler(np.zeros(shape), n, rng).reshape(n, -1)
            mean, se = _measured(key, draws, eps, shape, value_range, delta)
            var = _calibrated(key, eps, shape, value_range, delta)
            for i, (v, m, s) in enumerate(zip(var, mean, se)):
                rows.append({"mechanism": key, "budget": eps,
                             "cell": i if key == "udn" else -1, "exact": exact,
                             "predicted": predicted, "calibrated σ²": float(v),
                             "measured σ²": float(m), "s.e.": float(s)})
    return pd.DataFrame(rows)


def record_tensor_rows(ledger, table: pd.DataFrame, n: int = NOISE_RELEASES,
                       family_error: float = 1e-3) -> None:
    """``true-eps-tensor-exact`` and ``true-eps-tensor-noise`` from :func:`tensor_rows`."""
    one = table.drop_duplicates(["mechanism", "budget"])
    exact, predicted = one["exact"].to_numpy(), one["predicted"].to_numpy()
    both_inf = np.isinf(exact) & np.isinf(predicted)   # one infinite alone is a mismatch
    ledger.close(
        "true-eps-tensor-exact",
        "The table's exact ε of the Gaussian tensor rows (TLDP's Gaussian baseline, IDN, UDN,"
        " MVG, TLDP-G and its weighted form) is the one the papers' printed calibrations give"
        " (TLDP Eq. 8 and Alg. 1; TVG Eqs. 21, 28 and 30 and the exact Gaussian profile, in"
        " 50 digits, without the package's calibration code)",
        np.where(both_inf, 0.0, predicted), np.where(both_inf, 0.0, exact), rtol=1e-6,
        note=f"{int(both_inf.sum())} rows infinite in both" if both_inf.any() else "",
        section="compare-true-eps")
    z = bonferroni_z(len(table), family_error)
    scores = np.abs(table["measured σ²"] - table["calibrated σ²"]) / table["s.e."]
    ledger.compare(
        "true-eps-tensor-noise",
        "The table's exact ε of the Gaussian tensor rows is computed from the noise their"
        f" samplers draw (Monte Carlo: {n:,} releases of the zero tensor per row and budget;"
        " the mean square of the noise, per entry, or per direction of UDN's basis, against"
        " the σ² the exact ε uses)",
        scores.to_numpy(), "<=", z, names=("|z| of the measured σ²", "Bonferroni bound"),
        note=(f"{len(table)} cells, family-wise false alarm {family_error:g}; largest |z|"
              f" {scores.max():.2f}"), section="compare-true-eps")


#: The inputs of Square Wave's χ² test: both ends and the middle of [-1, 1].
SQUARE_WAVE_INPUTS = (-1.0, 0.0, 1.0)


def _bin_masses(law, edges: np.ndarray) -> np.ndarray:
    """Probability of each bin ``[edges[i], edges[i+1])`` under a piecewise-constant law (no
    atoms): its density on each piece between its breakpoints and the bin edges, times the
    piece's length."""
    lo, hi = law.support
    pts = np.unique(np.concatenate([law.breakpoints, edges]))
    pts = pts[(pts >= lo) & (pts <= hi)]
    mids = (pts[:-1] + pts[1:]) / 2
    mass = np.exp(law.logpdf(mids)) * np.diff(pts)
    return np.bincount(np.searchsorted(edges, mids) - 1, weights=mass,
                       minlength=edges.size - 1)[: edges.size - 1]


def square_wave_fit(eps_table, n: int, rng: np.random.Generator,
                    bins: int = 40) -> pd.DataFrame:
    """χ² goodness of fit of Square Wave's output law (the one its exact ε is computed from)
    to ``n`` draws of its sampler, per budget and input of :data:`SQUARE_WAVE_INPUTS`, on
    ``bins`` equal-width bins over the law's support.

    Returns
    -------
    DataFrame
        One row per (budget, input): ``budget``, ``x``, ``mass`` (the law's total probability
        on the bins: 1 for a law), ``chi2``, ``p-value``.
    """
    n = check_positive_int(n, "n")
    rng = check_rng(rng)
    rows = []
    for eps in eps_table:
        sw = scalar_mechanism("square_wave", float(eps))
        for x in SQUARE_WAVE_INPUTS:
            law = sw.output_law(x)
            edges = np.linspace(*law.support, bins + 1)
            expected = _bin_masses(law, edges)
            y = sw.privatize(np.full(n, x), rng)
            observed = np.histogram(y, bins=edges)[0]
            outside = n - observed.sum()           # draws the law gives no probability
            chi2 = float(np.sum((observed - n * expected) ** 2 / (n * expected)))
            p = float(stats.chi2.sf(chi2, bins - 1)) if outside == 0 else 0.0
            rows.append({"budget": float(eps), "x": x, "mass": float(expected.sum()),
                         "chi2": chi2, "p-value": p})
    return pd.DataFrame(rows)


def record_square_wave_law(ledger, fit: pd.DataFrame, n: int,
                           family_error: float = 1e-3) -> None:
    """``square-wave-law`` from :func:`square_wave_fit`: every p-value above the Bonferroni
    level (family-wise false alarm ``family_error``), and the law's mass 1."""
    level = family_error / len(fit)
    ledger.condition(
        "square-wave-law",
        "Square Wave's exact ε is read from the law its sampler draws: its output law (Sec."
        f" B.1's closed forms) against {n:,} draws of its sampler per budget and input x ="
        " −1, 0, 1 (χ² test on 40 equal bins; every p-value above the Bonferroni level, and"
        " the law's mass 1)",
        (fit["p-value"].to_numpy() >= level) & (np.abs(fit["mass"].to_numpy() - 1) < 1e-9),
        evidence={"p-value": fit["p-value"].to_numpy(), "level": level,
                  "law's mass": fit["mass"].to_numpy()},
        section="compare-true-eps")


#: Outputs per record of :func:`gaussian_record_rows`: 200,000 measure the row's μ to one
#: standard error of √(2/n) ≈ 0.003 noise standard deviations (1.3 % of μ at ε = 1).
RECORD_DRAWS = 200_000


def gaussian_record_rows(eps_table, n: int, rng: np.random.Generator) -> pd.DataFrame:
    """The exact ε of chapter 4's parameter-space DP-SGD row (its only Gaussian record row,
    :func:`~ldp_companion.compare.records.record_entries`) next to the ε of the noise its
    sampler draws for the worst pair, measured: ``n`` outputs per record give the mean
    difference ``d̂`` and the pooled standard deviation ``σ̂``, so ``μ̂ = ‖d̂‖/σ̂`` (one standard
    error ``√(2/n)``), and the exact Gaussian profile turns ``μ̂ ± 4`` standard errors into a
    range of ε at the row's δ. A sensitivity off by 2 in the exact column (C where a replaced
    record moves the clipped gradient by 2C) falls outside it.

    Returns
    -------
    DataFrame
        Columns ``budget, exact, mu, low, high`` (the measured range of ε).
    """
    n, rng = check_positive_int(n, "n"), check_rng(rng)
    rows = []
    for eps in eps_table:
        entry = next(e for e in record_entries(float(eps)) if e.key == "dpsgd_param")
        a, b = (np.asarray(entry.sampler(x, n, rng), float) for x in RECORD_PAIRS[0])
        sigma = math.sqrt((a.var(axis=0, ddof=1) + b.var(axis=0, ddof=1)).mean() / 2)
        mu = float(np.linalg.norm(a.mean(axis=0) - b.mean(axis=0)) / sigma)
        se = math.sqrt(2.0 / n)
        low, high = (gaussian_epsilon(max(m, 1e-9), entry.delta) for m in (mu - 4 * se,
                                                                           mu + 4 * se))
        rows.append({"budget": float(eps), "exact": float(entry.exact), "mu": mu,
                     "low": low, "high": high})
    return pd.DataFrame(rows)


def record_gaussian_record_rows(ledger, table: pd.DataFrame, n: int) -> None:
    """``true-eps-record-noise`` from :func:`gaussian_record_rows`: every exact ε inside the
    range the sampler's noise gives."""
    exact = table["exact"].to_numpy()
    ledger.condition(
        "true-eps-record-noise",
        "Chapter 4's parameter-space DP-SGD row: its exact ε is the ε of the Gaussian noise its"
        f" sampler draws for the worst pair (μ measured from {n:,} outputs per record, within"
        " 4 standard errors, at every budget)",
        (table["low"].to_numpy() <= exact) & (exact <= table["high"].to_numpy()),
        evidence={"exact ε": exact, "measured ε, low": table["low"].to_numpy(),
                  "measured ε, high": table["high"].to_numpy(),
                  "measured μ": table["mu"].to_numpy()},
        section="compare-true-eps")
