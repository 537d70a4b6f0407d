"""Appendix A's claims: each function records, in the page's ledger, the claims one section
checks on the tables of :mod:`~ldp_companion.appendix.audits`, with their statements. The
verdicts are computed by the ledger (:mod:`ldp_companion.verdicts.ledger`)."""
from __future__ import annotations

import pandas as pd

from ldp_companion.auditing.audit import allowed_exceedances

__all__ = ["record_exact", "record_empirical", "record_tensor"]


def record_exact(ledger, exact: pd.DataFrame) -> None:
    """Claim ``exact-all`` (Sec. A.1): every audited ε equals its claim (relative 1e-9).

    ``exact`` is :func:`~ldp_companion.appendix.audits.exact_table`'s output."""
    ledger.close("exact-all",
                 "Every scalar mechanism in the package is ε-LDP with a tight bound",
                 paper=exact["claimed ε"], ours=exact["audited ε"], rtol=1e-9,
                 section="audit-exact")


def record_empirical(ledger, empirical: pd.DataFrame, n: int) -> dict:
    """Claims of Sec. A.2 on :func:`~ldp_companion.appendix.audits.empirical_table`'s output.

    * ``empirical-correct``: no lower bound of a correct mechanism exceeds its claim;
    * ``empirical-below-truth``: lower bounds exceed the true ε no more often than the 95 %
      confidence allows (the 99.9 % quantile of Binomial(audits, 0.05),
      :func:`~ldp_companion.auditing.audit.allowed_exceedances`);
    * ``empirical-mutants``: every mutant's lower bound exceeds its claim.

    Parameters
    ----------
    ledger : Ledger
    empirical : DataFrame
    n : int
        Outputs per input of each audit (for the statements).

    Returns
    -------
    dict
        ``exceed`` (bounds above the true ε), ``allowed`` (the most the confidence allows),
        and the flagged counts ``flagged correct``, ``correct``, ``flagged mutants``,
        ``mutants``, for the page's prose and captions.
    """
    correct, mutant = empirical[~empirical["mutant"]], empirical[empirical["mutant"]]
    counts = {"flagged correct": int(correct["flagged"].sum()), "correct": len(correct),
              "flagged mutants": int(mutant["flagged"].sum()), "mutants": len(mutant)}
    ledger.compare("empirical-correct",
                   f"Correct Laplace and Duchi are never flagged at n = {n}",
                   correct["audited lower bound"], "<=", correct["claimed ε"],
                   names=("audited lower bound", "claimed ε"),
                   ours=f"{counts['flagged correct']} flagged of {counts['correct']}",
                   section="audit-empirical")
    exceed = int((empirical["audited lower bound"] > empirical["true ε"]).sum())
    allowed = allowed_exceedances(len(empirical))  # each audit at 95% confidence
    ledger.bound("empirical-below-truth",
                 "Lower bounds exceed the true ε no more often than the "
                 f"95% confidence allows (99.9% binomial quantile of {len(empirical)} audits)",
                 paper=allowed, ours=exceed, section="audit-empirical")
    ledger.compare("empirical-mutants", f"Every mutant is flagged at n = {n}",
                   mutant["audited lower bound"], ">", mutant["claimed ε"],
                   names=("audited lower bound", "claimed ε"),
                   ours=f"{counts['flagged mutants']} of {counts['mutants']} flagged",
                   section="audit-empirical")
    return {"exceed": exceed, "allowed": allowed, **counts}


def record_tensor(ledger, tensor: pd.DataFrame) -> None:
    """Claim ``tensor`` (Sec. A.3): the audit's lower bounds stay below the true ε of the pair.

    ``tensor`` is :func:`~ldp_companion.appendix.audits.tensor_table`'s output."""
    ledger.compare("tensor",
                   "On a 28×28 tensor the audit stays below the true ε for both scales",
                   tensor["audited lower bound"], "<=", tensor["true ε of the pair"],
                   names=("audited lower bound", "true ε"), section="audit-tensor")
