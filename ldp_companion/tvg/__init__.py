"""Chapter 2: Yang, Xiang, Chen, Li & Li, *Differential Privacy for Tensor-Valued Queries*
(TVG, IEEE TIFS 2021) — what only this paper uses.

* :mod:`~ldp_companion.tvg.bounds`: Lemma 3's ζ(δ), the budgets of Theorems 1–3, the
  calibration recipe;
* :mod:`~ldp_companion.tvg.optimal`: Sec. VI's utility-optimized noise (Alg. 1, Eqs. 25–29)
  and an SLSQP cross-check;
* :mod:`~ldp_companion.tvg.noise`: the per-entry noise of every compared mechanism with
  ``W = E`` and Table IV's expected errors;
* :mod:`~ldp_companion.tvg.privacy`: exact audits of TVG noise, Rényi divergence (Eq. 32),
  amplification and Kairouz composition for private SGD;
* :mod:`~ldp_companion.tvg.release`: releases by name (i.i.d. and directional);
* :mod:`~ldp_companion.tvg.covariance`: the CTG covariance task (Eq. 33), JL and MM;
* :mod:`~ldp_companion.tvg.experiments`: Types I–III (Figs. 3–5) at reduced scale;
* :mod:`~ldp_companion.tvg.paper`, :mod:`~ldp_companion.tvg.paper_sgd`: the paper's own
  networks and data sets, Types II–III (Table III) and Type I (Table II);
* :mod:`~ldp_companion.tvg.reference`: the paper's printed formulas and the exact Gaussian
  privacy profile in 50-digit arithmetic, independent of the rest of the package;
* :mod:`~ldp_companion.tvg.audits`: the noise each mechanism adds, audited against those
  references; :mod:`~ldp_companion.tvg.settings`: Tables II–III's shapes against the networks;
* what the chapter page calls, one module per idea: :mod:`~ldp_companion.tvg.algebra_checks`
  (Defs. 3–8, Lemmas 1–3, Cor. 1), :mod:`~ldp_companion.tvg.theorem_checks` (Theorems 1–4,
  Eq. 32), :mod:`~ldp_companion.tvg.calibration_checks` (MVG's noise against Eq. 30 and
  Table IV, the releases' draws against their calibration, the JL baseline's mean),
  :mod:`~ldp_companion.tvg.alg1_checks` (Alg. 1, Eq. 29, Cor. 2),
  :mod:`~ldp_companion.tvg.table4` (Table IV), :mod:`~ldp_companion.tvg.setting_tables`
  (Tables II–III against ours), :mod:`~ldp_companion.tvg.results` (summaries of the runs),
  :mod:`~ldp_companion.tvg.figures` and :mod:`~ldp_companion.tvg.figure_claims` (Figs. 3–5);
* :mod:`~ldp_companion.tvg.items`, :mod:`~ldp_companion.tvg.params`,
  :mod:`~ldp_companion.tvg.reconstructions`, :mod:`~ldp_companion.tvg.mutants`: the paper's
  numbered items, the chapter's parameters, what the chapter rebuilt, and deliberate bugs the
  chapter's verdicts must notice.

The tensor algebra and the tensor-variate Gaussian sampler are shared:
:mod:`ldp_companion.tensor.algebra`, :mod:`ldp_companion.tensor.variate`.
"""
