"""Chapter 3: Zhao et al. (2020), *Local Differential Privacy based Federated Learning for the
Internet of Things* — what only this paper uses. The scalar mechanisms themselves (Laplace,
Duchi, PM, HM, Three-Outputs, PM-OPT, PM-SUB, HM-TP) are shared blocks in
:mod:`ldp_companion.mechanisms`. One module per idea:

* :mod:`~ldp_companion.pm.theory`: the Three-Outputs derivation (Lemmas 1–5), PM-OPT (Lemma 7),
  the LP over all three-output mechanisms, HM-TP★, Fig. 4's density (Eq. (26b)) and the
  thresholds of Tables I–II;
* :mod:`~ldp_companion.pm.discretize`: discretization of a continuous output (Alg. 5,
  Lemmas 8–9);
* :mod:`~ldp_companion.pm.multidim`: many attributes (Alg. 6, Lemmas 12–14) and the
  multi-dimensional baselines;
* :mod:`~ldp_companion.pm.fedsgd`: LDP-FedSGD (Alg. 1) with linear, logistic and SVM losses;
* :mod:`~ldp_companion.pm.synthetic`: offline stand-ins with the paper's data shapes (Sec. VII);
* :mod:`~ldp_companion.pm.external_data`: the paper's real data sets (``paper`` profile);
* :mod:`~ldp_companion.pm.experiments`: the experiment grids (Figs. 6–14) and the Monte Carlo
  checks of Lemma 13 and of Alg. 1's server step;
* :mod:`~ldp_companion.pm.references`: the reconstructed reference values the chapter compares
  with (Fig. 1, Lemmas 4 and 7, Tables I–II, Alg. 5);
* the chapter's checks, one module per part of the page, each tabulating what the package
  computes and recording the claims in the ledger: :mod:`~ldp_companion.pm.mechanism_checks`
  (Fig. 4, ε-LDP audits, moments), :mod:`~ldp_companion.pm.lemma_checks` (Lemmas 1–5 and 7, the
  LP), :mod:`~ldp_companion.pm.worst_case` (Fig. 1, Tables I–II),
  :mod:`~ldp_companion.pm.discretization_checks` (Lemmas 8–9, Fig. 15),
  :mod:`~ldp_companion.pm.multiattribute_checks` (Eq. (36), Lemmas 12–13),
  :mod:`~ldp_companion.pm.mean_checks` (Figs. 6–7 and 11) and
  :mod:`~ldp_companion.pm.fedsgd_checks` (Figs. 8–10 and 12–14);
* :mod:`~ldp_companion.pm.figures`: the chapter's figures, drawn from what the page computed;
* :mod:`~ldp_companion.pm.params`: the chapter's parameters per profile;
* :mod:`~ldp_companion.pm.items`, :mod:`~ldp_companion.pm.reconstructions`: the paper's items
  and the rebuilt reference values;
* :mod:`~ldp_companion.pm.mutants`: deliberate bugs the chapter's verdicts must catch.
"""
