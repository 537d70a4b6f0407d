"""The numbered sections of appendix C (the mechanisms on one scale) and the claims checking
them. Data for :mod:`ldp_companion.verdicts.coverage`."""
from ldp_companion.verdicts.coverage import Item, PaperItems

__all__ = ["ITEMS", "CLAIM_REFS", "CLAIM_KINDS", "ALSO_TESTS"]

CLAIM_REFS = {
    "auditor-no-false-alarm": ["Sec. C.1"],
    "auditor-catches-mutants": ["Sec. C.1"],
    "auditor-coverage": ["Sec. C.1"],
    "true-eps-square-wave": ["Sec. C.2"],
    "square-wave-law": ["Sec. C.2"],
    "true-eps-record-noise": ["Sec. C.2"],
    "true-eps-hiera": ["Sec. C.2"],
    "true-eps-graded-laplace": ["Sec. C.2"],
    "true-eps-tldp": ["Sec. C.2"],
    "true-eps-tvg": ["Sec. C.2"],
    "true-eps-pm-tuples": ["Sec. C.2"],
    "true-eps-spof": ["Sec. C.2"],
    "true-eps-spof-alg2": ["Sec. C.2"],
    "true-eps-book-baselines": ["Sec. C.2"],
    "true-eps-baselines": ["Sec. C.2"],
    "blackbox-agrees": ["Sec. C.2"],
    "true-eps-tensor-exact": ["Sec. C.2"],
    "true-eps-tensor-noise": ["Sec. C.2"],
    "pmsub-beats-pm": ["Sec. C.3"],
    "hmtp-lowest-worst-case": ["Sec. C.4"],
    "hmtp-best-everywhere": ["Sec. C.4"],
    "f1-null-maps": ["Sec. C.4"],
}

#: The claims above that test a numbered item of a chapter's paper too: claim id -> its
#: (chapter, item ref) pairs, each an item of that chapter's list (checked by
#: :func:`ldp_companion.edition.book.cross_links`). The chapter's coverage names the claim and its
#: verdict beside the item; the claim's primary ref stays this appendix's section.
ALSO_TESTS = {
    "true-eps-tldp": [("01-tldp", "Theorem 1"), ("01-tldp", "Theorem 3")],
    "true-eps-baselines": [("01-tldp", "Theorem 2")],
    "true-eps-tvg": [("02-tvg", "Theorem 2"), ("02-tvg", "Theorem 3"), ("02-tvg", "Theorem 4")],
    "true-eps-pm-tuples": [("03-pm-three-outputs", "Lemma 12")],
    "hmtp-lowest-worst-case": [("03-pm-three-outputs", "Fig. 1")],
    "hmtp-best-everywhere": [("03-pm-three-outputs", "Fig. 6"),
                             ("03-pm-three-outputs", "Fig. 7")],
    "pmsub-beats-pm": [("03-pm-three-outputs", "Table II")],
    "true-eps-spof": [("04-spof", "Alg. 1"), ("04-spof", "Proposition 2"),
                      ("04-spof", "Proposition 3")],
    "true-eps-spof-alg2": [("04-spof", "Alg. 2"), ("04-spof", "App. B")],
    "true-eps-hiera": [("05-hiera", "Theorem 2")],
    "true-eps-graded-laplace": [("05-hiera", "Sec. 3.1")],
    "true-eps-square-wave": [("B-mechanism", "Sec. B.2")],
}

#: The auditor's own checks, and chapter 4's own baselines, are about the book, not a paper.
CLAIM_KINDS = {c: "beyond the paper" for c in
               ("auditor-no-false-alarm", "auditor-catches-mutants", "auditor-coverage",
                "blackbox-agrees",
                "true-eps-book-baselines", "square-wave-law", "true-eps-record-noise",
                "true-eps-tensor-exact",
                "true-eps-tensor-noise", "f1-null-maps")}

ITEMS = PaperItems("C-compare", "The five papers' mechanisms on one scale (appendix C)", [
    Item("Sec. C.1", "A black-box auditor (DP-Sniper) finds known violations and flags no "
         "correct mechanism", "checked",
         claims=["auditor-no-false-alarm", "auditor-catches-mutants", "auditor-coverage"]),
    Item("Sec. C.2", "One table of true ε: claimed, exact and black-box, for every mechanism",
         "checked", claims=["true-eps-square-wave", "square-wave-law", "true-eps-record-noise",
                            "true-eps-hiera", "true-eps-graded-laplace", "true-eps-tldp",
                            "true-eps-tvg", "true-eps-baselines",
                            "true-eps-pm-tuples", "true-eps-spof", "true-eps-spof-alg2",
                            "true-eps-book-baselines", "blackbox-agrees",
                            "true-eps-tensor-exact", "true-eps-tensor-noise"]),
    Item("Sec. C.3", "Utility at equal true privacy: the papers' comparisons redone at the ε "
         "each mechanism spends", "checked",
         claims=["pmsub-beats-pm"]),
    Item("Sec. C.4", "The decision map: which mechanism to use, per task and true ε", "checked",
         claims=["hmtp-lowest-worst-case", "hmtp-best-everywhere", "f1-null-maps"]),
])
