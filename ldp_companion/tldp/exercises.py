"""Chapter 1's exercises and their answers, computed by the package (see
:mod:`ldp_companion.page.exercises`). Labels are the ``{exercise}`` labels of the page."""
from __future__ import annotations

import math

import numpy as np
from scipy import optimize, stats

from ldp_companion.auditing.audit import clopper_pearson
from ldp_companion.data.datasets import load_digits
from ldp_companion.page.exercises import Between, ExerciseSet
from ldp_companion.tensor.calibration import gaussian_sigma
from ldp_companion.tldp import algorithm as alg
from ldp_companion.tldp.analysis import true_epsilon
from ldp_companion.tldp.privacy import gaussian_mu, gdp_epsilon_exact

__all__ = ["EXERCISES", "MNIST_SIZE", "SMALL_SIZE", "DELTA_8BIT", "AUDIT_N", "DELTA_DIGITS",
           "audit_pair", "audit_proxy"]

EXERCISES = ExerciseSet("01-tldp")

#: ``I`` of a 28 × 28 MNIST image, and of one average-pooled to 14 × 14 (the ceiling exercise's).
MNIST_SIZE, SMALL_SIZE = 784, 196
#: ``Δ`` of 8-bit images (Table I), used by the ceiling exercise.
DELTA_8BIT = 256.0
#: Samples per input of the audit exercise.
AUDIT_N = 200_000
#: ``Δ`` of scikit-learn's digits (values 0..16), the audit exercise's pair.
DELTA_DIGITS = 17.0


def _ceiling() -> dict:
    # for a 14 × 14 image (the page prints the ceilings of 8 × 8, 28 × 28 and 32 × 32 × 3 ones);
    # the argmax of the exact p (in log space, so no underflow) is found numerically,
    # independently of the closed form 1/(I − 1) the exercise derives
    res = optimize.minimize_scalar(
        lambda e: -alg.log_retain_prob(SMALL_SIZE, DELTA_8BIT, e), bounds=(1e-5, 1e-1),
        method="bounded", options={"xatol": 1e-12})
    return {"eps_peak": float(res.x),
            "ceiling": alg.retain_prob_ceiling(SMALL_SIZE, DELTA_8BIT)}


def _rerun() -> dict:
    # per-entry noise sd of TLDP-L is √2 b √(1 − p) with b = Δ/ε: I enters only through p
    def sd(size):
        return math.sqrt(2.0) * alg.noise_scale(2.0, 0.1) * math.sqrt(
            1.0 - alg.retain_prob(size, 2.0, 0.1))

    # true ε of TLDP-L is Iε, TLDP-G's μ is √(2Iε) d/Δ (the chapter's accounting)
    return {"r_sd": sd(SMALL_SIZE) / sd(MNIST_SIZE),
            "r_eps": (true_epsilon("tldp_l", 0.1, SMALL_SIZE)
                      / true_epsilon("tldp_l", 0.1, MNIST_SIZE)),
            "r_mu": float(gaussian_mu(SMALL_SIZE, 2.0, 0.1) / gaussian_mu(MNIST_SIZE, 2.0, 0.1))}


def audit_pair() -> tuple[np.ndarray, np.ndarray]:
    """The audit exercise's pair: the first 0 and the first 1 of scikit-learn's digits.

    Returns
    -------
    x0, x1 : ndarray, shape (8, 8)
        The chapter's ``pairs["digits (Δ = 17)"]`` (values 0..16).
    """
    x, y = load_digits()
    return x[np.argmax(y == 0)].reshape(8, 8), x[np.argmax(y == 1)].reshape(8, 8)


def _pair_mu() -> float:
    """``‖x₀ − x₁‖₂ / σ₁``: the audit pair's shift in units of the baseline's noise,
    ``σ₁ = Δ√(I/2ε)`` at ε = 1."""
    x0, x1 = audit_pair()
    sigma = gaussian_sigma(DELTA_DIGITS * math.sqrt(x0.size), 1.0, method="zcdp")
    return float(np.linalg.norm(x0 - x1) / sigma)


def audit_proxy(mu: float, n: int, confidence: float = 0.95) -> float:
    """A noise-free stand-in for :func:`~ldp_companion.auditing.audit.empirical_audit`'s bound
    between two Gaussians ``μ`` standard deviations apart.

    The largest Clopper–Pearson bound ``log(p_lower / q_upper)`` over the tail regions
    ``{S ≥ c}`` of the projection, with the ``n/2`` held-out counts at their expected values.
    A real audit also picks its region on noisy counts, so it lands a little below this.

    Parameters
    ----------
    mu : float
        The shift of the two laws of the statistic, in standard deviations.
    n : int
        Samples per input.
    confidence : float
        The audit's confidence.

    Returns
    -------
    float
    """
    m, alpha = n // 2, (1.0 - confidence) / 2.0
    c = np.linspace(0.0, 8.0, 4001)
    low, _ = clopper_pearson(m * stats.norm.sf(c - mu), m, alpha)
    _, high = clopper_pearson(m * stats.norm.sf(c), m, alpha)
    with np.errstate(divide="ignore"):
        return float(np.max(np.log(low) - np.log(high)))


def _audit() -> dict:
    mu = _pair_mu()
    proxy = audit_proxy(mu, AUDIT_N)
    # 48 seeded audits at n = 200,000 gave bounds of mean 1.58 and sd 0.10 (min 1.39, max 1.90)
    # against a proxy of 1.645. The range [proxy − 0.6, proxy + 0.55] = [1.05, 2.20] reaches
    # over 5 sd below that mean and 6 above it, and its low end still excludes the nominal
    # ε = 1: an answer "at or below 1" is not yet (the audit flags the pure-ε claim)
    return {"eps_low": Between(proxy - 0.6, proxy + 0.55), "mu_pair": mu,
            "eps_pair": gdp_epsilon_exact(mu, 1e-5)}


EXERCISES.add("tldp-ex-ceiling", "derive", _ceiling, rtol=1e-3)
EXERCISES.add("tldp-ex-rerun", "run", _rerun, rtol=1e-4)
# eps_pair: dp-accounting's PLD (the page's gdp_epsilon) is within 0.2 % above the exact one
EXERCISES.add("tldp-ex-audit", "audit", _audit, rtol=3e-3)
