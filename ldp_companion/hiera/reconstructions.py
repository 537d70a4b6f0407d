"""What the text of Hao, Wu & Wan 2023 lost, and how chapter 5 rebuilds it.

The text we have (an MDPI web-page dump) dropped most inline math symbols: minus signs, fraction
bars, ≤, ∈, Σ and radicals. ``NOTE`` tells the reader how the chapter rebuilt the formulas;
``RECONSTRUCTED`` maps each ledger claim whose reference value is a reconstruction (not a number
printed in the paper) to how that value was obtained.
"""

__all__ = ["NOTE", "RECONSTRUCTED"]

NOTE = (
    "The web-page text of the paper dropped most inline symbols (minus signs, fraction bars, "
    "inequalities, sums, radicals), and all three figures are images, so the paper prints no "
    "numeric result at all. Every formula of the chapter was rebuilt from its context, the "
    "authors' own derivations, Harmony (Nguyên et al. 2016) and the Piecewise Mechanism (Wang et "
    "al. 2019); where step 5 of Alg. 5 is garbled, the chapter's reading is the one under which "
    "Theorem 3 (unbiasedness) holds, and the printed alternative is shown to break it. The "
    "reference values below were computed from the rebuilt formulas by a second, independent "
    "implementation (numpy/scipy scripts outside this package, seeds fixed where sampled); they "
    "test the package's code, they are not the paper's numbers.")

RECONSTRUCTED = {
    "levels-p-c": "pₜ and cₜ = tanh(εₜ/2) for the Sec. 6 levels at base 0.5 and 1, computed "
                  "independently from the rebuilt level budgets.",
    "grr-matrix": "Keep and move probabilities of the level report (generalised randomised "
                  "response over 5 levels), computed independently.",
    "plc-q-table": "PLC keep probabilities q(i→j) = (pᵢ + pⱼ − 1)/(2pᵢ − 1), the rebuilt "
                   "formula of Sec. 4.3, computed independently at base 0.5 and 1.",
    "baseline-variances": "Closed-form variances of Harmony and PM at v = 0, computed "
                          "independently from their papers' formulas.",
    "compensation-bias": "Large-n bias of Alg. 5 without the compensation copies, computed "
                         "independently from the rebuilt pooling rule on uniform data.",
    "thm2-joint-values": "Worst joint log ratio of LHP's output by base ε, computed "
                         "independently by enumerating the output law.",
    "thm2-matrix": "Joint log-ratio matrix at base 1 (pairs of levels), computed independently.",
    "graded-laplace-values": "Log density ratios of graded Laplace at five outputs, computed "
                             "independently from the rebuilt level scales.",
    "mu-second-moments": "E[Z² | t* = i] for μ = 1, 2, 5 at base 0.5, computed independently "
                         "from the rebuilt pooling rule (3 decimals).",
    "per-user-variances": "Exact average per-user variances of the five estimators on "
                          "U[−1, 1] at base 0.5, computed independently.",
}
