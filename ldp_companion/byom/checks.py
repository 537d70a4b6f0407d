"""The checks the book runs on every scalar mechanism, for one a reader registers.

:func:`check_mechanism` takes the *name* of a registered mechanism
(:func:`~ldp_companion.mechanisms.register_mechanism`), so it runs exactly what chapter 3 and
appendix A run on the papers' mechanisms, and records four claims in a ledger, each with a
computed verdict:

* ``<name>-exact``: the exact audit (:func:`~ldp_companion.auditing.audit.exact_audit`) finds a
  privacy loss of at most ε, at every ε;
* ``<name>-empirical``: no empirical audit's lower bound exceeds ε
  (:func:`~ldp_companion.auditing.audit.audit_samplers`, 5 % family-wise chance of flagging a
  correct sampler);
* ``<name>-law``: the exact output law has mean ``x`` and the closed-form variance;
* ``<name>-mc``: the sampler's mean and variance match, by Monte Carlo
  (:func:`~ldp_companion.auditing.montecarlo.moment_check`, Bonferroni z-bound, family-wise 10⁻³).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ldp_companion.auditing.audit import audit_samplers, exact_audit, largest_excess
from ldp_companion.auditing.montecarlo import bonferroni_z, moment_check
from ldp_companion.mechanisms import get_mechanism
from ldp_companion.page.plotting import label, tick_text
from ldp_companion.validation import check_epsilons, check_positive_int

__all__ = ["XS", "check_mechanism"]

#: Inputs of the moment checks: both ends, the middle and two inner points.
XS = (-1.0, -0.4, 0.0, 0.3, 1.0)
#: How far an exact output law's mass, mean and variance may be from 1, x and the stated
#: variance (round-off).
LAW_ATOL = 1e-9


def _exact(name, eps_grid) -> pd.DataFrame:
    rows = []
    for eps in eps_grid:
        audit = exact_audit(get_mechanism(name, eps))
        rows.append({"claimed ε": eps, "audited ε": audit.epsilon,
                     "worst pair": f"({audit.x:+.2f}, {audit.x_prime:+.2f})"})
    return pd.DataFrame(rows)


def _moments(name, eps_grid, n_mc, rng) -> pd.DataFrame:
    xs, rows = np.array(XS), []
    for eps in eps_grid:
        mech = get_mechanism(name, eps)
        table = moment_check(mech, XS, n_mc, rng)
        laws = [mech._output_law(x) for x in XS]  # XS are valid inputs: no check per x
        variance = mech._variance(xs)
        table["law mean error"] = [abs(law.mean() - x) for law, x in zip(laws, XS)]
        table["law var rel. error"] = [abs(law.var() / v - 1)
                                       for law, v in zip(laws, variance)]
        table["law mass error"] = [abs(law.mass() - 1) for law in laws]
        rows.append(table.assign(epsilon=eps))
    return pd.concat(rows, ignore_index=True)


def check_mechanism(ledger, name: str, eps_grid, rng: np.random.Generator, *, n_audit: int,
                    n_mc: int, section: str = "") -> dict[str, pd.DataFrame]:
    """Audit a registered mechanism and check its moments; record four claims in ``ledger``.

    Parameters
    ----------
    ledger : Ledger
        Where the claims go; their refs come from its ``refs`` mapping
        (``"<name>-exact"``, ``"<name>-empirical"``, ``"<name>-law"``, ``"<name>-mc"``).
    name : str
        A name :func:`~ldp_companion.mechanisms.get_mechanism` knows.
    eps_grid : sequence of float
        Claimed budgets.
    rng : numpy.random.Generator
    n_audit, n_mc : int
        Samples per input of each empirical audit and of each moment cell.
    section : str
        The page's label of the section the claims belong to.

    Returns
    -------
    dict
        ``"exact"``, ``"empirical"`` and ``"moments"`` tables, to show on the page.
    """
    eps_grid = [float(e) for e in check_epsilons(eps_grid, "eps_grid")]
    n_audit, n_mc = check_positive_int(n_audit, "n_audit"), check_positive_int(n_mc, "n_mc")
    get_mechanism(name, eps_grid[0])  # an unknown name fails here, listing the known ones
    shown = label(name)

    exact = _exact(name, eps_grid)
    ledger.compare(f"{name}-exact", f"{shown} is ε-LDP (exact audit of its output law)",
                   exact["audited ε"], "<=", exact["claimed ε"], rtol=1e-9,
                   names=("audited ε", "claimed ε"), section=section)

    empirical = audit_samplers({name: lambda e: get_mechanism(name, e)}, eps_grid, n_audit, rng,
                               family_error=0.05)
    ledger.compare(f"{name}-empirical",
                   f"{shown}'s sampler stays within ε in the empirical audits (x = 1, x' = −1, "
                   f"n = {n_audit:,} per input; 5% chance of flagging a correct sampler)",
                   largest_excess(empirical).to_numpy(), "<=", 0.0,
                   names=("largest lower bound − ε", "0"), section=section)

    moments = _moments(name, eps_grid, n_mc, rng)
    errors = moments[["law mean error", "law var rel. error", "law mass error"]]
    ledger.compare(f"{name}-law", f"{shown}'s output law has mass 1, mean x and the stated "
                   f"variance (errors < {tick_text(LAW_ATOL)})", errors.to_numpy(), "<", LAW_ATOL,
                   names=("|mass − 1|, |mean − x|, |Var / variance(x) − 1| per cell",
                          tick_text(LAW_ATOL)),
                   section=section)
    z_star = bonferroni_z(2 * len(moments), family_error=1e-3)
    ledger.compare(f"{name}-mc", f"{shown}'s sampler is unbiased with the stated variance: |z| "
                   f"< {z_star:.2f} for the mean and the variance (n = {n_mc:,} per cell)",
                   moments[["z", "z_var"]].abs().to_numpy(), "<", z_star,
                   names=("|z| of the mean and of the variance per cell", "Bonferroni bound"),
                   section=section)
    return {"exact": exact, "empirical": empirical, "moments": moments}
