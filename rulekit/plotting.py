"""Figures for comparisons and for how each learner searched.

matplotlib is an optional dependency (``pip install 'rulekit[plot]'``).
Every function returns the :class:`matplotlib.figure.Figure` it drew and
never calls ``show()``, so figures can be saved, embedded or tested.
"""

from __future__ import annotations

import numpy as np

__all__ = ["plot_comparison"]


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise ImportError(
            "plotting needs matplotlib: pip install 'rulekit[plot]'"
        ) from exc
    return plt


def _figure(ax, **kwargs):
    plt = _pyplot()
    if ax is None:
        fig, ax = plt.subplots(**kwargs)
        return fig, ax
    return ax.figure, ax


def plot_comparison(comparison, *, score=None, size="n_conditions", ax=None):
    """Score against model size, one point per model, Pareto front joined.

    Parameters
    ----------
    comparison : Comparison
        From :func:`rulekit.compare_models`.
    score : str, optional
        A column of ``comparison.table``; defaults to the first score's mean.
    size : {"n_conditions", "n_rules"}
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    score = score or f"{comparison.scoring[0]}_mean"
    table = comparison.table
    fig, ax = _figure(ax, figsize=(6.5, 4.5))
    sized = table.dropna(subset=[size])
    se_col = score.replace("_mean", "_se")
    yerr = sized[se_col] if se_col in sized else None
    ax.errorbar(sized[size], sized[score], yerr=yerr, fmt="o", color="tab:blue", capsize=3, label="models")
    for name, row in sized.iterrows():
        ax.annotate(name, (row[size], row[score]), textcoords="offset points", xytext=(5, 4), fontsize=8)
    front = comparison.pareto_front(score, size)
    if front:
        pts = sized.loc[front].sort_values(size)
        ax.step(pts[size], pts[score], where="post", color="tab:red", lw=1.5, label="Pareto front")
        ax.plot(pts[size], pts[score], "o", mfc="none", mec="tab:red", ms=11)
    unsized = table[table[size].isna()]
    for name, row in unsized.iterrows():  # black boxes: a horizontal reference line
        ax.axhline(row[score], ls=":", color="gray", lw=1)
        ax.annotate(f"{name} (no rule size)", (0.01, row[score]), xycoords=("axes fraction", "data"),
                    fontsize=8, color="gray", va="bottom")
    if len(sized) and sized[size].max() > 50 * max(sized[size].min(), 1):
        ax.set_xscale("symlog")
    ax.set_xlabel("conditions in the model" if size == "n_conditions" else "rules in the model")
    ax.set_ylabel(score.replace("_mean", "").replace("_", " ") + " (cross-validated)")
    ax.legend(loc="lower right", fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig
