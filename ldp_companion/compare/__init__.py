"""Appendix C: the mechanisms of the five papers on one scale, at the ε they really spend.

Not one paper's chapter: it sits on floor 7, above the chapter packages, whose mechanisms and
calibrations it reads (:mod:`ldp_companion.tldp`, :mod:`ldp_companion.tvg`,
:mod:`ldp_companion.pm`, :mod:`ldp_companion.spof`, :mod:`ldp_companion.hiera`, and appendix B's
Square Wave from :mod:`ldp_companion.byom`), and below :mod:`ldp_companion.edition` (floor 8).
May import: floors 0–6.

* :mod:`~ldp_companion.compare.catalogue`: every mechanism of the papers, with its claimed ε,
  its exact ε where its output law is known, and a sampler for the black-box auditor;
* :mod:`~ldp_companion.compare.true_epsilon`: the table of claimed, exact and black-box ε
  (:mod:`ldp_companion.auditing.blackbox`, DP-Sniper) and its verdicts;
* :mod:`~ldp_companion.compare.row_checks`: what backs that table's exact column (the Gaussian
  tensor rows against the papers' printed calibrations and their samplers' noise, Square
  Wave's law against its sampler);
* :mod:`~ldp_companion.compare.utility`: the error of each mechanism against the ε it really
  spends, and the decision map (which mechanism is best, by how much, per ε and task);
* :mod:`~ldp_companion.compare.decision_checks`: what backs the decision map's F1 row (its
  Bonferroni correction against the exact law of false winners in simulated null maps);
* :mod:`~ldp_companion.compare.claims`: the papers' comparative claims at the claimed and at
  the true ε, recorded in the ledger.
"""
