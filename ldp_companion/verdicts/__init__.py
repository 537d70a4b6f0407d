"""Verdicts: every claim a chapter checks, the comparison that decides it, and what a run
records beside it (floor 2).

* :mod:`~ldp_companion.verdicts.ledger`: the claims ledger, a verdict computed per claim;
* :mod:`~ldp_companion.verdicts.coverage`: each paper's numbered items and their status;
* :mod:`~ldp_companion.verdicts.paired`: run-by-run comparisons of two mechanisms;
* :mod:`~ldp_companion.verdicts.prose`: numbers typed into prose (they belong glued), and how
  the book writes a parameter value;
* :mod:`~ldp_companion.verdicts.pins`: the default build's pinned verdicts;
* :mod:`~ldp_companion.verdicts.mutation`, :mod:`~ldp_companion.verdicts.mutation_generated`:
  wrong versions of the code, chosen and generated, that the verdicts must notice;
* :mod:`~ldp_companion.verdicts.run_records`: what a chapter's kernel records beside its ledger.

May import: floors 0–1.
"""
