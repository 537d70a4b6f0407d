"""Every mechanism of the five papers: what it claims, what it spends, and how to sample it.

An :class:`Entry` names a mechanism, the paper it comes from, the ε the paper claims when the
mechanism runs at budget ``eps``, its exact ε when the law of its output is known (computed
from the noise the code draws: the calibration functions the mechanism itself calls), and a
sampler with candidate input pairs for the black-box auditor
(:mod:`ldp_companion.auditing.blackbox`). The (ε, δ) mechanisms carry their δ: their ε is judged
at it.
"""
from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ldp_companion.auditing import audit
from ldp_companion.byom.square_wave import SquareWave
from ldp_companion.hiera.graded_laplace import GradedLaplace
from ldp_companion.hiera.levels import paper_levels
from ldp_companion.hiera.privacy import privacy_matrix
from ldp_companion.hiera.protocol import lhp
from ldp_companion.mechanisms import get_mechanism
from ldp_companion.tensor import (
    MECHANISMS,
    gaussian_sigma,
    idn_sigma,
    laplace_scale,
    mvg_iid_sigma,
    tensor_size,
)
from ldp_companion.tensor.calibration import gaussian_epsilon
from ldp_companion.tldp.algorithm import log_retain_prob, tldp
from ldp_companion.tvg.privacy import true_epsilon as tvg_true_epsilon
from ldp_companion.tvg.privacy import worst_mu
from ldp_companion.tvg.release import directional_noise

__all__ = ["Entry", "PAPERS", "SCALAR", "TENSOR", "scalar_entries", "tensor_entries", "udn_noise",
           "tensor_exact", "tldp_exact", "laplace_epsilon", "tldp_weights", "udn_workload",
           "noise_sigma", "scalar_mechanism", "zcdp_claim", "SCALAR_PAIRS", "largest_difference"]

#: The papers, by the chapter that reproduces them.
PAPERS = {"tldp": "Yuan et al. (ch. 1)", "tvg": "Yang et al. (ch. 2)",
          "pm": "Zhao et al. (ch. 3)", "spof": "Habib et al. (ch. 4)",
          "hiera": "Hao et al. (ch. 5)", "byom": "Li et al. (app. B)",
          "book": "this book (ch. 4's baselines)"}
#: The scalar mechanisms on [-1, 1], with the paper that uses them (Laplace and Duchi are the
#: baselines of Zhao et al.; Harmony is Hao et al.'s baseline; Square Wave is Appendix B's).
SCALAR = {"laplace": "pm", "duchi": "pm", "pm": "pm", "hm": "pm", "three_outputs": "pm",
          "pm_opt": "pm", "pm_sub": "pm", "hm_tp": "pm", "harmony": "hiera",
          "square_wave": "byom"}
#: Candidate input pairs of a scalar mechanism on [-1, 1].
SCALAR_PAIRS = [(1.0, -1.0), (-1.0, 1.0), (0.0, 1.0), (1.0, 0.0)]
#: Pairs for the graded mechanisms: values of the least and the most protected levels.
GRADED_PAIRS = [(-1.0, 1.0), (1.0, -1.0), (-0.8, 0.8), (0.8, -0.8)]


@dataclass(frozen=True)
class Entry:
    """One mechanism at one budget."""

    key: str
    paper: str
    kind: str                    # "scalar" or "tensor"
    eps: float                   # the budget it is run at
    claimed: float               # the ε the paper claims for it (at ``delta``)
    exact: float | None          # the ε it spends, from its law (None: law not used here)
    sampler: Callable
    pairs: list
    delta: float = 0.0


def scalar_mechanism(name: str, eps: float):
    """A scalar mechanism of :data:`SCALAR` at budget ``eps``: the registry's, or Appendix B's
    Square Wave (the package's reference, :mod:`ldp_companion.byom.square_wave`)."""
    return SquareWave(eps) if name == "square_wave" else get_mechanism(name, eps)


def _scalar(name: str, eps: float) -> Entry:
    mechanism = scalar_mechanism(name, eps)
    return Entry(name, SCALAR[name], "scalar", eps, eps, audit.exact_audit(mechanism).epsilon,
                 audit.mechanism_sampler(mechanism), SCALAR_PAIRS)


def _graded_laplace(eps: float) -> Entry:
    """Hao et al.'s graded Laplace baseline at base ``eps``: the claim, read as pure LDP, is its
    largest budget (5 ε); the Laplace scales differ between levels, so the ratio of two
    inputs' densities grows without bound in the tails."""
    levels = paper_levels(eps)
    gl = GradedLaplace(levels)
    grid = np.linspace(-1.0, 1.0, 41)
    exact = max(audit.law_log_ratio(gl.output_law(a), gl.output_law(b))[0]
                for a in grid for b in grid if a != b)

    def sample(x, n, rng):
        return gl.privatize(np.full(n, float(x)), rng)

    return Entry("graded_laplace", "hiera", "scalar", eps, float(levels.epsilons.max()),
                 float(exact), sample, GRADED_PAIRS)


def _hiera(eps: float) -> Entry:
    """HierA's user-side report ⟨t*, y⟩ (LHP, Alg. 3) at base ``eps``: Theorem 2 claims graded
    LDP with r = max, at most 5 ε for any pair; its exact joint loss is computed from its law
    (:func:`ldp_companion.hiera.privacy.privacy_matrix`)."""
    levels = paper_levels(eps)

    def sample(x, n, rng):
        t_star, bits = lhp(np.full(n, float(x)), levels, rng)
        return np.column_stack([t_star, bits]).astype(float)

    return Entry("hiera", "hiera", "scalar", eps, float(levels.epsilons.max()),
                 float(privacy_matrix(levels, "joint").max()), sample, GRADED_PAIRS)


def scalar_entries(eps: float) -> list[Entry]:
    """Every scalar mechanism at budget ``eps`` (base budget for the graded ones)."""
    return [_scalar(n, eps) for n in SCALAR] + [_graded_laplace(eps), _hiera(eps)]


def _tensor_sampler(function, eps: float, value_range: float, **options):
    def sample(x, n, rng):
        batch = np.broadcast_to(np.asarray(x, float), (n,) + np.shape(x)).copy()
        return np.asarray(function(batch, eps, value_range, rng=rng, batched=True, **options))
    return sample


def largest_difference(value_range: float) -> float:
    """The largest difference two valid entries can have when the mechanisms are calibrated
    with range Δ = ``value_range``: ``Δ − 1``. An 8-bit pixel takes the Δ = 256 levels
    0, …, 255 (TLDP Table I), so two images differ by at most 255 in an entry: chapter 1's
    worst pair, all 0 against all 255 (its integer column,
    :func:`ldp_companion.tldp.privacy.laplace_true_epsilon` with ``max_diff = Δ − 1``). The
    noise stays calibrated with the paper's Δ; only the pair it is judged on is this one.

    Raises
    ------
    ValueError
        If ``value_range`` is not a whole number of levels, at least 2.
    """
    levels = float(value_range)
    if not (math.isfinite(levels) and levels >= 2 and levels == round(levels)):
        raise ValueError("value_range must be a whole number of levels, at least 2 (8-bit "
                         f"pixels: 256), got {value_range!r}")
    return levels - 1.0


def _difference(value_range: float, max_diff) -> float:
    """The pair's difference in every entry: ``max_diff``, or ``value_range`` when None (a
    continuous range of width Δ, chapter 1's default too); at most the calibrated range."""
    d = float(value_range) if max_diff is None else float(max_diff)
    if not 0 < d <= float(value_range):
        raise ValueError(f"max_diff must be in (0, value_range = {value_range}], got "
                         f"{max_diff!r}")
    return d


#: One entry's largest privacy loss up to which :func:`laplace_epsilon` builds a PLD.
_PLD_MAX_LOSS = 30.0


@functools.lru_cache(maxsize=4096)
def laplace_epsilon(scale: float, max_diff: float, size: int, delta: float) -> float:
    """The ε that ``Lap(scale)`` noise on each of ``size`` entries spends at ``delta`` for the
    extreme pair (every entry differing by ``max_diff``, the pair whose privacy loss
    dominates every other pair's in the box).

    At ``delta = 0`` it is the pure ε, ``size · max_diff / scale``. At ``delta > 0`` it is read
    from the privacy-loss distribution of the ``size``-fold composition (``dp-accounting``'s
    PLD, pessimistic, so an upper bound on the exact value, within 10⁻⁵ relative at a
    discretisation of a twentieth of one entry's loss): much less than the pure ε when the
    loss is spread over many entries (an 8×8 release at δ = 10⁻⁵ spends about 0.43 of it,
    a 28×28 one about 0.11). Cached: a budget search asks for the same values again.
    Beyond a loss of :data:`_PLD_MAX_LOSS` per entry (no comparison comes near: that spends
    thousands of ε) the pure ε is returned, an upper bound within a few percent.
    """
    per_entry = max_diff / scale
    if delta == 0 or per_entry > _PLD_MAX_LOSS:
        return size * per_entry
    from dp_accounting.pld import privacy_loss_distribution as pld

    one = pld.from_laplace_mechanism(parameter=scale, sensitivity=max_diff,
                                     value_discretization_interval=per_entry / 20)
    return float(one.self_compose(int(size)).get_epsilon_for_delta(delta))


def tldp_exact(noise: str, eps: float, size: int, value_range: float, delta: float,
               max_diff: float | None = None) -> float:
    """The ε TLDP, calibrated with range Δ = ``value_range``, spends on a tensor of ``size``
    entries for the extreme pair (every entry differing by ``max_diff``, default Δ), at
    ``delta``. An entry kept exactly (probability p, Alg. 1) is an output the other input never
    gives, so the ε at ``delta`` is infinite once some entry is kept with probability
    ``I p ≥ delta`` (pure ε, ``delta = 0``: whenever p > 0, however small: p is taken in log
    space, where it does not underflow). Otherwise the noise alone decides, at
    ``delta − I p``: TLDP-L adds ``Lap(Δ/ε)`` to every entry (:func:`laplace_epsilon`),
    TLDP-G ``N(0, Δ²/2ε)``."""
    d = _difference(value_range, max_diff)
    log_kept = float(log_retain_prob(size, value_range, eps, noise))
    spare = delta - math.exp(min(0.0, math.log(size) + log_kept))
    if spare <= 0:  # p > 0 always: at delta = 0 the pure ε is infinite
        return math.inf
    if noise == "laplace":
        return laplace_epsilon(value_range / eps, d, size, spare)
    return gaussian_epsilon(math.sqrt(size) * d / (value_range / math.sqrt(2 * eps)), spare)


def noise_sigma(key: str, eps: float, shape, value_range: float, delta: float) -> float:
    """The standard deviation of the noise of an i.i.d. Gaussian tensor mechanism."""
    size = tensor_size(shape)
    s2 = value_range * math.sqrt(size)
    if key == "gaussian":
        return gaussian_sigma(s2, eps, delta, method="zcdp")
    if key == "idn":
        return idn_sigma(size, s2, eps, delta)
    return mvg_iid_sigma(shape[0], size // shape[0], s2, eps, delta)


def tldp_weights(shape) -> np.ndarray:
    """Alg. 2's weights for the weighted forms: rising from 0 to 1 across the tensor's
    entries (an entry of weight 0 is kept as in Alg. 1, so the weighted form spends at least
    what the unweighted one does)."""
    return np.linspace(0.0, 1.0, tensor_size(shape)).reshape(shape)


def udn_workload(shape) -> np.ndarray:
    """The utility subspace W (10 × I₁) of the UDN row: a fixed Gaussian matrix, standing in
    for the first layer that reads the features (TVG's Type III); seeded, so every run has it."""
    return np.random.default_rng(2021).standard_normal((10, shape[0]))


def udn_noise(eps: float, shape, value_range: float, delta: float):
    """UDN's mode-1 factor for :func:`udn_workload` (TVG Alg. 1, Thm. 2): basis and σ."""
    shape2 = (shape[0], tensor_size(shape) // shape[0])
    return directional_noise("udn", udn_workload(shape), shape2, eps, delta,
                             value_range=value_range)


def _udn_exact(eps, shape, value_range, delta, max_diff=None) -> float:
    """UDN's ε at ``delta`` for any pair at ℓ2 distance up to ``max_diff · √I`` (TVG's
    neighbours are any change of Frobenius norm ≤ s₂ = Δ√I, the norm it is calibrated for;
    two tensors of entries 0, …, Δ − 1 are at most (Δ − 1)√I apart): the worst Mahalanobis
    length of its covariance (:func:`ldp_companion.tvg.privacy.worst_mu`)."""
    basis, sigma = udn_noise(eps, shape, value_range, delta)
    cov = (basis * sigma**2) @ basis.T
    n = tensor_size(shape) // shape[0]
    distance = _difference(value_range, max_diff) * math.sqrt(tensor_size(shape))
    return tvg_true_epsilon(worst_mu([cov, np.eye(n)], distance), delta)


def tensor_exact(key: str, eps: float, shape, value_range: float, delta: float,
                 max_diff: float | None = None) -> float:
    """The exact ε at ``delta`` of tensor mechanism ``key`` run at budget ``eps`` and
    calibrated with range Δ = ``value_range`` (``delta = 0``: the pure ε of the Laplace ones),
    for the extreme pair: every entry differing by ``max_diff`` (default Δ, a continuous range;
    8-bit images: :func:`largest_difference`, Δ − 1), UDN any pair at ℓ2 distance
    ``max_diff · √I``. A weighted TLDP form keeps its weight-0 entries as Alg. 1 does, so it
    spends what the unweighted form spends."""
    size, d = tensor_size(shape), _difference(value_range, max_diff)
    if key.removesuffix("_w") in ("tldp_l", "tldp_g"):
        return tldp_exact("laplace" if key.startswith("tldp_l") else "gaussian", eps, size,
                          value_range, delta, d)
    if key == "udn":
        return _udn_exact(eps, shape, value_range, delta, d)
    if key == "laplace":   # calibrated with the ℓ1 sensitivity IΔ (TLDP Thm. 2, Eq. 6)
        return laplace_epsilon(laplace_scale(value_range * size, eps), d, size, delta)
    return gaussian_epsilon(d * math.sqrt(size) / noise_sigma(key, eps, shape, value_range,
                                                              delta), delta)


#: The tensor mechanisms and their papers.
TENSOR = {"tldp_l": "tldp", "tldp_g": "tldp", "tldp_l_w": "tldp", "tldp_g_w": "tldp",
          "laplace": "tldp", "gaussian": "tldp", "idn": "tvg", "udn": "tvg", "mvg": "tvg"}


def _udn_sampler(eps: float, shape, value_range: float, delta: float):
    basis, sigma = udn_noise(eps, shape, value_range, delta)
    rows = shape[0]

    def sample(x, n, rng):
        noise = rng.standard_normal((n, rows, tensor_size(shape) // rows))
        noise = np.einsum("ij,njk->nik", basis * sigma, noise)
        return np.asarray(x, float) + noise.reshape((n,) + tuple(shape))

    return sample


def zcdp_claim(rho: float, delta: float) -> float:
    """The ε at ``delta`` that the book reads into TLDP's claim for its Gaussian baseline,
    ρ-zCDP with ρ = ε (Thm. 2, Eq. 8): ``ρ + 2√(ρ ln 1/δ)`` (Bun and Steinke's conversion,
    the book's choice; the paper states no (ε, δ))."""
    return rho + 2 * math.sqrt(rho * math.log(1 / delta))


def tensor_entries(eps: float, shape, value_range: float, delta: float,
                   max_diff: float | None = None) -> list[Entry]:
    """The tensor mechanisms of TLDP (ch. 1) and TVG (ch. 2) on tensors of ``shape``,
    calibrated with range Δ = ``value_range``, at budget ``eps``, with their exact ε
    (:func:`tensor_exact`) and samplers for the pair all-zero / all-``max_diff`` (default Δ;
    8-bit images: :func:`largest_difference`, the pair all 0 / all 255 of chapter 1)."""
    shape = tuple(int(s) for s in shape)
    d = _difference(value_range, max_diff)
    pair = [(np.zeros(shape), np.full(shape, d))]
    out = []
    for key, paper in TENSOR.items():
        if key.startswith("tldp"):
            options = {"noise": "laplace" if key.startswith("tldp_l") else "gaussian"}
            if key.endswith("_w"):
                options["weights"] = tldp_weights(shape)
            sampler = _tensor_sampler(tldp, eps, value_range, **options)
        elif key == "udn":
            sampler = _udn_sampler(eps, shape, value_range, delta)
        else:
            options = {} if key in ("laplace", "gaussian") else {"delta": delta}
            sampler = _tensor_sampler(MECHANISMS[key], eps, value_range, **options)
        pure = key in ("tldp_l", "tldp_l_w", "laplace")
        claimed = zcdp_claim(eps, delta) if key == "gaussian" else eps
        at = 0.0 if pure else delta   # a pure-ε claim is judged at δ = 0
        out.append(Entry(key, paper, "tensor", eps, claimed,
                         tensor_exact(key, eps, shape, value_range, at, d), sampler, pair,
                         at))
    return out
