"""What TLDP really spends: accounting and attacks for Theorems 1 and 3.

* TLDP-L adds ``Lap(Δ/ε)`` to every entry that is not kept. Two tensors whose entries differ by
  up to ``d`` (``d = Δ`` on a continuous range of width ``Δ``, ``Δ − 1`` on ``{0, …, Δ−1}``)
  then have privacy loss up to ``I d ε / Δ``: :func:`laplace_true_epsilon`. With ``p > 0`` the
  kept entries are atoms, so the exact statement is ``(I d ε/Δ, 1 − (1 − p)^I)``-DP
  (:func:`atom_delta`).
* TLDP-G adds ``N(0, Δ²/2ε)`` to every entry: a Gaussian mechanism of ℓ2 sensitivity
  ``d√I``, i.e. ``μ``-Gaussian DP with ``μ = d√I / σ = √(2Iε) d/Δ`` (:func:`gaussian_mu`),
  converted to ``(ε′, δ)`` by a privacy-loss-distribution accountant (``dp-accounting``,
  :func:`gdp_epsilon`).
* The distinguishing attack (:func:`lr_attack_accuracy`): the likelihood-ratio test between
  two known inputs, from one output; under ε-LDP no test is right more than
  ``e^ε/(1 + e^ε)`` of the time (Kairouz et al. 2015).
* What a mechanism of the experiments spends, measured from the noise it adds
  (:func:`spent_epsilon`): the accounting above predicts it from the paper's calibration, the
  measurement reads the scale of the noise the code draws, so a noise scale off by a factor
  shows as a mismatch.
"""
from __future__ import annotations

import numpy as np

from ldp_companion.auditing.montecarlo import estimated_scale
from ldp_companion.tensor.backend import check_tensor
from ldp_companion.tensor.calibration import check_delta, check_value_range, gaussian_epsilon
from ldp_companion.tldp.algorithm import _check_noise, _tldp
from ldp_companion.tldp.mechanisms import perturb
from ldp_companion.validation import check_epsilon, check_positive_int, check_rng

__all__ = ["laplace_true_epsilon", "gaussian_mu", "atom_delta", "gdp_epsilon",
           "gdp_epsilon_exact", "spent_epsilon",
           "laplace_loss", "gaussian_loss", "mean_laplace_loss", "copies_sampler", "tldp_sampler",
           "lr_attack_accuracy", "window_probabilities", "weighted_bound_threshold"]


def _max_diff(value_range, max_diff):
    delta_range = check_value_range(value_range)
    d = delta_range if max_diff is None else check_value_range(max_diff, "max_diff")
    if d > delta_range:
        raise ValueError(f"max_diff ({d}) cannot exceed the range Δ = {delta_range}")
    return delta_range, d


def laplace_true_epsilon(size, value_range, epsilon, max_diff=None):
    """``I · d · ε / Δ``: the pure-DP ε of i.i.d. ``Lap(Δ/ε)`` noise on every entry (TLDP-L
    with ``p = 0``), tight for two tensors differing by ``d`` in every entry.

    Parameters
    ----------
    size : int
        ``I``.
    value_range : float
        ``Δ``.
    epsilon : float or array_like
        The paper's ε.
    max_diff : float, optional
        ``d``, the largest difference of two entries: ``Δ`` (default, a continuous range of
        width Δ) or ``Δ − 1`` (the integers ``{0, …, Δ−1}`` of Table I).
    """
    delta_range, d = _max_diff(value_range, max_diff)
    return check_positive_int(size, "size") * d * np.asarray(epsilon, float) / delta_range


def gaussian_mu(size, value_range, epsilon, max_diff=None):
    """``μ = d√I / σ = √(2Iε) · d/Δ``: TLDP-G (``σ² = Δ²/2ε``) as μ-Gaussian DP (Dong, Roth &
    Su 2022), for two tensors differing by ``d`` in every entry."""
    delta_range, d = _max_diff(value_range, max_diff)
    eps = np.asarray(epsilon, float)
    return np.sqrt(2.0 * check_positive_int(size, "size") * eps) * d / delta_range


def atom_delta(size, log_p):
    """``1 − (1 − p)^I``: the δ any (ε′, δ) statement of TLDP needs, from the atoms at the
    input that the kept entries create (computed from ``ln p``)."""
    p = np.exp(np.asarray(log_p, float))
    return -np.expm1(check_positive_int(size, "size") * np.log1p(-p))


_PLD_MAX_MU = 300.0


def gdp_epsilon(mu, delta=1e-5, *, resolution: float = 1e-3) -> float:
    """ε′ such that μ-Gaussian DP is (ε′, δ)-DP, from ``dp_accounting``'s privacy-loss
    distribution of the Gaussian mechanism (noise 1/μ, sensitivity 1; a pessimistic
    discretization, so ε′ is an upper bound, accurate to about ``resolution`` relative)."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    mu = check_epsilon(mu, "mu")
    if mu > _PLD_MAX_MU:
        raise ValueError(f"mu = {mu:g} is beyond what the PLD accountant discretizes here (at "
                         f"most {_PLD_MAX_MU:g}); use gdp_epsilon_exact")
    delta = check_delta(delta)
    interval = resolution * max(1.0, mu * mu / 50.0)  # the loss spans ~μ²/2 ± a few μ
    dist = pld.from_gaussian_mechanism(standard_deviation=1.0 / mu, sensitivity=1.0,
                                       value_discretization_interval=interval)
    return float(dist.get_epsilon_for_delta(delta))


def gdp_epsilon_exact(mu, delta=1e-5) -> float:
    """ε′ solving the exact privacy profile of μ-GDP, ``Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) = δ``
    (Dong, Roth & Su 2022, Cor. 2.13; Balle & Wang 2018): the cross-check of
    :func:`gdp_epsilon`."""
    return gaussian_epsilon(check_epsilon(mu, "mu"), delta)


def laplace_loss(y, x, x_prime, scale):
    """Privacy loss ``ln f(y | x) / f(y | x′) = Σᵢ (|yᵢ − x′ᵢ| − |yᵢ − xᵢ|) / b`` of i.i.d.
    Laplace noise, for a batch of outputs ``y`` (first axis)."""
    y = np.asarray(y, float)
    axes = tuple(range(1, y.ndim))
    return (np.abs(y - x_prime) - np.abs(y - x)).sum(axis=axes) / scale


def gaussian_loss(y, x, x_prime, sigma):
    """Privacy loss ``Σᵢ ((yᵢ − x′ᵢ)² − (yᵢ − xᵢ)²) / 2σ²`` of i.i.d. Gaussian noise."""
    y = np.asarray(y, float)
    axes = tuple(range(1, y.ndim))
    return ((y - x_prime) ** 2 - (y - x) ** 2).sum(axis=axes) / (2.0 * sigma**2)


def mean_laplace_loss(x, x_prime, scale) -> float:
    """``E[L] = Σᵢ (tᵢ + e^{−tᵢ} − 1)``, ``tᵢ = |xᵢ − x′ᵢ| / b``: the mean privacy loss of
    i.i.d. Laplace noise under ``x`` (a Kullback–Leibler divergence)."""
    t = np.abs(np.asarray(x, float) - np.asarray(x_prime, float)) / scale
    return float(np.sum(t + np.expm1(-t)))


def copies_sampler(mechanism, epsilon, value_range, **kwargs):
    """``sampler(x, n, rng)``: ``n`` independent outputs of a batched tensor mechanism for one
    tensor ``x`` (``n`` copies perturbed in one call), for
    :func:`ldp_companion.auditing.audit.empirical_audit` and :func:`lr_attack_accuracy`.

    ``mechanism(batch, epsilon, value_range, rng=..., batched=True, **kwargs)`` is TLDP or any
    mechanism of :mod:`ldp_companion.tensor`."""
    def sample(x, n, rng):
        batch = np.broadcast_to(np.asarray(x, float), (int(n),) + np.shape(x))
        return mechanism(batch, epsilon, value_range, rng=rng, batched=True, **kwargs)

    return sample


def tldp_sampler(epsilon, value_range, noise: str = "laplace"):
    """:func:`copies_sampler` of TLDP (Alg. 1), its arguments checked once: each call checks
    the one tensor ``x``, not its ``n`` copies (the same draws as
    :func:`~ldp_companion.tldp.algorithm.tldp` on the copies)."""
    eps, delta_range = check_epsilon(epsilon), check_value_range(value_range)
    noise = _check_noise(noise)

    def sample(x, n, rng):
        x = check_tensor(np.asarray(x, float))
        batch = np.broadcast_to(x, (int(n),) + x.shape)
        return _tldp(batch, eps, delta_range, rng, noise, None, batched=True)

    return sample


def lr_attack_accuracy(sampler, x0, x1, loss, n: int, rng, *, batch: int = 2_000) -> float:
    """Balanced accuracy of the likelihood-ratio test between two known inputs.

    Draw ``n`` outputs under each input; say "x0" when ``loss(y) > 0`` (the log-likelihood
    ratio of x0 over x1; ties count one half). The threshold is fixed in advance (0, the
    Bayes test with equal priors), so the estimate is unbiased; its standard error is at most
    ``1/(2√(2n))``. Under ε-LDP the true accuracy is at most ``e^ε/(1 + e^ε)``.

    Parameters
    ----------
    sampler : callable
        ``sampler(x, m, rng) -> (m, *shape)`` outputs.
    x0, x1 : array_like
        The two inputs.
    loss : callable
        ``loss(y) -> (m,)`` log-likelihood ratios ``ln f(y | x0) / f(y | x1)``.
    n : int
        Outputs per input.
    rng : numpy.random.Generator
    batch : int
        Outputs per sampler call (memory).
    """
    n = check_positive_int(n, "n")
    rng = check_rng(rng)
    right = 0.0
    for x, sign in ((x0, 1.0), (x1, -1.0)):
        done = 0
        while done < n:
            m = min(batch, n - done)
            s = sign * loss(sampler(x, m, rng))
            right += float((s > 0).sum() + 0.5 * (s == 0).sum())
            done += m
    return right / (2 * n)


def window_probabilities(epsilon, value_range, etas, n: int, rng, *, x=0.0, x_prime=1.0):
    """Theorem 1's mass-versus-density flaw on one entry (``I = 1``): the probabilities that
    TLDP-L's output lands in ``[x − η, x + η]`` when the input is ``x`` and when it is
    ``x′``, from ``n`` draws each (their ratio must stay below ``e^ε`` under ε-LDP).

    Returns
    -------
    p_x, p_x_prime : ndarray
        One entry per ``η``.
    """
    etas = np.asarray(etas, float)
    sample = tldp_sampler(epsilon, value_range)
    y0 = sample(np.array([x]), n, rng)[:, 0]
    y1 = sample(np.array([x_prime]), n, rng)[:, 0]
    inside = lambda y: (np.abs(y[:, None] - x) <= etas[None, :]).mean(axis=0)  # noqa: E731
    return inside(y0), inside(y1)


def weighted_bound_threshold(epsilon):
    """``1 − e^{−ε}``: Theorem 3 bounds the ratio by ``(1 − w) e^ε``, which is below 1 (so
    impossible: take the whole output space) for every weight above this."""
    return -np.expm1(-np.asarray(epsilon, float))


#: The experiments' mechanisms whose noise is i.i.d. on every entry, by noise law.
_NOISE_OF = {"tldp_l": "laplace", "laplace": "laplace", "tldp_g": "gaussian",
             "gaussian": "gaussian"}


def spent_epsilon(mechanism: str, shape, value_range, epsilon, n: int, rng, *,
                  delta: float = 1e-5, z: float = 4.0) -> dict:
    """The ε a mechanism of the experiments spends on one tensor, measured from its noise.

    ``n`` tensors of zeros of ``shape`` go through
    :func:`ldp_companion.tldp.mechanisms.perturb` (what the experiments call); the scale of
    the noise is estimated (:func:`ldp_companion.auditing.montecarlo.estimated_scale`) and turned
    into what two tensors whose entries differ by the whole range ``Δ`` cost: ``IΔ/b̂`` for Laplace
    noise (pure ε), and for Gaussian noise the ``(ε′, δ)`` of ``μ̂ = Δ√I/σ̂``-Gaussian DP (the exact
    profile, :func:`gdp_epsilon_exact`). TLDP's kept entries would bias the estimate; with ``p``
    underflowing (every realistic ``I``) there are none.

    Parameters
    ----------
    mechanism : {"tldp_l", "tldp_g", "laplace", "gaussian"}
    shape : tuple of int
        The shape of one tensor.
    value_range : float
        ``Δ``.
    epsilon : float
        The nominal ε the mechanism is run at.
    n : int
        Tensors drawn.
    rng : numpy.random.Generator
    delta : float
        ``δ`` of the Gaussian mechanisms' ``(ε′, δ)``.
    z : float
        Half-width of the interval, in standard errors of the scale.

    Returns
    -------
    dict
        ``epsilon`` (measured), ``low`` and ``high`` (its interval at ``±z`` standard errors
        of the scale), ``scale`` (``b̂`` or ``σ̂``) and ``scale_rse`` (its relative standard
        error).
    """
    if mechanism not in _NOISE_OF:
        raise ValueError(f"mechanism must be one of {tuple(_NOISE_OF)}, got {mechanism!r}")
    n = check_positive_int(n, "n")
    d = check_value_range(value_range)
    noise = np.asarray(perturb(mechanism, np.zeros((n, *tuple(shape))), epsilon,
                               value_range=d, rng=check_rng(rng)), float)
    size = int(np.prod(shape))
    scale, se = estimated_scale(noise, _NOISE_OF[mechanism])
    rse = se / scale
    scales = scale * np.array([1.0, 1.0 + z * rse, 1.0 - z * rse])
    if _NOISE_OF[mechanism] == "laplace":
        eps = size * d / scales
    else:
        eps = np.array([gdp_epsilon_exact(d * np.sqrt(size) / s, delta) for s in scales])
    return {"epsilon": float(eps[0]), "low": float(eps[1]), "high": float(eps[2]),
            "scale": scale, "scale_rse": rse}
