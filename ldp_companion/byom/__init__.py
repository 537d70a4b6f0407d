"""Appendix B, *Bring your own mechanism* — what only that page uses.

* :mod:`~ldp_companion.byom.checks`: every check the book runs on a registered scalar
  mechanism, recorded in a ledger (exact and empirical audits, exact-law and Monte Carlo
  moments);
* :mod:`~ldp_companion.byom.items`: the page's numbered sections, for the coverage table;
* :mod:`~ldp_companion.byom.params`: the page's parameters per profile.

The registry itself is shared: :func:`ldp_companion.mechanisms.register_mechanism`.
"""
