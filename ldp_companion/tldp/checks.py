"""The numbers chapter 1 checks the paper's derivations with (Alg. 1–2, Theorems 1–3).

Each function computes one piece of evidence the page shows and the ledger decides on
(:mod:`ldp_companion.tldp.claims` records them): Alg. 1's retaining probability across tensor
sizes, the steps of Theorem 1's proof, what TLDP really spends (accounted and measured), the
empirical audits and the distinguishing attack, Theorem 2's "same budget", Theorem 3's bound
and Alg. 2's keep rate. Random draws come from the ``rng`` the page passes, in the order the
page calls these functions.
"""
from __future__ import annotations

import functools
import math

import numpy as np
import pandas as pd
from scipy import stats

from ldp_companion.auditing.audit import empirical_audit, ldp_accuracy_bound
from ldp_companion.data.datasets import load_digits, load_mnist_test
from ldp_companion.tensor import laplace_mechanism
from ldp_companion.tldp import algorithm as alg
from ldp_companion.tldp import privacy

__all__ = ["DELTA_PAPER", "Z", "SHAPES", "SIZES", "EPS_DENSE", "W_GRID", "ETAS",
           "log10_p_table", "ceiling_table", "first_zero_epsilon", "images_per_kept_pixel",
           "window_table", "proof_steps", "accounting_table", "mnist_at_eps1", "spent_table",
           "extreme_pair_loss", "image_pairs", "audit_table", "attack_table",
           "ATTACK_MECHANISMS", "attack_standard_error", "mnist_unit_images", "same_outputs",
           "same_law", "weight_audits", "keep_rates", "weights_change_outputs",
           "noise_ratio_table", "PAIR_DRAWS", "integer_pair_epsilon", "atom_delta_exact"]

#: Δ of Tables I–IV (8-bit images).
DELTA_PAPER = 256.0
#: |z| bound of the Monte Carlo checks (two-sided tail 6×10⁻⁵ per check).
Z = 4.0
#: Tensor shapes of the retaining-probability checks.
SHAPES = {"digits 8×8": (8, 8), "MNIST 28×28": (28, 28), "CIFAR 32×32×3": (32, 32, 3)}
#: Tensor sizes I of the log₁₀ p table and figure.
SIZES = {"1 entry": 1, "2×2": 4, **{k: math.prod(v) for k, v in SHAPES.items()}}
#: The dense ε grid the ceilings are checked on.
EPS_DENSE = np.logspace(-6, 1, 20_001)
#: Weights of Theorem 3's and Alg. 2's one-entry checks.
W_GRID = np.array([0.0, 0.25, 0.5, 0.75, 1.0])
#: Half-widths of Theorem 1's windows [−η, η].
ETAS = np.array([0.1, 1e-3, 1e-6])
#: The mechanisms of the distinguishing attack.
ATTACK_MECHANISMS = ("tldp_l", "tldp_g", "laplace")
_MNIST = 784  # I of a 28 × 28 image


def log10_p_table(eps_grid) -> pd.DataFrame:
    """log₁₀ p of TLDP-L (Alg. 1) for each tensor size of :data:`SIZES` (rows) and ε
    (columns, ``"ε = …"``), Δ = 256."""
    return pd.DataFrame(
        {f"ε = {e:g}": [alg.log10_retain_prob(n, DELTA_PAPER, e) for n in SIZES.values()]
         for e in eps_grid},
        index=pd.Index(list(SIZES), name="tensor (Δ = 256)")).round(2)


def ceiling_table() -> pd.DataFrame:
    """For the digits, MNIST and CIFAR shapes and both noises: the largest p of Alg. 1 over
    :data:`EPS_DENSE`, where it is reached, the closed-form ceiling
    (:func:`~ldp_companion.tldp.algorithm.retain_prob_ceiling`) and the most entries a tensor
    keeps on average (``I · max p``)."""
    rows = []
    for name, n in list(SIZES.items())[2:]:
        for noise in alg.NOISES:
            p_dense = alg.retain_prob(n, DELTA_PAPER, EPS_DENSE, noise)
            rows.append({"tensor": name, "noise": noise, "max p over ε": p_dense.max(),
                         "at ε": EPS_DENSE[p_dense.argmax()],
                         "ceiling": alg.retain_prob_ceiling(n, DELTA_PAPER, noise),
                         "kept entries per tensor, at most": n * p_dense.max()})
    return pd.DataFrame(rows)


def first_zero_epsilon(size: int = _MNIST) -> float:
    """The first ε of :data:`EPS_DENSE` where TLDP-L's p is exactly 0.0 in float64."""
    return float(EPS_DENSE[np.argmax(alg.retain_prob(size, DELTA_PAPER, EPS_DENSE) == 0.0)])


def images_per_kept_pixel(ceilings: pd.DataFrame) -> float:
    """How many MNIST images TLDP-L perturbs, at the most favourable ε, per pixel it keeps."""
    mnist = (ceilings["noise"] == "laplace") & (ceilings["tensor"] == "MNIST 28×28")
    return float(1 / ceilings.loc[mnist, "kept entries per tensor, at most"].item())


def window_table(n: int, rng) -> pd.DataFrame:
    """Theorem 1 on one entry (I = 1, Δ = 2, ε = 1): the probabilities of the windows
    [−η, η] under inputs 0 and 1 (``n`` draws each) and their ratio."""
    p_in, p_out = privacy.window_probabilities(1.0, 2.0, ETAS, n, rng)
    with np.errstate(divide="ignore"):
        ratio = p_in / p_out
    return pd.DataFrame({"η": ETAS, "Pr[M(0) ∈ [−η, η]]": p_in,
                         "Pr[M(1) ∈ [−η, η]]": p_out, "ratio": ratio})


def proof_steps(epsilon: float = 1.0) -> dict:
    """The logs Theorem 1's proof compares, for an MNIST image (Δ = 256): ``ln p^I``,
    ``ln (1 − p)^I`` and the log of the proof's bound ``(p/(1−p)·2b)^t · e^(IΔ/b)`` at
    ``t = 0`` and ``t = 1`` kept entries (p and b as TLDP-L computes them)."""
    log_p = alg.log_retain_prob(_MNIST, DELTA_PAPER, epsilon)
    log_q = np.log1p(-math.exp(log_p))
    b = alg.noise_scale(DELTA_PAPER, epsilon)
    bound = [t * (log_p - log_q + math.log(2 * b)) + _MNIST * DELTA_PAPER / b for t in (0, 1)]
    return {"log_all_kept": _MNIST * log_p, "log_none_kept": _MNIST * log_q,
            "log_bound_t0": bound[0], "log_bound_t1": bound[1], "epsilon": epsilon}


def accounting_table(eps_grid) -> pd.DataFrame:
    """What TLDP and the Gaussian baseline spend on an MNIST image (Δ = 256), per nominal ε:
    TLDP-L's ``Iε(Δ−1)/Δ`` (integers) and ``Iε`` (continuous range), TLDP-G's μ, its
    ``(ε′, 10⁻⁵)`` by ``dp-accounting`` and exactly, and the Gaussian baseline's ε′
    (μ = √(2ε) whatever I; Theorem 2's Eq. 8)."""
    eps = np.asarray(eps_grid, float)
    mu_g = privacy.gaussian_mu(_MNIST, DELTA_PAPER, eps)
    return pd.DataFrame({
        "nominal ε": eps,
        "tldp_l_int": privacy.laplace_true_epsilon(_MNIST, DELTA_PAPER, eps,
                                                   max_diff=DELTA_PAPER - 1),
        "tldp_l": privacy.laplace_true_epsilon(_MNIST, DELTA_PAPER, eps),
        "tldp_g_mu": mu_g,
        "tldp_g": [privacy.gdp_epsilon(m, 1e-5) for m in mu_g],
        "tldp_g_exact": [privacy.gdp_epsilon_exact(m, 1e-5) for m in mu_g],
        "gaussian": [privacy.gdp_epsilon(m, 1e-5) for m in np.sqrt(2 * eps)],
    })


def mnist_at_eps1() -> dict:
    """The page's glued numbers at the paper's ε = 1: TLDP-L's true ε on an MNIST image
    (integers), TLDP-G's ε′ at δ = 10⁻⁵, the Gaussian baseline's ε′ (μ = √2) and log₁₀ of
    the atoms' δ ≈ Ip."""
    log_p = alg.log_retain_prob(_MNIST, DELTA_PAPER, 1.0)
    return {
        "tldp-true-l-mnist": float(privacy.laplace_true_epsilon(
            _MNIST, DELTA_PAPER, 1.0, max_diff=DELTA_PAPER - 1)),
        "tldp-true-g-mnist": float(privacy.gdp_epsilon(
            privacy.gaussian_mu(_MNIST, DELTA_PAPER, 1.0))),
        "tldp-gauss-base-eps1": privacy.gdp_epsilon(math.sqrt(2.0)),
        # 1 − (1 − p)^I ≈ Ip: its log₁₀ (the value itself underflows)
        "tldp-log10-atom-delta": (math.log(_MNIST) + log_p) / math.log(10),
    }


def spent_table(eps_grid, n: int, rng) -> pd.DataFrame:
    """The ε each of TLDP-L, TLDP-G and the two baselines spends on an MNIST-shaped tensor,
    measured from the noise it adds to ``n`` tensors of zeros
    (:func:`~ldp_companion.tldp.privacy.spent_epsilon`), one row per (mechanism, ε)."""
    return pd.DataFrame([
        {"mechanism": m, "nominal ε": e,
         **privacy.spent_epsilon(m, (28, 28), DELTA_PAPER, e, n, rng)}
        for m in ("tldp_l", "tldp_g", "laplace", "gaussian") for e in eps_grid])


def extreme_pair_loss(n: int, rng) -> dict:
    """TLDP-L's privacy loss at ε = 1 on the worst MNIST pair (all 0 against all 255),
    ``n`` draws under the first input: its mean, standard error and 1 %/99 % quantiles, and
    the closed-form mean ``I(t + e^(−t) − 1)``."""
    x0, x1 = np.zeros((28, 28)), np.full((28, 28), DELTA_PAPER - 1)
    b = DELTA_PAPER / 1.0  # Alg. 1's b = Δ/ε at ε = 1, typed from the paper
    draws = privacy.tldp_sampler(1.0, DELTA_PAPER)(x0, n, rng)
    loss = privacy.laplace_loss(draws, x0, x1, b)
    return {"mean": loss.mean(), "closed form": privacy.mean_laplace_loss(x0, x1, b),
            "se": loss.std(ddof=1) / math.sqrt(loss.size),
            "q01": np.quantile(loss, 0.01), "q99": np.quantile(loss, 0.99)}


@functools.lru_cache(maxsize=1)
def _mnist_test():
    images, labels = load_mnist_test(normalize=False)
    return images, labels


def image_pairs() -> dict:
    """The audited pairs: the first 0 and the first 1 of the MNIST test split (Δ = 256) and
    of scikit-learn's digits (Δ = 17), as ``name: (x0, x1, Δ)``."""
    images, labels = _mnist_test()
    x, y = load_digits()
    return {
        "MNIST test (Δ = 256)": (images[np.argmax(labels == 0)].astype(float),
                                 images[np.argmax(labels == 1)].astype(float), DELTA_PAPER),
        "digits (Δ = 17)": (x[np.argmax(y == 0)].reshape(8, 8),
                            x[np.argmax(y == 1)].reshape(8, 8), 17.0),
    }


def audit_table(pairs: dict, eps_grid, n: int, rng) -> pd.DataFrame:
    """The auditor's 95 % lower bound on ε (:func:`~ldp_companion.auditing.audit.empirical_audit`,
    ``n`` outputs per input) of TLDP-L and TLDP-G on each pair, per nominal ε."""
    rows = []
    for pair, (a, b, d) in pairs.items():
        for noise in alg.NOISES:
            for e in eps_grid:
                audit = empirical_audit(privacy.tldp_sampler(e, d, noise), a, b, n, rng,
                                        claimed_epsilon=e)
                rows.append({"pair": pair, "mechanism": f"TLDP-{noise[0].upper()}",
                             "nominal ε": e, "audited ε ≥": audit.epsilon_lower})
    return pd.DataFrame(rows)


def _attacks(x0, x1, d: float, e: float) -> dict:
    """Sampler and log-likelihood ratio of each attacked mechanism at ε = ``e``."""
    b_l, s_g = alg.noise_scale(d, e), alg.noise_scale(d, e, "gaussian")
    b_base = x0.size * d / e  # the Laplace baseline's b₁ = IΔ/ε (Eq. 6)
    return {
        "tldp_l": (privacy.tldp_sampler(e, d),
                   lambda o: privacy.laplace_loss(o, x0, x1, b_l)),
        "tldp_g": (privacy.tldp_sampler(e, d, "gaussian"),
                   lambda o: privacy.gaussian_loss(o, x0, x1, s_g)),
        "laplace": (privacy.copies_sampler(laplace_mechanism, e, d),
                    lambda o: privacy.laplace_loss(o, x0, x1, b_base)),
    }


def attack_table(pair: tuple, eps_grid, n: int, rng) -> pd.DataFrame:
    """Accuracy of the likelihood-ratio test telling ``pair = (x0, x1, Δ)`` apart from one
    output (``n`` outputs per input), for TLDP-L, TLDP-G and the Laplace baseline at each ε,
    with the ε-LDP ceiling ``e^ε/(1 + e^ε)``."""
    x0, x1, d = pair
    rows = []
    for e in eps_grid:
        for name, (sampler, llr) in _attacks(x0, x1, d, e).items():
            acc = privacy.lr_attack_accuracy(sampler, x0, x1, llr, n, rng)
            rows.append({"mechanism": name, "nominal ε": e, "accuracy": acc})
    attack = pd.DataFrame(rows)
    return attack.assign(bound=ldp_accuracy_bound(attack["nominal ε"]))


def attack_standard_error(n: int) -> float:
    """The largest standard error of an accuracy estimated from ``n`` outputs per input."""
    return 1 / (2 * math.sqrt(2 * n))


def mnist_unit_images(count: int = 50) -> np.ndarray:
    """The first ``count`` MNIST test images on [−1, 1] (Δ = 2)."""
    return _mnist_test()[0][:count].astype(float) / 127.5 - 1.0


def same_outputs(images: np.ndarray, eps_grid, seed: int) -> list[bool]:
    """Per ε: does TLDP-L at ε return the Laplace baseline at Iε, to rounding, with one seed
    (Theorem 2; ``images`` on [−1, 1], Δ = 2)?"""
    size = math.prod(images.shape[1:])
    out = []
    for e in eps_grid:
        a = alg.tldp(images, e, 2.0, rng=np.random.default_rng(seed), batched=True)
        b = laplace_mechanism(images, size * e, 2.0, rng=np.random.default_rng(seed),
                              batched=True)
        out.append(bool(np.allclose(a, b, rtol=0, atol=1e-9)))
    return out


def same_law(n: int, rng):
    """Two-sample KS test between TLDP-L's noise at ε = 1 and the Laplace baseline's at
    ε = 64 on ``n`` digits-shaped tensors each (independent draws)."""
    noise_l = alg.tldp(np.zeros((n, 8, 8)), 1.0, 2.0, rng=rng, batched=True).ravel()
    noise_b = laplace_mechanism(np.zeros((n, 8, 8)), 64.0, 2.0, rng=rng, batched=True)
    return stats.ks_2samp(noise_l, noise_b.ravel())


def weight_audits(n: int, rng) -> np.ndarray:
    """Theorem 3 on one entry (I = 1, Δ = 2, ε = 1, inputs 0 and 1): the auditor's 95 % lower
    bound on ε of weighted TLDP for each weight of :data:`W_GRID`, over windows around the
    first input."""
    one0, one1 = np.zeros(1), np.ones(1)
    return np.array([
        empirical_audit(privacy.copies_sampler(alg.tldp, 1.0, 2.0, weights=np.array([w])),
                        one0, one1, n, rng,
                        statistic=lambda y: -np.abs(y[:, 0])).epsilon_lower
        for w in W_GRID])


def keep_rates(n: int, rng) -> tuple[np.ndarray, list]:
    """Alg. 2 on one entry (I = 1, Δ = 2, ε = 1): the keep probability ``(1 − w)p`` as
    printed (Alg. 2, line 4) and the rate the implementation keeps at, ``n`` draws per weight
    of :data:`W_GRID`."""
    b = 2.0 / 1.0  # b = Δ/ε with Δ = 2, ε = 1
    a = math.exp(1.0 - 1 * 2.0 / b)  # e^(ε − IΔ/b), I = 1
    q = (1 - W_GRID) * a / (2 * b + a)
    rates = [alg.tldp(np.zeros((n, 1)), 1.0, 2.0, rng=rng, batched=True,
                      weights=np.full((n, 1), w), return_mask=True)[1].mean()
             for w in W_GRID]
    return q, rates


def weights_change_outputs(images: np.ndarray) -> np.ndarray:
    """For TLDP-L and TLDP-G at ε = 1: are weighted TLDP's outputs on ``images`` (Δ = 2,
    intensity weights) identical to unweighted TLDP's with the same seed?"""
    weights = alg.intensity_weights(images, 2.0)
    same = []
    for noise in alg.NOISES:
        plain = alg.tldp(images, 1.0, 2.0, rng=np.random.default_rng(1), noise=noise,
                         batched=True)
        weighted = alg.tldp(images, 1.0, 2.0, rng=np.random.default_rng(1), noise=noise,
                            weights=weights, batched=True)
        same.append(np.array_equal(plain, weighted))
    return np.array(same)


def noise_ratio_table(tv: pd.DataFrame) -> pd.DataFrame:
    """TLDP-L's noise norm over TLDP-G's per ε: Table V's constant 2√2, the corrected
    ``2/√ε`` and the Monte Carlo ratio (``tv`` from :func:`~ldp_companion.tldp.error.table_v`)."""
    norms = tv.pivot_table(index="epsilon", columns="mechanism", values="monte carlo")
    measured = norms["tldp_l"] / norms["tldp_g"]
    return pd.DataFrame({"Table V: 2√2": 2 * math.sqrt(2),
                         "corrected: 2/√ε": 2 / np.sqrt(measured.index),
                         "Monte Carlo": measured}).rename_axis("ε")


#: Outputs per image of :func:`integer_pair_epsilon`: an entry's draws all miss the side of the
#: input where its privacy loss is largest with probability 2⁻¹⁰⁰ (784 entries, a few ε: the
#: supremum is missed with probability below 10⁻²⁵).
PAIR_DRAWS = 100


def integer_pair_epsilon(eps_grid, n: int, rng) -> np.ndarray:
    """TLDP-L's true ε on 8-bit MNIST images by brute force: the check of the integer column
    of :func:`accounting_table` (Theorem 1, on Table I's integers {0, …, Δ − 1}).

    The pair is the all-black image against the all-white one (0 and
    ``np.iinfo(np.uint8).max`` = 255 on every pixel, Δ = 256). ``n`` outputs of TLDP-L's
    sampler (Alg. 1) are drawn under each image, and each entry's privacy loss
    ``ln f(yᵢ | xᵢ) − ln f(yᵢ | x′ᵢ)`` is read from scipy's Laplace density at Alg. 1's
    ``b = Δ/ε``. The entries' noises are independent, so the supremum of the tensor's loss over
    all outputs is the sum of its entries' suprema; an entry's is reached by every output at
    or beyond its input, away from the other image (half of them), so the largest loss over
    the draws is exact. (A kept entry equals its input, so it is one of those outputs: the
    atoms do not change the supremum; their δ is :func:`atom_delta_exact`'s.)

    Parameters
    ----------
    eps_grid : array_like
        Nominal ε (each > 0).
    n : int
        Outputs per image and ε.
    rng : numpy.random.Generator

    Returns
    -------
    ndarray
        One true ε per entry of ``eps_grid``: the largest loss over both orders of the pair.
    """
    from ldp_companion.validation import check_positive_int, check_rng

    n, rng = check_positive_int(n, "n"), check_rng(rng)
    black = np.zeros((28, 28))
    white = np.full((28, 28), float(np.iinfo(np.uint8).max))
    out = []
    for e in np.atleast_1d(np.asarray(eps_grid, float)):
        sample, b = privacy.tldp_sampler(e, DELTA_PAPER), alg.noise_scale(DELTA_PAPER, e)
        sups = []
        for x, x_prime in ((black, white), (white, black)):
            y = sample(x, n, rng)
            loss = stats.laplace.logpdf(y, x, b) - stats.laplace.logpdf(y, x_prime, b)
            sups.append(loss.max(axis=0).sum())  # entry by entry over the draws, then summed
        out.append(max(sups))
    return np.array(out, dtype=float)


def atom_delta_exact(epsilon: float = 1.0, digits: int = 60) -> float:
    """log₁₀ of the atoms' δ = 1 − (1 − p)^I of an MNIST image (I = 784, Δ = 256), exactly:
    the check of the number :func:`mnist_at_eps1` glues (there ``log₁₀ Ip``, from the log-space
    ``p`` of :func:`~ldp_companion.tldp.algorithm.log_retain_prob`).

    ``p`` is Alg. 1's line 2 as printed, ``e^(ε − IΔ/b) / (2b + e^(ε − IΔ/b))`` with
    ``b = Δ/ε``, evaluated in ``digits``-digit arithmetic (mpmath: at ε = 1, ``p ≈ 10⁻³⁴³``
    is 0.0 in float64), and δ is the exact ``1 − (1 − p)^I``, not ``Ip``.
    """
    import mpmath

    from ldp_companion.validation import check_epsilon, check_positive_int

    eps, digits = check_epsilon(epsilon), check_positive_int(digits, "digits")
    with mpmath.workdps(digits):
        e, d = mpmath.mpf(eps), mpmath.mpf(DELTA_PAPER)
        b = d / e
        top = mpmath.exp(e - _MNIST * d / b)
        p = top / (2 * b + top)
        return float(mpmath.log10(-mpmath.expm1(_MNIST * mpmath.log1p(-p))))
