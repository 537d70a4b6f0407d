"""Numbered items of Yang, Xiang, Chen, Li & Li, Differential Privacy for Tensor-Valued
Queries (IEEE TIFS 2021): each with its place in chapter 02-tvg.

Data for :mod:`ldp_companion.verdicts.coverage` (statuses, claims, reasons); ``CLAIM_REFS`` maps
every ledger claim of the chapter to the items it checks, ``CLAIM_KINDS`` marks the claims that are
not about the paper's results (the book's own checks, the paper's slips).
"""
from ldp_companion.verdicts.coverage import Item, PaperItems

__all__ = ["ITEMS", "CLAIM_REFS", "CLAIM_KINDS"]

# Enumerated from shared/papers/tvg.md (grep for Definition|Lemma|Theorem|Corollary|
# Proposition|Algorithm|Fig.|TABLE): Definitions 1-11, Lemmas 1-3, Theorems 1-4,
# Corollaries 1-2, Algorithm 1, Figs. 1-5, Tables I-IV; no Proposition. The supplementary
# appendices (A-A..A-D, B, C-A, C-B, D: proofs and the composition scheme) are not in the text;
# the citing text gives them no numbered items of their own. Listed besides, because a claim
# tests a statement they make: Sec. I (the contributions: "tighter noise bounds and higher
# utility than previous works"), Eq. (29) (UDN's optimal error), Sec. VII-B (TVG against MVG:
# "about H_r² times"), Eq. (32) (the RDP bound of Sec. VII-C), Sec. VIII-A (the baselines "do
# not have precise DP definition on tensors") and Sec. VIII-C (the Gaussian baseline against
# IDN).

CLAIM_REFS = {
    "lemma1": ["Lemma 1", "Definition 5", "Definition 3", "Definition 4"],
    "def8-density": ["Definition 8", "Definition 6"],
    "def8-mode-cov": "Definition 8",
    "lemma2": "Lemma 2", "lemma3": "Lemma 3",
    "thm1-forms": ["Table I", "Theorem 1"],
    "thm1-sound": ["Theorem 1", "Definition 9", "Definition 1", "Definition 7"],
    "thm1-calibration": "Theorem 1",
    "thm1-tighter": ["Sec. I", "Theorem 1"],
    "cor1-reshape": ["Corollary 1", "Fig. 1"],
    "baselines-no-dp": ["Sec. VIII-A", "Corollary 1", "Definition 1"],
    "thm2-factor": "Theorem 2", "thm2-sound": "Theorem 2",
    "thm2-calibration": ["Theorem 2", "Alg. 1"],
    "thm3-factor": "Theorem 3", "thm3-sound": "Theorem 3", "thm3-calibration": "Theorem 3",
    "thm3-literal": "Theorem 3",
    "alg1-optimum": "Alg. 1", "alg1-idn-udn": ["Alg. 1", "Theorem 3"],
    "eq29-factor": ["Eq. (29)", "Alg. 1"],
    "cor2-shape": "Corollary 2", "cor2-udn": "Corollary 2",
    "thm4-hr2": ["Sec. VII-B", "Theorem 4"], "eq32-rdp": "Eq. (32)",
    "thm4-calibration": ["Theorem 4", "Definition 11"],
    "release-noise": ["Definition 9", "Definition 11", "Alg. 1"],
    "table4-orders": "Table IV", "table4-mvg": ["Table IV", "Theorem 4"],
    "table4-idn-gauss": ["Sec. VIII-C", "Table IV", "Table II", "Table III"],
    "gauss-calibration": ["Sec. VIII-C", "Table IV"],
    "tables23-shapes": ["Table II", "Table III"],
    "tvg-vs-gaussian": ["Sec. I", "Theorem 3", "Table IV"],
    "fig5-ctg-idn": "Fig. 5", "fig5-ctg-jl-mm": "Fig. 5",
    "fig5-ctg-fair-gauss": "Fig. 5", "fig5-jl-unbiased": "Fig. 5",
    "fig5-idn-best": "Fig. 5", "fig5-udn-mvg": "Fig. 5", "fig5-directional": ["Fig. 5", "Alg. 1"],
    "fig5-chance": "Fig. 5",
    "fig4-idn-best": "Fig. 4", "fig4-udn-mvg": "Fig. 4", "fig4-fair-gauss": "Fig. 4",
    "fig3-idn-close": "Fig. 3", "fig3-udn-order": "Fig. 3",
    "fig3-other-data": ["Fig. 3", "Table II"],
    "fig3-other-order": ["Fig. 3", "Table II"],
    "fig45-other-data": ["Fig. 4", "Fig. 5"],
}

CLAIM_REFS = {cid: [r] if isinstance(r, str) else list(r) for cid, r in CLAIM_REFS.items()}

CLAIM_KINDS = {
    "thm1-forms": "beyond the paper", "thm3-literal": "erratum", "eq29-factor": "erratum",
    "thm1-calibration": "beyond the paper", "thm2-calibration": "beyond the paper",
    "thm3-calibration": "beyond the paper", "gauss-calibration": "beyond the paper",
    "thm4-calibration": "beyond the paper", "table4-mvg": "beyond the paper",
    "release-noise": "beyond the paper",
    "tables23-shapes": "beyond the paper", "cor2-udn": "beyond the paper",
    "fig5-ctg-fair-gauss": "beyond the paper", "fig4-fair-gauss": "beyond the paper",
    "fig5-jl-unbiased": "beyond the paper",
    "fig5-directional": "beyond the paper", "fig5-chance": "beyond the paper",
}


def _claims(ref):
    """The claim ids whose ref cites ``ref``."""
    return [c for c, r in CLAIM_REFS.items() if ref in r]


_ITEMS = [
    {"ref": "Sec. I", "status": "checked",
     "title": "Contributions: TVG and its variants have tighter noise bounds and higher utility "
              "than previous works"},
    {"ref": "Definition 1", "status": "checked", "title": "(ε, δ)-differential privacy"},
    {"ref": "Definition 2", "status": "not reproduced",
     "title": "Tensor order, fibers and slices",
     "reason": "Terminology with no result in it (a CIFAR image as a 32×32×3 tensor); the "
               "chapter uses Kolda's terms as the paper does."},
    {"ref": "Definition 3", "status": "checked",
     "title": "Mode-n product of a tensor and a matrix"},
    {"ref": "Definition 4", "status": "checked",
     "title": "Inner product and Frobenius norm of tensors"},
    {"ref": "Definition 5", "status": "checked",
     "title": "Mode-n unfolding with Kolda's index map (Eq. 4)"},
    {"ref": "Definition 6", "status": "checked", "title": "Standard normal tensor"},
    {"ref": "Lemma 1", "status": "checked",
     "title": "Mode products in unfolded form are Kronecker products"},
    {"ref": "Table I", "status": "checked", "title": "Notation: ζ(δ), α, β and the bound B"},
    {"ref": "Definition 7", "status": "checked",
     "title": "ℓ2 sensitivity of a tensor-valued query"},
    {"ref": "Definition 8", "status": "checked",
     "title": "Tensor-variate Gaussian distribution and its density (Eq. 9)"},
    {"ref": "Definition 9", "status": "checked", "title": "The TVG mechanism"},
    {"ref": "Lemma 2", "status": "checked",
     "title": "Frobenius-norm bound for multi-mode products"},
    {"ref": "Lemma 3", "status": "checked",
     "title": "χ² tail: ‖N‖² ≤ ζ(δ)² with probability at least 1 − δ"},
    {"ref": "Theorem 1", "status": "checked",
     "title": "TVG is (ε, δ)-DP if Π ‖Uₖ⁻¹‖²_F ≤ B"},
    {"ref": "Corollary 1", "status": "checked", "title": "Reshaping keeps the DP guarantee"},
    {"ref": "Fig. 1", "status": "checked",
     "title": "Reshaping a 2×2×2 tensor to 2×4 and to a vector"},
    {"ref": "Fig. 2", "status": "not reproduced",
     "title": "Diagram of unimodal directional noise on a 2×2×2 tensor",
     "reason": "A schematic drawing with no values; Theorem 2, which it illustrates, is checked "
               "with an exact audit instead."},
    {"ref": "Theorem 2", "status": "checked",
     "title": "UDN: the bound improves by I₂⋯I_N"},
    {"ref": "Theorem 3", "status": "checked",
     "title": "IDN: independent directional noise, the bound improves by I₁"},
    {"ref": "Eq. (29)", "status": "checked",
     "title": "UDN's optimal error (Sec. VI-B), the objective Alg. 1 minimises"},
    {"ref": "Alg. 1", "status": "checked",
     "title": "Utility-optimized unimodal noise in closed form"},
    {"ref": "Corollary 2", "status": "checked",
     "title": "The optimal error does not depend on the tensor's shape"},
    {"ref": "Definition 10", "status": "implemented", "title": "Matrix Mechanism and its error",
     "code": "ldp_companion.tvg.covariance.mm_strategy"},
    {"ref": "Definition 11", "status": "checked", "title": "MVG mechanism"},
    {"ref": "Theorem 4", "status": "checked",
     "title": "MVG's DP condition (quoted from Chanyaswad et al.)"},
    {"ref": "Sec. VII-B", "status": "checked",
     "title": "TVG against MVG: Theorem 1's bound about H_r² times MVG's (Eqs. 30–31)"},
    {"ref": "Eq. (32)", "status": "checked", "title": "Rényi-DP bound of TVG (Sec. VII-C)"},
    {"ref": "Sec. VIII-A", "status": "checked",
     "title": "Baselines: flattened i.i.d. mechanisms \"do not have precise DP definition on "
              "tensors\""},
    {"ref": "Table II", "status": "checked",
     "title": "Type I setup: data, models, batch and lot sizes, gradient shapes, clip values"},
    {"ref": "Table III", "status": "checked",
     "title": "Types II-III setup: data, models, feature tensor shapes"},
    {"ref": "Table IV", "status": "checked",
     "title": "Expected error E‖Z‖² of each mechanism per experiment type"},
    {"ref": "Sec. VIII-C", "status": "checked",
     "title": "Experimental results: the Gaussian baseline's calibration, IDN against it"},
    {"ref": "Fig. 3", "status": "reproduced", "artifact": "tvg-fig3",
     "setup": ["paper_tasks_1", "paper_n_max"], "assets": ["mnist", "credit", "adult"],
     "differs": "the composition of IDN, UDN and MVG over the noisy steps is rebuilt (the "
                "paper's Appendix D, which gives it, is missing)",
     "title": "Type I: private SGD, accuracy or AUC against ε"},
    {"ref": "Fig. 4", "status": "reproduced", "artifact": "tvg-fig4",
     "setup": ["mnist_images", "runs", "head_epochs_2", "paper_tasks", "paper_n_max"],
     "assets": ["mnist", "cifar10", "svhn", "imdb", "glove"],
     "differs": "no Matrix Mechanism curve on IMDB (with W = E it is the Gaussian mechanism)",
     "title": "Type II: private training features, accuracy against ε"},
    {"ref": "Fig. 5", "status": "reproduced", "artifact": "tvg-fig5-mnist",
     "setup": ["mnist_images", "runs", "epochs_3", "ctg_runs", "paper_tasks", "paper_n_max"],
     "assets": ["mnist", "cifar10", "svhn", "imdb", "glove"],
     "differs": "no Matrix Mechanism curve on IMDB and CTG (on CTG with W = E it is the "
                "Gaussian mechanism; on IMDB's Type III workload it is not built)",
     "title": "Type III: private test features, accuracy against ε; CTG covariance RSS"},
]

ITEMS = PaperItems(
    "02-tvg",
    "Yang, Xiang, Chen, Li & Li, Differential Privacy for Tensor-Valued Queries",
    [Item(**{**d, "claims": d.get("claims") or (_claims(d["ref"]) if d["status"] in
                                                ("checked", "reproduced") else ())})
     for d in _ITEMS])
