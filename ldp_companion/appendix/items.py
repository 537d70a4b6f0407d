"""The numbered sections of appendix A (How we audit privacy): the book's own method, which the
appendix's claims check. Data for :mod:`ldp_companion.verdicts.coverage`."""
from ldp_companion.verdicts.coverage import Item, PaperItems

__all__ = ["ITEMS", "CLAIM_REFS", "CLAIM_KINDS"]

CLAIM_REFS = {
    "exact-all": ["Sec. A.1"],
    "empirical-correct": ["Sec. A.2"],
    "empirical-below-truth": ["Sec. A.2"],
    "empirical-mutants": ["Sec. A.2"],
    "tensor": ["Sec. A.3"],
}

CLAIM_KINDS: dict = {}  # every claim is about the method itself

ITEMS = PaperItems("A-audit", "This book's privacy audit (appendix A)", [
    Item("Sec. A.1", "The exact audit: the true ε of a mechanism from its output law",
         "checked", claims=["exact-all"]),
    Item("Sec. A.2", "The empirical audit: a lower confidence bound on ε from samples",
         "checked", claims=["empirical-correct", "empirical-below-truth", "empirical-mutants"]),
    Item("Sec. A.3", "The empirical audit of tensor-valued mechanisms", "checked",
         claims=["tensor"]),
])
