"""Chapter 4's releases of one record, for the table of true ε.

Habib et al. (SPOF) release, per record of ``n`` features in [0, 1], a vector of independent
noise around a value computed from the record: Laplace for Alg. 1's coefficients, Prop. 2's
sums and Alg. 2's logit gradient; Gaussian for the parameter-space DP-SGD the book adds as a
baseline. Each law is known, so the exact ε is closed form: the Laplace privacy loss of
:func:`ldp_companion.spof.privacy.laplace_privacy_loss`, the Gaussian profile of
:func:`ldp_companion.tensor.calibration.gaussian_epsilon`. Every coefficient and gradient is
affine in its feature or bounded by its range, so the worst pair is the all-0 record against the
all-1 record. The scales come from the functions the training calls (chapter 4's
``sensitivity`` and ``train``), so a wrong constant there changes a row here.

Rows (:data:`RECORD`): the paper's Alg. 1 at Sec. VIII's setting, its FM form (``c = 0``),
Prop. 2's sum release and Alg. 2 as Eq. 14 writes it (gradient at the expansion point); and the
book's three baselines of Fig. 3, judged against what chapter 4 says they spend.
"""
from __future__ import annotations

import math

import numpy as np

from ldp_companion.compare.catalogue import Entry
from ldp_companion.spof import privacy, sensitivity, train
from ldp_companion.tensor.calibration import gaussian_epsilon

__all__ = ["N_FEATURES", "RECORD", "RECORD_PAIRS", "record_entries", "alg1_readings",
           "alg1_reading_texts"]

#: Features of a Fitbit record (chapter 4).
N_FEATURES = 14
#: The worst pair and its reverse: the all-0 record against the all-1 record.
RECORD_PAIRS = [(np.zeros(N_FEATURES), np.ones(N_FEATURES)),
                (np.ones(N_FEATURES), np.zeros(N_FEATURES))]
#: Chapter 4's releases and who makes the claim: the paper, or the book (its baselines).
RECORD = {"spof_alg1": "spof", "spof_fm": "spof", "spof_prop2": "spof",
          "spof_alg2": "spof", "spof_exact": "book", "dpsgd_logit": "book",
          "dpsgd_param": "book"}


def _two_records(sample_a, sample_b):
    """A sampler for the pair: the all-0 record draws from ``sample_a``, any other from
    ``sample_b`` (the auditor only asks for the two records of :data:`RECORD_PAIRS`)."""
    def sample(x, m, rng):
        return sample_a(m, rng) if not np.any(np.asarray(x)) else sample_b(m, rng)
    return sample


def _laplace_sampler(release: privacy.PairRelease):
    return _two_records(lambda m, rng: release.sample("a", m, rng),
                        lambda m, rng: release.sample("b", m, rng))


def _laplace_pair(mean_a, mean_b, scale) -> privacy.PairRelease:
    n = N_FEATURES
    return privacy.PairRelease(np.full(n, float(mean_a)), np.full(n, float(mean_b)),
                               np.full(n, float(scale)), np.full(n, float(scale)))


def _releases(eps: float, setup: train.Setup) -> dict:
    """Each Laplace release of the worst pair at budget ``eps``."""
    n = N_FEATURES
    exact_a2 = privacy.coefficient_release(np.stack([np.zeros(n), np.ones(n)]), "exact")[:, :n]
    exact_scale = sensitivity.laplace_scale(n, eps, "none")     # what spof_exact draws
    at_a = sensitivity.delta_sgd(n) / eps                       # Eq. 14 at a = 0 (App. B.II)
    current = sensitivity.delta_sgd_current(n, clip=setup.clip) / eps   # what training draws
    return {
        # Sec. VIII: c = 2.5, the literal c_j = c Σ h (two records' encoder sums differ)
        "spof_alg1": privacy.alg1_release(eps, setup.c, setup.reading, setup.split, n=n,
                                          l=setup.code),
        "spof_fm": privacy.alg1_release(eps, 0.0, "public", setup.split, n=n, l=setup.code),
        "spof_prop2": privacy.prop2_release(eps, n),
        "spof_alg2": _laplace_pair(0.5 - 0.0, 0.5 - 1.0, at_a),
        "spof_exact": privacy.PairRelease(exact_a2[0], exact_a2[1], np.full(n, exact_scale),
                                          np.full(n, exact_scale)),
        # σ(z) - x with the logit moving with the record: σ → 1 at x = 0, σ → 0 at x = 1
        "dpsgd_logit": _laplace_pair(1.0, -1.0, current),
    }


def _dpsgd_param(eps: float, setup: train.Setup):
    """Exact ε at ``setup.delta`` and a sampler of the parameter-space DP-SGD: ``epochs``
    releases of a clipped gradient, ``+C`` for one record and ``-C`` for the other along one
    direction (the others carry no information), each plus ``N(0, (σ C)²)``."""
    sigma = train.gaussian_noise_multiplier(eps, setup) * setup.clip
    steps = setup.epochs
    exact = gaussian_epsilon(2 * setup.clip * math.sqrt(steps) / sigma, setup.delta)

    def draw(sign):
        return lambda m, rng: sign * setup.clip + sigma * rng.standard_normal((m, steps))

    return exact, _two_records(draw(1.0), draw(-1.0))


def record_entries(eps: float, setup: train.Setup | None = None) -> list:
    """Chapter 4's releases at budget ``eps`` with the chapter's setting (``setup``, default
    Sec. VIII's), as :class:`~ldp_companion.compare.catalogue.Entry` rows of kind
    ``"record"``."""
    setup = train.Setup() if setup is None else setup
    out = [Entry(key, RECORD[key], "record", eps, eps, release.epsilon,
                 _laplace_sampler(release), RECORD_PAIRS)
           for key, release in _releases(eps, setup).items()]
    exact, sampler = _dpsgd_param(eps, setup)
    out.append(Entry("dpsgd_param", "book", "record", eps, eps, exact, sampler, RECORD_PAIRS,
                     setup.delta))
    return out


def alg1_readings(setup: train.Setup | None = None) -> dict[str, float]:
    """The share of its budget that Alg. 1 spends at Sec. VIII's ``c`` under the two readings
    of its stabilisation constant (chapter 4, :func:`ldp_companion.spof.privacy.alg1_epsilon`):
    ``"literal"``, ``c_j = c Σ h`` computed from each record's encoder sums (the table's row:
    two records' sums differ, so ∞), and ``"public"``, ``c_j = c`` a constant every record
    shares (over-noised). Also ``"c"``, the constant."""
    setup = train.Setup() if setup is None else setup
    share = {reading: float(privacy.alg1_epsilon(1.0, setup.c, reading, setup.split,
                                                 n=N_FEATURES, l=setup.code))
             for reading in ("data", "public")}
    return {"literal": share["data"], "public": share["public"], "c": float(setup.c)}


def alg1_reading_texts(setup: train.Setup | None = None) -> dict[str, str]:
    """:func:`alg1_readings` as the page prints them ("∞" for an infinite share)."""
    return {key: "∞" if math.isinf(value) else f"{value:.3g}"
            for key, value in alg1_readings(setup).items()}
