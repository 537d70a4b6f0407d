"""Deliberate bugs in the code appendix C's claims rest on (see
:mod:`ldp_companion.verdicts.mutation`): each must change at least one verdict on the page
(``benchmarks/mutants.py compare``).

The page's every black-box bound comes from :func:`ldp_companion.auditing.blackbox.sniper_audit`,
whose guarantee rests on fresh outputs at each step: the classifier is trained on some, the
threshold chosen on others, the bound computed on still others. :data:`SAME_SAMPLE` computes all
three on one sample, the invalid auditor that ``auditor-coverage`` (Sec. C.1) exists to catch.
"""
from __future__ import annotations

import numpy as np

from ldp_companion.auditing import audit, blackbox
from ldp_companion.verdicts.mutation import Mutant, scaled

__all__ = ["MUTANTS", "SAME_SAMPLE", "ROW_MUTANTS"]


class _Replay:
    """A sampler that hands out fixed rows in order, whatever input it is asked for (the
    audits ask for ``x``'s outputs, then ``x'``'s, possibly in batches)."""

    def __init__(self, *blocks):
        self.rows = np.concatenate(blocks)
        self.at = 0

    def __call__(self, x, m, rng):
        out = self.rows[self.at:self.at + m]
        self.at += m
        return out


def _same_sample(original):
    """``sniper_audit`` with no held-out outputs: ``n // 2`` outputs per input train the
    classifier, choose the threshold and give the bound (the region is chosen on a copy of
    the outputs the bound counts)."""
    def sniper_audit(sampler, x, x_prime, n, rng, *, n_train=None, classifier="histogram",
                     confidence=blackbox.CONFIDENCE, claimed_epsilon=None, delta=0.0,
                     **options):
        sampler, claimed_epsilon = blackbox._sampler(sampler, claimed_epsilon)
        x, x_prime = np.asarray(x, float), np.asarray(x_prime, float)
        half = max(2, int(n) // 2)
        yx = np.asarray(sampler(x, half, rng), float)
        yxp = np.asarray(sampler(x_prime, half, rng), float)
        ratio = blackbox.fit_ratio(_Replay(yx, yxp), x, x_prime, half, rng, classifier,
                                   **options)
        return audit.empirical_audit(_Replay(yx, yx, yxp, yxp), x, x_prime, 2 * half, rng,
                                     statistic=ratio, confidence=confidence,
                                     claimed_epsilon=claimed_epsilon, delta=delta)
    return sniper_audit


#: The black-box auditor with no held-out outputs (invalid: its bounds exceed the exact ε of
#: correct mechanisms far more often than 1 − confidence).
SAME_SAMPLE = Mutant(
    "same-sample-auditor", "the black-box auditor trains its classifier, chooses its "
    "threshold and computes its bound on one sample of outputs (no held-out outputs)",
    "ldp_companion.auditing.blackbox:sniper_audit", _same_sample)

def _mvg_exact_tenth(original):
    """``noise_sigma`` with MVG's σ ten times too small: the exact ε of the MVG row (and its
    C.3 error) computed from noise its sampler does not draw."""
    def noise_sigma(key, *args, **kwargs):
        out = original(key, *args, **kwargs)
        return 0.1 * out if key == "mvg" else out
    return noise_sigma


def _udn_sampler_double(original):
    """UDN's sampler drawing twice the noise its exact ε is computed from."""
    def make(*args, **kwargs):
        sample = original(*args, **kwargs)

        def doubled(x, n, rng):
            x = np.asarray(x, float)
            return x + 2.0 * (sample(x, n, rng) - x)
        return doubled
    return make


def _square_wave_law_at_2eps(original):
    """Square Wave's output law written for twice its ε (its sampler unchanged)."""
    def output_law(self, x):
        return original(type(self)(2.0 * self.epsilon), x)
    return output_law


#: Wrong constants behind the exact ε of the table's rows (Sec. C.2), and a sampler that
#: ignores its calibration: ``true-eps-tensor-exact``, ``true-eps-tensor-noise`` and
#: ``square-wave-law`` must notice them.
ROW_MUTANTS = [
    Mutant("mvg-exact-sigma-tenth", "the MVG row's exact ε computed from a σ ten times too "
           "small (noise_sigma; its sampler unchanged)",
           "ldp_companion.compare.catalogue:noise_sigma", _mvg_exact_tenth),
    Mutant("idn-sigma-half", "IDN's σ = s₂/c halved (TVG Thm. 3; its sampler and its exact ε "
           "both)", "ldp_companion.tensor.calibration:idn_sigma", scaled(0.5)),
    Mutant("udn-sampler-double", "UDN's sampler draws twice the noise its exact ε is "
           "computed from", "ldp_companion.compare.catalogue:_udn_sampler",
           _udn_sampler_double),
    Mutant("tldp-g-exact-half", "TLDP's exact ε halved (the TLDP-G rows' μ-GDP conversion "
           "off by 2)", "ldp_companion.compare.catalogue:tldp_exact", scaled(0.5)),
    Mutant("square-wave-law-2eps", "Square Wave's output law written for 2ε, its sampler "
           "unchanged", "ldp_companion.byom.square_wave:SquareWave._output_law",
           _square_wave_law_at_2eps),
]

MUTANTS = [SAME_SAMPLE, *ROW_MUTANTS]
