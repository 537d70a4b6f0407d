"""Numbered items of Habib, Chou & Kim, Stabilization of Perturbed Loss Function: Differential
Privacy without Gradient Noise: each with its place in chapter 04-spof.

Data for :mod:`ldp_companion.coverage` (statuses, claims, reasons); ``CLAIM_REFS`` maps every
ledger claim of the chapter to the items it checks, ``CLAIM_KINDS`` marks the claims that are
not about the paper's results (the book's own checks, the authors' code, the paper's slips).
"""
from ldp_companion.coverage import Item, PaperItems

__all__ = ["ITEMS", "CLAIM_REFS", "CLAIM_KINDS"]

# Enumerated from shared/papers/spof.txt (main text, Appendices A-F.I and the supplemental
# F.II, G, H; grep for Definition|Lemma|Theorem|Proposition|Corollary|Algorithm|Fig.|Table|
# Remark): Definitions 1-2, Propositions 1-4, Theorem 1, Algorithms 1-2, Figs. 1-6, Remarks
# 1-2; no Lemma, Corollary or Table, no gap in any series. "Fig. 2a/2b of [34]" (App. G) are
# figures of the cited DINAR paper. Remarks have no ref form of their own: Remark 1 is checked
# under Proposition 4, Remark 2 under Fig. 5. App. G (the 74% operation count) has no number
# and is entered as "App. G"; Eq. (12), the Taylor polynomial every algorithm uses, is listed
# because claims check it. The headline numbers of Sec. VIII (2.90%, 3.52%, 57.2%) are checked
# under Fig. 3, whose data they summarise.

CLAIM_REFS = {
    "eq12-coefficients": "Eq. (12)", "eq9-f2-second": "Eq. (12)",
    "prop1-G": "Proposition 1", "prop1-bound": "Proposition 1",
    "taylor-remainder": "Proposition 1",
    "appB-delta-bar": ["Definition 2", "Proposition 2"],
    "prop3-bound": ["Proposition 3", "Definition 2"], "appD-linear": "Proposition 3",
    "prop2-eps": ["Proposition 2", "Definition 1"],
    "alg1-sqrt2": ["Alg. 1", "Definition 1"], "alg1-public": "Alg. 1",
    "alg1-data-cj": "Alg. 1", "alg1-sum-laplace": "Alg. 1", "alg1-shared-draw": "Alg. 1",
    "thm1-identities": "Theorem 1", "thm1-noiseless-b": ["Theorem 1", "Proposition 4"],
    "thm1-b-scaling": "Theorem 1",
    "appF-cdf": ["Proposition 4", "Fig. 4"], "prop4-half": "Proposition 4",
    "fig5-remark2": "Fig. 5", "fig4-h": "Fig. 4",
    "appG-74": "App. G",
    "fig6-eq58": "Fig. 6", "fig6-minimum": "Fig. 6", "fig6-vs-sgd": "Fig. 6",
    "appB2-delta-sgd": "Alg. 2", "alg2-clipping": "Alg. 2",
    "fig3-published-zeros": "Fig. 3", "fig3-nonprivate": "Fig. 3", "fig3-spof-dpsgd": "Fig. 3",
    "fig3-spof-fm": "Fig. 3", "fig3-exact-dpsgd": "Fig. 3", "fig3-authors-dpsgd": "Fig. 3",
    "fig3-authors-zeros": "Fig. 3", "remark1-noise-helps": ["Proposition 4", "Fig. 3"],
    "time-57": "Fig. 3", "headline-gain": "Fig. 3",
    "fig2-rises": "Fig. 2", "fig2-rises-authors": "Fig. 2",
}

CLAIM_REFS = {cid: [r] if isinstance(r, str) else list(r) for cid, r in CLAIM_REFS.items()}

CLAIM_KINDS = {
    "eq9-f2-second": "erratum", "appD-linear": "erratum", "alg1-sum-laplace": "erratum",
    "taylor-remainder": "beyond the paper", "alg1-shared-draw": "beyond the paper",
    "fig3-published-zeros": "beyond the paper", "fig3-exact-dpsgd": "beyond the paper",
    "fig3-authors-dpsgd": "beyond the paper", "fig3-authors-zeros": "beyond the paper",
    "fig2-rises-authors": "beyond the paper",
}


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
     "title": "Pr[b_j < 1] ≥ 0.5 for large σ (with Remark 1: noise helps SPOF)"},
    {"ref": "Alg. 2", "status": "checked",
     "title": "Multi-user DP-SGD in logit space with clipping and Laplace noise"},
    {"ref": "Fig. 2", "status": "reproduced", "differs": "TODO: declare the setup", "artifact": "spof-fig2",
     "title": "Accuracy against the stabilization constant c"},
    {"ref": "Fig. 3", "status": "reproduced", "differs": "TODO: declare the setup", "artifact": "spof-fig3",
     "title": "Accuracy against ε: non-private, SPOF, DP-SGD, FM; noiseless and noisy"},
    {"ref": "Fig. 4", "status": "reproduced", "differs": "TODO: declare the setup", "artifact": "spof-check-prop4",
     "title": "Density of b_max for several h"},
    {"ref": "Fig. 5", "status": "reproduced", "differs": "TODO: declare the setup", "artifact": "spof-check-prop4",
     "title": "Probability that b is below 1 against σ (with Remark 2)"},
    {"ref": "App. G", "status": "checked",
     "title": "Operation counts: SPOF needs 74% fewer operations than DP-SGD"},
    {"ref": "Fig. 6", "status": "reproduced", "differs": "TODO: declare the setup", "artifact": "spof-fig6",
     "title": "Per-feature sensitivity of SPOF and DP-SGD against the expansion point a"},
]

ITEMS = PaperItems(
    "04-spof",
    "Habib, Chou & Kim, Stabilization of Perturbed Loss Function: Differential Privacy "
    "without Gradient Noise",
    [Item(**{**d, "claims": d.get("claims") or (_claims(d["ref"]) if d["status"] in
                                                ("checked", "reproduced") else ())})
     for d in _ITEMS])
