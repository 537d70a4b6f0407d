"""Auditing: the ε a mechanism really spends, and its noise's moments, measured (floor 2).

* :mod:`~ldp_companion.auditing.audit`: the exact audit from a mechanism's output law, and the
  empirical audit from samples;
* :mod:`~ldp_companion.auditing.blackbox`: a black-box lower bound from samples alone
  (DP-Sniper);
* :mod:`~ldp_companion.auditing.montecarlo`: Monte Carlo checks of a mechanism's mean and
  variance.

May import: floors 0–1 (``validation``, ``files``, ``mechanisms``, ``tensor``, ``neural``).
"""
