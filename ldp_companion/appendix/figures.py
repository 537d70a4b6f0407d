"""Appendix A's figure: the empirical audits against their claims and against the bound an
ε-LDP mechanism puts on any test's accuracy."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ldp_companion.auditing.audit import ldp_accuracy_bound, plot_audit

__all__ = ["CAP", "audit_figure"]

#: Lower bounds this large come from mutants whose true ε is infinite: drawn at the top.
CAP = 5.0
_WITHIN, _FLAGGED = "within claim", "above claim (flagged)"


def _point_styles(ax) -> dict:
    """Colour and marker of the left panel's points, by legend text, so that the right panel
    draws flagged and unflagged audits the same way."""
    styles = {}
    for handle, text in zip(*ax.get_legend_handles_labels()):
        if hasattr(handle, "get_facecolor") and len(handle.get_facecolor()):
            styles[text] = handle.get_facecolor()[0]
    return styles


def _accuracy_panel(ax, empirical: pd.DataFrame, styles: dict) -> None:
    eps_line = np.linspace(0.05, empirical["claimed ε"].max() * 1.1, 100)
    ax.plot(eps_line, ldp_accuracy_bound(eps_line), color="0.3",
            label=r"$e^{\varepsilon}/(1+e^{\varepsilon})$")
    for flag, marker, text in ((False, "o", _WITHIN), (True, "x", _FLAGGED)):
        sub = empirical[empirical["flagged"] == flag]
        ax.scatter(sub["claimed ε"], sub["test accuracy"], marker=marker,
                   color=styles.get(text), label=text)
    ax.set(xlabel="claimed ε", ylabel="accuracy of the best test",
           title="Attack accuracy vs the bound")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.25), ncol=2, fontsize=9)


def audit_figure(empirical: pd.DataFrame, cap: float = CAP):
    """The empirical audits of Sec. A.2 in two panels, and the caption that says what they show.

    Left, each audit's lower bound against its claimed ε
    (:func:`~ldp_companion.auditing.audit.plot_audit`; bounds of ``cap`` or more at the top). Right,
    the accuracy of the best threshold test between ``x = 1`` and ``x′ = −1`` against the
    bound ``e^ε / (1 + e^ε)`` no test may beat under ε-LDP.

    Parameters
    ----------
    empirical : DataFrame
        :func:`~ldp_companion.appendix.audits.empirical_table`'s output.
    cap : float

    Returns
    -------
    fig : matplotlib.figure.Figure
    caption : str
        Built from the table's counts.
    """
    fig, (ax, ax_acc) = plt.subplots(1, 2, figsize=(6.88, 3.6))
    plot_audit(empirical["claimed ε"], empirical["audited lower bound"], ax=ax, cap=cap)
    ax.set_title("Audited lower bound vs claim")
    _accuracy_panel(ax_acc, empirical, _point_styles(ax))
    fig.tight_layout()
    mutant = empirical[empirical["mutant"]]
    correct = empirical[~empirical["mutant"]]
    caption = (
        "left, each audit's lower bound against the claimed ε; points above the dashed"
        f" diagonal break their claim ({int(mutant['flagged'].sum())} of {len(mutant)}"
        f" mutant audits, {int(correct['flagged'].sum())} of {len(correct)} audits of"
        f" correct mechanisms); bounds of {cap:g} or more (the mutants whose true ε is"
        " infinite) are drawn as triangles at the top. Right, the accuracy of the best"
        " threshold test between x = 1 and x′ = −1 (equal priors); an ε-LDP mechanism"
        " cannot let any test beat e^ε / (1 + e^ε), up to sampling error in the fitted"
        " threshold.")
    return fig, caption
