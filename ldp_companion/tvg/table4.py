"""Table IV of Yang et al. 2021 (TVG): the expected errors ``E‖Z‖²`` of each mechanism with
``W = E`` as orders in ``I``, measured as log–log slopes over sweeps of growing tensors, and the
per-entry noise at the paper's own shapes (Tables II–III), with the claims they test.

The slopes use :func:`~ldp_companion.tvg.noise.expected_error` (``b − a = 2``, ``s₂ = 2√I``,
ε = 1). MVG follows the paper's convention ``I₁ I / B_MVG``; the Gaussian's entry is drawn but
not judged, since its calibration is inferred from this very order.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ldp_companion.page.plotting import label
from ldp_companion.page.tables import show_table
from ldp_companion.tvg import audits, noise

__all__ = ["SWEEPS", "MECHANISMS", "PAPER_SHAPES", "STD_ORDER", "error_sweeps", "claimed_slopes",
           "record_orders", "paper_shape_stds", "record_paper_shapes", "std_labels", "slope_labels",
           "std_table", "short_number", "gauss_calibration", "record_gauss_calibration"]

#: Three sweeps of growing ``I``: ``I₁`` fixed, ``I₁ = I₂``, ``I₂`` fixed.
SWEEPS = {
    "I₁ = 16, I₂ grows": [(16, 2**k) for k in range(2, 17)],
    "I₁ = I₂": [(2**k, 2**k) for k in range(3, 11)],
    "I₂ = 16, I₁ grows": [(2**k, 16) for k in range(2, 17)],
}
#: Mechanisms of Table IV's figure.
MECHANISMS = ["tvg", "udn", "idn", "mvg", "gauss_paper", "gauss_l2"]
#: The paper's shapes and clip ``C`` (Tables II–III): ``s₂ = 2C√I``; a short name each.
PAPER_SHAPES = {
    "MNIST (I)": ((3136, 512), 1e-4),
    "Credit (I)": ((28, 10), 0.1),
    "Adult (I)": ((105, 12), 1.0),
    "MNIST (II, III)": ((256, 16, 5, 5), 1.0),
    "CIFAR-10": ((256, 512, 1, 1), 1.0),
    "SVHN": ((256, 256, 4, 4), 1.0),
    "IMDB": ((256, 150), 1.0),
}
#: Mechanisms of the per-entry noise table, in decreasing noise at Type I MNIST's shape.
STD_ORDER = ["mvg", "tvg", "udn", "gauss_paper", "idn", "gauss_l2", "gauss_analytic"]


def _claimed_order(mechanism: str, shapes) -> list[float]:
    """Table IV's printed order along a sweep: ``I₁ I³`` (UDN), ``I₁ I³ ln²(I₁ + 1)`` (MVG)."""
    return [s[0] * math.prod(s) ** 3 * (np.log(s[0] + 1) ** 2 if mechanism == "mvg" else 1)
            for s in shapes]


def error_sweeps(delta: float, sweeps=SWEEPS, mechanisms=MECHANISMS) -> tuple[dict, pd.DataFrame]:
    """Table IV's expected errors along each sweep, and their log–log slopes.

    Returns
    -------
    curves : dict
        ``(sweep, mechanism) -> (sizes I, errors)``.
    slopes : DataFrame
        Rows: mechanisms, plus ``"udn claimed"`` and ``"mvg claimed"`` (the slope of the
        printed order along the sweep); columns: sweeps.
    """
    curves, slopes = {}, {}
    for sweep, shapes in sweeps.items():
        sizes = [math.prod(s) for s in shapes]
        for m in mechanisms:
            err = [noise.expected_error(m, s, 1.0, delta, value_range=2.0) for s in shapes]
            curves[(sweep, m)] = (sizes, err)
            slopes[(sweep, m)] = noise.loglog_slope(sizes, err)
            if m in ("udn", "mvg"):
                slopes[(sweep, m + " claimed")] = noise.loglog_slope(
                    sizes, _claimed_order(m, shapes))
    rows = [r for m in mechanisms for r in ([m, m + " claimed"] if m in ("udn", "mvg")
                                             else [m])]
    return curves, pd.Series(slopes).unstack(0).loc[rows, list(sweeps)]


def claimed_slopes(slopes: pd.DataFrame) -> dict[str, np.ndarray]:
    """The slope each judged mechanism should have along each sweep: the printed order's
    (UDN, MVG) or 3 (IDN, ``O(I³)``)."""
    return {m: (slopes.loc[m + " claimed"].to_numpy() if m in ("udn", "mvg")
                else np.full(slopes.shape[1], 3.0))
            for m in ("udn", "idn", "mvg")}


def record_orders(ledger, slopes: pd.DataFrame) -> None:
    """Record Table IV's orders of UDN, IDN and MVG from :func:`error_sweeps`' slopes."""
    claimed, atol = claimed_slopes(slopes), 0.1  # atol: how far a slope may be from the order
    measured = {m: slopes.loc[m].to_numpy() for m in claimed}
    ledger.condition(
        "table4-orders",
        "Table IV: the errors of UDN, IDN and MVG grow as printed (log–log slope within"
        f" {atol:g} of the claimed order's, three sweeps of I)",
        np.array([np.all(np.abs(measured[m] - claimed[m]) <= atol) for m in claimed]),
        evidence={f"{m} slopes (measured)": measured[m] for m in claimed}
        | {"MVG slopes (claimed order)": claimed["mvg"]},
        note="entries: UDN, IDN, MVG (the Gaussian's calibration is inferred from its order)")


def paper_shape_stds(delta: float, shapes=PAPER_SHAPES, order=STD_ORDER) -> pd.DataFrame:
    """Per-entry noise standard deviation at ε = 1 of each mechanism (rows, in ``order``) at
    the paper's shapes (columns), entries in ``(−C, C)``, ``γ = C√I``."""
    return pd.DataFrame(
        {name: [noise.entry_std(m, s, 1.0, delta, value_range=2 * c,
                                gamma=c * math.sqrt(math.prod(s))) for m in order]
         for name, (s, c) in shapes.items()},
        index=list(order))


def record_paper_shapes(ledger, stds: pd.DataFrame) -> dict:
    """Record Sec. VIII-C's IDN < paper's Gaussian and the abstract's IDN ≤ the Gaussian
    mechanism from :func:`paper_shape_stds`.

    Returns
    -------
    dict
        ``over_min``, ``over_max`` (the range of IDN's std over the analytic Gaussian's) and
        ``in_order`` (rows whose noise decreases along ``STD_ORDER``, out of ``shapes``).
    """
    idn, paper, analytic = (stds.loc[m].to_numpy() for m in
                            ("idn", "gauss_paper", "gauss_analytic"))
    ledger.compare(
        "table4-idn-gauss",
        "Sec. VIII-C: at the paper's shapes IDN adds less noise than the Gaussian baseline"
        " (paper's calibration, inferred), ε = 1",
        idn, "<", paper, names=("IDN std", "Gaussian (paper) std"))
    over = idn / analytic
    ledger.compare(
        "tvg-vs-gaussian",
        "Sec. I, abstract: TVG (IDN) is superior to the Gaussian mechanism (per-entry"
        " std of IDN ≤ the standard Gaussian mechanism's on vec f, analytic calibration,"
        " same s₂)",
        idn, "<=", analytic, names=("IDN std", "analytic Gaussian std"),
        note=f"IDN needs {over.min():.1f}–{over.max():.0f} times the Gaussian's std")
    in_order = np.all(np.diff(stds.to_numpy(), axis=0) <= 0, axis=0)
    return {"over_min": float(over.min()), "over_max": float(over.max()),
            "in_order": int(in_order.sum()), "shapes": len(in_order)}


def std_labels() -> dict:
    """Short display names of :func:`paper_shape_stds`' rows."""
    return {"mvg": "MVG", "tvg": "TVG (isotropic)", "udn": "UDN",
            "gauss_paper": "Gaussian (paper)", "idn": "IDN",
            "gauss_l2": "Gaussian (classical)", "gauss_analytic": "Gaussian (analytic)"}


def slope_labels() -> dict:
    """Display names of :func:`error_sweeps`' slope rows."""
    return {**{m: label(m) for m in MECHANISMS}, "udn claimed": "UDN, printed order",
            "mvg claimed": "MVG, printed order"}


def short_number(x: float) -> str:
    """Three significant digits, the exponent written short: ``4.38e6``, ``0.0123``."""
    text = f"{x:.3g}"
    if "e" in text:
        mantissa, exponent = text.split("e")
        text = f"{mantissa}e{int(exponent)}"
    return text


def std_table(stds: pd.DataFrame, caption: str):
    """:func:`paper_shape_stds` for the page: short row names, three significant digits,
    padded cells (:func:`~ldp_companion.page.tables.show_table`)."""
    styler = show_table(stds, caption, labels=std_labels(), formats=short_number)
    return styler.set_table_styles([{"selector": "th, td", "props": "padding: 0.1em 0.5em;"}])


def gauss_calibration(delta: float, shapes=PAPER_SHAPES) -> pd.DataFrame:
    """``audits.calibration_table`` of the paper's Gaussian, the classical Gaussian and the
    analytic Gaussian (whose true ε must be ε itself: the smallest σ with exact (ε, δ)) at
    the paper's shapes, ε = 1."""
    return pd.concat([audits.calibration_table(m, [s], (1.0,), delta, value_range=2 * c)
                      for m in ("gauss_paper", "gauss_l2", "gauss_analytic")
                      for s, c in shapes.values()])


def record_gauss_calibration(ledger, table: pd.DataFrame) -> None:
    """Record the Gaussian baselines' calibration from :func:`gauss_calibration`."""
    ledger.close(
        "gauss-calibration",
        "Sec. VIII-C: the Gaussian baselines as the package calibrates them (the paper's,"
        " inferred, the classical c s₂/ε and the analytic one): the exact ε of the audit is"
        " the one their formulas predict, ε itself for the analytic (the paper's 7 shapes,"
        " ε = 1)",
        table["predicted"], table["audited"], rtol=1e-6, atol=1e-10)
