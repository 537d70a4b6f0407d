"""Reconstructed reference values of chapter 3 (Zhao et al. 2020).

The paper prints almost none of these numbers (see :mod:`ldp_companion.pm.reconstructions`):
each was computed from the rebuilt closed forms by a second, independent implementation, so a
slip in the package's code shows as a mismatch. The chapter compares its run with them.
"""
from __future__ import annotations

from typing import NamedTuple

import pandas as pd

__all__ = ["VARIANCE_EPS1", "lemma4_reference", "T_STAR", "FIG1_MECHS", "FIG1", "fig1_printed",
           "Crossing", "CROSSINGS", "discretized_reference"]

#: Var[Y | x] at ε = 1 for x = 0 and x = 1 (4 decimals).
VARIANCE_EPS1 = {
    "duchi": (4.6827, 3.6827),
    "pm": (3.6821, 5.2236),
    "pm_sub": (3.6881, 5.0823),
    "pm_opt": (3.7337, 5.0657),
    "three_outputs": (4.1758, 4.2335),
    "hm": (4.2890, 4.2890),
    "hm_tp": (4.0969, 4.3707),
}

_LEMMA4 = {  # ε' = 1.710392 is the cap threshold of Eq. (5)
    "epsilon": [0.5, 0.75, 1, 1.25, 1.5, 1.710392, 2, 3, 4, 6, 8],
    "a*": [0, 0.07526, 0.28608, 0.45127, 0.60661, 0.73444, 0.78699, 0.90944, 0.96466,
           0.99507, 0.99933],
    "C": [4.08299, 2.89337, 2.41848, 2.07085, 1.82090, 1.66209, 1.46955, 1.15719, 1.05597,
          1.00746, 1.00101],
    "x*": [0, 0.1662, 0.5289, 0.6904, 0.7813, 0.8310, 0.7348, 0.5786, 0.5280, 0.5037,
           0.5005],
    "V_3O": [16.6708, 7.7692, 4.4555, 2.8298, 1.9147, 1.4243, 0.99992, 0.45603, 0.31817,
             0.25875, 0.25118],
}


def lemma4_reference() -> pd.DataFrame:
    """Three-Outputs' a*, C, x* and worst-case variance by ε (Eq. (5), Lemma 5; 5–6
    significant figures), indexed by ``epsilon``."""
    return pd.DataFrame(_LEMMA4).set_index("epsilon")


#: PM-OPT's t* (Lemma 7) by ε, 6 decimals.
T_STAR = {0.1: 1.025319, 0.5: 1.133693, 1: 1.288757, 2: 1.690646, 3: 2.267097,
          4: 3.091759, 6: 5.907015, 8: 11.444715, 10: 22.259946}

#: The column order of :data:`FIG1`.
FIG1_MECHS = ("laplace", "duchi", "pm", "hm", "three_outputs", "pm_opt", "pm_sub", "hm_tp")
#: Fig. 1's worst-case variances at the paper's ε (strings: their digits give the precision).
FIG1 = {
    0.1: ["800.00", "400.667", "533.222", "400.667", "400.667", "533.056", "533.074",
          "400.667"],
    0.5: ["32.000", "16.6708", "21.2226", "16.6708", "16.6708", "21.0582", "21.0762",
          "16.6708"],
    1: ["8.0000", "4.6827", "5.2236", "4.2890", "4.4555", "5.0657", "5.0823", "4.4176"],
    1.5: ["3.5556", "2.4788", "2.2623", "1.8922", "1.9147", "2.1144", "2.1291", "1.9107"],
    2: ["2.0000", "1.7241", "1.2276", "1.0423", "0.99992", "1.0922", "1.1045", "0.9843"],
    3: ["0.8889", "1.2206", "0.4929", "0.4322", "0.4560", "0.3859", "0.3939", "0.3554"],
    4: ["0.5000", "1.0760", "0.2414", "0.2190", "0.3182", "0.1618", "0.1665", "0.1548"],
    6: ["0.2222", "1.0100", "0.07352", "0.07036", "0.2587", "0.03484", "0.03622",
        "0.03525"],
    8: ["0.1250", "1.0013", "0.02534", "0.02490", "0.2512", "0.008384", "0.008762",
        "0.008689"],
}


def fig1_printed() -> pd.DataFrame:
    """:data:`FIG1` as a table of strings: ε down, mechanisms (:data:`FIG1_MECHS`) across."""
    return pd.DataFrame(FIG1, index=list(FIG1_MECHS)).T


class Crossing(NamedTuple):
    """A threshold of Tables I–II: where the worst cases of ``a`` and ``b`` cross."""
    a: str
    b: str
    bracket: tuple
    rebuilt: float          # reconstructed, 6 decimals
    stated: float | None    # the paper's rounded value, where it prints one
    claim: str


CROSSINGS = [
    Crossing("duchi", "laplace", (1.5, 3.0), 2.324170, None,
             "Laplace is worse than Duchi for small ε (§II)"),
    Crossing("duchi", "pm", (0.8, 2.0), 1.289785, 1.29,
             "Table I: Duchi best for ε < 1.29, PM above"),
    Crossing("three_outputs", "pm", (2.5, 4.0), 3.269358, 3.27,
             "Table II: 3-Out beats PM for ε < 3.27"),
    Crossing("three_outputs", "pm_sub", (2.0, 3.0), 2.561089, None,
             "3-Out better below, PM-SUB above"),
    Crossing("three_outputs", "pm_opt", (2.0, 3.0), 2.499811, None,
             "3-Out better below, PM-OPT above"),
    Crossing("pm_sub", "duchi", (1.0, 1.5), 1.193048, 1.19,
             "Table II: PM-SUB beats Duchi for ε > 1.19"),
    Crossing("pm_opt", "duchi", (1.0, 1.5), 1.183102, None, "PM-OPT beats Duchi above"),
    Crossing("hm_tp", "hm", (1.2, 2.0), 1.593378, None, "HM-TP better than HM above"),
    Crossing("hm_tp", "pm_opt", (4.0, 7.0), 5.440112, None, "PM-OPT better than HM-TP above"),
]

_DISC = {  # worst-case variance of discretized PM-SUB by number of outputs, 4 decimals
    3: [8.0273, 1.9838, 0.5516],
    5: [5.7993, 1.3016, 0.2535],
    7: [5.3952, 1.1942, 0.1992],
    11: [5.1939, 1.1368, 0.1788],
    21: [5.1104, 1.1128, 0.1696],
    41: [5.0894, 1.1066, 0.1673],
    101: [5.0835, 1.1049, 0.1667],
    "continuous": [5.0823, 1.1045, 0.1665],
}


def discretized_reference() -> pd.DataFrame:
    """Worst-case variance of PM-SUB rounded to 3, …, 101 outputs (Alg. 5) and continuous,
    at ε = 1, 2, 4 (index ``epsilon``)."""
    return pd.DataFrame(_DISC, index=pd.Index([1.0, 2.0, 4.0], name="epsilon"))
