"""Appendix B, *Bring your own mechanism* — what only that page uses.

* :mod:`~ldp_companion.byom.checks`: every check the book runs on a registered scalar
  mechanism, recorded in a ledger (exact and empirical audits, exact-law and Monte Carlo
  moments);
* :mod:`~ldp_companion.byom.experiments`: the mean-estimation grid and its data sets;
* :mod:`~ldp_companion.byom.claims`: the claims of Secs. B.4 and B.5 (beside the papers'
  mechanisms, the mutant);
* :mod:`~ldp_companion.byom.figures`, :mod:`~ldp_companion.byom.views`: the page's figures and
  tables;
* :mod:`~ldp_companion.byom.exercises`: the exercise's answers, from the closed forms;
* :mod:`~ldp_companion.byom.items`: the page's numbered sections, for the coverage table;
* :mod:`~ldp_companion.byom.params`: the page's parameters per profile.

The registry itself is shared: :func:`ldp_companion.mechanisms.register_mechanism`.
"""
