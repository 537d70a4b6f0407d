"""Chapter 2's checks that pin MVG's noise to Theorem 4 (Eq. 30) and Table IV, and the release
functions' draws to their calibration.

A soundness verdict with room to spare ("MVG is (ε, δ)-DP", true ε thousands of times under the
claim) cannot see noise ten times too small. These checks can:

* :func:`mvg_condition`: Eq. 30's left side ``‖σ(Σ⁻¹)‖₂ ‖σ(Ψ⁻¹)‖₂``, computed from the
  covariances the package builds (the singular values of ``Σ⁻¹`` and ``Ψ⁻¹`` summed term by
  term), over its right side ``B_MVG`` as printed, evaluated in 50 digits with the harmonic
  numbers summed (:func:`~ldp_companion.tvg.reference.mvg_budget`). A calibration that solved
  the condition right gives exactly 1: noise too small breaks the condition (ratio above 1;
  0.99 σ gives 1.02), noise too large gives less than 1. Three MVG noises are held to it:
  :func:`~ldp_companion.tensor.calibration.mvg_iid_sigma` (the MVG of chapter 1 and appendix
  C), chapter 2's own i.i.d. MVG (``Σ = σ²E``, ``Ψ = E``) and Type III's binary allocation on
  ``W``'s right singular vectors;
* :func:`mvg_table4_ratios`: chapter 2's Types I–II MVG follows Table IV's reading
  ``E‖Z‖² = I₁ I / B_MVG``; the package's ``I σ²`` over that printed entry (50 digits), at the
  paper's shapes;
* :func:`release_noise`: a Monte Carlo of the release functions themselves
  (:func:`~ldp_companion.tvg.release.iid_release`,
  :func:`~ldp_companion.tvg.release.directional_release`): the variance of the noise they draw
  (per entry, or per direction of ``W_{U₁}``) against the σ² their calibration states, so a
  release that ignores its calibration shows;
* :func:`jl_mean`: a Monte Carlo of the JL baseline of Fig. 5's CTG panel
  (:func:`~ldp_companion.tvg.covariance.jl_covariance`): the mean of its covariance estimates
  against the covariance it estimates, so a wrong bias correction (``+ w²I``, ``w⁴I``) shows.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ldp_companion.auditing.montecarlo import bonferroni_z
from ldp_companion.tensor import calibration
from ldp_companion.tvg import covariance, noise, reference, release
from ldp_companion.validation import check_epsilons, check_positive_int, check_rng

__all__ = ["MVG_SHAPES", "SHORTFALL", "mvg_condition", "record_mvg_calibration",
           "mvg_table4_ratios", "record_mvg_table4", "IID", "release_noise",
           "record_release_noise", "JL_SHAPE", "JL_DRAWS", "jl_mean", "record_jl_unbiased"]

#: (m, n) of the MVG checks: the paper's matrix shapes (Sec. VII-B, Tables II–III).
MVG_SHAPES = [(28, 10), (105, 12), (256, 150), (256, 400), (3136, 512)]
#: The σ factor at which the condition must already fail (the calibration is the least noise).
SHORTFALL = 0.99


def _eq30_lhs(sigma_inv: np.ndarray, psi_inv: np.ndarray) -> float:
    """``‖σ(Σ⁻¹)‖₂ ‖σ(Ψ⁻¹)‖₂`` from the singular values of ``Σ⁻¹`` and ``Ψ⁻¹``, summed term by
    term."""
    return math.sqrt(float(np.sum(sigma_inv**2))) * math.sqrt(float(np.sum(psi_inv**2)))


def _row(source, m, n, eps, lhs, bound) -> dict:
    # shrinking σ by SHORTFALL multiplies Σ⁻¹ (or Σ⁻¹ ⊗ Ψ⁻¹'s product) by 1/SHORTFALL²
    return {"noise": source, "m × n": f"{m}×{n}", "ε": eps, "left / B_MVG": lhs / bound,
            f"left / B_MVG at {SHORTFALL} σ": lhs / bound / SHORTFALL**2}


def mvg_condition(delta: float, workloads=(), shapes=MVG_SHAPES,
                  epsilons=(0.1, 1.0, 10.0)) -> pd.DataFrame:
    """Eq. 30's left side over its printed right side for the MVG noise the package adds
    (entries in (−1, 1): ``s₂ = 2√(mn)``, ``γ = s₂/2`` as the package's default).

    Parameters
    ----------
    workloads : sequence of (shape, W)
        Type III cases for the binary allocation (``shape = (I₁, n)``, ``W`` of ``I₁``
        columns); cases with ``W = None`` are skipped.
    shapes : sequence of (m, n)
        Shapes of the two i.i.d. forms.

    Returns
    -------
    DataFrame
        One row per (noise, shape, ε): ``left / B_MVG`` (1 when the calibration meets Eq. 30
        with equality) and the same at ``SHORTFALL`` σ.
    """
    rows = []
    for m, n in shapes:
        s2 = 2.0 * math.sqrt(m * n)
        for eps in epsilons:
            bound = reference.mvg_budget(m, n, s2, eps, delta, s2 / 2.0)
            # mvg_iid_sigma: Σ = σ_r² E_m, Ψ = σ_c² E_n with σ_r² σ_c² = σ² (any split)
            sd = calibration.mvg_iid_sigma(m, n, s2, eps, delta)
            rows.append(_row("mvg_iid_sigma (chapters 1 and C)", m, n, eps,
                             _eq30_lhs(np.full(m, 1.0 / sd), np.full(n, 1.0 / sd)), bound))
            # chapter 2's MVG itself: Σ = σ² E_m, Ψ = E_n
            sd = noise.entry_std("mvg_true", (m, n), eps, delta, value_range=2.0)
            rows.append(_row("chapter 2's i.i.d. MVG (Ψ = E)", m, n, eps,
                             _eq30_lhs(np.full(m, sd**-2.0), np.ones(n)), bound))
    for shape, w in workloads:
        if w is None:
            continue
        i1, n = shape
        s2 = 2.0 * math.sqrt(i1 * n)
        for eps in epsilons:
            basis, sd = release.directional_noise("mvg", w, shape, eps, delta, value_range=2.0)
            cov = (basis * sd**2) @ basis.T
            sigma_inv = np.linalg.svd(np.linalg.inv(cov), compute_uv=False)
            rows.append(_row(f"Type III binary allocation (W {w.shape[0]}×{w.shape[1]})", i1,
                             n, eps, _eq30_lhs(sigma_inv, np.ones(n)),
                             reference.mvg_budget(i1, n, s2, eps, delta, s2 / 2.0)))
    return pd.DataFrame(rows)


def record_mvg_calibration(ledger, table: pd.DataFrame) -> None:
    """Record Theorem 4's calibration from :func:`mvg_condition`."""
    short = table[f"left / B_MVG at {SHORTFALL} σ"]
    ledger.close(
        "thm4-calibration",
        "Theorem 4 (Eq. 30) at its bound: the MVG noise the package adds (the i.i.d. MVG of"
        " chapters 1 and C, chapter 2's with Ψ = E, Type III's binary allocation) meets Eq. 30"
        " with equality: ‖σ(Σ⁻¹)‖₂‖σ(Ψ⁻¹)‖₂ over the printed B_MVG (50 digits, H_r summed)"
        f" is 1 ({len(table)} cases: the paper's shapes, 3 ε)",
        np.ones(len(table)), table["left / B_MVG"].to_numpy(), rtol=1e-9,
        note=(f"at {SHORTFALL} σ the left side exceeds B_MVG by a factor"
              f" {short.min():.4f} or more: the calibration is the least noise Eq. 30 allows"))


def mvg_table4_ratios(delta: float, shapes, epsilons=(0.1, 1.0, 10.0)) -> pd.DataFrame:
    """Chapter 2's i.i.d. MVG (Types I–II, Table IV's reading) at ``shapes``
    (``name -> (shape, C)``, entries in ``(−C, C)``, ``γ = C√I``, ``m = I₁``, ``n = I/I₁``):
    its ``E‖Z‖² = I σ²`` over Table IV's printed ``I₁ I / B_MVG`` (50 digits)."""
    rows = []
    for name, (shape, c) in shapes.items():
        size, i1 = math.prod(shape), shape[0]
        s2, gamma = 2.0 * c * math.sqrt(size), c * math.sqrt(size)
        for eps in epsilons:
            sd = noise.entry_std("mvg", shape, eps, delta, value_range=2.0 * c, gamma=gamma)
            printed = i1 * size / reference.mvg_budget(i1, size // i1, s2, eps, delta, gamma)
            rows.append({"shape": name, "ε": eps, "I σ² / (I₁ I / B_MVG)": size * sd**2 / printed})
    return pd.DataFrame(rows)


def record_mvg_table4(ledger, table: pd.DataFrame) -> None:
    """Record Table IV's MVG entry from :func:`mvg_table4_ratios`."""
    ledger.close(
        "table4-mvg",
        "Table IV: MVG's error is I₁I/B_MVG (the i.i.d. MVG noise chapter 2 adds in Types"
        " I–II, E‖Z‖² = Iσ², over the printed entry in 50 digits; the paper's shapes, 3 ε)",
        np.ones(len(table)), table["I σ² / (I₁ I / B_MVG)"].to_numpy(), rtol=1e-9)


#: The i.i.d. mechanisms of :func:`release_noise` (:data:`~ldp_companion.tvg.noise.MECHANISMS`).
IID = noise.MECHANISMS


def release_noise(rng: np.random.Generator, n: int, delta: float, *, shape=(64, 100),
                  workload=None, epsilon: float = 1.0) -> pd.DataFrame:
    """The variance of the noise the release functions draw, against their calibration.

    ``iid_release`` of each mechanism of :data:`IID` on ``n`` zero tensors of ``shape``
    (entries in (−1, 1)): the mean square of all ``n I`` draws against
    :func:`~ldp_companion.tvg.noise.entry_std`'s ``σ²``. With ``workload = (shape, W)``:
    ``directional_release`` of UDN, IDN and MVG on ``n`` zero matrices, the noise projected on
    each direction of ``W_{U₁}`` (``E`` for IDN), against that direction's ``σᵢ²`` from
    :func:`~ldp_companion.tvg.release.directional_noise`.

    Returns
    -------
    DataFrame
        One row per cell: ``release``, ``mechanism``, ``direction`` (−1: every entry),
        ``calibrated σ²``, ``measured σ²`` and ``draws`` (the sample size of the cell; the
        estimate's relative standard error is ``√(2/draws)``).
    """
    n = check_positive_int(n, "n")
    rng = check_rng(rng)
    rows = []
    zeros = np.zeros(shape)
    for mech in IID:
        var = noise.entry_std(mech, shape, epsilon, delta, value_range=2.0) ** 2
        sq = np.mean([np.mean(release.iid_release(mech, zeros, epsilon, delta, rng=rng,
                                                  value_range=2.0) ** 2) for _ in range(n)])
        rows.append({"release": "iid_release", "mechanism": mech, "direction": -1,
                     "calibrated σ²": var, "measured σ²": float(sq),
                     "draws": n * zeros.size})
    if workload is not None:
        wshape, w = workload
        x = np.zeros(wshape)
        for mech in release.DIRECTIONAL:
            basis, sd = release.directional_noise(mech, w, wshape, epsilon, delta,
                                                  value_range=2.0)
            proj = np.eye(wshape[0]) if basis is None else basis
            coef = np.concatenate(
                [proj.T @ release.directional_release(mech, x, w, epsilon, delta, rng=rng,
                                                      value_range=2.0) for _ in range(n)],
                axis=1)
            for i, (v, m) in enumerate(zip(sd**2, np.mean(coef**2, axis=1))):
                rows.append({"release": "directional_release", "mechanism": mech,
                             "direction": i, "calibrated σ²": float(v),
                             "measured σ²": float(m), "draws": coef.shape[1]})
    return pd.DataFrame(rows)


def record_release_noise(ledger, table: pd.DataFrame, family_error: float = 1e-3) -> None:
    """Record that the release functions draw the noise their calibration states, from
    :func:`release_noise`: each cell's measured σ² within ``z`` of its standard errors
    (``σ² √(2/draws)``) of the calibrated one, ``z`` the Bonferroni bound over the cells at
    family-wise false alarm ``family_error``."""
    z = bonferroni_z(len(table), family_error)
    calibrated = table["calibrated σ²"].to_numpy()
    scores = np.abs(table["measured σ²"].to_numpy() / calibrated - 1.0) / np.sqrt(
        2.0 / table["draws"].to_numpy())
    directional = table[table["direction"] >= 0]
    ledger.compare(
        "release-noise",
        "Definitions 9 and 11: the releases draw the noise their calibration states (Monte"
        f" Carlo: per-entry variance of iid_release for {int((table['direction'] < 0).sum())}"
        " mechanisms, per-direction variance of directional_release for UDN, IDN and MVG"
        f" with a random W, {int(directional['draws'].min()) if len(directional) else 0:,}"
        " draws per direction)",
        scores, "<=", z, names=("|z| of the measured σ²", "Bonferroni bound"),
        note=(f"{len(table)} cells, family-wise false alarm {family_error:g}; largest |z|"
              f" {scores.max():.2f}; a release drawing half its σ would give |z| ≥"
              f" {0.75 / np.sqrt(2.0 / table['draws'].min()):.0f}"))


#: Records × features of :func:`jl_mean`'s matrix (uniform in [−1, 1]; the estimator needs
#: N ≥ d) and its releases per ε: 2,000 measure each entry's mean to 1/45 of one release's
#: spread.
JL_SHAPE = (12, 4)
JL_DRAWS = 2_000


def jl_mean(eps_grid, delta: float, rng: np.random.Generator, *, shape=JL_SHAPE,
            draws: int = JL_DRAWS) -> pd.DataFrame:
    """The mean of ``draws`` JL estimates of ``S = XᵀX/N`` per ε (Fig. 5's ``"jl"``,
    :func:`~ldp_companion.tvg.covariance.release_covariance`) on one matrix ``X`` of
    ``shape = (N, d)`` drawn uniformly in [−1, 1] from ``rng``, entry by entry (``i ≤ j``).

    Blocki et al. (2012, Alg. 1) raise the singular values of ``A = X/√d`` to ``√(s² + w²)``,
    so ``E[(1/r) A′ᵀMᵀMA′] = AᵀA + w²I`` for a Gaussian ``M``; the estimate subtracts ``w²I``
    and scales by ``d/N``, so its mean is ``S``. Each entry's z-score
    ``(mean − S) / (sd / √draws)`` takes ``sd`` from the draws themselves, not from a formula.

    Returns
    -------
    DataFrame
        One row per (ε, entry): ``epsilon, i, j, S, mean, se, z, draws``.
    """
    if len(shape) != 2:
        raise ValueError(f"shape must be (N, d), got {shape!r}")
    n, d = (check_positive_int(v, name) for v, name in zip(shape, ("N", "d")))
    if n < d:
        raise ValueError(f"shape must have N >= d records (A has d singular values), got {shape}")
    draws = check_positive_int(draws, "draws")
    if draws < 2:
        raise ValueError(f"draws must be at least 2 (a standard error needs two), got {draws}")
    rng = check_rng(rng)
    x = rng.uniform(-1.0, 1.0, (n, d))
    s = covariance.covariance(x)
    upper = np.triu_indices(d)
    rows = []
    for eps in check_epsilons(eps_grid, "eps_grid").ravel():
        est = np.stack([covariance.release_covariance("jl", x, float(eps), delta, rng=rng)
                        for _ in range(draws)])[:, upper[0], upper[1]]
        mean, se = est.mean(axis=0), est.std(axis=0, ddof=1) / math.sqrt(draws)
        rows += [{"epsilon": float(eps), "i": int(i), "j": int(j), "S": float(s[i, j]),
                  "mean": float(m), "se": float(e), "z": float((m - s[i, j]) / e),
                  "draws": draws}
                 for i, j, m, e in zip(*upper, mean, se)]
    return pd.DataFrame(rows)


def record_jl_unbiased(ledger, table: pd.DataFrame, family_error: float = 1e-3) -> None:
    """``fig5-jl-unbiased`` from :func:`jl_mean`: at each ε, every entry's |z| within the
    Bonferroni bound over all the table's cells at family-wise false alarm ``family_error``."""
    z = bonferroni_z(len(table), family_error)
    worst = table["z"].abs().groupby(table["epsilon"]).max()
    d = int(table["j"].max()) + 1
    ledger.compare(
        "fig5-jl-unbiased",
        "Fig. 5 (CTG), the JL baseline (Blocki et al. 2012): its estimate of XᵀX/N is"
        " unbiased, its −w²I correction exact (Monte Carlo: the mean of"
        f" {int(table['draws'].iloc[0]):,} releases per ε of a random {d}-feature matrix"
        " against XᵀX/N, every entry, each ε of the panel)",
        worst.to_numpy(), "<=", z, names=("largest |z| of an entry's mean", "Bonferroni bound"),
        note=(f"{len(table)} cells (ε × entries), family-wise false alarm {family_error:g};"
              f" largest |z| {worst.max():.2f}"))
