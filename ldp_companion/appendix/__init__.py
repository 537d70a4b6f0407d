"""Appendix A, *How we audit privacy* — what only that page uses. The auditor itself is the
shared block :mod:`ldp_companion.audit`; its mutants are :mod:`ldp_companion.mechanisms.mutants`.

* :mod:`~ldp_companion.appendix.params`: the page's parameters per profile.
"""
