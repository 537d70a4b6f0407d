"""Chapter 4's exercises and their answers, computed by the package (see
:mod:`ldp_companion.page.exercises`). Labels are the ``{exercise}`` labels of the page."""
from __future__ import annotations

import numpy as np
from scipy.special import expit

from ldp_companion.page.exercises import Between, ExerciseSet
from ldp_companion.spof import noisy, privacy, sensitivity, taylor

__all__ = ["EXERCISES", "N_FEATURES", "C_PUBLIC", "HALF_SIGMA", "HALF_W_SEED", "HALF_L",
           "half_weights", "polynomial_minimizer"]

EXERCISES = ExerciseSet("04-spof")

#: Features of the Fitbit table (Sec. VIII).
N_FEATURES = 14
#: The public stabilization constant of the audit exercise: a point of Fig. 2's sweep (the page
#: audits the paper's 2.5 and 17.5 itself).
C_PUBLIC = 1.25
#: Noise s.d. of the h = ½ exercise, and the seed of its encoder weights.
HALF_SIGMA, HALF_W_SEED = 5.0, 0
#: Code units ``l`` of the h = ½ exercise (also the threshold ``Pr[b_j < l]`` compares with).
HALF_L = 7
#: Monte Carlo draws of each reference probability (two of them: about 0.3 s together).
_HALF_DRAWS = 200_000


def polynomial_minimizer(x, variant: str):
    """The stationary point of one feature's Taylor polynomial ``α₂ z + α₃ z²``.

    Parameters
    ----------
    x : float or array_like
        Feature values in [0, 1].
    variant : {"paper", "exact"}
        Coefficient set (:func:`~ldp_companion.spof.taylor.coefficients`).

    Returns
    -------
    float or ndarray
        ``z* = −α₂ / (2α₃)``: the minimiser where ``α₃ > 0``, a maximum where ``α₃ < 0`` (the
        paper's coefficients for ``x < ½``), and ``nan``/``inf`` where ``α₃ = 0``.
    """
    _, a2, a3 = taylor.coefficients(x, variant)
    return -a2 / (2.0 * a3)


def half_weights() -> np.ndarray:
    """The exercise's encoder weights: ``U(−10, 10)^{14×7}`` from ``default_rng(HALF_W_SEED)``."""
    return np.random.default_rng(HALF_W_SEED).uniform(-10.0, 10.0, (N_FEATURES, HALF_L))


def _minimizer() -> dict:
    # exact coefficients: z* = 4x - 2 is increasing in x, so its ends are x = 0 and x = 1; the
    # paper's: z* at any x > 1/2 (0.75 here) is the same point
    ends = expit(polynomial_minimizer(np.array([0.0, 1.0]), "exact"))
    return {"s_low": float(ends[0]), "s_high": float(ends[1]),
            "s_paper": float(expit(polynomial_minimizer(0.75, "paper")))}


def _audit() -> dict:
    # the paper's coefficients have L1 sensitivity 21 (= Δ̄, Eq. 21), the exact ones 14 (only
    # α₂ varies): both by brute force over [0, 1]
    sens = {v: sensitivity.empirical_sensitivity(lambda g, v=v: taylor.coefficients(g, v)[1:],
                                                 N_FEATURES) for v in ("paper", "exact")}
    paper_scale = sensitivity.laplace_scale(sensitivity.delta_hat(N_FEATURES, C_PUBLIC), 1.0)
    exact_scale = sensitivity.laplace_scale(sens["paper"], 1.0, split="none")
    return {"eps_true": float(privacy.alg1_epsilon(1.0, C_PUBLIC, "public")),
            "factor": float(paper_scale / exact_scale), "sens": sens["exact"]}


def _half() -> dict:
    # p_half is exact (b_j − l = Σ tanh(D_r/2) is odd in the noise); the other two are Monte
    # Carlo estimates (seed 1, 200,000 draws: standard error ≤ 0.0006 at p ≈ 0.07 and 0.93).
    # A student's estimate with the exercise's 200,000 draws differs from them by a standard
    # error ≤ 0.0008, so ± 0.005 is over 6 of them, and still rejects a probability 10 % off.
    w, rng = half_weights(), np.random.default_rng(1)
    low, high = (noisy.mc_prob_bj_below(float(HALF_L), HALF_SIGMA, h, w, _HALF_DRAWS, rng)
                 for h in (0.25, 0.75))
    return {"p_low": Between(low - 0.005, low + 0.005), "p_half": 0.5,
            "p_high": Between(high - 0.005, high + 0.005)}


EXERCISES.add("spof-ex-minimizer", "derive", _minimizer, rtol=1e-3)
EXERCISES.add("spof-ex-audit", "audit", _audit, rtol=1e-3)
# p_half from a Monte Carlo of 200,000 draws (standard error 0.0011) is within 0.006 of ½
EXERCISES.add("spof-ex-half", "run", _half, rtol=0.0, atol=0.006)
