"""Numbered items of Yuan, Tang, Huang & Wang, Local Differential Privacy for Tensors in
Distributed Computing Systems: each with its place in chapter 01-tldp.

Data for :mod:`ldp_companion.verdicts.coverage` (statuses, claims, reasons); ``CLAIM_REFS`` maps
every ledger claim of the chapter to the items it checks, ``CLAIM_KINDS`` marks the claims that are
not about the paper's results (the book's own checks, the paper's slips).
"""
from ldp_companion.verdicts.coverage import Item, PaperItems

__all__ = ["ITEMS", "CLAIM_REFS", "CLAIM_KINDS"]

# Enumerated from shared/papers/tldp.txt (grep for Theorem|Lemma|Proposition|Corollary|
# Definition|Algorithm|Fig.|Figure|Table): Definitions 1-2, Algorithms 1-2, Theorems 1-3,
# Tables I-V, Figures 1-3. No Lemma, Proposition, Corollary or appendix; no numbering gaps.
# Order of appearance: Def. 1 (Sec. III-A), Table I, Def. 2 (Sec. IV), Alg. 1, Thm. 1, Thm. 2
# (Sec. IV-A), Alg. 2, Thm. 3 (Sec. IV-B), Tables II-IV (Sec. V-B), Table V (Sec. V-C),
# Figs. 1-3 (Sec. V-C; the images are missing from the text we have). Also listed: Eqs. (22)
# and (23), the two error derivations Table V rests on, and Sec. V-A2, where the paper sets up
# its baselines (δ = 10⁻⁵ in every figure), whose privacy some claims test.
#
# The first ref of a claim is the item whose statement it tests; the others are context.

CLAIM_REFS = {
    "alg1-ceiling-l": "Alg. 1", "alg1-ceiling-g": "Alg. 1", "alg1-units": "Alg. 1",
    "thm1-window": "Theorem 1", "thm1-unperturbed": "Theorem 1", "thm1-t0": "Theorem 1",
    "thm1-true-eps-l": "Theorem 1", "thm1-true-eps-g": "Theorem 1",
    "thm1-true-eps-l-brute": "Theorem 1", "thm1-atom-delta": "Theorem 1",
    "gauss-baseline-eps": ["Sec. V-A2", "Fig. 1", "Theorem 2"],
    "acct-tldp-l": "Theorem 1", "acct-tldp-g": "Theorem 1",
    "acct-laplace": ["Sec. V-A2", "Theorem 2"], "acct-gaussian": ["Sec. V-A2", "Theorem 2"],
    "accountant-check": "Theorem 1", "accountant-upper": "Theorem 1",
    "thm1-loss-mc": "Theorem 1",
    "thm1-audit-mnist": ["Theorem 1", "Definition 2"],
    "thm1-audit-digits": ["Theorem 1", "Definition 2"],
    "thm1-attack": "Theorem 1", "thm2-baseline-attack": "Theorem 2",
    "thm2-algebra": "Theorem 2", "thm2-same-output": "Theorem 2",
    "thm2-same-budget": "Theorem 2",
    "thm3-bound": "Theorem 3", "alg2-keep-rate": "Alg. 2",
    "alg2-effect": ["Alg. 2", "Theorem 3"],
    "table5-laplace": "Table V", "table5-gaussian": "Table V", "table5-mvg": "Table V",
    "table5-mvg-squared": "Table V",
    "table5-idn": "Table V", "table5-tldp-l": ["Table V", "Eq. (22)"],
    "table5-tldp-g": ["Table V", "Eq. (23)"], "table5-g-below-l": "Table V",
    "table5-l-over-g": ["Table V", "Eq. (22)", "Eq. (23)"],
    "settings-delta": ["Table II", "Table III", "Table IV"],
    "fig1-tldp-beats": "Fig. 1", "fig1-g-beats-l": "Fig. 1", "fig1-w-same": ["Fig. 1", "Alg. 2"],
    "fig1-baselines-low": "Fig. 1", "fig1-mnist-90": "Fig. 1", "fig1-mnist-90-ours": "Fig. 1",
    "fig1-true-eps": ["Fig. 1", "Theorem 2"], "fig1-other-data": "Fig. 1",
    "fig2-tldp-beats": "Fig. 2", "fig2-g-beats-l": "Fig. 2", "fig2-below-type1": "Fig. 2",
    "fig2-other-data": "Fig. 2",
    "fig3-tldp-beats": "Fig. 3", "fig3-l-beats-g": "Fig. 3", "fig3-larger-eps": "Fig. 3",
    "fig3-other-data": ["Fig. 3", "Table IV"],
}

CLAIM_REFS = {cid: [r] if isinstance(r, str) else list(r) for cid, r in CLAIM_REFS.items()}

#: Claims that are not verdicts on the paper's results: the book's own checks (of its
#: implementation, its accounting, a question the paper does not ask) and the paper's slips.
CLAIM_KINDS = {
    "alg1-ceiling-l": "beyond the paper", "alg1-ceiling-g": "beyond the paper",
    "alg1-units": "beyond the paper",
    "acct-tldp-l": "beyond the paper", "acct-tldp-g": "beyond the paper",
    "acct-laplace": "beyond the paper", "acct-gaussian": "beyond the paper",
    "accountant-check": "beyond the paper", "accountant-upper": "beyond the paper",
    "thm1-loss-mc": "beyond the paper", "thm2-same-output": "beyond the paper",
    "thm2-baseline-attack": "beyond the paper", "alg2-keep-rate": "beyond the paper",
    "fig1-true-eps": "beyond the paper", "fig1-mnist-90-ours": "beyond the paper",
    "settings-delta": "erratum", "table5-mvg": "erratum",
    "table5-mvg-squared": "beyond the paper",
    "thm1-true-eps-l-brute": "beyond the paper", "thm1-atom-delta": "beyond the paper",
    "table5-l-over-g": "beyond the paper",
}

#: What differs from the paper in every run of the offline experiments (Figs. 1–3), whatever
#: the profile: the data, the networks and the ε grids.
_OFFLINE = ("scikit-learn's digits and the MNIST test split (split into training, test and "
            "public parts) instead of {data}; {model}; the ε grid is ours (the figure is "
            "missing from the text)")
_IMAGES = ("mnist", "cifar10", "svhn", "mobilenet_v2")


def _claims(ref):
    """The claim ids whose ref cites ``ref``."""
    return [c for c, r in CLAIM_REFS.items() if ref in r]


_ITEMS = [
    {"ref": "Definition 1", "status": "implemented",
     "title": "ε-LDP: the output probability ratio of any two inputs is at most e^ε",
     "code": "ldp_companion.auditing.audit.law_log_ratio"},
    {"ref": "Table I", "status": "not reproduced",
     "title": "Notation: tensor, noise tensor, I, Δ, ε, p",
     "reason": "A table of symbols with no result in it; the chapter uses its symbols, except "
               "that it calls p the retaining probability, as Alg. 1 does, not the flipping one."},
    {"ref": "Definition 2", "status": "checked",
     "title": "LDP for tensor-valued data; Definition 1 is its one-entry case"},
    {"ref": "Alg. 1", "status": "checked",
     "title": "TLDP: keep each entry with probability p, else add Laplace or Gaussian noise"},
    {"ref": "Theorem 1", "status": "checked",
     "title": "Privacy of TLDP: TLDP is ε-LDP for tensors"},
    {"ref": "Theorem 2", "status": "checked",
     "title": "TLDP needs I times less noise than the Laplace and Gaussian mechanisms"},
    {"ref": "Eq. (22)", "status": "checked",
     "title": "Expected noise norm of TLDP-L"},
    {"ref": "Eq. (23)", "status": "checked",
     "title": "Expected noise norm of TLDP-G"},
    {"ref": "Alg. 2", "status": "checked",
     "title": "Weighted TLDP: retaining probability (1 − w) p"},
    {"ref": "Theorem 3", "status": "checked",
     "title": "Privacy of weighted TLDP: ratio at most (1 − w) e^ε"},
    {"ref": "Sec. V-A2", "status": "checked",
     "title": "Baselines and metric: Laplace, Gaussian, MVG and IDN (δ = 10⁻⁵ in every "
              "figure), weighted F1"},
    {"ref": "Table II", "status": "checked",
     "title": "Type I data sets and settings (MobileNetV2, sizes, batch, Δ)"},
    {"ref": "Table III", "status": "checked",
     "title": "Type II data sets and settings (as Table II)"},
    {"ref": "Table IV", "status": "checked",
     "title": "Type III data sets and settings (with IMDB and DarkNet)"},
    {"ref": "Table V", "status": "checked",
     "title": "Expected noise norm of Laplace, Gaussian, MVG, IDN, TLDP-L and TLDP-G"},
    {"ref": "Fig. 1", "status": "reproduced", "artifact": "tldp-fig1",
     "setup": ["n_max", "runs"], "assets": _IMAGES,
     "differs": _OFFLINE.format(data="MNIST, CIFAR-10 and SVHN",
                                model="a small torch MLP instead of an ImageNet-pretrained "
                                      "MobileNetV2"),
     "title": "Type I: weighted F1 against ε with perturbed training images"},
    {"ref": "Fig. 2", "status": "reproduced", "artifact": "tldp-fig2",
     "setup": ["n_max", "runs"], "assets": _IMAGES,
     "differs": _OFFLINE.format(data="MNIST, CIFAR-10 and SVHN",
                                model="the features of a small tanh MLP pretrained on the "
                                      "public part instead of the tanh-activated, "
                                      "ImageNet-pretrained MobileNetV2"),
     "title": "Type II: weighted F1 against ε with perturbed training features"},
    {"ref": "Fig. 3", "status": "reproduced", "artifact": "tldp-fig3",
     "setup": ["n_max", "runs"], "assets": (*_IMAGES, "imdb", "glove", "darknet"),
     "differs": _OFFLINE.format(data="MNIST, CIFAR-10, SVHN, IMDB and DarkNet",
                                model="FedAvg of a small torch MLP instead of MobileNetV2, "
                                      "a BiLSTM and an FCN"),
     "title": "Type III: weighted F1 against ε with perturbed FedAvg parameters"},
]

ITEMS = PaperItems(
    "01-tldp",
    "Yuan, Tang, Huang & Wang, Local Differential Privacy for Tensors in Distributed "
    "Computing Systems",
    [Item(**{**d, "claims": d.get("claims") or (_claims(d["ref"]) if d["status"] in
                                                ("checked", "reproduced") else ())})
     for d in _ITEMS])
