"""Appendix B's claims beyond :func:`~ldp_companion.byom.checks.check_mechanism`: Square Wave
beside the papers' mechanisms (Sec. B.4) and its mutant (Sec. B.5). Each function records
claims, with their statements, in the page's ledger, which computes the verdicts."""
from __future__ import annotations

import pandas as pd

from ldp_companion.auditing.montecarlo import bonferroni_z, paired_differences
from ldp_companion.byom.checks import check_mechanism
from ldp_companion.byom.experiments import mse_matches
from ldp_companion.verdicts.ledger import Ledger

__all__ = ["record_worst_case", "record_mean_grid", "check_mutant"]


def record_worst_case(ledger, wc: pd.DataFrame, name: str = "square_wave") -> None:
    """Claim ``sw-worst-case``: ``name``'s worst-case variance is at least PM's at every ε.

    ``wc`` is :func:`~ldp_companion.mechanisms.compare.worst_case_table`'s output with columns
    ``name`` and ``"pm"``."""
    ledger.compare("sw-worst-case",
                   "Debiased for the mean, Square Wave's worst-case variance is at least PM's at"
                   " every ε (it is built for distributions, not means)",
                   wc[name], ">=", wc["pm"], names=("Square Wave", "PM"),
                   section="byom-compare")


def record_mean_grid(ledger, mean_df: pd.DataFrame, name: str = "square_wave") -> None:
    """Claims of the mean-estimation grid (Sec. B.4) on
    :func:`~ldp_companion.byom.experiments.scalar_mean_grid`'s output.

    * ``sw-mean-mse``: every cell's MSE matches its analytic expectation
      (:func:`~ldp_companion.byom.experiments.mse_matches`, family-wise error 1e-3);
    * ``sw-vs-pm``: ``name``'s MSE is larger than PM's, paired by run, every data set and ε
      (:func:`~ldp_companion.auditing.montecarlo.paired_differences`).
    """
    ok, fit = mse_matches(mean_df)
    ledger.condition("sw-mean-mse",
                     "In the mean-estimation grid, every mechanism's MSE (Square Wave's included)"
                     " matches its analytic expectation (χ² test per cell, family-wise error"
                     " 1e-3)", ok=ok, evidence=fit, section="byom-compare")
    wide = mean_df.pivot_table(index=["dataset", "epsilon", "run"], columns="mechanism",
                               values="mse")
    ledger.difference("sw-vs-pm",
                      "Square Wave's mean-estimation MSE is larger than PM's (every data set"
                      " and ε)", paired_differences(wide, ["dataset", "epsilon"], name, "pm"),
                      section="byom-compare")


def check_mutant(ledger, name: str, eps_grid, rng, *, n_audit: int, n_mc: int):
    """Run every check on the registered mutant ``name`` (Sec. B.5) and record what they show.

    The four claims of :func:`~ldp_companion.byom.checks.check_mechanism` go to a scratch
    ledger (they are about the mutant, not claims of the page); the page's ``ledger`` gets

    * ``mutant-caught``: the exact audit finds a privacy loss above the claim at every ε;
    * ``mutant-moments``: the moment checks alone do not catch it (every |z| below the
      Bonferroni bound).

    Parameters
    ----------
    ledger : Ledger
        The page's ledger.
    name : str
        A registered mechanism.
    eps_grid, rng, n_audit, n_mc
        As for :func:`~ldp_companion.byom.checks.check_mechanism`.

    Returns
    -------
    scratch : Ledger
        The mutant's own four claims, to show.
    result : dict
        :func:`~ldp_companion.byom.checks.check_mechanism`'s tables.
    """
    scratch = Ledger("mutant", refs={f"{name}-{k}": "Sec. B.5"
                                     for k in ("exact", "empirical", "law", "mc")})
    mut = check_mechanism(scratch, name, eps_grid, rng, n_audit=n_audit, n_mc=n_mc,
                          section="byom-mutant")
    ledger.compare("mutant-caught",
                   "The exact audit catches the mutant: its privacy loss exceeds the claimed ε"
                   " at every ε", mut["exact"]["audited ε"], ">",
                   mut["exact"]["claimed ε"] * (1 + 1e-6), names=("audited ε", "claimed ε"),
                   section="byom-mutant")
    z_star = bonferroni_z(2 * len(mut["moments"]), family_error=1e-3)
    ledger.compare("mutant-moments",
                   "The moment checks alone do not catch it: its |z| stay below the Bonferroni"
                   " bound", mut["moments"][["z", "z_var"]].abs().to_numpy(), "<", z_star,
                   names=("|z| per cell", "Bonferroni bound"), section="byom-mutant")
    return scratch, mut
