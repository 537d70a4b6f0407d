"""Appendix A, *How we audit privacy* — what only that page uses. The auditor itself is the
shared block :mod:`ldp_companion.auditing.audit`; its mutants are
:mod:`ldp_companion.mechanisms.mutants`.

* :mod:`~ldp_companion.appendix.audits`: the audits the page runs (exact, empirical on correct
  mechanisms and mutants, empirical on a tensor), each as a table;
* :mod:`~ldp_companion.appendix.claims`: the claims each section records in the ledger;
* :mod:`~ldp_companion.appendix.figures`: the empirical audits' figure;
* :mod:`~ldp_companion.appendix.views`: the tables as the page shows them;
* :mod:`~ldp_companion.appendix.exercises`: the exercise's answers;
* :mod:`~ldp_companion.appendix.items`: the page's numbered sections, for the coverage table;
* :mod:`~ldp_companion.appendix.params`: the page's parameters per profile.
"""
