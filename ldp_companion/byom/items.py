"""The numbered sections of appendix B (Bring your own mechanism): what the book checks on a
mechanism a reader registers, with the Square Wave mechanism of Li et al. (2020) as the
example. Data for :mod:`ldp_companion.verdicts.coverage`."""
from ldp_companion.verdicts.coverage import Item, PaperItems

__all__ = ["ITEMS", "CLAIM_REFS", "CLAIM_KINDS"]

CLAIM_REFS = {
    "square_wave-exact": ["Sec. B.2"],
    "square_wave-empirical": ["Sec. B.2"],
    "square_wave-law": ["Sec. B.3"],
    "square_wave-mc": ["Sec. B.3"],
    "sw-worst-case": ["Sec. B.4"],
    "sw-mean-mse": ["Sec. B.4"],
    "sw-vs-pm": ["Sec. B.4"],
    "mutant-caught": ["Sec. B.5"],
    "mutant-moments": ["Sec. B.5"],
}

#: Every claim of the page is about the example mechanism or the book's checks, not about one
#: of the five papers.
CLAIM_KINDS = {claim: "beyond the paper" for claim in CLAIM_REFS}

ITEMS = PaperItems("B-mechanism", "Your own mechanism: the Square Wave example (appendix B)", [
    Item("Sec. B.2", "The registered mechanism is ε-LDP: exact and empirical audits", "checked",
         claims=["square_wave-exact", "square_wave-empirical"]),
    Item("Sec. B.3", "Its output law and its sampler have the stated mean and variance",
         "checked", claims=["square_wave-law", "square_wave-mc"]),
    Item("Sec. B.4", "Beside the papers' mechanisms: worst-case variance and mean estimation",
         "checked", claims=["sw-worst-case", "sw-mean-mse", "sw-vs-pm"]),
    Item("Sec. B.5", "A mutant of it is caught", "checked",
         claims=["mutant-caught", "mutant-moments"]),
])
