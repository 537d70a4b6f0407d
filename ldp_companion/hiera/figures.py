"""Chapter 5's figures: Theorem 2's worst log ratios, the audit, graded Laplace's log density
ratios, and Figs. 1-3 of Hao, Wu & Wan (2023).

Every function draws one figure in the book's style (colours and markers from
:mod:`ldp_companion.page.plotting`) and returns ``(fig, caption, alt)`` for
:func:`~ldp_companion.page.plotting.show`; captions are written from the plotted values.
"""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ldp_companion.auditing.audit import plot_audit
from ldp_companion.hiera.experiments import HierAConfig
from ldp_companion.hiera.mechanism_checks import RULES
from ldp_companion.page.plotting import (
    PAGE_WIDTH_PX,
    SERIES_COLORS,
    color,
    epsilon_axis,
    label,
    legend_below,
    marker,
    plain_log_y,
)

__all__ = ["theorem2_curves", "excess_heatmap", "audit_scatter", "graded_laplace_ratios_plot",
           "fig1_mu", "fig2_methods", "fig3_sgd"]

_WIDTH = PAGE_WIDTH_PX / 100  # figure width in inches: the page's text column

#: Tick-label spacing on the ε axis of a half-width panel (the page's default, 1.45, lets
#: 0.4 and 0.6 touch there).
_NARROW = 1.6


def _stays(dense: pd.DataFrame, col: str, bound: str) -> str:
    return "stays within" if (dense[col] <= dense[bound] + 1e-12).all() else "exceeds"


def theorem2_curves(dense: pd.DataFrame, eps_ticks):
    """Each observer's worst log ratio and the two bounds against the base ε (Thm 2);
    ``dense`` is :func:`~ldp_companion.hiera.theorem2.privacy_curves`."""
    fig, ax = plt.subplots(figsize=(_WIDTH, 3.8))
    styles = {
        "joint": (SERIES_COLORS[0], "-", "o", "joint ⟨t*, y⟩ (what is sent)"),
        "level": (SERIES_COLORS[1], "-", "s", "level report t* alone"),
        "value": (SERIES_COLORS[2], "-", "^", "value report y alone"),
        "claimed": ("0.2", "--", None, r"Theorem 2's claim: max $\varepsilon_t$ = 5$\varepsilon$"),
        "composed": ("0.5", ":", None, r"composed bound: 2·$\varepsilon_1$ = 10$\varepsilon$"),
    }
    for col, (c, ls, mk, lab) in styles.items():
        ax.plot(dense["base"], dense[col], color=c, ls=ls, lw=1.8, marker=mk, markevery=6,
                ms=5, label=lab)
    ax.set(xlabel="base privacy budget ε (smallest level budget)",
           ylabel="worst log ratio over all inputs and outputs",
           title="Theorem 2: worst case over all pairs of levels")
    epsilon_axis(ax, eps_ticks)
    plain_log_y(ax)
    ax.legend(loc="upper left", fontsize=9.5)
    over = dense["joint"] / dense["claimed"] - 1
    caption = (
        "the worst log ratio over all pairs of inputs, for each of the three observers, as"
        " a function of the base budget. The level report (squares)"
        f" {_stays(dense, 'level', 'claimed')}"
        f" and the value report (triangles) {_stays(dense, 'value', 'claimed')} Theorem 2's bound"
        f" (dashed). The pair that is actually sent (circles) exceeds it at {int((over > 0).sum())}"
        f" of {len(over)} bases, by {over.min():.0%}–{over.max():.0%}, and"
        f" {_stays(dense, 'joint', 'composed')} the composed bound (dotted).")
    alt = ("Five lines against the base budget on log axes: three observers' worst log ratios"
           " and two bounds; the joint line (circles) lies above the dashed claimed bound.")
    return fig, caption, alt


def excess_heatmap(excess: pd.DataFrame, base: float):
    """Heat map of the joint log ratio's excess over Theorem 2's bound for each pair of
    levels at ``base`` (rows: level of x; columns: level of x')."""
    values = excess.to_numpy()
    k, top = values.shape[0], np.abs(values).max()
    fig, ax = plt.subplots(figsize=(5.6, 4.4))
    im = ax.imshow(values, cmap="RdBu_r", vmin=-top, vmax=top)
    for (i, j), val in np.ndenumerate(values):
        ax.text(j, i, f"{val:+.2f}", ha="center", va="center", fontsize=9,
                color="white" if abs(val) > 0.55 * top else "black")
    ax.set_xticks(range(k), range(1, k + 1))
    ax.set_yticks(range(k), range(1, k + 1))
    ax.set(xlabel="level of x' (denominator)", ylabel="level of x (numerator)",
           title=f"base ε = {base:g}: joint log ratio\nminus the claimed bound")
    ax.grid(False)
    fig.colorbar(im, ax=ax, label="excess over the claim\n(red: claim broken)")
    fig.tight_layout()
    caption = (f"at base {base:g}, the excess of the joint log ratio over the claimed max(εᵢ,"
               f" εⱼ) for every pair of levels: {int((values > 1e-12).sum())} of {values.size}"
               f" pairs are red (claim broken), by up to {values.max():.2f}.")
    alt = (f"A {k}-by-{k} heat map of the excess for each pair of levels, each cell labelled"
           " with its value; red cells are positive.")
    return fig, caption, alt


def audit_scatter(audits: pd.DataFrame):
    """Claimed bound against the audited lower bound, one point per audit
    (:func:`~ldp_companion.hiera.theorem2.audit_table`)."""
    fig, ax = plt.subplots(figsize=(6.0, 5.0))
    plot_audit(audits["claimed"], audits["audited lower bound"], ax=ax,
               labels=[f"{p}, ε={b:g}" for b, p in zip(audits["base ε"], audits["observer sees"])])
    ax.set(xlabel="Theorem 2's claimed bound max(ε_a, ε_b)",
           ylabel="audited lower bound on the log ratio",
           title="Empirical audit of LHP at the worst pair of inputs")
    ax.set_xlim(0, 1.3 * ax.get_xlim()[1])  # room for the labels of the rightmost points
    fig.tight_layout()
    above = audits["audited lower bound"] > audits["claimed"]
    seen = audits["observer sees"]
    counts = "; ".join(f"{o}: {int(above[seen == o].sum())} of {int((seen == o).sum())}"
                       for o in pd.unique(seen))
    caption = ("each point is one audit: Theorem 2's claimed bound for the pair (x-axis) against"
               " the 95 % lower confidence bound on the log ratio from samples (y-axis). Audits"
               f" above the diagonal break the claim: {counts}.")
    alt = ("Scatter of audited lower bounds against claimed bounds with the diagonal; each"
           " point is labelled with what the observer sees and the base ε.")
    return fig, caption, alt


#: Pairs (x, x') of graded Laplace's log density ratios, drawn in this order.
_GL_PAIRS = [(1.0, -1.0), (-1.0, 1.0), (0.0, -1.0), (0.6, 1.0)]


def graded_laplace_ratios_plot(gl, base: float, y_max: float = 12.0):
    """Log density ratios of the graded Laplace report (Sec. 3.1) for four pairs of inputs,
    and the largest budget."""
    ys = np.linspace(-y_max, y_max, 961)
    fig, ax = plt.subplots(figsize=(_WIDTH, 3.6))
    for i, (x, xp) in enumerate(_GL_PAIRS):
        ta, tb = int(gl.levels.level_of(x)), int(gl.levels.level_of(xp))
        ax.plot(ys, gl.log_density_ratio(ys, x, xp), color=SERIES_COLORS[i],
                marker="osD^"[i], markevery=80, ms=5,
                label=f"x = {x:g} (level {ta}) vs x' = {xp:g} (level {tb})")
    eps_1 = gl.levels.epsilons.max()
    ax.axhline(eps_1, color="black", ls="--", lw=1, label=f"largest budget ε₁ = {eps_1:g}")
    ax.set(xlabel="reported value y", ylabel="log f(y | x) / f(y | x')",
           title=f"Graded Laplace at base ε = {base:g}")
    fig.tight_layout()
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, fontsize=9)
    slopes = [float(gl.tail_slope(x, xp)) for x, xp in _GL_PAIRS]
    share5 = np.abs(gl.log_density_ratio(ys, 0.6, 1.0)).max() / gl.levels.epsilons.min()
    caption = (
        "log density ratios of the graded Laplace report for pairs of inputs. When x is in"
        " a more protected level than x′ (circles, diamonds), the ratio grows linearly in |y|"
        f" (slope {slopes[0]:g} and {slopes[2]:g} per unit), so no finite budget bounds it: a"
        " large report reveals coarse noise, i.e. a more protected level. The reverse ratio"
        " (squares) stays bounded, but a privacy guarantee must hold in both directions."
        f" Within one level (triangles) the ratio stays below {share5:.2f}·ε₅ on the plotted"
        " range.")
    alt = ("Four log density ratio curves against the reported value y: two grow linearly"
           " without bound in the tails, one stays bounded, one stays near zero; a dashed"
           " horizontal line marks the largest budget.")
    return fig, caption, alt


def _fig1_panel(ax, axr, mae, pred_dense, dataset, rule, mus):
    """One pool rule of Fig. 1: MAE per μ (top) and its ratio to μ = mus[0] (bottom)."""
    def rows(table, mu):
        return table[(table["dataset"] == dataset)
                     & (table["config"] == HierAConfig(mu, rule).label)]

    base_mc, base_an = rows(mae, mus[0]), rows(pred_dense, mus[0])
    for i, mu in enumerate(mus):
        m, p = rows(mae, mu), rows(pred_dense, mu)
        style = dict(fmt="osD^v"[i % 5], ms=4, capsize=2, color=SERIES_COLORS[i])
        ax.errorbar(m["epsilon"], m["mae"], yerr=m["mae_se"], label=f"μ = {mu}", **style)
        ax.plot(p["epsilon"], p["predicted_mae"], ls="--", lw=1, color=SERIES_COLORS[i])
        if i == 0:
            continue  # its ratio to itself is 1
        r = m["mae"].to_numpy() / base_mc["mae"].to_numpy()
        # ± one s.e. of the ratio by the delta method, ignoring the correlation of the
        # shared reports (which makes the true error smaller): conservative
        r_se = r * np.hypot(m["mae_se"].to_numpy() / m["mae"].to_numpy(),
                            base_mc["mae_se"].to_numpy() / base_mc["mae"].to_numpy())
        # labelled as above (the legend is drawn from the top row): the figure's CSV names
        # every row of the ratio panels too
        axr.errorbar(m["epsilon"], r, yerr=r_se, label=f"μ = {mu}", **style)
        axr.plot(p["epsilon"], p["predicted_mae"].to_numpy() / base_an["predicted_mae"].to_numpy(),
                 ls="--", lw=1, color=SERIES_COLORS[i], label=f"μ = {mu}, analytic")
    ax.set(title=f"{rule} pool rule\n"
           + ("(Alg. 5)" if rule == "paper" else "(authors' prototype)"))
    plain_log_y(ax)
    axr.axhline(1.0, color="0.3", lw=0.8, label=f"μ = {mus[0]} (ratio 1)")
    axr.set(xlabel="base privacy budget ε", title=f"{rule} rule: ratio to μ = {mus[0]}")


def _mu_verdict(ratio: pd.DataFrame) -> str:
    how = ("worse" if (ratio > 1).all().all()
           else "better" if (ratio < 1).all().all() else "worse or better")
    return (f"every μ ≥ 2 is {how} than μ = 1 over the plotted budgets (MAE ratio "
            f"{ratio.min().min():.3f}–{ratio.max().max():.3f}, largest at μ = "
            f"{ratio.max().idxmax()})")


def fig1_mu(mae, pred_dense, dataset: str, mus, eps_grid, n: int, runs: int):
    """Fig. 1: HierA's MAE on ``dataset`` for every μ, both pool rules, Monte Carlo points
    and analytic dashed lines, with the ratio to μ = mus[0] below."""
    mus = list(mus)
    fig, axes = plt.subplots(2, 2, figsize=(_WIDTH, 6.2), sharex=True,
                             gridspec_kw={"height_ratios": [1.3, 1]})
    axes[0, 1].sharey(axes[0, 0])  # same MAE scale; the ratio rows keep their own scales
    for (ax, axr), rule in zip(axes.T, RULES):
        _fig1_panel(ax, axr, mae, pred_dense, dataset, rule, mus)
        epsilon_axis(axr, eps_grid, min_ratio=_NARROW)
    axes[0, 0].set_ylabel("MAE of the mean estimate")
    axes[1, 0].set_ylabel(f"MAE(μ) / MAE(μ = {mus[0]})")
    fig.suptitle(f"Fig. 1: HierA on the age stand-in (n = {n:,}, T = {runs})")
    legend_below(fig, axes[0, 0], ncol=len(mus),
                 title="points: Monte Carlo (± 1 s.e.); dashed: analytic")
    an = pred_dense[(pred_dense["dataset"] == dataset) & (pred_dense["method"] == "hiera")]
    an = an.pivot_table(index=["rule", "epsilon"], columns="mu", values="predicted_mae")
    ratio = an.div(an[mus[0]], axis=0).drop(columns=mus[0])
    caption = (
        "MAE of HierA's mean estimate against the base budget, one colour and marker per"
        " reuse count μ. The paper claims the error falls as μ grows. Here, with the paper"
        f" rule (left) {_mu_verdict(ratio.loc['paper'])}; with the block rule of the authors'"
        f" prototype (right) {_mu_verdict(ratio.loc['block'])}. The bottom row divides by the"
        f" error at μ = {mus[0]} on the same reports, which makes the small differences visible"
        " (error bars: ± one standard error, conservative); the Monte Carlo points are"
        " checked against the analytic curves below.")
    alt = ("Four panels: top, MAE against base ε for each μ under the two pool rules, on log"
           " axes; bottom, the ratio of each μ's MAE to that of μ = 1, with a line at 1.")
    return fig, caption, alt


def _overtakes(cross: pd.DataFrame, name: str) -> str:
    at_eps = cross[name].dropna()
    if at_eps.empty:
        return f"{name} never overtakes HierA on the plotted budgets"
    return (f"{name} overtakes HierA above a base ε of {at_eps.min():.2f}–{at_eps.max():.2f}"
            f" on {len(at_eps)} of the {len(cross)} sets")


def fig2_methods(mae, pred_dense, datasets: dict, mu: int, eps_grid, runs: int,
                 cross: pd.DataFrame):
    """Fig. 2: MAE of HierA (μ = ``mu``), Harmony, PM and graded Laplace, one panel per data
    set, each method with its own colour and marker."""
    methods = {HierAConfig(mu).label: "hiera", "harmony": "harmony", "pm": "pm",
               "graded_laplace": "graded_laplace"}
    names = list(datasets)
    nrows = -(-len(names) // 2)
    fig, axes = plt.subplots(nrows, 2, figsize=(_WIDTH, 2.9 * nrows), squeeze=False)
    for ax, name in zip(axes.flat, names):
        for config, mech in methods.items():
            m = mae[(mae["dataset"] == name) & (mae["config"] == config)]
            p = pred_dense[(pred_dense["dataset"] == name) & (pred_dense["config"] == config)]
            lab = f"HierA (μ = {mu})" if mech == "hiera" else label(mech)
            ax.errorbar(m["epsilon"], m["mae"], yerr=m["mae_se"], fmt=marker(mech), ms=4,
                        capsize=2, color=color(mech), label=lab)
            ax.plot(p["epsilon"], p["predicted_mae"], ls="--", lw=1, color=color(mech))
        ax.set(title=f"{name} (n = {datasets[name].size:,})", xlabel="base privacy budget ε",
               ylabel="MAE")
        epsilon_axis(ax, eps_grid, min_ratio=_NARROW)  # half-width panels: 0.4 and 0.6 touched
        plain_log_y(ax)
    for ax in axes.flat[len(names):]:
        ax.set_axis_off()
    fig.suptitle(f"Fig. 2: mean estimation, T = {runs} runs per point")
    legend_below(fig, axes.flat[0], ncol=2,
                 title="points: Monte Carlo (± 1 s.e.); dashed: analytic")
    caption = (
        "MAE of the mean estimate against the base budget on the three synthetic sets and"
        " the two real stand-ins; points are Monte Carlo (± one standard error), dashed"
        f" lines the analytic prediction. HierA (μ = {mu}) is compared with each baseline in"
        f" the checks below; from the analytic curves, {_overtakes(cross, 'graded Laplace')},"
        f" {_overtakes(cross, 'PM')}, and {_overtakes(cross, 'Harmony')} (table below).")
    alt = (f"{len(names)} panels, one per data set, of MAE against base ε on log axes, with"
           " four methods each: HierA, Harmony, PM and graded Laplace.")
    return fig, caption, alt


def _sgd_rows(mu: int) -> list[dict]:
    """Fig. 3's two rows of panels: the paper's four methods, and HierA against the
    ablation and non-private SGD."""
    hiera = (color("hiera"), "-", f"HierA (μ = {mu})")
    return [{"harmony": (color("harmony"), "-", "Harmony"), "pm": (color("pm"), "-", "PM"),
             "graded_laplace": (color("graded_laplace"), "-", "graded Laplace"),
             "hiera": hiera},
            {"hiera": hiera,
             "harmony_clip": (color("harmony"), ":", "Harmony + pool clipping (ablation)"),
             "none": (color("non_private"), "-", "non-private SGD")}]


def _sgd_panel(ax, sub, styles, var_y, title, eps):
    """One panel of Fig. 3: median test MSE with interquartile bars per method, and the
    least-squares and predict-the-mean lines."""
    for k, (meth, (c, ls, lab)) in enumerate(styles.items()):
        s = sub[sub["method"] == meth].sort_values("epsilon")
        shift = 1 + 0.03 * (k - len(styles) / 2)  # small offsets so the bars do not overlap
        ax.errorbar(s["epsilon"] * shift, s["median"],
                    yerr=[s["median"] - s["q25"], s["q75"] - s["median"]], marker=marker(meth),
                    ls=ls, lw=1, ms=4, capsize=2, color=c, label=lab)
    ax.axhline(sub.loc[sub["method"] == "ols", "median"].iloc[0], color="black", ls="--",
               lw=1, label="least squares (non-private)")
    ax.axhline(var_y, color="0.6", ls="-.", lw=1, label="predicting the mean (var y)")
    ax.set(xlabel="base privacy budget ε", ylabel="test MSE (median)", title=title)
    epsilon_axis(ax, eps)
    plain_log_y(ax)


def fig3_sgd(sgd_q: pd.DataFrame, tasks: dict, mu: int, eps, folds: int, repeats: int):
    """Fig. 3: median test MSE of private mini-batch SGD per task (columns); top row the
    paper's four methods, bottom row HierA against the clipping ablation and non-private
    SGD, each with the least-squares and predict-the-mean lines."""
    rows = _sgd_rows(mu)
    fig, axes = plt.subplots(2, len(tasks), figsize=(_WIDTH, 6.4), squeeze=False, sharey="col")
    for col, (name, (Xt, yt)) in enumerate(tasks.items()):
        sub = sgd_q[sgd_q["dataset"] == name]
        for row, styles in enumerate(rows):
            title = f"{name}, n = {Xt.shape[0]:,}, d = {Xt.shape[1]}" if row == 0 else ""
            _sgd_panel(axes[row, col], sub, styles, float(np.var(yt)), title, eps)
    fig.suptitle(f"Fig. 3: private mini-batch SGD, {repeats} × {folds}-fold CV")
    legend_below(fig, axes, ncol=2, fontsize=9)
    private = sgd_q[~sgd_q["method"].isin(["ols", "none"])]
    ols = sgd_q[sgd_q["method"] == "ols"].set_index("dataset")["median"]
    n_above = int((private["median"].to_numpy() > ols.loc[private["dataset"]].to_numpy()).sum())
    caption = (
        "test MSE of linear regression trained by one pass of private mini-batch SGD, against"
        " the base budget, on the two stand-ins (log scales; points are medians over the CV"
        " folds, bars the interquartile range). Top row: the paper's four methods; bottom"
        " row: HierA against the pool-clipping ablation and non-private SGD, on the same"
        f" scale. {n_above} of the {len(private)} private medians lie above the non-private"
        " least-squares line (dashed); whether the curves fall as ε grows is judged in the"
        " next cell, from the same folds.")
    alt = (f"{2 * len(tasks)} panels of test MSE against base ε on log axes, one column per"
           " task: the top row has the paper's four private methods, the bottom row HierA,"
           " the ablation and non-private SGD; each panel has two horizontal reference lines.")
    return fig, caption, alt
