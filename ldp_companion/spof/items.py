"""Numbered items of Habib, Chou & Kim, Stabilization of Perturbed Loss Function: Differential
Privacy without Gradient Noise: each with its place in chapter 04-spof.

Data for :mod:`ldp_companion.verdicts.coverage` (statuses, claims, reasons); ``CLAIM_REFS`` maps
every ledger claim of the chapter to the items it checks, ``CLAIM_KINDS`` marks the claims that are
not about the paper's results (the book's own checks, the authors' code, the paper's slips).
"""
from ldp_companion.verdicts.coverage import Item, PaperItems

__all__ = ["ITEMS", "CLAIM_REFS", "CLAIM_KINDS"]

# Enumerated from shared/papers/spof.txt (main text, Appendices A-F.I and the supplemental
# F.II, G, H; grep for Definition|Lemma|Theorem|Proposition|Corollary|Algorithm|Fig.|Table|
# Remark): Definitions 1-2, Propositions 1-4, Theorem 1, Algorithms 1-2, Figs. 1-6, Remarks
# 1-2; no Lemma, Corollary or Table, no gap in any series. "Fig. 2a/2b of [34]" (App. G) are
# figures of the cited DINAR paper. Besides the numbered items, five places whose statements
# claims test directly are listed: Eq. (9) (the expansion with f2''), Eq. (12) (the Taylor
# polynomial every algorithm uses), Eq. (53) (the density of b_{j,r}), App. B (the
# sensitivities Δ̄ and Δ_SGD, derived there and used by Prop. 2 and Alg. 2) and App. G (the
# 74% operation count, which has no number), and Sec. VIII for the statements of its text
# that no figure shows (the 57.2% training time, DP-SGD's gradients above C under sensor
# noise). The accuracy gains of Sec. VIII (2.90%, 3.52%) are read "from Fig. 3" and are checked
# under it.
#
# The first ref of a claim is the item whose statement it tests; the others are context.

CLAIM_REFS = {
    "eq12-coefficients": "Eq. (12)", "eq12-exact": "Eq. (12)",
    "eq9-f2-second": ["Eq. (9)", "Eq. (12)"],
    "prop1-G": "Proposition 1", "prop1-bound": "Proposition 1",
    "taylor-remainder": "Proposition 1", "prop1-factor": "Proposition 1",
    "appB-delta-bar": ["App. B", "Proposition 2", "Definition 2"],
    "prop3-bound": ["Proposition 3", "Definition 2"], "appD-linear": "Proposition 3",
    "prop2-eps": ["Proposition 2", "Definition 1"],
    "alg1-sqrt2": ["Alg. 1", "Definition 1"], "alg1-public": ["Alg. 1", "Proposition 3"],
    "alg1-eps-predicted": ["Alg. 1", "Proposition 2", "Proposition 3"],
    "alg1-noise-scale": ["Alg. 1", "Proposition 3"],
    "alg1-data-cj": "Alg. 1", "alg1-sum-laplace": "Alg. 1", "alg1-shared-draw": "Alg. 1",
    "thm1-identities": "Theorem 1", "thm1-noiseless-b": ["Proposition 4", "Theorem 1"],
    "thm1-b-scaling": "Theorem 1", "thm1-b-squared": "Theorem 1",
    "appF-cdf": ["Eq. (53)", "Proposition 4", "Fig. 4"], "prop4-half": "Proposition 4",
    "appF-laws": ["Eq. (53)", "Proposition 4"],
    "fig5-remark2": ["Remark 2", "Fig. 5"], "fig4-h": "Fig. 4",
    "appG-74": "App. G",
    "fig6-eq58": "Fig. 6", "fig6-minimum": "Fig. 6", "fig6-vs-sgd": "Fig. 6",
    "fig6-app-h": "Fig. 6",
    "appB2-delta-sgd": ["App. B", "Alg. 2"], "appB2-delta-sgd-clipped": ["App. B", "Alg. 2"],
    "appB2-clipped-loose": ["App. B", "Alg. 2"],
    "alg2-noise-scale": ["Alg. 2", "App. B"], "alg2-clip-eq15": "Alg. 2",
    "alg2-clipping": ["Sec. VIII", "Alg. 2"],
    "fig3-published-zeros": "Fig. 3", "fig3-nonprivate": "Fig. 3", "fig3-spof-dpsgd": "Fig. 3",
    "fig3-spof-fm": "Fig. 3", "fig3-exact-dpsgd": "Fig. 3", "fig3-authors-dpsgd": "Fig. 3",
    "fig3-authors-zeros": "Fig. 3", "fig3-dpsgd-degrades": "Fig. 3",
    "remark1-noise-helps": ["Remark 1", "Fig. 3", "Proposition 4"],
    "time-faster": "Sec. VIII", "time-57": "Sec. VIII", "headline-gain": "Fig. 3",
    "fig2-rises": "Fig. 2", "fig2-rises-authors": "Fig. 2",
}

CLAIM_REFS = {cid: [r] if isinstance(r, str) else list(r) for cid, r in CLAIM_REFS.items()}

CLAIM_KINDS = {
    "eq9-f2-second": "erratum", "appD-linear": "erratum", "alg1-sum-laplace": "erratum",
    "taylor-remainder": "beyond the paper", "alg1-shared-draw": "beyond the paper",
    "eq12-exact": "beyond the paper", "alg1-eps-predicted": "beyond the paper",
    "alg1-noise-scale": "beyond the paper", "alg2-noise-scale": "beyond the paper",
    "alg2-clip-eq15": "beyond the paper", "prop1-factor": "beyond the paper",
    "thm1-b-squared": "beyond the paper", "appF-laws": "beyond the paper",
    "appB2-clipped-loose": "beyond the paper",
    "fig3-published-zeros": "beyond the paper", "fig3-exact-dpsgd": "beyond the paper",
    "fig3-authors-dpsgd": "beyond the paper", "fig3-authors-zeros": "beyond the paper",
    "fig2-rises-authors": "beyond the paper",
}

#: The run's parameters that decide whether Figs. 2-3 had the paper's data, model and scale:
#: their ``paper`` profile is the authors' setup (the real Fitbit export expanded ×80, 100 runs
#: per ε, the authors' ε grid, Sec. VIII's m, l, c, C and σ). The Fitbit table is part of the
#: offline data, not a paper asset.
_FIG3_SETUP = ["source", "expand", "runs", "eps_grid", "conditions", "c", "users", "code",
               "clip", "sigma_env", "lr", "epochs"]
_FIG2_SETUP = ["source", "expand", "c_grid", "eps_fig2", "runs_fig2", "users", "code", "lr",
               "epochs"]


def _claims(ref):
    """The claim ids whose ref cites ``ref``."""
    return [c for c, r in CLAIM_REFS.items() if ref in r]


_ITEMS = [
    {"ref": "Definition 1", "status": "checked",
     "title": "ε-DP for mechanisms on neighbouring m-user data sets"},
    {"ref": "Definition 2", "status": "checked",
     "title": "L1 sensitivity of a query over neighbouring data sets"},
    {"ref": "Fig. 1", "status": "not reproduced",
     "title": "Distributed autoencoder block diagram with noisy user inputs",
     "reason": "It is a block diagram of the architecture with no numbers in it; the chapter "
               "describes the same architecture in its text and code."},
    {"ref": "Eq. (9)", "status": "checked",
     "title": "Second-order expansion of the loss around a, with the derivatives of f₁, f₂"},
    {"ref": "Eq. (12)", "status": "checked",
     "title": "Second-order Taylor polynomial of the loss at a = 0 and its coefficients"},
    {"ref": "Proposition 1", "status": "checked",
     "title": "Taylor error bound 2G(e^δ − 1 − δ − δ²/2)"},
    {"ref": "Proposition 2", "status": "checked",
     "title": "Laplace noise of scale Δ̄/ε on the loss coefficients is ε-DP, Δ̄ = 3n/2"},
    {"ref": "Proposition 3", "status": "checked",
     "title": "Sensitivity with loss stabilization, Δ̂ = Δ̄ + n c_j (c_j/2 + 2)"},
    {"ref": "Alg. 1", "status": "checked",
     "title": "SPOF: stabilization, Laplace noise split over α₂ and α₃, gradient step"},
    {"ref": "Theorem 1", "status": "checked",
     "title": "Noisy inputs: the coefficients and the sensitivity scale by b_j"},
    {"ref": "Proposition 4", "status": "checked",
     "title": "Pr[b_j < 1] ≥ 0.5 for large σ, so noisy inputs need less DP noise"},
    {"ref": "Remark 1", "status": "checked",
     "title": "With noisy inputs SPOF (or FM) reaches a higher accuracy than without"},
    {"ref": "Alg. 2", "status": "checked",
     "title": "Multi-user DP-SGD in logit space with clipping and Laplace noise"},
    {"ref": "Sec. VIII", "status": "checked",
     "title": "57.2% less training time than DP-SGD; DP-SGD's gradients exceed C under "
              "sensor noise"},
    {"ref": "Fig. 2", "status": "reproduced", "artifact": "spof-fig2", "setup": _FIG2_SETUP,
     "title": "Accuracy against the stabilization constant c"},
    {"ref": "Fig. 3", "status": "reproduced", "artifact": "spof-fig3", "setup": _FIG3_SETUP,
     "title": "Accuracy against ε: non-private, SPOF, DP-SGD, FM; noiseless and noisy"},
    {"ref": "App. B", "status": "checked",
     "title": "Sensitivities: Δ̄ = 3n/2 for SPOF (B.I), ΔSGD = n or 2nC for DP-SGD (B.II)"},
    {"ref": "Eq. (53)", "status": "checked",
     "title": "Density of one b(j, r) under Gaussian environmental noise"},
    {"ref": "Fig. 4", "status": "reproduced", "artifact": "spof-check-prop4", "setup": ["code"],
     "differs": "‖W‖ is the expected norm of the paper's random W, not the authors' single "
                "unseeded draw of it",
     "title": "Density of b_max for several h"},
    {"ref": "Fig. 5", "status": "reproduced", "artifact": "spof-check-prop4", "setup": ["code"],
     "title": "Probability that b is below 1 against σ"},
    {"ref": "Remark 2", "status": "checked",
     "title": "From Fig. 5: with probability at least 0.5 noisy inputs need less DP noise"},
    {"ref": "App. G", "status": "checked",
     "title": "Operation counts: SPOF needs 74% fewer operations than DP-SGD"},
    {"ref": "Fig. 6", "status": "reproduced", "artifact": "spof-fig6", "setup": ["clip"],
     "title": "Per-feature sensitivity of SPOF and DP-SGD against the expansion point a"},
]

ITEMS = PaperItems(
    "04-spof",
    "Habib, Chou & Kim, Stabilization of Perturbed Loss Function: Differential Privacy "
    "without Gradient Noise",
    [Item(**{**d, "claims": d.get("claims") or (_claims(d["ref"]) if d["status"] in
                                                ("checked", "reproduced") else ())})
     for d in _ITEMS])
