"""Reconstructed reference values of chapter 5 (Hao, Wu & Wan 2023).

The paper's text lost most inline mathematics and its figures are images, so it gives no
numbers to compare with. These values were computed independently from the rebuilt formulas
(see the book's Reconstructions page); the chapter compares the package with them, and every
claim that uses one is marked *reconstructed* in the ledger.
"""
from __future__ import annotations

import numpy as np

__all__ = ["P", "C", "GRR", "Q", "MOMENTS", "NO_COMPENSATION", "JOINT", "JOINT_BASE1",
           "GL_Y", "GL_RATIOS", "SECOND_MOMENTS", "USER_VARIANCES"]

#: Keep probabilities p_t of the Sec. 6 levels at base 0.5 and 1 (Alg. 3 step 4).
P = {
    0.5: [0.924142, 0.880797, 0.817574, 0.731059, 0.622459],
    1.0: [0.993307, 0.982014, 0.952574, 0.880797, 0.731059],
}
#: c_t = tanh(eps_t / 2) at base 0.5 and 1.
C = {
    0.5: [0.848284, 0.761594, 0.635149, 0.462117, 0.244919],
    1.0: [0.986614, 0.964028, 0.905148, 0.761594, 0.462117],
}
#: GRR (Sec. 3.1): (keep, move-to-one-other-level) probabilities per true level.
GRR = {
    0.5: ([0.7528, 0.6488, 0.5284, 0.4046, 0.2919],
          [0.0618, 0.0878, 0.1179, 0.1488, 0.1770]),
    1.0: ([0.9738, 0.9317, 0.8339, 0.6488, 0.4046],
          [0.0066, 0.0171, 0.0415, 0.0878, 0.1488]),
}
#: PLC keep probabilities q(i -> j) (Alg. 4), pairs 1->2, 1->3, ..., 4->5.
Q = {
    0.5: [0.948903, 0.874373, 0.772384, 0.644361, 0.916986, 0.803388, 0.660793, 0.863786,
          0.692804, 0.764996],
    1.0: [0.988553, 0.958714, 0.885963, 0.734193, 0.969462, 0.895006, 0.739680, 0.920701,
          0.755272, 0.803388],
}
#: (mechanism, ε, variance at v = 0) of the baselines (Alg. 1, Alg. 2).
MOMENTS = [("harmony", 0.5, 16.671), ("pm", 0.5, 17.702), ("pm", 2.0, 0.6456)]
#: (base ε, μ) -> large-n bias without the compensation copies (paper rule, uniform data).
NO_COMPENSATION = {(0.5, 2): -0.0224, (0.5, 3): -0.0500, (0.5, 5): -0.0982, (1.0, 5): -0.152}
#: Base ε -> worst joint log ratio of LHP's output <t*, y> (Thm 2).
JOINT = {0.1: 0.8988, 0.5: 3.9475, 1.0: 8.0667, 2.0: 17.083}
#: The joint log-ratio matrix at base 1 (rows: level of x; columns: level of x').
JOINT_BASE1 = np.array([
    [3.417, 4.550, 4.061, 3.989, 6.878],
    [8.067, 0.677, 3.782, 3.682, 5.616],
    [7.367, 4.839, 0.400, 3.201, 4.245],
    [6.404, 4.625, 3.291, 0.677, 3.566],
    [7.122, 3.870, 2.754, 1.819, 3.417],
])
#: Graded Laplace at base 1: outputs y and log f(y | x = 1) / f(y | x' = -1) (Sec. 3.1).
GL_Y = np.array([0, 2, 5, 10, 50])
GL_RATIOS = [0.391, 5.39, 11.39, 21.39, 101.39]
#: μ -> E[Z^2 | t* = i], i = 1..5, at base 0.5, paper rule.
SECOND_MOMENTS = {
    1: [1.390, 1.724, 2.479, 4.683, 16.671],
    2: [1.473, 1.913, 3.030, 7.680, 16.671],
    5: [2.190, 2.471, 3.135, 5.162, 16.671],
}
#: Exact average per-user variances on U[-1, 1] at base 0.5.
USER_VARIANCES = {"hiera μ=1": 4.0760, "hiera μ=2": 4.7606, "graded_laplace": 9.3671,
                  "harmony": 16.3375, "pm": 18.8754}
