"""Numbered items of Zhao et al. 2020, Local Differential Privacy based Federated Learning for the
Internet of Things: each with its place in chapter 03-pm-three-outputs.

Data for :mod:`ldp_companion.verdicts.coverage` (statuses, claims, reasons); ``CLAIM_REFS`` maps
every ledger claim of the chapter to the items it checks.
"""
from ldp_companion.verdicts.coverage import Item, PaperItems

__all__ = ["ITEMS", "CLAIM_REFS", "CLAIM_KINDS"]

# Numbered items of Zhao et al. 2020, "Local Differential Privacy based Federated Learning for
# the Internet of Things" (arXiv:2004.08856), and the ledger claims of
# notebooks/03-pm-three-outputs.md that check them.
# Sources read: shared/papers/pm-three-outputs-hmtp.txt (lossy dump of the paper) and the
# notebook's code cells.
# Items are in paper order (first appearance/placement in the text we have). Module paths are the
# post-refactor ones (ldp_companion.pm.*, ldp_companion.mechanisms.*).

# What differs from the paper's setup even at the paper profile (Item.differs): the settings
# the text lost, rebuilt here.
_MEAN_LOST = ("the IPUMS variables are our choice (the paper gives their counts only); the "
              "number of runs is lost (Wang et al.'s 100 is used)")
_ERM_SETUP = ["data", "erm_seeds", "eps_grid"]
_ERM_LOST = ("one random held-out test set with erm_seeds repetitions of groups and noise "
             "instead of the paper's '[U]-fold cross-validation [U] times'; the group size, "
             "step size and λ are lost (the parameters group_size, eta0 and lam rebuild them; "
             "λ is Wang et al.'s)")
_DISC_LOST = "the number of outputs is lost (the parameter disc_outputs sets it)"

_ITEMS = [
    # ---- Introduction (unnumbered) -------------------------------------------------------
    # Both tables' bodies are lost ("| Range of | Comparison of mechanisms |" twice in the
    # dump); their content is known from the prose ("Table I on Page I", "Table II on Page II").
    {"ref": "Table I",
     "title": "Worst-case variance of Laplace, Duchi and PM; which is best by ε",
     "status": "checked",
     "claims": ["cross-duchi-pm", "cross-duchi-pm-paper", "laplace-worse-pm", "fig1-values"]},
    {"ref": "Table II",
     "title": "ε ranges where Three-Outputs and PM-SUB beat Duchi and PM",
     "status": "checked",
     "claims": ["three-outputs-leaves-duchi", "pmsub-beats-pm", "3out-beats-duchi-pm",
                "pm-family-order", "cross-three_outputs-pm", "cross-three_outputs-pm-paper",
                "cross-pm_sub-duchi", "cross-pm_sub-duchi-paper"]},

    # ---- Sec. I Preliminaries --------------------------------------------------------------
    {"ref": "Definition 1",
     "title": "ε-local differential privacy of a randomized perturbation",
     "status": "checked",
     "claims": ["ldp-laplace", "ldp-duchi", "ldp-pm", "ldp-hm", "ldp-three_outputs",
                "ldp-pm_opt", "ldp-pm_sub", "ldp-hm_tp", "ldp-empirical",
                "duchi-md-split", "duchi-md-minus"]},

    # ---- Sec. II Related work ----------------------------------------------------------------
    # Drawn from the closed forms on a dense ε grid and checked by these claims (the figure
    # prints no values): "checked", not "reproduced".
    {"ref": "Fig. 1",
     "title": "Worst-case noise variance vs ε for all eight mechanisms",
     "status": "checked",
     "claims": ["fig1-values", "hmtp-lowest", "pm-family-order", "cross-duchi-laplace",
                "cross-duchi-pm", "cross-three_outputs-pm", "cross-three_outputs-pm-paper",
                "cross-three_outputs-pm_sub", "cross-three_outputs-pm_opt",
                "cross-pm_opt-duchi", "cross-hm_tp-hm", "cross-hm_tp-pm_opt"]},

    # ---- Sec. III System model, LDP-FedSGD -----------------------------------------------------
    {"ref": "Fig. 2",
     "title": "System model: vehicles exchanging gradients with a cloud server",
     "status": "not reproduced",
     "reason": "it is a schematic of vehicles and the cloud server with no data or result to "
               "recompute; the chapter states the same setting in prose (section pm-paper)."},
    {"ref": "Alg. 1",
     "title": "LDP-FedSGD: vehicles perturb gradients, server averages per group",
     "status": "checked", "claims": ["fedsgd-server", "fedsgd-clip"]},
    {"ref": "Table III",
     "title": "Comparison of ε-ULDP, ε-RLDP, ε-RLCP and ε-ULCP paradigms",
     "status": "not reproduced",
     "reason": "it is a qualitative table of trust and adversary models for four DP/FL "
               "paradigms with nothing to compute; the chapter states only the ULDP threat "
               "model the paper adopts (section pm-paper)."},

    # ---- Sec. V-A Three-Outputs --------------------------------------------------------------
    {"ref": "Alg. 2",
     "title": "Three-Outputs mechanism with outputs -C, 0, C",
     "status": "checked",
     "claims": ["ldp-three_outputs", "ldp-empirical", "moments-law", "moments-mc"]},
    {"ref": "Lemma 1",
     "title": "Symmetrisation keeps feasibility and never raises worst-case variance",
     "status": "checked", "claims": ["lemma1"]},
    {"ref": "Lemma 2",
     "title": "Making LDP constraints at x = ±1 tight lowers worst-case variance",
     "status": "checked", "claims": ["lemma23-grid", "lemma23-tight"]},
    {"ref": "Lemma 3",
     "title": "Variance minimised when P(0|1) = P(0|0)/e^ε (Eq. (24))",
     "status": "checked", "claims": ["lemma23-grid", "lemma23-tight", "lemma3-wording"]},
    # Numbered equation, added because claims check it: the Three-Outputs variance.
    {"ref": "Eq. (25)",
     "title": "Three-Outputs variance given input x, after Lemma 3",
     "status": "checked", "claims": ["moments-law", "moments-mc", "variance-eps1"]},
    {"ref": "Lemma 4",
     "title": "Optimal P(0|0) minimising worst-case variance is Eq. (5)",
     "status": "checked",
     "claims": ["lemma4-table", "lemma4-continuity", "lemma4-thresholds", "lemma4-factor",
                "lemma23-grid", "three-outputs-leaves-duchi", "beyond-lp"]},
    {"ref": "Lemma 5",
     "title": "Minimum worst-case variance of Three-Outputs at the optimal P(0|0)",
     "status": "checked",
     "claims": ["lemma4-table", "fig1-values", "beyond-lp", "beyond-lp-values"]},
    # Numbered, but only its heading survives ("Remark 1." between Lemmas 4 and 5).
    {"ref": "Remark 1",
     "title": "Unknown: only the heading survives, between Lemmas 4 and 5",
     "status": "not reproduced",
     "reason": "only the heading 'Remark 1.' survives in the text we have, so what it states "
               "cannot be checked; its likely content (Three-Outputs is Duchi's mechanism "
               "below ln 2) is checked under Table II (three-outputs-leaves-duchi)."},
    # Fig. 3 is never named in the text we have (no caption, no reference), but Fig. 2 and Fig. 4
    # are, and IEEE numbering is consecutive, so it exists; placed between Sec. III-A (Fig. 2) and
    # Sec. V-B (Fig. 4) -- its exact position and content are unknown.
    {"ref": "Fig. 3",
     "title": "Unknown: caption and every reference lost from the text we have",
     "status": "not reproduced",
     "reason": "neither its caption nor any reference to it survives in the text we have, so what "
               "it shows cannot be determined; its existence is inferred only from Figs. 2 and "
               "4 being numbered."},

    # ---- Sec. V-B PM-OPT ---------------------------------------------------------------------
    {"ref": "Alg. 3",
     "title": "PM-OPT: piecewise mechanism with optimal t",
     "status": "checked",
     "claims": ["ldp-pm_opt", "ldp-empirical", "moments-law", "moments-mc", "fig4-density"]},
    # Drawn from the output laws at ε = 1, x = 0.5 (the figure's ε and x are lost) and checked
    # against Eq. (26b) typed from the paper: "checked".
    {"ref": "Fig. 4",
     "title": "Three-piece output density of the piecewise mechanism for one input",
     "status": "checked", "claims": ["fig4-density"]},
    {"ref": "Lemma 6",
     "title": "Alg. 3 is ε-LDP, unbiased, with variance Eq. (31)",
     "status": "checked",
     "claims": ["ldp-pm_opt", "ldp-pm_sub", "ldp-empirical", "moments-law", "moments-mc",
                "variance-eps1"]},
    {"ref": "Lemma 7",
     "title": "Optimal t of the piecewise family is Eq. (30)",
     "status": "checked", "claims": ["lemma7-tstar", "lemma7-ferrari", "pm-family-order"]},

    # ---- Sec. V-C PM-SUB ---------------------------------------------------------------------
    # Unnumbered prose claim, added because a claim checks it ("comparable utility to PM-OPT",
    # "t is close to e^(ε/3)").
    {"ref": "Sec. V-C",
     "title": "PM-SUB (t = e^(ε/3)) has utility comparable to PM-OPT",
     "status": "checked", "claims": ["pmsub-close"]},
    {"ref": "Alg. 4",
     "title": "PM-SUB: piecewise mechanism with t = e^(ε/3)",
     "status": "checked",
     "claims": ["ldp-pm_sub", "ldp-empirical", "moments-law", "moments-mc", "fig4-density"]},

    # ---- Sec. V-D Discretization -------------------------------------------------------------
    {"ref": "Alg. 5",
     "title": "Discretization post-processing onto 2m+1 grid points",
     "status": "checked", "claims": ["lemma8", "disc-table", "disc-mc"]},
    {"ref": "Lemma 8",
     "title": "Probabilities of rounding to the neighbouring grid points (Eq. (35))",
     "status": "checked", "claims": ["lemma8", "disc-mc"]},
    {"ref": "Lemma 9",
     "title": "Discretization never lowers the worst-case noise variance",
     "status": "checked", "claims": ["lemma9", "fig11-mse-analytic"]},
    # Fig. 5 is never named in the text we have either, but Figs. 4 and 6 are, so it exists; it lies
    # somewhere between Sec. V-B and Sec. VII-A (placed here as a guess).
    {"ref": "Fig. 5",
     "title": "Unknown: caption and every reference lost from the text we have",
     "status": "not reproduced",
     "reason": "neither its caption nor any reference to it survives in the text we have, so what "
               "it shows cannot be determined; its existence is inferred only from Figs. 4 and "
               "6 being numbered."},

    # ---- Sec. V-E HM-TP ----------------------------------------------------------------------
    {"ref": "Lemma 10",
     "title": "HM-TP worst-case variance minimised with β of Eq. (150)",
     "status": "checked", "claims": ["hmtp-le-parts", "fig1-values"]},
    {"ref": "Lemma 11",
     "title": "Exact worst-case noise variance of HM-TP at the optimal β",
     "status": "checked", "claims": ["fig1-values"]},

    # ---- Sec. VI Multiple attributes ---------------------------------------------------------
    {"ref": "Alg. 6",
     "title": "Multi-attribute perturbation: sample k attributes, budget ε/k each",
     "status": "checked", "claims": ["lemma12-ldp"]},
    # Numbered equation, added because a claim checks it: the choice of k.
    {"ref": "Eq. (36)",
     "title": "Number k of attributes each user reports",
     "status": "checked", "claims": ["eq36-argmin"]},
    {"ref": "Lemma 12",
     "title": "Alg. 6 is ε-LDP and unbiased per attribute",
     "status": "checked", "claims": ["lemma12-ldp", "mse-analytic", "fedsgd-server"]},
    {"ref": "Lemma 13",
     "title": "Max mean-estimation error is O(sqrt(d log d)/(ε sqrt n))",
     "status": "checked", "claims": ["lemma13-slope", "lemma13-ratio"]},

    # ---- Sec. VII-A Mean estimation ----------------------------------------------------------
    # data = "stand-ins" (smoke, default) draws it on paper-shaped synthetic stand-ins
    # (WISDM/BR/MX/Vehicle-like) plus digits; data = "paper" uses the real files, whole.
    {"ref": "Fig. 6",
     "title": "Mean-estimation MSE vs ε on WISDM, MX, BR and Vehicle",
     "status": "reproduced", "artifact": "pm-fig7",
     "setup": ["data", "runs_mean", "eps_grid"],
     "differs": _MEAN_LOST + "; the Vehicle panel's number of attributes is lost ('the last "
                "[U] numeric attributes'): the last 20 are used",
     "claims": ["mse-laplace-worst", "mse-duchi-md", "fig6-hmtp-all", "fig6-pmsub-pm",
                "fig6-3out-small", "fig6-budget-share"]},
    {"ref": "Fig. 7",
     "title": "Mean-estimation MSE vs ε on four synthetic Gaussian data sets",
     "status": "reproduced", "artifact": "pm-fig7",
     "setup": ["n_mean", "runs_mean", "eps_grid", "d_grid"],
     "differs": "the synthetic data's d, mean, spread and size are lost (d of 5, 10, 20 and "
                "40, N(0, 0.25²) clipped to [-1, 1] and 10⁶ users are rebuilt); the number "
                "of runs is lost (Wang et al.'s 100 is used)",
     "claims": ["mse-laplace-worst", "mse-duchi-md", "fig6-hmtp-all"]},

    # ---- Sec. VII-B Empirical risk minimisation ----------------------------------------------
    # data = "stand-ins": synthetic logistic/linear tasks and a breast-cancer SVM; data =
    # "paper": MX (logistic), BR (linear) and Vehicle (SVM) besides the synthetic tasks.
    {"ref": "Fig. 8",
     "title": "Logistic regression misclassification rate vs ε",
     "status": "reproduced", "artifact": "pm-fedsgd", "setup": _ERM_SETUP,
     "differs": _ERM_LOST + "; the text does not name the logistic regression's data: MX's "
                "income above its mean is used (Wang et al.'s task)",
     "claims": ["erm-improves", "erm-proposed-better"]},
    {"ref": "Fig. 9",
     "title": "Linear regression MSE vs ε (Laplace omitted)",
     "status": "reproduced", "artifact": "pm-fedsgd", "setup": _ERM_SETUP,
     "differs": _ERM_LOST + "; the IPUMS variables are our choice (the paper gives their "
                "counts only)",
     "claims": ["erm-laplace-linear", "erm-improves", "erm-proposed-better"]},
    {"ref": "Fig. 10",
     "title": "SVM misclassification rate vs ε",
     "status": "reproduced", "artifact": "pm-fedsgd", "setup": _ERM_SETUP,
     "differs": _ERM_LOST,
     "claims": ["erm-improves", "erm-proposed-better"]},

    # ---- Sec. VII-C Discretization results ---------------------------------------------------
    # Unnumbered prose claim, added because a claim checks it ("the misclassification rate and
    # MSE decrease as the number of output possibilities increases").
    {"ref": "Sec. VII-C",
     "title": "Error decreases as the number of output possibilities grows",
     "status": "checked", "claims": ["fig11-monotone"]},
    {"ref": "Fig. 11",
     "title": "Mean-estimation MSE vs ε after discretization (WISDM, MX, BR)",
     "status": "reproduced", "artifact": "pm-fig12",
     "setup": ["data", "runs_mean", "eps_grid"],
     "differs": _DISC_LOST + "; " + _MEAN_LOST,
     "claims": ["fig11-proposed-better", "fig11-hmtp-all", "fig11-mse-analytic"]},
    {"ref": "Fig. 12",
     "title": "Logistic regression misclassification vs ε after discretization",
     "status": "reproduced", "artifact": "pm-fig12", "setup": _ERM_SETUP,
     "differs": _DISC_LOST + "; " + _ERM_LOST,
     "claims": ["fig12-13-proposed-better", "fig12-13-similar"]},
    {"ref": "Fig. 13",
     "title": "Linear regression MSE vs ε after discretization",
     "status": "reproduced", "artifact": "pm-fig12", "setup": _ERM_SETUP,
     "differs": _DISC_LOST + "; " + _ERM_LOST,
     "claims": ["fig12-13-proposed-better", "fig12-13-similar"]},
    {"ref": "Fig. 14",
     "title": "Misclassification and MSE vs number of output possibilities",
     "status": "checked", "claims": ["fig14"]},
    {"ref": "Fig. 15",
     "title": "PM-SUB vs Three-Outputs as the number of outputs grows",
     "status": "checked", "claims": ["fig15"]},

    # ---- Appendix -E (proof of Lemma 4): figures referenced in the text, captions lost ------
    # REPRODUCIBLE OFFLINE: the ε > ln 4 step of Eq. (85) compares the P(0|0) at which the
    # worst input x* reaches 1 with the cap E/(E+2) of Eq. (83); both follow from the closed
    # forms in ldp_companion.mechanisms.three_outputs, once the plotted expression is re-derived.
    {"ref": "Fig. 16",
     "title": "Sign check in Lemma 4 proof for the regime above ln 4",
     "status": "not reproduced",
     "reason": "its plotted expression (Appendix E, after Eq. (85)) is lost from the text we have, "
               "so it would first have to be re-derived; the chapter checks Lemma 4's result "
               "directly instead (lemma4-table, lemma4-thresholds, lemma23-grid)."},
    # REPRODUCIBLE OFFLINE: the cubic of Eqs. (92)/(117) is ldp_companion.pm.theory.cubic_dv_da;
    # plot its value/sign at the case boundaries over ε.
    {"ref": "Fig. 17",
     "title": "Sign of the cubic's real root in Case 1 of Lemma 4 proof",
     "status": "not reproduced",
     "reason": "the plotted quantity of Case 1 (Appendix E, Eq. (118)) is lost from the text we "
               "have and would have to be re-derived from the cubic; the chapter checks the "
               "resulting Eq. (5) and its thresholds directly (lemma4-table, lemma4-thresholds)."},
    # REPRODUCIBLE OFFLINE: Eqs. (119)-(120) are values of the cubic
    # (ldp_companion.pm.theory.cubic_dv_da) and its derivative at a boundary; plot them over ε.
    {"ref": "Fig. 18",
     "title": "Signs of Eqs. (119)-(120) for the cubic in Lemma 4 proof",
     "status": "not reproduced",
     "reason": "the plotted expressions of Eqs. (119)-(120) are lost from the text we have and "
               "would have to be re-derived from the cubic; the chapter checks the resulting Eq. "
               "(5) directly (lemma4-table, lemma23-grid)."},
    # REPRODUCIBLE OFFLINE: plot the three roots of ldp_companion.pm.theory.cubic_dv_da over ε
    # against the cap E/(E+2), marking the root that Eq. (121) selects.
    {"ref": "Fig. 19",
     "title": "Choice of the correct cubic root in Case 3 of Lemma 4 proof",
     "status": "not reproduced",
     "reason": "the plotted root expression (Eq. (121)) is lost from the text we have and would "
               "have to be re-derived; the chapter instead confirms the chosen root against "
               "bounded minimisation and a grid search (lemma4-table, lemma23-grid)."},
    # ---- Appendix -H ------------------------------------------------------------------------
    {"ref": "Fig. 20",
     "title": "Numerical inequality check used in Appendix H (HM-TP analysis)",
     "status": "not reproduced",
     "reason": "the inequality it plots (Appendix H, used by the HM-TP case analysis of Appendix "
               "U) is lost from the text we have and cannot be identified; the chapter checks "
               "HM-TP's resulting worst-case variance instead (fig1-values)."},
    # ---- Appendix -M (proof of Lemma 10): captions partly survive ("Figure 21: ..." etc.) ---
    {"ref": "Fig. 21",
     "title": "Root location of a function in the Lemma 10 proof",
     "status": "not reproduced",
     "reason": "its caption survives only as 'When [..], we have root at [..]' and the plotted "
               "function of Appendix M is lost; the chapter checks the optimal β through HM-TP's "
               "worst-case variance instead (fig1-values, hmtp-le-parts)."},
    {"ref": "Fig. 22",
     "title": "Case split on a function in the Lemma 10 proof",
     "status": "not reproduced",
     "reason": "its caption and plotted function (Appendix M) are lost from the text we have; the "
               "chapter checks the optimal β through HM-TP's worst-case variance instead "
               "(fig1-values, hmtp-le-parts)."},
    {"ref": "Fig. 23",
     "title": "Slope check in the Lemma 10 proof",
     "status": "not reproduced",
     "reason": "only the word 'slope' survives of its caption and the plotted slope of Appendix M "
               "is lost; the chapter checks the optimal β through HM-TP's worst-case variance "
               "instead (fig1-values, hmtp-le-parts)."},
    {"ref": "Fig. 24",
     "title": "Second slope check in the Lemma 10 proof",
     "status": "not reproduced",
     "reason": "only the word 'slope' survives of its caption and the plotted slope of Appendix M "
               "is lost; the chapter checks the optimal β through HM-TP's worst-case variance "
               "instead (fig1-values, hmtp-le-parts)."},
    # Fig. 25 is never referenced in the running text, but its caption line ("Figure 25: .")
    # survives in Appendix M, so it exists.
    {"ref": "Fig. 25",
     "title": "Unreferenced check in the Lemma 10 proof",
     "status": "not reproduced",
     "reason": "only the empty caption line 'Figure 25: .' survives in Appendix M, with no "
               "reference in the text, so what it plots is unknown; the chapter checks HM-TP's "
               "worst-case variance instead (fig1-values)."},
    # ---- Appendix -O -----------------------------------------------------------------------
    {"ref": "Fig. 26",
     "title": "A first-order derivative is negative (Appendix O)",
     "status": "not reproduced",
     "reason": "the function whose derivative it plots (Appendix O, Eq. (159)) is lost from the "
               "text we have; the chapter checks HM-TP's resulting worst-case variance instead "
               "(fig1-values, hmtp-le-parts)."},
    {"ref": "Fig. 27",
     "title": "A value is negative on an ε range (Appendix O)",
     "status": "not reproduced",
     "reason": "the plotted value (Appendix O) is lost from the text we have; the chapter checks "
               "HM-TP's resulting worst-case variance instead (fig1-values, hmtp-le-parts)."},
    # ---- Appendix -S (choice of k) -----------------------------------------------------------
    # The notebook's "Appendix S: the best ε1 per mechanism" plot of h(ε1) = ε1·max_x E[Y²|x]
    # stands in for it (the objective of Eq. (166) is lost from the paper's text; rebuilt here).
    # A curve evaluated from a closed form whose conclusion (ε1 = 2.5) eq36-argmin checks:
    # "checked", not "reproduced" (we cannot tell that it plots the paper's expression).
    {"ref": "Fig. 28",
     "title": "Numerical search for the best per-attribute budget (k rule)",
     "status": "checked", "claims": ["eq36-argmin"]},
    # ---- Appendix -T -------------------------------------------------------------------------
    {"ref": "Lemma 14",
     "title": "Per-attribute variance of Three-Outputs under Alg. 6",
     "status": "checked", "claims": ["mse-analytic", "fedsgd-server"]},
]

CLAIM_REFS = {
    # ε-LDP, exact audit (loop over MECHS in the "pm-check-ldp" cell)
    "ldp-laplace": ["Definition 1"],
    "ldp-duchi": ["Definition 1"],
    "ldp-pm": ["Definition 1"],
    "ldp-hm": ["Definition 1"],
    "ldp-three_outputs": ["Alg. 2", "Definition 1"],
    "ldp-pm_opt": ["Lemma 6", "Alg. 3", "Definition 1"],
    "ldp-pm_sub": ["Lemma 6", "Alg. 4", "Definition 1"],
    "ldp-hm_tp": ["Definition 1"],
    "ldp-empirical": ["Definition 1", "Alg. 2", "Alg. 3", "Alg. 4", "Lemma 6"],
    # Fig. 4: the density against Eq. (26b)
    "fig4-density": ["Fig. 4", "Alg. 3", "Alg. 4"],
    # moments
    "moments-law": ["Lemma 6", "Eq. (25)", "Alg. 2", "Alg. 3", "Alg. 4"],
    "moments-mc": ["Lemma 6", "Eq. (25)", "Alg. 2", "Alg. 3", "Alg. 4"],
    "variance-eps1": ["Lemma 6", "Eq. (25)"],
    # Lemmas 4-5
    "lemma4-table": ["Lemma 4", "Lemma 5"],
    "lemma4-continuity": ["Lemma 4"],
    # Lemma 7, PM-SUB
    "lemma7-tstar": ["Lemma 7"],
    "lemma7-ferrari": ["Lemma 7"],
    "pmsub-close": ["Sec. V-C"],
    # Fig. 1
    "fig1-values": ["Fig. 1", "Table I", "Lemma 5", "Lemma 10", "Lemma 11"],
    # crossovers (loop over CROSSINGS; "-paper" only where a rounded value is stated)
    "cross-duchi-laplace": ["Fig. 1"],
    "cross-duchi-pm": ["Table I", "Fig. 1"],
    "cross-duchi-pm-paper": ["Table I"],
    "cross-three_outputs-pm": ["Table II", "Fig. 1"],
    "cross-three_outputs-pm-paper": ["Table II", "Fig. 1"],
    "cross-three_outputs-pm_sub": ["Fig. 1"],
    "cross-three_outputs-pm_opt": ["Fig. 1"],
    "cross-pm_sub-duchi": ["Table II"],
    "cross-pm_sub-duchi-paper": ["Table II"],
    "cross-pm_opt-duchi": ["Fig. 1"],
    "cross-hm_tp-hm": ["Fig. 1"],
    "cross-hm_tp-pm_opt": ["Fig. 1"],
    "three-outputs-leaves-duchi": ["Table II", "Lemma 4"],
    # ordering claims
    "laplace-worse-pm": ["Table I"],
    "pmsub-beats-pm": ["Table II"],
    "pm-family-order": ["Lemma 7", "Table II", "Fig. 1"],
    "3out-beats-duchi-pm": ["Table II"],
    "hmtp-le-parts": ["Lemma 10"],
    "hmtp-lowest": ["Fig. 1"],
    # Lemmas 1-3
    "lemma1": ["Lemma 1"],
    "lemma23-grid": ["Lemma 4", "Lemma 2", "Lemma 3"],
    "lemma23-tight": ["Lemma 2", "Lemma 3"],
    "lemma3-wording": ["Lemma 3"],
    "lemma4-thresholds": ["Lemma 4"],
    "lemma4-factor": ["Lemma 4"],
    # beyond the paper
    "beyond-lp": ["Lemma 4", "Lemma 5"],
    "beyond-lp-values": ["Lemma 5"],
    # discretization
    "disc-table": ["Alg. 5"],
    "lemma9": ["Lemma 9"],
    "lemma8": ["Lemma 8", "Alg. 5"],
    "disc-mc": ["Lemma 8", "Alg. 5"],
    "fig15": ["Fig. 15"],
    # many attributes
    "eq36-argmin": ["Eq. (36)", "Fig. 28"],
    "lemma12-ldp": ["Lemma 12", "Alg. 6"],
    "duchi-md-split": ["Definition 1"],
    "duchi-md-minus": ["Definition 1"],
    "lemma13-slope": ["Lemma 13"],
    "lemma13-ratio": ["Lemma 13"],
    # mean estimation (Figs. 6-7)
    "mse-analytic": ["Lemma 14", "Lemma 12"],
    "mse-laplace-worst": ["Fig. 6", "Fig. 7"],
    "mse-duchi-md": ["Fig. 6", "Fig. 7"],
    "fig6-hmtp-all": ["Fig. 6", "Fig. 7"],
    "fig6-pmsub-pm": ["Fig. 6"],
    "fig6-3out-small": ["Fig. 6"],
    "fig6-budget-share": ["Fig. 6"],  # Sec. VII-A's split of ε, which Fig. 6's data sets use
    "fig11-monotone": ["Sec. VII-C"],
    # LDP-FedSGD (Figs. 8-10, 14)
    "fedsgd-server": ["Alg. 1", "Lemma 12", "Lemma 14"],
    "fedsgd-clip": ["Alg. 1"],
    "erm-laplace-linear": ["Fig. 9"],
    "erm-improves": ["Fig. 8", "Fig. 9", "Fig. 10"],
    "erm-proposed-better": ["Fig. 8", "Fig. 9", "Fig. 10"],
    "fig14": ["Fig. 14"],
    "fig11-proposed-better": ["Fig. 11"],
    "fig11-hmtp-all": ["Fig. 11"],
    "fig11-mse-analytic": ["Lemma 9", "Fig. 11"],
    "fig12-13-proposed-better": ["Fig. 12", "Fig. 13"],
    "fig12-13-similar": ["Fig. 12", "Fig. 13"],
}

# NOTES:
# Counts per kind in ITEMS (57 dicts): Definition 1; Lemma 14 (1-14); Alg. 6 (1-6);
#   Fig. 28 (1-28); Table 3 (I-III); Remark 1; Theorem/Corollary/Proposition 0; plus 4
#   non-numbered refs added because claims check them: Eq. (25), Eq. (36), Sec. V-C,
#   Sec. VII-C.
# Status counts: checked 32, reproduced 8 (drawn: each resolves to "reduced" unless the run
#   had the paper's setup; every one lists what differs even then, so all are "reduced"),
#   not reproduced 17 (Figs. 16-19 flagged REPRODUCIBLE OFFLINE once the lost plotted
#   expression is re-derived).
# The first ref of each claim is the item whose statement it tests; the others are context.
# The only "Theorem" in the text we have is "Theorem 2.2 of [47]" (Dwork & Roth, group privacy),
#   an external reference, not an item of this paper. No Corollary or Proposition occurs.
# Remark 1 (after Lemma 4) survives as its heading only: listed as "not reproduced"; its
#   probable content (a* = 0 below ln 2, so Three-Outputs = Duchi) is what
#   three-outputs-leaves-duchi checks, mapped to Table II and Lemma 4 (not to the Remark,
#   whose statement we do not have). The unnumbered "Symmetric Mechanism" definition
#   (Sec. V-A) is not listed.
# Lost numbering / existence judgements:
#   - Fig. 3 and Fig. 5 are never named anywhere in the text we have. Figs. 2, 4 and 6 are, and IEEE
#     figure numbering is consecutive (algorithms have their own counter), so both exist;
#     content and exact placement unknown (Fig. 3 placed in Sec. V-A, Fig. 5 in Sec. V-D, as
#     guesses).
#   - Fig. 25 is never referenced in the running text but its caption line "Figure 25: ."
#     survives in Appendix M, so it exists. Figs. 21-28 have caption lines; Figs. 16-20 are
#     only referenced in the text.
#   - Tables I and II: bodies lost (two empty "Range of | Comparison of mechanisms" stubs);
#     content taken from the prose. Table III partly survives.
#   - Lemma 11's statement is entirely lost (only "we can calculate the exact expression for
#     the worst-case noise variance in Lemma 11" survives); Lemma 14's formula is lost.
#   - Sections are named as the paper prints them ("Sec. V-C", "Sec. VII-C"), not "Sec. 5.3".
# Statuses of drawn figures:
#   - Figs. 1, 4 and 28 are curves evaluated from closed forms and checked by claims
#     (fig1-values and the orderings; fig4-density against Eq. (26b); eq36-argmin), so they
#     are "checked", not "reproduced". Fig. 28's plotted expression is lost: the chapter's
#     h(ε1) curve is our reconstruction of what it searches, and eq36-argmin checks its
#     conclusion (ε1 = 2.5).
#   - Figs. 6-13 are drawn from the run: "reproduced" with the parameters that decide the
#     paper's scale (setup) and what differs even at the paper profile (differs). The data
#     are decided by the chapter parameter `data` ("stand-ins" | "paper"); the paper's files
#     are pm.external_data's, not paper_assets', so `assets` stays empty (the paper profile
#     stops when they are missing).
# Judgement calls in CLAIM_REFS:
#   - ldp-laplace/duchi/pm/hm/hm_tp and duchi-md-split/-minus: no numbered item asserts these
#     baselines' privacy, so they map to Definition 1 only (the property audited).
#     duchi-md-minus checks a transcription pitfall, not a paper statement.
#   - ldp-pm_opt -> Lemma 6 (it states that Alg. 3 is ε-LDP); ldp-pm_sub -> Lemma 6 too: the
#     lemma is stated for Alg. 3, but its proof (Appendix I) is for any t and PM-SUB is the
#     case t = e^(ε/3). ldp-three_outputs -> Alg. 2 (no lemma states its privacy; Alg. 2 is
#     built on the constraints (9a)).
#   - moments-law/-mc and variance-eps1 -> Lemma 6 (Eq. (31), piecewise variance) and
#     Eq. (25) (Three-Outputs variance); the HM/HM-TP variances they also check have no number.
#   - fig1-values -> Fig. 1 first, then Lemmas 10-11 (and 5, Table I): the HM-TP /
#     Three-Outputs / baseline columns are the worst-case values those items state; the
#     reference numbers are computed here from the rebuilt closed forms, not printed.
#   - hmtp-le-parts -> Lemma 10: only a necessary consequence of β being optimal (β = 0, 1
#     are candidates), so it is a partial check of Lemma 10.
#   - lemma23-grid -> Lemma 4 first (no point of the family beats Eq. (5)), then Lemmas 2-3
#     (the family they reduce to); lemma23-tight tests Lemmas 2-3 themselves.
#   - beyond-lp / beyond-lp-values: our extension (LP over all three-output mechanisms);
#     mapped to the optimality of Lemmas 4-5 (beyond-lp-values to Lemma 5 only).
#   - pmsub-close -> Sec. V-C (prose: "comparable utility", "t close to e^(ε/3)").
#   - disc-table -> Alg. 5 only (our worst-case table of discretized PM-SUB); it also
#     underlies fig15. disc-mc -> Lemma 8 (the law Alg. 5's sampler must follow).
#   - fig11-mse-analytic -> Lemma 9 (the variance Alg. 5 adds, from its proof) and Fig. 11.
#   - fig11-monotone: the notebook names it after Fig. 11, but the claim (MSE falls as outputs
#     grow, PM-SUB, Gaussian data) is the Sec. VII-C statement made for Fig. 14, transferred
#     to mean estimation: hence Sec. VII-C. Fig. 11's own statement (proposed mechanisms beat
#     existing ones after discretization on WISDM/MX/BR) is fig11-proposed-better.
#   - fig15 checks Fig. 15's sentence in worst-case variance (ε = 1, 2, 4), not the paper's
#     experiment (whose ε is lost).
#   - fig6-pmsub-pm and fig6-3out-small run over the Gaussian (Fig. 7) data too, but the
#     sentences they test are the Fig. 6 text, so they map to Fig. 6 only.
#   - mse-analytic -> Lemma 14 (the per-attribute variance the expected MSE is built from)
#     and Lemma 12 (unbiasedness).
#   - fedsgd-server -> Alg. 1 (its server step), with Lemmas 12 and 14 (the unbiasedness and
#     the variance it relies on); fedsgd-clip -> Alg. 1 (its step 2, the clip to [-1, 1]).
#   - fig6-budget-share -> Fig. 6: Sec. VII-A's split (numeric attributes get ε·d_num/d) is
#     stated for Fig. 6's data sets, and the paper has no Sec. VII-A item of its own.
#   - erm-improves: not a sentence of the paper, read off Figs. 8-10.
#   - eq36-argmin -> Eq. (36) and Fig. 28 (see above).
#   - lemma13-slope / lemma13-ratio: Lemma 13's rate in n and in d (its constant is not given).

# Claims that are not about a result the paper's conclusions rest on (default: "substantive").
CLAIM_KINDS = {
    "lemma3-wording": "erratum",            # one adjective, its variable lost from the text
    "beyond-lp": "beyond the paper",        # the LP over all three-output mechanisms is ours
    "beyond-lp-values": "beyond the paper",
}

ITEMS = PaperItems("03-pm-three-outputs",
                   "Zhao et al. 2020, Local Differential Privacy based Federated Learning for the "
                   "Internet of Things",
                   [Item(**d) for d in _ITEMS], placeholder=False)
