"""Chapter 1: Yuan, Tang, Huang & Wang, *Local Differential Privacy for Tensors in Distributed
Computing Systems* (TLDP) — what only this paper uses. The shared tensor noise (Laplace,
Gaussian, IDN, MVG) is :mod:`ldp_companion.tensor`. One module per idea:

* :mod:`~ldp_companion.tldp.algorithm`: TLDP (Alg. 1) and weighted TLDP (Alg. 2), the retaining
  probability in log space and its ceilings;
* :mod:`~ldp_companion.tldp.mechanisms`: every mechanism the experiments compare, by name;
* :mod:`~ldp_companion.tldp.privacy`: what TLDP really spends (Theorems 1–3): true ε, Gaussian
  DP through ``dp-accounting``, the distinguishing attack;
* :mod:`~ldp_companion.tldp.error`: Table V, paper against implemented against Monte Carlo;
* :mod:`~ldp_companion.tldp.data`, :mod:`~ldp_companion.tldp.experiments`,
  :mod:`~ldp_companion.tldp.analysis`: the three experiment types (Figs. 1–3) and their reading;
* :mod:`~ldp_companion.tldp.stacked`: the runs of an experiment trained side by side as one
  batched model (the same weights as one run at a time);
* :mod:`~ldp_companion.tldp.checks`, :mod:`~ldp_companion.tldp.claims`: the numbers the page
  checks the derivations with (Alg. 1–2, Theorems 1–3) and the claims they decide;
* :mod:`~ldp_companion.tldp.experiment_claims`: the claims of Figs. 1–3 and Tables II–IV;
* :mod:`~ldp_companion.tldp.figures`, :mod:`~ldp_companion.tldp.views`: the page's figures
  (with their captions) and tables (through :func:`ldp_companion.page.tables.show_table`);
* :mod:`~ldp_companion.tldp.items`, :mod:`~ldp_companion.tldp.params`: the paper's numbered
  items and the chapter's parameters;
* :mod:`~ldp_companion.tldp.reconstructions`: the reference values that rest on something the
  paper does not state (MVG's γ, s₂ at Δ = 256);
* :mod:`~ldp_companion.tldp.mutants`: deliberate bugs the chapter's verdicts must notice.
"""
